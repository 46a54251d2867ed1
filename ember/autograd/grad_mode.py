"""Whether ops record the graph: thread-local, as in PyTorch.

`no_grad`, `enable_grad` and `set_grad_enabled` work as context managers and as
decorators. Ops read `state.enabled` once per call; nothing else is consulted.
"""
import functools
import threading
import warnings

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "set_detect_anomaly", "detect_anomaly",
           "is_anomaly_enabled"]


class _GradState(threading.local):
    enabled = True
    inference = False


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

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self._mode_value})"

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


class inference_mode(_GradModeContext):
    """Like no_grad, and tensors created inside can never enter autograd later.

    PyTorch uses this to skip version counting; here it keeps the same contract
    so code that relies on the errors behaves the same.
    """

    __slots__ = ("_mode_value", "_previous_inference")

    def __init__(self, mode=True):
        self._mode_value = bool(mode)

    def __enter__(self):
        self._previous = state.enabled
        self._previous_inference = state.inference
        if self._mode_value:
            state.enabled = False
        state.inference = self._mode_value

    def __exit__(self, *exc):
        state.enabled = self._previous
        state.inference = self._previous_inference
        return False

    def __call__(self, func):
        mode = self._mode_value

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return inference_mode(self._mode_value)


def is_inference_mode_enabled():
    return state.inference


class _AnomalyState:
    __slots__ = ("enabled", "check_nan")


anomaly = _AnomalyState()
anomaly.enabled = False
anomaly.check_nan = True


def is_anomaly_enabled():
    return anomaly.enabled


class set_detect_anomaly:
    """Turn anomaly detection on or off (at once, and as a context manager)."""

    def __init__(self, mode, check_nan=True):
        self._previous = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled = bool(mode)
        anomaly.check_nan = bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self._previous
        return False


class detect_anomaly:
    """Record each op's forward stack and fail loudly when backward produces NaN.

    When a backward node fails or returns NaN, the error names the node and a
    warning shows where its forward op was called.
    """

    def __init__(self, check_nan=True):
        self._check_nan = check_nan

    def __enter__(self):
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)
        self._previous = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled = True
        anomaly.check_nan = self._check_nan
        return self

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self._check_nan):
                return func(*args, **kwargs)
        return wrapper
