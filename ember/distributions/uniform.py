"""Uniform(low, high): constant density on [low, high)."""
from .._size import Size
from ..ops.random import rand
from .constraints import dependent, dependent_property, interval
from .distribution import Distribution

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform on the half-open interval [low, high), reparameterised as low + u (high - low)."""

    # The bounds constrain each other (low < high), checked in __init__.
    arg_constraints = {"low": dependent(is_discrete=False, event_dim=0),
                       "high": dependent(is_discrete=False, event_dim=0)}
    has_rsample = True
    _expanded = ("low", "high")

    def __init__(self, low, high, validate_args=None):
        self._init_params(validate_args, low=low, high=high)
        if self._validate_args and not (self.low < self.high).all():
            raise ValueError("Uniform is not defined when low>= high")

    @dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return interval(self.low, self.high)

    mean = property(lambda self: (self.high + self.low) / 2)
    mode = property(lambda self: float("nan") * self.high)
    stddev = property(lambda self: (self.high - self.low) / 12 ** 0.5)
    variance = property(lambda self: (self.high - self.low).pow(2) / 12)

    def rsample(self, sample_shape=Size()):
        u = rand(self._extended_shape(sample_shape), dtype=self.low.dtype,
                 device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        self._check(value)
        inside = (self.low <= value).type_as(self.low) * (self.high > value).type_as(self.low)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        self._check(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
