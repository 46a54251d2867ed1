"""Special values through losses, activations, special functions and pointwise math.

tests/grad_specials.py sweeps the catalog with 0, -0.0, +-inf, nan, ties and extremes;
each case here pins one difference it found and ember removed: the forward value and
every input gradient must match PyTorch bit for bit, nan positions and the sign of zero
included.
"""
import math
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same_error

NAN, INF = math.nan, math.inf


def _exact(got, expected, what, rtol=0.0):
    """Same dtype, shape, nan positions, infinities and signs of zero; other values equal,
    or within `rtol` where ember's and PyTorch's libm may differ in the last bit."""
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], what
    a = got.detach().numpy().astype(np.float64)
    b = expected.detach().numpy().astype(np.float64)
    assert a.shape == b.shape, what
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"{what}: nan")
    np.testing.assert_array_equal(np.signbit(a[~np.isnan(a)]), np.signbit(b[~np.isnan(b)]),
                                  err_msg=f"{what}: sign")
    if rtol:
        np.testing.assert_array_equal(np.isinf(a), np.isinf(b), err_msg=f"{what}: inf")
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


def _outcome(lib, call, inputs, dtype):
    """`call(lib, *tensors)`'s value and each input's gradient under a fixed upstream."""
    tensors = [lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True) for v in inputs]
    out = call(lib, *tensors)
    upstream = np.random.default_rng(3).standard_normal(tuple(out.shape))
    out.backward(lib.tensor(upstream, dtype=out.dtype))
    return out, [t.grad for t in tensors]


def _same(torch, call, *inputs, dtype="float64", rtol=0.0):
    got, got_grads = _outcome(ember, call, inputs, dtype)
    expected, expected_grads = _outcome(torch, call, inputs, dtype)
    _exact(got, expected, "output", rtol)
    for i, (g, e) in enumerate(zip(got_grads, expected_grads)):
        assert (g is None) == (e is None), f"grad {i}: None in one library"
        if e is not None:
            _exact(g, e, f"grad {i}", rtol)


SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-300, 7.0]
NO_NAN = SPECIAL[1:]


# ---------------------------------------------------------------- pointwise and activations
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, call, values", [
    ("relu", lambda lib, x: lib.relu(x), SPECIAL),
    ("relu in place", lambda lib, x: lib.nn.functional.relu(x * 1.0, inplace=True), SPECIAL),
    ("relu6", lambda lib, x: lib.nn.functional.relu6(x), NO_NAN),
    ("hardtanh", lambda lib, x: lib.nn.functional.hardtanh(x), NO_NAN),
    ("hardtanh -0.0 bound", lambda lib, x: lib.nn.functional.hardtanh(x, -0.0, 2.0), NO_NAN),
])
def test_unary_at_special_values(torch, name, call, values, dtype):
    _same(torch, call, values, dtype=dtype)


@pytest.mark.parametrize("name, call", [
    ("i1", lambda lib, x: lib.special.i1(x)),
    ("i1e", lambda lib, x: lib.special.i1e(x)),
])
def test_bessel_gradient_is_one_half_where_x_is_tiny_or_nan(torch, name, call):
    # float64 only: in float32 ember's values are the better rounded ones (see special.py)
    _same(torch, call, SPECIAL + [1e-17, -2e-16, 5e-324])


@pytest.mark.parametrize("name, call, value", [
    ("hardtanh", lambda lib, x: lib.nn.functional.hardtanh(x), NAN),
    ("relu6", lambda lib, x: lib.nn.functional.relu6(x), NAN),
    ("elu", lambda lib, x: lib.nn.functional.elu(x), NAN),
    ("selu", lambda lib, x: lib.nn.functional.selu(x), NAN),
    ("celu", lambda lib, x: lib.nn.functional.celu(x), NAN),
    ("logit", lambda lib, x: lib.logit(x), -0.0),
])
def test_vector_kernel_at_nan(torch, name, call, value):
    """PyTorch's CPU kernels disagree with themselves here: the SIMD body gives a nan
    input of elu a nan gradient and hardtanh a zero one, logit'(-0.0) is -inf, while the
    scalar tail (the last len % 8 doubles, len % 16 floats) gives grad * scale, grad and
    +inf. ember follows the SIMD body, which covers all but the tail of a real tensor."""
    for dtype in ("float64", "float32"):
        _same(torch, call, [value] * 64, dtype=dtype)


@pytest.mark.parametrize("value", [INF, -INF, NAN, 0.0, -0.0, 1e300])
def test_prod_of_a_scalar_passes_the_gradient(torch, value):
    _same(torch, lambda lib, x: x.prod(), value)
    _same(torch, lambda lib, x: lib.prod(x, 0), value)


# ---------------------------------------------------------------- xlog1py
def test_xlog1py_gradient_at_zero_is_log1p_of_other(torch):
    x = [0.0, -0.0, 0.0, 0.0, 1.0, NAN, 0.0, 0.0]
    y = [2.0, -1.0, NAN, INF, -1.0, 0.0, -2.0, 3.0]
    # the x gradient log1p(y) is scipy's against PyTorch's log1p: equal to the last ulp or so
    _same(torch, lambda lib, a, b: lib.special.xlog1py(a, b), x, y, rtol=1e-15)
    _same(torch, lambda lib, a: lib.special.xlog1py(a, -1.0), x, rtol=1e-15)
    _same(torch, lambda lib, a: lib.special.xlog1py(a, 3.0), x, rtol=1e-15)


# ---------------------------------------------------------------- margin losses
MARGIN_ROWS = [[INF, 0.5, -1.0, 0.25], [NAN, 0.0, 0.3, -0.0], [0.0, -0.0, 0.0, 0.0],
               [1e300, -1e300, 2.0, NAN], [0.1, -INF, INF, 0.2]]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss_gradient_overflows_to_nan(torch, reduction):
    target = [[1.0, -1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, 1.0]] * 2 + [[-1.0, -1.0, 1.0, 1.0]]
    _same(torch, lambda lib, x, t: lib.nn.functional.soft_margin_loss(
        x, t.detach(), reduction=reduction), MARGIN_ROWS, target, rtol=1e-15)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("p, weighted", [(1, False), (2, False), (1, True), (2, True)])
def test_multi_margin_loss_skips_nan_margins(torch, reduction, p, weighted):
    def call(lib, x):
        weight = lib.tensor([0.5, 2.0, 1.0, 3.0], dtype=lib.float64) if weighted else None
        return lib.nn.functional.multi_margin_loss(x, lib.tensor([0, 2, 1, 3, 2]), p=p,
                                                   weight=weight, reduction=reduction)
    _same(torch, call, MARGIN_ROWS)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_skips_nan_margins(torch, reduction):
    def call(lib, x):
        target = lib.tensor([[0, 2, -1, 1], [3, -1, 0, 0], [1, 0, -1, 2], [2, 3, -1, 0],
                             [1, -1, 2, 3]])
        return lib.nn.functional.multilabel_margin_loss(x, target, reduction=reduction)
    _same(torch, call, MARGIN_ROWS, rtol=1e-15)


# ---------------------------------------------------------------- nll_loss and cross_entropy
NLL_INPUT = [[INF, NAN, -0.0, 0.0], [1.0, -2.0, 0.0, 0.0], [0.5, -0.5, -INF, 1e300],
             [0.0, 0.0, 0.0, 0.0], [NAN, 1.0, 2.0, 3.0]]


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
def test_nll_gradient_is_plus_zero_off_target(torch, name, reduction, weighted, dtype):
    """Only the targets are written (-weight * grad); every other entry, ignored rows
    included, is +0.0 whatever the upstream's sign, as in PyTorch's kernel."""
    def call(lib, x):
        weight = lib.tensor([0.5, 0.0, 2.0, 1.0], dtype=x.dtype) if weighted else None
        target = lib.tensor([2, 0, -100, 1, 3])
        return getattr(lib.nn.functional, name)(x, target, weight=weight, reduction=reduction)
    rtol = 0.0
    if name == "cross_entropy":   # log_softmax's own rounding is not under test here
        dtype, rtol = ("float64", 1e-15) if dtype == "float64" else ("float32", 4e-7)
    _same(torch, call, NLL_INPUT, dtype=dtype, rtol=rtol)


def test_nll_gradient_with_create_graph(torch):
    def run(lib, reduction):
        x = lib.tensor(NLL_INPUT, dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.nll_loss(x, lib.tensor([2, 0, -100, 1, 3]), reduction=reduction)
        upstream = lib.full(tuple(loss.shape), -1.5, dtype=lib.float64, requires_grad=True)
        (grad,) = lib.autograd.grad(loss, x, upstream, create_graph=True)
        (second,) = lib.autograd.grad((grad * 3.0).sum(), upstream)
        return grad, second
    for reduction in ("mean", "sum", "none"):
        for got, expected in zip(run(ember, reduction), run(torch, reduction)):
            _exact(got, expected, reduction)


# ---------------------------------------------------------------- binary_cross_entropy
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_gradient_floor_at_zero_and_one(torch, reduction, dtype):
    """x (1 - x) is floored at PyTorch's float 1e-12 (9.99999996e-13), not the double."""
    _same(torch, lambda lib, x, t: lib.nn.functional.binary_cross_entropy(
        x, t, reduction=reduction), [0.0, -0.0, 1.0, 0.3, 1e-300, 0.0],
        [0.2, 0.7, 0.4, 0.1, 0.5, 0.0], dtype=dtype)


@pytest.mark.parametrize("target", [[1.5, 0.2], [NAN, 0.2], [-1.0, 0.2], [INF, 0.0]])
def test_binary_cross_entropy_target_outside_zero_one(torch, target):
    assert_same_error(lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.5, 0.2]), lib.tensor(target)))
    assert_same_error(lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([1.5, 0.2]), lib.tensor(target)))


# ---------------------------------------------------------------- gamma family and sinc
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_polygamma_at_infinities(torch, n):
    """trigamma(-inf) and the higher orders at +inf are nan in PyTorch, not the limits."""
    # PyTorch's trigamma series is good to about 1e-11 where scipy's is to the last bit
    _same(torch, lambda lib, x: lib.polygamma(n, x), [INF, -INF, NAN, 0.0, -0.0, -2.5],
          rtol=1e-10)


def test_digamma_gradient_at_infinities(torch):
    _same(torch, lambda lib, x: lib.digamma(x), [INF, -INF, NAN, 0.0, -0.0, 1e300, -2.5],
          rtol=1e-10)


@pytest.mark.parametrize("p", [1, 3])
def test_mvlgamma_at_minus_inf_is_inf(torch, p):
    _same(torch, lambda lib, x: lib.mvlgamma(x, p), [INF, -INF, NAN, -2.0], rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sinc_gradient_is_plus_zero_where_pi_x_squared_is_zero(torch, dtype):
    _same(torch, lambda lib, x: lib.sinc(x), [0.0, -0.0, 1e-300, -1e-170, 5e-324, 0.0, -0.0],
          dtype=dtype)
    # float32 sinc is evaluated in float64 by ember (see special.py): compare float64 only
    _same(torch, lambda lib, x: lib.sinc(x), [0.3, 2.0, -1.5, INF, NAN, 1e300], rtol=1e-15)


def test_sinc_of_inf_is_silent(torch):
    with warnings.catch_warnings(record=True) as caught:   # ember's own filters stay on
        got = ember.sinc(ember.tensor([INF, -INF, 0.0, 0.5], dtype=ember.float64))
    assert not caught, [str(w.message) for w in caught]
    _exact(got, torch.sinc(torch.tensor([INF, -INF, 0.0, 0.5], dtype=torch.float64)), "sinc")
