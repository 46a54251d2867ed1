"""Dropout layers: random zeroing while training, the identity in eval mode."""
from ...ops import nn_linear as F
from .module import Module, _store_options

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """One forward for the family: each layer names its functional (`_function`)."""

    __constants__ = ["p", "inplace"]
    _function = None
    _passes_inplace = True   # the alpha variants ignore `inplace`, as torch.nn's do

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:   # written so that NaN passes, as it does in PyTorch
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        _store_options(self, p=p, inplace=inplace)

    def forward(self, input):
        if self._passes_inplace:
            return self._function(input, self.p, self.training, self.inplace)
        return self._function(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability p; scale the kept ones by 1 / (1 - p)."""
    _function = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) inputs."""
    _function = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) inputs."""
    _function = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) inputs."""
    _function = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps a selu network's mean and variance."""
    _function = staticmethod(F.alpha_dropout)
    _passes_inplace = False


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels."""
    _function = staticmethod(F.feature_alpha_dropout)
    _passes_inplace = False
