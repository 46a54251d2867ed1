"""Reading a checkpoint's storages and placing them where `map_location` says.

`load_zip` reads the format torch has written since 1.6; `load_legacy` the older
stream of pickles followed by raw storages. Both resolve each persistent storage
id once (tensors sharing it share memory again) and validate it against the bytes
actually present before allocating anything.
"""
import io
import struct
import sys
from pickle import UnpicklingError

from .. import cuda
from .._backend import numpy as np
from .._meta import meta_array as _meta_array
from .._device import CPU, META, device, resolve as _resolve_device
from .._tensor import Tensor, make_tensor
from . import names
from .unpickler import WeightsUnpickler, decode_tag, full_unpickler

__all__ = []

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001

_NO_CUDA = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")


# What torch says when a callable map_location returns something else than a storage.
_NOT_A_STORAGE = (
    "TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n"
    " * (*, ember.device device, ember.dtype dtype)\n"
    " * (int size, *, ember.device device, ember.dtype dtype)\n"
    " * (Sequence data, *, ember.device device, ember.dtype dtype)\n"
    " * (*, UntypedStorage wrap_storage, ember.dtype dtype)\n"
    "Argument 'wrap_storage' must be UntypedStorage, but got ")


# ---------------------------------------------------------------- map_location
def restorer(map_location):
    """restore(host bytes, dtype, location tag) -> LoadedStorage, as map_location directs."""
    if map_location is None:
        return _restore
    if isinstance(map_location, dict):
        return lambda raw, dtype, tag: _restore(raw, dtype, _mapped_tag(map_location, tag))
    if isinstance(map_location, (str, bytes, device)):
        target = _text_tag(map_location)
        return lambda raw, dtype, tag: _restore(raw, dtype, target)
    return lambda raw, dtype, tag: _restore_with(map_location, raw, dtype, tag)


def _is_meta(map_location):
    """Whether map_location is the meta device itself (then no storage bytes are read)."""
    if isinstance(map_location, str):
        return map_location == "meta"
    return isinstance(map_location, device) and map_location.type == "meta"


def _mapped_tag(map_location, tag):
    """A dict's target for `tag`: torch matches it as text, so a device object fails."""
    target = map_location.get(tag, tag)
    if not isinstance(target, (str, bytes)):
        name = "ember.device" if isinstance(target, device) else type(target).__name__
        raise TypeError(f"expected string or bytes-like object, got '{name}'")
    return _text_tag(target)


def _text_tag(location):
    """A location the user gave: text or a device; bytes fail torch's text match."""
    if isinstance(location, bytes):
        raise TypeError("cannot use a string pattern on a bytes-like object")
    return str(location)


def _tag(location):
    return location.decode("ascii") if isinstance(location, bytes) else str(location)


def _restore(raw, dtype, tag):
    target = _target_device(tag)
    typed = raw.view(dtype.np_dtype)
    if target is CPU:
        return names.LoadedStorage(typed, CPU)
    return names.LoadedStorage(target.xp.asarray(typed), target)


def _restore_with(map_location, raw, dtype, tag):
    """A callable map_location gets the storage (a CPU uint8 tensor here) and its tag."""
    result = map_location(make_tensor(raw, CPU), tag)
    if result is None:
        return _restore(raw, dtype, tag)
    if not isinstance(result, Tensor):
        raise TypeError(_NOT_A_STORAGE + f"{type(result)}")
    array = result._data.reshape(-1).view(np.uint8)
    return names.LoadedStorage(array.view(dtype.np_dtype), result._device)


def _target_device(tag):
    if tag == "cpu":
        return CPU
    if tag == "meta":
        return META
    try:
        target = device(tag)
    except (RuntimeError, TypeError):
        target = None
    if target is None or target.type != "cuda":
        raise RuntimeError("don't know how to restore data location of "
                           f"torch.storage.UntypedStorage (tagged with {tag})")
    if not cuda.is_available():
        raise RuntimeError(_NO_CUDA)
    count = cuda.device_count()
    if (target.index or 0) >= count:
        raise RuntimeError(f"Attempting to deserialize object on CUDA device {target.index} "
                           f"but torch.cuda.device_count() is {count}. Please use torch.load "
                           "with map_location to map your storages to an existing device.")
    return _resolve_device(target)


# ---------------------------------------------------------------- unpickling
def unpickle(data, persistent_load, weights_only, pickle_module, load_args, start=0,
             entry="Unpickler.__init__"):
    """(object, end position) of the pickle starting at data[start].

    torch hands `load_args` to its weights-only unpickler too, whose `entry` (a
    function taking only `encoding`) refuses any other keyword.
    """
    if weights_only:
        for key in load_args:
            if key != "encoding":
                raise TypeError(f"{entry}() got an unexpected keyword argument '{key}'")
        unpickler = WeightsUnpickler(data, persistent_load, load_args.get("encoding", "utf-8"),
                                     start)
        return unpickler.load(), unpickler.pos
    stream = io.BytesIO(data)
    stream.seek(start)
    unpickler = full_unpickler(pickle_module, stream, persistent_load, **load_args)
    return unpickler.load(), stream.tell()


def _storage_id(saved_id, size):
    """Validate a persistent id: (storage type, key, location tag, numel).

    The first failures are torch's (an id that is not a tuple, not a storage, or of
    the wrong length); the field checks after them are ember's, so a damaged id
    never reaches an allocation.
    """
    if not isinstance(saved_id, tuple):
        raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
    typename = decode_tag(saved_id[0])
    if typename != "storage":
        if size == 6:
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        raise AssertionError("Unknown typename for persistent_load, expected 'storage' but "
                             f"got '{typename}'")
    if len(saved_id) != size:
        raise ValueError(f"{'too many' if len(saved_id) > size else 'not enough'} values to "
                         f"unpack (expected {size - 1}"
                         + (")" if len(saved_id) > size else f", got {len(saved_id) - 1})"))
    storage_type, key, location, numel = saved_id[1:5]
    if type(storage_type) is not names.StorageType:
        raise AttributeError(f"'{type(storage_type).__name__}' object has no attribute 'dtype'")
    if not isinstance(location, (str, bytes)):  # torch matches it against device patterns
        raise TypeError("expected string or bytes-like object, got "
                        f"'{type(location).__name__}'")
    if type(key) not in (str, int) or type(numel) is not int or numel < 0:
        raise UnpicklingError(f"invalid storage reference in checkpoint: {saved_id!r:.100}")
    return storage_type.dtype, str(key), _tag(location), numel


def load_zip(archive, map_location, weights_only, pickle_module, load_args):
    """The object in a zip checkpoint."""
    swap = _byteorder(archive) != sys.byteorder
    restore = restorer(map_location)
    meta_target = _is_meta(map_location)
    loaded = {}

    def persistent_load(saved_id):
        dtype, key, location, numel = _storage_id(saved_id, 5)
        storage = loaded.get(key)
        if storage is None and (location == "meta" or meta_target):
            # a meta storage has no record to read, and a meta target reads none
            storage = loaded[key] = names.LoadedStorage(_meta_array((numel,), dtype.np_dtype),
                                                        META)
        if storage is None:
            nbytes = numel * dtype.itemsize
            raw = archive.read_storage(f"data/{key}", nbytes)
            if swap and dtype.itemsize > 1:
                raw.view(dtype.np_dtype).byteswap(inplace=True)
            storage = loaded[key] = restore(raw, dtype, location)
        return storage.as_dtype(dtype)

    data = archive.get_record("data.pkl")
    return unpickle(data, persistent_load, weights_only, pickle_module, load_args)[0]


def _byteorder(archive):
    if not archive.has_record("byteorder"):
        return "little"
    order = archive.get_record("byteorder")
    if order not in (b"little", b"big"):
        raise ValueError("Unknown endianness type: " + order.decode("utf-8", "replace"))
    return order.decode()


def load_legacy(data, map_location, weights_only, pickle_module, load_args):
    """The object in a pre-1.6 checkpoint: magic, protocol, sys info, object, keys, data."""
    stream = _PickleStream(data, weights_only, pickle_module, load_args)
    magic = stream.next()
    if type(magic) is not int or magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol = stream.next()
    if type(protocol) is not int or protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol}")
    sys_info = stream.next()
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    storages = _LegacyStorages(data, restorer(map_location), weights_only)
    result = stream.next(storages.persistent_load)
    keys = stream.next()
    storages.fill(keys, stream.pos, little != (sys.byteorder == "little"))
    return result


class _PickleStream:
    """Consecutive pickles in one buffer, as the legacy format lays them out."""

    def __init__(self, data, weights_only, pickle_module, load_args):
        self.data = data
        self.pos = 0
        self.options = (weights_only, pickle_module, load_args)

    def next(self, persistent_load=None):
        value, self.pos = unpickle(self.data, persistent_load, *self.options, start=self.pos,
                                   entry="load")
        return value


class _LegacyStorages:
    """Storages of a legacy checkpoint: allocated while unpickling, filled after."""

    def __init__(self, data, restore, weights_only):
        self.data = data
        self.restore = restore
        self.weights_only = weights_only
        self.roots = {}  # key -> (host array, LoadedStorage)
        self.views = {}

    def persistent_load(self, saved_id):
        if type(saved_id) is tuple and saved_id and decode_tag(saved_id[0]) == "module":
            if self.weights_only or len(saved_id) < 2:
                raise UnpicklingError("Only persistent_load of storage is allowed, but got "
                                      "'module'")
            return saved_id[1]
        dtype, key, location, numel = _storage_id(saved_id, 6)
        root = self.roots.get(key)
        if root is None:
            nbytes = numel * dtype.itemsize
            if nbytes > len(self.data):
                raise RuntimeError(f"storage {key} of {nbytes} bytes cannot fit in a "
                                   f"checkpoint of {len(self.data)} bytes; the file is corrupted")
            host = np.zeros(nbytes, np.uint8)
            root = self.roots[key] = (host, self.restore(host, dtype, location))
        storage = root[1].as_dtype(dtype)
        view = saved_id[5]
        if view is None:
            return storage
        return self._view(storage, view)

    def _view(self, storage, view):
        if type(view) is not tuple or len(view) != 3:
            raise UnpicklingError(f"invalid storage view in checkpoint: {view!r:.100}")
        view_key, offset, size = view
        found = self.views.get(view_key)
        if found is None:
            if (type(offset) is not int or type(size) is not int or offset < 0 or size < 0
                    or offset + size > storage.array.size):
                raise RuntimeError(f"storage view {view!r:.100} out of bounds in checkpoint")
            found = names.LoadedStorage(storage.array[offset:offset + size], storage.device)
            self.views[view_key] = found
        return found

    def fill(self, keys, pos, swap):
        """Copy each storage's bytes (an int64 element count, then the data) into place,
        failing as torch's reader does on a short or mis-sized record."""
        for key in keys:
            root = self.roots.get(key if type(key) is str else str(key))
            if root is None:
                raise AssertionError(f"storage key {key!r} not found in deserialized_objects")
            host, storage = root
            itemsize = storage.array.itemsize
            header = self.data[pos:pos + 8]
            if len(header) < 8:
                raise RuntimeError(_eof_message(8 - len(header)))
            nbytes = struct.unpack("<q", header)[0] * itemsize % 2**64  # a C size_t
            if nbytes != host.size:
                # torch's text, its unfilled printf placeholders included
                raise RuntimeError("storage has wrong byte size: expected %ld got %ld"
                                   f"{nbytes}{host.size}")
            chunk = self.data[pos + 8:pos + 8 + host.size]
            if len(chunk) != host.size:
                raise RuntimeError(_eof_message(host.size - len(chunk)))
            host[:] = np.frombuffer(chunk, np.uint8)
            if swap and itemsize > 1:
                host.view(storage.array.dtype).byteswap(inplace=True)
            target = storage.array
            if not (isinstance(target, np.ndarray) and np.may_share_memory(target, host)):
                target[...] = storage.device.xp.asarray(host.view(target.dtype))
            pos += 8 + host.size


def _eof_message(missing):
    return f"unexpected EOF, expected {missing} more bytes. The file might be corrupted."
