"""ATen's `mul.Scalar` and `div.Scalar`: a tensor times (or over) a number, as PyTorch's
composite ops call them from C++ (trapezoid, special.ndtr). Their nodes are
MulBackward1 and DivBackward1, where `tensor * number` from Python records
MulBackward0; composites built here use these to show PyTorch's grad_fn names.
"""
from ..autograd.graph import Node
from ._common import attach, binary, grad_state, wrap

__all__ = ["mul_scalar", "div_scalar"]


def mul_scalar(input, number):
    """input * number, recorded as MulBackward1."""
    a, b, device = binary(input, number, "mul")
    out = wrap(a * b, device)
    if grad_state.enabled and input._requires_grad:
        node = MulBackward1()
        node.number = number
        attach(out, node, input)
    return out


class MulBackward1(Node):
    __slots__ = ("number",)

    def backward(self, grad):
        return (grad * self.number,)


def div_scalar(input, number):
    """input / number (true division), recorded as DivBackward1."""
    a, b, device = binary(input, number, "div", floating=True)
    if a.dtype.kind in "iub":
        a = a.astype(device.xp.float32)
    out = wrap(a / b, device)
    if grad_state.enabled and input._requires_grad:
        node = DivBackward1()
        node.number = number
        attach(out, node, input)
    return out


class DivBackward1(Node):
    __slots__ = ("number",)

    def backward(self, grad):
        return (grad / self.number,)
