"""The closed-form KL divergences PyTorch registers for ContinuousBernoulli and Pareto.

Most pairs whose supports differ are infinite (a density positive where the other's is
zero); the finite ones are expectations of log-density differences under p, written
with p's entropy and moments.
"""
import math

from ..ops.creation import full_like
from ..ops.pointwise_select import where
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Beta
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

__all__ = []

_CB, _INF = ContinuousBernoulli, math.inf


def _infinite(like):
    return full_like(like, _INF)


def _x_log_x(x):
    return x.xlogy(x)  # 0 at x = 0


# ---------------------------------------------------------------- into ContinuousBernoulli
def _cross_entropy_with_cb(p, q):
    """-E_p[log q(X)] for q continuous Bernoulli: linear in E_p[X]."""
    return -p.mean * q.logits - q.probs.neg().log1p() - q._log_normaliser()


@register_kl(_CB, _CB)
def _kl_cb_cb(p, q):
    return (p.mean * (p.logits - q.logits) + p._log_normaliser() + p.probs.neg().log1p()
            - q._log_normaliser() - q.probs.neg().log1p())


@register_kl(Beta, _CB)
def _kl_beta_cb(p, q):
    return -p.entropy() + _cross_entropy_with_cb(p, q)


@register_kl(Uniform, _CB)
def _kl_uniform_cb(p, q):
    finite = -p.entropy() + _cross_entropy_with_cb(p, q)
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return where(outside, finite.new_ones(()) * _INF, finite)


@register_kl(_CB, Exponential)
def _kl_cb_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(_CB, Normal)
def _kl_cb_normal(p, q):
    cross = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + q.scale.log()
    spread = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return -p.entropy() + cross + spread


@register_kl(_CB, Uniform)
def _kl_cb_uniform(p, q):
    finite = -p.entropy() + (q.high - q.low).log()
    covers = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return where(covers, finite.new_ones(()) * _INF, finite)


@register_kl(_CB, Pareto)
def _kl_cb_pareto(p, q):
    return _infinite(p.probs)


# ---------------------------------------------------------------- Pareto
@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    result[p.support.lower_bound < q.support.lower_bound] = _INF
    return result


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    product = p.scale * q.rate
    result = ((p.alpha / product).log() - p.alpha.reciprocal()
              + p.alpha * product / (p.alpha - 1) - 1)
    result[p.alpha <= 1] = _INF
    return result


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    log_term = p.scale.log() + p.alpha.reciprocal()
    result = (p.alpha.log() - log_term + q.concentration.lgamma()
              - q.concentration * q.rate.log() + (1 - q.concentration) * log_term
              + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    result[p.alpha <= 1] = _INF
    return result


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    two_var = 2 * q.scale.pow(2)
    spread = p.scale / (p.alpha - 1)
    result = ((math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
              - p.alpha.reciprocal()
              + (p.alpha * spread.pow(2) / (p.alpha - 2) + (p.alpha * spread - q.loc).pow(2))
              / two_var - 1)
    result[p.alpha <= 2] = _INF
    return result


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    log_norm = (q.alpha * q.scale.pow(q.alpha) * width).log()
    mean_log = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = mean_log * (q.alpha + 1) - log_norm
    result[p.low < q.support.lower_bound] = _INF
    return result


def _register_infinite(pairs, attribute):
    def infinite(p, q):
        return _infinite(getattr(p, attribute))
    for type_p, type_q in pairs:
        register_kl(type_p, type_q)(infinite)


_register_infinite([(Beta, Pareto)], "concentration1")
_register_infinite([(Exponential, _CB), (Exponential, Pareto)], "rate")
_register_infinite([(Gamma, _CB), (Gamma, Pareto)], "concentration")
_register_infinite([(Gumbel, _CB), (Gumbel, Pareto), (Laplace, _CB), (Laplace, Pareto),
                    (Normal, _CB), (Normal, Pareto)], "loc")
_register_infinite([(Pareto, Beta), (Pareto, _CB), (Pareto, Uniform)], "scale")
