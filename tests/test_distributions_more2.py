"""The last of PyTorch's distributions against PyTorch: ContinuousBernoulli, FisherSnedecor,
GeneralizedPareto, InverseGamma, LKJCholesky, NegativeBinomial, Pareto, VonMises, Wishart.

Each case builds the same object in both libraries from one function of `lib`, then
compares moments, entropy, seeded draws, densities, CDFs, expand, gradients of
reparameterised draws, KL divergences and errors.
"""
import warnings

import numpy as np
import pytest

import ember
from tests.oracle import assert_raises_alike, assert_same, to_numpy

R = np.random.default_rng(23)


def _arr(*shape, low=-1.5, high=1.5):
    return R.uniform(low, high, size=shape)


def _t(lib, value, grad=False, dtype=None):
    out = lib.tensor(value, dtype=dtype)
    if grad:
        out.requires_grad_()
    return out


def _D(lib):
    return lib.distributions


_P = np.array([[0.1, 0.4995, 0.7], [0.5, 0.93, 0.2]])      # inside and outside the band
_POS1, _POS2 = _arr(2, 3, low=0.5, high=6.0), _arr(2, 3, low=4.5, high=9.0)
_LOC, _SCALE = _arr(2, 3), _arr(2, 3, low=0.5, high=2.0)
_XI = np.array([[0.3, -0.4, 0.0], [1.2, 0.45, -0.1]])
_KAPPA = np.array([[0.5, 4.0, 1e-6], [2.0, 10.0, 3.8]])
_ETA = np.array([0.5, 1.0, 3.0])
_LOW = np.tril(R.normal(size=(2, 3, 3)) * 0.3)
_LOW[..., range(3), range(3)] = R.uniform(0.7, 1.5, size=(2, 3))
_COV = _LOW @ np.swapaxes(_LOW, -1, -2) + 0.1 * np.eye(3)
_DF = np.array([3.5, 6.0])

DISTRIBUTIONS = {
    "cb_probs": lambda lib: _D(lib).ContinuousBernoulli(_t(lib, _P)),
    "cb_logits": lambda lib: _D(lib).ContinuousBernoulli(logits=_t(lib, _LOC)),
    "cb_float32": lambda lib: _D(lib).ContinuousBernoulli(_t(lib, _P, dtype=lib.float32)),
    "fisher": lambda lib: _D(lib).FisherSnedecor(_t(lib, _POS1), _t(lib, _POS2)),
    "fisher_numbers": lambda lib: _D(lib).FisherSnedecor(3.0, 5.0),
    # (float32: PyTorch's GPD densities compare the shape with a float32 zero)
    "gpd": lambda lib: _D(lib).GeneralizedPareto(_t(lib, _LOC, dtype=lib.float32),
                                                 _t(lib, _SCALE, dtype=lib.float32),
                                                 _t(lib, _XI, dtype=lib.float32)),
    "inverse_gamma": lambda lib: _D(lib).InverseGamma(_t(lib, _POS1), _t(lib, _SCALE)),
    "lkj": lambda lib: _D(lib).LKJCholesky(3, _t(lib, _ETA)),
    "lkj_number": lambda lib: _D(lib).LKJCholesky(4, 2.0),
    "negbin_probs": lambda lib: _D(lib).NegativeBinomial(_t(lib, _POS1),
                                                         probs=_t(lib, _P)),
    "negbin_logits": lambda lib: _D(lib).NegativeBinomial(3.0, logits=_t(lib, _LOC)),
    "pareto": lambda lib: _D(lib).Pareto(_t(lib, _SCALE), _t(lib, _POS1 / 2)),
    "von_mises": lambda lib: _D(lib).VonMises(_t(lib, _LOC), _t(lib, _KAPPA)),
    "von_mises_float32": lambda lib: _D(lib).VonMises(_t(lib, _LOC, dtype=lib.float32),
                                                      _t(lib, _KAPPA, dtype=lib.float32)),
    "wishart_cov": lambda lib: _D(lib).Wishart(_t(lib, _DF), covariance_matrix=_t(lib, _COV)),
    "wishart_tril": lambda lib: _D(lib).Wishart(_t(lib, 4.0, dtype=lib.float64), scale_tril=_t(lib, _LOW[0])),
    "wishart_prec": lambda lib: _D(lib).Wishart(_t(lib, _DF), precision_matrix=_t(lib, _COV)),
}

_CDF = {"cb_probs", "cb_logits", "cb_float32", "gpd", "pareto", "inverse_gamma"}
_ICDF = {"cb_probs", "cb_logits", "cb_float32", "gpd", "pareto"}


def _tol(value, atol, rtol):
    if str(getattr(value, "dtype", "")).endswith("float32"):
        return {"atol": 1e-6, "rtol": 1e-5}
    return {"atol": atol, "rtol": rtol}


def _both_or_neither(torch, fn, de, dt, atol=1e-12, rtol=1e-10):
    try:
        expected = fn(dt)
    except (NotImplementedError, ValueError, AttributeError) as e:
        with pytest.raises(type(e)):
            fn(de)
        return None
    got = fn(de)
    assert_same(got, expected, **_tol(expected, atol, rtol))
    return got


def _quiet(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    # (NumPy's RuntimeWarnings from 0/0 are ember's own business, not the distribution's)
    return value, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_distribution_matches(torch, name):
    de, dt = DISTRIBUTIONS[name](ember), DISTRIBUTIONS[name](torch)
    assert type(de).__name__ == type(dt).__name__
    assert tuple(de.batch_shape) == tuple(dt.batch_shape)
    assert tuple(de.event_shape) == tuple(dt.event_shape)
    assert repr(de).replace("ember.", "torch.") == repr(dt)
    assert repr(de.support).replace("ember.", "torch.") == repr(dt.support).replace(
        "torch.", "torch.")
    assert de.has_rsample == dt.has_rsample
    assert sorted(de.arg_constraints) == sorted(dt.arg_constraints)
    for prop in ("mean", "variance", "stddev", "mode"):
        _both_or_neither(torch, lambda d: getattr(d, prop), de, dt)
    _both_or_neither(torch, lambda d: d.entropy(), de, dt)
    ember.manual_seed(3)
    torch.manual_seed(3)
    xe, e_warn = _quiet(lambda: de.sample((5,)))
    xt, t_warn = _quiet(lambda: dt.sample((5,)))
    assert e_warn == t_warn
    assert_same(xe, xt, **_tol(xt, 1e-10, 1e-10))
    value_e, value_t = _t(ember, to_numpy(xt)), _t(torch, to_numpy(xt))
    assert_same(de.log_prob(value_e), dt.log_prob(value_t), **_tol(xt, 1e-10, 1e-10))
    if name in _CDF:
        assert_same(de.cdf(value_e), dt.cdf(value_t), **_tol(xt, 1e-12, 1e-10))
    if name in _ICDF:
        probs = R.uniform(0.05, 0.95, size=(5, 2, 3))
        assert_same(de.icdf(_t(ember, probs, dtype=xe.dtype)),
                    dt.icdf(_t(torch, probs, dtype=xt.dtype)), **_tol(xt, 1e-12, 1e-10))
    expanded_e = de.expand((4,) + tuple(dt.batch_shape))
    expanded_t = dt.expand((4,) + tuple(dt.batch_shape))
    assert tuple(expanded_e.batch_shape) == tuple(expanded_t.batch_shape)
    assert type(expanded_e).__name__ == type(expanded_t).__name__
    ember.manual_seed(4)
    torch.manual_seed(4)
    ye, _ = _quiet(expanded_e.sample)
    yt, _ = _quiet(expanded_t.sample)
    assert_same(ye, yt, **_tol(yt, 1e-10, 1e-10))


GRAD_CASES = {
    "cb": (lambda lib, p: _D(lib).ContinuousBernoulli(p), [_P]),
    "fisher": (lambda lib, a, b: _D(lib).FisherSnedecor(a, b), [_POS1, _POS2]),
    "gpd": (lambda lib, m, s, x: _D(lib).GeneralizedPareto(m, s, x),
            [_LOC, _SCALE, np.abs(_XI) * 0.5 + 0.05]),
    "inverse_gamma": (lambda lib, a, b: _D(lib).InverseGamma(a, b), [_POS1, _SCALE]),
    "pareto": (lambda lib, s, a: _D(lib).Pareto(s, a), [_SCALE, _POS1]),
    "wishart": (lambda lib, c: _D(lib).Wishart(lib.tensor(5.0, dtype=c.dtype),
                                               covariance_matrix=c), [_COV[0]]),
}


# Gamma-based draws: ember differentiates the gamma sampler exactly, PyTorch with an
# approximation good to about 1e-4 (see distributions/gamma.py), so their gradients are
# compared at that tolerance.
_GAMMA_BASED = {"fisher", "inverse_gamma", "wishart"}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_reparameterised_gradients(torch, name):
    build, params = GRAD_CASES[name]
    tolerance = 3e-4 if name in _GAMMA_BASED else 1e-8
    grads = []
    for lib in (ember, torch):
        leaves = [_t(lib, p, grad=True) for p in params]
        dist = build(lib, *leaves)
        lib.manual_seed(11)
        draw, _ = _quiet(lambda: dist.rsample((3,)))
        total = draw.sum()
        if name != "gpd":  # (PyTorch's GPD densities refuse float64 parameters)
            total = total + dist.log_prob(draw.detach()).sum()
        if name not in ("gpd", "fisher"):
            total = total + dist.entropy().sum()
        if name == "wishart":  # (its draws: test_wishart_rsample_backward_refused)
            total = dist.log_prob(draw.detach()).sum() + dist.entropy().sum()
        grads.append(lib.autograd.grad(total, leaves))
    for got, expected in zip(*grads):
        assert_same(got, expected, atol=tolerance, rtol=tolerance)


def test_negative_binomial_log_prob_gradients(torch):
    grads = []
    for lib in (ember, torch):
        count, logits = _t(lib, _POS1, grad=True), _t(lib, _LOC, grad=True)
        value = _t(lib, np.array([[0.0, 3.0, 1.0], [7.0, 2.0, 0.0]]))
        dist = _D(lib).NegativeBinomial(count, logits=logits)
        grads.append(lib.autograd.grad(dist.log_prob(value).sum(), [count, logits]))
    for got, expected in zip(*grads):
        assert_same(got, expected, atol=1e-10, rtol=1e-10)


# --------------------------------------------------------------------------------------- KL
_B1, _B0 = _arr(2, 3, low=0.5, high=3.0), _arr(2, 3, low=0.5, high=3.0)
_OTHERS = {
    "cb": lambda lib: _D(lib).ContinuousBernoulli(_t(lib, _P[::-1].copy())),
    "pareto": lambda lib: _D(lib).Pareto(_t(lib, _SCALE * 0.8), _t(lib, _POS2 / 3)),
    "beta": lambda lib: _D(lib).Beta(_t(lib, _B1), _t(lib, _B0)),
    "uniform": lambda lib: _D(lib).Uniform(_t(lib, _SCALE * 0.2), _t(lib, _SCALE * 0.2 + 0.5)),
    "uniform_wide": lambda lib: _D(lib).Uniform(_t(lib, _LOC - 3), _t(lib, _LOC + 4)),
    "exponential": lambda lib: _D(lib).Exponential(_t(lib, _SCALE)),
    "normal": lambda lib: _D(lib).Normal(_t(lib, _LOC), _t(lib, _SCALE)),
    "gamma": lambda lib: _D(lib).Gamma(_t(lib, _POS1), _t(lib, _SCALE)),
    "gumbel": lambda lib: _D(lib).Gumbel(_t(lib, _LOC), _t(lib, _SCALE)),
    "laplace": lambda lib: _D(lib).Laplace(_t(lib, _LOC), _t(lib, _SCALE)),
}
_CB = DISTRIBUTIONS["cb_probs"]
_PARETO = DISTRIBUTIONS["pareto"]
KL_PAIRS = [
    ("cb", "cb"), ("beta", "cb"), ("uniform", "cb"), ("uniform_wide", "cb"),
    ("cb", "exponential"), ("cb", "normal"), ("cb", "uniform"), ("cb", "uniform_wide"),
    ("cb", "pareto"), ("pareto", "pareto"), ("pareto", "exponential"), ("pareto", "gamma"),
    ("pareto", "normal"), ("uniform", "pareto"), ("beta", "pareto"),
    ("exponential", "cb"), ("exponential", "pareto"), ("gamma", "cb"), ("gamma", "pareto"),
    ("gumbel", "cb"), ("gumbel", "pareto"), ("laplace", "cb"), ("laplace", "pareto"),
    ("normal", "cb"), ("normal", "pareto"), ("pareto", "beta"), ("pareto", "cb"),
    ("pareto", "uniform")]


def _make(name, lib):
    if name == "cb":
        return _CB(lib)
    if name == "pareto":
        return _PARETO(lib)
    return _OTHERS[name](lib)


@pytest.mark.parametrize("pair", KL_PAIRS, ids=["-".join(p) for p in KL_PAIRS])
def test_kl_divergence(torch, pair):
    first, second = pair
    if first == second:
        pe, qe = _make(first, ember), _OTHERS[first](ember)
        pt, qt = _make(first, torch), _OTHERS[first](torch)
    else:
        pe, qe = _make(first, ember), _make(second, ember)
        pt, qt = _make(first, torch), _make(second, torch)
    assert_same(ember.distributions.kl_divergence(pe, qe),
                torch.distributions.kl_divergence(pt, qt), atol=1e-12, rtol=1e-10)


# ----------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("call", [
    lambda lib: _D(lib).ContinuousBernoulli(),
    lambda lib: _D(lib).ContinuousBernoulli(lib.tensor([1.5]), validate_args=True),
    lambda lib: _D(lib).NegativeBinomial(3.0),
    lambda lib: _D(lib).LKJCholesky(1),
    lambda lib: _D(lib).Wishart(lib.tensor(2.0), lib.eye(2), scale_tril=lib.eye(2)),
    lambda lib: _D(lib).Wishart(lib.tensor(2.0), covariance_matrix=lib.ones(2)),
    lambda lib: _D(lib).Wishart(lib.tensor(0.5), covariance_matrix=lib.eye(3)),
    lambda lib: _D(lib).FisherSnedecor(lib.tensor([-1.0]), 2.0, validate_args=True),
    lambda lib: _D(lib).Pareto(1.0, 2.0, validate_args=True).log_prob(lib.tensor(0.5)),
    lambda lib: _D(lib).VonMises(lib.tensor(0.0), lib.tensor(-1.0), validate_args=True),
    lambda lib: _D(lib).GeneralizedPareto(lib.zeros(2, dtype=lib.float64), 1.0, 0.5).log_prob(
        lib.ones(2, dtype=lib.float64)),
])
def test_construction_errors(torch, call):
    assert_raises_alike(lambda: call(torch), lambda: call(ember))


def test_low_df_wishart_warns(torch):
    messages = []
    for lib in (torch, ember):
        _, caught = _quiet(lambda: _D(lib).Wishart(lib.tensor(2.5), covariance_matrix=lib.eye(3)))
        messages.append(caught)
    assert messages[0] == messages[1] and messages[0]


def test_names_match_torch(torch):
    missing = [n for n in dir(torch.distributions)
               if not n.startswith("_") and not hasattr(ember.distributions, n)]
    assert missing == []

