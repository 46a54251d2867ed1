"""MixtureSameFamily: a Categorical choice among K components of one distribution family.

The component distribution carries the K components in its rightmost batch dim; the
mixture's density is a log-sum-exp of component log-densities plus log weights, and its
moments follow from the laws of total expectation and variance.
"""
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..nn.functional import log_softmax
from ..ops.gather_scatter import gather
from ..ops.reduction import logsumexp
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """p(x) = sum_k pi_k p_k(x), pi from `mixture_distribution`, p_k from `component_distribution`."""

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "ember.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "ember.distributions.Distribution")
        mix_batch = mixture_distribution.batch_shape
        comp_batch = component_distribution.batch_shape[:-1]
        for left, right in zip(reversed(mix_batch), reversed(comp_batch)):
            if left != 1 and right != 1 and left != right:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not "
                                 "compatible with `component_distribution.batch_shape`"
                                 f"({comp_batch})")
        k_mix = mixture_distribution.logits.shape[-1]
        k_comp = component_distribution.batch_shape[-1]
        if k_mix is not None and k_comp is not None and k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._num_component = k_mix
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=comp_batch, event_shape=event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        batch_shape = Size(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(
            batch_shape=batch_shape, event_shape=new._component_distribution.event_shape,
            validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _weights(self):
        """Mixture probs shaped to broadcast against the component's batch and event dims."""
        probs = self.mixture_distribution.probs
        mix_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if mix_ndims == 1 else len(self.batch_shape) - mix_ndims
        head = probs.shape[:-1]
        return probs.reshape(tuple(head) + (1,) * pad + tuple(probs.shape[-1:])
                             + (1,) * self._event_ndims)

    def _pad(self, x):
        """Insert the component axis, so x broadcasts against every component."""
        return x.unsqueeze(-1 - self._event_ndims)

    @property
    def mean(self):
        return (self._weights() * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        # Var X = E[Var(X | k)] + Var(E[X | k])
        weights = self._weights()
        comp = self.component_distribution
        axis = -1 - self._event_ndims
        within = (weights * comp.variance).sum(axis)
        between = (weights * (comp.mean - self._pad(self.mean)).pow(2.0)).sum(axis)
        return within + between

    def cdf(self, x):
        per_component = self.component_distribution.cdf(self._pad(x))
        return (per_component * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self.component_distribution.log_prob(self._pad(x))
        log_weights = log_softmax(self.mixture_distribution.logits, dim=-1)
        return logsumexp(per_component + log_weights, dim=-1)

    def sample(self, sample_shape=Size()):
        with no_grad():
            axis = len(sample_shape) + len(self.batch_shape)
            event = self.event_shape
            # the choice is drawn first, then every component (PyTorch's stream order)
            choice = self.mixture_distribution.sample(sample_shape)
            draws = self.component_distribution.sample(sample_shape)
            index = choice.reshape(tuple(choice.shape) + (1,) * (len(event) + 1))
            index = index.repeat((1,) * choice.dim() + (1,) + tuple(event))
            return gather(draws, axis, index).squeeze(axis)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n"
                f"  {self.component_distribution})")
