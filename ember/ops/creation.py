"""Creation ops: tensor(), the legacy Tensor(...) constructor, factories."""
import warnings

from .. import _dtype, _errors
from .._backend import ndarray as _np_ndarray
from .._device import resolve as _resolve_device
from ._common import Tensor, make_tensor

__all__ = ["tensor"]

_LIST_LIKE = (list, tuple)


def _infer_array(data, xp, dtype):
    """A fresh array from Python data, with PyTorch's dtype inference."""
    if dtype is not None:
        try:
            return xp.array(data, dtype=dtype.np_dtype)
        except OverflowError:
            return xp.array(data).astype(dtype.np_dtype)
    array = xp.array(data)
    kind = array.dtype.kind
    if kind == "f":
        if not isinstance(data, _np_ndarray):
            array = array.astype(_dtype._defaults.float_dtype.np_dtype, copy=False)
    elif kind == "O":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    elif kind == "i" and not isinstance(data, _np_ndarray):
        array = array.astype(_dtype.int64.np_dtype, copy=False)
    elif kind in "US":
        raise TypeError(f"new(): invalid data type '{array.dtype.type.__name__}'")
    _dtype.from_numpy_dtype(array.dtype)
    return array


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (lists, scalars, arrays, tensors)."""
    dev = _resolve_device(device)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than ember.tensor(sourceTensor).", UserWarning, stacklevel=2)
        array = data._data.astype(dtype.np_dtype) if dtype is not None else data._data.copy()
    elif isinstance(data, _LIST_LIKE) and any(isinstance(x, Tensor) for x in data):
        array = _infer_array([x.tolist() if isinstance(x, Tensor) else x for x in data],
                             dev.xp, dtype)
    else:
        array = _infer_array(data, dev.xp, dtype)
    out = make_tensor(array, dev)
    if requires_grad:
        if not out.is_floating_point():
            raise RuntimeError(_errors.ONLY_FLOAT_REQUIRES_GRAD_FACTORY)
        out._requires_grad = True
    return out


def legacy_constructor(cls, *args, device=None):
    """`ember.Tensor(...)`: float32 data, or an uninitialised tensor of a given size."""
    dev = _resolve_device(device)
    if not args:
        array = dev.xp.empty((0,), dtype=_dtype.float32.np_dtype)
    elif all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        array = dev.xp.zeros(args, dtype=_dtype.float32.np_dtype)
    elif len(args) == 1 and type(args[0]).__name__ == "Size":
        array = dev.xp.zeros(tuple(args[0]), dtype=_dtype.float32.np_dtype)
    elif len(args) == 1:
        data = args[0]
        if isinstance(data, Tensor):
            if data.dtype is not _dtype.float32:
                raise TypeError(f"expected {_dtype.float32.tensor_type} (got "
                                f"{data.dtype.tensor_type})")
            return data
        array = _infer_array(data, dev.xp, _dtype.float32)
    else:
        raise TypeError("new() received an invalid combination of arguments")
    out = make_tensor(array, dev)
    if cls is not Tensor:
        out.__class__ = cls
    return out
