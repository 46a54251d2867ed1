"""Conversions: dtype and device moves (`to`, `type`, `.float()`...), clone, contiguous, copy_."""
from .. import _dtype
from .._device import device as _device_type, resolve as _resolve_device
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, make_tensor

__all__ = []


def _parse_to(self, args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, _dtype.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (str, _device_type, int)) and not isinstance(arg, bool):
            device = arg
        elif isinstance(arg, bool):
            copy = copy or False
        elif arg is None:
            continue
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(arg).__name__})")
    return dtype, device, copy


def to(self, *args, **kwargs):
    """This tensor with another dtype and/or device; `self` itself when nothing changes."""
    dtype, device, copy = _parse_to(self, args, dict(kwargs))
    target_device = self._device if device is None else _resolve_device(device)
    target_dtype = self.dtype if dtype is None else dtype
    if target_device is self._device and target_dtype is self.dtype and not copy:
        return self
    data = self._data
    if target_device is not self._device:
        data = _move(data, self._device, target_device)
    data = data.astype(target_dtype.np_dtype, copy=data is self._data)
    out = make_tensor(data, target_device)
    if grad_state.enabled and self._requires_grad and target_dtype.is_floating_point:
        node = ToCopyBackward0()
        node.dtype = self.dtype
        node.device = self._device
        attach(out, node, self)
    return out


def _move(data, source, target):
    if source.type == "cpu" and target.type == "cuda":
        with target.xp.cuda.Device(target.index or 0):
            return target.xp.asarray(data)
    if source.type == "cuda" and target.type == "cpu":
        return data.get()
    with target.xp.cuda.Device(target.index or 0):
        return target.xp.asarray(data)


class ToCopyBackward0(Node):
    __slots__ = ("dtype", "device")

    def backward(self, grad):
        return (to(grad, self.dtype, self.device),)


_TYPE_NAMES = {d.tensor_type: d for d in _dtype.ALL}


def type(self, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the type name ('ember.FloatTensor'); otherwise a cast."""
    if dtype is None:
        return "ember." + self.dtype.tensor_type
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        if name not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPE_NAMES[name]
    return to(self, dtype)


def clone(self, *, memory_format=None):
    """A copy with fresh memory, recorded as CloneBackward0."""
    out = make_tensor(self._data.copy(), self._device)
    if grad_state.enabled and self._requires_grad:
        attach(out, CloneBackward0(), self)
    return out


class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def contiguous(self):
    """`self` if already contiguous, otherwise a contiguous copy."""
    if self.is_contiguous():
        return self
    return clone(self)


def copy_(self, src):
    """Copy `src`'s values into `self` (broadcasting, casting), in place."""
    from ._common import inplace  # noqa: PLC0415
    return inplace(self, _copy_source, src)


def _copy_source(self, src):
    raise NotImplementedError("copy_")


def deepcopy(self, memo):
    raise NotImplementedError("deepcopy")


def reduce_ex(self, protocol):
    raise NotImplementedError("pickling")
