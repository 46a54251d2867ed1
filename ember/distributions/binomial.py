"""Binomial(total_count, probs | logits): successes in `total_count` independent trials."""
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.random_samplers import binomial as _binomial
from ..ops.ranges import arange
from ._binary import BinaryParameter, StoredParameter, one_of
from .constraints import dependent_property, integer_interval, nonnegative_integer, real
from .constraints import unit_interval
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


def _positive_part_mean(x):
    """(max(x, 0) + x - min(x, 0)) / 2 = max(x, 0), written so its gradient at 0 is 1/2."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryParameter, StoredParameter, Distribution):
    """Number of successes in `total_count` trials of probability `probs`."""

    arg_constraints = {"total_count": nonnegative_integer, "probs": unit_interval,
                       "logits": real}
    has_enumerate_support = True

    _expanded = ("total_count", "probs", "logits", "_param")

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        name, value = one_of(probs, logits)
        count, self._param = broadcast_all(total_count, value)
        self.total_count = count.type_as(self._param)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    @dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return integer_interval(0, self.total_count)

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            draws = _binomial(self.total_count.expand(shape), self.probs.expand(shape))
        return draws

    def log_prob(self, value):
        self._check(value)
        n, logits = self.total_count, self.logits
        # log C(n, k) + k * logit - n * softplus(logit), softplus written stably.
        log_choose = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        softplus = _positive_part_mean(logits) + (-logits.abs()).exp().log1p()
        return value * logits + log_choose - n * softplus

    def _homogeneous_count(self, what):
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_pmf = self.log_prob(self.enumerate_support(False))
        return -(log_pmf.exp() * log_pmf).sum(0)

    def enumerate_support(self, expand=True):
        count = self._homogeneous_count("enumerate_support")
        outcomes = arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        outcomes = outcomes.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            outcomes = outcomes.expand((-1,) + tuple(self._batch_shape))
        return outcomes
