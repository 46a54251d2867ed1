"""OneHotCategorical: a Categorical whose draws are one-hot vectors (event shape (K,))."""
from .._size import Size
from ..ops.creation import eye
from ..ops.nn_linear import one_hot as _one_hot
from .categorical import _OverCategorical
from .constraints import one_hot

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(_OverCategorical):
    """A one-hot vector of length K with its 1 at a Categorical(probs | logits) index.

    Everything is delegated to an inner Categorical; the one-hot encoding is applied
    to its draws and undone (argmax) before scoring.
    """

    support = one_hot
    has_enumerate_support = True

    _expanded = ("_categorical",)

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._over(probs, logits, validate_args)

    mean = _OverCategorical.probs
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        probs = self._categorical.probs
        return _one_hot(probs.argmax(-1), num_classes=probs.shape[-1]).to(probs)

    def sample(self, sample_shape=Size()):
        indices = self._categorical.sample(Size(sample_shape))
        return _one_hot(indices, self._categorical._num_events).to(self._categorical.probs)

    def log_prob(self, value):
        self._check(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()  # a relabelling keeps the entropy

    def enumerate_support(self, expand=True):
        k = self._event_shape[0]
        vectors = eye(k, dtype=self._param.dtype, device=self._param.device)
        vectors = vectors.view((k,) + (1,) * len(self._batch_shape) + (k,))
        if expand:
            vectors = vectors.expand((k,) + tuple(self._batch_shape) + (k,))
        return vectors


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with the straight-through gradient estimator (Bengio et al. 2013).

    The draw is exact in the forward pass; its gradient is that of the probabilities.
    """

    has_rsample = True

    def rsample(self, sample_shape=Size()):
        draws = self.sample(sample_shape)
        probs = self._categorical.probs  # cached, so the graph reaches the parameters
        return draws + (probs - probs.detach())
