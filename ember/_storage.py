"""What `Tensor.untyped_storage()` and `Tensor.storage()` return, and what
`ember.UntypedStorage(...)` / `ember.TypedStorage(...)` build: windows on the memory a
tensor and its views share (the storage record's root array).

PyTorch's storages are the allocation itself; ember's memory is a backend array, so
these are thin objects over a storage record that answer the questions code asks of a
storage (its size, address, device, values, sharing) and write into it. A storage made
on its own gets a fresh record, which `Tensor.set_` and `ember.tensor(storage)` can then
share. TypedStorage is deprecated in PyTorch; it warns once per process, as there.
"""
import warnings

from . import _backend, _dtype
from ._device import device as _as_device
from .ops._cast import cast as _cast

__all__ = ["StorageBase", "UntypedStorage", "TypedStorage", "root_bytes"]

_TYPED_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")
_warned_typed = [False]
_np = _backend.numpy
_UINT8 = _np.dtype("uint8")
_new = object.__new__


def root_bytes(root):
    """A storage root's whole buffer as a flat uint8 array (a copy only for a root that
    is not dense, which no allocation of ember's makes)."""
    if not root.flags.c_contiguous:
        root = root.copy()
    return root.reshape(-1).view(_UINT8)


def warn_typed(stacklevel=3):
    """PyTorch's deprecation warning for TypedStorage, once per process."""
    if not _warned_typed[0]:
        _warned_typed[0] = True
        warnings.warn(_TYPED_DEPRECATED, UserWarning, stacklevel=stacklevel + 1)


class _Record:
    """A storage record for memory made by a storage constructor (the same two fields as a
    tensor's record, so a tensor set_ to it shares it)."""

    __slots__ = ("root", "version")

    def __init__(self, root):
        self.root = root
        self.version = 0


def _device_of(device):
    found = _as_device("cpu" if device is None else device)
    if found.type != "cpu":
        raise RuntimeError("ember's standalone storages live on the CPU (got "
                           f"device='{found}'); allocate a tensor on the device instead")
    return found


class StorageBase:
    """The base PyTorch gives its untyped storage (torch._C.StorageBase)."""

    __module__ = "ember.storage"  # where PyTorch users look for it (torch.storage)

    __slots__ = ()


class UntypedStorage(StorageBase):
    """The shared memory of a tensor and its views, seen as bytes.

    `UntypedStorage()`, `UntypedStorage(nbytes)` (zero-filled: PyTorch leaves it
    uninitialised) or `UntypedStorage([byte, ...])` (ints, taken modulo 256).
    """

    __module__ = "ember.storage"  # where PyTorch users look for it (torch.storage)

    __slots__ = ("_record", "_device")
    is_sparse = False

    def __init__(self, *args, device=None):
        self._device = _device_of(device)
        self._record = _Record(_bytes_from(args))

    @classmethod
    def _wrap(cls, record, device):
        storage = _new(cls)
        storage._record = record
        storage._device = device
        return storage

    def _values(self):
        return root_bytes(self._record.root)

    def nbytes(self):
        return int(self._record.root.nbytes)

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def element_size(self):
        return 1

    def data_ptr(self):
        return _backend.address(self._record.root)

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    def get_device(self):
        return None if self._device.type == "cpu" else self._device.index

    def is_shared(self):
        return _backend.is_shared(self._record.root)

    def share_memory_(self):
        """Move the bytes into shared memory (tensors already viewing the old bytes keep
        them: ember cannot re-point another tensor's array)."""
        self._record.root = _backend.share_memory(self._record.root)
        return self

    def is_pinned(self, device="cuda"):
        return False

    def untyped(self):
        return self

    def cpu(self):
        return self

    def tolist(self):
        return self._values().tolist()

    def _index(self, index, setting=False):
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__"
                               if not setting else "slices are not supported")
        size = self.size()
        if not -size <= index < size:
            if setting and isinstance(self, TypedStorage):
                raise IndexError(f"index {index} is out of bounds for dimension 0 with size "
                                 f"{size}")
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return index

    def __getitem__(self, index):
        return self._values()[self._index(index)].item()

    def __setitem__(self, index, value):
        values = self._values()
        values[self._index(index, True)] = _element(value, values.dtype)

    def fill_(self, value):
        values = self._values()
        values[...] = _element(value, values.dtype)
        return self

    def copy_(self, source, non_blocking=False):
        mine, theirs = root_bytes(self._record.root), root_bytes(source._record.root)
        if mine.size != theirs.size:
            raise RuntimeError(f"size does not match, self was {mine.size} bytes but src was "
                               f"{theirs.size} bytes")
        mine[...] = theirs
        return self

    def clone(self):
        return type(self)._wrap(_Record(self._record.root.copy()), self._device)

    def resize_(self, size):
        """Grow (zero-filled) or shrink the bytes in place of the record's root."""
        self._resize_bytes(int(size))
        return self

    def _resize_bytes(self, nbytes):
        old = root_bytes(self._record.root)
        new = _np.zeros(nbytes, dtype=_UINT8)
        keep = min(nbytes, old.size)
        new[:keep] = old[:keep]
        self._record.root = new

    def type(self, dtype=None, non_blocking=False):
        return "ember.storage.UntypedStorage" if dtype is None else dtype

    def _header(self):
        return f"UntypedStorage(device={self._device})"

    def __repr__(self):
        values = self.tolist()
        body = " " + "\n ".join(str(v) for v in values)
        return f"{body}\n[ember.storage.{self._header()} of size {len(values)}]"

    __str__ = __repr__


def _bytes_from(args):
    if not args:
        return _np.zeros(0, dtype=_UINT8)
    (data,) = args
    if isinstance(data, int) and not isinstance(data, bool):
        return _np.zeros(data, dtype=_UINT8)
    for item in data:
        if type(item) is not int:
            raise RuntimeError("ember.UntypedStorage(): tried to construct a storage from a "
                               f"sequence ({type(data).__name__}), but one of the items was of "
                               f"type {type(item).__name__} instead of int")
    return _np.array([v & 0xFF for v in data], dtype=_UINT8)


def _element(value, np_dtype):
    """One Python number as a storage element, with PyTorch's casts (the value's own
    64-bit kind first, so -1 wraps and 1.5 truncates)."""
    return _cast(_np.asarray(value), np_dtype)


class TypedStorage:
    """The deprecated view of a storage as elements of one dtype.

    `TypedStorage(dtype=...)`, `TypedStorage(size, dtype=...)`, `TypedStorage(sequence,
    dtype=...)` (values converted with PyTorch's casts, flattened) or
    `TypedStorage(wrap_storage=untyped, dtype=...)`; the dtype defaults to the default
    float dtype.
    """

    __module__ = "ember.storage"  # where PyTorch users look for it (torch.storage)

    __slots__ = ("_untyped_storage", "dtype")
    is_sparse = False

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None):
        warn_typed()
        self.dtype = _dtype.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            self._untyped_storage = wrap_storage
            return
        self._untyped_storage = UntypedStorage._wrap(
            _Record(_elements_from(args, self.dtype)), _device_of(device))

    @classmethod
    def _wrap(cls, record, device, dtype):
        warn_typed(4)
        storage = _new(cls)
        storage._untyped_storage = UntypedStorage._wrap(record, device)
        storage.dtype = dtype
        return storage

    @property
    def _record(self):
        return self._untyped_storage._record

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self._untyped_storage.is_cuda

    def get_device(self):
        return self._untyped_storage.get_device()

    def _values(self):
        raw = root_bytes(self._record.root)
        itemsize = self.dtype.itemsize
        return raw[:raw.size // itemsize * itemsize].view(self.dtype.np_dtype)

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def size(self):
        return self.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def __iter__(self):
        return iter(self.tolist())

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def is_shared(self):
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device="cuda"):
        return False

    def untyped(self):
        return self._untyped_storage

    def cpu(self):
        return self

    def tolist(self):
        return self._values().tolist()

    __getitem__ = UntypedStorage.__getitem__
    __setitem__ = UntypedStorage.__setitem__
    _index = UntypedStorage._index
    fill_ = UntypedStorage.fill_

    def copy_(self, source, non_blocking=False):
        self._untyped_storage.copy_(source.untyped() if isinstance(source, TypedStorage)
                                    else source)
        return self

    def clone(self):
        return TypedStorage._wrap(_Record(self._record.root.copy()), self.device, self.dtype)

    def resize_(self, size):
        """Grow or shrink to `size` elements (returning None, as PyTorch's does)."""
        self._untyped_storage._resize_bytes(int(size) * self.dtype.itemsize)

    def _to(self, dtype):
        """A new storage of `dtype` holding these values converted (a copy)."""
        values = _cast(self._values(), dtype.np_dtype)
        return TypedStorage._wrap(_Record(values), self.device, dtype)

    def pickle_storage_type(self):
        return _LEGACY_NAMES[self.dtype.name] + "Storage"

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "ember." + self.pickle_storage_type()
        return dtype

    def _header(self):
        return f"TypedStorage(dtype={self.dtype}, device={self.device})"

    __repr__ = UntypedStorage.__repr__
    __str__ = __repr__


def _to_method(dtype):
    return lambda self: self._to(dtype)


# `storage.float()`, `storage.long()`, ...: conversions, as on a tensor
for _name, _target in (("double", _dtype.float64), ("float", _dtype.float32),
                       ("half", _dtype.float16), ("bfloat16", _dtype.bfloat16),
                       ("long", _dtype.int64), ("int", _dtype.int32), ("short", _dtype.int16),
                       ("char", _dtype.int8), ("byte", _dtype.uint8), ("bool", _dtype.bool)):
    setattr(TypedStorage, _name, _to_method(_target))
del _name, _target

_LEGACY_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def check_storage_data(args, name):
    """PyTorch's refusal of a typed storage constructor's argument that is neither a size
    nor a sequence (`name` is the class the caller named)."""
    if len(args) == 1 and not isinstance(args[0], int) and not hasattr(args[0], "__len__"):
        raise TypeError(f"<class 'ember.{name}'>.__new__ received an invalid combination of "
                        "arguments. Expected one of:\n * no arguments\n * (int size)\n"
                        " * (Sequence data)\n * (*, UntypedStorage wrap_storage)\n"
                        f"Argument type not recognized: {type(args[0])}")


def _elements_from(args, dtype):
    """The bytes of a new typed storage: zeros of a size, or a sequence's values."""
    if not args:
        return _np.zeros(0, dtype=dtype.np_dtype)
    check_storage_data(args, "TypedStorage")
    (data,) = args
    if isinstance(data, int) and not isinstance(data, bool):
        return _np.zeros(data, dtype=dtype.np_dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return _cast(_np.asarray(data), dtype.np_dtype).reshape(-1)
