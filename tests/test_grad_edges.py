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


UPSTREAM = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0, 2.0, 0.5], np.float32)


@pytest.mark.parametrize("name, call, shape", [
    ("trace", lambda lib, x: x.trace(), (5, 4)),
    ("std", lambda lib, x: x.std(1), (6, 5)),                # constant rows: std 0
    ("adaptive_avg_pool2d", lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (4, 5)),
     (2, 3, 6, 6)),
    ("adaptive_avg_pool1d", lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 4),
     (2, 3, 10)),
    ("bilinear", lambda lib, x: lib.nn.functional.interpolate(x, size=(9, 7), mode="bilinear"),
     (2, 3, 6, 6)),
])
def test_non_finite_upstream_reaches_what_torch_reaches(torch, name, call, shape):
    """An inf or NaN arriving from above lands only where PyTorch's kernel sends it (a
    product with zero weights, an identity or a mask spread NaN everywhere)."""
    rng = np.random.default_rng(5)
    array = rng.standard_normal(shape).astype(np.float32)
    if name == "std":
        array[:3] = 1.5
    out_size = int(np.prod(tuple(call(torch, torch.tensor(array)).shape)))
    got, expected = _grads(torch, array, call, np.resize(UPSTREAM, out_size))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
    np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(expected), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_cumprod_gradient_with_zeros_and_non_finite_upstream(torch, seed):
    """Each part of PyTorch's zero-aware cumprod backward sums only its own range: before
    the first zero, and from the first zero to the second; a NaN or inf upstream gradient
    beyond a range stays out of it (products with masks let it in as NaN)."""
    rng = np.random.default_rng(seed)
    array = rng.standard_normal((6, 9))
    array[rng.random(array.shape) < 0.25] = 0
    upstream = rng.standard_normal(array.shape)
    upstream[rng.random(array.shape) < 0.15] = np.inf
    upstream[rng.random(array.shape) < 0.1] = np.nan
    got, expected = _grads(torch, array, lambda lib, x: x.cumprod(1), upstream)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_atan2_gradient_at_the_origin_is_zero(torch):
    """PyTorch fills 1 / (y^2 + x^2) with 0 where the sum is 0 (it was NaN here)."""
    y = np.array([0.0, -0.0, 0.0, 1e-30, 1.0, -2.0], np.float32)
    x = np.array([0.0, 0.0, -0.0, 1e-30, 0.0, 3.0], np.float32)
    grads = []
    for lib in (ember, torch):
        a, b = lib.tensor(y, requires_grad=True), lib.tensor(x, requires_grad=True)
        lib.atan2(a, b).backward(lib.tensor(np.linspace(-1, 1, 6).astype(np.float32)))
        grads.append((a.grad.numpy(), b.grad.numpy()))
    for got, expected in zip(*grads):
        _assert_bits(got, expected)


@pytest.mark.parametrize("seed", range(6))
def test_prod_gradient_with_zeros_infs_and_nans(torch, seed):
    """PyTorch's prod_backward: exclusive prefix and suffix products where a slice holds a
    zero (an inf beside it gives NaN only where PyTorch's products do; signs of zero as
    its products give them), zeros for a whole-tensor product with two zeros or more."""
    rng = np.random.default_rng(seed)
    shape = [(7,), (4, 6), (3, 4, 5)][seed % 3]
    array = rng.standard_normal(shape)
    r = rng.random(shape)
    array[r < 0.15] = 0
    array[(r > 0.15) & (r < 0.2)] = -0.0
    array[r > 0.95] = np.inf if seed % 2 else np.nan
    for dim in [None] + list(range(len(shape))):
        call = (lambda lib, x: x.prod()) if dim is None else (lambda lib, x: x.prod(dim))
        out_shape = () if dim is None else shape[:dim] + shape[dim + 1:]
        got, expected = _grads(torch, array, call, np.linspace(-1, 1, int(np.prod(out_shape))))
        _assert_bits(got, expected)


def test_products_and_scans_of_infinities_stay_silent():
    """inf * 0 and inf - inf in prod, cumprod and cumsum (forward and backward) no longer
    print NumPy's RuntimeWarning, which PyTorch never shows."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        x = ember.tensor([0.0, np.inf, 2.0, -np.inf], requires_grad=True)
        x.prod().backward()
        x.cumprod(0).sum().backward()
        x.cumsum(0).sum()
    assert not caught, [str(w.message) for w in caught]
