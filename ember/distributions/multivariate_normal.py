"""MultivariateNormal: a Gaussian vector, held through a Cholesky factor L of its covariance.

Whichever of covariance, precision or scale_tril the user gives, the distribution keeps the
unbroadcasted lower factor L (Sigma = L L^T): sampling is loc + L eps, the log-density
needs |L^-1 (x - loc)|^2 (one triangular solve) and log det Sigma = 2 sum log diag L. The
other two matrices are derived on first use and broadcast to the batch shape.
"""
import math

from .._size import Size
from ..ops.creation import eye
from ..ops.linalg_solve import cholesky, cholesky_inverse, solve_triangular
from ..ops.rearrange import flip
from ..ops.views import broadcast_shapes
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _matvec(mat, vec):
    """Batched matrix @ vector with broadcasting over the leading dims."""
    return (mat @ vec.unsqueeze(-1)).squeeze(-1)


def _mahalanobis_sq(low, diff):
    """|L^-1 diff|^2 over the last dim, L broadcast against diff's batch dims."""
    batch = broadcast_shapes(low.shape[:-2], diff.shape[:-1])
    size = low.shape[-1]
    low = low.expand(tuple(batch) + (size, size))
    diff = diff.expand(tuple(batch) + (size,))
    solved = solve_triangular(low, diff.unsqueeze(-1), upper=False).squeeze(-1)
    return solved.pow(2).sum(-1)


def _precision_to_scale_tril(precision):
    """A lower L with L L^T = P^-1, without inverting P.

    Reversing rows and columns of P turns its 'upper' Cholesky into a lower one; with
    P = U^T U (U upper), P^-1 = U^-1 U^-T, so L = U^-1, which is lower when read back in
    the original order; one triangular solve against the identity produces it.
    """
    reversed_factor = cholesky(flip(precision, (-2, -1)))
    upper = flip(reversed_factor, (-2, -1)).transpose(-2, -1)
    ident = eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return solve_triangular(upper, ident, upper=False)


class MultivariateNormal(Distribution):
    """N(loc, Sigma) on R^n, given exactly one of covariance_matrix, precision_matrix, scale_tril."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(name, mat) for name, mat in (("scale_tril", scale_tril),
                                               ("covariance_matrix", covariance_matrix),
                                               ("precision_matrix", precision_matrix))
                 if mat is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{label} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(Size(batch_shape), self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        vector = batch_shape + self.event_shape
        square = vector + self.event_shape
        new.loc = self.loc.expand(vector)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(square))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _square_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._square_shape())

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return (low @ low.mT).expand(self._square_shape())

    @lazy_property
    def precision_matrix(self):
        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._square_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        # diag(L L^T) is the row-wise sum of squares of L
        return (self._unbroadcasted_scale_tril.pow(2).sum(-1)
                .expand(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        noise = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _matvec(self._unbroadcasted_scale_tril, noise)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        dist_sq = _mahalanobis_sq(self._unbroadcasted_scale_tril, value - self.loc)
        size = self._event_shape[0]
        return -0.5 * (size * math.log(2 * math.pi) + dist_sq) - self._half_log_det()

    def entropy(self):
        size = self._event_shape[0]
        value = 0.5 * size * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return value if len(self._batch_shape) == 0 else value.expand(self._batch_shape)
