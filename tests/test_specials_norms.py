"""Normalizations and distances at special values (0, -0.0, inf, NaN, huge), against torch.

tests/grad_specials.py found these; each test pins one fixed formula: the same NaN and
inf positions, the same sign of zero, and other values within a few ulps, for the
forward result and every input gradient (a fixed random upstream gradient, so that a
normalization's input gradient is not zero by construction).
"""
import math

import numpy as np
import pytest

from oracle import ember_dtype_name, to_numpy

NAN, INF = math.nan, math.inf


def _run(lib, fn, arrays):
    """fn's output and the gradients of its float inputs, for one library."""
    tensors = [lib.tensor(a).requires_grad_() for a in arrays]
    out = fn(lib, *tensors)
    upstream = np.random.default_rng(7).standard_normal(tuple(out.shape))
    out.backward(lib.tensor(upstream, dtype=out.dtype))
    return [out] + [t.grad for t in tensors]


def _same(fn, torch, *arrays, rtol=1e-12, signed_zeros=True):
    """fn in ember and torch: same dtype and shape, NaN/inf positions equal, finite values
    within rtol of each value plus the largest (a value cancelled to 1e-8 beside ones is
    rounding noise), zeros' signs equal (unless signed_zeros is False)."""
    import ember
    got, expected = _run(ember, fn, arrays), _run(torch, fn, arrays)
    for i, (e, t) in enumerate(zip(got, expected)):
        path = "output" if i == 0 else f"grad {i - 1}"
        assert str(e.dtype) == ember_dtype_name(t.dtype), path
        assert tuple(e.shape) == tuple(t.shape), path
        a, b = to_numpy(e), to_numpy(t)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"{path}: NaN at")
        special = np.isinf(a) | np.isinf(b)
        np.testing.assert_array_equal(a[special], b[special], err_msg=f"{path}: inf")
        finite = np.isfinite(a) & np.isfinite(b)
        largest = np.abs(b[finite]).max(initial=0.0)
        bad = np.abs(a[finite] - b[finite]) > rtol * (np.abs(b[finite]) + largest) + 1e-300
        assert not bad.any(), f"{path}: ember {a[finite][bad]} torch {b[finite][bad]}"
        if signed_zeros:
            zero = (a == 0) & (b == 0)
            np.testing.assert_array_equal(np.signbit(a[zero]), np.signbit(b[zero]),
                                          err_msg=f"{path}: sign of zero")


# ---------------------------------------------------------------- cdist
CDIST_X1 = np.array([[NAN, 1.0, 0.0], [2.0, 3.0, -0.0], [0.5, 1.0, 0.0]])
CDIST_X2 = np.array([[0.5, 1.0, 0.0], [INF, 0.0, 1.0]])


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, INF])
def test_cdist_nan_inf_and_equal_rows(torch, p):
    # p=0 counts a NaN difference as NaN; p=inf's max passes over it; every p's gradient
    # keeps NaN through sign(d), is 0 at a zero distance, and x2's gradient is computed
    # from x2 - x1 (its zeros are +0.0, not -(x1 - x2)'s -0.0)
    _same(lambda lib, a, b: lib.cdist(a, b, p=p), torch, CDIST_X1, CDIST_X2)


def test_cdist_zeros_and_ties(torch):
    x1 = np.array([[0.0, -0.0], [1.0, 1.0]])
    x2 = np.array([[-0.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    for p in (0.0, 1.0, 2.0, 3.0, INF):
        _same(lambda lib, a, b: lib.cdist(a, b, p=p), torch, x1, x2)


# ---------------------------------------------------------------- pdist
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, INF])
def test_pdist_nan_inf_and_equal_rows(torch, p):
    # cdist's backward formulas; pdist's own forward: p=inf's max keeps a NaN here
    x = np.array([[NAN, 1.0, 0.0], [2.0, 3.0, -0.0], [0.5, 1.0, 0.0], [INF, 0.0, 1.0],
                  [0.5, 1.0, 0.0]])
    _same(lambda lib, a: lib.pdist(a, p), torch, x)
    _same(lambda lib, a: lib.pdist(a, p), torch, np.array([[0.0, -0.0], [-0.0, 0.0], [1, 2]]))


# ---------------------------------------------------------------- batch_norm, instance_norm
BN_X = np.array([[[-1.0, -2.0], [-3.0, 4.0]], [[2.0, 5.0], [1.0, 1.5]], [[0.5, -0.5], [2.0, 0.0]]])
BN_STATS = (np.array([0.5, -1.0]), np.array([1.5, 0.25]))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("weight,bias", [
    ([INF, 1.0], [0.5, -0.5]), ([-INF, 2.0], [NAN, 0.0]), ([1.0, 2.0], [INF, -INF]),
    ([0.0, -0.0], [0.0, -0.0]), ([0.0, -0.0], [-0.0, 0.0])])
def test_batch_norm_inf_and_zero_affine(torch, training, weight, bias):
    # x * (invstd * w) + (b - mean * invstd * w) and the weight applied last in the input's
    # gradient: an inf weight gives inf - inf = NaN in the output and inf in the gradient
    def fn(lib, x, w, b):
        mean, var = (lib.tensor(s) for s in BN_STATS)
        return lib.nn.functional.batch_norm(x, mean, var, w, b, training=training)
    _same(fn, torch, BN_X, np.array(weight), np.array(bias))


def test_batch_norm_without_bias_zero_signs(torch):
    # no bias is a zero bias: 0 - mean * alpha is +0.0 where alpha is 0
    for weight in ([0.0, 0.0], [-0.0, 0.0]):
        _same(lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, training=True),
              torch, BN_X, np.array(weight))


def test_instance_norm_inf_weight(torch):
    _same(lambda lib, x, w, b: lib.nn.functional.instance_norm(x, weight=w, bias=b), torch,
          BN_X, np.array([INF, 1.0]), np.array([0.5, -INF]))


# ---------------------------------------------------------------- group_norm
GN_X = np.array([[[-1.0, -2.0], [-3.0, 4.0], [0.5, 2.0], [1.0, -0.5]],
                 [[2.0, 5.0], [1.0, 1.5], [0.0, -0.0], [3.0, 1.0]]])


@pytest.mark.parametrize("weight,bias", [
    ([INF, 1.0, -1.0, 2.0], [0.5, -0.5, 0.0, 1.0]), ([1.0, -INF, 2.0, NAN], None),
    ([1.0, 2.0, 0.5, 1.5], [INF, -INF, 0.0, 1.0]), ([0.0, -0.0, 0.0, -0.0], None),
    ([0.0, -0.0, 1.0, -0.0], [-0.0, 0.0, -0.0, 0.0])])
def test_group_norm_inf_and_zero_affine(torch, weight, bias):
    # x * (invstd * w) + (-scale * mean + b), gradients in x (not x - mean) as PyTorch's
    arrays = [GN_X, np.array(weight)] + ([] if bias is None else [np.array(bias)])
    _same(lambda lib, x, w, b=None: lib.nn.functional.group_norm(x, 2, w, b), torch, *arrays)


@pytest.mark.parametrize("shape", [(0, 2, 3), (2, 0), (0, 0)])
def test_group_norm_empty(torch, shape):
    _same(lambda lib, x: lib.nn.functional.group_norm(x, 1), torch, np.zeros(shape))


# ---------------------------------------------------------------- layer_norm
LN_X = np.array([[-1.0, -2.0, 0.5, 3.0], [2.0, 5.0, 0.0, -0.0], [1.0, 1.5, -3.0, 0.25]])


@pytest.mark.parametrize("weight,bias", [
    ([INF, 1.0, -1.0, 2.0], [0.5, -0.5, 0.0, 1.0]), ([1.0, -INF, 2.0, NAN], None),
    ([1.0, 2.0, 0.5, 1.5], [INF, -INF, 0.0, NAN]), ([0.0, -0.0, 1.0, -2.0], None),
    ([0.0, -0.0, 1.0, -0.0], [-0.0, 0.0, -0.0, 0.0])])
def test_layer_norm_inf_and_zero_affine(torch, weight, bias):
    # the input's gradient in PyTorch's formula in x (invstd * g + b * x + c): an inf
    # weight spreads NaN through the row's sums as PyTorch's does; a missing bias is +0
    arrays = [LN_X, np.array(weight)] + ([] if bias is None else [np.array(bias)])
    _same(lambda lib, x, w, b=None: lib.nn.functional.layer_norm(x, (4,), w, b), torch,
          *arrays)


def test_layer_norm_inf_weight_double_backward(torch):
    # the recorded backward (create_graph=True) uses the same formula
    def fn(lib, x, w):
        y = lib.nn.functional.layer_norm(x, (4,), w)
        g = lib.tensor(np.random.default_rng(3).standard_normal(y.shape))
        (dx,) = lib.autograd.grad(y, x, g, create_graph=True)
        return dx
    _same(fn, torch, LN_X, np.array([INF, 1.0, -1.0, 2.0]))
    _same(fn, torch, LN_X, np.array([0.5, 1.0, -1.0, 2.0]), rtol=1e-10)


# ---------------------------------------------------------------- dist
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, INF])
def test_dist_broadcast_other_zero_sign(torch, p):
    # other's gradient is -(the difference's) summed over the broadcast rows: negated first,
    # so a column of zeros sums to +0.0 as in PyTorch
    x = np.array([[1.0, 2.0, 3.0], [1.0, -1.0, 3.0]])
    _same(lambda lib, a, b: lib.dist(a, b, p), torch, x, np.array([1.0, 0.5, 3.0]))
    _same(lambda lib, a, b: lib.dist(a, b, p), torch, x, np.array([INF, 0.5, 3.0]))
