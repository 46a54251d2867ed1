"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): sums of outer products
of df normal vectors, a distribution over positive-definite matrices.

Draws use Bartlett's decomposition as PyTorch does: chi-square square roots (Chi2 on the
shared Gamma sampler) on the diagonal of a lower factor, standard normals below it. They
then follow PyTorch's redraw loop exactly, including its quirk: the loop is entered when
`support.check` is true, which it is for every valid sample, so PyTorch warns "Singular
sample detected." and draws once more for the flagged samples; ember does the same, so
the values, the warning and the number of draws match after manual_seed.
"""
import math
import warnings

from .._dtype import finfo
from .._size import Size
from ..ops.creation import eye, tensor
from ..ops.linalg import matmul
from ..ops.linalg_solve import cholesky, cholesky_solve, slogdet
from ..ops.random import randn
from ..ops.ranges import arange, tril_indices
from ..ops.views import broadcast_shapes
from .constraints import greater_than, lower_cholesky, positive_definite
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG2 = math.log(2)
_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _multivariate_digamma(x, p):
    """sum_{i < p} digamma(x - i / 2)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype, device=x.device).div(2).expand(x.shape + (-1,))
    return (x.unsqueeze(-1) - halves).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """W(df, S) on p x p positive-definite matrices, df > p - 1 (mean df S)."""

    support = positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": positive_definite, "precision_matrix": positive_definite,
                "scale_tril": lower_cholesky, "df": greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [(name, value) for name, value in zip(
            _MATRICES, (covariance_matrix, precision_matrix, scale_tril)) if value is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, (int, float)):
            batch_shape = Size(matrix.shape[:-2])
            self.df = tensor(df, dtype=matrix.dtype, device=matrix.device)
        else:
            batch_shape = broadcast_shapes(matrix.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = matrix.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)
        self._set_chi2()

    def _set_chi2(self):
        """Chi2(df - i) for the i-th diagonal entry of Bartlett's factor."""
        self._batch_dims = [-(d + 1) for d in range(len(self._batch_shape))]
        low = self._unbroadcasted_scale_tril
        steps = arange(self._event_shape[-1], dtype=low.dtype, device=low.device)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1)
                               - steps.expand(self._batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        square = batch_shape + self._event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(square)
        new.df = self.df.expand(batch_shape)
        for name in _MATRICES:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(square))
        ExponentialFamily.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._set_chi2()
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return matmul(low, low.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        low = self._unbroadcasted_scale_tril
        ident = eye(self._event_shape[-1], device=low.device, dtype=low.dtype)
        return cholesky_solve(ident, low).expand(self._batch_shape + self._event_shape)

    def _df_as_matrix(self, df):
        return df.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_as_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return self._df_as_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        cov = self.covariance_matrix
        diagonal = cov.diagonal(dim1=-2, dim2=-1)
        return self._df_as_matrix(self.df) * (
            cov.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _bartlett(self, sample_shape):
        p = self._event_shape[-1]
        roots = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = roots.clamp(min=finfo(roots.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        rows, cols = tril_indices(p, p, offset=-1)
        noise[..., rows, cols] = randn(Size(sample_shape) + self._batch_shape
                                       + (p * (p - 1) // 2,), dtype=noise.dtype,
                                       device=noise.device)
        factor = matmul(self._unbroadcasted_scale_tril, noise)
        return matmul(factor, factor.transpose(-2, -1))

    def _flag(self, sample):
        flags = self.support.check(sample)
        return flags.amax(self._batch_dims) if self._batch_shape else flags

    def rsample(self, sample_shape=Size(), max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett(sample_shape)
        flagged = self._flag(sample)  # PyTorch's check flags valid samples (see above)
        if flagged.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redrawn = self._bartlett(flagged[flagged].shape)
                sample[flagged] = redrawn
                still = ~self.support.check(redrawn)
                if self._batch_shape:
                    still = still.amax(self._batch_dims)
                flagged[flagged.clone()] = still
                if not flagged.any():
                    break
        return sample

    def log_prob(self, value):
        self._check(value)
        nu, p = self.df, self._event_shape[-1]
        low = self._unbroadcasted_scale_tril
        log_det_scale = low.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = cholesky_solve(value, low).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG2 / 2 + log_det_scale) - (nu / 2).mvlgamma(p)
                + (nu - p - 1) / 2 * slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG2 / 2 + log_det_scale) + (nu / 2).mvlgamma(p)
                - (nu - p - 1) / 2 * _multivariate_digamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        shifted = y + (p + 1) / 2
        return shifted * (-slogdet(-2 * x).logabsdet + _LOG2 * p) + shifted.mvlgamma(p)
