"""The coin-flip family's parameter: a probability or its log-odds, never both.

Bernoulli, Binomial, Geometric, NegativeBinomial, ContinuousBernoulli and the relaxed
Bernoulli are each built from `probs` or `logits`. Whichever is given is stored as is;
the other is derived on first use and cached, so `log_prob` can work on logits directly
(a numerically stable cross-entropy) and gradients flow to the parameter the user gave.
"""
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["BinaryParameter", "StoredParameter", "one_of"]


def one_of(probs, logits):
    """The one parameter given, as (name, value); PyTorch refuses both or neither."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


class BinaryParameter:
    """Mixin: `probs` and `logits` derived from each other, each computed once."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class StoredParameter:
    """Mixin for distributions that keep the given parameter as `_param`.

    `param_shape` and `_new` (an empty tensor like the parameter, for `expand` and
    sampling) read it, whichever of probs/logits it is.
    """

    @property
    def param_shape(self):
        return self._param.size()

    def _new(self, *shape, **options):
        return self._param.new_empty(*shape, **options)
