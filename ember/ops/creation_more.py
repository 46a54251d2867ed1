"""The remaining factories: empty_permuted (memory laid out in a chosen dim order),
frombuffer (a tensor over a Python buffer's memory, no copy) and the legacy `Tensor.new`.

They sit beside creation.py, reusing its size parsing and `finish`, so a factory result
is built one way everywhere.
"""
import warnings

from .. import _dtype
from .._backend import allocate as _allocate
from .._device import resolve as _resolve_device
from .._size import Size
from ._common import Tensor, contiguous
from ._data import _float_or, finish
from .creation import new_empty, new_tensor, size_arg
from .dims import _alias

__all__ = ["empty_permuted", "frombuffer"]

_NOT_WRITABLE = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
    "means you can write to the underlying (supposedly non-writable) buffer using the tensor. "
    "You may want to copy the buffer to protect its data or make it writable before converting "
    "it to a tensor. This type of warning will be suppressed for the rest of this program.")
_warned_not_writable = [False]


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of `size` whose dims are stored outermost-first in the
    order `physical_layout` names (so its strides decrease along that order)."""
    shape = size_arg((size,), "empty_permuted")
    order = tuple(physical_layout)
    if len(order) != len(shape):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(shape)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(shape):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(shape) - 1}, but got {d} at index {i}).  NB: negative "
                               f"dims not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    dev = _resolve_device(device)
    physical = _allocate(dev.xp.empty, [shape[d] for d in order], _float_or(dtype).np_dtype)
    inverse = [order.index(d) for d in range(len(order))]
    return finish(contiguous(physical, dev.xp).transpose(inverse), dev, requires_grad,
                  keep_strides=True)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of an object with the buffer protocol.

    Like PyTorch it warns (once) on a read-only buffer; NumPy then keeps the array
    read-only, so a write raises instead of silently changing the bytes."""
    try:
        length = memoryview(buffer).nbytes
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    dtype = _dtype.as_dtype(dtype)
    itemsize = dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if memoryview(buffer).readonly and not _warned_not_writable[0]:
        _warned_not_writable[0] = True
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=2)
    dev = _resolve_device(None)
    array = dev.xp.frombuffer(buffer, dtype=dtype.np_dtype, count=count, offset=offset)
    return finish(array, dev, requires_grad)


# ---------------------------------------------------------------- Tensor.new
def new(self, *args, device=None):
    """The legacy constructor: `new(*sizes)` is uninitialised, `new(sequence)` holds the
    data, `new(tensor)` aliases it; always self's dtype."""
    if device is not None and self._device != _resolve_device(device):
        raise RuntimeError(f"Attempted to make a tensor into a different device type. "
                           f"Expected device '{self._device}', but got '{device}'.")
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype != self.dtype:
            raise TypeError(f"expected {_options(self.dtype)} (got {_options(other.dtype)})")
        return _alias(other)
    if not args:
        return new_empty(self, 0)
    if len(args) == 1 and not isinstance(args[0], int):
        data = args[0]
        if isinstance(data, Size):
            return new_empty(self, *data)
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(data, (list, tuple)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return new_tensor(self, data)
    return new_empty(self, *args)


def _options(dtype):
    return (f"TensorOptions(dtype={_C_TYPE[dtype.name]}, device=cpu, layout=Strided, "
            f"requires_grad=false (default), pinned_memory=false (default), "
            f"memory_format=(nullopt))")


_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
           "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}
