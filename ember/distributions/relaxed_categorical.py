"""RelaxedOneHotCategorical (Concrete / Gumbel-softmax) and ExpRelaxedCategorical beneath it.

A categorical draw is argmax(logits + Gumbel noise); replacing argmax by a softmax at a
temperature gives a differentiable point on the simplex. ExpRelaxedCategorical works with
the log of that point (a log-softmax), where the density has a closed form.
"""
from .._size import Size
from ..ops.creation import full_like
from ..ops.random import rand
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution, _from_base
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


def _from_categorical(name):
    return property(lambda self: getattr(self._categorical, name))


def _log_normalised(scores):
    """scores minus their log-sum-exp over the last dim (a log-softmax)."""
    return scores - scores.logsumexp(-1, True)


class ExpRelaxedCategorical(Distribution):
    """log_softmax((logits + Gumbel noise) / temperature); the logits live on a Categorical."""

    arg_constraints = Categorical.arg_constraints  # parameterised like the hard Categorical
    support = constraints.real_vector
    has_rsample = True
    param_shape = _from_categorical("param_shape")
    logits = _from_categorical("logits")
    probs = _from_categorical("probs")

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        hard = self._categorical = Categorical(probs, logits)
        super().__init__(hard.batch_shape, hard.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature, batch_shape = self.temperature, Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        logits = self.logits
        u = clamp_probs(rand(self._extended_shape(sample_shape), dtype=logits.dtype,
                             device=logits.device))
        gumbel = -(-u.log()).log()
        return _log_normalised((logits + gumbel) / self.temperature)

    def log_prob(self, value):
        count = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        value, logits = broadcast_all(value, self.logits)
        # the Concrete density's normaliser: log((K-1)!) + (K-1) log t
        normaliser = (full_like(self.temperature, float(count)).lgamma()
                      + (count - 1) * self.temperature.log())
        exponent = _log_normalised(logits - value.mul(self.temperature)).sum(-1)
        return exponent + normaliser


class RelaxedOneHotCategorical(TransformedDistribution):
    """exp of an ExpRelaxedCategorical: a point on the simplex near a one-hot vector."""

    arg_constraints = ExpRelaxedCategorical.arg_constraints
    support = constraints.simplex
    has_rsample = True
    temperature = _from_base("temperature")
    logits = _from_base("logits")
    probs = _from_base("probs")

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        inner = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(inner, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape,
                              self._get_checked_instance(RelaxedOneHotCategorical, _instance))
