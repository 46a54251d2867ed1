"""Geometric(probs | logits): failures before the first success."""
from .._dtype import finfo
from .._size import Size
from ..autograd.grad_mode import no_grad
from ..ops.creation import zeros_like
from ..ops.losses import binary_cross_entropy_with_logits as _bce_with_logits
from ._binary import BinaryParameter, one_of
from .constraints import nonnegative_integer, real, unit_interval
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryParameter, Distribution):
    """P(k) = (1 - p)^k p for k = 0, 1, ...; p must be positive (it may be 1)."""

    arg_constraints = {"probs": unit_interval, "logits": real}
    support = nonnegative_integer

    _expanded = ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, value = one_of(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        super().__init__(param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            # unit_interval admits 0, which has no first success.
            probs = self.probs
            positive = probs > 0
            if not positive.all():
                raise ValueError(f"Expected parameter probs ({type(probs).__name__} of shape "
                                 f"{tuple(probs.shape)}) of distribution {self!r} to be "
                                 f"positive but found invalid values:\n"
                                 f"{probs.detach()[~positive]}")

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: zeros_like(self.probs))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=Size()):
        # Inversion: floor(log u / log(1 - p)), u uniform on [tiny, 1) so log u is finite.
        tiny = finfo(self.probs.dtype).tiny
        with no_grad():
            u = self.probs.new_empty(self._extended_shape(sample_shape)).uniform_(tiny, 1)
            draws = (u.log() / (-self.probs).log1p()).floor()
        return draws

    def log_prob(self, value):
        self._check(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(0) = 0 for a sure success
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs, reduction="none") / self.probs
