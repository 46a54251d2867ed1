"""What `Tensor.untyped_storage()` and `Tensor.storage()` return: read-mostly windows on
the memory a tensor and its views share (the storage record's root array).

PyTorch's storages are the allocation itself; ember's memory is a backend array, so
these are thin objects over it that answer the questions code asks of a storage (its
size in bytes or elements, address, device, values, whether it is shared or pinned).
`storage()` gives the deprecated TypedStorage, with PyTorch's once-per-process warning.
"""
import warnings

from . import _backend

__all__ = ["UntypedStorage", "TypedStorage", "root_bytes"]

_TYPED_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")
_warned_typed = [False]


def root_bytes(root):
    """A storage root's whole buffer as a flat uint8 array (a copy only for a root that
    is not dense, which no allocation of ember's makes)."""
    if not root.flags.c_contiguous:
        root = root.copy()
    return root.reshape(-1).view(_backend.numpy.uint8)


class UntypedStorage:
    """The shared memory of a tensor and its views, seen as bytes."""

    __slots__ = ("_record", "_device")

    def __init__(self, record, device):
        self._record = record
        self._device = device

    def _values(self):
        return root_bytes(self._record.root)

    def nbytes(self):
        return int(self._record.root.nbytes)

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.size()

    def element_size(self):
        return 1

    def data_ptr(self):
        return _backend.address(self._record.root)

    @property
    def device(self):
        return self._device

    def is_shared(self):
        return _backend.is_shared(self._record.root)

    def is_pinned(self, device="cuda"):
        return False

    def tolist(self):
        return self._values().tolist()

    def __getitem__(self, index):
        size = self.size()
        if not -size <= index < size:
            raise IndexError(f"index {index} out of range for storage of size {size}")
        return self._values()[index].item()

    def _header(self):
        return f"UntypedStorage(device={self._device})"

    def __repr__(self):
        values = self.tolist()
        body = " " + "\n ".join(str(v) for v in values)
        return f"{body}\n[ember.storage.{self._header()} of size {len(values)}]"

    __str__ = __repr__


class TypedStorage(UntypedStorage):
    """The deprecated view of a storage as elements of the tensor's dtype."""

    __slots__ = ("dtype",)

    def __init__(self, record, device, dtype):
        if not _warned_typed[0]:
            _warned_typed[0] = True
            warnings.warn(_TYPED_DEPRECATED, UserWarning, stacklevel=3)
        UntypedStorage.__init__(self, record, device)
        self.dtype = dtype

    def _values(self):
        return root_bytes(self._record.root).view(self.dtype.np_dtype)

    def size(self):
        return self.nbytes() // self.dtype.itemsize

    def element_size(self):
        return self.dtype.itemsize

    def untyped(self):
        return UntypedStorage(self._record, self._device)

    def _header(self):
        return f"TypedStorage(dtype={self.dtype}, device={self._device})"
