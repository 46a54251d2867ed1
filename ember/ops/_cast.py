"""Array dtype casts with PyTorch's results, where NumPy's or ml_dtypes' direct cast differs.

PyTorch converts element by element with C++ casts that take three detours:
- a float16 or bfloat16 is built from a float, so float64 and int64 values round twice
  (to float32, then to 16 bits): 1 + 2**-8 + 2**-30 becomes 1.0 in bfloat16, not 1.0078125;
- a bfloat16 is read as the float32 it widens to (exactly), then cast as that float32 is;
- floating -> uint8 goes through int64, so -1.0 gives 255 and 2.0**40 + 3 gives 3 (NumPy
  goes through int32 for float64 and saturates past its range).
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
        array = array.astype(step)
    return array


def cast(array, np_dtype, copy=True):
    """`array` as `np_dtype` with PyTorch's values (a new array unless `copy` is False and
    the dtype already matches)."""
    for step in _ROUTES[array.dtype, np_dtype]:
        array = array.astype(step)
    return array.astype(np_dtype, copy=copy)
