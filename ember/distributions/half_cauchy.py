"""HalfCauchy: |C| for a centred Cauchy, folded like HalfNormal."""
import math

from ..ops.creation import full
from ..ops.interop import as_tensor
from .cauchy import Cauchy
from .half_normal import _Folded
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """|C| for C ~ Cauchy(0, scale); heavy tailed, so its mean and variance are infinite."""

    def __init__(self, scale, validate_args=None):
        inner = Cauchy(0, scale, validate_args=False)
        super().__init__(inner, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(HalfCauchy, _instance))

    @property
    def mean(self):
        scale = self.scale
        return full(self._extended_shape(), math.inf, dtype=scale.dtype, device=scale.device)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        # unlike HalfNormal, a plain number is accepted here (PyTorch converts it)
        scale = self.scale
        return super().log_prob(as_tensor(value, dtype=scale.dtype, device=scale.device))
