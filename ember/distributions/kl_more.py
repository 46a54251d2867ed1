"""Closed-form KL divergences for the transformed, multivariate and Gumbel distributions.

Each function is KL(p || q) = E_p[log p(X) - log q(X)] worked out for one pair of
families; importing this module registers them with `kl.register_kl`.
"""
import math

from ..ops.creation import full_like
from ..ops.linalg_solve import solve_triangular
from ..ops.views import broadcast_shapes
from .exponential import Exponential
from .gamma import Gamma
from .dirichlet import Beta
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _lowrank_logdet,
                                          _lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _mahalanobis_sq
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant

_LOG_2PI = math.log(2 * math.pi)


def _frobenius_sq(mat):
    """trace(M M^T): the sum of squares over the last two dims."""
    return mat.pow(2).sum((-2, -1))


def _log_det_tril(low):
    """log det of L L^T halved: sum of log diag L."""
    return low.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _same_event(p, q, what):
    if p.event_shape != q.event_shape:
        # PyTorch's text carries the indentation of its source line break
        raise ValueError(f"KL-divergence between two {what} with{' ' * 26}different event "
                         "shapes cannot be computed")


def _mvn_from_mvn(p, q):
    # 1/2 [tr(Sq^-1 Sp) + (mq - mp)^T Sq^-1 (mq - mp) - n + log det Sq - log det Sp]
    _same_event(p, q, "Multivariate Normals")
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    size = p.event_shape[0]
    batch = tuple(broadcast_shapes(lq.shape[:-2], lp.shape[:-2]))
    whitened = solve_triangular(lq.expand(batch + (size, size)),
                                lp.expand(batch + (size, size)), upper=False)
    half_log_ratio = _log_det_tril(lq) - _log_det_tril(lp)
    return half_log_ratio + 0.5 * (_frobenius_sq(whitened)
                                   + _mahalanobis_sq(lq, q.loc - p.loc) - size)


def _capacitance_solve(q):
    """C_L^-1 W^T D^-1 of q, the m x n block Woodbury needs for tr(Sq^-1 S)."""
    factor, diag = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    return solve_triangular(q._capacitance_tril, factor.mT / diag.unsqueeze(-2), upper=False)


def _lowrank_pieces(q, diff):
    """log det Sq and (diff)^T Sq^-1 (diff) for a low-rank q."""
    factor, diag = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    return (_lowrank_logdet(diag, q._capacitance_tril),
            _lowrank_mahalanobis(factor, diag, diff, q._capacitance_tril))


def _lowrank_from_lowrank(p, q):
    _same_event(p, q, "Low Rank Multivariate Normals")
    log_det_q, maha = _lowrank_pieces(q, q.loc - p.loc)
    log_det_p = _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril)
    wp, dp = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    dq = q._unbroadcasted_cov_diag
    block = _capacitance_solve(q)
    # tr(Sq^-1 Sp) with Sp = Wp Wp^T + Dp and Sq^-1 = Dq^-1 - B^T B
    trace = ((dp / dq).sum(-1) + _frobenius_sq(wp * dq.rsqrt().unsqueeze(-1))
             - _frobenius_sq(block * dp.sqrt().unsqueeze(-2)) - _frobenius_sq(block @ wp))
    return 0.5 * (log_det_q - log_det_p + trace + maha - p.event_shape[0])


def _mvn_from_lowrank(p, q):
    _same_event(p, q, "(Low Rank) Multivariate Normals")
    log_det_q, maha = _lowrank_pieces(q, q.loc - p.loc)
    lp = p._unbroadcasted_scale_tril
    dq = q._unbroadcasted_cov_diag
    trace = (_frobenius_sq(lp * dq.rsqrt().unsqueeze(-1))
             - _frobenius_sq(_capacitance_solve(q) @ lp))
    return 0.5 * (log_det_q - 2 * _log_det_tril(lp) + trace + maha - p.event_shape[0])


def _lowrank_from_mvn(p, q):
    _same_event(p, q, "(Low Rank) Multivariate Normals")
    lq = q._unbroadcasted_scale_tril
    wp, dp = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    log_det_p = _lowrank_logdet(dp, p._capacitance_tril)
    size = p.event_shape[0]
    batch = tuple(broadcast_shapes(lq.shape[:-2], wp.shape[:-2]))
    lq_b = lq.expand(batch + (size, size))
    trace = (_frobenius_sq(solve_triangular(lq_b, wp.expand(batch + (size, wp.size(-1))),
                                            upper=False))
             + _frobenius_sq(solve_triangular(lq_b, dp.sqrt().diag_embed()
                                              .expand(batch + (size, size)), upper=False)))
    maha = _mahalanobis_sq(lq, q.loc - p.loc)
    return 0.5 * (2 * _log_det_tril(lq) - log_det_p + trace + maha - size)


def _through_same_transforms(p, q):
    # a shared bijection leaves the divergence unchanged
    if p.event_shape != q.event_shape or p.transforms != q.transforms:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


def _summed_over_events(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          p.reinterpreted_batch_ndims)


def _halfnormal_from_halfnormal(p, q):
    ratio_sq = (p.scale / q.scale).pow(2)
    return 0.5 * (ratio_sq - 1 - ratio_sq.log())


def _gumbel_from_gumbel(p, q):
    # with z = (x - loc_q)/scale_q under p, E[exp(-z)] = exp((loc_q - loc_p)/scale_q) G(1 + r)
    ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    tail = (q_loc - p_loc + (1 + ratio).lgamma()).exp()
    return -ratio.log() - q_loc + p_loc + ratio * euler_constant + tail - (1 + euler_constant)


def _gumbel_from_normal(p, q):
    ratio = p.scale / q.scale
    cross = (math.pi * ratio * 0.5).pow(2) / 3
    shift = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -(ratio / math.sqrt(2 * math.pi)).log() + cross + shift - (euler_constant + 1)


def _normal_from_gumbel(p, q):
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    tail = (-mean_ratio + 0.5 * var_ratio + loc_ratio).exp()
    return (-0.5 * var_ratio.log() + mean_ratio - loc_ratio + tail
            - 0.5 * (1 + _LOG_2PI))


def _uniform_from_gumbel(p, q):
    spread = q.scale / (p.high - p.low)
    upper = (p.high - q.loc) / q.scale
    lower = (p.low - q.loc) / q.scale
    return (spread.log() + 0.5 * (upper + lower)
            - spread * ((-upper).exp() - (-lower).exp()))


def _exponential_from_gumbel(p, q):
    product = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return (product.log() - 1 - loc_ratio + loc_ratio.exp() * product / (product + 1)
            + product.reciprocal())


def _gamma_from_gumbel(p, q):
    shape = p.concentration
    product = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    neg_entropy_part = (shape - 1) * shape.digamma() - shape.lgamma() - shape
    cross = product.log() + shape / product
    tail = loc_ratio.exp() * (1 + product.reciprocal()).pow(-shape) - loc_ratio
    return neg_entropy_part + cross + tail


def _gumbel_from_narrower(p, q):
    """Gumbel has all of R as support; these q vanish on part of it."""
    return full_like(p.loc, math.inf)


# ---- registration, in one place: (type of p, type of q, KL(p || q))
_PAIRS = [
    (MultivariateNormal, MultivariateNormal, _mvn_from_mvn),
    (LowRankMultivariateNormal, LowRankMultivariateNormal, _lowrank_from_lowrank),
    (MultivariateNormal, LowRankMultivariateNormal, _mvn_from_lowrank),
    (LowRankMultivariateNormal, MultivariateNormal, _lowrank_from_mvn),
    (TransformedDistribution, TransformedDistribution, _through_same_transforms),
    (Independent, Independent, _summed_over_events),
    (HalfNormal, HalfNormal, _halfnormal_from_halfnormal),
    (Gumbel, Gumbel, _gumbel_from_gumbel),
    (Gumbel, Normal, _gumbel_from_normal),
    (Normal, Gumbel, _normal_from_gumbel),
    (Uniform, Gumbel, _uniform_from_gumbel),
    (Exponential, Gumbel, _exponential_from_gumbel),
    (Gamma, Gumbel, _gamma_from_gumbel),
    *[(Gumbel, narrower, _gumbel_from_narrower)
      for narrower in (Beta, Exponential, Gamma, Uniform)],
]
for _p_type, _q_type, _formula in _PAIRS:
    register_kl(_p_type, _q_type)(_formula)
