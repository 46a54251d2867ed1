"""`ember.fork`, `ember.wait` and `ember.Future`: asynchronous calls, run at once.

PyTorch can run a forked call on its inter-op thread pool; ember runs it immediately
in the caller's thread, so the returned future is already complete and `wait` only
hands its value back. An exception raised by the call propagates from `fork`, as it
does in PyTorch's eager mode.
"""
__all__ = ["Future", "fork", "wait"]


class Future:
    """A value that is (here: already) available; `then` chains a callback."""

    def __init__(self, devices=None):
        self._value, self._done, self._callbacks = None, False, []

    def done(self):
        return self._done

    def set_result(self, result):
        self._value, self._done = result, True
        for callback in self._callbacks:
            callback(self)

    def value(self):
        return self._value

    def wait(self):
        return self._value

    def then(self, callback):
        chained = Future()
        self.add_done_callback(lambda fut: chained.set_result(callback(fut)))
        return chained

    def add_done_callback(self, callback):
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)


Future.__module__ = "ember"


def fork(func, *args, **kwargs):
    """Call `func(*args, **kwargs)` now and return a completed Future of its result."""
    if not callable(func):
        raise TypeError(f"Object of type '{type(func).__name__}' is not an instance of "
                        "'function'")
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future):
    """The value of a Future from `fork`."""
    if future is None:
        raise RuntimeError("Future can't be None")
    if not isinstance(future, Future):
        raise TypeError("wait(): incompatible function arguments. The following argument "
                        "types are supported:\n    1. (arg0: ember._C.Future) -> object\n\n"
                        f"Invoked with: {future!r}")
    return future.wait()
