"""Whether ops record the graph: thread-local, as in PyTorch.

`no_grad`, `enable_grad` and `set_grad_enabled` work as context managers and as
decorators. Ops read `state.enabled` once per call; nothing else is consulted.
"""
import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


class _GradState(threading.local):
    enabled = True


state = _GradState()


def is_grad_enabled():
    """True when ops record the graph in this thread."""
    return state.enabled


class _GradModeContext:
    """Shared behaviour: a context manager that is also a decorator."""

    __slots__ = ("_previous",)
    _mode = True

    def __enter__(self):
        self._previous = state.enabled
        state.enabled = self._mode

    def __exit__(self, *exc):
        state.enabled = self._previous
        return False

    def __call__(self, func):
        mode_cls = type(self)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with mode_cls():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_GradModeContext):
    """Disable graph recording: results of ops inside do not require grad."""

    __slots__ = ()
    _mode = False


class enable_grad(_GradModeContext):
    """Enable graph recording, e.g. inside a `no_grad` block."""

    __slots__ = ()
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off; takes effect at once, and as a context restores on exit."""

    __slots__ = ("_mode_value",)

    def __init__(self, mode):
        self._previous = state.enabled
        self._mode_value = bool(mode)
        state.enabled = self._mode_value

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.enabled = self._previous
        return False

    def __call__(self, func):
        state.enabled = self._previous
        mode = self._mode_value

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return set_grad_enabled(self._mode_value)
