"""LogNormal and LogisticNormal: a Normal pushed through exp, or onto the simplex.

Both keep their parameters on the Normal inside (read through `_from_base`), so there is
one copy to expand and validate; densities come from TransformedDistribution's change of
variables, and only the moments with closed forms are written out here.
"""
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution, _from_base
from .transforms import ExpTransform, StickBreakingTransform

__all__ = ["LogNormal", "LogisticNormal"]


class LogNormal(TransformedDistribution):
    """X = exp(Z), Z ~ Normal(loc, scale); loc and scale are Z's moments, not X's."""

    arg_constraints = Normal.arg_constraints  # the parameters are the inner Normal's
    support = constraints.positive
    has_rsample = True
    loc = _from_base("loc")
    scale = _from_base("scale")

    def __init__(self, loc, scale, validate_args=None):
        inner = Normal(loc, scale, validate_args=validate_args)
        super().__init__(inner, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(LogNormal, _instance))

    @property
    def mean(self):
        """E[X] = exp(mu + sigma^2 / 2)."""
        return (self.loc + 0.5 * self.scale.pow(2)).exp()

    @property
    def mode(self):
        """argmax of the density: exp(mu - sigma^2)."""
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        """(exp(sigma^2) - 1) exp(2 mu + sigma^2), with expm1 for small sigma."""
        spread = self.scale.pow(2)
        return spread.expm1() * (2 * self.loc + spread).exp()

    def entropy(self):
        """h(exp Z) = h(Z) + E[Z]: the log-Jacobian of exp is Z itself."""
        return self.loc + self.base_dist.entropy()


class LogisticNormal(TransformedDistribution):
    """X = stick_break(Z), Z ~ Normal(loc, scale) of length K; X lies on the (K+1)-simplex.

    The base is Independent(Normal, 1), so the parameters sit two levels down.
    """

    arg_constraints = Normal.arg_constraints  # the parameters are the inner Normal's
    support = constraints.simplex
    has_rsample = True
    loc = _from_base("loc", depth=2)
    scale = _from_base("scale", depth=2)

    def __init__(self, loc, scale, validate_args=None):
        inner = Normal(loc, scale, validate_args=validate_args)
        if not inner.batch_shape:
            # stick breaking needs a vector to act on
            inner = inner.expand([1])
        super().__init__(inner, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape,
                              self._get_checked_instance(LogisticNormal, _instance))
