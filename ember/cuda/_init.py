"""Whether CUDA is usable, and the one error every CUDA call raises when it is not.

PyTorch's CPU build answers `is_available()` with False and raises
`AssertionError: Torch not compiled with CUDA enabled` from each call that needs a
device (`_lazy_init`). ember's CUDA is CuPy: without CuPy and a GPU it behaves as
that CPU build, word for word; with them, calls reach CuPy's runtime.
"""
from .. import _backend
from .._device import device as _device_type

_NOT_COMPILED = "Torch not compiled with CUDA enabled"
_NOTE = "ember runs CUDA through CuPy: install CuPy on a machine with an NVIDIA GPU."


def is_available():
    """True when CuPy is installed and sees a CUDA device."""
    return _backend.cupy_available()


def not_compiled_error():
    """PyTorch's CPU-build AssertionError, with ember's reason as a note."""
    error = AssertionError(_NOT_COMPILED)
    error.add_note(_NOTE)
    return error


def lazy_init():
    """The CuPy runtime for a call that needs a GPU; raises the CPU build's error without one."""
    if not _backend.cupy_available():
        raise not_compiled_error()
    return _backend.cupy_module().cuda.runtime


def device_index(device, optional=False, allow_cpu=False):
    """A device argument (int, str, device, cuda.device or None) as an index, as torch's does.

    None (or 'cuda' without an index) means the current device when `optional`;
    a CPU device is -1 when `allow_cpu`, otherwise a ValueError.
    """
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _device_type(device)
    if isinstance(device, _device_type):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError(f"Expected a cuda or cpu device, but got: {device}")
        elif device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if device.type == "cpu":
            return -1
        device = device.index
    elif hasattr(device, "idx"):   # a cuda.device context
        return device.idx
    if device is None:
        if optional:
            return current_index()
        raise ValueError("Expected a torch.device with a specified index or an integer, "
                         f"but got:{device}")
    return device


def current_index():
    """The current CUDA device index; None in the CPU build (as torch's device(None).idx)."""
    if not _backend.cupy_available():
        return None
    return _backend.cupy_module().cuda.runtime.getDevice()
