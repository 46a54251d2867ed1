"""`ember.Stream` and `ember.Event`: the device-generic stream and event.

On the CPU (and on meta) a stream is a placeholder that orders nothing and an event
cannot be recorded, as PyTorch's CPU build answers; a "cuda" one is an `ember.cuda`
stream or event when a GPU is there, and refused as an unlinked backend otherwise.
"""
from . import cuda as _cuda
from ._device import device as _device_class

__all__ = ["Stream", "Event"]

_NO_EVENTS = "cpu backend doesn't support events."


def _host_device(device, build):
    """The device for a host stream/event; a cuda device builds `build` instead."""
    if device is None:
        return _device_class("cpu"), None
    if isinstance(device, int) and not isinstance(device, bool):
        if not _cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        device = _device_class("cuda", device)
    device = _device_class(device)
    if device.type == "cuda":
        if not _cuda.is_available():
            raise RuntimeError("PyTorch is not linked with support for cuda devices")
        return device, build(device)
    return device, None


class Stream:
    """An in-order work queue on a device; on the host, work runs as it is called."""

    def __new__(cls, device=None, *, priority=0):
        device, on_gpu = _host_device(device, lambda d: _cuda.Stream(d, priority=priority))
        if on_gpu is not None:
            return on_gpu
        made = object.__new__(cls)
        made.device = device
        return made

    device_index = -1
    stream_id = 0

    @property
    def device_type(self):
        return 0 if self.device.type == "cpu" else self.device.type

    def query(self):
        return True

    def synchronize(self):
        pass

    def wait_stream(self, stream):
        raise RuntimeError(_NO_EVENTS)   # waiting on a stream records an event on it

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        raise RuntimeError(_NO_EVENTS)

    def is_capturing(self):
        return False

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass

    def __eq__(self, other):
        return isinstance(other, Stream) and other.device == self.device

    def __hash__(self):
        return hash((Stream, self.device))

    def __repr__(self):
        return (f"ember.Stream device_type={self.device.type}, device_index=-1, "
                "stream_id=0")


class Event:
    """A marker in a stream; host events can be made and asked, never recorded."""

    def __new__(cls, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        device, on_gpu = _host_device(device, lambda d: _cuda.Event(
            enable_timing=enable_timing, blocking=blocking, interprocess=interprocess))
        if on_gpu is not None:
            return on_gpu
        made = object.__new__(cls)
        made.device, made.enable_timing = device, enable_timing
        return made

    event_id = 0

    def query(self):
        return True

    def record(self, stream=None):
        raise RuntimeError(_NO_EVENTS)

    def wait(self, stream=None):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def __repr__(self):
        return (f"ember.Event device_type={self.device.type}, device_index=-1, "
                "event_flag=0, event_id=0")


Stream.__module__ = Event.__module__ = "ember"
