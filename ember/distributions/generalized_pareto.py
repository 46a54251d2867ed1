"""GeneralizedPareto(loc, scale, concentration): the peaks-over-threshold law of extreme
value theory. The shape parameter xi = concentration may be 0 (an exponential tail),
where the general formulas divide by it: as PyTorch does, xi is swapped for 1 there
(isclose to 0) and the xi -> 0 limit is used instead. Draws are the inverse CDF of
uniforms from the shared generator."""
import math

from .._size import Size
from ..ops.creation import tensor
from ..ops.pointwise_select import where
from ..ops.random import rand
from .constraints import dependent_property, interval, positive, real
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Survival function (1 + xi z)^(-1/xi), z = (x - loc) / scale (e^-z for xi = 0)."""

    arg_constraints = {"loc": real, "scale": positive, "concentration": real}
    has_rsample = True

    _expanded = ("loc", "scale", "concentration")

    def __init__(self, loc, scale, concentration, validate_args=None):
        numbers = all(isinstance(v, (int, float)) for v in (loc, scale, concentration))
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def _xi(self, zero_like=False):
        """(where xi counts as zero, xi with those entries replaced by 1); PyTorch's densities
        compare xi with a float32 zero (so float64 parameters raise there), icdf with a zero
        of xi's own dtype."""
        xi = self.concentration
        zero = xi.isclose(xi.new_zeros(xi.shape) if zero_like else tensor(0.0))
        return zero, where(zero, xi.new_ones(()).expand_as(xi), xi)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=Size()):
        uniforms = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                        device=self.loc.device)
        return self.icdf(uniforms)

    def log_prob(self, value):
        self._check(value)
        z = self._z(value)
        zero, xi = self._xi()
        power = 1 / xi + z.new_ones(()).expand_as(z)
        general = where(power == 0, power, power * (xi * z).log1p())
        return -self.scale.log() - where(zero, z, general)

    def log_survival_function(self, value):
        self._check(value)
        z = self._z(value)
        zero, xi = self._xi()
        return where(zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        zero, xi = self._xi(zero_like=True)
        log_tail = (-value).log1p()
        general = self.loc + self.scale / xi * (-xi * log_tail).expm1()
        return where(zero, self.loc - self.scale * log_tail, general)

    @property
    def mean(self):
        xi = self.concentration
        finite = xi < 1
        return where(finite, self.loc + self.scale / (1 - where(finite, xi, 0.5)), math.nan)

    @property
    def variance(self):
        xi = self.concentration
        finite = xi < 0.5
        safe = where(finite, xi, 0.25)
        return where(finite, self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).broadcast_to(self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration,
                      math.inf)
        return interval(lower, upper)
