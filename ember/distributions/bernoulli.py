"""Bernoulli(probs | logits): one coin flip, parameterised by either probability or log-odds."""
from numbers import Number

from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.losses import binary_cross_entropy_with_logits as _bce_with_logits
from ..ops.random import bernoulli as _bernoulli
from ..ops.ranges import arange
from ._binary import BinaryParameter, StoredParameter, one_of
from .constraints import boolean, real, unit_interval
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(BinaryParameter, StoredParameter, ExponentialFamily):
    """1 with probability `probs` (= sigmoid(logits)), else 0.

    Whichever parameter is given is stored; the other is derived on first use, so
    `log_prob` works on logits directly (a numerically stable cross-entropy).
    """

    arg_constraints = {"probs": unit_interval, "logits": real}
    support = boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    _expanded = ("probs", "logits", "_param")

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, value = one_of(probs, logits)
        (self._param,) = broadcast_all(value)
        setattr(self, name, self._param)
        batch_shape = Size() if isinstance(value, Number) else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        # Ties (p = 1/2) have no single mode: NaN there.
        ones = (self.probs >= 0.5).to(self.probs)
        ones[self.probs == 0.5] = float("nan")
        return ones

    def sample(self, sample_shape=Size()):
        with no_grad():
            draws = _bernoulli(self.probs.expand(self._extended_shape(sample_shape)))
        return draws

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value, reduction="none")

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        outcomes = arange(2, dtype=self._param.dtype, device=self._param.device)
        outcomes = outcomes.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            outcomes = outcomes.expand((-1,) + tuple(self._batch_shape))
        return outcomes

    @property
    def _natural_params(self):
        return (self.probs.logit(),)

    def _log_normalizer(self, theta):
        return theta.exp().log1p()  # log(1 + e^theta)
