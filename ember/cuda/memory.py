"""CUDA memory statistics, as torch.cuda.memory reports them.

PyTorch's CPU build never initialises CUDA, so its statistics are empty: the
counters read 0, `memory_stats()` is an empty OrderedDict, `empty_cache()` does
nothing, and the calls that reach the allocator directly fail as they do there.
With CuPy and a GPU the counters come from CuPy's default memory pool (its used
and held bytes); CuPy keeps no peaks, so the `max_*` counters report the current
value.
"""
import collections
import warnings

from .. import _backend
from ._init import device_index, is_available, lazy_init

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_cached", "max_memory_cached", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_cached",
           "reset_accumulated_memory_stats", "empty_cache", "memory_stats",
           "memory_stats_as_nested_dict", "memory_summary", "memory_snapshot", "mem_get_info",
           "list_gpu_processes", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "caching_allocator_alloc", "caching_allocator_delete",
           "get_per_process_memory_fraction", "set_per_process_memory_fraction",
           "get_allocator_backend", "caching_allocator_enable",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats",
           "utilization", "temperature", "power_draw", "clock_rate", "memory_usage",
           "device_memory_used"]


def _no_allocator(name):
    """The CPU build's error where torch.cuda calls into torch._C's missing allocator."""
    return AttributeError(f"module 'ember._C' has no attribute '{name}'")


def memory_stats_as_nested_dict(device=None):
    """The allocator's counters; {} while CUDA is not initialised (always, in the CPU build)."""
    if not is_available():
        return {}
    device_index(device, optional=True)
    pool = _backend.cupy_module().get_default_memory_pool()
    used, held = pool.used_bytes(), pool.total_bytes()
    return {"allocated_bytes": {"all": {"current": used, "peak": used}},
            "reserved_bytes": {"all": {"current": held, "peak": held}}}


def _flatten(stats):
    result = []

    def add(prefix, value):
        if isinstance(value, dict):
            for key, item in value.items():
                add(f"{prefix}.{key}" if prefix else key, item)
        else:
            result.append((prefix, value))
    add("", stats)
    result.sort()
    return collections.OrderedDict(result)


def memory_stats(device=None):
    """The counters flattened to 'allocated_bytes.all.current'-style keys, sorted."""
    return _flatten(memory_stats_as_nested_dict(device))


def host_memory_stats_as_nested_dict():
    """Pinned host memory counters: none are kept (PyTorch's CPU build reports {} too)."""
    return {}


def host_memory_stats():
    return _flatten(host_memory_stats_as_nested_dict())


def memory_allocated(device=None):
    """Bytes held by tensors on the device (0 without CUDA)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the caching allocator holds (0 without CUDA)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def memory_cached(device=None):
    warnings.warn("`ember.cuda.memory_cached` has been renamed to `ember.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    warnings.warn("`ember.cuda.max_memory_cached` has been renamed to "
                  "`ember.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None):
    """CuPy keeps no peaks, so there is nothing to reset; the CPU build fails here."""
    if not is_available():
        raise _no_allocator("_cuda_resetPeakMemoryStats")
    device_index(device, optional=True)


def reset_max_memory_allocated(device=None):
    warnings.warn("ember.cuda.reset_max_memory_allocated now calls "
                  "ember.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    return reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    warnings.warn("ember.cuda.reset_max_memory_cached now calls "
                  "ember.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    return reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    if not is_available():
        raise _no_allocator("_cuda_resetAccumulatedMemoryStats")
    device_index(device, optional=True)


def empty_cache():
    """Return cached, unused blocks to the driver; a no-op while CUDA is not initialised."""
    if is_available():
        _backend.cupy_module().get_default_memory_pool().free_all_blocks()


def memory_summary(device=None, abbreviated=False):
    """A printable table of the counters; the CPU build fails on its empty statistics."""
    stats = memory_stats(device)
    allocated = stats["allocated_bytes.all.current"]   # KeyError, as in the CPU build
    reserved = stats["reserved_bytes.all.current"]
    return (f"|{'ember CUDA memory summary (CuPy pool)':^75}|\n"
            f"| Allocated memory {allocated:>56d} |\n| Reserved memory  {reserved:>56d} |")


def memory_snapshot(mempool_id=None):
    if not is_available():
        raise _no_allocator("_cuda_memorySnapshot")
    return {"segments": [], "device_traces": []}


def mem_get_info(device=None):
    """(free, total) bytes of the device, from the CUDA runtime."""
    runtime = lazy_init()
    if device is not None:
        runtime.setDevice(device_index(device, optional=True))
    return runtime.memGetInfo()


def list_gpu_processes(device=None):
    try:
        import pynvml  # noqa: F401,PLC0415 - optional, as in PyTorch
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    return "ember does not list GPU processes; use nvidia-smi"


def caching_allocator_alloc(size, device=None, stream=None):
    lazy_init()
    return _backend.cupy_module().get_default_memory_pool().malloc(size)


def caching_allocator_delete(mem_ptr):
    """CuPy frees a block when its last reference goes; nothing to do."""
    lazy_init()


def get_per_process_memory_fraction(device=None):
    lazy_init()
    return 1.0


def set_per_process_memory_fraction(fraction, device=None):
    lazy_init()
    pool = _backend.cupy_module().get_default_memory_pool()
    pool.set_limit(fraction=fraction)


def get_allocator_backend():
    if not is_available():
        raise _no_allocator("_cuda_getAllocatorBackend")
    return "cupy"


def caching_allocator_enable(value=True):
    """Turning CuPy's pool on or off is not offered; the CPU build accepts and ignores it."""
    if is_available() and not value:
        raise RuntimeError("ember cannot disable CuPy's memory pool")


def reset_accumulated_host_memory_stats():
    raise _no_allocator("_cuda_resetAccumulatedHostMemoryStats")


def reset_peak_host_memory_stats():
    raise _no_allocator("_cuda_resetPeakHostMemoryStats")


def _nvml_missing(device=None):
    """Readings from NVML: like PyTorch, ember needs nvidia-ml-py for them and does not ship it."""
    raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be imported.")


utilization = temperature = power_draw = clock_rate = memory_usage = _nvml_missing
device_memory_used = _nvml_missing
