"""Reductions, cumulative ops and sorting: what the op catalog cannot express.

Named tuples (fields, indexing, repr), tie-breaking, unique's variants, std/var
corrections and their warnings, float16 within a tolerance, gradients through
zeros and ties, and PyTorch's exact error types and messages.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from conftest import shapes
from oracle import assert_same, assert_same_error


def both(torch, array, requires_grad=False):
    t = torch.tensor(array, requires_grad=requires_grad)
    e = ember.tensor(array, requires_grad=requires_grad)
    return e, t


# ---------------------------------------------------------------- named tuples
@pytest.mark.parametrize("call", [
    lambda lib, x: x.max(1), lambda lib, x: lib.min(x, 0, True), lambda lib, x: x.sort(),
    lambda lib, x: x.topk(2), lambda lib, x: x.kthvalue(1), lambda lib, x: x.median(1),
    lambda lib, x: x.cummax(1), lambda lib, x: lib.cummin(x, 0), lambda lib, x: lib.aminmax(x),
    lambda lib, x: lib.aminmax(x, dim=1, keepdim=True)])
def test_named_tuples_match_torch(torch, call):
    array = np.array([[3.0, 1.5, 2.0], [0.5, 4.0, -1.0]], dtype=np.float32)
    e, t = both(torch, array)
    got, expected = call(ember, e), call(torch, t)
    assert repr(got) == repr(expected).replace("torch.", "ember.")
    assert type(got).__name__ == type(expected).__name__
    assert type(got).__module__ == "ember.return_types"
    assert isinstance(got, tuple) and len(got) == 2
    assert_same(got, expected)
    first, second = got
    assert first is got[0] and second is got[-1]
    names = ("min", "max") if type(got).__name__ == "aminmax" else ("values", "indices")
    assert getattr(got, names[0]) is got[0] and getattr(got, names[1]) is got[1]
    assert type(got).n_fields == type(expected).n_fields == 2


def test_named_tuple_with_grad_repr_and_class(torch):
    e = ember.tensor([[1.0, 2.0]], requires_grad=True)
    t = torch.tensor([[1.0, 2.0]], requires_grad=True)
    assert repr(e.max(1)) == repr(t.max(1)).replace("torch.", "ember.")
    assert ember.return_types.max is type(e.max(1))
    assert str(e.sort()) == repr(e.sort())


# ---------------------------------------------------------------- ties and NaN
TIES = np.array([[1.0, 3, 3, 0], [2, 2, 2, 2], [np.nan, 1, np.nan, 5], [0, -1, -1, 0]],
                dtype=np.float32)


@pytest.mark.parametrize("call", [
    lambda x: x.max(1), lambda x: x.min(1), lambda x: x.argmax(1), lambda x: x.argmin(1),
    lambda x: x.argmax(), lambda x: x.argmin(0), lambda x: x.cummax(1), lambda x: x.cummin(1),
    lambda x: x.sort(dim=1, stable=True), lambda x: x.sort(dim=1, descending=True, stable=True),
    lambda x: x.argsort(dim=0, stable=True), lambda x: x.amax(1), lambda x: x.max(),
    lambda x: x.median(), lambda x: x.kthvalue(4, 1).values, lambda x: x.unique()])
def test_ties_and_nan_match_torch(torch, call):
    e, t = both(torch, TIES)
    assert_same(call(e), call(t))


@pytest.mark.parametrize("call", [lambda x: x.amax(1), lambda x: x.max(), lambda x: x.amin(),
                                  lambda x: x.median(), lambda x: x.norm(float("inf")),
                                  lambda x: x.max(1).values, lambda x: x.cummax(0).values,
                                  lambda x: ember.aminmax(x)[1] if isinstance(x, ember.Tensor)
                                  else x.aminmax()[1]])
def test_gradient_shared_among_ties(torch, call):
    array = np.array([[1.0, 3, 3], [-3, 2, 3]])
    e, t = both(torch, array, requires_grad=True)
    call(e).sum().backward()
    call(t).sum().backward()
    assert_same(e.grad, t.grad)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.aminmax(x, dim=1), lambda lib, x: lib.aminmax(x),
    lambda lib, x: lib.std_mean(x, 1), lambda lib, x: lib.var_mean(x, 0, keepdim=True)])
def test_two_output_nodes_gradients(torch, call):
    # one root through both outputs (the catalog also backpropagates from both at once)
    array = np.array([[1.0, 3, 3], [-3, 2, 0.5]])
    e, t = both(torch, array, requires_grad=True)
    for lib, x in ((ember, e), (torch, t)):
        first, second = call(lib, x)
        assert first.grad_fn is second.grad_fn
        (first * 2 + second * 3).sum().backward()
    assert_same(e.grad, t.grad)
    assert e.grad_fn is None and call(ember, e)[1].grad_fn.name() == type(
        call(torch, t)[1].grad_fn).__name__


def test_max_gradient_with_nan_goes_to_nan(torch):
    array = np.array([1.0, np.nan, 3.0, np.nan])
    e, t = both(torch, array, requires_grad=True)
    e.max().backward()
    t.max().backward()
    assert_same(e.grad, t.grad)


def test_binary_max_and_min_are_maximum_and_minimum(torch):
    a, b = np.array([1.0, 5.0, -2.0]), np.array([2.0, 4.0, -2.0])
    (ea, ta), (eb, tb) = both(torch, a), both(torch, b)
    assert_same(ember.max(ea, eb), torch.max(ta, tb))
    assert_same(ea.min(eb), ta.min(tb))


# ---------------------------------------------------------------- gradients through zeros
@pytest.mark.parametrize("array, dim", [
    ([2.0, 0.0, 3.0], None), ([0.0, 0.0, 3.0], None), ([[1.0, 0.0], [0.0, 0.0]], 1),
    ([[0.0, 2.0, 0.0], [1.0, 2.0, 3.0]], 1), ([[0.0, 2.0, 0.0, 5.0]], -1)])
def test_prod_gradient_with_zeros(torch, array, dim):
    e, t = both(torch, np.array(array), requires_grad=True)
    call = (lambda x: x.prod()) if dim is None else (lambda x: x.prod(dim))
    g_e = ember.autograd.grad(call(e).sum(), e, create_graph=True)[0]
    g_t = torch.autograd.grad(call(t).sum(), t, create_graph=True)[0]
    assert_same(g_e, g_t)
    gg_e = ember.autograd.grad((g_e * g_e).sum(), e)[0]
    gg_t = torch.autograd.grad((g_t * g_t).sum(), t)[0]
    assert_same(gg_e, gg_t)


@pytest.mark.parametrize("array", [[2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 5.0],
                                   [1.5, 2.0, 3.0, 0.0]])
def test_cumprod_gradients_with_zeros(torch, array):
    e, t = both(torch, np.array(array), requires_grad=True)
    weights = np.array([0.5, -1.0, 2.0, 1.5])
    # first order (the linear-time formula) ...
    (e.cumprod(0) * ember.tensor(weights)).sum().backward()
    (t.cumprod(0) * torch.tensor(weights)).sum().backward()
    assert_same(e.grad, t.grad)
    # ... and through create_graph (the quadratic one)
    g_e = ember.autograd.grad((e.cumprod(0) * ember.tensor(weights)).sum(), e,
                              create_graph=True)[0]
    g_t = torch.autograd.grad((t.cumprod(0) * torch.tensor(weights)).sum(), t,
                              create_graph=True)[0]
    assert_same(g_e, g_t)
    assert ember.autograd.gradgradcheck(lambda x: x.cumprod(0), [e])


def test_std_gradient_is_zero_where_std_is_zero(torch):
    e, t = both(torch, np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]]), requires_grad=True)
    e.std(1).sum().backward()
    t.std(1).sum().backward()
    assert_same(e.grad, t.grad)


def test_sum_with_dtype_sends_gradient_back_in_input_dtype(torch):
    e, t = both(torch, np.ones((2, 3), np.float32), requires_grad=True)
    e.sum(1, dtype=ember.float64).sum().backward()
    t.sum(1, dtype=torch.float64).sum().backward()
    assert_same(e.grad, t.grad)


def test_unique_gradient_is_not_implemented(torch):
    e, t = both(torch, np.array([1.0, 2.0, 1.0]), requires_grad=True)
    assert ember.unique(e).grad_fn.name() == type(torch.unique(t).grad_fn).__name__
    assert_same_error(lambda lib: lib.unique(
        lib.tensor([1.0, 2.0], requires_grad=True)).sum().backward())
    assert_same_error(lambda lib: lib.unique(
        lib.tensor([[1.0, 2.0]], requires_grad=True), dim=0).sum().backward())


def test_integer_results_have_no_grad_fn():
    x = ember.tensor([[1.0, 3.0], [2.0, 0.5]], requires_grad=True)
    for out in (x.argmax(), x.max(1).indices, x.sort().indices, x.argsort(), x.topk(1)[1],
                x.count_nonzero(), x.all(), x.any(1), x.unique(return_counts=True)[1]):
        assert out.grad_fn is None and not out.requires_grad


# ---------------------------------------------------------------- unique
@pytest.mark.parametrize("kwargs", [{}, {"sorted": False}, {"return_inverse": True},
                                    {"return_counts": True},
                                    {"return_inverse": True, "return_counts": True}])
@pytest.mark.parametrize("array", [np.array([4, 1, 3, 1, 4, 2]), np.array([[2, 1], [1, 3]]),
                                   np.array(3), np.array([np.nan, 1.0, np.nan, 1.0]),
                                   np.array([True, False, True])])
def test_unique_variants(torch, array, kwargs):
    e, t = both(torch, array)
    assert_same(ember.unique(e, **kwargs), torch.unique(t, **kwargs))
    assert_same(e.unique(**kwargs), t.unique(**kwargs))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_dim(torch, dim):
    array = np.array([[1, 2, 1], [0, 1, 0], [1, 2, 1], [0, 0, 0]])
    e, t = both(torch, array)
    kwargs = {"dim": dim, "return_inverse": True, "return_counts": True}
    assert_same(ember.unique(e, **kwargs), torch.unique(t, **kwargs))


def test_unique_empty_along_dim(torch):
    for shape, dim in [((0, 2), 0), ((2, 0), 1)]:
        e, t = both(torch, np.zeros(shape))
        kwargs = {"dim": dim, "return_inverse": True, "return_counts": True}
        assert_same(ember.unique(e, **kwargs), torch.unique(t, **kwargs))


# ---------------------------------------------------------------- std / var
@pytest.mark.parametrize("call", [
    lambda lib, x: x.var(), lambda lib, x: x.std(False), lambda lib, x: x.var(1, False),
    lambda lib, x: x.std(1, True, True), lambda lib, x: x.var(correction=0),
    lambda lib, x: x.std(dim=0, correction=2), lambda lib, x: lib.var(x, (0, 1), correction=1.5),
    lambda lib, x: lib.std_mean(x, 1), lambda lib, x: lib.var_mean(x, unbiased=False),
    lambda lib, x: lib.std_mean(x, dim=0, keepdim=True, correction=0)])
def test_std_var_corrections(torch, call):
    e, t = both(torch, np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], np.float32))
    assert_same(call(ember, e), call(torch, t))


@pytest.mark.parametrize("array, call", [
    ([[1.0]], lambda x: x.std()), ([[1.0, 2.0]], lambda x: x.var(correction=3)),
    ([[1.0, 2.0]], lambda x: x.std(correction=2)), ([[1.0, 2.0]], lambda x: x.var(0)),
    ([[1.0, 2.0]], lambda x: x.std(1, correction=5)),
    ([[2.0, 2.0]], lambda x: x.var(correction=2))])
def test_no_degrees_of_freedom_warns_and_matches(torch, array, call):
    e, t = both(torch, np.array(array), requires_grad=True)
    with pytest.warns(UserWarning) as expected_warnings:
        expected = call(t)
    with pytest.warns(UserWarning) as got_warnings:
        got = call(e)
    assert str(got_warnings[0].message) == str(expected_warnings[0].message).split(
        " (Triggered internally")[0]
    assert_same(got, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected.sum().backward()
        got.sum().backward()
    assert_same(e.grad, t.grad)


def test_zero_dim_std_warns(torch):
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        out = ember.tensor(3.0).std()
    assert np.isnan(out.item())


# ---------------------------------------------------------------- float16
@pytest.mark.parametrize("call", [
    lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.nansum(0), lambda x: x.mean(1),
    lambda x: x.nanmean(), lambda x: x.prod(1), lambda x: x.logsumexp(1), lambda x: x.std(1),
    lambda x: x.norm(), lambda x: x.cumsum(1), lambda x: x.cumprod(0), lambda x: x.var()])
def test_float16_reductions_close_to_torch(torch, call):
    array = np.random.default_rng(0).uniform(-2, 2, (3, 5)).astype(np.float16)
    e, t = both(torch, array)
    assert_same(call(e), call(t), atol=0, rtol=0)  # measured: identical (was 1e-2)


# ---------------------------------------------------------------- dtypes
@pytest.mark.parametrize("call", [
    lambda lib, x: x.sum(), lambda lib, x: x.prod(), lambda lib, x: x.cumsum(0),
    lambda lib, x: x.cumprod(0), lambda lib, x: x.all(), lambda lib, x: x.any(0),
    lambda lib, x: x.sum(dtype=lib.int8), lambda lib, x: x.logsumexp(0),
    lambda lib, x: x.mean(dtype=lib.float64), lambda lib, x: x.count_nonzero(),
    lambda lib, x: x.amax(), lambda lib, x: x.max(0), lambda lib, x: x.cummax(0)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32"])
def test_integer_and_bool_result_dtypes(torch, call, dtype):
    e, t = both(torch, np.array([1, 0, 2, 1]).astype(dtype))
    assert_same(call(ember, e), call(torch, t))


def test_cumsum_in_place(torch):
    for dtype in ("int32", "float32"):
        e, t = both(torch, np.array([[1, 2], [3, 4]]).astype(dtype))
        version = e._version
        assert e.cumsum_(1) is e
        t.cumsum_(1)
        assert_same(e, t)
        assert e._version == version + 1


# ---------------------------------------------------------------- errors
EMPTY = np.zeros((0, 3), np.float32)


@pytest.mark.parametrize("call", [
    lambda lib, x: x.max(), lambda lib, x: x.min(), lambda lib, x: x.amax(),
    lambda lib, x: x.amin(-2), lambda lib, x: x.max(0), lambda lib, x: x.min(-2),
    lambda lib, x: x.argmax(), lambda lib, x: x.argmin(0), lambda lib, x: lib.aminmax(x),
    lambda lib, x: lib.aminmax(x, dim=0), lambda lib, x: x.median(0),
    lambda lib, x: x.kthvalue(1, 0),
    lambda lib, x: x.norm(float("inf")), lambda lib, x: x.norm(-float("inf"))])
def test_empty_reduction_errors(torch, call):
    assert_same_error(lambda lib: call(lib, lib.tensor(EMPTY)))


@pytest.mark.parametrize("call", [
    lambda lib, x: x.sum(2), lambda lib, x: x.mean(-3), lambda lib, x: x.sum((0, 0)),
    lambda lib, x: x.amax((1, -1)), lambda lib, x: x.max(2), lambda lib, x: x.argmax(5),
    lambda lib, x: x.cumsum(2), lambda lib, x: x.sort(-3), lambda lib, x: x.std(3),
    lambda lib, x: x.topk(3), lambda lib, x: x.topk(-1), lambda lib, x: x.kthvalue(0),
    lambda lib, x: x.kthvalue(3), lambda lib, x: x.logsumexp(4),
    lambda lib, x: x.int().mean(), lambda lib, x: x.int().nanmean(),
    lambda lib, x: x.int().std(), lambda lib, x: x.long().norm(), lambda lib, x: x.bool().argmax(),
    lambda lib, x: x.bool().topk(1), lambda lib, x: x.bool().median(),
    lambda lib, x: x.bool().kthvalue(1), lambda lib, x: x.norm(dtype=lib.float16),
    lambda lib, x: x.norm("abc"), lambda lib, x: x.cumsum_(0, dtype=lib.float64),
    lambda lib, x: x.int().cumsum_(0, dtype=lib.int64), lambda lib, x: x.bool().cumsum_(0),
    lambda lib, x: lib.tensor(3.0).topk(2), lambda lib, x: lib.tensor(3.0).kthvalue(2),
    lambda lib, x: lib.tensor(3.0).unique(dim=0), lambda lib, x: x.unique(dim=2)])
def test_errors_match_torch(torch, call):
    assert_same_error(lambda lib: call(lib, lib.tensor([[1.0, 2.0]])))


def test_failed_in_place_cumsum_leaves_tensor_unchanged():
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        x.cumsum_(0, dtype=ember.float64)
    assert x.tolist() == [1.0, 2.0] and x._version == 0


# ---------------------------------------------------------------- property-based
@given(shape=shapes(0, 4, 0, 4), data=st.data())
def test_sum_mean_amax_over_random_dims(shape, data):
    torch = pytest.importorskip("torch")
    array = np.random.default_rng(len(shape)).uniform(-3, 3, shape)
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(-max(ndim, 1), max(ndim, 1) - 1), unique_by=lambda d: d
                              % max(ndim, 1), max_size=max(ndim, 1)).map(tuple))
    keepdim = data.draw(st.booleans())
    e, t = both(torch, array)
    assert_same(e.sum(dims, keepdim), t.sum(dims, keepdim))
    assert_same(e.mean(dims, keepdim), t.mean(dims, keepdim))
    if array.size and dims:
        if ndim == 0 or all(shape[d] for d in dims):
            assert_same(e.amax(dims, keepdim), t.amax(dims, keepdim))
            assert_same(e.logsumexp(dims, keepdim), t.logsumexp(dims, keepdim))


@given(shape=shapes(1, 3, 1, 5), data=st.data())
def test_sort_is_a_stable_permutation(shape, data):
    torch = pytest.importorskip("torch")
    array = np.random.default_rng(sum(shape)).integers(0, 3, shape).astype(np.float64)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    descending = data.draw(st.booleans())
    e, t = both(torch, array)
    kwargs = {"dim": dim, "descending": descending, "stable": True}
    assert_same(e.sort(**kwargs), t.sort(**kwargs))
    assert_same(e.argsort(**kwargs), t.argsort(**kwargs))


@pytest.mark.parametrize("call", [
    lambda x: x.sum(), lambda x: x.mean(), lambda x: x.sum(0), lambda x: x.mean(0, keepdim=True),
    lambda x: x.half().mean(), lambda x: x.sum().backward(),
], ids=["sum", "mean", "sum0", "mean0", "half_mean", "sum_backward"])
def test_overflowing_sums_are_silent_as_in_pytorch(call):
    """An overflow or inf - inf gives inf/NaN without NumPy's RuntimeWarning (which came
    from numpy/_core/_methods.py, past ember's filter for its own modules)."""
    x = ember.tensor([3e38, 3e38, -float("inf"), float("inf")], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        # every warning NumPy's own modules raise is kept; ember's filter stays in force
        warnings.filterwarnings("always", category=RuntimeWarning, module="numpy")
        call(x)
    assert [str(w.message) for w in caught] == []
