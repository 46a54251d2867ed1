"""Counting and searching in sorted data: bincount, histc, histogram, searchsorted,
bucketize, isin and unique_consecutive.

None of these is differentiable (their results are counts, indices or booleans, or
PyTorch records no gradient for them). NumPy's searchsorted, bincount and isin do
the work; this module gives them PyTorch's argument rules, dtypes and messages.
"""
from .._dtype import is_floating as _is_floating
from .. import _arguments, _dtype, _errors, return_types
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, scalar_value, wrap, wrap_dim
from ._elementwise import unsupported

__all__ = ["bincount", "histc", "histogram", "searchsorted", "bucketize", "isin",
           "unique_consecutive"]

_INT64 = _dtype.int64.np_dtype
_INT32 = _dtype.int32.np_dtype


# ---------------------------------------------------------------- counting
def bincount(input, weights=None, minlength=0):
    """Occurrences of each value of a 1-d non-negative integer tensor (weighted sums)."""
    a = input._data
    if a.dtype.kind not in "iu":
        kernel = "bincount_cpu"
        raise unsupported(kernel, a)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    w = None if weights is None else weights._data   # a non-tensor fails as parsed
    xp = input._device.xp
    if a.ndim == 1 and not a.size:   # PyTorch's early return: int64 zeros, weights unread
        return wrap(xp.zeros(minlength, _INT64), input._device)
    if a.ndim != 1 or a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return wrap(xp.bincount(a, minlength=minlength).astype(_INT64), input._device)
    if w.ndim != 1 or w.shape[0] != a.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if w.dtype == _dtype.float32.np_dtype:
        # PyTorch adds float32 weights into float32 bins one by one, in input order;
        # add.at does the same additions in the same order (NumPy's bincount adds in
        # double, which rounds differently once a bin holds a few weights)
        counts = xp.zeros(max(minlength, int(a.max()) + 1), w.dtype)
        xp.add.at(counts, a, w)
        return wrap(counts, input._device)
    # every other weight dtype is added in float64
    counts = xp.bincount(a, weights=w.astype(_dtype.float64.np_dtype), minlength=minlength)
    return wrap(counts, input._device)


def _float_only(input, kernel):
    if not _is_floating(input._data.dtype):
        raise unsupported(kernel, input._data)


def histc(input, bins=100, min=0, max=0):
    """Equal-width histogram over [min, max]; min == max means the data's own range."""
    _float_only(input, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"ember.histogram(): bins must be > 0, but got {bins} for "
                           f"dimension 0")
    if min > max:
        raise RuntimeError("ember.histc: max must be larger than min")
    a = input._data
    xp = input._device.xp
    low, high = float(min), float(max)
    if low == high and a.size:
        low, high = float(a.min()), float(a.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (xp.isfinite(low) and xp.isfinite(high)):
        raise RuntimeError(f"ember.histogram(): range of [{low:g}, {high:g}] is not finite")
    counts = _equal_width(xp, a.reshape(-1), None, bins, low, high)
    return wrap(counts.astype(a.dtype), input._device)


_IEEE = frozenset(d.np_dtype for d in (_dtype.float16, _dtype.float32, _dtype.float64))


def _equal_width(xp, values, weights, bins, low, high):
    """Counts per bin of width (high-low)/bins, the last bin closed, as PyTorch bins them:
    the bin of x is trunc((x - low) * bins / (high - low)) in the input's own precision
    (float32 gives bin 49 where exact arithmetic gives 50), with no search among edges."""
    work = values.dtype if values.dtype in _IEEE else _dtype.float32.np_dtype  # bfloat16
    low_w, high_w = work.type(low), work.type(high)
    values = values.astype(work, copy=False)
    inside = (values >= low_w) & (values <= high_w)
    with xp.errstate(over="ignore", invalid="ignore"):
        position = (values[inside] - low_w) * work.type(bins) / (high_w - low_w)
    index = position.astype(_INT64)
    index[index == bins] = bins - 1
    if weights is not None:
        weights = weights[inside].astype(_dtype.float64.np_dtype)
    return xp.bincount(index, weights=weights, minlength=bins)


def histogram(input, bins, *, range=None, weight=None, density=False):
    """Histogram with `bins` equal bins (or the given edges): `(hist, bin_edges)`."""
    _float_only(input, "histogramdd")
    a = input._data
    xp = input._device.xp
    values = a.reshape(-1)
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data
        if edges.ndim != 1:
            raise RuntimeError(f"ember.histogram(): bins tensor should have one dimension, "
                               f"but got {edges.ndim} dimensions")
        counts, _ = xp.histogram(values, bins=edges, weights=w)
    else:
        if bins <= 0:
            raise RuntimeError(f"ember.histogram(): bins must be > 0, but got {bins} for "
                               f"dimension 0")
        if range is not None:
            low, high = float(range[0]), float(range[1])
        elif values.size:
            low, high = float(values.min()), float(values.max())
        else:
            low = high = 0.0
        if low > high:
            raise RuntimeError(f"ember.histogram(): min should not exceed max, but got min "
                               f"{low:g} max {high:g} for dimension 0")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = xp.linspace(low, high, bins + 1).astype(a.dtype)
        counts, _ = xp.histogram(values, bins=edges, weights=w)
    counts = counts.astype(a.dtype)
    if density:
        widths = xp.diff(edges)
        counts = (counts / (counts.sum() * widths)).astype(a.dtype)
    device = input._device
    return return_types.histogram(wrap(counts, device), wrap(edges.astype(a.dtype), device))


# ---------------------------------------------------------------- searching
def _side(right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"ember.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("ember.searchsorted(): side and right can't be set to "
                               "opposites, got side of left while right was True")
        return side
    return "right" if right else "left"


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion indices of `input` into the last dim of `sorted_sequence`."""
    side = _side(right, side)
    boundaries = sorted_sequence._data
    xp = sorted_sequence._device.xp
    scalar = not isinstance(input, Tensor)
    values = xp.asarray(scalar_value(input)) if scalar else input._data
    if boundaries.ndim == 0:
        raise RuntimeError("ember.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if sorter is not None:
        if sorter._data.shape != boundaries.shape:
            raise RuntimeError(f"ember.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(boundaries.shape)}and "
                               f"got sorter tensor {list(sorter._data.shape)}")
        boundaries = xp.take_along_axis(boundaries, sorter._data, -1)
    if boundaries.ndim > 1 and (scalar or boundaries.shape[:-1] != values.shape[:-1]):
        raise RuntimeError(f"ember.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{list(boundaries.shape)} and input value tensor "
                           f"{list(values.shape)}")
    if boundaries.dtype == bool and values.dtype == bool:   # bool with bool: no kernel
        raise NotImplementedError(_errors.not_implemented_for("searchsorted_out_cpu",
                                                              _dtype.bool))
    result = _search(xp, boundaries, values, side)
    return wrap(result.astype(_INT32 if out_int32 else _INT64), sorted_sequence._device)


def _search(xp, boundaries, values, side):
    """Insertion indices; for batched boundaries, the count of smaller (or not larger)
    boundaries in each row, which equals the insertion index in sorted rows."""
    if boundaries.ndim == 1:
        return xp.searchsorted(boundaries, values, side=side)
    below = boundaries[..., None, :] < values[..., None] if side == "left" else (
        boundaries[..., None, :] <= values[..., None])
    return below.sum(-1)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value among 1-d `boundaries` (right: buckets closed on the left)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim"
                           f"({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of `elements` occurs in `test_elements` (either may be a number)."""
    reference = elements if isinstance(elements, Tensor) else test_elements
    xp = reference._device.xp
    a = elements._data if isinstance(elements, Tensor) else xp.asarray(scalar_value(elements))
    b = (test_elements._data if isinstance(test_elements, Tensor)
         else xp.asarray(scalar_value(test_elements)))
    result = xp.isin(a, b, assume_unique=assume_unique, invert=invert)
    return wrap(xp.asarray(result), reference._device)


# ---------------------------------------------------------------- runs
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values (or slices along dim) to one.

    PyTorch's function is Python, passing its flags by keyword to the C++ one, whose parser
    refuses a flag that is no bool."""
    if (return_inverse.__class__ is not bool or return_counts.__class__ is not bool
            or dim is not None and dim.__class__ is not int):
        _arguments.check("unique_consecutive", (input,), {
            "return_inverse": return_inverse, "return_counts": return_counts, "dim": dim})
    data = input._data
    xp = input._device.xp
    if dim is None:
        flat = data.reshape(-1)
        starts = xp.ones(flat.shape, bool)
        starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inverse_shape = data.shape
    else:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = wrap_dim(dim, data.ndim)
        zero_sized = sum(1 for size in data.shape if size == 0)
        if zero_sized > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        if zero_sized and data.shape[d]:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
        moved = xp.moveaxis(data, d, 0).reshape(data.shape[d], -1 if data.shape[d] else 0)
        starts = xp.ones((data.shape[d],), bool)
        starts[1:] = (moved[1:] != moved[:-1]).any(-1)
        values = xp.compress(starts, data, axis=d)
        inverse_shape = (data.shape[d],)
    out = wrap(xp.ascontiguousarray(values), input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, UniqueConsecutiveBackward0(), input)
    results = [out]
    if return_inverse:
        inverse = (xp.cumsum(starts) - 1).astype(_INT64).reshape(inverse_shape)
        results.append(wrap(inverse, input._device))
    if return_counts:
        positions = xp.flatnonzero(starts)
        counts = xp.diff(xp.append(positions, starts.size)).astype(_INT64)
        results.append(wrap(counts, input._device))
    return results[0] if len(results) == 1 else tuple(results)


class UniqueConsecutiveBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not "
                                  "implemented.")
