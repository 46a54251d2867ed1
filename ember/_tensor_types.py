"""The legacy tensor types: ember.FloatTensor, ember.LongTensor, ... and ember.typename.

Old scripts build tensors with `torch.LongTensor([1, 2])` or `torch.FloatTensor(3, 4)`
and test `isinstance(x, torch.FloatTensor)`. In PyTorch these are instances of
`torch.tensortype`, not subclasses of Tensor: `isinstance` asks the tensor's
dtype and device. That check needs `__instancecheck__`, which Python only looks
up on the metaclass, so here (and only here) ember uses one: `tensortype`.
The CUDA twins (`ember.cuda.FloatTensor`) exist for isinstance checks and
refuse construction without a GPU, as in PyTorch's CPU build.
"""
from . import _dtype
from ._size import Size
from ._tensor import Tensor
from ._typename import typename  # noqa: F401 - ember.typename
from .ops.creation import empty, tensor
from ._storage_legacy import is_storage, tensor_from_storage

__all__ = ["tensortype", "typename", "FloatTensor", "DoubleTensor", "HalfTensor",
           "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor",
           "BoolTensor"]

_SIGNATURES = (" * (*, ember.device device = None)\n{}"
               " * (ember.Storage storage)\n * (Tensor other)\n"
               " * (tuple of ints size, *, ember.device device = None)\n"
               " * (object data, *, ember.device device = None)\n")
_STORAGE_REFUSED = ("Expected a Storage of type {want} or an UntypedStorage, but got type {got} "
                    "for argument 1 'storage'")
# c10's names for the dtypes, as PyTorch's TensorOptions message prints them.
_C10_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "bool": "bool"}


class tensortype(type):
    """The type of the legacy tensor types: isinstance checks dtype and device type."""

    def __instancecheck__(cls, instance):
        return (isinstance(instance, Tensor) and instance.dtype is cls.dtype
                and instance.device.type == cls._device_type)

    def __call__(cls, *args, device=None, **kwargs):
        if cls._device_type == "cuda":
            raise TypeError(f"type {cls._type_name} not available. "
                            "Torch not compiled with CUDA enabled.")
        if kwargs:
            got = ", ".join([_arg_name(a) for a in args]
                            + [f"{k}={_qualified(v)}" for k, v in kwargs.items()])
            note = ("      didn't match because some of the keywords were incorrect: "
                    f"{', '.join(kwargs)}\n")
            raise TypeError(f"new() received an invalid combination of arguments - got ({got}), "
                            f"but expected one of:\n{_SIGNATURES.format(note)}")
        if device is not None and str(device).split(":")[0] != "cpu":
            raise RuntimeError("legacy constructor expects device type: cpu but device type: "
                               f"{str(device).split(':')[0]} was passed")
        return _construct(cls.dtype, args)

    def __repr__(cls):
        return f"<class '{cls._type_name}'>"


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _qualified(value):
    """A keyword argument's type as PyTorch names it: 'ember.dtype', 'int'."""
    kind = type(value)
    module = kind.__module__.split(".")[0]
    return kind.__name__ if module == "builtins" else f"{module}.{kind.__name__}"


def _arg_name(value):
    """A positional argument as PyTorch's parser describes it: 'list of [int]'."""
    if isinstance(value, (list, tuple)):
        inner = dict.fromkeys(type(v).__name__ for v in value)
        return f"{type(value).__name__} of [{', '.join(inner)}]"
    return type(value).__name__


def _options(dtype):
    return (f"TensorOptions(dtype={_C10_NAMES[dtype.name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _construct(dtype, args):
    """PyTorch's legacy `new`: sizes, a Size, a same-dtype tensor (aliased), or data."""
    if not args:
        return empty((0,), dtype=dtype)
    if all(_is_int(a) for a in args):
        return empty(args, dtype=dtype)
    if len(args) == 1:
        (data,) = args
        if isinstance(data, Size):
            return empty(tuple(data), dtype=dtype)
        if isinstance(data, Tensor):
            if data.dtype is not dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(data.dtype)})")
            return data.detach()
        if isinstance(data, str):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if is_storage(data):
            return tensor_from_storage(data, dtype, _STORAGE_REFUSED)
        if not hasattr(data, "__len__") and not hasattr(data, "__array__"):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return tensor(data, dtype=dtype)
    got = ", ".join(type(a).__name__ for a in args)
    marked = ", ".join(f"!{_arg_name(a)}!" for a in args)
    note = f"      didn't match because some of the arguments have invalid types: ({marked})\n"
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n{_SIGNATURES.format(note)}")


def _make(name, dtype, device_type):
    prefix = "ember." if device_type == "cpu" else "ember.cuda."
    return tensortype(name, (), {"dtype": dtype, "is_cuda": device_type == "cuda",
                                 "is_sparse": False, "_device_type": device_type,
                                 "_type_name": prefix + name, "__module__": prefix[:-1]})


_LEGACY = {"FloatTensor": _dtype.float32, "DoubleTensor": _dtype.float64,
           "HalfTensor": _dtype.float16, "BFloat16Tensor": _dtype.bfloat16,
           "ByteTensor": _dtype.uint8, "CharTensor": _dtype.int8, "ShortTensor": _dtype.int16,
           "IntTensor": _dtype.int32, "LongTensor": _dtype.int64, "BoolTensor": _dtype.bool}
FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor, CharTensor, ShortTensor, \
    IntTensor, LongTensor, BoolTensor = (_make(n, d, "cpu") for n, d in _LEGACY.items())
CUDA_TYPES = {n: _make(n, d, "cuda") for n, d in _LEGACY.items()}

