"""`slice_inverse`: given a slice of a tensor and the tensor it was sliced from, the view of
the slice's storage with the base's geometry (the base again, reached from the slice). It is
the view PyTorch's functionalization uses to undo `x[..., start:end:step]`; its gradient
slices the incoming gradient the same way, back to the slice's shape.
"""
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap_dim
from .slicing import as_strided

__all__ = ["slice_inverse"]


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """`input` (a slice of `src` along `dim`) viewed with `src`'s sizes, strides and offset."""
    with no_grad():
        out = as_strided(input, src.shape, src.stride(), src.storage_offset())
    if grad_state.enabled and input._requires_grad:
        node = SliceInverseBackward0()
        node.dim = wrap_dim(dim, src.dim())
        node.bounds = slice(start, end, step)
        attach(out, node, input)
    return out


class SliceInverseBackward0(Node):
    __slots__ = ("dim", "bounds")

    def backward(self, grad):
        return (grad[(slice(None),) * self.dim + (self.bounds,)],)
