"""`ember.accelerator`: device-agnostic questions about the current accelerator.

ember's only accelerator is CUDA through CuPy. Without one the module answers as
PyTorch's CPU build does: nothing is available, `current_accelerator()` is None, the
count is 0, and every question about "the" device raises the same RuntimeError. With a
GPU each call is a door into `ember.cuda`.
"""
import warnings

from .. import cuda as _cuda
from .._device import device as _device_class

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index",
           "get_device_capability", "current_stream", "device_count", "device_index",
           "empty_cache", "empty_host_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
           "synchronize"]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available():
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """ember.device('cuda') with a GPU, else None."""
    return _device_class("cuda") if _cuda.is_available() else None


def device_count():
    return _cuda.device_count() if _cuda.is_available() else 0


def _require():
    if not _cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)


def current_device_index():
    _require()
    return _cuda.current_device()


def current_device_idx():
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device, /):
    _require()
    _cuda.set_device(device)


def set_device_idx(device, /):
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:
    """Within the block, `device` (an index) is the current accelerator device; None
    switches nothing."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info):
        if self.idx is not None and self.prev_idx >= 0:
            set_device_index(self.prev_idx)


def synchronize(device=None, /):
    _require()
    _cuda.synchronize(device)


def current_stream(device=None, /):
    _require()
    return _cuda.current_stream(device)


def set_stream(stream):
    _require()
    _cuda.set_stream(stream)


def get_device_capability(device=None, /):
    _require()
    major, minor = _cuda.get_device_capability(device)
    return {"major": major, "minor": minor}


def _memory(name):
    """A memory question passed to ember.cuda's function `name` when a GPU is there."""
    def ask(device_index=None, /):
        _require()
        return getattr(_cuda, name)(device_index)
    ask.__name__ = ask.__qualname__ = name
    return ask


memory_allocated = _memory("memory_allocated")
max_memory_allocated = _memory("max_memory_allocated")
memory_reserved = _memory("memory_reserved")
max_memory_reserved = _memory("max_memory_reserved")
memory_stats = _memory("memory_stats")
reset_peak_memory_stats = _memory("reset_peak_memory_stats")
reset_accumulated_memory_stats = _memory("reset_accumulated_memory_stats")
get_memory_info = _memory("mem_get_info")


def empty_cache():
    _require()
    _cuda.empty_cache()


def empty_host_cache():
    _require()


class Graph:
    """A captured graph of device work; refused without an accelerator."""

    def __init__(self, keep_graph=False, *, pool=None, capture_error_mode="default"):
        _require()
        self._graph = _cuda.CUDAGraph()
