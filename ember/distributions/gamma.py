"""Gamma(concentration, rate) and its special case Chi2(df) = Gamma(df / 2, 1 / 2)."""
from .._dtype import finfo
from .._size import Size
from ..ops.interop import as_tensor
from ..ops.random_samplers import _standard_gamma
from ..ops.special import special_gammainc
from .constraints import nonnegative, positive
from .exp_family import ExponentialFamily

__all__ = ["Gamma", "Chi2"]


class Gamma(ExponentialFamily):
    """Density rate^a x^(a-1) e^(-rate x) / Gamma(a), a = concentration.

    Draws are PyTorch's (`_standard_gamma` on its stream) divided by the rate; they are
    reparameterised through the exact implicit derivative of the gamma quantile.
    """

    arg_constraints = {"concentration": positive, "rate": positive}
    support = nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    _expanded = ("concentration", "rate")

    def __init__(self, concentration, rate, validate_args=None):
        self._init_params(validate_args, concentration=concentration, rate=rate)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0))
    variance = property(lambda self: self.concentration / self.rate.pow(2))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        draws = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # Keep draws off exactly 0 (float underflow), without touching the graph.
        draws.detach().clamp_(min=finfo(draws.dtype).tiny)
        return draws

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        self._check(value)
        a, rate = self.concentration, self.rate
        return a.xlogy(rate) + (a - 1).xlogy(value) - rate * value - a.lgamma()

    def cdf(self, value):
        self._check(value)
        return special_gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    # Natural parameters (a - 1, -rate); A = log Gamma(a) - a log(rate).
    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, first, second):
        shape = first + 1
        return shape.lgamma() + shape * (-second.reciprocal()).log()


class Chi2(Gamma):
    """Chi-squared with `df` degrees of freedom: Gamma(df / 2, rate 1 / 2)."""

    arg_constraints = {"df": positive}

    _expanded = Gamma._expanded  # df is derived from the concentration

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2
