"""Laplace(loc, scale): the double exponential."""
from .._dtype import finfo
from .._size import Size
from .constraints import positive, real
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Density exp(-|x - loc| / scale) / (2 scale); sampled by inverting its CDF."""

    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    _expanded = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._init_params(validate_args, loc=loc, scale=scale)

    mean = mode = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale.pow(2))
    stddev = property(lambda self: (2 ** 0.5) * self.scale)

    def rsample(self, sample_shape=Size()):
        # u uniform on (-1 + eps, 1): x = loc - scale sign(u) log(1 - |u|), never log(0).
        eps = finfo(self.loc.dtype).eps
        u = self.loc.new_empty(self._extended_shape(sample_shape)).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        self._check(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._check(value)
        offset = value - self.loc
        return 0.5 - 0.5 * offset.sign() * (-offset.abs() / self.scale).expm1()

    def icdf(self, value):
        centred = value - 0.5
        return self.loc - self.scale * centred.sign() * (-2 * centred.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
