"""Python and NumPy data to backend arrays, with PyTorch's dtype inference and errors.

PyTorch's `tensor()` promotes every element's type (Python floats meaning the
default dtype, NumPy scalars and 0-dim tensors their own dtype), which NumPy's
inference does not match; one walk over the nested data checks its shape (with
PyTorch's ragged-sequence errors) and computes that dtype, then NumPy builds
the array. Shared by creation.py (tensor, new_tensor) and interop.py (as_tensor).
"""
import builtins
import warnings

from .._dtype import is_floating as _is_floating
from .. import _diagnose, _dtype, _errors
from .._backend import generic as _np_generic, ndarray as _np_ndarray, numpy as _np
from .._device import CPU as _CPU
from ._cast import cast as _cast
from ._common import Tensor, contiguous, make_tensor

_defaults = _dtype._defaults
_INT64 = _dtype.int64
_FLOATING = _dtype.FLOATING


def _limits(d):
    if d.category == _FLOATING:
        info = _dtype.finfo(d)
    elif d is _dtype.bool:
        return (0, 1)
    else:
        info = _dtype.iinfo(d)
    return (info.min, info.max)


LIMITS = {d: _limits(d) for d in _dtype.ALL}   # (lowest, largest) finite value per dtype
_SCALAR_DTYPE = {bool: _dtype.bool, int: _dtype.int64}
_NUMBER = (bool, int, float)
_SEQUENCES = (list, tuple, builtins.range)
_NDARRAY_LIST_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor.")
_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a copy "
    "of your array  with array.copy().) ")


# ================================================================ results
def check_out(out, name):
    """`out=` is accepted for PyTorch's signatures but not supported yet: say so."""
    if out is not None:
        raise NotImplementedError(f"ember.{name}(): the out= argument is not supported yet")


def to_device(array, device):
    """Move a NumPy array onto `device` (a no-op on the CPU)."""
    return array if device is _CPU else device.xp.asarray(array)


def finish(array, device, requires_grad, keep_strides=False):
    """The factory result: a fresh leaf, requiring grad if asked (floating dtypes only).

    An empty result gets PyTorch's contiguous strides (NumPy gives it zeros), unless
    `keep_strides`: a copied NumPy array keeps its own, as in PyTorch.
    """
    if not array.size and not keep_strides:
        array = contiguous(array, device.xp)
    out = make_tensor(array, device)
    if requires_grad:
        if _dtype.FROM_NUMPY[array.dtype].category != _FLOATING:
            raise _diagnose.noted(RuntimeError(_errors.ONLY_FLOAT_REQUIRES_GRAD_FACTORY),
                                  "integer_requires_grad", dtype=array.dtype)
        out._requires_grad = True
    return out


def _float_or(dtype):
    return _defaults.float_dtype if dtype is None else _dtype.as_dtype(dtype)


def _infer_array(data, dtype):
    """A fresh NumPy array from Python/NumPy data, with PyTorch's dtype inference."""
    if isinstance(data, _np_ndarray):
        return _copy_ndarray(data, dtype)
    if isinstance(data, _np_generic):
        if dtype is _UINT64 or dtype is None and data.dtype == _UINT64_NP:
            raise TypeError(_INTEGER_REQUIRED)  # PyTorch reads neither as a uint64
        inferred = numpy_dtype(data.dtype)
        if dtype is None:
            return _np.array(data, dtype=inferred.np_dtype)
        if dtype.category != _FLOATING:
            if _is_floating(data.dtype) and data.dtype != _FLOAT64 or \
                    data.dtype.kind == "b" and dtype is not _dtype.bool:
                raise TypeError(_not_an_index(data))
            if dtype.category == _dtype.INTEGRAL:  # checked, as a Python number would be
                return _infer_array(data.item(), dtype)
        elif data.dtype == _FLOAT64:
            return _build(float(data), dtype, inferred)
        return _cast(_np.array(data), dtype.np_dtype)
    if isinstance(data, _NUMBER):
        if dtype is _UINT64:
            return _unsigned64(data)
        inferred = _SCALAR_DTYPE.get(type(data)) or _defaults.float_dtype
        if dtype is not None and dtype.category == _dtype.INTEGRAL:
            return _checked_cast(_build(data, _INT64 if inferred is not _dtype.bool
                                        and inferred.category != _FLOATING
                                        else _dtype.float64, inferred), dtype)
        return _build(data, dtype or inferred, inferred)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not _is_sequence(data):
        if isinstance(data, float):
            return _np.array(data, dtype=_float_or(dtype).np_dtype)
        if isinstance(data, int):
            return _np.array(data, dtype=(dtype or _INT64).np_dtype)
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    shape = _sequence_shape(data)
    scan = _Scan()
    scan.visit(data, shape, 0)
    target = dtype or scan.dtype or _defaults.float_dtype
    if scan.has_ndarray:
        warnings.warn(_NDARRAY_LIST_WARNING, UserWarning, stacklevel=4)
    elif dtype is _UINT64:
        return _unsigned64(data)
    if scan.has_tensor:
        data = _replace_tensors(data)
    if dtype is not None and dtype.category != _FLOATING:
        not_index = scan.not_index or (scan.numpy_bool if dtype is not _dtype.bool else None)
        if not_index is not None:
            raise TypeError(not_index)
    if dtype is not None and dtype.category == _dtype.INTEGRAL and dtype is not scan.dtype:
        floating = scan.dtype is not None and scan.dtype.category == _FLOATING
        return _checked_cast(_build(data, _dtype.float64 if floating else _INT64, scan.dtype),
                             dtype)
    return _build(data, target, scan.dtype)


def _checked_cast(wide, dtype):
    """Cast to an integer dtype, refusing values out of its range as PyTorch does."""
    if wide.size:
        lowest, largest = LIMITS[dtype]
        if _is_floating(wide.dtype):
            bad = _np.isnan(wide).any() or wide.min() < lowest or wide.max() > largest
        else:
            low = -largest if lowest == 0 else lowest
            bad = wide.min() < low or wide.max() > largest
        if bad:
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without "
                               "overflow")
    return wide.astype(dtype.np_dtype)


def _unsigned64(data):
    """Python data as uint64, read as PyTorch reads it: each element must be a Python int
    (or bool) in [0, 2**64), checked in order, the first offender naming the error."""
    for value in _leaves(data):
        kind = type(value)
        if kind is not int and kind is not bool:
            raise TypeError(_INTEGER_REQUIRED)
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value > 0xFFFFFFFFFFFFFFFF:
            raise OverflowError("int too big to convert")
    return _np.array(data, dtype=_UINT64_NP)


def _leaves(data):
    """The scalars of nested lists / tuples / ranges, in order."""
    if not isinstance(data, _SEQUENCES):
        yield data
        return
    for item in data:
        yield from _leaves(item)


def numpy_dtype(np_dtype):
    """The ember dtype of a NumPy dtype; PyTorch's TypeError for one it cannot hold."""
    found = _dtype.FROM_NUMPY.get(np_dtype)
    if found is None and np_dtype.name == "bfloat16":
        _dtype.load_bfloat16()  # an ml_dtypes array made before ember needed bfloat16
        found = _dtype.FROM_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. The "
                        "only supported types are: float64, float32, float16, complex64, "
                        "complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                        "and bool.")
    return found


def _copy_ndarray(array, dtype):
    inferred = numpy_dtype(array.dtype)
    if any(s < 0 for s in array.strides):
        raise ValueError(_NEGATIVE_STRIDES)
    return _cast(array, (dtype or inferred).np_dtype)


def _not_an_index(value):
    """PyTorch's TypeError for a NumPy float or bool scalar read into an integer dtype."""
    return f"'numpy.{type(value).__name__}' object cannot be interpreted as an integer"


_FLOAT64 = _np.dtype("float64")
_UINT64 = _dtype.uint64
_UINT64_NP = _UINT64.np_dtype
_INTEGER_REQUIRED = "an integer is required"
_FLOAT32 = _np.dtype("float32")
_NOT_INDEX_TENSOR = "only integer tensors of a single element can be converted to an index"


def _build(data, target, inferred):
    if target in _ROUNDED_TWICE:
        # PyTorch stores each Python number as a double, then casts it (through float32)
        # to 16 bits: build that float64 array and cast it the same way.
        return _cast(_np.array(data, dtype=_np.float64), target.np_dtype)
    try:
        return _np.array(data, dtype=target.np_dtype)
    except OverflowError:
        # Out-of-range values for a small target dtype wrap, as a C cast does in PyTorch.
        wide = _np.float64 if inferred is not None and inferred.category == _FLOATING \
            else _np.int64
        try:
            return _cast(_np.array(data, dtype=wide), target.np_dtype)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None


_ROUNDED_TWICE = (_dtype.float16, _dtype.bfloat16)


def _is_sequence(x):
    return isinstance(x, _SEQUENCES) or isinstance(x, _np_ndarray) and x.ndim > 0


def _sequence_shape(data):
    """The shape PyTorch reads off the first element at each depth."""
    shape = []
    x = data
    while _is_sequence(x):
        if isinstance(x, _np_ndarray):
            shape.extend(x.shape)
            break
        shape.append(len(x))
        if len(shape) > 128:  # PyTorch's MAX_DIMS, checked before the data is walked
            raise ValueError(f"too many dimensions '{type(x).__name__}'")
        if not len(x):
            break
        x = x[0]
        if isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
    return shape


class _Scan:
    """Walk nested data once: check its shape, promote the element dtypes."""

    __slots__ = ("dtype", "has_tensor", "has_ndarray", "not_index", "numpy_bool")

    def __init__(self):
        self.dtype = None
        self.has_tensor = False
        self.has_ndarray = False
        self.not_index = None  # the TypeError an integer or bool dtype would raise
        self.numpy_bool = None  # the TypeError an integer dtype would raise

    def promote(self, d):
        self.dtype = d if self.dtype is None else _dtype.promote_types(self.dtype, d)

    def visit(self, seq, shape, dim):
        if isinstance(seq, _np_ndarray):
            self.ndarray(seq, shape, dim)
            return
        if len(seq) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                             f"(got {len(seq)})")
        if dim + 1 < len(shape):
            for item in seq:
                if not _is_sequence(item):
                    if isinstance(item, str):
                        raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
                    raise TypeError("not a sequence")
                self.visit(item, shape, dim + 1)
            return
        kinds = set(map(type, seq))
        if kinds <= {int, float, bool}:
            for kind in kinds:
                self.promote(_SCALAR_DTYPE.get(kind) or _defaults.float_dtype)
            return
        for item in seq:
            self.scalar(item)

    def scalar(self, item):
        kind = type(item)
        if kind in _SCALAR_DTYPE:
            self.promote(_SCALAR_DTYPE[kind])
        elif isinstance(item, _np_generic) or isinstance(item, _np_ndarray) and not item.ndim:
            if item.dtype == _UINT64_NP and isinstance(item, _np_generic):
                raise TypeError(_INTEGER_REQUIRED)  # PyTorch reads no NumPy uint64 scalar
            self.promote(numpy_dtype(item.dtype))
            if isinstance(item, _np_generic):
                if self.not_index is None and _is_floating(item.dtype) and item.dtype != _FLOAT64:
                    self.not_index = _not_an_index(item)
                elif self.numpy_bool is None and item.dtype.kind == "b":
                    self.numpy_bool = _not_an_index(item)
        elif isinstance(item, float):
            self.promote(_defaults.float_dtype)
        elif isinstance(item, Tensor):
            if item._data.size != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            self.has_tensor = True
            self.promote(item.dtype)
            if self.not_index is None and item.dtype.category == _FLOATING:
                self.not_index = _NOT_INDEX_TENSOR
        elif isinstance(item, int):
            self.promote(_INT64)
        elif _is_sequence(item):
            raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an integer"
                            if self.dtype is None or self.dtype.category != _FLOATING
                            else f"must be real number, not {type(item).__name__}")
        elif isinstance(item, str):
            raise ValueError("too many dimensions 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")

    def ndarray(self, array, shape, dim):
        expected = tuple(shape[dim:])
        for d, (want, got) in enumerate(zip(expected, array.shape)):
            if want != got:
                raise ValueError(f"expected sequence of length {want} at dim {dim + d} "
                                 f"(got {got})")
        if array.shape != expected:
            raise ValueError(f"expected sequence of length {len(expected)} at dim {dim} "
                             f"(got {array.ndim})")
        self.has_ndarray = True
        self.promote(numpy_dtype(array.dtype))


def _replace_tensors(data):
    """Nested data with each (one-element) tensor replaced by its Python value."""
    if isinstance(data, Tensor):
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_replace_tensors(x) for x in data]
    return data
