"""`ember.cpu`: the CPU's answers to the device-module questions scripts ask of any device.

Device-agnostic code calls `get_device_module(device).synchronize()`, `.current_stream()`
and so on; on the CPU there is one device, always ready, and its streams are
placeholders that order nothing (work runs as it is called).
"""
import contextlib

from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event"]


def is_available():
    return True


def is_initialized():
    return True


def synchronize(device=None):
    """Nothing to wait for: CPU work has finished when its call returns."""


def current_device():
    return "cpu"


def set_device(device):
    """Accepted and ignored: there is one CPU device."""


def device_count():
    return 1


class Stream:
    """A CPU stream: exists so device-agnostic code can make one; it orders nothing."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    """A CPU event: always complete."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_stream = Stream()
_current_stream = _default_stream


def current_stream(device=None):
    return _current_stream


class StreamContext(contextlib.AbstractContextManager):
    """Makes `stream` the current CPU stream inside the block (None leaves it alone)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self):
        global _current_stream
        if self.stream is not None:
            self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, *exc_info):
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream):
    return StreamContext(stream)
