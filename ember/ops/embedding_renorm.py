"""embedding_renorm_: the in-place row rescaling behind `F.embedding(max_norm=...)`.

The arithmetic lives beside embedding in nn_linear.py (`_embedding_renorm_`); this is
the public door PyTorch exposes as `torch.embedding_renorm_`, with its argument checks
and, for a weight with history, the node PyTorch records but cannot differentiate.
"""
from .. import _errors
from ..autograd.graph import Node
from ._common import (Tensor, attach, check_no_overlap, grad_state, inplace_overlapping,
                      make_tensor)
from .nn_linear import _embedding_renorm_

__all__ = ["embedding_renorm_"]

_INDEX_TYPES = ("int32", "int64")


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Scale, in place, each row of `input` named in `indices` whose `norm_type`-norm
    exceeds `max_norm` down to `max_norm` (rows not named are left alone)."""
    # the checks run inside the in-place door, after its leaf check and before the
    # overlap check, as PyTorch's do
    return inplace_overlapping(input, _renormed, indices, max_norm, norm_type, input._data)


def _renormed(input, indices, max_norm, norm_type, target):
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "embedding_renorm_)")
    if indices._data.dtype.name not in _INDEX_TYPES:
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{_errors.legacy_type_name(indices.dtype)} instead (while checking "
                           "arguments for embedding_renorm_)")
    rows = input.shape[0]
    flat = indices._data.reshape(-1)
    bad = flat[(flat < -rows) | (flat >= rows)] if flat.size else flat
    if bad.size:
        raise IndexError(f"select(): index {int(bad[0])} out of range for tensor of size "
                         f"{_errors.shape_list(input.shape)} at dimension 0")
    if flat.size and not input.dtype.is_floating_point:  # a norm is taken per named row
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_errors.scalar_type_name(input.dtype)} instead.")
    check_no_overlap(target)
    out = make_tensor(input._data.copy(), input._device)
    if flat.size:
        _embedding_renorm_(out, flat % rows, max_norm, norm_type)
    if grad_state.enabled and isinstance(input, Tensor) and input._requires_grad:
        attach(out, EmbeddingRenormBackward0(), input)
    return out


class EmbeddingRenormBackward0(Node):
    """PyTorch records this node but has no formula for it."""

    __slots__ = ()

    def backward(self, grad):
        raise NotImplementedError("the derivative for 'embedding_renorm' is not implemented.")
