"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d: modules over F.interpolate."""
from ...ops.nn_resize import interpolate
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _stored_factor(scale_factor):
    """torch.nn keeps scale factors as floats (a tuple of them per dim); 0 or None means unset."""
    if isinstance(scale_factor, tuple):
        return tuple(map(float, scale_factor))
    return float(scale_factor) if scale_factor else None


class Upsample(Module):
    """Resize by `size` or `scale_factor` (stored as float, as torch.nn does)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        # Plain attributes, in the order torch.nn sets them (they show in vars(module)).
        vars(self).update(name=type(self).__name__, size=size,
                          scale_factor=_stored_factor(scale_factor), mode=mode,
                          align_corners=align_corners,
                          recompute_scale_factor=recompute_scale_factor)

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state):
        # Pickles older than recompute_scale_factor behaved as if it were True.
        super().__setstate__({"recompute_scale_factor": True, **state})

    def extra_repr(self):
        by_factor = self.scale_factor is not None
        shown = ("scale_factor", self.scale_factor) if by_factor else ("size", self.size)
        return f"{shown[0]}={shown[1]!r}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "bilinear", True)
