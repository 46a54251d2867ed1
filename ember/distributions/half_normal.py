"""HalfNormal: |X| for a centred Normal, and the folding it shares with HalfCauchy.

Folding a symmetric density at zero doubles it on the positive side, so log_prob is the
base's plus log 2 (and -inf below zero), the CDF is 2F(x) - 1 and the entropy drops by log 2.
"""
import math

from ..ops.creation import zeros_like
from ..ops.pointwise_select import where
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution, _from_base
from .transforms import AbsTransform

__all__ = ["HalfNormal"]

_LOG_TWO = math.log(2)


class _Folded(TransformedDistribution):
    """What HalfNormal and HalfCauchy share: a base centred at 0, folded by |.|."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    scale = _from_base("scale")

    @property
    def mode(self):
        return zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        doubled = self.base_dist.log_prob(value) + _LOG_TWO
        return where(value >= 0, doubled, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # P(|X| <= v) = F(v) - F(-v) = 2 F(v) - 1 for a symmetric F
        return self.base_dist.cdf(value) * 2 - 1

    def icdf(self, prob):
        return self.base_dist.icdf((1 + prob) / 2)

    def entropy(self):
        return self.base_dist.entropy() - _LOG_TWO


class HalfNormal(_Folded):
    """|Z| for Z ~ Normal(0, scale)."""

    def __init__(self, scale, validate_args=None):
        inner = Normal(0, scale, validate_args=False)
        super().__init__(inner, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(HalfNormal, _instance))

    @property
    def mean(self):
        """E|Z| = scale sqrt(2 / pi)."""
        return math.sqrt(2 / math.pi) * self.scale

    @property
    def variance(self):
        """E[Z^2] - (E|Z|)^2 = scale^2 (1 - 2 / pi)."""
        return (1 - 2 / math.pi) * self.scale.pow(2)
