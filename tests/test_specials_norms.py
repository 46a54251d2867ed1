"""Normalizations and distances at special values (0, -0.0, inf, NaN, huge), against torch.

tests/grad_specials.py found these; each test pins one fixed formula: the same NaN and
inf positions, the same sign of zero, and other values within a few ulps, for the
forward result and every input gradient (a fixed random upstream gradient, so that a
normalization's input gradient is not zero by construction).
"""
import math

import numpy as np
import pytest

from oracle import assert_same, to_numpy

NAN, INF = math.nan, math.inf


def _run(lib, fn, arrays):
    """fn's output and the gradients of its float inputs, for one library."""
    tensors = [lib.tensor(a).requires_grad_() for a in arrays]
    out = fn(lib, *tensors)
    upstream = np.random.default_rng(7).standard_normal(tuple(out.shape))
    out.backward(lib.tensor(upstream, dtype=out.dtype))
    return [out] + [t.grad for t in tensors]


def _same(fn, torch, *arrays, rtol=1e-12, signed_zeros=True):
    """fn in ember and torch: NaN/inf positions equal, finite values within rtol, zeros'
    signs equal (unless signed_zeros is False: a zero left by a noisy sum)."""
    import ember
    got, expected = _run(ember, fn, arrays), _run(torch, fn, arrays)
    for i, (e, t) in enumerate(zip(got, expected)):
        path = "output" if i == 0 else f"grad {i - 1}"
        assert_same(e, t, atol=0, rtol=rtol, path=path)
        if signed_zeros:
            a, b = to_numpy(e), to_numpy(t)
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
