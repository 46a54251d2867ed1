"""Multinomial(total_count, probs | logits): class counts over `total_count` draws."""
from numbers import Integral

from .._size import Size
from ..ops.creation import ones_like, tensor
from .binomial import Binomial
from .categorical import _OverCategorical
from .constraints import dependent_property
from .constraints import multinomial as _counts_up_to
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(_OverCategorical):
    """Counts of each of K classes in `total_count` independent Categorical draws.

    `total_count` is one Python int for the whole batch (as in PyTorch). Sampling draws
    the categorical indices and histograms them with scatter_add_ along the class dim.
    """

    total_count: int

    _expanded = ("_categorical",)
    _shared = ("total_count",)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, Integral):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._over(probs, logits, validate_args, self._marginals)

    def _marginals(self):
        # Each class count is Binomial(n, p_i): the entropy's expectation runs over it.
        self._binomial = Binomial(self.total_count, probs=self.probs)

    @dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return _counts_up_to(self.total_count)

    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        picks = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # The trial dim first -> last, so the histogram runs along it.
        picks = picks.permute(*range(1, picks.dim()), 0)
        counts = picks.new_zeros(self._extended_shape(sample_shape))
        counts.scatter_add_(-1, picks, ones_like(picks))
        return counts.type_as(self.probs)

    def entropy(self):
        # H = n H(categorical) - log n! + sum_i E[log x_i!], x_i ~ Binomial(n, p_i).
        n = tensor(self.total_count)
        counts = self._binomial.enumerate_support(expand=False)[1:]
        weights = self._binomial.log_prob(counts).exp()
        expected_log_factorials = (weights * (counts + 1).lgamma()).sum([0, -1])
        return n * self._categorical.entropy() - (n + 1).lgamma() + expected_log_factorials

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        # 0 * log 0 = 0: a class with zero probability and zero count contributes nothing.
        logits[(value == 0) & (logits == float("-inf"))] = 0
        log_multinomial_coefficient = (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1)
        return log_multinomial_coefficient + (logits * value).sum(-1)
