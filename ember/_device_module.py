"""`ember.get_device_module`: the module (`ember.cpu`, `ember.cuda`) serving a device type.

Device-agnostic code asks for "the module of this device" (`get_device_module(x.device)
.synchronize()`); a device string is parsed as `ember.device` parses it, so bad strings
raise its errors. ember ships modules for cpu and cuda only.
"""
import importlib

from ._device import device as _device_class

__all__ = ["get_device_module"]


def get_device_module(device=None):
    """The module for `device` (a device, a string, or None for the current accelerator,
    falling back to the CPU)."""
    if isinstance(device, _device_class):
        kind = device.type
    elif isinstance(device, str):
        kind = _device_class(device).type
    elif device is None:
        from . import accelerator   # deferred: the accelerator module sits above this one
        current = accelerator.current_accelerator()
        kind = "cpu" if current is None else current.type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect ember.device, str, "
                           "or None")
    if kind not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           f"as 'ember.{kind}'.")
    return importlib.import_module(f"ember.{kind}")
