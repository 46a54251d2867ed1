"""Array dtype casts with PyTorch's results, where NumPy's or ml_dtypes' direct cast differs.

PyTorch converts element by element with C++ casts that take three detours:
- a float16 or bfloat16 is built from a float, so float64 and int64 values round twice
  (to float32, then to 16 bits): 1 + 2**-8 + 2**-30 becomes 1.0 in bfloat16, not 1.0078125;
- a bfloat16 is read as the float32 it widens to (exactly), then cast as that float32 is;
- floating -> uint8 goes through int64, so -1.0 gives 255 and 2.0**40 + 3 gives 3 (NumPy
  goes through int32 for float64 and saturates past its range);
- floating -> uint16/uint32/uint64 is x86's truncating conversion to a signed integer
  (INT_MIN for NaN and values out of its range), with the upper half of an unsigned range
  shifted down first; NumPy leaves these conversions undefined, so _FLOAT_TO_UNSIGNED
  spells them out with masks (uint16 through int32: -1.0 gives 65535, 65536.0 gives 0;
  uint32 and uint64: NaN and -inf give 2**31 or 2**63, +inf and values past the range 0).
  PyTorch's own scalar loop (tensors shorter than a vector register) gives other values
  for some out-of-range floats into uint32; the vectorised results are the ones matched.
Every cast between two dtypes that NumPy or ml_dtypes would do otherwise takes those
steps here, so results never depend on which ml_dtypes release is installed (0.7's direct
bfloat16 -> uint8 cast clamps -1 to 0). NaN payload bits are not matched (PyTorch's own
vectorised and scalar paths disagree on them).
"""
from .. import _dtype

__all__ = ["cast", "steps_before"]

_FLOAT32 = _dtype.float32.np_dtype
_FLOAT64 = _dtype.float64.np_dtype
_INT64 = _dtype.int64.np_dtype
_UINT64 = _dtype.uint64.np_dtype


def _through_int32(array):
    """Truncate to int32 as cvttsd2si does (INT32_MIN for NaN and out-of-range values)."""
    wide = array.astype(_FLOAT64)
    wide[~((wide > -2147483649.0) & (wide < 2147483648.0))] = -2147483648.0
    return wide.astype(_INT64)


def _to_uint32(array):
    """Below 2**31 as int32 would; [2**31, 2**32) exactly; above, 0 (mod 2**32 in int64)."""
    wide = array.astype(_FLOAT64)
    wide[wide >= 4294967296.0] = 0.0
    wide[~(wide > -2147483649.0)] = -2147483648.0
    return wide.astype(_INT64)


def _float16_to_uint32(array):
    """float16 takes the int64 route: NaN and infinities (its only out-of-range values)
    become INT64_MIN, whose low 32 bits are 0."""
    wide = array.astype(_FLOAT64)
    wide[~((wide > -_INFINITY) & (wide < _INFINITY))] = 0.0
    return wide.astype(_INT64)


def _to_uint64(array):
    """Below 2**63 as int64 would (INT64_MIN = 2**63 for NaN and the far negatives);
    [2**63, 2**64) exactly; from 2**64 on, 0."""
    wide = array.astype(_FLOAT64)
    upper = (wide >= 9223372036854775808.0) & (wide < 18446744073709551616.0)
    high = wide[upper]
    wide[wide >= 9223372036854775808.0] = 0.0
    wide[~(wide > -9223372036854775809.0)] = -9223372036854775808.0
    result = wide.astype(_INT64).astype(_UINT64)
    result[upper] = high.astype(_UINT64)
    return result


_INFINITY = float("inf")


def _steps(source, target):
    """The intermediate NumPy dtypes PyTorch's conversion passes through, or ()."""
    if source is target:
        return ()
    if source is _dtype.bfloat16 and target is not _dtype.float32:
        return (_FLOAT32,) + _steps(_dtype.float32, target)
    if target is _dtype.bfloat16 and source is not _dtype.float32:
        return (_FLOAT32,)
    if target is _dtype.float16 and source is _dtype.float64:
        return (_FLOAT32,)
    if target is _dtype.uint8 and source is _dtype.float64:
        return (_INT64,)
    if source.category == _dtype.FLOATING and target in _dtype.LIMITED_UNSIGNED:
        if target is _dtype.uint16:
            return (_through_int32,)
        if target is _dtype.uint32:
            return (_float16_to_uint32 if source is _dtype.float16 else _to_uint32,)
        return (_to_uint64,)
    return ()


class _Routes(dict):
    """(source, target) NumPy dtypes -> the steps between them, each pair worked out on its
    first cast (bfloat16's NumPy dtype only exists once ml_dtypes is loaded). Most pairs
    have none: float16/float32 -> uint8, say, need no int64 step, as their values past
    int32's range are multiples of 256, so int32 and int64 give the same bytes."""

    def __missing__(self, key):
        source, target = (_dtype.FROM_NUMPY.get(np_dtype) for np_dtype in key)
        steps = _steps(source, target) if source is not None and target is not None else ()
        self[key] = steps
        return steps


_ROUTES = _Routes()


def steps_before(array, np_dtype):
    """`array` after the detours on its way to `np_dtype` (itself when there are none).

    For writers that finish the cast themselves (`copyto(..., casting="unsafe")`).
    """
    if array.dtype is np_dtype:  # copy_'s usual case: nothing to look up
        return array
    for step in _ROUTES[array.dtype, np_dtype]:
        array = step(array) if callable(step) else array.astype(step)
    return array


def cast(array, np_dtype, copy=True):
    """`array` as `np_dtype` with PyTorch's values (a new array unless `copy` is False and
    the dtype already matches)."""
    for step in _ROUTES[array.dtype, np_dtype]:
        array = step(array) if callable(step) else array.astype(step)
    return array.astype(np_dtype, copy=copy)
