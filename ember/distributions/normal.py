"""Normal(loc, scale): the Gaussian, reparameterised as loc + scale * eps."""
import math

from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.random import normal as _normal
from .constraints import positive, real
from .exp_family import ExponentialFamily
from .utils import _standard_normal

__all__ = ["Normal"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class Normal(ExponentialFamily):
    """The normal distribution N(loc, scale**2).

    `sample` draws with `ember.normal(loc, scale)` and `rsample` scales `normal_()` noise,
    the two streams PyTorch uses, so seeded draws agree with it.
    """

    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True
    _mean_carrier_measure = 0  # the base measure h(x) is constant

    _expanded = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self._init_params(validate_args, loc=loc, scale=scale)

    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale.pow(2))

    def sample(self, sample_shape=Size()):
        full = self._extended_shape(sample_shape)
        with no_grad():
            draws = _normal(self.loc.expand(full), self.scale.expand(full))
        return draws

    def rsample(self, sample_shape=Size()):
        eps = _standard_normal(self._extended_shape(sample_shape), self.loc.dtype,
                               self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        self._check(value)
        # log N(x) = -(x - m)^2 / (2 s^2) - log s - log sqrt(2 pi)
        return (-((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log()
                - _HALF_LOG_2PI)

    def cdf(self, value):
        self._check(value)
        z = (value - self.loc) * self.scale.reciprocal() / math.sqrt(2)
        return 0.5 * (1 + z.erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log()

    # Natural parameters (m / s^2, -1 / (2 s^2)); A(t1, t2) = -t1^2 / (4 t2) + log(-pi / t2) / 2
    @property
    def _natural_params(self):
        precision = self.scale.pow(2).reciprocal()
        return self.loc * precision, -0.5 * precision

    def _log_normalizer(self, first, second):
        return -0.25 * first.pow(2) / second + 0.5 * (-math.pi / second).log()
