"""Concrete transforms: the elementwise maps and the vector/matrix reparameterisations.

Each class says where it maps from and to (domain, codomain), how to go forward
(`_call`), back (`_inverse`) and the log|det J| of the forward map. The formulas are
written in the numerically careful forms (softplus instead of log(1+exp), clipped
sigmoid) so that values agree with PyTorch to the last bits, not merely in theory.
"""
import math
from numbers import Number, Real

from .._dtype import finfo
from ..nn import functional as F
from ..ops.creation import eye, full_like
from ..ops.ranges import arange
from ..ops.views import broadcast_shapes
from ..ops.linalg_solve import cholesky
from . import constraints
from ._transform import (CatTransform, ComposeTransform, IndependentTransform,
                         ReshapeTransform, StackTransform, Transform, identity_transform)
from .utils import broadcast_all

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]


class _Pointwise(Transform):
    """Parameter-free elementwise maps, declared by their spaces at class creation.

    `class ExpTransform(_Pointwise, domain=real, codomain=positive, increasing=True)` reads
    as the map's signature; two of them are equal exactly when they are of the same class.
    """

    def __init_subclass__(cls, domain=None, codomain=None, increasing=False, **kwargs):
        super().__init_subclass__(**kwargs)
        if domain is not None:
            cls.domain, cls.codomain = domain, codomain
        if increasing:
            cls.bijective, cls.sign = True, +1

    def __eq__(self, other):
        return isinstance(other, type(self))


class ExpTransform(_Pointwise, domain=constraints.real, codomain=constraints.positive,
                   increasing=True):
    """y = exp(x); dy/dx = y, so log|J| = x."""

    def _call(self, x):
        return x.exp()

    def log_abs_det_jacobian(self, x, y):
        return x

    def _inverse(self, y):
        return y.log()


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals (the exponent may be a tensor)."""

    domain = codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        (self.exponent,) = broadcast_all(exponent)
        super().__init__(cache_size)

    def _spec(self):
        return (self.exponent,)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return (isinstance(other, PowerTransform)
                and self.exponent.eq(other.exponent).all().item())

    def _call(self, x):
        return x ** self.exponent

    def _inverse(self, y):
        return y ** (1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        # d/dx x^p = p x^(p-1) = p y / x, which reuses y instead of a second pow
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    inverse_shape = forward_shape


def _squashed_sigmoid(x):
    """sigmoid kept strictly inside (0, 1), so that its logit stays finite."""
    info = finfo(x.dtype)
    return x.sigmoid().clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(_Pointwise, domain=constraints.real, codomain=constraints.unit_interval,
                       increasing=True):
    """y = 1 / (1 + exp(-x)), clipped a float's tiny/eps inside (0, 1)."""

    def _call(self, x):
        return _squashed_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y.dtype)
        inside = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return inside.log() - inside.neg().log1p()

    def log_abs_det_jacobian(self, x, y):
        # sigmoid' = sigmoid(x) sigmoid(-x), and log sigmoid(t) = -softplus(-t)
        return -(F.softplus(-x) + F.softplus(x))


class SoftplusTransform(_Pointwise, domain=constraints.real, codomain=constraints.positive,
                        increasing=True):
    """y = log(1 + exp(x)), a smooth map onto the positive reals."""

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        # x = log(exp(y) - 1) = y + log(1 - exp(-y)), finite for large y
        return y + y.neg().expm1().neg().log()

    def log_abs_det_jacobian(self, x, y):
        # softplus' = sigmoid
        return -F.softplus(-x)


class TanhTransform(_Pointwise, domain=constraints.real,
                    codomain=constraints.interval(-1.0, 1.0), increasing=True):
    """y = tanh(x); the Jacobian goes through softplus to stay finite for large |x|."""

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # 1 - tanh(x)^2 = 4 / (e^x + e^-x)^2  =>  log = 2 (log 2 - x - softplus(-2x))
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_Pointwise, domain=constraints.real, codomain=constraints.positive):
    """y = |x|; not injective, so its 'inverse' picks the positive root."""

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


def _tensor_or_number_equal(a, b):
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    return bool((a == b).all().item())


class AffineTransform(Transform):
    """y = loc + scale * x, optionally over `event_dim` rightmost dims as one event."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        self.loc, self.scale, self._event_dim = loc, scale, event_dim
        super().__init__(cache_size)

    def _spec(self):
        return self.loc, self.scale, self._event_dim

    event_dim = property(lambda self: self._event_dim)

    @property
    def domain(self):
        if not self._event_dim:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    def __eq__(self, other):
        return (isinstance(other, AffineTransform)
                and _tensor_or_number_equal(self.loc, other.loc)
                and _tensor_or_number_equal(self.scale, other.scale))

    @property
    def sign(self):
        if not isinstance(self.scale, Real):
            return self.scale.sign()
        value = float(self.scale)
        return (value > 0) - (value < 0)

    def _call(self, x):
        return self.scale * x + self.loc

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, Real):
            per_entry = full_like(x, math.log(abs(self.scale)))
        else:
            per_entry = self.scale.abs().log()
        if not self._event_dim:
            return per_entry.expand(x.shape)
        # the event's entries are summed: log|det diag(scale)| = sum log|scale|
        lead = per_entry.shape[:per_entry.dim() - self._event_dim]
        summed = per_entry.view(tuple(lead) + (-1,)).sum(-1)
        return summed.expand(x.shape[:x.dim() - self._event_dim])

    def forward_shape(self, shape):
        return broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


def _needs_a_dim(shape):
    if not len(shape):
        raise ValueError("Too few dimensions on input")
    return shape


def _resize_last(shape, change):
    _needs_a_dim(shape)
    return shape[:-1] + (shape[-1] + change,)


class SoftmaxTransform(_Pointwise, domain=constraints.real_vector,
                       codomain=constraints.simplex):
    """Real vector -> simplex by softmax; many-to-one, so `inv` returns one log-preimage."""

    def _call(self, x):
        shifted = (x - x.max(-1, True)[0]).exp()
        return shifted / shifted.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        return _needs_a_dim(shape)

    inverse_shape = forward_shape


def _stick_offsets(like, k):
    """log of (k, k-1, ..., 1): the shift that centres a zero vector on the uniform simplex."""
    return (k + 1 - like.new_ones(k).cumsum(-1)).log()


class StickBreakingTransform(_Pointwise, domain=constraints.real_vector,
                             codomain=constraints.simplex):
    """R^K -> K+1 simplex: each coordinate breaks off a sigmoid share of the stick left."""

    bijective = True

    def _call(self, x):
        share = _squashed_sigmoid(x - _stick_offsets(x, x.shape[-1]))
        left = (1 - share).cumprod(-1)
        return F.pad(share, [0, 1], value=1) * F.pad(left, [1, 0], value=1)

    def _inverse(self, y):
        head = y[..., :-1]
        k = head.shape[-1]
        rest = (1 - head.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return head.log() - rest.log() + _stick_offsets(y, k)

    def log_abs_det_jacobian(self, x, y):
        z = x - _stick_offsets(x, x.shape[-1])
        return (-z + F.logsigmoid(z) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        return _resize_last(shape, +1)

    def inverse_shape(self, shape):
        return _resize_last(shape, -1)


def _with_mapped_diagonal(mat, fn):
    """The strictly lower part of `mat` with fn applied to its diagonal."""
    return mat.tril(-1) + fn(mat.diagonal(dim1=-2, dim2=-1)).diag_embed()


_MATRICES = constraints.independent(constraints.real, 2)


class LowerCholeskyTransform(_Pointwise, domain=_MATRICES,
                             codomain=constraints.lower_cholesky):
    """Square matrix -> lower triangular with a positive diagonal (exp of the diagonal)."""

    def _call(self, x):
        return _with_mapped_diagonal(x, lambda d: d.exp())

    def _inverse(self, y):
        return _with_mapped_diagonal(y, lambda d: d.log())


class PositiveDefiniteTransform(_Pointwise, domain=_MATRICES,
                                codomain=constraints.positive_definite):
    """Square matrix -> L L^T with L from LowerCholeskyTransform."""

    def _call(self, x):
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))


def _strict_lower_mask(n, like, below):
    """Boolean (n, n) mask of the entries at least `below` places under the diagonal."""
    rows = arange(n, device=like.device)
    return rows < rows.view(-1, 1) + (1 - below)


def _vector_to_strict_lower(vec):
    """Fill the strictly lower triangle (row by row) of a D x D matrix from a D(D-1)/2 vector."""
    count = vec.shape[-1]
    size = round((0.25 + 2 * count) ** 0.5 + 0.5)
    if size * (size - 1) // 2 != count:
        raise ValueError(f"The size of last dimension is {count} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (size, size))
    mat[..., _strict_lower_mask(size, vec, 1)] = vec
    return mat


class CorrCholeskyTransform(_Pointwise, domain=constraints.real_vector,
                            codomain=constraints.corr_cholesky):
    """R^(D(D-1)/2) -> Cholesky factors of D x D correlation matrices.

    tanh sends each coordinate to (-1, 1); row i of the factor then breaks the unit length
    of that row like a stick: entry j takes a share r_ij of what the earlier entries left,
    and the diagonal takes the rest, so every row has unit norm.
    """

    bijective = True
    __eq__ = Transform.__eq__  # PyTorch compares these by identity, unlike the pointwise maps

    def _call(self, x):
        eps = finfo(x.dtype).eps
        shares = _vector_to_strict_lower(x.tanh().clamp(min=-1 + eps, max=1 - eps))
        remaining = (1 - shares ** 2).sqrt().cumprod(-1)
        size = shares.shape[-1]
        eye_ = eye(size, dtype=x.dtype, device=x.device)
        return (shares + eye_) * F.pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        left = F.pad((1 - (y * y).cumsum(-1))[..., :-1], [1, 0], value=1)
        mask = _strict_lower_mask(y.shape[-1], y, 1)
        ratio = y[..., mask] / left[..., mask].sqrt()
        return (ratio.log1p() - ratio.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        left = 1 - (y * y).cumsum(-1)
        breaking = 0.5 * left[..., _strict_lower_mask(y.shape[-1], y, 2)].log().sum(-1)
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x))
        squash = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return breaking + squash

    def forward_shape(self, shape):
        count = _needs_a_dim(shape)[-1]
        size = round((0.25 + 2 * count) ** 0.5 + 0.5)
        if size * (size - 1) // 2 != count:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (size, size)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        rows, cols = shape[-2:]
        if rows != cols:
            raise ValueError("Input is not square")
        return shape[:-2] + (rows * (rows - 1) // 2,)


class CumulativeDistributionTransform(Transform):
    """x -> F(x), the distribution's CDF, onto the unit interval (a copula's building block)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        self.distribution = distribution
        super().__init__(cache_size)

    def _spec(self):
        return (self.distribution,)

    domain = property(lambda self: self.distribution.support)

    def _call(self, x):
        return self.distribution.cdf(x)

    def log_abs_det_jacobian(self, x, y):
        # dF/dx is the density
        return self.distribution.log_prob(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)
