"""Ranges and grids: arange, range, linspace, logspace, meshgrid, tril/triu_indices.

Lengths and values follow PyTorch's CPU kernels, not NumPy's: arange's length
is ceil((end - start) / step) computed in double (exact integer arithmetic for
int64), and linspace fills the first half from `start` and the second half
backwards from `end`, in the output's own precision.
"""
import builtins
import math
import warnings

from .. import _dtype
from .._backend import allocating, numpy as _np
from .._device import resolve as _resolve_device
from ._common import Tensor, scalar_to, scalar_value
from ._data import check_out, finish, to_device

__all__ = ["arange", "range", "linspace", "logspace", "meshgrid", "tril_indices",
           "triu_indices"]

_FLOATING = _dtype.FLOATING
_RANGE_DEPRECATED = (
    "ember.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use ember.arange, which produces "
    "values in [start, end).")
_NOT_IMPLEMENTED_NAMES = _dtype.SCALAR_NAMES
# the dtypes PyTorch's range kernels are not compiled for
_NO_RANGE_KERNEL = (_dtype.bool,) + _dtype.LIMITED_UNSIGNED


def _number(x):
    """A Python number from a Python/NumPy scalar or a one-element tensor."""
    if isinstance(x, Tensor):
        return x.item()
    if hasattr(x, "item") and not isinstance(x, (int, float)):
        return x.item()
    return x


def _check_bounds(start, end, name):
    """PyTorch's tensor overloads of linspace/logspace take only 0-dim bounds; its message
    names the tensor bounds given (both when both are tensors)."""
    start_dims = start.dim() if isinstance(start, Tensor) else 0
    end_dims = end.dim() if isinstance(end, Tensor) else 0
    if start_dims or end_dims:
        given = [f"{label} with {dims} dimension(s)" for label, bound, dims in
                 (("start", start, start_dims), ("end", end, end_dims))
                 if isinstance(bound, Tensor)]
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got "
                           f"{' and '.join(given)}.")


def _is_float(x):
    return isinstance(x, float)


def _check_range(start, end, step):
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_fmt(start)} -> {_fmt(end)}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if step > 0 and end < start or step < 0 and end > start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _fmt(x):
    return str(x) if not isinstance(x, float) or not x.is_integer() else str(int(x))


def _unsupported(name, dtype):
    return NotImplementedError(f"\"{name}\" not implemented for "
                               f"'{_NOT_IMPLEMENTED_NAMES[dtype.name]}'")


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Values from start (inclusive) to end (exclusive); int64 unless an argument is a float."""
    check_out(out, "arange")
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    dtype = _dtype.as_dtype(dtype)
    if dtype is None:
        any_float = _is_float(start) or _is_float(end) or _is_float(step)
        dtype = _dtype._defaults.float_dtype if any_float else _dtype.int64
    if dtype in _NO_RANGE_KERNEL:
        raise _unsupported("arange_cpu", dtype)
    _check_range(start, end, step)
    if dtype is _dtype.int64:
        start, end, step = int(start), int(end), int(step)
        sign = (step > 0) - (step < 0)
        length = (end - start + step - sign) // step
    else:
        length = math.ceil((end - start) / step)
    with allocating((length,), dtype.np_dtype):  # a huge length: PyTorch's allocation error
        if dtype is _dtype.int64:
            values = start + step * _np.arange(length, dtype=_np.int64)
        elif dtype.category == _FLOATING:
            values = _float_arange(start, step, length, dtype)
        else:
            values = _accumulate(start, step, length, dtype)
    dev = _resolve_device(device)
    return finish(to_device(values.astype(dtype.np_dtype), dev), dev, requires_grad)


_VECTOR_BYTES = 32  # PyTorch's arange kernel runs on 256-bit vectors


def _float_arange(start, step, length, dtype):
    """PyTorch's CPU arange kernel, value for value.

    It accumulates in double (float for float16/bfloat16) and fills whole pairs of
    256-bit vectors from a base rounded to the output dtype, `base + k * step`, and
    the tail element by element as `start + step * i`; the compiler fuses both into
    fma. So `arange(0, 10, 0.1)[9]` is 0.90000004 in float32 and
    `arange(-3, 3, 0.1, dtype=float64)[7]` is -2.3000000000000003.
    """
    out = dtype.np_dtype
    wide = dtype.itemsize == 2  # float accumulation: its fma is exact in float64
    acc = _np.float32 if wide else _np.float64
    start, step = float(acc(start)), float(acc(step))
    lanes = _VECTOR_BYTES // dtype.itemsize
    index = _np.arange(length, dtype=_np.int64)
    values = _fma(step, index.astype(_np.float64), start, wide)
    vectorized = length - length % (2 * lanes)
    if vectorized:
        lane = index[:vectorized] % lanes
        base = _fma(step, (index[:vectorized] - lane).astype(_np.float64), start, wide)
        base = base.astype(out).astype(_np.float64)
        values[:vectorized] = _fma(lane.astype(_np.float64), step, base, wide)
    return values.astype(acc).astype(out)


def _fma(a, b, c, exact_product):
    """a * b + c rounded once (error-free product and sum in float64)."""
    p = a * b
    if exact_product:
        return p + c
    error = _product_error(a, b, p)
    total = p + c
    back = total - p
    sum_error = (p - (total - back)) + (c - back)
    return total + (sum_error + error)


def _product_error(a, b, p):
    """a * b - p exactly (Dekker's product, by Veltkamp splitting)."""
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    return ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


def _split(a):
    scaled = 134217729.0 * a  # 2**27 + 1
    high = scaled - (scaled - a)
    return high, a - high


def _accumulate(start, step, length, dtype):
    """start + step * i in the kernel's accumulate type: double for floats, int64 for ints."""
    if dtype.category == _FLOATING:
        return float(start) + float(step) * _np.arange(length, dtype=_np.float64)
    return int(start) + int(step) * _np.arange(length, dtype=_np.int64)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          pin_memory=False, requires_grad=False):
    """Deprecated: values from start to end inclusive, default float dtype."""
    check_out(out, "range")
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=2)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    start, end, step = _number(start), _number(end), _number(step)
    dtype = _dtype.as_dtype(dtype) or _dtype._defaults.float_dtype
    _check_range(start, end, step)
    length = int(math.floor((end - start) / step)) + 1
    values = _accumulate(start, step, length, dtype)
    dev = _resolve_device(device)
    return finish(to_device(values.astype(dtype.np_dtype), dev), dev, requires_grad)


def _steps_arg(steps, name):
    if isinstance(steps, bool) or not isinstance(steps, int):
        if not hasattr(steps, "__index__") or isinstance(steps, float):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"(steps={type(steps).__name__}), but expected (Number start, "
                            "Number end, int steps, *, ember.dtype dtype = None, ...)")
        steps = steps.__index__()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return steps


def _ends(start, end, dtype):
    """start and end in the output dtype, checked as PyTorch's `Scalar.to<scalar_t>()`
    checks them (`linspace(0, 300, 5, dtype=int8)` is an overflow error), as floats."""
    start, end = scalar_value(start), scalar_value(end)
    return float(scalar_to(start, dtype)), float(scalar_to(end, dtype))


def _halves(steps):
    """Per element: the multiplier's sign (+1 counting up from start, -1 counting down
    from end) and the count k; PyTorch's linspace fills the first steps // 2 elements as
    `start + step * k` and the rest as `end - step * k`."""
    index = _np.arange(steps, dtype=_np.int64)
    first = index < steps // 2
    return first, _np.where(first, index, steps - 1 - index)


def _linear(start, end, steps, dtype):
    """PyTorch's CPU linspace kernel (element by element, no vectors), value for value.

    Floats compute in the output dtype: step = (end - start) / (steps - 1) rounded to
    it, each element one fma (`start + step * k`, or from `end` for the second half).
    float16/bfloat16 round to their dtype after every operation, as c10::Half's
    operators do, k included. Integers step in double from the truncated ends and
    truncate each element.
    """
    if steps == 1:  # PyTorch fills with start and never looks at end
        return _np.full((1,), float(scalar_to(scalar_value(start), dtype)))
    first_value, last_value = _ends(start, end, dtype)
    first, k = _halves(steps)
    base = _np.where(first, first_value, last_value)
    out = dtype.np_dtype
    if dtype.category != _FLOATING:
        step = (last_value - first_value) / (steps - 1)
        multiplier = _np.where(first, step, -step)
        return _np.trunc(_fma(multiplier, k.astype(_np.float64), base, False))
    if dtype.itemsize == 2:
        f32 = _np.float32
        difference = f32(f32(last_value) - f32(first_value)).astype(out).astype(f32)
        count = f32(steps - 1).astype(out).astype(f32)
        step = f32(difference / count).astype(out).astype(f32)
        product = (step * k.astype(f32).astype(out).astype(f32)).astype(out).astype(f32)
        return _np.where(first, base + product, base - product).astype(f32).astype(out)
    typed = out.type
    step = float(typed(typed(typed(last_value) - typed(first_value)) / typed(steps - 1)))
    multiplier = _np.where(first, step, -step)
    k = k.astype(out).astype(_np.float64)  # float32(k) rounds beyond 2**24
    if out == _np.float64:
        return _fma(multiplier, k, base, False)
    return _fma_float32(multiplier, k, base)


def _fma_float32(a, b, c):
    """a * b + c rounded once to float32: the exact value is formed in double-double and
    rounded to double 'to odd' (a last bit of 1 marks an inexact result), which makes
    the final rounding to float32 correct."""
    p = a * b  # a float32 times an integer below 2**24: exact in double
    total = p + c
    back = total - p
    residual = (p - (total - back)) + (c - back)
    inexact = (residual != 0) & (total.view(_np.int64) & 1 == 0)
    nudged = _np.nextafter(total, _np.where(residual > 0, _np.inf, -_np.inf))
    return _np.where(inexact, nudged, total).astype(_np.float32)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    """`steps` evenly spaced values from start to end inclusive."""
    check_out(out, "linspace")
    _check_bounds(start, end, "linspace")
    start, end = _number(start), _number(end)
    steps = _steps_arg(steps, "linspace")
    dtype = _dtype.as_dtype(dtype) or _dtype._defaults.float_dtype
    if dtype in _NO_RANGE_KERNEL:
        raise _unsupported("linspace_cpu", dtype)
    with allocating((steps,), dtype.np_dtype):
        values = _linear(start, end, steps, dtype) if steps else _np.empty(0)
    dev = _resolve_device(device)
    return finish(to_device(_cast(values, dtype), dev), dev, requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    """`steps` values from base**start to base**end, evenly spaced in the exponent.

    As PyTorch's CPU kernel: the ends in the output dtype (their difference too), the
    exponents in double without fma (`start + step * k`, the second half from `end`),
    `pow` in double, then one cast (through float32 for float16/bfloat16; integers
    truncate).
    """
    check_out(out, "logspace")
    _check_bounds(start, end, "logspace")
    start, end, base = _number(start), _number(end), _number(base)
    steps = _steps_arg(steps, "logspace")
    dtype = _dtype.as_dtype(dtype) or _dtype._defaults.float_dtype
    if dtype in _NO_RANGE_KERNEL:
        raise _unsupported("logspace_cpu", dtype)
    if not steps:
        values = _np.empty(0)
    else:
        if steps == 1:  # pow(base, start) in double, end never looked at
            exponents = _np.full((1,), float(scalar_value(start)))
        else:
            first_value, last_value = _ends(start, end, dtype)
            if dtype.itemsize == 2 and dtype.category == _FLOATING:
                f32 = _np.float32
                difference = float(f32(f32(last_value) - f32(first_value)).astype(dtype.np_dtype))
            elif dtype.category == _FLOATING:
                typed = dtype.np_dtype.type
                difference = float(typed(last_value) - typed(first_value))
            else:
                difference = last_value - first_value
            step = difference / (steps - 1)
            first, k = _halves(steps)
            k = k.astype(_np.float64)
            exponents = _np.where(first, first_value + step * k, last_value - step * k)
        # C's pow, correctly rounded where NumPy's vectorized power is sometimes 1 ulp off
        values = _POW(float(base), exponents).astype(_np.float64)
    dev = _resolve_device(device)
    return finish(to_device(_cast(values, dtype), dev), dev, requires_grad)


_POW = _np.frompyfunc(math.pow, 2, 1)


def _c_truncate(values, dtype):
    """Doubles to an integer dtype as x86 converts them (`logspace(0, 40, 3, base=2,
    dtype=int32)` ends in -2**31): truncation to int64 for int64, to int32 for the
    narrower types (then wrapped), and the 'integer indefinite' minimum where the value
    does not fit (inf and nan included)."""
    bits = 64 if dtype is _dtype.int64 else 32
    low = -float(2 ** (bits - 1))
    with _np.errstate(invalid="ignore"):
        fits = (values >= low) & (values < -low)
    return _np.where(fits, _np.trunc(_np.where(fits, values, 0.0)), low).astype(_np.int64)


def _cast(values, dtype):
    if dtype.category != _FLOATING:
        values = _c_truncate(values, dtype)
    elif dtype.itemsize == 2:  # c10 builds Half and BFloat16 from a float
        values = values.astype(_np.float32)
    return values.astype(dtype.np_dtype)


_MESHGRID_WARNING = ("ember.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument.")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: each output is an expanded view of one input (no copies)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"ember.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
        if t.dim() > 1:
            raise RuntimeError(f"ember.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(builtins.range(len(tensors)))
    if swap:
        order[0], order[1] = 1, 0
    shape = [tensors[i].numel() for i in order]
    grids = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[order.index(i)] = -1
        grids.append(t.reshape(view_shape).expand(shape))
    return tuple(grids)


def _triangle_check(row, col, dtype, name):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype not in (_dtype.int32, _dtype.int64):
        raise _unsupported(name, dtype)


def tril_indices(row, col, offset=0, *, dtype=None, layout=None, device=None,
                 pin_memory=False):
    """Row and column indices of the lower triangle of a row x col matrix (2 x N)."""
    dtype = _dtype.as_dtype(dtype) or _dtype.int64
    _triangle_check(row, col, dtype, "tril_indices")
    # columns past row + offset hold nothing: leave them out of NumPy's row x col mask
    rows, cols = _np.tril_indices(row, offset, min(col, max(row + offset, 0)))
    return _indices(rows, cols, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, layout=None, device=None,
                 pin_memory=False):
    """Row and column indices of the upper triangle of a row x col matrix (2 x N)."""
    dtype = _dtype.as_dtype(dtype) or _dtype.int64
    _triangle_check(row, col, dtype, "triu_indices")
    # rows at or past col - offset hold nothing: leave them out of NumPy's row x col mask
    rows, cols = _np.triu_indices(min(row, max(col - offset, 0)), offset, col)
    return _indices(rows, cols, dtype, device)


def _indices(rows, cols, dtype, device):
    dev = _resolve_device(device)
    values = _np.stack([rows, cols]).astype(dtype.np_dtype).reshape(2, -1)
    return finish(to_device(values, dev), dev, False)
