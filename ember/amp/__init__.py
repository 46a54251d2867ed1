"""ember.amp: automatic mixed precision (autocast and GradScaler), as torch.amp."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler
from . import autocast_mode, grad_scaler  # noqa: F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
