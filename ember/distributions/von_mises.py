"""VonMises(loc, concentration): the circular normal distribution on [-pi, pi).

log I0 and log I1 come from the polynomial approximations of Abramowitz and Stegun
(9.8.1-9.8.4), the ones PyTorch uses, so densities agree with it to the last bits rather
than to the approximation's 1e-7. Draws follow Best and Fisher's (1979) rejection
sampler in float64, three uniforms per round from the shared generator, as PyTorch
draws them, so they are PyTorch's after manual_seed.
"""
import math

from .._dtype import float64
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.creation import empty, zeros
from ..ops.pointwise_select import where
from ..ops.random import rand
from .constraints import positive, real
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1/9.8.3 (|x| < 3.75, in (x / 3.75)^2) and 9.8.2/9.8.4
# (x >= 3.75, in 3.75 / x, scaled by e^x / sqrt(x)); index 0 is I0, 1 is I1.
_SMALL = ((1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
          (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3))
_LARGE = ((0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
           0.2635537e-1, -0.1647633e-1, 0.392377e-2),
          (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
           0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2))


def _horner(y, coefficients):
    total = coefficients[-1]
    for c in coefficients[-2::-1]:
        total = c + y * total
    return total


def _log_bessel(x, order):
    """log I_order(x) for x > 0, order 0 or 1."""
    ratio = x / 3.75
    small = _horner(ratio * ratio, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, _LARGE[order]).log()
    return where(x < 3.75, small.log(), large)


def _best_fisher(loc, kappa, proposal, out):
    """Fill `out` by rejection until every entry is accepted; wrap around loc into [-pi, pi)."""
    accepted = zeros(out.shape, dtype=bool)
    while not accepted.all():
        u1, u2, u3 = rand((3,) + tuple(out.shape), dtype=loc.dtype).unbind()
        z = (math.pi * u1).cos()
        f = (1 + proposal * z) / (proposal + z)
        c = kappa * (proposal - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            out = where(accept, (u3 - 0.5).sign() * f.acos(), out)
            accepted = accepted | accept
    return (out + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Density exp(kappa cos(x - loc)) / (2 pi I0(kappa)); not reparameterisable."""

    arg_constraints = {"loc": real, "concentration": positive}
    support = real
    has_rsample = False

    _expanded = ("loc", "concentration")

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        self._check(value)
        kappa = self.concentration
        return (kappa * (value - self.loc).cos() - math.log(2 * math.pi)
                - _log_bessel(kappa, 0))

    @lazy_property
    def _proposal_r(self):
        kappa = self.concentration.to(float64)
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        # tiny kappa: the series 1 / kappa + kappa avoids rho's cancellation
        return where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=Size()):
        with no_grad():
            shape = self._extended_shape(sample_shape)
            start = empty(shape, dtype=float64)
            draws = _best_fisher(self.loc.to(float64), self.concentration.to(float64),
                                 self._proposal_r, start)
            return draws.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape, _instance)
        except NotImplementedError:  # a subclass with its own __init__: rebuild it
            return type(self)(self.loc.expand(batch_shape),
                              self.concentration.expand(batch_shape),
                              validate_args=self.__dict__.get("_validate_args"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        kappa = self.concentration
        return 1 - (_log_bessel(kappa, 1) - _log_bessel(kappa, 0)).exp()
