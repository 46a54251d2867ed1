"""Creation ops: tensor(), the legacy Tensor(...) constructor, factories, *_like, new_*.

Data inference lives in `_data.py`, ranges (arange, linspace, meshgrid...) in
`ranges.py`, the NumPy bridges (from_numpy, as_tensor, asarray) in `interop.py`;
all are exported from here.
"""
import builtins
import warnings

from .. import _dtype, _errors, _memory_format as _mf
from .._backend import allocate as _allocate, allocating as _allocating
from .._backend import generic as _np_generic, ndarray as _np_ndarray, numpy as _np
from .._device import CPU as _CPU, resolve as _resolve_device
from .._storage import TypedStorage, UntypedStorage
from .._storage_legacy import tensor_from_storage
from ._common import Tensor, make_tensor, scalar_to, scalar_value
from ._data import (_NUMBER, _float_or, _infer_array, _is_sequence, check_out, finish,
                    to_device)
from .interop import as_tensor, asarray, from_numpy  # noqa: F401 - exported from here
from .ranges import *  # noqa: F401,F403
from .ranges import __all__ as _ranges_all

_as_dtype = _dtype.as_dtype

__all__ = ["tensor", "zeros", "ones", "empty", "full", "eye", "scalar_tensor", "empty_strided",
           "zeros_like", "ones_like", "empty_like", "full_like", "as_tensor", "asarray",
           "from_numpy"] + _ranges_all

_defaults = _dtype._defaults
_FLOATING = _dtype.FLOATING
_INT64 = _dtype.int64
_INF = float("inf")
_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor).")


def size_arg(args, name, size=None):
    """A shape from `f(2, 3)`, `f((2, 3))`, `f([2, 3])`, `f(Size)` or `f(size=...)`."""
    if size is not None:
        args = (size,)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
        single = False
    else:
        single = len(args) == 1
    shape = []
    for i, s in enumerate(args):
        if s.__class__ is not int:
            if s.__class__ is bool and i == 0 or not hasattr(s, "__index__") or isinstance(s, float):
                if single:
                    raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of "
                                    f"ints, not {type(s).__name__}")
                raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                                f"{i + 1} with error \"type must be tuple of ints,but got "
                                f"{type(s).__name__}\"")
            s = s.__index__()
        shape.append(s)
    for s in shape:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{_errors.shape_list(shape)}")
    return tuple(shape)


# ================================================================ tensor()
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (lists, scalars, arrays, tensors)."""
    dtype = _as_dtype(dtype)
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("ember.tensor"), UserWarning, stacklevel=2)
        dev = data._device if device is None else _resolve_device(device)
        return _copy_tensor(data, dtype, dev, requires_grad)
    dev = _resolve_device(device)
    if data.__class__ is TypedStorage:  # PyTorch wraps the storage's memory, uncopied
        return tensor_from_storage(data, _float_or(dtype), _STORAGE_REFUSED)
    return finish(to_device(_infer_array(data, dtype), dev), dev, requires_grad,
                  keep_strides=isinstance(data, _np_ndarray))


_STORAGE_REFUSED = "Expected a Storage of type {want} or an UntypedStorage, but got {got}"
_LEGACY_STORAGE_REFUSED = ("Expected a Storage of type {want} or an UntypedStorage, but got type "
                           "{got} for argument 1 'storage'")
_STORAGES = (TypedStorage, UntypedStorage)


def _copy_tensor(data, dtype, dev, requires_grad):
    array = data._data
    if data._device is not _CPU:
        array = array.get()  # a meta array stays one, and raises if it must become data
    array = array.astype(array.dtype if dtype is None else dtype.np_dtype, copy=True)
    return finish(to_device(array, dev), dev, requires_grad)

# ================================================================ the legacy constructor
def legacy_constructor(cls, *args, device=None, **kwargs):
    """`ember.Tensor(...)`: float32 data, an uninitialised tensor of a size, or an alias."""
    if kwargs:
        raise TypeError(_legacy_signature_error(args, kwargs))
    dev = _resolve_device(device)
    if len(args) == 1 and isinstance(args[0], _STORAGES):
        out = tensor_from_storage(args[0], _dtype.float32, _LEGACY_STORAGE_REFUSED)
        if cls is not Tensor:
            out.__class__ = cls
        return out
    if not args:
        array = dev.xp.empty((0,), dtype=_dtype.float32.np_dtype)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        out = args[0]._alias()
    elif len(args) == 1 and type(args[0]).__name__ == "Size" or _all_ints(args):
        shape = size_arg(args, "new")
        array = dev.xp.empty(shape, dtype=_dtype.float32.np_dtype)
    elif len(args) == 1:
        data = args[0]
        if not _is_sequence(data):
            module = type(data).__module__
            name = type(data).__name__
            name = name if module == "builtins" else f"{module}.{name}"
            raise TypeError(f"new(): data must be a sequence (got {name})")
        array = to_device(_infer_array(data, _dtype.float32), dev)
    else:
        bad = next(i for i, a in enumerate(args) if not _is_int(a))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {bad + 1} "
                        f"with error \"type must be tuple of ints,but got "
                        f"{type(args[bad]).__name__}\"")
    if len(args) != 1 or not isinstance(args[0], Tensor):
        out = make_tensor(array, dev)
    if cls is not Tensor:
        out.__class__ = cls
    return out


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool) or isinstance(x, _np.integer)


def _all_ints(args):
    return all(_is_int(a) for a in args)


def _legacy_signature_error(args, kwargs):
    got = ", ".join([type(a).__name__ for a in args]
                    + [f"{k}={type(v).__module__.split('.')[0]}.{type(v).__name__}"
                       for k, v in kwargs.items()])
    return (f"new() received an invalid combination of arguments - got ({got}), but expected "
            "one of:\n * (*, ember.device device = None)\n * (ember.Storage storage)\n"
            " * (Tensor other)\n * (tuple of ints size, *, ember.device device = None)\n"
            " * (object data, *, ember.device device = None)\n")


# ================================================================ factories
def zeros(*args, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    """A tensor of zeros (default float dtype)."""
    check_out(out, "zeros")
    shape = size_arg(args, "zeros", size)
    dev = _resolve_device(device)
    return finish(_allocate(dev.xp.zeros, shape, _float_or(dtype).np_dtype), dev, requires_grad)


def ones(*args, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    """A tensor of ones (default float dtype)."""
    check_out(out, "ones")
    shape = size_arg(args, "ones", size)
    dev = _resolve_device(device)
    return finish(_allocate(dev.xp.ones, shape, _float_or(dtype).np_dtype), dev, requires_grad)


def empty(*args, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False, memory_format=None):
    """An uninitialised tensor (its values are whatever the memory held)."""
    check_out(out, "empty")
    shape = size_arg(args, "empty", size)
    dev = _resolve_device(device)
    if memory_format is not None and memory_format is not _mf.contiguous_format:
        return finish(_formatted(shape, _float_or(dtype).np_dtype, dev, memory_format), dev,
                      requires_grad, keep_strides=True)
    return finish(_allocate(dev.xp.empty, shape, _float_or(dtype).np_dtype), dev, requires_grad)


def _formatted(shape, np_dtype, dev, memory_format):
    """An empty array in a named channels-last format (PyTorch refuses preserve here)."""
    _mf.check(memory_format, "empty")
    if memory_format is _mf.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    _mf.check_rank(len(shape), memory_format)
    return _mf.empty(dev.xp, shape, np_dtype, memory_format)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    """A tensor filled with `fill_value`; the dtype follows the value's kind, as in PyTorch."""
    check_out(out, "full")
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    shape = size_arg((size,), "full")
    dev = _resolve_device(device)
    value = fill_number(fill_value, "full")
    dtype = _as_dtype(dtype) or _fill_dtype(value)
    return finish(_allocate(dev.xp.full, shape, dtype.np_dtype, fill_scalar(value, dtype)), dev,
                  requires_grad)


def fill_number(value, name, argument="fill_value", position=2):
    """A Python number from a Python/NumPy scalar or a 0-dim tensor; PyTorch's parser takes
    no tensor that requires grad as a Number (its gradient would be lost)."""
    if isinstance(value, (_NUMBER, _np_generic)):
        return scalar_value(value)
    if isinstance(value, Tensor) and value._data.ndim == 0 and not value._requires_grad:
        return value.item()     # PyTorch's parser: a 0-dim tensor that needs no grad
    raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Number, "
                    f"not {type(value).__name__}")


def _fill_dtype(value):
    if isinstance(value, bool):
        return _dtype.bool
    if isinstance(value, int):
        return _INT64
    return _defaults.float_dtype




_C_TYPE_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
                 "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "float32": "float", "float64": "double"}  # random.py's messages use these


def fill_scalar(value, dtype):
    """`value` as a NumPy scalar of `dtype`, with PyTorch's overflow check."""
    return scalar_to(value, dtype)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
        requires_grad=False):
    """The n x m identity matrix."""
    check_out(out, "eye")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    elif m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dev = _resolve_device(device)
    dtype = _float_or(dtype)
    if dtype in _dtype.LIMITED_UNSIGNED:
        raise NotImplementedError(_errors.not_implemented_for("eye", dtype))
    np_dtype = dtype.np_dtype
    with _allocating((n, m), np_dtype):
        array = dev.xp.eye(n, m, dtype=np_dtype)
    return finish(array, dev, requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """A 0-dim tensor of the default float dtype (whatever the kind of `s`)."""
    value = fill_number(s, "scalar_tensor", "s", 1)
    dev = _resolve_device(device)
    dtype = _float_or(dtype)
    return finish(to_device(_np.asarray(fill_scalar(value, dtype)), dev), dev, requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """An uninitialised tensor with the given strides over a buffer just big enough."""
    shape = size_arg((size,), "empty_strided")
    stride = tuple(stride)
    if len(shape) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    dev = _resolve_device(device)
    np_dtype = _float_or(dtype).np_dtype
    extent = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    buffer = _allocate(dev.xp.empty, (extent,), np_dtype)
    itemsize = buffer.itemsize
    data = dev.xp.lib.stride_tricks.as_strided(buffer, shape, [s * itemsize for s in stride])
    out = finish(data, dev, requires_grad, keep_strides=True)
    out._storage.root = buffer
    return out


# ================================================================ *_like and new_*
def _wants_contiguous(memory_format):
    return memory_format is _mf.contiguous_format


def empty_preserving(data, np_dtype, xp):
    """An uninitialised array shaped like `data`, its dims laid out in data's stride order.

    PyTorch's preserve_format: a dense tensor's strides are kept exactly (a transposed
    input gives a transposed output); others get dense strides in the same order.
    """
    if data.size == 0:  # every empty tensor is dense: its strides are kept exactly
        itemsize = xp.dtype(np_dtype).itemsize
        return xp.lib.stride_tricks.as_strided(
            xp.empty(0, dtype=np_dtype), data.shape,
            [s // data.itemsize * itemsize for s in data.strides])
    # NumPy calls an array C-contiguous whatever its size-1 dims' strides, which PyTorch
    # keeps: only without size-1 dims is that flag the whole answer
    if data.flags.c_contiguous and 1 not in data.shape:
        return _allocate(xp.empty, data.shape, np_dtype)
    strides = data.strides
    if _dense(data.shape, strides, data.itemsize):     # kept exactly, size-1 dims too
        itemsize = xp.dtype(np_dtype).itemsize
        return xp.lib.stride_tricks.as_strided(
            _allocate(xp.empty, (data.size,), np_dtype), data.shape,
            [s // data.itemsize * itemsize for s in strides])
    order = _dense_dim_order(data.shape, strides)
    inverse = [order.index(d) for d in builtins.range(data.ndim)]
    return _allocate(xp.empty, [data.shape[d] for d in order], np_dtype).transpose(inverse)


def _dense(shape, strides, itemsize):
    """Whether the elements fill a block of memory exactly once (PyTorch's
    is_non_overlapping_and_dense), checked from the innermost stride out."""
    expected = itemsize
    for d in sorted((d for d in builtins.range(len(shape)) if shape[d] != 1),
                    key=lambda d: strides[d]):
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _dense_dim_order(shape, strides):
    """Dims from outermost to innermost for the dense copy of a strided (overlapping or
    gapped) tensor, by PyTorch's rule: start from the last dim innermost; move a dim
    inward past dims with a larger stride, or an equal stride and a larger size; a
    stride of 0 says nothing, so no dim is moved by comparing with it.
    """
    inner_first = builtins.list(builtins.range(len(strides) - 1, -1, -1))
    for i in builtins.range(1, len(strides)):
        moving = i
        for j in builtins.range(i - 1, -1, -1):
            a, b = inner_first[j], inner_first[moving]
            if strides[a] == 0 or strides[b] == 0:
                continue
            if strides[a] < strides[b]:
                break
            if strides[a] > strides[b] or shape[a] > shape[b]:
                inner_first[j], inner_first[moving] = b, a
                moving = j
    return inner_first[::-1]


def require_like_input(input, name):
    """PyTorch's argument-parser TypeError for a *_like call on something not a Tensor
    (until one argument checker serves every door)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _like(input, dtype, device, fill, requires_grad, memory_format=None):
    """A new tensor shaped like `input`, keeping its memory layout (preserve_format)."""
    dtype = _as_dtype(dtype) or input.dtype
    dev = input._device if device is None else _resolve_device(device)
    if memory_format is not None and memory_format is not _mf.preserve_format \
            and memory_format is not _mf.contiguous_format:
        _mf.check(memory_format, "empty_like")
        _mf.check_rank(input.ndim, memory_format)
        array = _mf.empty(dev.xp, input._data.shape, dtype.np_dtype, memory_format)
        if fill is not None and array.size:
            array[...] = fill_scalar(fill, dtype)
        return finish(array, dev, requires_grad, keep_strides=True)
    preserve = dev is input._device and not _wants_contiguous(memory_format)
    if preserve:
        array = empty_preserving(input._data, dtype.np_dtype, dev.xp)
    else:
        array = _allocate(dev.xp.empty, input._data.shape, dtype.np_dtype)
    if fill is not None and array.size:
        array[...] = fill_scalar(fill, dtype)
    return finish(array, dev, requires_grad, keep_strides=preserve)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    if input.__class__ is not Tensor:
        require_like_input(input, "zeros_like")
    return _like(input, dtype, device, 0, requires_grad, memory_format)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    if input.__class__ is not Tensor:
        require_like_input(input, "ones_like")
    return _like(input, dtype, device, 1, requires_grad, memory_format)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    if input.__class__ is not Tensor:
        require_like_input(input, "empty_like")
    return _like(input, dtype, device, None, requires_grad, memory_format)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Like `input`, filled with `fill_value` (cast to input's dtype unless `dtype` is given)."""
    if input.__class__ is not Tensor:
        require_like_input(input, "full_like")
    value = fill_number(fill_value, "full_like")
    return _like(input, dtype, device, value, requires_grad, memory_format)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """`tensor(data)` with this tensor's dtype and device as defaults."""
    dtype = _as_dtype(dtype) or self.dtype
    dev = self._device if device is None else _resolve_device(device)
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("tensor.new_tensor"), UserWarning, stacklevel=3)
        return _copy_tensor(data, dtype, dev, requires_grad)
    return finish(to_device(_infer_array(data, dtype), dev), dev, requires_grad,
                  keep_strides=isinstance(data, _np_ndarray))


def _new(self, size, dtype, device, requires_grad, name, fill):
    shape = size_arg(size, name)
    dtype = _as_dtype(dtype) or self.dtype
    dev = self._device if device is None else _resolve_device(device)
    xp = dev.xp
    if fill is None:
        array = _allocate(xp.empty, shape, dtype.np_dtype)
    else:
        array = _allocate(xp.full, shape, dtype.np_dtype, fill_scalar(fill, dtype))
    return finish(array, dev, requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _new(self, size, dtype, device, requires_grad, "new_zeros", 0)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _new(self, size, dtype, device, requires_grad, "new_ones", 1)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return _new(self, size, dtype, device, requires_grad, "new_empty", None)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    value = fill_number(fill_value, "new_full")
    return _new(self, (size,), dtype, device, requires_grad, "new_full", value)
