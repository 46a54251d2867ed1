"""ember.cuda: GPU availability (the CuPy backend arrives with the GPU issue)."""
from .. import _backend

__all__ = ["is_available", "device_count"]


def is_available():
    """True when CuPy is installed and sees a CUDA device."""
    return _backend.cupy_available()


def device_count():
    """The number of CUDA devices CuPy sees (0 without CuPy)."""
    if not _backend.cupy_available():
        return 0
    return _backend.cupy_module().cuda.runtime.getDeviceCount()
