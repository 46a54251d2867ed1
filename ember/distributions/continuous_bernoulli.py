"""ContinuousBernoulli(probs | logits): a density on [0, 1] proportional to p^x (1-p)^(1-x).

Loaiza-Ganem and Cunningham (2019). Its normaliser C(p) = 2 atanh(1 - 2p) / (1 - 2p) is
0/0 at p = 1/2, so, as PyTorch does, every quantity is computed with p kept out of the
band `lims` around 1/2 and, inside the band, replaced by its Taylor expansion in
(p - 1/2); draws are the inverse CDF of uniforms from the shared generator.
"""
import math
from numbers import Number

from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.losses import binary_cross_entropy_with_logits as _bce_with_logits
from ..ops.pointwise_select import where
from ..ops.random import rand
from ._binary import BinaryParameter, StoredParameter, one_of
from .constraints import real, unit_interval
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]

_LOG2 = math.log(2.0)


class ContinuousBernoulli(BinaryParameter, StoredParameter, ExponentialFamily):
    """The continuous relaxation of Bernoulli(probs) whose density is a proper one."""

    arg_constraints = {"probs": unit_interval, "logits": real}
    support = unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    _expanded = ("probs", "logits", "_param")
    _shared = ("_lims",)

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        _, given = one_of(probs, logits)
        (self._param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not unit_interval.check(self._param).all():
                raise ValueError("The parameter probs has invalid values")
            self._param = self.probs = clamp_probs(self._param)
        else:
            self.logits = self._param
        self._lims = lims
        batch_shape = Size() if isinstance(given, Number) else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_property
    def probs(self):  # clamped, as the stored probs are
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    # ---- the band around p = 1/2 where the closed forms are 0/0
    def _stable(self):
        """True where p lies outside the band (the closed forms are safe there)."""
        low, high = self._lims
        return (self.probs <= low) | (self.probs > high)

    def _safe_probs(self):
        """p outside the band; the band's lower edge inside it (a harmless stand-in)."""
        return where(self._stable(), self.probs, self.probs.new_full((), self._lims[0])
                     .expand_as(self.probs))

    def _log_normaliser(self):
        p = self._safe_probs()
        below = where(p <= 0.5, p, 0.0)
        above = where(p >= 0.5, p, 1.0)
        closed = (p.neg().log1p() - p.log()).abs().log() - where(
            p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        square = (self.probs - 0.5).pow(2)
        series = _LOG2 + (4.0 / 3.0 + 104.0 / 45.0 * square) * square
        return where(self._stable(), closed, series)

    @property
    def mean(self):
        p = self._safe_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / (p.neg().log1p() - p.log())
        shift = self.probs - 0.5
        series = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * shift.pow(2)) * shift
        return where(self._stable(), closed, series)

    @property
    def variance(self):
        p = self._safe_probs()
        closed = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / (
            p.neg().log1p() - p.log()).pow(2)
        square = (self.probs - 0.5).pow(2)
        series = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * square) * square
        return where(self._stable(), closed, series)

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        uniforms = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype,
                        device=self.probs.device)
        with no_grad():
            return self.icdf(uniforms)

    def rsample(self, sample_shape=Size()):
        uniforms = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype,
                        device=self.probs.device)
        return self.icdf(uniforms)

    def log_prob(self, value):
        self._check(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value, reduction="none") + self._log_normaliser()

    def cdf(self, value):
        self._check(value)
        p = self._safe_probs()
        closed = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = where(self._stable(), closed, value)
        return where(value <= 0.0, value.new_zeros(()).expand_as(value),
                     where(value >= 1.0, value.new_ones(()).expand_as(value), inside))

    def icdf(self, value):
        p = self._safe_probs()
        closed = ((value * (2.0 * p - 1.0) - p).log1p() - p.neg().log1p()) / (
            p.log() - p.neg().log1p())
        return where(self._stable(), closed, value)

    def entropy(self):
        log_q, log_p = self.probs.neg().log1p(), self.probs.log()
        return self.mean * (log_q - log_p) - self._log_normaliser() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, theta):
        low, high = self._lims[0] - 0.5, self._lims[1] - 0.5
        stable = (theta <= low) | (theta > high)
        safe = where(stable, theta, theta.new_full((), low).expand_as(theta))
        closed = safe.expm1().abs().log() - safe.abs().log()
        series = 0.5 * theta + theta.pow(2) / 24.0 - theta.pow(4) / 2880.0
        return where(stable, closed, series)
