"""Closed-form KL divergences between the distributions of this package (part A).

Each formula is KL(p || q) = E_p[log p(x)] - E_p[log q(x)], worked out for the pair; where
p has mass outside q's support the divergence is +inf. Many cross pairs reduce to
-H(p) - E_p[log q(x)] with the few moments of p that log q needs. The registrations run
when the package is imported (ember/distributions/__init__.py imports this module last).
"""
import math

from ..ops.creation import full_like
from ..ops.nn_activation import softplus
from ..ops.pointwise_select import where
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Beta, Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant

_INF = math.inf
_LOG_2PI = math.log(2 * math.pi)


def _infinite(like):
    return full_like(like, _INF)


def _mass_outside(p, bad):
    """KL is +inf wherever p puts mass where q has none (`bad`)."""
    return lambda kl: where(bad, _INF, kl)


# ---- same family

def _normal_normal(p, q):
    # 1/2 [ (s_p/s_q)^2 + ((m_p - m_q)/s_q)^2 - 1 - log (s_p/s_q)^2 ]
    variance_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (variance_ratio + shift - 1 - variance_ratio.log())


def _bernoulli_bernoulli(p, q):
    # log p = -softplus(-logit), log(1 - p) = -softplus(logit): both terms stay finite in
    # logits; a sure outcome of p that q never produces is +inf, one p never produces is 0.
    heads = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    heads = where(p.probs == 0, 0.0, where(q.probs == 0, _INF, heads))
    tails = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    tails = where(p.probs == 1, 0.0, where(q.probs == 1, _INF, tails))
    return heads + tails


def _binomial_binomial(p, q):
    if (q.total_count > p.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > "
                                  "p.total_count is not implemented")
    # n [ p (logit_p - logit_q) + log(1 - p) - log(1 - q) ] for equal n; p reaching a
    # count q cannot (n_p > n_q) makes it infinite.
    per_trial = (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                 - (-q.probs).log1p())
    return where(p.total_count > q.total_count, _INF, p.total_count * per_trial)


def _categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = where((q.probs == 0).expand_as(terms), _INF, terms)
    terms = where((p.probs == 0).expand_as(terms), 0.0, terms)
    return terms.sum(-1)


def _one_hot_one_hot(p, q):
    return _categorical_categorical(p._categorical, q._categorical)


def _beta_beta(p, q):
    a, b, c, d = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    # log B(c, d) - log B(a, b) + (a - c) psi(a) + (b - d) psi(b) + (c - a + d - b) psi(a + b)
    log_beta_q = c.lgamma() + d.lgamma() - (c + d).lgamma()
    log_beta_p = a.lgamma() + b.lgamma() - (a + b).lgamma()
    return (log_beta_q - log_beta_p + (a - c) * a.digamma() + (b - d) * b.digamma()
            + (c - a + d - b) * (a + b).digamma())


def _dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a_total = a.sum(-1)
    # log Gamma(sum a) - log Gamma(sum b) - sum [log Gamma(a_i) - log Gamma(b_i)]
    #   + sum (a_i - b_i) (psi(a_i) - psi(sum a))
    normalisers = a_total.lgamma() - b.sum(-1).lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
    return normalisers + ((a - b) * (a.digamma() - a_total.unsqueeze(-1).digamma())).sum(-1)


def _exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


def _gamma_gamma(p, q):
    a, r, c, s = p.concentration, p.rate, q.concentration, q.rate
    return ((a - c) * a.digamma() - a.lgamma() + c.lgamma() + c * (r.log() - s.log())
            + a * (s - r) / r)


def _geometric_geometric(p, q):
    # -H(p) - E_p[x log(1 - q) + log q], E_p[x] = 1/p - 1
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


def _laplace_laplace(p, q):
    ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -ratio.log() + distance / q.scale + ratio * (-distance / p.scale).exp() - 1


def _poisson_poisson(p, q):
    rate_p, rate_q = p.rate, q.rate
    return rate_p * (rate_p.log() - rate_q.log()) - rate_p + rate_q


def _uniform_uniform(p, q):
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    return _mass_outside(p, (q.low > p.low) | (q.high < p.high))(kl)


def _cauchy_cauchy(p, q):
    # log [ ((g_p + g_q)^2 + (m_p - m_q)^2) / (4 g_p g_q) ]   (Chyzak & Nielsen, 2019)
    spread = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (spread / (4 * p.scale * q.scale)).log()


# ---- different families: -H(p) - E_p[log q(x)]

def _beta_mean(p):
    return p.concentration1 / (p.concentration1 + p.concentration0)


def _normal_cross_entropy(q, mean, second_moment_about_loc):
    """-E[log N(x; m, s)] from E[(x - m)^2]: log(2 pi s^2) / 2 + E[(x - m)^2] / (2 s^2)."""
    variance = q.scale.pow(2)
    return 0.5 * (_LOG_2PI + variance.log()) + second_moment_about_loc / (2 * variance)


def _bernoulli_poisson(p, q):
    # x is 0 or 1, so log x! = 0: E_p[log q(x)] = p log(rate) - rate
    return -p.entropy() - p.probs * q.rate.log() + q.rate


def _beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * _beta_mean(p)


def _beta_gamma(p, q):
    k, rate = q.concentration, q.rate
    mean_log = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    return -p.entropy() + k.lgamma() - k * rate.log() - (k - 1) * mean_log + rate * _beta_mean(p)


def _beta_normal(p, q):
    mean = _beta_mean(p)
    variance = mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1)
    return -p.entropy() + _normal_cross_entropy(q, mean, variance + (mean - q.loc).pow(2))


def _beta_uniform(p, q):
    kl = -p.entropy() + (q.high - q.low).log()
    return _mass_outside(p, (q.low > 0.0) | (q.high < 1.0))(kl)


def _exponential_gamma(p, q):
    # E[log x] = -gamma - log(rate_p), E[x] = 1 / rate_p
    k, ratio = q.concentration, q.rate / p.rate
    return -k * ratio.log() + ratio + k.lgamma() + k * euler_constant - (1 + euler_constant)


def _exponential_normal(p, q):
    mean = p.rate.reciprocal()
    second = 2 * mean.pow(2) - 2 * q.loc * mean + q.loc.pow(2)
    return -p.entropy() + _normal_cross_entropy(q, mean, second)


def _gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


def _gamma_normal(p, q):
    a, r = p.concentration, p.rate
    second = a * (a + 1) / r.pow(2) - 2 * q.loc * a / r + q.loc.pow(2)
    return -p.entropy() + _normal_cross_entropy(q, a / r, second)


def _laplace_normal(p, q):
    second = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -p.entropy() + _normal_cross_entropy(q, p.loc, second)


def _normal_laplace(p, q):
    # E|x - c| for x ~ N(m, s^2): s sqrt(2/pi) exp(-d^2 / (2 s^2)) + d erf(d / (s sqrt 2))
    d = p.loc - q.loc
    z = d / p.scale
    mean_distance = (math.sqrt(2 / math.pi) * p.scale * (-0.5 * z.pow(2)).exp()
                     + d * (math.sqrt(0.5) * z).erf())
    return -p.entropy() + (2 * q.scale).log() + mean_distance / q.scale


def _x_log_x(x):
    return x.xlogy(x)


def _mean_log_uniform(low, high):
    """E[log x] for x ~ Uniform(low, high): [x log x - x] between the bounds, averaged."""
    width = high - low
    return (_x_log_x(high) - _x_log_x(low) - width) / width


def _uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    mean_log_x = _mean_log_uniform(p.low, p.high)
    mean_log_1mx = _mean_log_uniform(1 - p.high, 1 - p.low)
    kl = -p.entropy() - (a - 1) * mean_log_x - (b - 1) * mean_log_1mx + log_beta
    return _mass_outside(p, (p.high > 1.0) | (p.low < 0.0))(kl)


def _uniform_exponential(p, q):
    kl = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _mass_outside(p, p.low < 0.0)(kl)


def _uniform_gamma(p, q):
    k, rate = q.concentration, q.rate
    kl = (-p.entropy() + k.lgamma() - k * rate.log()
          - (k - 1) * _mean_log_uniform(p.low, p.high) + rate * (p.high + p.low) / 2)
    return _mass_outside(p, p.low < 0.0)(kl)


def _uniform_normal(p, q):
    width = p.high - p.low
    second = width.pow(2) / 12 + ((p.high + p.low) / 2 - q.loc).pow(2)
    return -p.entropy() + _normal_cross_entropy(q, p.mean, second)


# ---- the registrations: (type of p, type of q, formula)

_PAIRS = [
    (Normal, Normal, _normal_normal),
    (Bernoulli, Bernoulli, _bernoulli_bernoulli),
    (Binomial, Binomial, _binomial_binomial),
    (Categorical, Categorical, _categorical_categorical),
    (OneHotCategorical, OneHotCategorical, _one_hot_one_hot),
    (Beta, Beta, _beta_beta),
    (Dirichlet, Dirichlet, _dirichlet_dirichlet),
    (Exponential, Exponential, _exponential_exponential),
    (Gamma, Gamma, _gamma_gamma),
    (Geometric, Geometric, _geometric_geometric),
    (Laplace, Laplace, _laplace_laplace),
    (Poisson, Poisson, _poisson_poisson),
    (Uniform, Uniform, _uniform_uniform),
    (Cauchy, Cauchy, _cauchy_cauchy),
    (Bernoulli, Poisson, _bernoulli_poisson),
    (Beta, Exponential, _beta_exponential),
    (Beta, Gamma, _beta_gamma),
    (Beta, Normal, _beta_normal),
    (Beta, Uniform, _beta_uniform),
    (Exponential, Gamma, _exponential_gamma),
    (Exponential, Normal, _exponential_normal),
    (Gamma, Exponential, _gamma_exponential),
    (Gamma, Normal, _gamma_normal),
    (Laplace, Normal, _laplace_normal),
    (Normal, Laplace, _normal_laplace),
    (Uniform, Beta, _uniform_beta),
    (Uniform, Exponential, _uniform_exponential),
    (Uniform, Gamma, _uniform_gamma),
    (Uniform, Normal, _uniform_normal),
]
for _p, _q, _formula in _PAIRS:
    register_kl(_p, _q)(_formula)


# ---- p has mass where q has none

def _infinite_kl(parameter):
    return lambda p, q: _infinite(getattr(p, parameter))


for _p, _qs, _parameter in [
        (Exponential, (Uniform, Beta), "rate"),
        (Gamma, (Uniform, Beta), "concentration"),
        (Laplace, (Uniform, Gamma, Exponential, Beta), "loc"),
        (Normal, (Uniform, Gamma, Exponential, Beta), "loc"),
        (Poisson, (Binomial, Bernoulli), "rate")]:
    _rule = _infinite_kl(_parameter)
    for _q in _qs:
        register_kl(_p, _q)(_rule)
