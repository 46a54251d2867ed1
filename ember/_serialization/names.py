"""torch's global names in a checkpoint's pickle, and the ember objects they rebuild.

A checkpoint's pickle names torch functions and classes (`torch._utils._rebuild_tensor_v2`,
`torch.FloatStorage`, `torch.float32`...). ember writes those names (through
`TorchGlobal` markers, never importing torch) and, on loading, maps each one to the
ember function or object below that does the same job.
"""
import warnings
from collections import Counter, OrderedDict

from .. import _dtype
from .._device import META, device
from .._meta import meta_array as _meta_array
from .._size import Size
from .._tensor import Tensor, _Storage, make_tensor
from ..nn.parameter import Parameter

__all__ = []


class TorchGlobal:
    """A torch name for ember's pickler to write as a GLOBAL (module, name)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __repr__(self):
        return f"<torch global {self.module}.{self.name}>"

    def __call__(self, *args):  # pickle's save_reduce insists on a callable
        raise TypeError(f"{self.module}.{self.name} is a name ember writes into checkpoints")


REBUILD_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
# uint16/uint32/uint64 have no legacy storage class: torch writes their bytes as an
# UntypedStorage and rebuilds the tensor with its dtype given (_rebuild_tensor_v3).
REBUILD_TENSOR_V3 = TorchGlobal("torch._utils", "_rebuild_tensor_v3")
UNTYPED_STORAGE_GLOBAL = TorchGlobal("torch.storage", "UntypedStorage")
REBUILD_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
REBUILD_META = TorchGlobal("torch._utils", "_rebuild_meta_tensor_no_storage")
REBUILD_PARAMETER_WITH_STATE = TorchGlobal("torch._utils", "_rebuild_parameter_with_state")
REBUILD_FROM_TYPE_V2 = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
TORCH_DEVICE = TorchGlobal("torch", "device")
TORCH_SIZE = TorchGlobal("torch", "Size")

# The legacy typed-storage names torch 2.x still writes for each dtype.
_STORAGE_NAMES = {
    _dtype.bool: "BoolStorage", _dtype.uint8: "ByteStorage", _dtype.int8: "CharStorage",
    _dtype.int16: "ShortStorage", _dtype.int32: "IntStorage", _dtype.int64: "LongStorage",
    _dtype.float16: "HalfStorage", _dtype.bfloat16: "BFloat16Storage",
    _dtype.float32: "FloatStorage", _dtype.float64: "DoubleStorage",
}
STORAGE_GLOBALS = {d: TorchGlobal("torch", name) for d, name in _STORAGE_NAMES.items()}
DTYPE_GLOBALS = {d: TorchGlobal("torch", d.name) for d in _dtype.ALL}


class StorageType:
    """What `torch.FloatStorage` & co. unpickle to in ember: the element type they carry."""

    __slots__ = ("dtype", "name")

    def __init__(self, dtype, name):
        self.dtype = dtype
        self.name = name

    def __repr__(self):
        return f"StorageType(dtype={self.dtype!r})"


class LoadedStorage:
    """One storage read from a checkpoint: a flat typed array on its device.

    Every tensor rebuilt on it is a strided window onto `array` and shares one
    storage record, so tensors that shared memory when saved share it again.
    """

    __slots__ = ("array", "device", "_record", "_retyped")

    def __init__(self, array, device):
        self.array = array
        self.device = device
        self._record = None
        self._retyped = None

    def tensor(self, storage_offset, size, stride):
        """A tensor viewing this storage (validated as torch's `set_` validates)."""
        size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
        offset = _int(storage_offset, "storage_offset")
        if len(size) != len(stride):
            raise RuntimeError("mismatch in length of strides and shape")
        if any(s < 0 for s in stride):
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}")
        array = self.array
        itemsize = array.itemsize
        empty = 0 in size
        needed = 0 if empty else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        if needed > array.size:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {itemsize} requiring a storage size of "
                f"{needed * itemsize} are out of bounds for storage of size "
                f"{array.size * itemsize}")
        window = array[min(offset, array.size):]
        try:
            data = self.device.xp.lib.stride_tricks.as_strided(
                window, shape=size, strides=tuple(s * itemsize for s in stride))
        except ValueError as error:  # a geometry NumPy cannot represent
            raise RuntimeError(f"cannot view storage with sizes {list(size)}: {error}") from None
        out = make_tensor(data, self.device)
        if self._record is None:
            self._record = _Storage(array)
        out._storage = self._record
        return out

    def as_dtype(self, dtype):
        """The same bytes seen as `dtype` (for `_rebuild_tensor_v3`'s untyped storages)."""
        if dtype.np_dtype == self.array.dtype:
            return self
        if self._retyped is None:
            self._retyped = {}
        found = self._retyped.get(dtype)
        if found is None:
            if self.array.nbytes % dtype.itemsize:
                raise RuntimeError(f"storage of {self.array.nbytes} bytes cannot be viewed as "
                                   f"{dtype!r}")
            found = LoadedStorage(self.array.view(dtype.np_dtype), self.device)
            self._retyped[dtype] = found
        return found


_MAX_DIMS = 64
_MAX_EXTENT = 1 << 62


def _int(value, what):
    if type(value) is not int or not 0 <= value < _MAX_EXTENT:
        raise RuntimeError(f"invalid {what} in checkpoint: {value!r}")
    return value


def _int_tuple(values, what):
    if not isinstance(values, (tuple, list)) or len(values) > _MAX_DIMS:
        raise RuntimeError(f"invalid {what} in checkpoint: {values!r}")
    return tuple(_int(v, what) for v in values)


def _check_storage(storage):
    if type(storage) is not LoadedStorage:
        raise RuntimeError(f"expected a storage to rebuild a tensor from, got "
                           f"{type(storage).__name__}")


def _check_flag(value, what):
    if type(value) is not bool:
        raise RuntimeError(f"invalid {what} in checkpoint: {value!r}")
    return value


# ---------------------------------------------------------------- rebuild functions
def _rebuild_tensor(storage, storage_offset, size, stride):
    """torch._utils._rebuild_tensor: a tensor viewing a storage."""
    _check_storage(storage)
    return storage.tensor(storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """torch._utils._rebuild_tensor_v2: what every saved tensor unpickles through."""
    _check_storage(storage)
    out = storage.tensor(storage_offset, size, stride)
    if _check_flag(requires_grad, "requires_grad"):
        out.requires_grad_(True)
    return out


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """torch._utils._rebuild_tensor_v3: an untyped storage viewed as `dtype`."""
    _check_storage(storage)
    if not isinstance(dtype, _dtype.dtype):
        raise RuntimeError(f"invalid dtype in checkpoint: {dtype!r}")
    return _rebuild_tensor_v2(storage.as_dtype(dtype), storage_offset, size, stride,
                              requires_grad, backward_hooks)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    """torch._utils._rebuild_meta_tensor_no_storage: a meta tensor has no bytes to read."""
    if not isinstance(dtype, _dtype.dtype):
        raise RuntimeError(f"invalid dtype in checkpoint: {dtype!r}")
    size = _int_tuple(size, "size")
    _int_tuple(stride, "stride")
    out = make_tensor(_meta_array(size, dtype.np_dtype), META)
    if _check_flag(requires_grad, "requires_grad"):
        out.requires_grad_(True)
    return out


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """torch._utils._rebuild_parameter."""
    if not isinstance(data, Tensor):
        raise RuntimeError(f"Parameter data in checkpoint is not a tensor: {type(data).__name__}")
    return Parameter(data, _check_flag(requires_grad, "requires_grad"))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch._utils._rebuild_parameter_with_state: a Parameter with user attributes."""
    return set_object_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: a tensor subclass (or a tensor with attributes)."""
    if func not in _TENSOR_REBUILDS or not isinstance(args, tuple):
        raise RuntimeError(f"invalid tensor rebuild in checkpoint: {func!r}")
    out = func(*args)
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)
            and isinstance(out, Tensor)):
        raise RuntimeError(f"cannot rebuild a tensor of type {new_type!r}")
    if type(out) is not new_type:
        if issubclass(new_type, Parameter):
            out = new_type(out, out.requires_grad)
        else:
            out = out.detach()
            out.__class__ = new_type
    return set_object_state(out, state)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    """torch._utils._rebuild_device_tensor_from_cpu_tensor."""
    if not isinstance(data, Tensor):
        raise RuntimeError(f"expected a tensor in checkpoint, got {type(data).__name__}")
    out = data.to(dtype=dtype, device=device)
    out.requires_grad = _check_flag(requires_grad, "requires_grad")
    return out


_TENSOR_REBUILDS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
                    _rebuild_parameter_with_state, _rebuild_meta_tensor_no_storage)
_TENSOR_SLOTS = frozenset(Tensor.__slots__)


def set_object_state(obj, state):
    """Restore user attributes pickled with a tensor (ember's own fields are refused)."""
    if state is None:
        return obj
    if isinstance(state, tuple) and len(state) == 2:
        first, slots = state
        set_object_state(obj, first)
        return set_object_state(obj, slots)
    if not isinstance(state, dict):
        raise RuntimeError(f"invalid object state in checkpoint: {type(state).__name__}")
    for key, value in state.items():
        if type(key) is not str or key in _TENSOR_SLOTS or key.startswith("__"):
            raise RuntimeError(f"refusing to restore attribute {key!r} from a checkpoint")
        if not hasattr(obj, "__dict__"):
            warnings.warn(f"dropping attribute {key!r} saved on a tensor: ember's plain "
                          "tensors carry no user attributes", UserWarning, stacklevel=2)
            continue
        setattr(obj, key, value)
    return obj


# ---------------------------------------------------------------- load-side tables
_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16",
                  "long": "int64", "int": "int32", "short": "int16"}

TORCH_GLOBALS = {
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._utils._rebuild_device_tensor_from_cpu_tensor":
        _rebuild_device_tensor_from_cpu_tensor,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.Tensor": Tensor,
    "torch.Size": Size,
    "torch.device": device,
    "torch.storage.UntypedStorage": StorageType(_dtype.uint8, "UntypedStorage"),
    "torch.UntypedStorage": StorageType(_dtype.uint8, "UntypedStorage"),
}
TORCH_GLOBALS.update({f"torch.{d.name}": d for d in _dtype.ALL})
TORCH_GLOBALS.update({f"torch.{alias}": _dtype._BY_NAME[name]
                      for alias, name in _DTYPE_ALIASES.items()})
TORCH_GLOBALS.update({f"torch.{name}": StorageType(d, name) for d, name in _STORAGE_NAMES.items()})

_UNSUPPORTED_TORCH = ("Complex", "QInt", "QUInt", "complex", "cfloat", "cdouble", "chalf",
                      "float8", "qint", "quint", "bits")

_MODULE_RENAMES = {"torch.tensor": "torch._tensor"}  # as torch.load maps it


def torch_global(module, name):
    """The ember object for a torch global name, None if it is not a torch name ember knows.

    A torch storage or dtype ember has no equivalent for (complex, quantized...)
    raises a clear RuntimeError rather than an unpickling error about globals.
    """
    module = _MODULE_RENAMES.get(module, module)
    found = TORCH_GLOBALS.get(f"{module}.{name}")
    if found is None and module == "torch" and name.startswith(_UNSUPPORTED_TORCH):
        raise RuntimeError(f"ember cannot load torch.{name}: ember has no such dtype "
                           "(supported: bool, uint8, int8, int16, int32, int64, float16, "
                           "bfloat16, float32, float64, uint16, uint32, uint64)")
    return found


def _safe_encode(obj, encoding="utf-8", errors="strict"):
    """`_codecs.encode` as protocol-2 pickles use it for bytes: text codecs only."""
    if type(obj) is not str or encoding not in ("latin1", "latin-1", "utf-8", "utf8", "ascii"):
        raise RuntimeError(f"refusing _codecs.encode({type(obj).__name__}, {encoding!r}) "
                           "in a weights-only load")
    return obj.encode(encoding, errors)


def _safe_bytearray(*args):
    """`bytearray` from bytes or text only (never `bytearray(huge_int)`)."""
    if args and not isinstance(args[0], (bytes, str)):
        raise RuntimeError("refusing bytearray() of a non-bytes value in a weights-only load")
    return bytearray(*args)


def _safe_size(values=()):
    """`torch.Size(...)` of ints only (no arbitrary objects hidden in a shape)."""
    return Size(_int_tuple(values, "size"))


def _ember_dtype(name):
    return _dtype._BY_NAME[name]


# Besides torch's names: the containers and builtins a state dict needs, and ember's
# own dtype/device/Size names (as plain pickles of them record).
WEIGHTS_ONLY_GLOBALS = {
    "collections.OrderedDict": OrderedDict,
    "collections.Counter": Counter,
    "builtins.set": set,
    "builtins.bytearray": _safe_bytearray,
    "builtins.complex": complex,
    "_codecs.encode": _safe_encode,
    "ember._dtype._by_name": _ember_dtype,
    "ember._device.device": device,
    "ember._size.Size": _safe_size,
    "torch.Size": _safe_size,
}
