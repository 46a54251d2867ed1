"""NegativeBinomial(total_count, probs | logits): failures before `total_count` successes.

Sampled as PyTorch samples it, a Gamma-Poisson mixture: rate ~ Gamma(total_count,
e^-logits), then Poisson(rate); both samplers run on the shared stream, so draws are
PyTorch's after manual_seed.
"""
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.nn_activation import logsigmoid
from ..ops.random_samplers import poisson
from ._binary import BinaryParameter, StoredParameter, one_of
from .constraints import greater_than_eq, half_open_interval, nonnegative_integer, real
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParameter, StoredParameter, Distribution):
    """P(k) = C(k + r - 1, k) p^k (1 - p)^r, r = total_count (real, >= 0), p = probs."""

    arg_constraints = {"total_count": greater_than_eq(0), "probs": half_open_interval(0.0, 1.0),
                       "logits": real}
    support = nonnegative_integer

    _expanded = ("total_count", "probs", "logits", "_param")

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        name, value = one_of(probs, logits)
        count, self._param = broadcast_all(total_count, value)
        self.total_count = count.type_as(self._param)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(),
                     validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        self._check(value)
        r = self.total_count
        unnormalised = r * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        # log of C(k + r - 1, k), defined as 0 where k + r = 0
        normaliser = (-(r + value).lgamma() + (1.0 + value).lgamma() + r.lgamma())
        normaliser = normaliser.masked_fill(r + value == 0.0, 0.0)
        return unnormalised - normaliser
