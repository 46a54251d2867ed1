"""Elementwise ops: what the catalog cannot express.

Type promotion, error types and texts, in-place semantics (identity, version
counter, nothing changed on failure), reflected operators, non-differentiable
outputs, and broadcasting against torch on random shapes.
"""
import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from conftest import broadcastable_pairs
from oracle import assert_same


def _evaluate(lib, expression):
    namespace = {"lib": lib, "T": lib.tensor, "nan": math.nan, "inf": math.inf, "math": math}
    for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                 "float32", "float64"):
        namespace[name] = getattr(lib, name)
    return eval(expression, namespace)  # noqa: S307 - test expressions written below


def _same_as_torch(torch, expression):
    """Same value/dtype, or the same exception type with torch's text (torch -> ember)."""
    try:
        expected = _evaluate(torch, expression)
    except Exception as error:  # noqa: BLE001 - any torch error must be matched
        with pytest.raises(type(error)) as got:
            _evaluate(ember, expression)
        message = str(error).replace("torch.", "ember.").split("\n")[0]
        assert str(got.value).split("\n")[0] == message, expression
        return
    assert_same(_evaluate(ember, expression), expected, path=expression)


# ---------------------------------------------------------------- promotion
PROMOTION = [
    "T([1, 2]) / T([2, 4])",                      # int / int true-divides to the default float
    "T([1, 2], dtype=int32) * 2.5",               # int tensor * float scalar: float32
    "T([1., 2.]) + T(1., dtype=float64)",         # a 0-dim float64 does not win over float32
    "T([1, 2]) + T(1., dtype=float64)",           # ...but does over an integer tensor
    "T([1, 2], dtype=uint8) + T([1, 2], dtype=int8)",
    "T([True, False]) + T([True, True])",
    "T([True, False]) * 3",
    "T([True, False]) + 1.5",
    "T([250, 255], dtype=uint8) + 300",           # wraps, as torch does
    "T([250, 255], dtype=uint8) == -1",
    "T([1, 2], dtype=int8) * T([1.5], dtype=float16)",
    "T([1., 2.], dtype=float16) + T([1., 2.], dtype=bfloat16)",
    "T(3, dtype=uint8) + T(1, dtype=int8)",
    "T([1, 2], dtype=int16) + T(100000)",
    "T([1, 2], dtype=int32) + 2 ** 40",
    "lib.add(T([1, 2]), T([3, 4]), alpha=-2)",
    "lib.add(T([1, 2], dtype=uint8), T([3, 4], dtype=uint8), alpha=-1)",
    "lib.add(T([True]), T([False]), alpha=2)",
    "lib.sub(T([1., 2.]), T([3, 4]), alpha=0.5)",
    "T([3, 5]) // T([2, 2])",
    "T([3., 5.]) // 2",
    "T([1, 2]) ** T([2.5])",
    "lib.float_power(T([1, 2], dtype=int8), 2)",
    "lib.where(T([True, False]), T([1, 2], dtype=int32), T(5.))",
    "lib.where(T([True, False]), T([1, 2], dtype=int32), 5)",
    "lib.where(T([True, False]), 1, 2.5)",
    "lib.where(T([True, False]), 1, 2)",
    "lib.clamp(T([1, 2]), 0.5)",
    "lib.clamp(T([1, 2], dtype=uint8), min=-1)",
    "lib.clamp(T([True, False]), 0, 1)",
    "lib.clamp(T([1, 5]), min=3, max=1)",
    "lib.addcmul(T([1, 2]), T([1, 2]), T([1, 2]), value=0.5)",
    "lib.addcmul(T([1., 2]), T([1, 2]), T([1., 2], dtype=float64))",
    "lib.sqrt(T([4, 9], dtype=uint8))",
    "lib.sigmoid(T([True]))",
    "lib.square(T([True, False]))",
    "lib.copysign(T([1, 2]), -1)",
    "lib.xlogy(T([0, 1]), T([0., nan]))",
    "lib.xlogy(2, T([1., 2.]))",
]


@pytest.mark.parametrize("expression", PROMOTION)
def test_type_promotion_matches_torch(torch, expression):
    _same_as_torch(torch, expression)


def test_default_dtype_changes_promotion(torch):
    previous = ember.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        torch.set_default_dtype(torch.float64)
        for expression in ("T([1, 2]) / 2", "T([1, 2]) * 2.5", "lib.exp(T([1]))",
                           "T([1., 2.])", "T([1., 2.], dtype=float32) * 2.5"):
            _same_as_torch(torch, expression)
    finally:
        ember.set_default_dtype(previous)
        torch.set_default_dtype(torch.float32)
    assert ember.get_default_dtype() is previous


# ---------------------------------------------------------------- values and edge cases
EDGE_CASES = [
    "lib.div(T([5, -7, 7, -8]), T([2, 2, -2, -2]), rounding_mode='trunc')",
    "lib.div(T([5, -7, 7, -8]), T([2, 2, -2, -2]), rounding_mode='floor')",
    "lib.div(T([5., -7., 0.]), 0., rounding_mode='trunc')",
    "lib.div(T([5., -7.]), 0., rounding_mode='floor')",
    "lib.div(T([5, -7]), 2.5, rounding_mode='floor')",
    "T([5, -7, 7, -8], dtype=int8) % T([3, 3, -3, -3], dtype=int8)",
    "lib.fmod(T([5, -7, 7, -8]), T([3, 3, -3, -3]))",
    "T([5.5, -7.5, 0.]) % -2.",
    "lib.fmod(T([5.5, -7.5]), 2)",
    "T([-0.5, 0.5, 1.5]) // 1",
    "7 // T([2, -3])",
    "7 % T([2, -3])",
    "2.5 // T([1, 2])",
    "T([5, -7]) ** T([-1, 2])",
    "T([0, 1, -1, 2, -1]) ** T([-1, -1, -1, -2, -3])",
    "T([1, 2]) ** T(-1)",
    "2 ** T([5, -7])",
    "2.5 ** T([1, 2])",
    "T([True, False]) ** True",
    "T([True, False]) ** False",
    "T([2, 3], dtype=uint8) ** 2",
    "lib.pow(2, T([1, 2]))",
    "lib.pow(True, T([1., 2.]))",
    "-T([1, 200], dtype=uint8)",
    "lib.abs(T([-128, 5], dtype=int8))",
    "lib.sign(T([nan, -0., 2., -3.]))",
    "lib.sign(T([True, False]))",
    "lib.signbit(T([-0., 0., -1.]))",
    "lib.signbit(T([-1, 2]))",
    "lib.round(T([0.5, 1.5, 2.5, -0.5, -2.5]))",
    "lib.round(T([1.2345, -12.5]), decimals=2)",
    "lib.round(T([1234.5, -1250.]), decimals=-2)",
    "lib.round(T([1, 2]))",
    "lib.trunc(T([-1.5, 1.5]))",
    "lib.frac(T([-1.5, 2.25]))",
    "lib.relu(T([-1, 2]))",
    "lib.relu(T([1., nan, -inf]))",
    "lib.clamp(T([1., nan]), 0, 1)",
    "lib.clamp(T([1., 2.]), min=nan)",
    "lib.maximum(T([1., nan]), T([nan, 0.]))",
    "lib.fmax(T([1., nan, nan]), T([nan, 0., nan]))",
    "lib.fmin(T([1., nan]), T([nan, 0.]))",
    "lib.nan_to_num(T([nan, inf, -inf]))",
    "lib.nan_to_num(T([nan, inf, -inf], dtype=float16))",
    "lib.nan_to_num(T([nan, inf, -inf], dtype=float64), nan=1.0, posinf=2.0)",
    "lib.logit(T([0., 0.5, 1.]))",
    "lib.logit(T([0., 0.5, 1.]), 0.1)",
    "lib.erf(T([0., -0., inf, -inf, nan, 1e-300, 30.], dtype=float64))",
    "lib.erfc(T([-30., -1., 0., 5., 27., inf, nan], dtype=float64))",
    "lib.erfinv(T([-1., 1., 1.5, 0., -0.999999, 1e-20, nan], dtype=float64))",
    "lib.xlogy(T([0., 1.]), 0)",
    "lib.lerp(T([1., 2.]), T([3., 4.]), 2)",
    "lib.lerp(T([1., 2.]), T([3., 5.]), T(0.5, dtype=float64))",
    "T([1, 2]) << T([-1, 64])",
    "T([1, -8]) >> T([-1, 64])",
    "T([1, 2], dtype=int8) << T([7, 8], dtype=int8)",
    "T([-128, 64], dtype=int8) >> T([7, 8], dtype=int8)",
    "T([True, False]) & T([True, True])",
    "T([True, False]) | True",
    "~T([True, False])",
    "~T([0, 5], dtype=uint8)",
    "T([1, 2, 3]) == 2.0",
    "T([1, 2]) == None",
    "T([1, 2]) != None",
    "lib.isclose(T([1., nan]), T([1., nan]), equal_nan=True)",
    "lib.isclose(T([1, 2]), T([1, 3]))",
    "lib.isclose(T([True]), T([True]))",
    "lib.isclose(T([1e10, 1.]), T([1.00001e10, 1.1]))",
    "lib.allclose(T([1., 2.]), T([1., 2.000001]))",
    "lib.allclose(T([1., 2.]), T([1., 2.1]))",
    "lib.equal(T([1, 2]), T([1., 2.]))",
    "lib.equal(T([1, 2]), T([1, 2, 3]))",
    "lib.equal(T([nan]), T([nan]))",
    "lib.isposinf(T([inf, -inf, 1.]))",
    "lib.isfinite(T([1, 2]))",
    "lib.where(T([True, False, True]))",
    "lib.where(T([[True, False], [False, True]]))",
    "T([1, 2]).fill_(1.5)",
    "T([1], dtype=uint8).fill_(-1)",
    "T([True, False]).fill_(2)",
    "T([1, 2]).fill_(T(2.7))",
    "T([1., 2.]).zero_()",
    "T([1, 2], dtype=int32).clamp_(max=1)",
    "T([1., -2.]).abs_()",
    "T([4., 9.]).sqrt_()",
    "T([2., 3.]).div_(T([2.]), rounding_mode='floor')",
    "T([3, 4]).floor_divide_(2)",
    "T([1., 2., 3.]).pow_(2)",
    "T([1., 2.]).lerp_(T([3., 4.]), 0.5)",
    "T([6, 3]).bitwise_and_(T([3, 3]))",
    "lib.deg2rad(T([180, 90]))",
    "lib.rad2deg(T([math.pi]))",
    "lib.hypot(T([3.]), T([4.]))",
    "lib.logaddexp(T([-inf, inf, 1000.]), T([-inf, inf, 1000.]))",
    "lib.atan2(T([1., -1.]), T([-1., -1.]))",
    "lib.exp2(T([1, 3]))",
    "lib.expm1(T([1e-10]))",
    "lib.log1p(T([1e-10, -1.]))",
]


@pytest.mark.parametrize("expression", EDGE_CASES)
def test_edge_cases_match_torch(torch, expression):
    _same_as_torch(torch, expression)


ERRORS = [
    "T([1.]) + T([1., 2.])",
    "T([[1., 2., 3.]]) * T([1., 2.]).reshape(2, 1, 1).expand(2, 3, 2)",
    "lib.atan2(T([1.]), T([1., 2.]))",
    "lib.where(T([True, False]), T([1., 2.]), T([1., 2., 3.]))",
    "lib.where(T([1, 0]), T([1., 2.]), 0)",
    "lib.clamp(T([1., 2.]))",
    "lib.clamp(T([True]), False, True)",
    "lib.clamp(T([1., 2.]), min=T([1., 2., 3.]))",
    "T([5, -7]) // 0",
    "T([5, -7]) % T([0, 1])",
    "lib.fmod(T([5, -7]), 0)",
    "lib.div(T([5, -7]), 0, rounding_mode='trunc')",
    "lib.div(T([5, -7]), 2, rounding_mode='bad')",
    "lib.div(T([True]), T([True]), rounding_mode='floor')",
    "T([True]) // T([True])",
    "T([True]) % T([True])",
    "T([5, -7]) ** -1",
    "T([True, False]) ** -1",
    "T([1, 2], dtype=uint8) ** -2",
    "T([True]) ** T([True])",
    "T([True]) - T([True])",
    "T([1, 2]) - True",
    "True - T([1, 2])",
    "T([True]) - 1",
    "-T([True])",
    "+T([True])",
    "lib.abs(T([True]))",
    "lib.floor(T([True]))",
    "lib.frac(T([1, 2]))",
    "lib.round(T([1, 2]), decimals=2)",
    "lib.relu(T([True]))",
    "lib.hypot(T([1, 2]), T([1, 2]))",
    "lib.logaddexp(T([1]), T([1]))",
    "lib.lerp(T([1, 2]), T([3, 4]), 0.5)",
    "lib.lerp(T([1., 2.]), T([1., 2.], dtype=float64), 0.5)",
    "lib.addcmul(T([True]), T([True]), T([True]))",
    "lib.addcdiv(T([1., 2]), T([1, 2]), T([1, 2]))",
    "lib.add(T([1, 2]), T([1, 2]), alpha=0.5)",
    "lib.add(T([1, 2]), T([1, 2]), alpha=1.0)",
    "lib.add(T([1., 2]), T([1, 2]), alpha=True)",
    "T([1., 2.]) & T([1., 2.])",
    "T([1, 2], dtype=int32) & 2.5",
    "~T([1.5])",
    "lib.bitwise_not(T([1.5]))",
    "T([True]) << T([True])",
    "T([1.]) << 1",
    "lib.maximum(T([1, 2]), 2)",
    "lib.logical_and(T([1, 2]), 1)",
    "lib.isclose(T([1, 2]), T([1., 2.]))",
    "lib.isclose(T([1.]), T([1.]), rtol=-1)",
    "T([1., 2.]).fill_(T([1.]))",
    "T([1, 2]).float_power_(2)",
    "T([1., 2.]).float_power_(2)",
    "T([1, 2]).add_(1.5)",
    "T([1, 2]).div_(T([2]))",
    "T([1, 2]).sqrt_()",
    "T([1., 2., 3.]).add_(T([[1.], [2.]]))",
]


@pytest.mark.parametrize("expression", ERRORS)
def test_errors_match_torch(torch, expression):
    _same_as_torch(torch, expression)


def test_broadcast_error_message():
    # str(e) exactly; pytest's match= also reads the explanation notes, so `$` would fail
    with pytest.raises(RuntimeError) as info:
        ember.tensor([[1., 2.]] * 4) + ember.tensor([1., 2., 3.])
    assert str(info.value) == ("The size of tensor a (2) must match the size of tensor b (3) at "
                               "non-singleton dimension 1")
    with pytest.raises(RuntimeError) as info:
        ember.maximum(ember.tensor([1., 2., 3.]), ember.tensor([1., 2.]))
    assert str(info.value) == ("The size of tensor a (3) must match the size of tensor b (2) at "
                               "non-singleton dimension 0")


# ---------------------------------------------------------------- broadcasting vs torch
_BINARY = [
    lambda lib, x, y: x + y, lambda lib, x, y: x - 2 * y, lambda lib, x, y: x * y,
    lambda lib, x, y: x / (y.abs() + 1), lambda lib, x, y: lib.maximum(x, y),
    lambda lib, x, y: lib.atan2(x, y), lambda lib, x, y: lib.where(x > y, x, y),
    lambda lib, x, y: x < y, lambda lib, x, y: lib.hypot(x, y),
]


@given(pair=broadcastable_pairs(), index=st.integers(0, len(_BINARY) - 1),
       seed=st.integers(0, 2 ** 16))
def test_broadcasting_matches_torch(pair, index, seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(shape) for shape in pair)
    fn = _BINARY[index]
    e_args = [ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)]
    t_args = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    expected = fn(torch, *t_args)
    got = fn(ember, *e_args)
    assert_same(got, expected, path=f"{pair}")
    if expected.requires_grad:
        grad = rng.standard_normal(tuple(expected.shape))
        expected.backward(torch.tensor(grad))
        got.backward(ember.tensor(grad))
        for e, t in zip(e_args, t_args):
            assert_same(e.grad, t.grad, path=f"{pair} grad")


# ---------------------------------------------------------------- in place
@pytest.mark.parametrize("method, args", [
    ("add_", (1,)), ("sub_", (ember.tensor([1., 2., 3.]),)), ("mul_", (2.5,)), ("div_", (4,)),
    ("pow_", (2,)), ("clamp_", (0.5, 2.5)), ("exp_", ()), ("neg_", ()), ("abs_", ()),
    ("sigmoid_", ()), ("fill_", (7,)), ("zero_", ()), ("round_", ()), ("nan_to_num_", ()),
    ("lerp_", (ember.tensor([0., 0., 0.]), 0.5)),
])
def test_inplace_keeps_identity_and_bumps_version(method, args):
    x = ember.tensor([1., 2., 3.])
    data_before = x.numpy()
    version = x._version
    out = getattr(x, method)(*args)
    assert out is x
    assert x._version == version + 1
    assert np.shares_memory(x.numpy(), data_before)


def test_augmented_assignment_operators():
    x = ember.tensor([1., 2., 3.])
    alias = x
    x += 1
    x -= ember.tensor([1., 1., 1.])
    x *= 2
    x /= 4
    assert x is alias
    assert x._version == 4
    assert x.tolist() == [0.5, 1.0, 1.5]


@pytest.mark.parametrize("operation, message", [
    (lambda x: x.__iadd__(1.5),
     "result type Float can't be cast to the desired output type Long"),
    (lambda x: x.add_(ember.tensor([[1], [2]])),
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda x: x.div_(2), "result type Float can't be cast to the desired output type Long"),
])
def test_inplace_errors_leave_tensor_unchanged(operation, message):
    x = ember.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        operation(x)
    assert x.tolist() == [1, 2, 3]
    assert x._version == 0


def test_inplace_on_leaf_requiring_grad_is_refused():
    x = ember.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation."):
        x.mul_(2)
    assert x.tolist() == [1., 2.] and x._version == 0


def test_inplace_records_the_out_of_place_node(torch):
    for method, args, name in [("abs_", (), "AbsBackward0"), ("clamp_", (0., 1.), "ClampBackward1"),
                               ("fill_", (2.,), "FillBackward2"), ("zero_", (), "ZeroBackward0"),
                               ("nan_to_num_", (), "NanToNumBackward0")]:
        leaf = ember.tensor([0.5, -1.5], requires_grad=True)
        y = leaf * 1
        getattr(y, method)(*args)
        assert y.grad_fn.name() == name
        t_leaf = torch.tensor([0.5, -1.5], requires_grad=True)
        t_y = t_leaf * 1
        getattr(t_y, method)(*args)
        assert type(t_y.grad_fn).__name__ == name
        y.sum().backward()
        t_y.sum().backward()
        assert_same(leaf.grad, t_leaf.grad, path=method)


def test_fill_with_tensor_value_flows_gradient(torch):
    value = ember.tensor(3., requires_grad=True)
    y = ember.tensor([1., 2.]).fill_(value)
    assert y.grad_fn.name() == "FillBackward3"
    (y * ember.tensor([2., 5.])).sum().backward()
    assert value.grad.item() == 7.0


# ---------------------------------------------------------------- gradients the catalog skips
def test_floor_divide_and_reflected_remainder_have_no_derivative(torch):
    x = ember.tensor([1.5, 2.5], requires_grad=True)
    for out in (x // 2, 7 // x, 7 % x, ember.floor_divide(x, x)):
        assert out.requires_grad and out.grad_fn.name() == "ember::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::.* is not implemented"):
            out.sum().backward()
    assert type((torch.tensor([1.], requires_grad=True) // 2).grad_fn).__name__ == \
        "NotImplemented"


def test_piecewise_constant_ops_give_zero_gradients():
    for name in ("sign", "sgn", "floor", "ceil", "round", "trunc"):
        x = ember.tensor([0.5, -1.5, 2.0], requires_grad=True)
        getattr(x, name)().sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0], name


def test_integer_and_bool_outputs_never_require_grad():
    x = ember.tensor([0.5, -1.5], requires_grad=True)
    for out in (x > 0, x == x, x.isnan(), x.signbit(), ember.isclose(x, x), x.logical_not()):
        assert out.grad_fn is None and not out.requires_grad


def test_positive_returns_the_same_tensor():
    x = ember.tensor([1., 2.], requires_grad=True)
    assert +x is x and ember.positive(x) is x


def test_double_backward_through_pointwise_chain(torch):
    def f(lib, x):
        return (lib.sigmoid(x) * lib.tanh(x) + lib.erf(x) * x.pow(3)).sum()
    e = ember.tensor([0.3, -1.2, 2.0], dtype=ember.float64, requires_grad=True)
    t = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    (e_grad,) = ember.autograd.grad(f(ember, e), e, create_graph=True)
    (t_grad,) = torch.autograd.grad(f(torch, t), t, create_graph=True)
    e_grad.sum().backward()
    t_grad.sum().backward()
    assert_same(e.grad, t.grad, atol=1e-10, rtol=1e-10)


# ---------------------------------------------------------------- erf family accuracy
def test_erf_family_is_accurate_to_float64(torch):
    x = np.concatenate([np.linspace(-8, 8, 4001), [1e-12, -1e-12, 0.46875, 4.0, 26.0]])
    for name in ("erf", "erfc"):
        got = getattr(ember, name)(ember.tensor(x)).numpy()
        expected = getattr(torch, name)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(got, expected, rtol=4e-15, atol=1e-300, err_msg=name)
    y = np.linspace(-0.999999, 0.999999, 4001)
    np.testing.assert_allclose(ember.erfinv(ember.tensor(y)).numpy(),
                               torch.erfinv(torch.tensor(y)).numpy(), rtol=1e-12)


@pytest.mark.parametrize("alpha", [-0.1, 0.37, 3, -1e-3])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha_is_applied_as_torch_fused_multiply_add(torch, op, alpha):
    """float32 a + alpha*b is rounded once with alpha in float32, bit for bit like torch
    (optimizers call add_(grad, alpha=-lr) every step)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal(20000).astype(np.float32)
    b = rng.standard_normal(20000).astype(np.float32)
    for other in (b, 2.5):
        expected = getattr(torch.tensor(a), op)(
            torch.tensor(other) if isinstance(other, np.ndarray) else other, alpha=alpha)
        got = getattr(ember.tensor(a), op)(
            ember.tensor(other) if isinstance(other, np.ndarray) else other, alpha=alpha)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("op", ["add", "sub"])
def test_boolean_alpha_on_floats_raises_like_torch(torch, op):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            getattr(lib.ones(2), op)(lib.ones(2), alpha=True)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
