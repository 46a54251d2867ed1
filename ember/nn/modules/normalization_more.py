"""RMSNorm and CrossMapLRN2d: the normalisation layers beyond batch/layer/group/instance."""
import numbers

from ...ops import creation
from ...ops.cross_map_lrn import cross_map_lrn2d
from ...ops.normalization_more import rms_norm
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RMSNorm", "CrossMapLRN2d"]


class RMSNorm(Module):
    """Scale by the root mean square over the trailing `normalized_shape` dims (no centring)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        single = isinstance(normalized_shape, numbers.Integral)
        self.normalized_shape = (normalized_shape,) if single else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        weight = None
        if elementwise_affine:
            weight = Parameter(creation.empty(self.normalized_shape, device=device, dtype=dtype))
        self.register_parameter("weight", weight)
        self.reset_parameters()

    def reset_parameters(self):
        """The scale starts at one: the layer begins as pure RMS normalisation."""
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class CrossMapLRN2d(Module):
    """Local response normalisation across channels, in PyTorch's legacy formulation."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
