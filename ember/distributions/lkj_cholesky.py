"""LKJCholesky(dim, concentration): Cholesky factors of LKJ-distributed correlation matrices.

Sampled by the onion method (Ghosh and Henderson 2003; Lewandowski, Kurowicka and Joe
2009) as PyTorch samples it: one Beta draw per row (through the shared Dirichlet sampler)
sets how much of the row's unit length lies off the diagonal, and a normal vector
normalised to the sphere sets its direction; so draws are PyTorch's after manual_seed.
"""
import math

from .._dtype import finfo
from .._size import Size
from ..ops.joining import cat
from ..ops.random import randn
from ..ops.ranges import arange
from .constraints import corr_cholesky, positive
from .dirichlet import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Density of L proportional to prod_i L_ii^(dim - i + 2 (eta - 1)), eta = concentration
    (i from 2): the factor of a correlation matrix C with density det(C)^(eta - 1)."""

    arg_constraints = {"concentration": positive}
    support = corr_cholesky

    _expanded = ("concentration",)

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        eta = self.concentration
        # row i's Beta(i/2, eta + (dim - 2)/2 - (i - 1)/2), rows 0 and 1 sharing offset 0
        offset = arange(dim - 1, dtype=eta.dtype, device=eta.device)
        offset = cat([offset.new_zeros((1,)), offset])
        marginal = eta + 0.5 * (dim - 2)
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(eta.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        radius2 = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = randn(self._extended_shape(sample_shape), dtype=radius2.dtype,
                       device=radius2.device).tril(-1)
        direction = normal / normal.norm(dim=-1, keepdim=True)
        direction[..., 0, :].fill_(0.0)  # the first row is (1, 0, ..., 0)
        factor = radius2.sqrt() * direction
        diagonal = (1 - factor.pow(2).sum(-1)).clamp(min=finfo(factor.dtype).tiny).sqrt()
        factor += diagonal.diag_embed()
        return factor

    def log_prob(self, value):
        self._check(value)
        dim, eta = self.dim, self.concentration
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        powers = 2 * (eta - 1).unsqueeze(-1) + dim - arange(2, dim + 1, device=eta.device)
        unnormalised = (powers * diagonal.log()).sum(-1)
        rows = dim - 1
        alpha = eta + 0.5 * rows
        normaliser = 0.5 * rows * math.log(math.pi) + (alpha - 0.5).mvlgamma(rows) \
            - alpha.lgamma() * rows
        return unnormalised - normaliser
