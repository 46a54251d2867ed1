"""Process-wide settings PyTorch keeps in its global context: threads, determinism, precision.

Each setter checks its argument as PyTorch's binding does (same exception, same
text) before it changes anything. The intra-op thread count drives the BLAS
thread pool through threadpoolctl, imported lazily; without threadpoolctl the
number is recorded and reported back, and BLAS keeps its own count.
"""
import numbers
import os
import warnings

from . import _device

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads",
           "set_num_interop_threads", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "set_default_device",
           "get_default_device"]

_state = {"num_threads": None, "interop_threads": None, "interop_set": False,
          "deterministic": False, "warn_only": False, "matmul_precision": "highest",
          "default_device": None}
_blas_limits = []   # threadpoolctl's limiter, kept so that the limit holds


def _int_argument(function, value):
    """PyTorch's int check (THPUtils_checkLong): a Python or NumPy int, never a bool or a
    Tensor (which has __index__ but is refused by type name)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RuntimeError(f"{function} expects an int, but got {type(value).__name__}")
    value = value.__index__()
    if not -(1 << 63) <= value < 1 << 63:
        raise ValueError("Overflow when unpacking long long")
    if not -(1 << 31) <= value < 1 << 31:   # the binding's C int
        raise ValueError("Overflow when unpacking long")
    return value


def _default_threads():
    """What BLAS runs with now (threadpoolctl), else the CPUs this process may use."""
    try:
        import threadpoolctl  # noqa: PLC0415 - optional, imported where used
    except ImportError:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count()
    counts = [pool["num_threads"] for pool in threadpoolctl.threadpool_info()
              if pool.get("user_api") == "blas"]
    return max(counts) if counts else os.cpu_count()


def get_num_threads():
    """The number of threads for intra-op parallelism (BLAS)."""
    if _state["num_threads"] is None:
        _state["num_threads"] = _default_threads()
    return _state["num_threads"]


def set_num_threads(int):  # noqa: A002 - PyTorch's parameter name
    """Set the intra-op thread count; BLAS follows when threadpoolctl is installed."""
    count = _int_argument("set_num_threads", int)
    if count <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    try:
        import threadpoolctl  # noqa: PLC0415 - optional, imported where used
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        _blas_limits[:] = [threadpoolctl.threadpool_limits(limits=count, user_api="blas")]
    _state["num_threads"] = count


def get_num_interop_threads():
    """Threads for inter-op parallelism; ember runs ops one at a time, so this is only kept."""
    if _state["interop_threads"] is None:
        _state["interop_threads"] = get_num_threads()
    return _state["interop_threads"]


def set_num_interop_threads(int):  # noqa: A002 - PyTorch's parameter name
    """Settable once, as in PyTorch."""
    count = _int_argument("set_num_interop_threads", int)
    if count <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _state["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _state["interop_threads"], _state["interop_set"] = count, True


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the determinism flag. ember's ops are deterministic already (NumPy on one
    thread per op), so no op raises or warns under it."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, mode and warn_only


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """0/'default' off, 1/'warn' deterministic with warnings, 2/'error' deterministic."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        kind = type(debug_mode)
        shown = "ember.Tensor" if kind.__module__.startswith("ember.") and \
            kind.__name__ == "Tensor" else f"{kind.__module__}.{kind.__qualname__}"
        shown = kind.__qualname__ if kind.__module__ == "builtins" else shown
        raise TypeError(f"debug_mode must be str or int, but got <class '{shown}'>")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """'highest', 'high' or 'medium'. ember's float32 matmul is always full precision (NumPy
    has no TF32 or bfloat16 passes), as PyTorch's CPU matmul is; the setting is kept."""
    if not isinstance(precision, str):
        raise RuntimeError("set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def set_default_device(device):
    """Set the device factories default to (None resets to the CPU); 'cuda' is recorded,
    and `get_default_device` then raises as PyTorch's CPU build does."""
    _state["default_device"] = None if device is None else _device.device(device)
    if _state["default_device"] is None or _state["default_device"].type != "cuda":
        _device.set_default(device)


def get_default_device():
    device = _state["default_device"]
    if _device.get_default() is not _device.CPU:
        return _device.get_default()  # inside `with ember.device(...)`, or a set default
    if device is None:
        return _device.device("cpu")
    if device.type == "cuda":
        from .cuda import _init  # noqa: PLC0415 - ember.cuda sits above this module
        if not _init.is_available():
            raise _init.not_compiled_error()
        if device.index is None:
            return _device.device("cuda", _init.current_index())
    return device
