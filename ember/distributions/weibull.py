"""Weibull and Kumaraswamy: power maps of simple bases.

Weibull(scale, k) is scale * E^(1/k) for E ~ Exponential(1); Kumaraswamy(a, b) is
(1 - U^(1/b))^(1/a) for U ~ Uniform(0, 1). Both sample through their transform chains and
take their moments from Gamma-function identities.
"""
import math

from ..ops.creation import full_like, ones_like
from ..ops.special import digamma, lgamma
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution, _expand_parameters
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy", "Weibull"]


class Weibull(TransformedDistribution):
    """Weibull(scale, concentration): survival function exp(-(x / scale)^concentration)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = 1 / self.concentration
        unit = Exponential(ones_like(self.scale), validate_args=validate_args)
        super().__init__(unit, self._chain(self.concentration_reciprocal, self.scale),
                         validate_args=validate_args)

    @staticmethod
    def _chain(power, scale):
        return [PowerTransform(exponent=power), AffineTransform(loc=0, scale=scale)]

    def expand(self, batch_shape, _instance=None):
        new = _expand_parameters(self._get_checked_instance(Weibull, _instance), self,
                                 batch_shape, ("scale", "concentration",
                                               "concentration_reciprocal"))
        TransformedDistribution.__init__(
            new, self.base_dist.expand(batch_shape),
            self._chain(new.concentration_reciprocal, new.scale), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        # E[X] = scale * Gamma(1 + 1/k)
        return self.scale * lgamma(1 + self.concentration_reciprocal).exp()

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        inv_k = self.concentration_reciprocal
        second = lgamma(1 + 2 * inv_k).exp()
        first_sq = (2 * lgamma(1 + inv_k)).exp()
        return self.scale.pow(2) * (second - first_sq)

    def entropy(self):
        inv_k = self.concentration_reciprocal
        return euler_constant * (1 - inv_k) + (self.scale * inv_k).log() + 1


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b * B(1 + n/a, b), through log-Gamma for stability."""
    shifted = 1 + n / a
    return b * (lgamma(shifted) + lgamma(b) - lgamma(shifted + b)).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(a, b) on (0, 1): density a b x^(a-1) (1 - x^a)^(b-1)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1),
                       validate_args=validate_args)
        # u -> u^(1/b) -> 1 - u^(1/b) -> (1 - u^(1/b))^(1/a)
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()),
                 AffineTransform(1.0, -1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = _expand_parameters(self._get_checked_instance(Kumaraswamy, _instance), self,
                                 batch_shape, ("concentration1", "concentration0"))
        return super().expand(batch_shape, new)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        # PyTorch's expression, kept for parity: it takes log1p of negative numbers and so
        # yields nan for every parameter (the textbook mode is ((a-1)/(ab-1))^(1/a))
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - _kumaraswamy_moment(a, b, 1).pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = digamma(b + 1) + euler_constant
        return (1 - a.reciprocal()) * harmonic + (1 - b.reciprocal()) - a.log() - b.log()
