"""Poisson(rate): counts of events at a mean `rate`."""
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.random_samplers import poisson as _poisson
from .constraints import nonnegative, nonnegative_integer
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """P(k) = rate^k e^-rate / k!; draws from PyTorch's own sampler stream."""

    arg_constraints = {"rate": nonnegative}
    support = nonnegative_integer

    _expanded = ("rate",)

    def __init__(self, rate, validate_args=None):
        self._init_params(validate_args, rate=rate)

    mean = variance = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())

    def sample(self, sample_shape=Size()):
        with no_grad():
            draws = _poisson(self.rate.expand(self._extended_shape(sample_shape)))
        return draws

    def log_prob(self, value):
        self._check(value)
        rate, count = broadcast_all(self.rate, value)
        # k log(rate) - rate - log k!, with 0 log 0 = 0 for a zero rate
        return count.xlogy(rate) - rate - (count + 1).lgamma()

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, theta):
        return theta.exp()
