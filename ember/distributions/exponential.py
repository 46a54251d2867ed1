"""Exponential(rate): waiting time of a Poisson process."""
from .._size import Size
from ..ops.creation import zeros_like
from .constraints import nonnegative, positive
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Density rate * exp(-rate x) on x >= 0; rsample divides `exponential_()` by the rate."""

    arg_constraints = {"rate": positive}
    support = nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    _expanded = ("rate",)

    def __init__(self, rate, validate_args=None):
        self._init_params(validate_args, rate=rate)

    mean = stddev = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: zeros_like(self.rate))
    variance = property(lambda self: self.rate.pow(-2))

    def rsample(self, sample_shape=Size()):
        unit = self.rate.new_empty(self._extended_shape(sample_shape)).exponential_()
        return unit / self.rate

    def log_prob(self, value):
        self._check(value)
        rate = self.rate
        return rate.log() - rate * value

    def cdf(self, value):
        self._check(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, theta):
        return -(-theta).log()
