"""RelaxedBernoulli (binary Concrete) and the logit-space LogitRelaxedBernoulli beneath it.

A Bernoulli draw is [logit + logistic noise > 0]; dividing by a temperature instead of
thresholding gives a differentiable relaxation that hardens as the temperature -> 0.
In logit space the draw is a logistic variable with location logit/t and scale 1/t,
whose density is simple; the sigmoid on top is a TransformedDistribution.
"""
from numbers import Number

from .._size import Size
from ..ops.random import rand
from . import constraints
from ._binary import BinaryParameter, StoredParameter, one_of
from .bernoulli import Bernoulli
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution, _from_base
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryParameter, StoredParameter, Distribution):
    """(logit(p) + log U - log(1 - U)) / temperature for U ~ Uniform(0, 1)."""

    arg_constraints = Bernoulli.arg_constraints  # parameterised like the hard Bernoulli
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        name, given = one_of(probs, logits)
        self.temperature = temperature
        (self._param,) = broadcast_all(given)
        setattr(self, name, self._param)
        shape = Size() if isinstance(given, Number) else self._param.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        new.temperature, batch_shape = self.temperature, Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new._param = self.__dict__[name].expand(batch_shape)
                setattr(new, name, new._param)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        full = self._extended_shape(sample_shape)
        p = clamp_probs(self.probs.expand(full))
        u = clamp_probs(rand(full, dtype=p.dtype, device=p.device))
        # logit(u) + logit(p), both written as log x - log(1 - x)
        return (u.log() - u.neg().log1p() + p.log() - p.neg().log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, logits = broadcast_all(value, self.logits)
        # a logistic density at value, location logits / t and scale 1 / t:
        # log t + d - 2 log(1 + e^d) with d = logits - t * value
        gap = logits - value.mul(self.temperature)
        return self.temperature.log() + gap - 2 * gap.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli: values in (0, 1) that approach {0, 1} as t -> 0."""

    arg_constraints = LogitRelaxedBernoulli.arg_constraints
    support = constraints.unit_interval
    has_rsample = True
    temperature = _from_base("temperature")
    logits = _from_base("logits")
    probs = _from_base("probs")

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        inner = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(inner, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape,
                              self._get_checked_instance(RelaxedBernoulli, _instance))
