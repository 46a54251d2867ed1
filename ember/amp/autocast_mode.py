"""autocast: the mixed-precision region, its process-wide settings and their checks.

The settings themselves (per device type: enabled and fast dtype; the cast cache)
live in ops/_autocast.py, where the ops on PyTorch's autocast lists read them;
this module is the user-facing side: the `autocast` context manager and decorator,
the getters and setters `ember.*` exports (with PyTorch's argument errors and its
deprecation warnings for the per-device spellings), and `custom_fwd`/`custom_bwd`
for autograd Functions.
"""
import collections.abc
import functools
import warnings

from .. import _dtype
from .._device import device as _device
from .._tensor import Tensor
from ..cuda import _init as _cuda_init
from ..ops import _autocast

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd",
           "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
           "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "autocast_increment_nesting", "autocast_decrement_nesting", "clear_autocast_cache",
           "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
           "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
           "is_autocast_ipu_enabled", "set_autocast_ipu_enabled", "get_autocast_ipu_dtype",
           "set_autocast_ipu_dtype", "is_autocast_xla_enabled", "set_autocast_xla_enabled",
           "get_autocast_xla_dtype", "set_autocast_xla_dtype"]

_settings = _autocast.state
_SUPPORTED_FAST = (_dtype.float16, _dtype.bfloat16)


def _known_type(device_type, function):
    """The device type of a device string; PyTorch's errors for a non-str or unknown one."""
    if not isinstance(device_type, str):
        raise TypeError(f"{function}(): argument 'device_type' (position 1) must be str, "
                        f"not {type(device_type).__name__}")
    kind = _device(device_type).type
    if kind not in _settings.enabled:
        raise RuntimeError("unknown device type for autocast in "
                           "get_autocast_dispatch_key_from_device_type")
    return kind


def _require_bool(value, function, position):
    if not isinstance(value, bool):
        raise TypeError(f"{function}(): argument 'enabled' (position {position}) must be bool, "
                        f"not {type(value).__name__}")


def is_autocast_available(device_type):
    return _device(device_type).type in _autocast.DEVICE_TYPES


def is_autocast_enabled(device_type="cuda"):
    return _settings.enabled[_known_type(device_type, "is_autocast_enabled")]


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled('cpu', True); the one-argument form means CUDA (deprecated)."""
    if enabled is None:
        _require_bool(device_type, "set_autocast_enabled", 1)
        device_type, enabled = "cuda", device_type
    else:
        _require_bool(enabled, "set_autocast_enabled", 2)
    _settings.enabled[_known_type(device_type, "set_autocast_enabled")] = enabled
    _autocast.refresh()


def get_autocast_dtype(device_type):
    kind = _device(device_type).type
    if kind not in _settings.fast_dtype:
        raise RuntimeError("unsupported scalarType")
    return _settings.fast_dtype[kind]


def set_autocast_dtype(device_type, dtype):
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError("set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"ember.dtype, not {type(dtype).__name__}")
    _settings.fast_dtype[_known_type(device_type, "set_autocast_dtype")] = dtype


def is_autocast_cache_enabled():
    return _settings.cache_enabled


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _settings.cache_enabled = enabled


def autocast_increment_nesting():
    _settings.depth += 1
    return _settings.depth


def autocast_decrement_nesting():
    _settings.depth -= 1
    return _settings.depth


def clear_autocast_cache():
    _autocast.clear_cache()


# The per-device spellings PyTorch still accepts, each with its deprecation warning.
def _deprecated_spelling(old, new):
    warnings.warn(f"ember.{old} is deprecated. Please use ember.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _enabled_getter(kind):
    def getter():
        _deprecated_spelling(f"is_autocast_{kind}_enabled()", f"is_autocast_enabled('{kind}')")
        return _settings.enabled[kind]
    getter.__name__ = f"is_autocast_{kind}_enabled"
    return getter


def _enabled_setter(kind):
    def setter(enabled):
        if not isinstance(enabled, bool):
            raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
        _deprecated_spelling(f"set_autocast_{kind}_enabled(enabled)",
                             f"set_autocast_enabled('{kind}', enabled)")
        _settings.enabled[kind] = enabled
        _autocast.refresh()
    setter.__name__ = f"set_autocast_{kind}_enabled"
    return setter


def _dtype_getter(kind, label):
    def getter():
        _deprecated_spelling(f"get_autocast_{label}_dtype()", f"get_autocast_dtype('{kind}')")
        return _settings.fast_dtype[kind]
    getter.__name__ = f"get_autocast_{label}_dtype"
    return getter


def _dtype_setter(kind, label):
    def setter(dtype):
        if not isinstance(dtype, _dtype.dtype):
            raise TypeError(f"dtype must be a ember.dtype (got {type(dtype).__name__})")
        _deprecated_spelling(f"set_autocast_{label}_dtype(dtype)",
                             f"set_autocast_dtype('{kind}', dtype)")
        _settings.fast_dtype[kind] = dtype
    setter.__name__ = f"set_autocast_{label}_dtype"
    return setter


is_autocast_cpu_enabled, set_autocast_cpu_enabled = _enabled_getter("cpu"), _enabled_setter("cpu")
is_autocast_ipu_enabled, set_autocast_ipu_enabled = _enabled_getter("ipu"), _enabled_setter("ipu")
is_autocast_xla_enabled, set_autocast_xla_enabled = _enabled_getter("xla"), _enabled_setter("xla")
get_autocast_cpu_dtype, set_autocast_cpu_dtype = _dtype_getter("cpu", "cpu"), \
    _dtype_setter("cpu", "cpu")
get_autocast_gpu_dtype, set_autocast_gpu_dtype = _dtype_getter("cuda", "gpu"), \
    _dtype_setter("cuda", "gpu")
get_autocast_ipu_dtype, set_autocast_ipu_dtype = _dtype_getter("ipu", "ipu"), \
    _dtype_setter("ipu", "ipu")
get_autocast_xla_dtype, set_autocast_xla_dtype = _dtype_getter("xla", "xla"), \
    _dtype_setter("xla", "xla")


# ---------------------------------------------------------------- the region
def _usable(device_type, fast_dtype):
    """Whether a region asked for on device_type in fast_dtype can run; warns when not."""
    if device_type == "cuda":
        if _cuda_init.is_available():
            return True
        warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                      stacklevel=3)
        return False
    if fast_dtype in _SUPPORTED_FAST:
        return True
    label = device_type.upper()
    warnings.warn(f"In {label} autocast, but the target dtype is not supported. Disabling "
                  f"autocast.\n{label} Autocast only supports dtypes of ember.bfloat16, "
                  "ember.float16 currently.", stacklevel=3)
    return False


def autocast_decorator(autocast_instance, func):
    """func, run inside the given region each time it is called."""
    @functools.wraps(func)
    def run_in_region(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return run_in_region


class autocast:
    """A region in which the ops on PyTorch's autocast lists change precision.

    `with ember.autocast('cpu', dtype=ember.bfloat16):` runs matmul, linear,
    convolutions and their kin in bfloat16 and the losses and solvers in float32
    (ops/_autocast.py lists them); usable as a decorator too. Regions nest; the
    outermost one's exit empties the weight-cast cache.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = _settings.cache_enabled if cache_enabled is None \
            else cache_enabled
        self._enabled = enabled if not enabled or _usable(device_type, self.fast_dtype) \
            else False
        self._outer = None

    def __enter__(self):
        kind = self.device
        self._outer = (_settings.enabled[kind], _settings.fast_dtype[kind],
                       _settings.cache_enabled)
        _settings.enabled[kind] = bool(self._enabled)
        _settings.fast_dtype[kind] = self.fast_dtype
        _settings.cache_enabled = self._cache_enabled
        _settings.depth += 1
        _autocast.refresh()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _settings.depth -= 1
        if _settings.depth == 0:
            _autocast.clear_cache()
        kind = self.device
        _settings.enabled[kind], _settings.fast_dtype[kind], _settings.cache_enabled = \
            self._outer
        _autocast.refresh()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with ember.autocast(device_type=...):\n"
                "        output = model(input)")
        return autocast_decorator(self, func)


# ---------------------------------------------------------------- custom Functions
def _cast_floating(value, device_type, dtype):
    """Floating tensors (except float64) on device_type cast to dtype, through containers."""
    if isinstance(value, Tensor):
        if (value.is_floating_point() and value.device.type == device_type
                and value.dtype is not _dtype.float64):
            return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast_floating(k, device_type, dtype): _cast_floating(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floating(v, device_type, dtype) for v in value)
    if isinstance(value, collections.abc.Iterable) and not hasattr(value, "__array__"):
        return (_cast_floating(v, device_type, dtype) for v in value)
    return value


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom Function's forward.

    With cast_inputs, inside an enabled region the forward sees its floating inputs
    in that dtype and runs with autocast off; without it, the forward runs under
    the surrounding state. Either way the state is recorded on ctx for custom_bwd.
    """
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(ctx, *args, **kwargs):
        region_on = _settings.enabled[device_type]
        ctx._dtype = _settings.fast_dtype[device_type]
        ctx._fwd_used_autocast = region_on and cast_inputs is None
        if cast_inputs is None or not region_on:
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(ctx, *_cast_floating(args, device_type, cast_inputs),
                       **_cast_floating(kwargs, device_type, cast_inputs))
    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom Function's backward: run it under the forward's autocast state."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(ctx, *args, **kwargs):
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(ctx, *args, **kwargs)
    return backward
