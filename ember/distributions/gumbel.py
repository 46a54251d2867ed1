"""Gumbel: the law of the maximum of many light-tailed draws.

Sampled by inverting its CDF, x = loc - scale * log(-log u), written as a chain of
transforms over a Uniform kept a float's tiny/eps away from 0 and 1 (so neither log is
infinite); log_prob uses the closed form rather than the chain.
"""
import math
from numbers import Number

from .._dtype import finfo
from ..ops.creation import full_like, ones_like
from . import constraints
from .transformed_distribution import TransformedDistribution, _expand_parameters
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale): density exp(-(z + exp(-z))) / scale with z = (x - loc) / scale."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        low, high = info.tiny, 1 - info.eps
        if not (isinstance(loc, Number) and isinstance(scale, Number)):
            low, high = full_like(self.loc, low), full_like(self.loc, high)
        # u -> -log u -> log(-log u) ... written as: log^-1, negate, log^-1, loc - scale *
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                 ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(Uniform(low, high, validate_args=validate_args), chain,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = _expand_parameters(self._get_checked_instance(Gumbel, _instance), self,
                                 batch_shape, ("loc", "scale"))
        return super().expand(batch_shape, new)

    def log_prob(self, value):
        """log f(x) = -z - exp(-z) - log scale with z = (x - loc) / scale."""
        if self._validate_args:
            self._validate_sample(value)
        neg_z = (self.loc - value) / self.scale
        return (neg_z - neg_z.exp()) - self.scale.log()

    @property
    def mean(self):
        """loc + scale * (Euler's constant)."""
        return self.scale * euler_constant + self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        """scale * pi / sqrt(6)."""
        return self.scale * (math.pi / math.sqrt(6))

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        """log scale + Euler's constant + 1."""
        return self.scale.log() + (euler_constant + 1)
