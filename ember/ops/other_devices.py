"""Tensor methods for accelerators ember (like PyTorch's CPU wheel) was not built for:
XPU, IPU and MTIA moves, which fail as PyTorch's do, and record_stream, which accepts
only a stream."""
__all__ = ["xpu", "ipu", "mtia", "record_stream"]

_MTIA = ("Torch not compiled with MTIA enabled. Ensure you have `import "
         "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
         "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


def xpu(input, device=None, non_blocking=False, memory_format=None):
    if device is not None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise AssertionError("Torch not compiled with XPU enabled")


def ipu(input, device=None, non_blocking=False, memory_format=None):
    raise RuntimeError("PyTorch is not linked with support for ipu devices")


def mtia(input, device=None, non_blocking=False, memory_format=None):
    raise AssertionError(_MTIA)


def record_stream(input, stream):
    """Nothing to record on the CPU; anything but a stream is refused, as by PyTorch."""
    if type(stream).__name__ != "Stream":
        raise RuntimeError("unknown parameter type")
