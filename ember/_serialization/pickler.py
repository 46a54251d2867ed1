"""Writing ember objects into a checkpoint pickle exactly as torch's pickler does.

Tensors become `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())` whose storage is a persistent id
`('storage', torch.FloatStorage, key, location, numel)`; the storage bytes go to the
archive's `data/<key>` record, once per storage however many tensors view it.
Parameters, dtypes, devices and Sizes are written under torch's names too.
The pure-Python pickler is used because only it lets a GLOBAL name a module
(torch) that ember never imports.
"""
import io
import pickle
import sys
import types
from collections import OrderedDict

from .. import _dtype
from .._backend import numpy as np
from .._device import device
from .._size import Size
from .._tensor import Tensor, _address
from ..nn.parameter import Parameter
from . import names

_LIMITED_UNSIGNED = _dtype.LIMITED_UNSIGNED

__all__ = []


class StorageRef:
    """One storage to write: its key, dtype, location tag and the flat array holding it."""

    __slots__ = ("key", "dtype", "location", "array")

    def __init__(self, key, dtype, location, array):
        self.key = key
        self.dtype = dtype
        self.location = location
        self.array = array

    def persistent_id(self):
        storage_type = names.STORAGE_GLOBALS.get(self.dtype)
        if storage_type is None:  # a limited unsigned dtype: bytes, as torch writes them
            return ("storage", names.UNTYPED_STORAGE_GLOBAL, self.key, self.location,
                    self.array.nbytes)
        numel = self.array.nbytes // self.dtype.itemsize
        return ("storage", storage_type, self.key, self.location, numel)

    def host_bytes(self):
        """The storage's bytes on the host, as a flat uint8 array (no copy on the CPU)."""
        array = self.array if isinstance(self.array, np.ndarray) else self.array.get()
        return array.view(np.uint8)


class StorageTable:
    """The storages a checkpoint writes, keyed '0', '1', ... in first-seen order.

    Tensors sharing an ember storage record (views, parameters and their data) map
    to one entry, so sharing survives the round trip.
    """

    def __init__(self, legacy=False):
        self.legacy = legacy  # pre-1.6 ids carry a sixth field (view metadata, None)
        self.refs = []
        self._by_record = {}
        self._keep = []  # records stay alive while pickling, so their ids stay unique

    def locate(self, tensor):
        """(StorageRef, storage offset, stride) for `tensor`, in elements."""
        data = tensor._data
        dtype = tensor.dtype
        record = tensor._storage
        entry = self._by_record.get(id(record))
        if entry is None:
            entry = self._by_record[id(record)] = [_flat(record.root), None]
            self._keep.append(record)
        flat, ref = entry
        placed = _placement(data, flat) if flat is not None else None
        if placed is None:  # memory not describable as one storage: write a private copy
            copy = tensor._device.xp.ascontiguousarray(data).reshape(-1)
            return self._new_ref(tensor, copy, dtype), 0, _contiguous_strides(data.shape)
        if ref is None:
            ref = entry[1] = self._new_ref(tensor, flat, dtype)
        elif ref.dtype is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return ref, placed[0], placed[1]

    def _new_ref(self, tensor, flat, dtype):
        dev = tensor._device
        location = "cpu" if dev.type == "cpu" else f"{dev.type}:{dev.index or 0}"
        ref = StorageRef(str(len(self.refs)), dtype, location, flat)
        self.refs.append(ref)
        return ref


def _flat(root):
    """A flat view over all of `root`'s memory, or None when it is not one dense block."""
    if root.flags.c_contiguous:
        return root.reshape(-1)
    if any(s < 0 for s in root.strides):
        return None
    order = sorted(range(root.ndim), key=lambda i: -root.strides[i])
    permuted = root.transpose(order)
    return permuted.reshape(-1) if permuted.flags.c_contiguous else None


def _placement(data, flat):
    """(offset, strides) of `data` inside `flat`, in elements of data's dtype; None if
    data's layout cannot be expressed that way (misaligned, negative strides...)."""
    itemsize = data.itemsize
    if flat.nbytes % itemsize:
        return None
    offset = _address(data) - _address(flat) if data.size else 0
    strides = data.strides
    if offset < 0 or offset % itemsize or any(s < 0 or s % itemsize for s in strides):
        return None
    if data.size:
        end = offset + itemsize + sum((n - 1) * s for n, s in zip(data.shape, strides))
        if end > flat.nbytes:
            return None
    return offset // itemsize, tuple(s // itemsize for s in strides)


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


class TorchPickler(pickle._Pickler):
    """A pickler whose output torch.load reads: torch names for every ember object."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol, storages):
        super().__init__(file, protocol)
        self.storages = storages

    def persistent_id(self, obj):
        if type(obj) is StorageRef:
            pid = obj.persistent_id()
            return pid + (None,) if self.storages.legacy else pid
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        kind = type(obj)
        if kind is device:
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (names.TORCH_DEVICE, args)
        if kind is Size:
            return (names.TORCH_SIZE, (tuple(obj),))
        return NotImplemented

    def _reduce_tensor(self, tensor):
        if isinstance(tensor, Parameter):
            state = getattr(tensor, "__dict__", None)
            if state:
                return (names.REBUILD_PARAMETER_WITH_STATE,
                        (tensor.data, tensor.requires_grad, OrderedDict(), dict(state)))
            return (names.REBUILD_PARAMETER, (tensor.data, tensor.requires_grad, OrderedDict()))
        if tensor._device.type == "meta":  # as PyTorch: no storage, only the geometry
            return (names.REBUILD_META, (tensor.dtype, tuple(tensor._data.shape),
                                         tensor.stride(), tensor.requires_grad))
        ref, offset, stride = self.storages.locate(tensor)
        args = (ref, offset, tuple(tensor._data.shape), stride, tensor.requires_grad,
                OrderedDict())
        rebuild = names.REBUILD_TENSOR_V2
        if tensor.dtype in _LIMITED_UNSIGNED:
            rebuild, args = names.REBUILD_TENSOR_V3, args + (tensor.dtype,)
        if type(tensor) is Tensor:
            return (rebuild, args)
        state = dict(getattr(tensor, "__dict__", None) or {})
        return (names.REBUILD_FROM_TYPE_V2, (rebuild, type(tensor), args, state))

    def save_global(self, obj, name=None):
        """pickle's, failing in the words of the C pickler that torch.save runs."""
        try:
            super().save_global(obj, name)
        except pickle.PicklingError:
            raise _global_error(obj, name) from None

    def save_torch_global(self, obj, module, name):
        """Write GLOBAL module.name (as save_global would, minus its import check)."""
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)


def _global_error(obj, name):
    """The error the C pickler raises for a function or class it cannot name."""
    if name is None:
        name = getattr(obj, "__qualname__", None) or obj.__name__
    if "<locals>" in name.split("."):
        return AttributeError(f"Can't pickle local object {name!r}")
    module_name = pickle.whichmodule(obj, name)
    try:
        __import__(module_name, level=0)
    except ImportError:
        return pickle.PicklingError(f"Can't pickle {obj!r}: import of module {module_name!r} "
                                    "failed")
    found = sys.modules[module_name]
    for part in name.split("."):
        found = getattr(found, part, _MISSING)
        if found is _MISSING:
            return pickle.PicklingError(f"Can't pickle {obj!r}: attribute lookup {name} on "
                                        f"{module_name} failed")
    return pickle.PicklingError(f"Can't pickle {obj!r}: it's not the same object as "
                                f"{module_name}.{name}")


_MISSING = object()


def _save_marker(pickler, obj):
    pickler.save_torch_global(obj, obj.module, obj.name)


def _save_dtype(pickler, obj):
    marker = names.DTYPE_GLOBALS[obj]
    pickler.save_torch_global(obj, marker.module, marker.name)


TorchPickler.dispatch[names.TorchGlobal] = _save_marker
TorchPickler.dispatch[types.FunctionType] = TorchPickler.save_global  # pickle's names its own
TorchPickler.dispatch[_dtype.dtype] = _save_dtype


def dumps(obj, protocol, pickle_module=pickle, legacy=False):
    """(data.pkl bytes, StorageTable) for `obj`."""
    buffer = io.BytesIO()
    storages = StorageTable(legacy)
    pickler_class = TorchPickler if pickle_module is pickle else _custom_pickler(pickle_module)
    pickler_class(buffer, protocol, storages).dump(obj)
    return buffer.getvalue(), storages


def _custom_pickler(pickle_module):
    """TorchPickler on top of another module's pure-Python Pickler (dill's, say)."""
    base = getattr(pickle_module, "Pickler", None)
    if not (isinstance(base, type) and issubclass(base, pickle._Pickler)):
        return TorchPickler

    class CustomTorchPickler(TorchPickler, base):
        dispatch = dict(getattr(base, "dispatch", {}), **TorchPickler.dispatch)

    return CustomTorchPickler
