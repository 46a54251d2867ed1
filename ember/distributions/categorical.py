"""Categorical(probs | logits): one of K classes, probabilities along the last dimension."""
from .._dtype import finfo
from .._dtype import int64 as _int64
from .._size import Size
from ..ops.creation import full
from ..ops.random import multinomial as _multinomial
from ..ops.ranges import arange
from ..ops.views import broadcast_tensors
from ._binary import one_of
from .constraints import dependent_property, independent, integer_interval, real, simplex
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]  # _OverCategorical is shared with one_hot_categorical/multinomial


class Categorical(Distribution):
    """Class indices 0..K-1 drawn with (normalised) weights `probs` or `logits`.

    probs are divided by their sum and logits shifted by their logsumexp on entry, so
    either kind of unnormalised weights is accepted. Draws come from `multinomial`
    with replacement, one row per batch element, as PyTorch draws them.
    """

    arg_constraints = {"probs": simplex, "logits": independent(real, 1)}
    has_enumerate_support = True

    _expanded = ("probs", "logits", "_param")
    _shared = ("_num_events",)

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, value = one_of(probs, logits)
        if value.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            self.probs = value / value.sum(-1, keepdim=True)
        else:
            self.logits = value - value.logsumexp(dim=-1, keepdim=True)
        self._param = self.__dict__[name]
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def _new(self, *shape, **options):
        return self._param.new_empty(*shape, **options)

    @dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype,
                    device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    variance = mean  # undefined for unordered classes, NaN like the mean

    def sample(self, sample_shape=Size()):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        rows = self.probs.reshape(-1, self._num_events)
        draws = _multinomial(rows, sample_shape.numel(), True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        self._check(value)
        index, log_pmf = broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        # -sum p log p; logits of -inf (p = 0) clamped so 0 * finite stays 0.
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        classes = arange(self._num_events, dtype=_int64, device=self._param.device)
        classes = classes.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            classes = classes.expand((-1,) + tuple(self._batch_shape))
        return classes


class _OverCategorical(Distribution):
    """Base of the distributions built on an inner Categorical (one-hot draws, counts).

    They take its parameters (probs, logits, their shape) as their own; their event is a
    vector over the K classes.
    """

    arg_constraints = Categorical.arg_constraints

    def _over(self, probs, logits, validate_args, before_validation=None):
        """Build the inner Categorical, then (after `before_validation`) validate self."""
        self._categorical = inner = Categorical(probs=probs, logits=logits)
        if before_validation is not None:
            before_validation()
        Distribution.__init__(self, inner.batch_shape, inner.param_shape[-1:], validate_args)

    def _new(self, *shape, **options):
        return self._categorical._new(*shape, **options)

    _param = property(lambda self: self._categorical._param)
    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
