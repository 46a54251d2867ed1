"""ember.cuda.amp: the deprecated CUDA spellings of ember.amp, with PyTorch's FutureWarnings.

Without a GPU, an enabled `GradScaler()` warns and disables itself and
`autocast()` warns and disables itself, as in PyTorch's CPU build.
"""
import functools
import warnings

from .. import _dtype
from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler
from ._init import is_available

__all__ = ["GradScaler", "autocast", "custom_fwd", "custom_bwd", "amp_definitely_not_available"]


def amp_definitely_not_available():
    return not is_available()


class GradScaler(_grad_scaler.GradScaler):
    """`ember.amp.GradScaler('cuda', ...)` under its deprecated name."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`ember.cuda.amp.GradScaler(args...)` is deprecated. "
                      "Please use `ember.amp.GradScaler('cuda', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


class autocast(_autocast_mode.autocast):
    """`ember.amp.autocast('cuda', ...)` under its deprecated name."""

    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        warnings.warn("`ember.cuda.amp.autocast(args...)` is deprecated. "
                      "Please use `ember.amp.autocast('cuda', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`ember.cuda.amp.custom_fwd(args...)` is deprecated. "
                  "Please use `ember.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return functools.partial(_autocast_mode.custom_fwd, device_type="cuda")(
        fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    warnings.warn("`ember.cuda.amp.custom_bwd(args...)` is deprecated. "
                  "Please use `ember.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return functools.partial(_autocast_mode.custom_bwd, device_type="cuda")(bwd)
