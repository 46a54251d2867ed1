"""pdist: the p-norm distance between every pair of rows, in condensed (upper-triangle) order.

One node, PdistBackward0, as PyTorch's native op. The forward runs in NumPy over the row
pairs; the backward is written with ember ops on the saved input, so it is differentiable
again. Where a distance is zero (or, for p < 1, a coordinate difference is zero) the
gradient is taken as zero, as PyTorch's kernel does (cdist's formula, shared).
"""
import math

from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor
from .differences import distance_gradient

__all__ = ["pdist"]


def _pairs(xp, n):
    return xp.triu_indices(n, 1)


def _pair_norms(xp, diff, p):
    magnitude = xp.abs(diff)
    if p == 0:
        # min(ceil(|d|), 1) counts a nonzero difference and keeps a NaN, as PyTorch's count
        return xp.minimum(xp.ceil(magnitude), 1).sum(axis=-1)
    if p == math.inf:
        return magnitude.max(axis=-1, initial=0)     # NaN-propagating, unlike cdist's
    if p == 1:
        return magnitude.sum(axis=-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(axis=-1))
    return (magnitude ** p).sum(axis=-1) ** (1.0 / p)


def pdist(input, p=2):
    """Distances ||x_i - x_j||_p for i < j, rows of a 2-D input, as one flat vector."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    xp = input._device.xp
    x = input._data
    if x.dtype in _dtype.COMPUTED_IN_FLOAT32 and x.shape[0] > 1:  # no half-type kernel
        raise NotImplementedError(_errors.not_implemented_for("pdist", input.dtype))
    first, second = _pairs(xp, x.shape[0])
    distances = _pair_norms(xp, x[first] - x[second], float(p))
    out = make_tensor(distances.astype(x.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = PdistBackward0()
        node.p = float(p)
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class PdistBackward0(Node):
    __slots__ = ("p",)

    def backward(self, grad):
        input, distances = self.saved_tensors
        p = self.p
        xp = input._device.xp
        rows = input.shape[0]
        first, second = (make_tensor(i, input._device) for i in _pairs(xp, rows))
        diff = input.index_select(0, first) - input.index_select(0, second)
        if diff.numel() == 0:
            return (input.new_zeros(input.shape),)
        per_pair = distance_gradient(diff, distances.unsqueeze(-1), grad.unsqueeze(-1), p)
        total = input.new_zeros(input.shape)
        total = total.index_add(0, first, per_pair).index_add(0, second, -per_pair)
        return (total,)
