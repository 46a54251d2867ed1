"""The only module that knows NumPy from CuPy.

Every array a Tensor holds comes from one of two array modules: NumPy on the
CPU, CuPy on CUDA devices. CuPy is imported lazily, the first time a CUDA
device is asked for, so that ember imports and runs with NumPy alone.
"""
import numpy

__all__ = ["numpy", "ndarray", "generic", "cupy_module", "cupy_available", "is_cupy_array"]

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
        if writeable is None:
            writeable = array.flags.writeable
        return numpy.lib.stride_tricks.as_strided(array, shape, strides, writeable=writeable)
    return _cupy.lib.stride_tricks.as_strided(array, shape, strides)


def address(array):
    """The address of an array's first element (NumPy's interface, or CuPy's pointer)."""
    interface = getattr(array, "__array_interface__", None)
    return array.data.ptr if interface is None else interface["data"][0]
