"""What every loss module shares: the `reduction` argument and the compute dtype.

Its own module so that `losses` (which re-exports the classification losses) and
`losses_nll` both build on it, with no import circle between them.
"""
import warnings

from .. import _dtype
from ._common import grad_state

_FLOAT32 = _dtype.float32.np_dtype
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
NONE, MEAN, SUM = 0, 1, 2
_REDUCTIONS = {"none": NONE, "mean": MEAN, "sum": SUM}


def _reduction_enum(reduction):
    """'none' / 'mean' / 'sum' as 0 / 1 / 2 (PyTorch's _Reduction.get_enum)."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return MEAN
    enum = _REDUCTIONS.get(reduction) if isinstance(reduction, str) else None
    if enum is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return enum


def _legacy_reduction(size_average, reduce, emit_warning=True):
    """The reduction the deprecated size_average/reduce flags stand for, with PyTorch's warning.

    size_average's truth is taken first, whatever reduce says, as PyTorch does: a tensor of
    several values there is refused even with reduce=False."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    else:
        reduction = "sum" if reduce else "none"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", stacklevel=3)
    return reduction


def _resolve(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _reduction_enum(reduction)


def _reduce(loss, reduction):
    """apply_loss_reduction with ember ops (MeanBackward0 / SumBackward0, as PyTorch)."""
    if reduction == MEAN:
        return loss.mean()
    if reduction == SUM:
        return loss.sum()
    return loss


def _reduce_array(xp, loss, reduction):
    """apply_loss_reduction on arrays (the mean of nothing is nan, as in PyTorch)."""
    if reduction == MEAN:
        return loss.mean() if loss.size else xp.asarray(float("nan"), loss.dtype)
    if reduction == SUM:
        return loss.sum()
    return loss


def _compute(array):
    return array.astype(_FLOAT32) if array.dtype in _REDUCED else array


def _not_differentiable(function, argument, tensor):
    if tensor is not None and grad_state.enabled and tensor._requires_grad:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{argument}'. This input cannot have requires_grad True.")
