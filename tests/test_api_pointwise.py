"""Every door into the elementwise ops, against torch: `ember.fn`, `Tensor.fn`, and the
in-place `ember.fn_` / `Tensor.fn_`, with their aliases (arccos, divide, greater_equal...).

The catalog (tests/opdb/pointwise.py) checks each op deeply through one door; these
tests check that every other door reaches the same op with the same arguments: values,
dtype, gradients, that an in-place form returns its own tensor, and the error for an
in-place result that cannot be cast back (float result into an int tensor).
"""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same

RNG = np.random.default_rng(7)
ANY = (-3.0, 3.0)
UNIT = (-0.9, 0.9)
POSITIVE = (0.2, 3.0)


def compare(torch, fn, *arrays, grad=True, atol=1e-6, rtol=1e-6):
    """fn(lib, *tensors) in ember and torch: same output, and same input gradients.

    Where torch refuses (forward or backward), ember must refuse with the same error."""
    results = []
    for lib in (torch, ember):
        inputs = [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f")
                  if isinstance(a, np.ndarray) else a for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if lib is ember:
                results.append((inputs, fn(lib, *inputs)))
                continue
            try:
                results.append((inputs, fn(lib, *inputs)))
            except Exception:    # noqa: BLE001 - the oracle refuses: so must ember
                compare_error(torch, lambda lib: fn(lib, *[
                    lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]))
                return None
    (t_in, t_out), (e_in, e_out) = results
    assert_same(e_out, t_out, atol, rtol)
    outs = [(e, t) for e, t in zip(tensors(e_out), tensors(t_out)) if t.requires_grad]
    if grad and outs:
        seeds = [RNG.standard_normal(tuple(t.shape)) for _, t in outs]
        t_seeds = [torch.tensor(s, dtype=t.dtype) for s, (_, t) in zip(seeds, outs)]
        e_seeds = [ember.tensor(s, dtype=e.dtype) for s, (e, _) in zip(seeds, outs)]
        try:
            torch.autograd.backward([t for _, t in outs], t_seeds)
        except Exception as error:   # torch has no derivative here: ember must refuse alike
            with pytest.raises(type(error)) as got:
                ember.autograd.backward([e for e, _ in outs], e_seeds)
            assert str(got.value) == str(error).replace("torch.", "ember.")
            return e_out, t_out
        ember.autograd.backward([e for e, _ in outs], e_seeds)
        for e, t in zip(tensors(e_in), tensors(t_in)):
            if t.grad is None:
                assert e.grad is None
            else:
                assert_same(e.grad, t.grad, atol, rtol, "grad")
    return e_out, t_out


def tensors(value):
    """The tensors of an output or argument list (without touching a non-leaf's .grad)."""
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors(v)]
    return [value] if type(value).__name__ in ("Tensor", "Parameter") else []


def compare_error(torch, fn):
    """Same exception type and message (torch. -> ember.) from ember and torch."""
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(type(expected.value)) as got:
        fn(ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


def in_place(lib, name, x, *args):
    """Call the in-place `name` on a non-leaf copy of x, as both doors (method and function)."""
    target = x * 1
    if hasattr(lib.Tensor, name):
        out = getattr(target, name)(*args)
    else:
        out = getattr(lib, name)(target, *args)
    assert out is target
    return out


# ---------------------------------------------------------------- unary
UNARY = {
    "abs": ANY, "absolute": ANY, "absolute_": ANY,
    "acos": UNIT, "acos_": UNIT, "arccos": UNIT, "arccos_": UNIT,
    "acosh": (1.1, 4.0), "acosh_": (1.1, 4.0), "arccosh": (1.1, 4.0), "arccosh_": (1.1, 4.0),
    "asin": UNIT, "asin_": UNIT, "arcsin": UNIT, "arcsin_": UNIT,
    "asinh": ANY, "asinh_": ANY, "arcsinh": ANY, "arcsinh_": ANY,
    "atan": ANY, "atan_": ANY, "arctan": ANY, "arctan_": ANY,
    "atanh": UNIT, "atanh_": UNIT, "arctanh": UNIT, "arctanh_": UNIT,
    "ceil": ANY, "ceil_": ANY, "floor": ANY, "floor_": ANY, "round": ANY, "round_": ANY,
    "trunc": ANY, "trunc_": ANY, "fix": ANY, "fix_": ANY, "frac": ANY, "frac_": ANY,
    "cos": ANY, "cos_": ANY, "cosh": ANY, "cosh_": ANY, "sin": ANY, "sin_": ANY,
    "sinh": ANY, "sinh_": ANY, "tan": (-1.2, 1.2), "tan_": (-1.2, 1.2),
    "tanh_": ANY, "sigmoid_": ANY,
    "deg2rad": ANY, "deg2rad_": ANY, "rad2deg": ANY, "rad2deg_": ANY,
    "erf_": ANY, "erfc_": ANY, "erfinv": UNIT, "erfinv_": UNIT,
    "exp_": ANY, "exp2": ANY, "exp2_": ANY, "expm1": ANY, "expm1_": ANY,
    "log": POSITIVE, "log_": POSITIVE, "log10": POSITIVE, "log10_": POSITIVE,
    "log1p": (-0.8, 3.0), "log1p_": (-0.8, 3.0), "log2": POSITIVE, "log2_": POSITIVE,
    "logit_": (0.05, 0.95),
    "neg": ANY, "neg_": ANY, "negative": ANY, "negative_": ANY, "positive": ANY,
    "reciprocal": POSITIVE, "reciprocal_": POSITIVE, "rsqrt": POSITIVE, "rsqrt_": POSITIVE,
    "sqrt_": POSITIVE, "square_": ANY, "relu_": ANY,
    "sign": ANY, "sign_": ANY, "sgn": ANY, "sgn_": ANY, "signbit": ANY,
    "isfinite": ANY, "isnan": ANY, "isinf": ANY, "isneginf": ANY, "isposinf": ANY,
    "isreal": ANY, "logical_not": ANY, "logical_not_": ANY,
}
# torch has no derivative for these in place (tested apart, below)
NO_IN_PLACE_DERIVATIVE = {"acosh_", "arccosh_", "asinh_", "arcsinh_", "atanh_", "arctanh_"}
NO_GRAD = NO_IN_PLACE_DERIVATIVE | {
    "signbit", "isfinite", "isnan", "isinf", "isneginf", "isposinf", "isreal", "logical_not",
    "logical_not_", "sgn", "sgn_"}   # sgn's gradient is a ZeroTensor in torch


def _unary_input(name, dtype="float64", shape=(2, 3)):
    low, high = UNARY[name]
    return RNG.uniform(low, high, size=shape).astype(dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_doors_match_torch(torch, name):
    x = _unary_input(name)
    grad = name not in NO_GRAD
    if name.endswith("_"):
        compare(torch, lambda lib, x: in_place(lib, name, x), x, grad=grad)
        if hasattr(ember, name):
            compare(torch, lambda lib, x: getattr(lib, name)(x * 1), x, grad=grad)
        return
    if hasattr(ember.Tensor, name):
        compare(torch, lambda lib, x: getattr(x, name)(), x, grad=grad)
    if hasattr(ember, name):
        compare(torch, lambda lib, x: getattr(lib, name)(x), x, grad=grad)
        compare(torch, lambda lib, x: getattr(lib, name)(x), x.astype(np.float32), grad=False)
        compare(torch, lambda lib, x: getattr(lib, name)(x), np.arange(-2, 4).reshape(2, 3),
                atol=1e-5, rtol=1e-5)


FLOAT_RESULT = [n for n in UNARY if n.endswith("_") and n not in (
    "absolute_", "ceil_", "floor_", "round_", "trunc_", "fix_", "frac_", "neg_", "negative_",
    "square_", "relu_", "sign_", "sgn_", "logical_not_")]


@pytest.mark.parametrize("name", sorted(FLOAT_RESULT))
def test_in_place_float_result_into_int_tensor_is_refused_like_torch(torch, name):
    compare_error(torch, lambda lib: getattr(lib.tensor([1, 2]), name)())


@pytest.mark.parametrize("name", sorted(NO_IN_PLACE_DERIVATIVE))
def test_in_place_inverse_hyperbolic_has_no_derivative_like_torch(torch, name):
    compare(torch, lambda lib, x: in_place(lib, name, x), _unary_input(name))


def test_in_place_on_a_leaf_that_requires_grad_is_refused_like_torch(torch):
    compare_error(torch, lambda lib: lib.ones(2, requires_grad=True).cos_())
    compare_error(torch, lambda lib: lib.relu_(lib.ones(2, requires_grad=True)))


def test_round_and_clip_keyword_doors(torch):
    x = RNG.uniform(-30, 30, size=(2, 3))
    compare(torch, lambda lib, x: x.round(decimals=1), x)
    compare(torch, lambda lib, x: in_place(lib, "round_", x, ), x)
    compare(torch, lambda lib, x: x.clamp(-1.5, 2), x)
    compare(torch, lambda lib, x: x.clamp_min(0.5), x)
    compare(torch, lambda lib, x: in_place(lib, "clamp_min_", x, 0.5), x)
    compare(torch, lambda lib, x: in_place(lib, "clamp_max_", x, 0.5), x)
    compare(torch, lambda lib, x: lib.clamp_min_(x * 1, -1.0), x)
    compare(torch, lambda lib, x: lib.clamp_max_(x * 1, -1.0), x)
    compare(torch, lambda lib, x: lib.clip(x, -1, 1), x)
    compare(torch, lambda lib, x: in_place(lib, "clip_", x, None, 1), x)
    compare(torch, lambda lib, x: lib.clip_(x * 1, -1, None), x)
    compare(torch, lambda lib, x: lib.logit_(lib.sigmoid(x), 0.1), x)
    compare_error(torch, lambda lib: lib.ones(2).clip())


def test_logit_method_in_place_clamps_with_eps(torch):
    compare(torch, lambda lib, x: x.sigmoid().logit_(0.25), RNG.uniform(-30, 30, size=(2, 3)))


# ---------------------------------------------------------------- binary
BINARY = [
    "arctan2", "arctan2_", "atan2", "atan2_", "copysign", "copysign_", "div", "divide",
    "divide_", "true_divide", "true_divide_", "floor_divide", "fmax", "fmin", "fmod", "fmod_",
    "hypot", "hypot_", "logaddexp", "logaddexp2", "maximum", "minimum", "mul", "multiply",
    "multiply_", "remainder", "remainder_", "subtract", "subtract_", "xlogy", "xlogy_",
    "float_power", "pow_",
]
BINARY_NO_SCALAR = {"arctan2", "arctan2_", "atan2", "atan2_", "hypot", "hypot_", "logaddexp",
                    "logaddexp2", "maximum", "minimum", "fmax", "fmin"}
BINARY_NO_GRAD = {"floor_divide"}


def _binary(lib, name, x, y):
    if name.endswith("_"):
        return in_place(lib, name, x, y)
    if hasattr(lib.Tensor, name):
        method = getattr(x, name)(y)
        if hasattr(lib, name):
            assert_same_value(method, getattr(lib, name)(x, y))
        return method
    return getattr(lib, name)(x, y)


def assert_same_value(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert bool((a == b).all()) or bool(((a != a) & (b != b)).any())


@pytest.mark.parametrize("name", BINARY)
def test_binary_doors_match_torch(torch, name):
    x = RNG.uniform(0.5, 3.0, size=(2, 3))
    y = RNG.uniform(0.5, 3.0, size=(3,))
    grad = name not in BINARY_NO_GRAD
    compare(torch, lambda lib, x, y: _binary(lib, name, x, y), x, y, grad=grad)
    if name not in BINARY_NO_SCALAR:
        compare(torch, lambda lib, x: _binary(lib, name, x, 2.5), x, grad=grad)
    if not name.endswith("_"):
        compare(torch, lambda lib, x, y: _binary(lib, name, x, y),
                np.arange(1, 7).reshape(2, 3), y.astype(np.float32), grad=False)


def test_binary_keyword_doors(torch):
    x, y = RNG.uniform(-3, 3, size=(2, 3)), RNG.uniform(0.5, 3.0, size=(3,))
    compare(torch, lambda lib, x, y: x.div(y, rounding_mode="floor"), x, y)
    compare(torch, lambda lib, x, y: lib.divide(x, y, rounding_mode="trunc"), x, y)
    compare(torch, lambda lib, x, y: in_place(lib, "divide_", x, y), x, y)
    compare(torch, lambda lib, x, y: x.subtract(y, alpha=2), x, y)
    compare(torch, lambda lib, x, y: lib.subtract(x, y, alpha=0.5), x, y)
    compare(torch, lambda lib, x, y: x.mul(y), x, y)
    compare(torch, lambda lib, x: lib.xlogy_(x * 1, 3.0), np.abs(x))
    compare_error(torch, lambda lib: lib.ones(2).div(lib.ones(2), rounding_mode="round"))
    compare_error(torch, lambda lib: lib.ones(2, dtype=lib.int64).true_divide_(lib.ones(2)))
    compare_error(torch, lambda lib: lib.ones(2, 3).multiply(lib.ones(4)))


COMPARISONS = [
    "eq", "eq_", "ne", "ne_", "lt", "lt_", "le", "le_", "gt", "gt_", "ge", "ge_", "greater",
    "greater_", "greater_equal", "greater_equal_", "less", "less_", "less_equal",
    "less_equal_", "not_equal", "not_equal_", "logical_and", "logical_and_", "logical_or",
    "logical_or_", "logical_xor", "logical_xor_",
]


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_doors_match_torch(torch, name):
    x = RNG.integers(0, 3, size=(2, 3)).astype(np.float64)
    y = RNG.integers(0, 3, size=(3,)).astype(np.float64)
    if name.endswith("_"):   # in place: the result keeps x's dtype
        compare(torch, lambda lib, x, y: in_place(lib, name, x, y), x, y, grad=False)
        if not name.startswith("logical"):
            compare(torch, lambda lib, x: in_place(lib, name, x, 1), x, grad=False)
        return
    compare(torch, lambda lib, x, y: _binary(lib, name, x, y), x, y, grad=False)
    if not name.startswith("logical"):   # torch takes no Python scalar there (tested below)
        compare(torch, lambda lib, x: _binary(lib, name, x, 1), x, grad=False)
    compare(torch, lambda lib, x, y: _binary(lib, name, x, y),
            x.astype(np.int32), y.astype(bool), grad=False)


@pytest.mark.parametrize("name", ["logical_and", "logical_or_"])
def test_logical_method_refuses_a_python_scalar_like_torch(torch, name):
    compare_error(torch, lambda lib: getattr(lib.ones(2), name)(1))


def test_logical_function_refuses_a_python_scalar_like_torch(torch):
    compare_error(torch, lambda lib: lib.logical_xor(lib.ones(2), 1))


BITWISE = ["bitwise_and", "bitwise_and_", "bitwise_or", "bitwise_or_", "bitwise_xor",
           "bitwise_xor_", "bitwise_left_shift", "bitwise_left_shift_", "bitwise_right_shift",
           "bitwise_right_shift_", "bitwise_not", "bitwise_not_"]


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_doors_match_torch(torch, name):
    x = RNG.integers(0, 16, size=(2, 3))
    y = RNG.integers(0, 4, size=(3,))
    if name.startswith("bitwise_not"):
        compare(torch, lambda lib, x: in_place(lib, name, x) if name.endswith("_")
                else _unary_call(lib, name, x), x, grad=False)
        compare(torch, lambda lib, x: _unary_call(lib, name, x), x.astype(bool), grad=False)
        return
    compare(torch, lambda lib, x, y: _binary(lib, name, x, y), x, y, grad=False)
    compare(torch, lambda lib, x: _binary(lib, name, x, 2), x, grad=False)
    compare(torch, lambda lib, x, y: _binary(lib, name, x, y), x > 7, y > 1, grad=False)
    if not name.endswith("_"):
        compare(torch, lambda lib, x, y: _binary(lib, name, x, y), x.astype(np.uint8),
                y.astype(np.int16), grad=False)
    compare_error(torch, lambda lib: _binary(lib, name, lib.ones(2), lib.ones(2)))


def _unary_call(lib, name, x):
    method = getattr(x, name)()
    if hasattr(lib, name):
        assert_same_value(method, getattr(lib, name)(x))
    return method


def test_closeness_doors_match_torch(torch):
    # |x| >= 0.5 and 1e-7 <= |x - y| <= 1e-6: close by the default rtol (1e-5), not by 1e-9
    x = RNG.uniform(0.5, 1, size=(2, 3)) * RNG.choice([-1, 1], size=(2, 3))
    y = x + RNG.uniform(1e-7, 1e-6, size=(2, 3)) * RNG.choice([-1, 1], size=(2, 3))
    for lib in (ember, torch):
        a, b = lib.tensor(x), lib.tensor(y)
        assert a.allclose(b) and lib.allclose(a, b) and not a.allclose(b, rtol=0, atol=1e-9)
        assert not lib.allclose(a, a + 1)
        assert a.equal(a.clone()) and lib.equal(a, a * 1) and not a.equal(b)
        assert not lib.equal(a, a[:1])     # different shapes: False, not an error
    compare(torch, lambda lib, x, y: x.isclose(y, rtol=0, atol=5e-7), x, y, grad=False)
    compare_error(torch, lambda lib: lib.ones(2).allclose(lib.ones(3)))
