"""Cauchy(loc, scale): the Lorentz distribution (no mean, no variance)."""
import math

from .._size import Size
from ..ops.creation import full
from .constraints import positive, real
from .distribution import Distribution

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Density 1 / (pi scale (1 + ((x - loc) / scale)^2)); rsample scales `cauchy_()`."""

    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    _expanded = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._init_params(validate_args, loc=loc, scale=scale)

    def _filled(self, value):
        return full(self._extended_shape(), value, dtype=self.loc.dtype,
                    device=self.loc.device)

    mean = property(lambda self: self._filled(float("nan")))
    mode = property(lambda self: self.loc)
    variance = property(lambda self: self._filled(float("inf")))

    def rsample(self, sample_shape=Size()):
        standard = self.loc.new_empty(self._extended_shape(sample_shape)).cauchy_()
        return self.loc + standard * self.scale

    def log_prob(self, value):
        self._check(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z ** 2).log1p()

    def cdf(self, value):
        self._check(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
