"""Dirichlet(concentration) and Beta(concentration1, concentration0), its two-class case."""
from numbers import Real

from ..autograd.function import Function
from ..ops.creation import tensor
from ..ops.joining import stack
from ..ops.nn_linear import one_hot as _one_hot
from ..ops.random_samplers import _dirichlet_grad, _sample_dirichlet
from .constraints import independent, positive, simplex, unit_interval
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Dirichlet", "Beta"]


class _Dirichlet(Function):
    """A Dirichlet draw with its pathwise (implicit reparameterisation) gradient.

    Raising one concentration a_i moves x_i by g_i (1 - x_i) and every other x_j by
    -g_i x_j (they keep summing to one), g_i from `_dirichlet_grad`.
    """

    @staticmethod
    def forward(ctx, concentration):
        draws = _sample_dirichlet(concentration)
        ctx.save_for_backward(draws, concentration)
        return draws

    @staticmethod
    def backward(ctx, grad_output):
        draws, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        pathwise = _dirichlet_grad(draws, concentration, total)
        return pathwise * (grad_output - (draws * grad_output).sum(-1, True))


class Dirichlet(ExponentialFamily):
    """Density Gamma(sum a) / prod Gamma(a_i) * prod x_i^(a_i - 1) on the simplex."""

    arg_constraints = {"concentration": independent(positive, 1)}
    support = simplex
    has_rsample = True

    _expanded = ("concentration",)

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def rsample(self, sample_shape=()):
        return _Dirichlet.apply(self.concentration.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._check(value)
        a = self.concentration
        return (a - 1.0).xlogy(value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        excess = (self.concentration - 1).clamp(min=0.0)
        mode = excess / excess.sum(-1, True)
        # With every a_i < 1 the density peaks at a vertex: the largest a_i's.
        vertex = (self.concentration < 1).all(dim=-1)
        mode[vertex] = _one_hot(excess[vertex].argmax(dim=-1), excess.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        a = self.concentration
        k, total = a.size(-1), a.sum(-1)
        return (a.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma()
                - ((a - 1.0) * a.digamma()).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, theta):
        return theta.lgamma().sum(-1) - theta.sum(-1).lgamma()


class Beta(ExponentialFamily):
    """Beta(c1, c0) on [0, 1]: the first coordinate of Dirichlet([c1, c0])."""

    arg_constraints = {"concentration1": positive, "concentration0": positive}
    support = unit_interval
    has_rsample = True

    _expanded = ("_dirichlet",)

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Real) and isinstance(concentration0, Real):
            pair = tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            pair = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        c1, c0 = self.concentration1, self.concentration0
        total = c1 + c0
        return c1 * c0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        self._check(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, first, second):
        return first.lgamma() + second.lgamma() - (first + second).lgamma()  # log B(a, b)
