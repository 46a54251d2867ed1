"""InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate), as a
transformed distribution (draws from the Gamma sampler: PyTorch's after manual_seed)."""
import math

from ..ops.pointwise_select import where
from .constraints import positive
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Density rate^a x^(-a-1) e^(-rate/x) / Gamma(a); mean and variance are infinite
    where they do not exist (a <= 1, a <= 2)."""

    arg_constraints = {"concentration": positive, "rate": positive}
    support = positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(InverseGamma, _instance))

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)

    @property
    def mean(self):
        a = self.concentration
        return where(a > 1, self.rate / (a - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
