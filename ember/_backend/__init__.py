"""The only module that knows NumPy from CuPy.

Every array a Tensor holds comes from one of two array modules: NumPy on the
CPU, CuPy on CUDA devices. CuPy is imported lazily, the first time a CUDA
device is asked for, so that ember imports and runs with NumPy alone.
"""
import contextlib
import ctypes as _ctypes
import importlib
import mmap as _mmap
import os as _os

import numpy

from .._meta import MetaArray as _MetaArray, meta_array as _meta_array

__all__ = ["numpy", "ndarray", "generic", "cupy_module", "cupy_available", "is_cupy_array",
           "as_strided", "address", "allocate", "allocating", "allocation_refusal",
           "storage_nbytes", "allocation_error", "one_blas_thread", "cpu_features"]

_cupy = None
_cupy_checked = False


def cupy_module():
    """Return the CuPy module, importing it on first use; None when absent."""
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy  # noqa: PLC0415 - lazy on purpose: CuPy is optional
            _cupy = cupy
        except Exception:  # ImportError, or a broken CUDA install
            _cupy = None
    return _cupy


def cupy_available():
    """True when CuPy imports and sees at least one CUDA device."""
    cp = cupy_module()
    if cp is None:
        return False
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def cpu_features():
    """The SIMD features NumPy detected on this CPU ({"AVX2": True, "AVX512FP16": ...}):
    PyTorch picks some of its CPU kernels, and so its messages, by the same features."""
    core = getattr(numpy, "_core", None) or getattr(numpy, "core")
    return core._multiarray_umath.__cpu_features__


_CAPABILITIES = ("DEFAULT", "AVX2", "AVX512")


def cpu_capability():
    """'AVX512', 'AVX2' or 'DEFAULT': the kernel set PyTorch's CPU dispatch picks on this
    CPU, by PyTorch's rule, from the features NumPy detected, lowered to the environment's
    ATEN_CPU_CAPABILITY when that names a lower one (as PyTorch lowers its own)."""
    features = cpu_features()
    if all(features.get(name) for name in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        found = "AVX512"
    elif features.get("AVX2") and features.get("FMA3"):
        found = "AVX2"
    else:
        found = "DEFAULT"
    asked = _os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if asked in _CAPABILITIES and _CAPABILITIES.index(asked) < _CAPABILITIES.index(found):
        return asked
    return found


def is_cupy_array(obj):
    """True for a CuPy ndarray, without importing CuPy when it was never used."""
    return _cupy is not None and isinstance(obj, _cupy.ndarray)


ndarray = numpy.ndarray
generic = numpy.generic

# PyTorch computes 1/0, log(0) and exp(1000) silently; NumPy warns. Silence those
# warnings only where ember's own op modules call NumPy, never in user code.
import warnings as _warnings  # noqa: E402

_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.")


def as_strided(array, shape, strides, writeable=None):
    """A view of `array` with the given shape and byte strides.

    NumPy carries a writeable flag (kept from `array` unless given); CuPy has none.
    """
    if isinstance(array, ndarray):
        if array.__class__ is _MetaArray:  # no memory behind the strides: stay zero-stride
            return _meta_array(shape, array.dtype)
        if array.flags.c_contiguous:
            # NumPy's own as_strided goes through __array_interface__ (about 4 us); a view
            # built on the contiguous buffer costs 1 us, and NumPy still checks its bounds.
            try:
                view = ndarray(shape, array.dtype, array, 0, strides)
            except (TypeError, ValueError):
                pass
            else:
                if writeable is False:
                    view.flags.writeable = False
                return view
        if writeable is None:
            writeable = array.flags.writeable
        return numpy.lib.stride_tricks.as_strided(array, shape, strides, writeable=writeable)
    return _cupy.lib.stride_tricks.as_strided(array, shape, strides)


def share_memory(array):
    """A copy of host `array` in an anonymous shared mapping, which processes forked
    afterwards see as the same memory (PyTorch's CPU share_memory_); device arrays are
    returned as they are (CUDA memory is shared through IPC handles, not moved)."""
    if not isinstance(array, ndarray) or is_shared(array):
        return array
    shared = numpy.frombuffer(_mmap.mmap(-1, max(array.nbytes, 1)), dtype=array.dtype,
                              count=array.size).reshape(array.shape)
    shared[...] = array
    return shared


def is_shared(array):
    """Whether host `array` lives in a shared mapping made by `share_memory`."""
    owner = array
    while owner is not None:
        if isinstance(owner, _mmap.mmap):
            return True
        owner = owner.obj if isinstance(owner, memoryview) else getattr(owner, "base", None)
    return False


def address(array):
    """The address of an array's first element (NumPy's interface, or CuPy's pointer)."""
    interface = getattr(array, "__array_interface__", None)
    return array.data.ptr if interface is None else interface["data"][0]


_UINT64 = 1 << 64
_STORAGE_MAX = (1 << 63) - 1


def allocate(make, shape, dtype, *fill):
    """`make(shape, *fill, dtype)` (`xp.empty`, `zeros`, `ones`, `full`, a generator's
    draw), with an allocation NumPy or CuPy refuses reported in PyTorch's words.

    NumPy says "array is too big" (ValueError) past its index range, or "Unable to
    allocate" (MemoryError); PyTorch first computes the byte count in 64 bits and refuses
    an overflow, then asks the allocator. Each becomes the RuntimeError PyTorch raises.
    A `try` costs nothing until something raises, so factories call this on every call.
    """
    try:
        return make(shape, *fill, dtype)
    except (MemoryError, ValueError) as error:
        refusal = allocation_refusal(error, shape, dtype)
        if refusal is error:
            raise
        raise refusal from error


@contextlib.contextmanager
def allocating(shape, dtype):
    """`allocate` for a factory that computes its values in several steps (arange)."""
    try:
        yield
    except (MemoryError, ValueError) as error:
        refusal = allocation_refusal(error, shape, dtype)
        if refusal is error:
            raise
        raise refusal from error


def allocation_refusal(error, shape, dtype):
    """PyTorch's RuntimeError for NumPy's `error` in allocating `shape`, or `error` itself
    when it was a ValueError about something other than the size."""
    nbytes = storage_nbytes(shape, numpy.dtype(dtype).itemsize)
    if isinstance(error, ValueError) and nbytes is not None:
        return error
    return allocation_error(shape, nbytes)


def storage_nbytes(shape, itemsize):
    """The byte count PyTorch computes for a contiguous `shape`, or None where its 64-bit
    arithmetic overflows (c10::safe_multiplies_u64: an early overflow counts, even
    when a later size is 0)."""
    numel, overflowed = 1, False
    for size in shape:
        numel *= size
        overflowed |= numel >= _UINT64
        numel %= _UINT64
    nbytes = numel * itemsize
    return None if overflowed or nbytes > _STORAGE_MAX else nbytes


def allocation_error(shape, nbytes):
    """PyTorch's RuntimeError for a failed allocation of `shape` (`nbytes` None: overflowed)."""
    if nbytes is None:
        return RuntimeError("Storage size calculation overflowed with "
                            f"sizes=[{', '.join(str(size) for size in shape)}]")
    return RuntimeError("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
                        f"can't allocate memory: you tried to allocate {nbytes} bytes. "
                        "Error code 12 (Cannot allocate memory)")


class _LazyModule:
    """A well-kept library imported on first use, so that `import ember` stays quick and
    works without it; a missing one raises naming how to install it."""

    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attribute):
        module = self._module
        if module is None:
            try:
                module = self._module = importlib.import_module(self._name)
            except ImportError as error:
                error.add_note(f"ember needs {self._name.partition('.')[0]} for this operation: "
                               "pip install scipy")
                raise
        return getattr(module, attribute)


# LAPACK routines NumPy lacks (triangular solves, LU, expm) and special functions.
scipy_linalg = _LazyModule("scipy.linalg")
scipy_special = _LazyModule("scipy.special")

# BLAS thread control for loops of small matrix products (threadpoolctl, optional).
_threadpoolctl = _LazyModule("threadpoolctl")
_blas_controller = []   # [controller], or [None] without threadpoolctl; empty until first use


def one_blas_thread():
    """A context in which BLAS runs on one thread (a no-op without threadpoolctl).

    A recurrent layer's per-step products (20x200 by 200x800) are too small to share:
    handing each to a thread pool costs more than the product, and on a busy machine a
    descheduled BLAS thread stalls every step (measured: 35 such products 7.7 ms on one
    thread, 740 ms on two while the cores were shared).
    """
    if not _blas_controller:
        try:
            _blas_controller.append(_threadpoolctl.ThreadpoolController())
        except ImportError:
            _blas_controller.append(None)
    controller = _blas_controller[0]
    if controller is None:
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


def _keep_freed_heap():
    """Let glibc keep up to 64 MiB of freed heap instead of handing every large block back.

    An array over glibc's mmap threshold (128 KiB, raised as blocks are freed) is mapped
    fresh and unmapped on free, and a shrinking heap is trimmed past twice that: a training
    step of im2col columns and activations then refills thousands of zeroed pages each time
    (half of a LeNet step on NumPy, measured). PyTorch's direct kernels stay under the trim.
    A fixed 32 MiB mmap threshold and a 64 MiB trim threshold keep those blocks in the heap
    for reuse; larger arrays are still mapped and returned. Values and semantics are
    untouched; a MALLOC_* setting in the environment wins, and other C libraries are left be.
    """
    if _os.environ.get("MALLOC_MMAP_THRESHOLD_") or _os.environ.get("MALLOC_TRIM_THRESHOLD_"):
        return
    try:
        _os.confstr("CS_GNU_LIBC_VERSION")
        mallopt = _ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, ValueError):
        return
    mallopt(-3, 32 << 20)       # M_MMAP_THRESHOLD
    mallopt(-1, 64 << 20)       # M_TRIM_THRESHOLD


_keep_freed_heap()
