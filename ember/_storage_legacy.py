"""The legacy typed storage classes (`ember.FloatStorage`, `ember.LongStorage`, ...) and the
ways a storage becomes a tensor (`ember.tensor(storage)`, `ember.Tensor(storage)`).

In PyTorch these classes are names rather than types of their own: `FloatStorage(...)`
builds a plain TypedStorage of float32, and `isinstance(s, FloatStorage)` asks whether a
TypedStorage holds float32. ember keeps that: each class's constructor returns a
TypedStorage, and a small metaclass answers isinstance by dtype (the one question a
metaclass is needed for here); `_legacy_class` makes the ten classes from their dtypes.
"""
from . import _dtype, _errors
from ._backend import numpy as _np
from ._device import CPU as _CPU
from ._storage import TypedStorage, UntypedStorage, _Record, check_storage_data, root_bytes
from ._tensor import _Storage, make_tensor

__all__ = ["BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage", "DoubleStorage",
           "FloatStorage", "HalfStorage", "IntStorage", "LongStorage", "ShortStorage",
           "Storage", "storage_type", "tensor_from_storage"]


class _LegacyStorageType(type):
    """`isinstance(tensor.storage(), ember.FloatStorage)` is True for a float32 storage."""

    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage:
            return instance.dtype is cls.dtype and instance.device.type == "cpu"
        return type.__instancecheck__(cls, instance)


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageType):
    """`XStorage()`, `XStorage(size)`, `XStorage(sequence)`, `XStorage(wrap_storage=...)`:
    a TypedStorage of the class's dtype (warning once, as TypedStorage does)."""

    __slots__ = ()
    __module__ = "ember.storage"

    def __new__(cls, *args, wrap_storage=None, device=None):
        check_storage_data(args, cls.__name__)
        return TypedStorage(*args, dtype=cls.dtype, device=device, wrap_storage=wrap_storage)

    @classmethod
    def from_buffer(cls, buffer, byte_order="native", count=-1, offset=0):
        """A storage holding a copy of a bytes-like object's elements, read in
        `byte_order` ('native', 'little' or 'big')."""
        element = cls.dtype.np_dtype
        if byte_order != "native":
            element = element.newbyteorder("<" if byte_order == "little" else ">")
        values = _np.frombuffer(buffer, dtype=element, count=count, offset=offset)
        return TypedStorage._wrap(_Record(values.astype(cls.dtype.np_dtype)), _CPU, cls.dtype)


def _legacy_class(name, dtype):
    """One legacy class: PyTorch's name for "a TypedStorage of `dtype`"."""
    return _LegacyStorageType(name, (_LegacyStorage,), {
        "__slots__": (), "__module__": "ember", "__qualname__": name, "dtype": dtype})


DoubleStorage = _legacy_class("DoubleStorage", _dtype.float64)
FloatStorage = _legacy_class("FloatStorage", _dtype.float32)
HalfStorage = _legacy_class("HalfStorage", _dtype.float16)
BFloat16Storage = _legacy_class("BFloat16Storage", _dtype.bfloat16)
LongStorage = _legacy_class("LongStorage", _dtype.int64)
IntStorage = _legacy_class("IntStorage", _dtype.int32)
ShortStorage = _legacy_class("ShortStorage", _dtype.int16)
CharStorage = _legacy_class("CharStorage", _dtype.int8)
ByteStorage = _legacy_class("ByteStorage", _dtype.uint8)
BoolStorage = _legacy_class("BoolStorage", _dtype.bool)

Storage = FloatStorage  # PyTorch's alias, from the days of a float default tensor type

_BY_DTYPE = {cls.dtype: cls for cls in (DoubleStorage, FloatStorage, HalfStorage,
                                        BFloat16Storage, LongStorage, IntStorage, ShortStorage,
                                        CharStorage, ByteStorage, BoolStorage)}


def storage_type(input):
    """`Tensor.storage_type()`: the legacy class of its dtype (None for uint16/32/64)."""
    return _BY_DTYPE.get(input.dtype)


def is_storage(obj):
    return isinstance(obj, (TypedStorage, UntypedStorage))


def tensor_from_storage(storage, dtype, wording):
    """A 1-D tensor over all of `storage`'s elements, sharing its memory (PyTorch's
    `tensor(storage)` and legacy `Tensor(storage)` copy nothing). A typed storage must
    hold `dtype`; `wording` is the refusal's text, which differs between the two doors."""
    if isinstance(storage, TypedStorage) and storage.dtype is not dtype:
        raise RuntimeError(wording.format(want=_errors.scalar_type_name(dtype),
                                          got=_errors.scalar_type_name(storage.dtype)))
    root = storage._record.root
    raw = root_bytes(root)
    itemsize = dtype.itemsize
    out = make_tensor(raw[:raw.size // itemsize * itemsize].view(dtype.np_dtype),
                      storage.device)
    out._storage = _Storage(root)
    return out
