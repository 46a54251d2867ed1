"""ember.backends.cudnn: cuDNN's flags. ember has no cuDNN: is_available() is False and
version() None, as in PyTorch's CPU build; the flags are kept, type-checked as torch does."""
import contextlib
import sys
import types

__all__ = ["is_available", "version", "flags", "is_acceptable"]


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


_SETTERS = {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
            "deterministic": "set_deterministic_cudnn", "allow_tf32": "set_allow_tf32_cudnn"}


class CudnnModule(types.ModuleType):
    """The module object itself, so that assignments are checked (`cudnn.benchmark = 1` fails)."""

    def __setattr__(self, name, value):
        if name in _SETTERS and not isinstance(value, bool):
            raise RuntimeError(f"{_SETTERS[name]} expects a bool, but got {type(value).__name__}")
        super().__setattr__(name, value)


enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Set the flags inside a `with` block and restore them after."""
    module = sys.modules[__name__]
    saved = (module.enabled, module.benchmark, module.deterministic, module.allow_tf32)
    module.enabled, module.benchmark = enabled, benchmark
    module.deterministic, module.allow_tf32 = deterministic, allow_tf32
    try:
        yield
    finally:
        module.enabled, module.benchmark, module.deterministic, module.allow_tf32 = saved


sys.modules[__name__].__class__ = CudnnModule
