"""CUDA streams and events: importable everywhere, constructible only with a GPU.

PyTorch's CPU build defines `Stream` and `Event` but refuses to build one
(`RuntimeError`); ember does the same without CuPy. With CuPy they wrap
`cupy.cuda.Stream` and `cupy.cuda.Event`.
"""
from .. import _backend
from .._device import device as _device_type
from ._init import current_index, device_index, lazy_init

__all__ = ["Stream", "ExternalStream", "Event", "StreamContext", "stream", "current_stream",
           "default_stream", "set_stream"]


class Stream:
    """A CUDA stream (a queue of kernels); `ember.cuda.Stream requires CUDA support` without one."""

    def __init__(self, device=None, priority=0, **kwargs):
        if not _backend.cupy_available():
            raise RuntimeError("ember.cuda.Stream requires CUDA support")
        index = device_index(device, optional=True)
        with _backend.cupy_module().cuda.Device(index):
            self._stream = _backend.cupy_module().cuda.Stream(non_blocking=priority != 0)
        self.device_index = index

    @property
    def device(self):
        return _device_type("cuda", self.device_index)

    def synchronize(self):
        self._stream.synchronize()

    def query(self):
        return self._stream.done

    def wait_stream(self, stream):
        self._stream.wait_event(stream._stream.record())

    def wait_event(self, event):
        self._stream.wait_event(event._event)

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self._stream == other._stream

    def __hash__(self):
        return hash(self._stream)


class ExternalStream(Stream):
    """A stream allocated elsewhere, given by its pointer."""

    def __init__(self, stream_ptr, device=None, **kwargs):
        lazy_init()
        self._stream = _backend.cupy_module().cuda.ExternalStream(stream_ptr)
        self.device_index = device_index(device, optional=True)


class Event:
    """A CUDA event (a marker in a stream, for timing and waiting)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if not _backend.cupy_available():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self._event = _backend.cupy_module().cuda.Event(block=blocking,
                                                        disable_timing=not enable_timing,
                                                        interprocess=interprocess)

    def record(self, stream=None):
        self._event.record(None if stream is None else stream._stream)

    def wait(self, stream=None):
        stream = current_stream() if stream is None else stream
        stream.wait_event(self)

    def query(self):
        return self._event.done

    def synchronize(self):
        self._event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds between this event and `end_event`."""
        return _backend.cupy_module().cuda.get_elapsed_time(self._event, end_event._event)


def _wrap(cupy_stream, index):
    wrapped = Stream.__new__(Stream)
    wrapped._stream, wrapped.device_index = cupy_stream, index
    return wrapped


def current_stream(device=None):
    lazy_init()
    index = device_index(device, optional=True)
    return _wrap(_backend.cupy_module().cuda.get_current_stream(), index)


def default_stream(device=None):
    lazy_init()
    index = device_index(device, optional=True)
    return _wrap(_backend.cupy_module().cuda.Stream.null, index)


def set_stream(stream):
    """Make `stream` current; a no-op for None."""
    if stream is None:
        return
    stream._stream.use()


class StreamContext:
    """Select a stream inside a `with` block; a no-op for None or without a device."""

    def __init__(self, stream):
        self.stream = stream
        index = current_index()
        self.idx = -1 if index is None else index
        self.src_prev_stream = None

    def __enter__(self):
        if self.stream is None or self.idx == -1:
            return
        self.src_prev_stream = current_stream()
        set_stream(self.stream)

    def __exit__(self, *exc):
        if self.stream is None or self.idx == -1:
            return
        set_stream(self.src_prev_stream)


def stream(stream):
    """`with ember.cuda.stream(s):` runs the block's kernels on `s`."""
    return StreamContext(stream)
