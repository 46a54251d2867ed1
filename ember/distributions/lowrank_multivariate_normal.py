"""LowRankMultivariateNormal: Sigma = W W^T + diag(D) with W of shape n x m, m << n.

Everything is done in O(n m^2) through the m x m 'capacitance' C = I + W^T D^-1 W
(Woodbury and the matrix determinant lemma):
    Sigma^-1 = D^-1 - D^-1 W C^-1 W^T D^-1,     log det Sigma = log det C + sum log D,
so the n x n covariance is only formed when the user asks for it.
"""
import math

from .._size import Size
from ..ops.creation import eye
from ..ops.linalg_solve import cholesky, solve_triangular
from ..ops.views import broadcast_tensors
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _mahalanobis_sq, _matvec
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(factor, diag):
    """Cholesky factor of I + W^T D^-1 W."""
    rank = factor.size(-1)
    scaled_t = factor.mT / diag.unsqueeze(-2)
    inner = scaled_t @ factor + eye(rank, dtype=factor.dtype, device=factor.device)
    return cholesky(inner)


def _lowrank_logdet(diag, cap_tril):
    return 2 * cap_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + diag.log().sum(-1)


def _lowrank_mahalanobis(factor, diag, x, cap_tril):
    """x^T Sigma^-1 x by Woodbury: x^T D^-1 x - |C_L^-1 W^T D^-1 x|^2."""
    projected = _matvec(factor.mT / diag.unsqueeze(-2), x)
    return (x.pow(2) / diag).sum(-1) - _mahalanobis_sq(cap_tril, projected)


class LowRankMultivariateNormal(Distribution):
    """N(loc, cov_factor cov_factor^T + diag(cov_diag))."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_col, self.cov_factor, diag_col = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_col[..., 0]
        self.cov_diag = diag_col[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        vector = batch_shape + self.event_shape
        new.loc = self.loc.expand(vector)
        new.cov_diag = self.cov_diag.expand(vector)
        new.cov_factor = self.cov_factor.expand(vector + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                       validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _square_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (factor.pow(2).sum(-1) + diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # Sigma = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2, and the middle factor is
        # well conditioned, so its Cholesky is stable
        root = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        whitened = self._unbroadcasted_cov_factor / root
        size = self._event_shape[0]
        inner = whitened @ whitened.mT + eye(size, dtype=root.dtype, device=root.device)
        return (root * cholesky(inner)).expand(self._square_shape())

    @lazy_property
    def covariance_matrix(self):
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (factor @ factor.mT + diag.diag_embed()).expand(self._square_shape())

    @lazy_property
    def precision_matrix(self):
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        half = solve_triangular(self._capacitance_tril, factor.mT / diag.unsqueeze(-2),
                                upper=False)
        return (diag.reciprocal().diag_embed() - half.mT @ half).expand(self._square_shape())

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        factor = self._unbroadcasted_cov_factor
        # the low-rank noise is drawn before the diagonal noise (PyTorch's stream order)
        low = _standard_normal(shape[:-1] + factor.shape[-1:], dtype=self.loc.dtype,
                               device=self.loc.device)
        full = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _matvec(factor, low)
                + self._unbroadcasted_cov_diag.sqrt() * full)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        dist_sq = _lowrank_mahalanobis(factor, diag, value - self.loc, self._capacitance_tril)
        log_det = _lowrank_logdet(diag, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + dist_sq)

    def entropy(self):
        log_det = _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)
        value = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return value if len(self._batch_shape) == 0 else value.expand(self._batch_shape)
