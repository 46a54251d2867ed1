"""autocast: PyTorch's mixed-precision context, its state and its argument checks.

The state (enabled and fast dtype per device type, the cache flag, the nesting
depth) is kept here exactly as torch keeps it, so `ember.is_autocast_enabled('cpu')`
and `get_autocast_dtype` answer as torch's do inside and outside the block.
Not yet done: ember's ops do not consult this state, so inside an enabled block
they still compute in the inputs' dtype (PyTorch would run matmul, conv and
linear in the fast dtype). The op lists are a later step.
"""
import collections
import functools
import warnings

from .. import _dtype
from .._device import device as _device_type
from .._tensor import Tensor
from ..cuda import _init as _cuda_init

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd",
           "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
           "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "autocast_increment_nesting", "autocast_decrement_nesting", "clear_autocast_cache"]

# at::autocast::is_autocast_available: the device types with an autocast dispatch key.
_AUTOCAST_DEVICES = ("cpu", "cuda", "mtia", "maia", "xpu", "ipu", "hpu", "xla", "mps",
                     "privateuseone")
_enabled = dict.fromkeys(_AUTOCAST_DEVICES, False)
_fast_dtype = {name: _dtype.float16 for name in _AUTOCAST_DEVICES}
_fast_dtype["cpu"] = _fast_dtype["mtia"] = _fast_dtype["maia"] = _dtype.bfloat16
_fast_dtype["xla"] = _fast_dtype["hpu"] = _dtype.bfloat16
_state = {"cache_enabled": True, "nesting": 0}


def _device_name(device_type):
    """The device type string, checked as torch.device checks it."""
    return _device_type(device_type).type


def is_autocast_available(device_type):
    return _device_name(device_type) in _AUTOCAST_DEVICES


def is_autocast_enabled(device_type="cuda"):
    return _enabled.get(_device_name(device_type), False)


def set_autocast_enabled(device_type, enabled):
    _enabled[_device_name(device_type)] = bool(enabled)


def get_autocast_dtype(device_type):
    return _fast_dtype.get(_device_name(device_type), _dtype.float16)


def set_autocast_dtype(device_type, dtype):
    _fast_dtype[_device_name(device_type)] = dtype


def is_autocast_cache_enabled():
    return _state["cache_enabled"]


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state["cache_enabled"] = enabled


def autocast_increment_nesting():
    _state["nesting"] += 1
    return _state["nesting"]


def autocast_decrement_nesting():
    _state["nesting"] -= 1
    return _state["nesting"]


def clear_autocast_cache():
    """No casts are cached yet (ember's ops do not autocast), so nothing to clear."""


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """`with ember.autocast('cpu', dtype=ember.bfloat16):`: PyTorch's checks and state.

    See the module docstring: ember's ops do not yet run in the fast dtype.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{self.device}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        if enabled:
            if self.device == "cuda":
                if not _cuda_init.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. "
                                  "Disabling autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
                name = self.device.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              "ember.bfloat16, ember.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with ember.autocast(device_type=...):\n"
                "        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type, dtype):
    """Floating tensors (not float64) on `device_type` cast to `dtype`, through containers."""
    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype is not _dtype.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable) and not hasattr(value, "__array__"):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For a custom Function's forward: run it with the inputs cast, autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """For a custom Function's backward: run it under the forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
