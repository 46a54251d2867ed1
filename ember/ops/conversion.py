"""Conversions: dtype and device moves (`to`, `type`, `.float()`...), clone, copy_, copies.

Also the Python copy protocols: `copy.deepcopy` (leaves only, keeping grad and
shared storage between views) and pickling (through a module-level rebuild
function, so any process with ember can unpickle).
"""
import copy as _copy

from .. import _dtype, _errors, _memory_format as _mf
from .._backend import address as _address, numpy as _np
from .._meta import NO_DATA as _META_NO_DATA, to_meta as _to_meta
from .._device import CPU as _CPU, device as _device_type, resolve as _resolve_device
from ..autograd.graph import Node
from ._cast import cast as _cast, steps_before as _steps_before
from .creation import empty_preserving
from ._common import (Tensor, attach, check_no_overlap, check_no_partial_overlap, grad_state,
                      inplace, make_tensor, make_view, sum_to_shape)

__all__ = []

_TO_SIGNATURES = (
    "but expected one of:\n"
    " * (ember.device device = None, ember.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, ember.memory_format memory_format = None)\n"
    " * (ember.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "ember.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "ember.memory_format memory_format = None)\n")


def _to_error(args, kwargs):
    parts = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    got = ", ".join(parts) + (", " if kwargs and not args else "")
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), "
                     + _TO_SIGNATURES)


def _type_name(value):
    if isinstance(value, _dtype.dtype):
        return "ember.dtype"
    if isinstance(value, _device_type):
        return "ember.device"
    return value.__class__.__name__


_NUMBER_AS_OTHER = {bool: _dtype.bool, float: _dtype.float64}


def _parse_to(args, kwargs):
    """(dtype, device, copy) from any of PyTorch's three `to` overloads."""
    unknown = set(kwargs) - {"dtype", "device", "non_blocking", "copy", "memory_format"}
    fmt = kwargs.get("memory_format")
    if unknown or fmt is not None and fmt.__class__ is not _mf.memory_format:
        raise _to_error(args, kwargs)
    dtype, device = _dtype.as_dtype(kwargs.get("dtype")), kwargs.get("device")
    flags = []
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        dtype, device = rest[0].dtype, rest[0].device
        rest.pop(0)
    elif rest and rest[0].__class__ in _NUMBER_AS_OTHER:
        # PyTorch's parser lets a Python number fill to(Tensor other): x.to(True) is bool
        # (a float a double, a complex a complex128), on the CPU, as a wrapped number is
        dtype, device = _NUMBER_AS_OTHER[rest.pop(0).__class__], "cpu"
    else:
        if rest and (isinstance(rest[0], (str, _device_type))
                     or isinstance(rest[0], int) and not isinstance(rest[0], bool)):
            device = rest.pop(0)
        if rest and isinstance(_dtype.as_dtype(rest[0]), _dtype.dtype):
            dtype = _dtype.as_dtype(rest.pop(0))
        elif rest and rest[0] is None:
            rest.pop(0)
    for value in rest:
        if not isinstance(value, bool):
            raise _to_error(args, kwargs)
        flags.append(value)
    if len(flags) > 2:
        raise _to_error(args, kwargs)
    copy = kwargs.get("copy", flags[1] if len(flags) == 2 else False)
    return dtype, device, copy


def to(self, *args, **kwargs):
    """This tensor with another dtype, device and/or memory format; `self` itself when
    nothing changes (a format only changes something when the strides do not already
    look like it, as PyTorch's suggest_memory_format judges)."""
    dtype, device, copy = _parse_to(args, kwargs)
    fmt = kwargs.get("memory_format") if kwargs else None
    target_device = self._device if device is None else _resolve_device(device)
    target_dtype = self.dtype if dtype is None else dtype
    if target_device is self._device and target_dtype is self.dtype and not copy and (
            fmt is None or fmt is _mf.preserve_format
            or _mf.suggest(self._data.shape, self.stride()) is fmt):
        return self
    data = self._data
    if target_device is not self._device:
        data = _move(data, self._device, target_device)
    data = _cast(data, target_dtype.np_dtype, copy=data is self._data)
    if fmt is not None and fmt is not _mf.preserve_format:
        data = _laid_out(data, fmt, target_device.xp)
    out = make_tensor(data, target_device)
    if (grad_state.enabled and self._requires_grad
            and target_dtype.category == _dtype.FLOATING):
        node = ToCopyBackward0()
        node.dtype = self.dtype
        node.device = self._device
        attach(out, node, self)
    return out


def converted(self, dtype, memory_format, name):
    """`.float()`, `.long()`...: a cast, also to a memory format when one is named."""
    if memory_format is None:
        return to(self, dtype)
    _mf.check(memory_format, name)
    return to(self, dtype, memory_format=memory_format)


def _laid_out(data, fmt, xp):
    """`data`'s values in an array laid out as `fmt` (contiguous or channels-last)."""
    if fmt is _mf.contiguous_format:
        return data.copy(order="C")
    _mf.check_rank(data.ndim, fmt)
    array = _mf.empty(xp, data.shape, data.dtype, fmt)
    array[...] = data
    return array


def _move(data, source, target):
    """Copy an array between devices (NumPy <-> CuPy, or between GPUs; to the meta device
    only the shape and dtype go, and nothing comes back from it)."""
    if target.type == "meta":
        return _to_meta(data)
    if source.type == "meta":
        raise NotImplementedError(_META_NO_DATA)
    if target.type == "cpu":
        return data.get()
    with target.xp.cuda.Device(target.index or 0):
        return target.xp.asarray(data)


class ToCopyBackward0(Node):
    __slots__ = ("dtype", "device")

    def backward(self, grad):
        return (to(grad, self.device, self.dtype),)


_TYPE_NAMES = {d.tensor_type: d for d in _dtype.ALL}


def type(self, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the type name ('ember.FloatTensor'); otherwise a cast."""
    if dtype is None:
        dtype = kwargs.pop("dtype", None)
        if dtype is None:
            prefix = "ember." if self._device.type == "cpu" else f"ember.{self._device.type}."
            return prefix + self.dtype.tensor_type
    dtype = getattr(dtype, "_type_name", dtype)   # a legacy type: ember.FloatTensor
    if isinstance(dtype, str):
        return _type_from_name(self, dtype)
    return to(self, dtype)


def _type_from_name(self, name):
    """'ember.FloatTensor' (or 'torch.FloatTensor', 'ember.cuda.DoubleTensor') to a cast."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] not in ("ember", "torch") or parts[-1] not in _TYPE_NAMES \
            or len(parts) > 3 or len(parts) == 3 and parts[1] != "cuda":
        raise ValueError(f"invalid type: '{name}'")
    device = "cuda" if len(parts) == 3 else "cpu"
    if self._device.type == device:
        return to(self, _TYPE_NAMES[parts[-1]])
    return to(self, device, _TYPE_NAMES[parts[-1]])


def clone(self, *, memory_format=None):
    """A copy with fresh memory, recorded as CloneBackward0.

    Like PyTorch's preserve_format (the default), a dense tensor keeps its strides;
    a named format lays the copy out in that order.
    """
    data = self._data
    if memory_format is None or memory_format is _mf.preserve_format:
        if data.flags.c_contiguous and data.size:
            copied = data.copy(order="C")
        else:
            copied = empty_preserving(data, data.dtype, self._device.xp)
            copied[...] = data
    else:
        _mf.check(memory_format, "clone")
        copied = _laid_out(data, memory_format, self._device.xp)
    return _copy_of(self, copied)


def _copy_of(self, copied):
    out = make_tensor(copied, self._device)
    if grad_state.enabled and self._requires_grad:
        attach(out, CloneBackward0(), self)
    return out


class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def contiguous(self, memory_format=None):
    """`self` if already dense in `memory_format`'s order, otherwise a copy laid out so
    (CloneBackward0): channels-last gives a view over an N,H,W,C-ordered block."""
    if memory_format is None or memory_format is _mf.contiguous_format:
        if self.is_contiguous():
            return self
        return _copy_of(self, self._data.copy(order="C"))
    _mf.check(memory_format, "contiguous")
    if memory_format is _mf.preserve_format:
        if self.is_contiguous():
            return self
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if _mf.is_contiguous(self._data.shape, self.stride(), memory_format):
        return self
    return _copy_of(self, _laid_out(self._data, memory_format, self._device.xp))


def is_contiguous_as(self, memory_format):
    """`is_contiguous(memory_format=...)`: preserve and contiguous ask the plain question."""
    _mf.check(memory_format, "is_contiguous")
    if memory_format is _mf.channels_last or memory_format is _mf.channels_last_3d:
        return _mf.is_contiguous(self._data.shape, self.stride(), memory_format)
    return self.is_contiguous()


# ================================================================ copy_
def copy_(self, src, non_blocking=False):
    """Copy `src`'s values into `self` (broadcast, cast to self's dtype), in place.

    Without grad this is one validated `copyto` and a version bump; with grad it
    goes through `_common.inplace` and records CopyBackwards.
    """
    if not isinstance(src, Tensor):
        # PyTorch's parser takes a number here, NumPy's scalars included (argcheck10)
        if isinstance(src, (bool, int, float)) or isinstance(src, _np.generic) and \
                src.dtype.kind in "biuf":
            src = make_tensor(self._device.xp.asarray(src), self._device)
        else:
            kind = src.__class__
            name = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__name__}"
            raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {name}")
    if grad_state.enabled and (self._requires_grad or src._requires_grad):
        return inplace(self, _copied, src)
    check_no_overlap(self._data)
    check_no_partial_overlap(self, (src,))
    values = src._data
    if values.shape != self._data.shape or src._device is not self._device:
        values = _broadcast_source(self, src)
    self._device.xp.copyto(self._data, _steps_before(values, self._data.dtype), casting="unsafe")
    self._storage.version += 1
    return self


def _broadcast_source(self, src):
    """src's array on self's device, broadcast to self's shape (PyTorch's errors if not)."""
    shape, source_shape = self._data.shape, src._data.shape
    message = _errors.broadcast_mismatch(shape, source_shape)
    if message:
        raise RuntimeError(message)
    if len(source_shape) > len(shape) or _np.broadcast_shapes(shape, source_shape) != shape:
        raise RuntimeError(_errors.inplace_broadcast(shape, _np.broadcast_shapes(shape,
                                                                                 source_shape)))
    data = src._data
    if src._device is not self._device:
        data = _move(data, src._device, self._device)
    return self._device.xp.broadcast_to(data, shape)


def _copied(self, src):
    """The values copy_ writes (self's dtype and shape), recorded as CopyBackwards."""
    values = _cast(_broadcast_source(self, src), self._data.dtype)
    out = make_tensor(values, self._device)
    if self.is_floating_point():
        node = CopyBackwards()
        node.source = (src._data.shape, src.dtype, src._device)
        node.shape = self._data.shape
        attach(out, node, self, src)
    return out


class CopyBackwards(Node):
    """self's old values are overwritten (zero gradient); src gets grad, un-broadcast."""
    _namespace = "ember::autograd::"

    __slots__ = ("source", "shape")

    def backward(self, grad):
        grad_self = grad_src = None
        if self.needs_input_grad(0):
            grad_self = grad.new_zeros(self.shape)
        if self.needs_input_grad(1):
            shape, dtype, device = self.source
            grad_src = sum_to_shape(to(grad, device, dtype), shape)
        return grad_self, grad_src


# ================================================================ copy protocols
_DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
    "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")


def deepcopy(self, memo):
    """A leaf's deep copy: fresh memory, shared again by views copied together; grad too."""
    if self.grad_fn is not None:
        raise RuntimeError(_DEEPCOPY_NON_LEAF)
    found = memo.get(id(self))
    if found is not None:
        return found
    if self._base is not None and _shares_root(self):
        base = _deepcopy(self._base, memo)
        out = make_view(_rebase(self._data, self._storage.root, base._storage.root), base)
    else:
        new_root, data = _copy_storage(self, memo)
        out = make_tensor(data, self._device)
        out._storage = memo[("ember.storage", id(self._storage))][1]
    out._requires_grad = self._requires_grad
    if self.__class__ is not Tensor:
        out.__class__ = self.__class__
    memo[id(self)] = out
    if self._grad is not None:
        out._grad = _deepcopy(self._grad, memo)
    return out


def _deepcopy(tensor, memo):
    return _copy.deepcopy(tensor, memo)


def _shares_root(self):
    """Whether self's array can be re-based onto a copy of its storage's root buffer."""
    root = self._storage.root
    return self._device.type == "cpu" and root.flags.c_contiguous and self._data.size > 0


def _copy_storage(self, memo):
    """(new root, self's data on it); the new storage is memoised for self's views."""
    key = ("ember.storage", id(self._storage))
    entry = memo.get(key)
    if entry is None:
        if _shares_root(self):
            new_root = self._storage.root.copy()
            data = _rebase(self._data, self._storage.root, new_root)
        else:
            new_root = data = self._data.copy(order="K")
        storage = make_tensor(new_root, self._device)._storage
        memo[key] = entry = (new_root, storage)
        memo.setdefault(("ember.keep", id(self._storage)), self._storage)
        return new_root, data
    new_root = entry[0]
    return new_root, _rebase(self._data, self._storage.root, new_root)


def _rebase(data, old_root, new_root):
    """`data`'s view of `old_root` (offset, strides) applied to `new_root`."""
    if data is old_root:
        return new_root
    offset = _address(data) - _address(old_root)
    return _np.ndarray(data.shape, dtype=data.dtype, buffer=new_root, offset=offset,
                       strides=data.strides)


def reduce_ex(self, protocol):
    """Pickle through module-level rebuild functions, so any process with ember can load it.

    A view pickles its base (once, through pickle's memo) plus where it sits in the
    base's memory, so views pickled together share memory again after loading.
    Non-leaves pickle as their values, as in PyTorch.
    """
    args = (self._data.shape, self._requires_grad, self.__class__)
    if self._base is not None and _shares_root(self) and _shares_root(self._base):
        root = self._storage.root
        offset = _address(self._data) - _address(root)
        return (_rebuild_view, (self._base.detach() if self._base.grad_fn is not None
                                else self._base, offset, self._data.strides) + args)
    data = self._data if self._device.type == "cpu" else self._data.get()
    if self._base is None and _shares_root(self):
        root = self._storage.root
        offset = _address(data) - _address(root)
        return (_rebuild_tensor, (root, offset, data.strides) + args + (str(self._device),))
    return (_rebuild_tensor, (_np.ascontiguousarray(data), 0, None) + args
            + (str(self._device),))


def _rebuild_tensor(root, offset, strides, shape, requires_grad, cls=Tensor, device="cpu"):
    """Unpickling a tensor that owns its memory."""
    data = root if strides is None else _np.ndarray(shape, dtype=root.dtype, buffer=root,
                                                     offset=offset, strides=strides)
    dev = _resolve_device(device)
    if dev is _CPU:
        out = make_tensor(data, dev)
        out._storage.root = root
    else:
        out = make_tensor(dev.xp.asarray(data), dev)
    return _finish_rebuild(out, requires_grad, cls)


def _rebuild_view(base, offset, strides, shape, requires_grad, cls=Tensor):
    """Unpickling a view: the same window onto its (already rebuilt) base's memory."""
    root = base._storage.root
    data = _np.ndarray(shape, dtype=root.dtype, buffer=root, offset=offset, strides=strides)
    return _finish_rebuild(make_view(data, base), requires_grad, cls)


def _finish_rebuild(out, requires_grad, cls):
    out._requires_grad = requires_grad
    if cls is not Tensor:
        out.__class__ = cls
    return out
