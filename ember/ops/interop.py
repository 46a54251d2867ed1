"""Python and NumPy interop: from_numpy/as_tensor/asarray, numpy(), __array__, item()...

`from_numpy`, `numpy()` and `np.asarray(tensor)` share the very array behind a
CPU tensor, so writes through either side are seen by the other, as in PyTorch.
The bridges are exported from `creation.py`.
"""
import warnings

from .. import _diagnose, _dtype, _errors
from .._backend import ndarray as _np_ndarray
from .._device import CPU as _CPU, resolve as _resolve_device
from ._common import Tensor, make_tensor
from ._data import _NEGATIVE_STRIDES, _infer_array, finish, numpy_dtype, to_device

__all__ = []

_NOT_WRITABLE_WARNING = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
    "This means writing to this tensor will result in undefined behavior. You may want to copy "
    "the array to protect its data or make it writable before converting it to a tensor. This "
    "type of warning will be suppressed for the rest of this program.")


def from_numpy(ndarray):
    """A tensor sharing `ndarray`'s memory: writes through either are seen by both."""
    if not isinstance(ndarray, _np_ndarray):
        kind = type(ndarray)
        name = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"expected np.ndarray (got {name})")
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    numpy_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(_NEGATIVE_STRIDES)
    if not ndarray.flags.writeable:
        warnings.warn(_NOT_WRITABLE_WARNING, UserWarning, stacklevel=2)
    return make_tensor(ndarray, _CPU)


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, sharing memory where no copy is needed (tensors, NumPy arrays)."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    dev = _resolve_device(device)
    if isinstance(data, _np_ndarray) and dev is _CPU and (
            dtype is None or numpy_dtype(data.dtype) is dtype):
        return from_numpy(data)
    return finish(to_device(_infer_array(data, dtype), dev), dev, False,
                  keep_strides=isinstance(data, _np_ndarray))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """`obj` as a tensor; shares memory unless `copy=True` or a copy cannot be avoided."""
    dev = None if device is None else _resolve_device(device)
    if isinstance(obj, Tensor):
        out = _asarray_tensor(obj, dtype, dev, copy)
    elif isinstance(obj, _np_ndarray) and (dev is None or dev is _CPU) and not copy:
        out = from_numpy(obj)
        if dtype is not None and dtype is not out.dtype:
            if copy is False:
                raise ValueError(_alias_error(out.dtype, dtype))
            out = make_tensor(obj.astype(dtype.np_dtype), _CPU)
    else:
        dev = dev or _CPU
        out = make_tensor(to_device(_infer_array(obj, dtype), dev), dev)
    if requires_grad or isinstance(obj, Tensor) and obj._requires_grad:
        # A source that requires grad passes that on: a converted or copied tensor keeps its
        # node (ToCopyBackward0, CloneBackward0), an integer result is refused, and a leaf
        # (`obj` itself when nothing changed) is marked in place, as PyTorch does.
        if not out.is_floating_point():
            raise _diagnose.noted(RuntimeError(_errors.ONLY_FLOAT_REQUIRES_GRAD_FACTORY),
                                  "integer_requires_grad", dtype=out.dtype)
        if out.grad_fn is None:
            out._requires_grad = True
    return out


def _asarray_tensor(obj, dtype, dev, copy):
    changes = (dtype is not None and dtype is not obj.dtype
               or dev is not None and dev is not obj._device)
    if copy is False and changes:
        raise ValueError(_alias_error(obj.dtype, dtype or obj.dtype))
    if copy:
        return obj.to(device=dev, dtype=dtype, copy=True) if changes else obj.clone()
    return obj.to(device=dev, dtype=dtype) if changes else obj


def _alias_error(have, want):
    return (f"can't alias tensor with dtype '{_errors._scalar_type_name(have)}' into dtype "
            f"'{_errors._scalar_type_name(want)}'.")


# ================================================================ tensor -> Python / NumPy

_is_bfloat16 = _dtype.is_bfloat16
_PYTHON_NUMBERS = (bool, int, float)


def _host(data, device):
    return data if device.type == "cpu" else data.get()


def to_python_scalar(self):
    """The single value as a Python bool, int or float."""
    data = self._data if self._device is _CPU else self._data.get()
    value = data.item()  # a meta array raises PyTorch's error here
    # NumPy gives Python numbers, except for bfloat16 (an ml_dtypes scalar).
    return value if value.__class__ in _PYTHON_NUMBERS else float(value)


def one_element_scalar(self):
    """What int() and float() convert: PyTorch raises ValueError past one element."""
    if self._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return to_python_scalar(self)


def tolist(self):
    """Nested lists of Python numbers (a plain number for a 0-dim tensor)."""
    data = _host(self._data, self._device)
    if _is_bfloat16(data.dtype):
        data = data.astype("float32")
    return data.tolist()


def numpy(self, force=False):
    """The array behind a CPU tensor, sharing memory; refuses tensors that require grad."""
    if _is_bfloat16(self._data.dtype):
        raise TypeError("Got unsupported ScalarType BFloat16")
    if force:
        return _host(self._data, self._device)
    if self._requires_grad:
        raise _diagnose.noted(RuntimeError(_errors.NUMPY_REQUIRES_GRAD), "numpy_grad",
                              shape=self.shape)
    if self._device.type != "cpu":
        raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use "
                        "Tensor.cpu() to copy the tensor to host memory first.")
    return self._data


def array(self, dtype=None, copy=None):
    """NumPy's `__array__`: the shared array, or a copy/cast when asked for one."""
    data = numpy(self)
    if dtype is not None and dtype != data.dtype:
        if copy is False:
            raise ValueError(f"Unable to avoid copy while converting from {data.dtype} to "
                             f"{dtype}.")
        return data.astype(dtype)
    if copy:
        return data.copy()
    return data
