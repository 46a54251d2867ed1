"""softmax / log_softmax beyond the catalog: stability, infinities, dtype, double backward."""
import numpy as np
import pytest

import ember
from oracle import assert_same

FUNCTIONS = ["softmax", "log_softmax"]


def _both(torch, function, values, dim, **kwargs):
    return [getattr(lib, function)(lib.tensor(values), dim, **kwargs) for lib in (ember, torch)]


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("scale", [1e4, 1e30])
def test_large_inputs_stay_finite(torch, function, scale):
    """exp(1e4) overflows float32; the max-shifted formula does not."""
    values = (np.random.default_rng(0).standard_normal((3, 5)) * scale).astype(np.float32)
    got, expected = _both(torch, function, values, 1)
    assert np.isfinite(got.numpy()).all() or function == "log_softmax"
    assert not np.isnan(got.numpy()).any()
    assert_same(got, expected, atol=1e-5, rtol=1e-5)
    if function == "softmax":
        np.testing.assert_allclose(got.sum(1).numpy(), 1.0, rtol=1e-6)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_infinities_match_torch(torch, function):
    inf = float("inf")
    values = np.array([[1000.0, 1000.0, -1000.0], [-inf, 1.0, 2.0], [-inf, -inf, -inf],
                       [inf, 1.0, 0.0], [float("nan"), 1.0, 0.0]], dtype=np.float32)
    got, expected = _both(torch, function, values, 1)
    assert_same(got, expected)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_dtype_argument_casts_first(torch, function):
    """dtype= casts the input before the op; the gradient comes back in the input's dtype."""
    results = []
    for lib in (ember, torch):
        x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], requires_grad=True)
        out = getattr(lib, function)(x, 1, dtype=lib.float64)
        (out * lib.arange(6.0, dtype=lib.float64).reshape(2, 3)).sum().backward()
        results.append((out, x.grad, type(out.grad_fn).__name__))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_integer_input_needs_dtype(torch, function):
    for dim in (0, 1):
        with pytest.raises(NotImplementedError) as expected:
            getattr(torch, function)(torch.ones(2, 3, dtype=torch.int64), dim)
        with pytest.raises(NotImplementedError) as got:
            getattr(ember, function)(ember.ones(2, 3, dtype=ember.int64), dim)
        assert str(got.value) == str(expected.value)
    got, expected = [getattr(lib, function)(lib.arange(4), 0, dtype=lib.float32)
                     for lib in (ember, torch)]
    assert_same(got, expected)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_dim_errors(torch, function):
    for lib in (torch, ember):
        with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
            getattr(lib, function)(lib.ones(2, 3), 2)
        with pytest.raises(TypeError, match="must be int, not NoneType"):
            getattr(lib, function)(lib.ones(2, 3), None)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_double_backward_matches_torch(torch, function):
    """The backward is built from ember ops, so its own gradient matches torch's."""
    values = np.random.default_rng(2).standard_normal((2, 4))
    weights = np.random.default_rng(3).standard_normal((2, 4))
    results = []
    for lib in (ember, torch):
        x = lib.tensor(values, requires_grad=True)
        out = getattr(lib, function)(x, -1)
        (grad,) = lib.autograd.grad((out * lib.tensor(weights)).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((grad * grad).sum(), x)
        results.append((grad, second))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1], atol=1e-8, rtol=1e-6)


def test_method_and_function_agree():
    x = ember.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert x.softmax(0).tolist() == ember.softmax(x, 0).tolist()
    assert x.log_softmax(-1, ember.float64).dtype is ember.float64


def test_output_is_new_memory():
    x = ember.tensor([1.0, 2.0])
    y = ember.softmax(x, 0)
    x.add_(100.0)
    np.testing.assert_allclose(y.numpy(), [0.26894142, 0.73105858], rtol=1e-6)
