"""Elementwise ops: arithmetic, powers, exponentials, and their gradients.

Each op is its public function followed by its backward node, named as PyTorch
names it. Binary ops go through `binary()` for PyTorch's type promotion and
broadcast-error text; backward formulas use ember ops so they can be recorded
for higher-order gradients, and `sum_to_shape` undoes broadcasting.
"""
from .. import _errors
from ..autograd.graph import Node
from ._common import (Tensor, any_requires_grad, attach, binary, float_operand, grad_state,
                      inplace, sum_to_shape, wrap)

__all__ = ["add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide",
           "neg", "negative", "pow", "exp"]


def _broadcast_error(a, b):
    shape_b = getattr(b, "shape", ())
    message = _errors.broadcast_mismatch(a.shape, shape_b)
    return RuntimeError(message) if message else None


def _shape(x):
    return x._data.shape if isinstance(x, Tensor) else ()


# ---------------------------------------------------------------- add / sub
def add(input, other, *, alpha=1, out=None):
    """input + alpha * other, broadcast, with PyTorch's type promotion."""
    a, b, device = binary(input, other, "add")
    if alpha != 1:
        b = b * alpha
    try:
        result = a + b
    except ValueError:
        raise _broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = AddBackward0()
        node.alpha = alpha
        node.shapes = (a.shape, _shape(other))
        attach(out_t, node, input, other)
    return out_t


class AddBackward0(Node):
    __slots__ = ("alpha", "shapes")

    def backward(self, grad):
        shape_a, shape_b = self.shapes
        grad_a = sum_to_shape(grad, shape_a) if self.next_functions[0][0] is not None else None
        grad_b = None
        if self.next_functions[1][0] is not None:
            grad_b = grad if self.alpha == 1 else grad * self.alpha
            grad_b = sum_to_shape(grad_b, shape_b)
        return grad_a, grad_b


def add_(input, other, *, alpha=1):
    """In-place add; see `_common.inplace` for the rules it enforces."""
    return inplace(input, add, other, alpha=alpha)


def sub(input, other, *, alpha=1, out=None):
    """input - alpha * other."""
    a, b, device = binary(input, other, "sub")
    if a.dtype.kind == "b":  # after promotion, only bool - bool stays bool
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if alpha != 1:
        b = b * alpha
    try:
        result = a - b
    except ValueError:
        raise _broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = SubBackward0()
        node.alpha = alpha
        node.shapes = (a.shape, _shape(other))
        attach(out_t, node, input, other)
    return out_t


subtract = sub


class SubBackward0(Node):
    __slots__ = ("alpha", "shapes")

    def backward(self, grad):
        shape_a, shape_b = self.shapes
        grad_a = sum_to_shape(grad, shape_a) if self.next_functions[0][0] is not None else None
        grad_b = None
        if self.next_functions[1][0] is not None:
            grad_b = sum_to_shape(-grad if self.alpha == 1 else grad * -self.alpha, shape_b)
        return grad_a, grad_b


def sub_(input, other, *, alpha=1):
    return inplace(input, sub, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    """other - alpha * input (what `2 - x` calls)."""
    a, b, device = binary(input, other, "rsub")
    result = b - (a * alpha if alpha != 1 else a)
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = RsubBackward1()
        node.alpha = alpha
        node.shapes = (a.shape, _shape(other))
        attach(out_t, node, input, other)
    return out_t


class RsubBackward1(Node):
    __slots__ = ("alpha", "shapes")

    def backward(self, grad):
        shape_a, shape_b = self.shapes
        grad_a = None
        if self.next_functions[0][0] is not None:
            grad_a = sum_to_shape(-grad if self.alpha == 1 else grad * -self.alpha, shape_a)
        grad_b = sum_to_shape(grad, shape_b) if self.next_functions[1][0] is not None else None
        return grad_a, grad_b


# ---------------------------------------------------------------- mul / div
def mul(input, other, *, out=None):
    """input * other, broadcast."""
    a, b, device = binary(input, other, "mul")
    try:
        result = a * b
    except ValueError:
        raise _broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = MulBackward0()
        node.shapes = (a.shape, _shape(other))
        if isinstance(other, Tensor):
            node.other_scalar = None
            node.save(input, other)
        else:
            node.other_scalar = b
            node.save(None, None)
        attach(out_t, node, input, other)
    return out_t


multiply = mul


class MulBackward0(Node):
    __slots__ = ("shapes", "other_scalar")

    def backward(self, grad):
        input, other = self.saved_tensors
        shape_a, shape_b = self.shapes
        if other is None:
            return grad * self.other_scalar, None
        grad_a = sum_to_shape(grad * other, shape_a) if self.next_functions[0][0] else None
        grad_b = sum_to_shape(grad * input, shape_b) if self.next_functions[1][0] else None
        return grad_a, grad_b


def mul_(input, other):
    return inplace(input, mul, other)


def div(input, other, *, rounding_mode=None, out=None):
    """input / other: true division (integers give floats) unless a rounding mode is given."""
    if rounding_mode is not None:
        return _div_rounded(input, other, rounding_mode)
    a, b, device = binary(input, other, "div")
    if a.dtype.kind in "iub":
        a = float_operand(input) if a is input._data else a.astype(
            float_operand(input).dtype)
        b = b.astype(a.dtype) if isinstance(other, Tensor) else b
    try:
        result = a / b
    except ValueError:
        raise _broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = DivBackward0()
        node.shapes = (a.shape, _shape(other))
        if isinstance(other, Tensor):
            node.other_scalar = None
            node.save(input, other)
        else:
            node.other_scalar = b
            node.save(None, None)
        attach(out_t, node, input, other)
    return out_t


divide = true_divide = div


class DivBackward0(Node):
    __slots__ = ("shapes", "other_scalar")

    def backward(self, grad):
        input, other = self.saved_tensors
        shape_a, shape_b = self.shapes
        if other is None:
            return grad / self.other_scalar, None
        grad_a = sum_to_shape(grad / other, shape_a) if self.next_functions[0][0] else None
        grad_b = None
        if self.next_functions[1][0] is not None:
            grad_b = sum_to_shape(-grad * input / (other * other), shape_b)
        return grad_a, grad_b


def _div_rounded(input, other, rounding_mode):
    raise NotImplementedError("div with rounding_mode")


def div_(input, other, *, rounding_mode=None):
    return inplace(input, div, other, rounding_mode=rounding_mode)


def rdiv(input, other):
    """other / input (what `2 / x` calls)."""
    return mul(reciprocal(input), other)


# ---------------------------------------------------------------- neg / pow / exp
def neg(input):
    """-input."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    out_t = wrap(-input._data, input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out_t, NegBackward0(), input)
    return out_t


negative = neg


class NegBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def pow(input, exponent):
    """input ** exponent."""
    if not isinstance(input, Tensor):
        return rpow(exponent, input)
    a, b, device = binary(input, exponent, "pow")
    out_t = wrap(a ** b, device)
    if any_requires_grad(input, exponent):
        if isinstance(exponent, Tensor):
            node = PowBackward1()
            node.save(input, exponent)
            node.save_output(out_t)
        else:
            node = PowBackward0()
            node.exponent = b
            node.save(input)
        attach(out_t, node, input, exponent)
    return out_t


class PowBackward0(Node):
    __slots__ = ("exponent",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        exponent = self.exponent
        if exponent == 0:
            return (grad * 0, None)
        return (grad * exponent * input ** (exponent - 1), None)


class PowBackward1(Node):
    __slots__ = ()

    def backward(self, grad):
        input, exponent, result = self.saved_tensors
        grad_a = grad_b = None
        if self.next_functions[0][0] is not None:
            grad_a = sum_to_shape(grad * exponent * input ** (exponent - 1), input.shape)
        if self.next_functions[1][0] is not None:
            grad_b = sum_to_shape(grad * result * log(input), exponent.shape)
        return grad_a, grad_b


def rpow(input, other):
    """other ** input, for `2 ** x`."""
    raise NotImplementedError("rpow")


def exp(input):
    """e ** input."""
    out_t = wrap(input._device.xp.exp(float_operand(input)), input._device)
    if grad_state.enabled and input._requires_grad:
        node = ExpBackward0()
        node.save_output(out_t)
        attach(out_t, node, input)
    return out_t


class ExpBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result,)


def log(input):
    raise NotImplementedError("log")


def reciprocal(input):
    raise NotImplementedError("reciprocal")
