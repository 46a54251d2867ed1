"""Transforms, constraint registries and the composite distributions against PyTorch.

Each case builds the same object in both libraries from one function of `lib`, then
compares values, dtypes, shapes, reprs, seeded draws, gradients and errors.
"""
import math

import numpy as np
import pytest

import ember
from tests.oracle import assert_raises_alike, assert_same, to_numpy

R = np.random.default_rng(7)


def _arr(*shape, low=-1.5, high=1.5, dtype=np.float64):
    return R.uniform(low, high, size=shape).astype(dtype)


def _lower(n, batch=()):
    """A well-conditioned lower-triangular factor with a positive diagonal."""
    mat = np.tril(R.normal(size=batch + (n, n)) * 0.3)
    idx = np.arange(n)
    mat[..., idx, idx] = R.uniform(0.7, 1.5, size=batch + (n,))
    return mat


def _spd(n, batch=()):
    low = _lower(n, batch)
    return low @ np.swapaxes(low, -1, -2) + 0.1 * np.eye(n)


def _simplex(*shape):
    p = R.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


def _corr_cholesky(n):
    low = _lower(n)
    return low / np.linalg.norm(low, axis=-1, keepdims=True)


def _t(lib, value, grad=False, dtype=None):
    out = lib.tensor(value, dtype=dtype)
    if grad:
        out.requires_grad_()
    return out


def _T(lib):
    return lib.distributions.transforms


def _D(lib):
    return lib.distributions


# ----------------------------------------------------------------------------- transforms
# name -> (factory(lib), a point of the domain (NumPy), ladj defined?)
_EXPO = _arr(3, low=0.5, high=2.0)
_LOC, _SCALE = _arr(2, 3), _arr(2, 3, low=0.5, high=2.0)
TRANSFORMS = {
    "exp": (lambda lib: _T(lib).ExpTransform(), _arr(2, 3), True),
    "power_float": (lambda lib: _T(lib).PowerTransform(2.5), _arr(4, low=0.2, high=2), True),
    "power_tensor": (lambda lib: _T(lib).PowerTransform(_t(lib, _EXPO)),
                     _arr(2, 3, low=0.2, high=2), True),
    "sigmoid": (lambda lib: _T(lib).SigmoidTransform(), _arr(5, low=-4, high=4), True),
    "softplus": (lambda lib: _T(lib).SoftplusTransform(), _arr(5, low=-4, high=4), True),
    "tanh": (lambda lib: _T(lib).TanhTransform(), _arr(5, low=-3, high=3), True),
    "abs": (lambda lib: _T(lib).AbsTransform(), _arr(5), False),
    "affine_scalar": (lambda lib: _T(lib).AffineTransform(1.5, -2.0), _arr(2, 3), True),
    "affine_tensor": (lambda lib: _T(lib).AffineTransform(_t(lib, _LOC), _t(lib, _SCALE)),
                      _arr(2, 3), True),
    "affine_event": (lambda lib: _T(lib).AffineTransform(_t(lib, _LOC), _t(lib, _SCALE),
                                                         event_dim=1), _arr(4, 2, 3), True),
    "softmax": (lambda lib: _T(lib).SoftmaxTransform(), _arr(2, 4), False),
    "stick_breaking": (lambda lib: _T(lib).StickBreakingTransform(), _arr(2, 4), True),
    "lower_cholesky": (lambda lib: _T(lib).LowerCholeskyTransform(), _arr(2, 3, 3), False),
    "positive_definite": (lambda lib: _T(lib).PositiveDefiniteTransform(), _arr(3, 3),
                          False),
    "corr_cholesky": (lambda lib: _T(lib).CorrCholeskyTransform(), _arr(2, 6), True),
    "compose": (lambda lib: _T(lib).ComposeTransform(
        [_T(lib).ExpTransform(), _T(lib).AffineTransform(1.0, 3.0)]), _arr(2, 3), True),
    "compose_events": (lambda lib: _T(lib).ComposeTransform(
        [_T(lib).AffineTransform(0.5, 2.0), _T(lib).StickBreakingTransform()]),
        _arr(3, 4), True),
    "identity": (lambda lib: _T(lib).identity_transform, _arr(3), True),
    "independent": (lambda lib: _T(lib).IndependentTransform(_T(lib).SigmoidTransform(), 2),
                    _arr(3, 2, 2), True),
    "reshape": (lambda lib: _T(lib).ReshapeTransform((2, 3), (3, 2)), _arr(4, 2, 3), True),
    "inverse_exp": (lambda lib: _T(lib).ExpTransform().inv, _arr(4, low=0.2, high=3), True),
    "cat": (lambda lib: _T(lib).CatTransform(
        [_T(lib).ExpTransform(), _T(lib).AffineTransform(1.0, 2.0)], dim=1, lengths=[2, 3]),
        _arr(3, 5), True),
    "stack": (lambda lib: _T(lib).StackTransform(
        [_T(lib).ExpTransform(), _T(lib).SigmoidTransform()], dim=1), _arr(3, 2), True),
    "cdf": (lambda lib: _T(lib).CumulativeDistributionTransform(
        _D(lib).Normal(_t(lib, 0.5), _t(lib, 2.0))), _arr(4), True),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_values(torch, name):
    factory, point, has_ladj = TRANSFORMS[name]
    te, tt = factory(ember), factory(torch)
    xe, xt = _t(ember, point), _t(torch, point)
    ye, yt = te(xe), tt(xt)
    assert_same(ye, yt)
    assert_same(te.inv(ye), tt.inv(yt))
    if has_ladj:
        assert_same(te.log_abs_det_jacobian(xe, ye), tt.log_abs_det_jacobian(xt, yt),
                    atol=1e-12, rtol=1e-11)
    shape = tuple(point.shape)
    assert tuple(te.forward_shape(shape)) == tuple(tt.forward_shape(shape))
    out_shape = tuple(yt.shape)
    assert tuple(te.inverse_shape(out_shape)) == tuple(tt.inverse_shape(out_shape))
    assert repr(te) == repr(tt)
    assert te.bijective == tt.bijective
    assert repr(te.domain) == repr(tt.domain)
    assert repr(te.codomain) == repr(tt.codomain)
    assert te.domain.event_dim == tt.domain.event_dim
    assert te.codomain.event_dim == tt.codomain.event_dim
    try:
        sign_t = tt.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            te.sign
        return
    if isinstance(sign_t, torch.Tensor):
        assert_same(te.sign, sign_t)
    else:
        assert te.sign == sign_t


@pytest.mark.parametrize("name", ["exp", "power_tensor", "sigmoid", "softplus", "tanh",
                                  "affine_tensor", "stick_breaking", "corr_cholesky",
                                  "compose_events", "cat"])
def test_transform_gradcheck(name):
    factory, point, _ = TRANSFORMS[name]
    transform = factory(ember)
    x = _t(ember, point, grad=True)
    assert ember.autograd.gradcheck(lambda v: transform(v), (x,))
    assert ember.autograd.gradcheck(
        lambda v: transform.log_abs_det_jacobian(v, transform(v)), (x,))


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "stick_breaking", "affine_tensor"])
def test_transform_gradients_match(torch, name):
    factory, point, _ = TRANSFORMS[name]
    grads = []
    for lib in (ember, torch):
        transform = factory(lib)
        x = _t(lib, point, grad=True)
        y = transform(x)
        (y.sum() + transform.log_abs_det_jacobian(x, y).sum()).backward()
        grads.append(x.grad)
    assert_same(*grads)


def test_transform_cache_and_inverse(torch):
    for lib in (ember, torch):
        T = _T(lib)
        cached = T.SigmoidTransform(cache_size=1)
        x = lib.tensor([0.5, 40.0])
        y = cached(x)
        assert cached.inv(y) is x       # the cache answers, not the clamped logit
        assert cached(x) is y
        plain = T.SigmoidTransform()
        assert plain.inv(plain(x)) is not x
        exp = T.ExpTransform()
        assert exp.inv.inv is exp
        assert exp.inv is exp.inv
        assert T.ExpTransform().with_cache(1)._cache_size == 1
        assert T.AffineTransform(0.0, 2.0).with_cache(1)._cache_size == 1
        compose = T.ComposeTransform([T.ExpTransform(), T.SigmoidTransform()])
        assert compose.inv.inv is compose
        assert compose.with_cache(1).parts[0]._cache_size == 1


def test_transform_equality(torch):
    results = []
    for lib in (ember, torch):
        T = _T(lib)
        results.append([
            T.ExpTransform() == T.ExpTransform(),
            T.ExpTransform() == T.SigmoidTransform(),
            T.ExpTransform() != T.SigmoidTransform(),
            T.ExpTransform().inv == T.ExpTransform().inv,
            T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0),
            T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 3.0),
            T.AffineTransform(lib.tensor([1.0, 2.0]), 2.0) == T.AffineTransform(
                lib.tensor([1.0, 2.0]), 2.0),
            T.PowerTransform(2.0) == T.PowerTransform(2.0),
            T.PowerTransform(2.0) == T.PowerTransform(3.0),
            T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()]),
            T.Transform() == T.Transform(),
            T.StickBreakingTransform() == T.StickBreakingTransform(),
            T.CorrCholeskyTransform() == T.CorrCholeskyTransform(),
            T.ReshapeTransform((2,), (2,)) == T.ReshapeTransform((2,), (2,)),
        ])
    assert results[0] == results[1]


def test_transform_event_dims_and_signs(torch):
    for lib in (ember, torch):
        T = _T(lib)
        chain = T.ComposeTransform([T.ExpTransform(), T.SoftmaxTransform()])
        assert chain.domain.event_dim == 1 and chain.codomain.event_dim == 1
        assert T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -2.0)]).sign == -1
        assert T.AffineTransform(0.0, 0.0).sign == 0
        assert T.ReshapeTransform((2, 3), (6,)).domain.event_dim == 2
    assert repr(ember.distributions.transforms.identity_transform) == repr(
        torch.distributions.transforms.identity_transform)


@pytest.mark.parametrize("call", [
    lambda lib: _T(lib).Transform(cache_size=2),
    lambda lib: _T(lib).ReshapeTransform((2, 3), (5,)),
    lambda lib: _T(lib).ReshapeTransform((2, 3), (6,)).forward_shape((3, 2)),
    lambda lib: _T(lib).ReshapeTransform((2, 3), (6,)).forward_shape((3,)),
    lambda lib: _T(lib).SoftmaxTransform().forward_shape(()),
    lambda lib: _T(lib).CorrCholeskyTransform().forward_shape((5,)),
    lambda lib: _T(lib).CorrCholeskyTransform().inverse_shape((3, 4)),
    lambda lib: _T(lib).AbsTransform().sign,
    lambda lib: _T(lib).Transform()(lib.ones(2)),
    lambda lib: _T(lib).Transform().log_abs_det_jacobian(lib.ones(2), lib.ones(2)),
    lambda lib: _T(lib).ReshapeTransform((2,), (1, 2)).event_dim,
    lambda lib: _T(lib).IndependentTransform(_T(lib).ExpTransform(), 2)(lib.ones(3)),
    lambda lib: _D(lib).TransformedDistribution(_D(lib).Normal(0.0, 1.0), "exp"),
    lambda lib: _D(lib).TransformedDistribution(_D(lib).Normal(0.0, 1.0), ["exp"]),
    lambda lib: _D(lib).TransformedDistribution(_D(lib).Normal(0.0, 1.0),
                                                _T(lib).StickBreakingTransform()),
])
def test_transform_errors(torch, call):
    assert_raises_alike(lambda: call(torch), lambda: call(ember))


# ------------------------------------------------------------------ constraint registries
CONSTRAINTS = [
    ("real", lambda C: C.real, (3,)),
    ("positive", lambda C: C.positive, (3,)),
    ("nonnegative", lambda C: C.nonnegative, (3,)),
    ("greater_than", lambda C: C.greater_than(2.0), (3,)),
    ("less_than", lambda C: C.less_than(-1.0), (3,)),
    ("unit_interval", lambda C: C.unit_interval, (3,)),
    ("interval", lambda C: C.interval(-2.0, 5.0), (3,)),
    ("half_open", lambda C: C.half_open_interval(0.0, 1.0), (3,)),
    ("simplex", lambda C: C.simplex, (2, 3)),
    ("real_vector", lambda C: C.real_vector, (2, 3)),
    ("independent", lambda C: C.independent(C.positive, 1), (2, 3)),
    ("lower_cholesky", lambda C: C.lower_cholesky, (3, 3)),
    ("positive_definite", lambda C: C.positive_definite, (3, 3)),
    ("corr_cholesky", lambda C: C.corr_cholesky, (2, 3)),
    ("cat", lambda C: C.cat([C.real, C.positive], 0, [1, 2]), (3, 2)),
    ("stack", lambda C: C.stack([C.real, C.unit_interval], 1), (3, 2)),
]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name,make,shape", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_constraint_registry(torch, registry, name, make, shape):
    outs = []
    for lib in (ember, torch):
        D = _D(lib)
        try:
            transform = getattr(D, registry)(make(D.constraints))
        except NotImplementedError as e:
            outs.append(("raises", str(e)))
            continue
        point = _t(lib, np.linspace(-1, 1, int(np.prod(shape))).reshape(shape))
        value = transform(point)
        assert bool(make(D.constraints).check(value).all())
        outs.append((repr(transform), value))
    if outs[1][0] == "raises":
        assert outs[0] == outs[1]
        return
    assert outs[0][0] == outs[1][0]
    assert_same(outs[0][1], outs[1][1])


def test_constraint_registry_register(torch):
    for lib in (ember, torch):
        D = _D(lib)
        registry = D.constraint_registry.ConstraintRegistry()
        registry.register(D.constraints.positive, lambda c: D.transforms.ExpTransform())
        assert isinstance(registry(D.constraints.greater_than(3.0)), D.transforms.ExpTransform)
    assert_raises_alike(lambda: torch.distributions.biject_to(
        torch.distributions.constraints.lower_cholesky),
        lambda: ember.distributions.biject_to(ember.distributions.constraints.lower_cholesky))
    assert_raises_alike(
        lambda: torch.distributions.constraint_registry.ConstraintRegistry().register(3, id),
        lambda: ember.distributions.constraint_registry.ConstraintRegistry().register(3, id))


# --------------------------------------------------------------------------- distributions
_MU, _SIG = _arr(2, 3), _arr(2, 3, low=0.5, high=2.0)
_MVN_LOC, _COV, _TRIL = _arr(2, 3), _spd(3, (2,)), _lower(3)
_W, _DIAG = _arr(2, 3, 2), _arr(2, 3, low=0.5, high=1.5)
_LOGITS = _arr(2, 4)
_K1, _K0 = _arr(2, 3, low=0.5, high=3.0), _arr(2, 3, low=0.5, high=3.0)
# every array a builder uses is drawn once here, so both libraries get the same values
_MIX_LOC, _MIX_SCALE = _arr(2, 4), _arr(2, 4, low=0.5, high=2.0)
_MIX_MVN_LOC, _MIX_MVN_TRIL = _arr(4, 3), _lower(3, (4,))
_P_BINARY, _P_SIMPLEX = _simplex(2, 3)[..., 0] + 0.1, _simplex(2, 4)

DISTRIBUTIONS = {
    "transformed": lambda lib: _D(lib).TransformedDistribution(
        _D(lib).Normal(_t(lib, _MU), _t(lib, _SIG)),
        [_T(lib).ExpTransform(), _T(lib).AffineTransform(1.0, -2.0)]),
    "transformed_events": lambda lib: _D(lib).TransformedDistribution(
        _D(lib).Normal(_t(lib, _MU), _t(lib, _SIG)), _T(lib).StickBreakingTransform()),
    "transformed_reshape": lambda lib: _D(lib).TransformedDistribution(
        _D(lib).Normal(_t(lib, _MU), _t(lib, _SIG)), _T(lib).ReshapeTransform((2, 3), (6,))),
    "lognormal": lambda lib: _D(lib).LogNormal(_t(lib, _MU), _t(lib, _SIG)),
    "lognormal_float": lambda lib: _D(lib).LogNormal(0.5, 1.5),
    "halfnormal": lambda lib: _D(lib).HalfNormal(_t(lib, _SIG)),
    "halfcauchy": lambda lib: _D(lib).HalfCauchy(_t(lib, _SIG)),
    "gumbel": lambda lib: _D(lib).Gumbel(_t(lib, _MU), _t(lib, _SIG)),
    "gumbel_float": lambda lib: _D(lib).Gumbel(1.0, 2.0),
    "weibull": lambda lib: _D(lib).Weibull(_t(lib, _SIG), _t(lib, _K1)),
    "kumaraswamy": lambda lib: _D(lib).Kumaraswamy(_t(lib, _K1), _t(lib, _K0)),
    "logistic_normal": lambda lib: _D(lib).LogisticNormal(_t(lib, _MU), _t(lib, _SIG)),
    "independent": lambda lib: _D(lib).Independent(
        _D(lib).Normal(_t(lib, _MU), _t(lib, _SIG)), 1),
    "mvn_cov": lambda lib: _D(lib).MultivariateNormal(_t(lib, _MVN_LOC),
                                                      covariance_matrix=_t(lib, _COV)),
    "mvn_prec": lambda lib: _D(lib).MultivariateNormal(_t(lib, _MVN_LOC[0]),
                                                       precision_matrix=_t(lib, _COV)),
    "mvn_tril": lambda lib: _D(lib).MultivariateNormal(_t(lib, _MVN_LOC),
                                                       scale_tril=_t(lib, _TRIL)),
    "lowrank": lambda lib: _D(lib).LowRankMultivariateNormal(
        _t(lib, _MVN_LOC), _t(lib, _W), _t(lib, _DIAG)),
    "mixture": lambda lib: _D(lib).MixtureSameFamily(
        _D(lib).Categorical(logits=_t(lib, _LOGITS)),
        _D(lib).Normal(_t(lib, _MIX_LOC), _t(lib, _MIX_SCALE))),
    "mixture_mvn": lambda lib: _D(lib).MixtureSameFamily(
        _D(lib).Categorical(logits=_t(lib, _LOGITS[0])),
        _D(lib).MultivariateNormal(_t(lib, _MIX_MVN_LOC), scale_tril=_t(lib, _MIX_MVN_TRIL))),
    "relaxed_bernoulli": lambda lib: _D(lib).RelaxedBernoulli(
        _t(lib, 0.7), probs=_t(lib, _P_BINARY)),
    "logit_relaxed_bernoulli": lambda lib: _D(lib).relaxed_bernoulli.LogitRelaxedBernoulli(
        _t(lib, 0.7), logits=_t(lib, _MU)),
    "relaxed_one_hot": lambda lib: _D(lib).RelaxedOneHotCategorical(
        _t(lib, 0.5), probs=_t(lib, _P_SIMPLEX)),
    "exp_relaxed": lambda lib: _D(lib).relaxed_categorical.ExpRelaxedCategorical(
        _t(lib, 0.5), logits=_t(lib, _LOGITS)),
}


def _tol(value, atol, rtol):
    """float64 is held to `atol`/`rtol`; float32 results take the oracle's float32 defaults."""
    if str(getattr(value, "dtype", "")).endswith("float32"):
        return {}
    return {"atol": atol, "rtol": rtol}


def _both_or_neither(torch, fn, de, dt, atol=1e-12, rtol=1e-10):
    """fn(dist) in each library: equal results, or the same exception type."""
    try:
        expected = fn(dt)
    except (NotImplementedError, ValueError, AttributeError) as e:
        with pytest.raises(type(e)):
            fn(de)
        return None
    got = fn(de)
    assert_same(got, expected, **_tol(expected, atol, rtol))
    return got


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_distribution_matches(torch, name):
    de, dt = DISTRIBUTIONS[name](ember), DISTRIBUTIONS[name](torch)
    assert tuple(de.batch_shape) == tuple(dt.batch_shape)
    assert tuple(de.event_shape) == tuple(dt.event_shape)
    assert repr(de).replace("ember.", "torch.") == repr(dt)
    assert repr(de.support) == repr(dt.support)
    assert de.has_rsample == dt.has_rsample
    for prop in ("mean", "variance", "stddev", "mode"):
        _both_or_neither(torch, lambda d: getattr(d, prop), de, dt)
    _both_or_neither(torch, lambda d: d.entropy(), de, dt)
    ember.manual_seed(3)
    torch.manual_seed(3)
    xe, xt = de.sample((5,)), dt.sample((5,))
    assert_same(xe, xt, **_tol(xt, 1e-10, 1e-10))
    value_e, value_t = _t(ember, to_numpy(xt)), _t(torch, to_numpy(xt))
    assert_same(de.log_prob(value_e), dt.log_prob(value_t), **_tol(xt, 1e-10, 1e-10))
    if name in ("lognormal", "halfnormal", "halfcauchy", "gumbel", "weibull", "transformed",
                "kumaraswamy", "mixture"):
        assert_same(de.cdf(value_e), dt.cdf(value_t), **_tol(xt, 1e-12, 1e-10))
        if name not in ("mixture", "weibull", "kumaraswamy"):
            probs = _arr(5, 2, 3, low=0.05, high=0.95)
            probs_e, probs_t = _t(ember, probs, dtype=de.sample().dtype), _t(
                torch, probs, dtype=dt.sample().dtype)
            assert_same(de.icdf(probs_e), dt.icdf(probs_t), **_tol(xt, 1e-12, 1e-10))
    expanded_e, expanded_t = de.expand((4,) + tuple(dt.batch_shape)), dt.expand(
        (4,) + tuple(dt.batch_shape))
    assert tuple(expanded_e.batch_shape) == tuple(expanded_t.batch_shape)
    assert type(expanded_e).__name__ == type(expanded_t).__name__
    ember.manual_seed(4)
    torch.manual_seed(4)
    assert_same(expanded_e.sample(), expanded_t.sample(), **_tol(xt, 1e-10, 1e-10))


GRAD_CASES = {
    "lognormal": (lambda lib, m, s: _D(lib).LogNormal(m, s), [_MU, _SIG]),
    "halfnormal": (lambda lib, s: _D(lib).HalfNormal(s), [_SIG]),
    "halfcauchy": (lambda lib, s: _D(lib).HalfCauchy(s), [_SIG]),
    "gumbel": (lambda lib, m, s: _D(lib).Gumbel(m, s), [_MU, _SIG]),
    "weibull": (lambda lib, s, k: _D(lib).Weibull(s, k), [_SIG, _K1]),
    "kumaraswamy": (lambda lib, a, b: _D(lib).Kumaraswamy(a, b), [_K1, _K0]),
    "logistic_normal": (lambda lib, m, s: _D(lib).LogisticNormal(m, s), [_MU, _SIG]),
    "mvn_cov": (lambda lib, m, c: _D(lib).MultivariateNormal(m, covariance_matrix=c),
                [_MVN_LOC, _COV]),
    "mvn_prec": (lambda lib, m, c: _D(lib).MultivariateNormal(m, precision_matrix=c),
                 [_MVN_LOC, _COV]),
    "mvn_tril": (lambda lib, m, c: _D(lib).MultivariateNormal(m, scale_tril=c.tril()),
                 [_MVN_LOC, _TRIL]),
    "lowrank": (lambda lib, m, w, d: _D(lib).LowRankMultivariateNormal(m, w, d),
                [_MVN_LOC, _W, _DIAG]),
    "relaxed_bernoulli": (lambda lib, t, lg: _D(lib).RelaxedBernoulli(t, logits=lg),
                          [np.array(0.7), _MU]),
    "relaxed_one_hot": (lambda lib, t, lg: _D(lib).RelaxedOneHotCategorical(t, logits=lg),
                        [np.array(0.5), _LOGITS]),
    "mixture": (lambda lib, lg, m, s: _D(lib).MixtureSameFamily(
        _D(lib).Categorical(logits=lg), _D(lib).Normal(m, s)),
        [_LOGITS, _arr(2, 4), _arr(2, 4, low=0.5, high=2.0)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_parameter_gradients(torch, name):
    build, params = GRAD_CASES[name]
    grads = []
    for lib in (ember, torch):
        leaves = [_t(lib, p, grad=True) for p in params]
        dist = build(lib, *leaves)
        lib.manual_seed(11)
        draw = dist.rsample((3,)) if dist.has_rsample else dist.sample((3,))
        total = draw.sum() + dist.log_prob(draw.detach()).sum()
        if name not in ("mixture", "relaxed_bernoulli", "relaxed_one_hot", "logistic_normal"):
            total = total + dist.entropy().sum()
        grads.append(lib.autograd.grad(total, leaves, allow_unused=True))
    for got, expected in zip(*grads):
        if expected is None:
            assert got is None
        else:
            assert_same(got, expected, atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("name", ["lognormal", "gumbel", "weibull", "mvn_tril", "lowrank",
                                  "mixture", "relaxed_one_hot"])
def test_log_prob_gradcheck(name):
    build, params = GRAD_CASES[name]
    leaves = [_t(ember, p, grad=True) for p in params]
    value = build(ember, *[leaf.detach() for leaf in leaves]).sample((2,))
    assert ember.autograd.gradcheck(lambda *ps: build(ember, *ps).log_prob(value), leaves)


# --------------------------------------------------------------------------------------- KL
_KL_LOC2, _KL_TRIL2 = _arr(3), _lower(3, (2,))
_KL_W2, _KL_D2 = _arr(3, 1), _arr(3, low=0.5, high=1.5)
_G_LOC, _G_SCALE = _arr(2, 3), _arr(2, 3, low=0.5, high=2.0)
_LOWS = _arr(2, 3, low=-1.0, high=0.0)

KL_PAIRS = {
    "mvn_mvn": lambda lib: (DISTRIBUTIONS["mvn_cov"](lib), _D(lib).MultivariateNormal(
        _t(lib, _KL_LOC2), scale_tril=_t(lib, _KL_TRIL2))),
    "lowrank_lowrank": lambda lib: (DISTRIBUTIONS["lowrank"](lib),
                                    _D(lib).LowRankMultivariateNormal(
                                        _t(lib, _KL_LOC2), _t(lib, _KL_W2), _t(lib, _KL_D2))),
    "mvn_lowrank": lambda lib: (DISTRIBUTIONS["mvn_tril"](lib), DISTRIBUTIONS["lowrank"](lib)),
    "lowrank_mvn": lambda lib: (DISTRIBUTIONS["lowrank"](lib), DISTRIBUTIONS["mvn_cov"](lib)),
    "independent": lambda lib: (DISTRIBUTIONS["independent"](lib), _D(lib).Independent(
        _D(lib).Normal(_t(lib, _G_LOC), _t(lib, _G_SCALE)), 1)),
    "lognormal": lambda lib: (DISTRIBUTIONS["lognormal"](lib),
                              _D(lib).LogNormal(_t(lib, _G_LOC), _t(lib, _G_SCALE))),
    "halfnormal": lambda lib: (DISTRIBUTIONS["halfnormal"](lib),
                               _D(lib).HalfNormal(_t(lib, _G_SCALE))),
    "gumbel_gumbel": lambda lib: (DISTRIBUTIONS["gumbel"](lib),
                                  _D(lib).Gumbel(_t(lib, _G_LOC), _t(lib, _G_SCALE))),
    "gumbel_normal": lambda lib: (DISTRIBUTIONS["gumbel"](lib),
                                  _D(lib).Normal(_t(lib, _G_LOC), _t(lib, _G_SCALE))),
    "normal_gumbel": lambda lib: (_D(lib).Normal(_t(lib, _G_LOC), _t(lib, _G_SCALE)),
                                  DISTRIBUTIONS["gumbel"](lib)),
    "uniform_gumbel": lambda lib: (_D(lib).Uniform(_t(lib, _LOWS), _t(lib, _G_SCALE)),
                                   DISTRIBUTIONS["gumbel"](lib)),
    "exponential_gumbel": lambda lib: (_D(lib).Exponential(_t(lib, _G_SCALE)),
                                       DISTRIBUTIONS["gumbel"](lib)),
    "gamma_gumbel": lambda lib: (_D(lib).Gamma(_t(lib, _K1), _t(lib, _G_SCALE)),
                                 DISTRIBUTIONS["gumbel"](lib)),
    "gumbel_gamma": lambda lib: (DISTRIBUTIONS["gumbel"](lib),
                                 _D(lib).Gamma(_t(lib, _K1), _t(lib, _G_SCALE))),
    "gumbel_beta": lambda lib: (DISTRIBUTIONS["gumbel"](lib),
                                _D(lib).Beta(_t(lib, _K1), _t(lib, _K0))),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_divergence(torch, name):
    pe, qe = KL_PAIRS[name](ember)
    pt, qt = KL_PAIRS[name](torch)
    assert_same(ember.distributions.kl_divergence(pe, qe),
                torch.distributions.kl_divergence(pt, qt), atol=1e-12, rtol=1e-10)


def test_kl_gradients(torch):
    grads = []
    for lib in (ember, torch):
        loc = _t(lib, _MVN_LOC, grad=True)
        factor = _t(lib, _W, grad=True)
        p = _D(lib).MultivariateNormal(loc, scale_tril=_t(lib, _TRIL))
        q = _D(lib).LowRankMultivariateNormal(_t(lib, _KL_LOC2), factor, _t(lib, _DIAG))
        grads.append(lib.autograd.grad(lib.distributions.kl_divergence(p, q).sum(),
                                       [loc, factor]))
    assert_same(list(grads[0]), list(grads[1]), atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda lib: _D(lib).kl_divergence(_D(lib).MultivariateNormal(lib.zeros(2), lib.eye(2)),
                                      _D(lib).MultivariateNormal(lib.zeros(3), lib.eye(3))),
    lambda lib: _D(lib).kl_divergence(
        _D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2)),
        _D(lib).MultivariateNormal(lib.zeros(3), lib.eye(3))),
    lambda lib: _D(lib).kl_divergence(
        _D(lib).Independent(_D(lib).Normal(lib.zeros(2, 3), 1.0), 1),
        _D(lib).Independent(_D(lib).Normal(lib.zeros(2, 3), 1.0), 2)),
    lambda lib: _D(lib).kl_divergence(
        _D(lib).TransformedDistribution(_D(lib).Normal(0.0, 1.0), _T(lib).ExpTransform()),
        _D(lib).TransformedDistribution(_D(lib).Normal(0.0, 1.0), _T(lib).SigmoidTransform())),
])
def test_kl_errors(torch, call):
    assert_raises_alike(lambda: call(torch), lambda: call(ember))


# ----------------------------------------------------------------------- construction errors
@pytest.mark.parametrize("call", [
    lambda lib: _D(lib).MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2)),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), precision_matrix=lib.ones(2)),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor(
        [[1.0, 1.0], [0.0, -1.0]])),
    lambda lib: _D(lib).MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)),
    lambda lib: _D(lib).LowRankMultivariateNormal(lib.tensor(0.0), lib.ones(1, 1), lib.ones(1)),
    lambda lib: _D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2), lib.ones(2)),
    lambda lib: _D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(3, 1), lib.ones(2)),
    lambda lib: _D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(3)),
    lambda lib: _D(lib).LowRankMultivariateNormal(lib.zeros(3, 2), lib.ones(4, 2, 1),
                                                  lib.ones(2)),
    lambda lib: _D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.zeros(2)),
    lambda lib: _D(lib).Independent(_D(lib).Normal(lib.zeros(2), 1.0), 2),
    lambda lib: _D(lib).Independent(_D(lib).Normal(lib.zeros(2), 1.0), 1).enumerate_support(),
    lambda lib: _D(lib).MixtureSameFamily(_D(lib).Normal(0.0, 1.0), _D(lib).Normal(0.0, 1.0)),
    lambda lib: _D(lib).MixtureSameFamily(_D(lib).Categorical(logits=lib.zeros(3)), "normal"),
    lambda lib: _D(lib).MixtureSameFamily(_D(lib).Categorical(logits=lib.zeros(3)),
                                          _D(lib).Normal(lib.zeros(4), 1.0)),
    lambda lib: _D(lib).MixtureSameFamily(_D(lib).Categorical(logits=lib.zeros(2, 3)),
                                          _D(lib).Normal(lib.zeros(5, 3), 1.0)),
    lambda lib: _D(lib).relaxed_bernoulli.LogitRelaxedBernoulli(lib.tensor(1.0)),
    lambda lib: _D(lib).RelaxedBernoulli(lib.tensor(1.0), probs=lib.tensor(0.5),
                                         logits=lib.tensor(0.0)),
    lambda lib: _D(lib).RelaxedBernoulli(lib.tensor(1.0), probs=lib.tensor(1.5)),
    lambda lib: _D(lib).LogNormal(0.0, -1.0),
    lambda lib: _D(lib).LogNormal(0.0, 1.0).log_prob(lib.tensor(-1.0)),
    lambda lib: _D(lib).HalfNormal(lib.ones(2)).log_prob(lib.tensor([-1.0, 1.0])),
    lambda lib: _D(lib).Gumbel(0.0, 0.0),
    lambda lib: _D(lib).Weibull(1.0, -1.0),
    lambda lib: _D(lib).Kumaraswamy(1.0, lib.tensor([1.0, -1.0])),
    lambda lib: _D(lib).LogisticNormal(lib.zeros(2), lib.zeros(2)),
])
def test_construction_errors(torch, call):
    assert_raises_alike(lambda: call(torch), lambda: call(ember))


def test_reprs_after_lazy_parameters(torch):
    texts = []
    for lib in (ember, torch):
        mvn = _D(lib).MultivariateNormal(lib.zeros(2), scale_tril=lib.eye(2))
        before = repr(mvn)
        mvn.covariance_matrix
        mixture = _D(lib).MixtureSameFamily(_D(lib).Categorical(probs=lib.ones(3) / 3),
                                            _D(lib).Normal(lib.zeros(3), lib.ones(3)))
        relaxed = _D(lib).RelaxedBernoulli(lib.tensor(0.5), logits=lib.zeros(2))
        texts.append([before, repr(mvn), repr(mixture), repr(relaxed),
                      repr(_D(lib).Independent(_D(lib).Gumbel(lib.zeros(2), 1.0), 1)),
                      repr(_D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1),
                                                             lib.ones(2)))])
    assert [t.replace("ember.", "torch.") for t in texts[0]] == texts[1]


def test_mixture_of_mvn_sampling_and_cdf(torch):
    outs = []
    for lib in (ember, torch):
        mix = DISTRIBUTIONS["mixture"](lib)
        lib.manual_seed(21)
        draws = mix.sample((4, 2))
        outs.append((draws, mix.cdf(draws), mix.log_prob(draws), mix.expand((3, 2)).mean))
    assert_same(list(outs[0]), list(outs[1]), atol=1e-12, rtol=1e-10)


def test_transformed_distribution_broadcasts_base(torch):
    outs = []
    for lib in (ember, torch):
        base = _D(lib).Normal(lib.tensor(0.0, dtype=lib.float64), 1.0)
        dist = _D(lib).TransformedDistribution(
            base, [_T(lib).AffineTransform(_t(lib, _LOC), _t(lib, _SCALE))])
        lib.manual_seed(5)
        draw = dist.rsample((2,))
        outs.append((tuple(dist.batch_shape), tuple(dist.base_dist.batch_shape), draw,
                     dist.log_prob(draw), repr(dist.support)))
    assert outs[0][:2] == outs[1][:2] and outs[0][4] == outs[1][4]
    assert_same(list(outs[0][2:4]), list(outs[1][2:4]))


# ------------------------------------------------------------------------ a whole notebook
def _run_notebook(lib):
    """tests/scripts/probability.py with `import torch` bound to `lib`; what it prints."""
    import contextlib
    import io
    import pathlib
    import sys
    script = pathlib.Path(__file__).parent / "scripts" / "probability.py"
    saved = sys.modules.get("torch")
    output = io.StringIO()
    try:
        sys.modules["torch"] = lib
        with contextlib.redirect_stdout(output):
            exec(compile(script.read_text(), str(script), "exec"), {"__name__": "__main__"})
    finally:
        sys.modules["torch"] = saved
    return output.getvalue()


def test_probability_notebook_prints_what_torch_prints(torch):
    from tests.test_tutorial import assert_prints_alike
    expected = _run_notebook(torch).replace("torch.", "ember.")
    assert_prints_alike(_run_notebook(ember), expected)
