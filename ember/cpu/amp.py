"""ember.cpu.amp: the deprecated CPU spellings of ember.amp, with PyTorch's FutureWarnings."""
import warnings

from .. import _dtype
from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast_mode.autocast):
    """`ember.amp.autocast('cpu', ...)` under its deprecated name."""

    def __init__(self, enabled=True, dtype=_dtype.bfloat16, cache_enabled=True):
        warnings.warn("`ember.cpu.amp.autocast(args...)` is deprecated. "
                      "Please use `ember.amp.autocast('cpu', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    """`ember.amp.GradScaler('cpu', ...)` under its deprecated name."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`ember.cpu.amp.GradScaler(args...)` is deprecated. "
                      "Please use `ember.amp.GradScaler('cpu', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
