"""LayerNorm, GroupNorm and LocalResponseNorm layers (PyTorch's normalization.py)."""
import numbers

from ...ops import normalization as F
from .. import init
from .batchnorm import _register_affine
from .module import Module, _store_options

__all__ = ["LayerNorm", "GroupNorm", "LocalResponseNorm"]


class LocalResponseNorm(Module):
    """Normalise each position by the energy of `size` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        _store_options(self, size=size, alpha=alpha, beta=beta, k=k)

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class LayerNorm(Module):
    """Normalise over the trailing `normalized_shape` dims, with an elementwise affine."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        _store_options(self, normalized_shape=tuple(normalized_shape), eps=eps,
                       elementwise_affine=elementwise_affine)
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init._affine_default_(self.weight, self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise each group of `num_channels // num_groups` channels, per sample."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        _store_options(self, num_groups=num_groups, num_channels=num_channels, eps=eps,
                       affine=affine)
        _register_affine(self, num_channels, affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init._affine_default_(self.weight, self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")
