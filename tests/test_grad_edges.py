"""Gradients at the edges of a formula, bit for bit against torch.

Each case gave other numbers than PyTorch before it was fixed: a branch boundary taken on
the wrong side (hardswish at exactly -3 and 3), an inf or NaN upstream gradient multiplied
by a 0/1 mask where PyTorch writes only the selected elements (max pooling, max()), and
a gradient shared among ties by a rounded weight instead of PyTorch's division.
"""
import numpy as np
import pytest

import ember


def _grads(torch, array, call, upstream):
    results = []
    for lib in (ember, torch):
        x = lib.tensor(array, requires_grad=True)
        out = call(lib, x)
        out.backward(lib.tensor(np.asarray(upstream, array.dtype).reshape(tuple(out.shape))))
        results.append(x.grad.numpy())
    return results


def _assert_bits(got, expected):
    np.testing.assert_array_equal(got, expected)        # NaN where NaN
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("size", [6, 48])                # scalar and vectorized loops
def test_hardswish_gradient_at_its_boundaries(torch, size):
    array = np.resize(np.array([-3.0, 3.0, -4.0, 4.0, 2.5, -2.5], np.float32), size)
    got, expected = _grads(torch, array, lambda lib, x: lib.nn.functional.hardswish(x),
                           np.linspace(-1, 1, size))
    _assert_bits(got, expected)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_pool_non_finite_upstream_reaches_only_the_maxima(torch, n):
    shape = (1, 2) + (4,) * n
    array = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    out_size = 2 * 2 ** n
    upstream = np.resize(np.array([np.nan, np.inf, -np.inf, 1.0, -0.0], np.float32), out_size)
    pool = f"max_pool{n}d"
    got, expected = _grads(torch, array, lambda lib, x: getattr(lib.nn.functional, pool)(x, 2),
                           upstream)
    _assert_bits(got, expected)


@pytest.mark.parametrize("upstream", [0.7, np.inf, np.nan])
@pytest.mark.parametrize("op", ["max", "min", "median"])
def test_whole_tensor_max_shares_the_gradient_as_torch(torch, op, upstream):
    array = np.array([1.0, 5.0, 5.0, 2.0, 5.0, 1.0, 1.0], np.float32)
    got, expected = _grads(torch, array, lambda lib, x: getattr(x, op)(), upstream)
    _assert_bits(got, expected)


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_divide_by_the_tie_count(torch, op):
    rng = np.random.default_rng(0)
    array = rng.integers(0, 3, (50, 7)).astype(np.float32)   # 10 to 25 ties a column
    got, expected = _grads(torch, array, lambda lib, x: getattr(x, op)(0),
                           rng.standard_normal(7))
    _assert_bits(got, expected)


@pytest.mark.parametrize("name, kwargs", [("mse_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
                                          ("huber_loss", {"delta": 2.0})])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_pointwise_loss_target_gradient_is_its_own_backward(torch, name, kwargs, reduction):
    """The target's gradient is the loss's backward with input and target swapped: +0.0
    where they are equal (the negated input gradient gave -0.0)."""
    x = np.array([0.0, 1.0, -0.0, 2.0, 5.0, -3.0], np.float32)
    y = np.array([0.0, 1.0, 0.0, 3.0, 1.0, -3.5], np.float32)
    grads = []
    for lib in (ember, torch):
        a, b = lib.tensor(x, requires_grad=True), lib.tensor(y, requires_grad=True)
        getattr(lib.nn.functional, name)(a, b, reduction=reduction, **kwargs).backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for got, expected in zip(*grads):
        _assert_bits(got, expected)
