"""`ember.testing.make_tensor`: a tensor of a given shape and dtype filled with uniform
random values, for tests.

The values come from the same draws PyTorch makes (`randint` for booleans and integers,
`uniform_` for floating types), so under the same seed ember and PyTorch make the same
tensor. Out-of-range bounds are clamped to the dtype; bad ones raise PyTorch's errors.
"""
import math
import warnings

from .. import _dtype
from .._dtype import finfo, iinfo
from ..ops.creation import empty
from ..ops.random import randint

__all__ = ["make_tensor"]

_FLOATING = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)


def _bounds(low, high, dtype, lowest, highest, default_low, default_high):
    """[low, high) after defaults, checks and clamping (integers rounded up)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `ember.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. "
                      "Use `ember.full(...)` instead.", FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, "
                         f"{high}), but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _FLOATING:
        return low, high
    return math.ceil(low), math.ceil(high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A random tensor in [low, high); `noncontiguous` gives every other element of a
    twice-as-wide last dim, `exclude_zero` replaces zeros by the smallest positive value."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    floating = dtype in _FLOATING
    if requires_grad and not floating and dtype.category in (_dtype.BOOL, _dtype.INTEGRAL):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    made = _draw(shape, dtype, device, low, high)
    if noncontiguous:
        made = made[..., 1::2]   # the odd columns of the doubled last dim
    if memory_format is not None:
        made = made.clone(memory_format=memory_format)
    if exclude_zero:
        made[made == 0] = finfo(dtype).tiny if floating else 1
    if floating:
        made.requires_grad = requires_grad
    return made


def _draw(shape, dtype, device, low, high):
    if dtype is _dtype.bool:
        low, high = _bounds(low, high, dtype, 0, 2, 0, 2)
        return randint(low, high, shape, device=device, dtype=dtype)
    if dtype.category == _dtype.INTEGRAL:
        info = iinfo(dtype)
        highest = info.max + (1 if dtype is not _dtype.int64 else 0)
        low, high = _bounds(low, high, dtype, info.min, highest, -9, 10)
        return randint(low, high, shape, device=device, dtype=dtype)
    if dtype in _FLOATING:
        info = finfo(dtype)
        low, high = _bounds(low, high, dtype, info.min, info.max, -9, 9)
        result = empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:   # the width itself would overflow: draw half, double
            return result.uniform_(low / 2, high / 2).mul_(2)
        return result.uniform_(low, high)
    raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                    "ember.testing.make_tensor(). To request support, file an issue at: "
                    "https://github.com/pytorch/pytorch/issues")
