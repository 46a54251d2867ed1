"""ExponentialFamily: distributions p(x) = h(x) exp(<theta, t(x)> - A(theta)).

Such a distribution's entropy needs only its log-normalizer A: the mean parameters are
grad A(theta), so H = A(theta) - <theta, grad A(theta)> - E[log h(x)]. The gradient
comes from ember's own autograd (with create_graph, so the entropy stays differentiable),
which lets a subclass state A and get its entropy (and Bregman-divergence KLs) for free.
"""
from ..autograd.api import grad as _autograd_grad
from .distribution import Distribution, _abstract

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base of the exponential-family distributions (entropy through the log-normalizer)."""

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of tensors."""
        _abstract()

    def _log_normalizer(self, *natural_params):
        """A(theta), the log of the normalising constant, batched."""
        _abstract()

    @property
    def _mean_carrier_measure(self):
        """E[log h(x)], the expected log base measure."""
        _abstract()

    def entropy(self):
        thetas = [theta.detach().requires_grad_() for theta in self._natural_params]
        normalizer = self._log_normalizer(*thetas)
        means = _autograd_grad(normalizer.sum(), thetas, create_graph=True)
        result = -self._mean_carrier_measure + normalizer
        for theta, mean in zip(thetas, means):
            result = result - (theta * mean).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
