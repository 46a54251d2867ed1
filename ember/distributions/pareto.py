"""Pareto(scale, alpha): the power-law tail, built as PyTorch builds it, from an
Exponential(alpha) draw E mapped to scale * e^E; its draws are therefore the Exponential
sampler's (PyTorch's after manual_seed) and its density the transformed one."""
from .constraints import dependent_property, greater_than_eq, positive
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Density alpha scale^alpha / x^(alpha + 1) on [scale, inf)."""

    arg_constraints = {"alpha": positive, "scale": positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        steps = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(Exponential(self.alpha, validate_args=validate_args), steps,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale, new.alpha = self.scale.expand(batch_shape), self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        # alpha <= 1 has no mean: clamped to 1, the division gives inf, as in PyTorch
        shape = self.alpha.clamp(min=1)
        return self.scale * shape / (shape - 1)

    mode = property(lambda self: self.scale, doc="The lower end of the support.")

    @property
    def variance(self):
        shape = self.alpha.clamp(min=2)  # infinite below 2
        return shape * self.scale.pow(2) / ((shape - 2) * (shape - 1).pow(2))

    @dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return greater_than_eq(self.scale)

    def entropy(self):
        return 1 + self.alpha.reciprocal() + (self.scale / self.alpha).log()
