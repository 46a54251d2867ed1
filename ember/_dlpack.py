"""DLPack exchange: zero-copy sharing with NumPy, PyTorch, CuPy and any DLPack producer.

`ember.from_dlpack(x)` wraps the memory `x` exports; `Tensor.__dlpack__` exports an
ember tensor's memory (the array module's own export). Neither copies: a write
through one side is seen by the other.

NumPy's DLPack has no bfloat16, while PyTorch's has. So bfloat16 travels as
uint16 through NumPy, with the capsule's type code rewritten to (or from) DLPack's
bfloat16 code: the bytes are identical, only the label differs.
"""
import ctypes

from . import _dtype
from ._backend import numpy as np
from ._device import CPU, resolve as _resolve_device
from ._tensor import Tensor, make_tensor

__all__ = ["from_dlpack", "to_dlpack"]

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_MANAGED = 1, 2, 13
_KDL_UINT, _KDL_BFLOAT = 1, 4
_VERSIONED = b"dltensor_versioned"
# Byte offset of DLTensor.dtype.code in the capsule's struct: DLTensor starts after
# (version, manager_ctx, deleter, flags) in the versioned struct, and holds
# (data pointer, device, ndim) before its dtype.
_CODE_OFFSET = {_VERSIONED: 32 + 20, b"dltensor": 20}
_DEVICE_OFFSET = {_VERSIONED: 32 + 8, b"dltensor": 8}

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

def from_dlpack(ext_tensor):
    """A tensor sharing memory with `ext_tensor` (anything with `__dlpack__`, or a capsule)."""
    if type(ext_tensor).__name__ == "PyCapsule":
        capsule = ext_tensor
        device_type, index = _capsule_device(capsule)
    else:
        device_type, index = ext_tensor.__dlpack_device__()
        capsule = None
    if device_type in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        device = _resolve_device(f"cuda:{index}")
        source = ext_tensor if capsule is None else _Exporter(capsule, (device_type, index))
        return _wrap(device.xp.from_dlpack(source), device)
    if device_type != _KDL_CPU:
        raise BufferError(f"ember.from_dlpack: unsupported DLPack device type {device_type}")
    if capsule is None:
        capsule = _take_capsule(ext_tensor)
    bfloat16 = _relabel(capsule, _KDL_BFLOAT, _KDL_UINT)
    array = np.from_dlpack(_Exporter(capsule, (_KDL_CPU, 0)))
    return _wrap(array.view(_dtype.bfloat16.np_dtype) if bfloat16 else array, CPU)


def _wrap(array, device):
    _dtype.from_numpy_dtype(array.dtype)  # TypeError for a dtype ember lacks (uint16...)
    return make_tensor(array, device)


def _take_capsule(producer):
    """The producer's capsule, versioned when it can (NumPy marks old ones read-only)."""
    try:
        return producer.__dlpack__(max_version=(1, 0))
    except TypeError:  # a producer predating DLPack 1.0 keywords
        return producer.__dlpack__()


class _Exporter:
    """Hands an already-made capsule to a consumer that asks for `__dlpack__`."""

    __slots__ = ("capsule", "device")

    def __init__(self, capsule, device):
        self.capsule = capsule
        self.device = device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


# ---------------------------------------------------------------- Tensor.__dlpack__
def dlpack(tensor, stream=None, max_version=None, dl_device=None, copy=None):
    """Tensor.__dlpack__: the array's own export; bfloat16 relabelled from uint16."""
    if tensor._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {key: value for key, value in (("stream", stream), ("max_version", max_version),
                                            ("dl_device", dl_device), ("copy", copy))
              if value is not None}
    return _export(tensor._data, kwargs)


def to_dlpack(tensor):
    """The legacy export: an unversioned "dltensor" capsule for any tensor (PyTorch's
    `to_dlpack` does not refuse one that requires grad, unlike `__dlpack__`)."""
    if not isinstance(tensor, Tensor):
        raise TypeError("_to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return _export(tensor._data, {})


def _export(data, kwargs):
    if not _dtype.is_bfloat16(data.dtype):
        return data.__dlpack__(**kwargs)
    capsule = data.view(np.uint16).__dlpack__(**kwargs)
    _relabel(capsule, _KDL_UINT, _KDL_BFLOAT)
    return capsule


def dlpack_device(tensor):
    return tensor._data.__dlpack_device__()


# ---------------------------------------------------------------- capsule surgery
def _struct_address(capsule):
    name = _capsule_name(capsule)
    if name not in _CODE_OFFSET:
        raise BufferError(f"expected a DLPack capsule, got one named {name!r} (a capsule can "
                          "be consumed only once)")
    return name, _capsule_pointer(capsule, name)


def _relabel(capsule, old_code, new_code):
    """Rewrite a 16-bit type code `old_code` to `new_code`; True if it was rewritten."""
    name, address = _struct_address(capsule)
    code = ctypes.c_uint8.from_address(address + _CODE_OFFSET[name])
    bits = ctypes.c_uint8.from_address(address + _CODE_OFFSET[name] + 1)
    if code.value != old_code or bits.value != 16:
        return False
    code.value = new_code
    return True


def _capsule_device(capsule):
    name, address = _struct_address(capsule)
    pair = (ctypes.c_int32 * 2).from_address(address + _DEVICE_OFFSET[name])
    return pair[0], pair[1]
