"""Catalog entries for the elementwise ops (ember/ops/pointwise*.py)."""
import numpy as np

from . import ALL_DTYPES, FLOAT_DTYPES, OpInfo, Sample, doors, random_array

INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
INT_AND_BOOL = ("bool",) + INT_DTYPES
NUMERIC = INT_DTYPES + ("float16", "float32", "float64")
NO_GRAD = dict(differentiable=False)

UNARY_SHAPES = [(), (4,), (2, 3), (0,), (2, 0, 3)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), ()),
                 ((), (2, 2)), ((0, 3), (3,)), ((2, 1, 3), (4, 1))]


def unary_samples(low=-3.0, high=3.0):
    def samples(rng, dtype):
        for shape in UNARY_SHAPES:
            yield Sample((random_array(rng, shape, dtype, low, high),), name=str(shape))
    return samples


def binary_samples(low=-3.0, high=3.0, scalars=(2, 2.5), nonzero=False):
    """Broadcasting pairs, then a tensor with each Python scalar in `scalars`."""
    def draw(rng, shape, dtype):
        x = random_array(rng, shape, dtype, low, high)
        if nonzero and dtype != "bool":
            x = np.where(x == 0, np.ones_like(x), x)
        return x

    def samples(rng, dtype):
        for a, b in BINARY_SHAPES:
            yield Sample((draw(rng, a, dtype), draw(rng, b, dtype)), name=f"{a}x{b}")
        for scalar in scalars:
            yield Sample((draw(rng, (2, 3), dtype), scalar), name=f"python {scalar!r}")
    return samples


def scalar_first_samples(scalar, low=-3.0, high=3.0):
    """A tensor for ops written `scalar OP tensor` (reflected operators)."""
    def samples(rng, dtype):
        for shape in [(), (4,), (2, 3), (0,)]:
            x = random_array(rng, shape, dtype, low, high)
            if dtype != "bool":
                x = np.where(x == 0, np.ones_like(x), x)
            yield Sample((x,), name=str(shape))
    return samples


def ternary_samples(low=-3.0, high=3.0, nonzero_last=False):
    def samples(rng, dtype):
        for a, b, c in [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), (2, 1)),
                        ((4,), (), (1,)), ((0, 2), (2,), (1, 2))]:
            z = random_array(rng, c, dtype, low, high)
            if nonzero_last:
                z = np.where(np.abs(z) < 0.5, np.ones_like(z), z)
            yield Sample((random_array(rng, a, dtype, low, high),
                          random_array(rng, b, dtype, low, high), z), name=f"{a},{b},{c}")
    return samples


def where_samples(rng, dtype):
    for c, a, b in [((3,), (3,), (3,)), ((2, 3), (3,), (2, 1)), ((), (2,), ()), ((0,), (0,), ())]:
        condition = rng.integers(0, 2, size=c).astype(bool)
        yield Sample((condition, random_array(rng, a, dtype), random_array(rng, b, dtype)),
                     name=f"{c},{a},{b}")
    condition = rng.integers(0, 2, size=(2, 3)).astype(bool)
    yield Sample((condition, random_array(rng, (2, 3), dtype), 0.5), name="other scalar")
    yield Sample((condition, 2, random_array(rng, (3,), dtype)), name="input scalar")


def clamp_tensor_samples(rng, dtype):
    for a, lo, hi in [((3,), (3,), (3,)), ((2, 3), (3,), (2, 1)), ((4,), (), ())]:
        low = random_array(rng, lo, dtype, -2, 0)
        yield Sample((random_array(rng, a, dtype), low, random_array(rng, hi, dtype, 0.5, 2)),
                     name=f"{a},{lo},{hi}")
    yield Sample((random_array(rng, (2, 2), dtype), random_array(rng, (2, 2), dtype)),
                 name="crossed bounds")


def nonfinite_samples(rng, dtype):
    yield from unary_samples()(rng, dtype)
    if dtype.startswith("float"):
        yield Sample((np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], dtype=dtype),),
                     name="nan/inf")


def shift_samples(rng, dtype):
    for a, b in [((4,), (4,)), ((2, 3), (3,)), ((), ())]:
        yield Sample((random_array(rng, a, dtype), rng.integers(0, 4, size=b).astype(dtype)),
                     name=f"{a}x{b}")
    yield Sample((random_array(rng, (3,), dtype), 2), name="python int")


def _unary(name, fn, low=-3.0, high=3.0, dtypes=ALL_DTYPES, **kwargs):
    return OpInfo(name, fn, unary_samples(low, high), dtypes=dtypes, **kwargs)


def _binary(name, fn, dtypes=ALL_DTYPES, **kwargs):
    sample_args = {k: kwargs.pop(k) for k in ("low", "high", "scalars", "nonzero")
                   if k in kwargs}
    return OpInfo(name, fn, binary_samples(**sample_args), dtypes=dtypes, **kwargs)


_TENSORS_ONLY = dict(scalars=())
_FLOAT16_TOL = dict(atol=1e-3, rtol=1e-3)

OPS = [
    # arithmetic
    _binary("add", lambda lib, x, y: lib.add(x, y)),
    _binary("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2)),
    _binary("sub", lambda lib, x, y: x - y),
    _binary("sub_alpha", lambda lib, x, y: lib.sub(x, y, alpha=3)),
    _binary("rsub", lambda lib, x, y: lib.rsub(x, y)),
    _binary("mul", lambda lib, x, y: x * y),
    _binary("div", lambda lib, x, y: x / y, nonzero=True),
    _binary("div_trunc", lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"), nonzero=True),
    _binary("div_floor", lambda lib, x, y: lib.div(x, y, rounding_mode="floor"), nonzero=True),
    _binary("floor_divide", lambda lib, x, y: x // y, nonzero=True, **NO_GRAD),
    _binary("remainder", lambda lib, x, y: x % y, nonzero=True),
    _binary("fmod", lambda lib, x, y: lib.fmod(x, y), nonzero=True),
    OpInfo("rdiv", lambda lib, x: 2 / x, scalar_first_samples(2), dtypes=ALL_DTYPES),
    OpInfo("rsub_scalar", lambda lib, x: 2.5 - x, scalar_first_samples(2.5), dtypes=NUMERIC),
    OpInfo("rmul", lambda lib, x: 3 * x, scalar_first_samples(3), dtypes=ALL_DTYPES),
    OpInfo("rfloordiv", lambda lib, x: 7 // x, scalar_first_samples(7), dtypes=NUMERIC,
           **NO_GRAD),
    OpInfo("rremainder", lambda lib, x: 7 % x, scalar_first_samples(7), dtypes=NUMERIC,
           **NO_GRAD),
    OpInfo("rpow", lambda lib, x: 2 ** x, scalar_first_samples(2), dtypes=NUMERIC),
    OpInfo("rpow_float", lambda lib, x: lib.pow(1.5, x), scalar_first_samples(1.5)),
    _binary("pow_tensor", lambda lib, x, y: lib.pow(x, y), low=0.5, high=2.0,
            dtypes=NUMERIC, **_TENSORS_ONLY, **_FLOAT16_TOL),
    _unary("pow_2", lambda lib, x: x ** 2, dtypes=NUMERIC),
    _unary("pow_3", lambda lib, x: lib.pow(x, 3), dtypes=NUMERIC, **_FLOAT16_TOL),
    _unary("pow_half", lambda lib, x: x ** 0.5, low=0.1),
    _unary("pow_neg", lambda lib, x: x ** -1.5, low=0.2),
    _unary("pow_zero", lambda lib, x: x ** 0, dtypes=NUMERIC),
    _unary("square", lambda lib, x: lib.square(x)),
    _binary("float_power", lambda lib, x, y: lib.float_power(x, y), low=0.5, high=2.0,
            dtypes=NUMERIC, scalars=(2, 0.5)),
    _unary("neg", lambda lib, x: -x),
    _unary("positive", lambda lib, x: +x, **NO_GRAD),
    _unary("reciprocal", lambda lib, x: lib.reciprocal(x), low=0.3),
    _unary("abs", lambda lib, x: lib.abs(x)),
    _unary("sign", lambda lib, x: lib.sign(x)),
    _unary("sgn", lambda lib, x: lib.sgn(x),
           skip={"grads": "torch returns a ZeroTensor gradient; see test_pointwise"}),
    _unary("signbit", lambda lib, x: lib.signbit(x), **NO_GRAD),
    # roots, exponentials, logarithms
    _unary("sqrt", lambda lib, x: lib.sqrt(x), low=0.1),
    _unary("rsqrt", lambda lib, x: lib.rsqrt(x), low=0.1, **_FLOAT16_TOL),
    _unary("exp", lambda lib, x: lib.exp(x)),
    _unary("exp2", lambda lib, x: lib.exp2(x)),
    _unary("expm1", lambda lib, x: lib.expm1(x)),
    _unary("log", lambda lib, x: lib.log(x), low=0.1),
    _unary("log1p", lambda lib, x: lib.log1p(x), low=-0.9),
    _unary("log2", lambda lib, x: lib.log2(x), low=0.1),
    _unary("log10", lambda lib, x: lib.log10(x), low=0.1),
    # trigonometry
    _unary("sin", lambda lib, x: lib.sin(x)),
    _unary("cos", lambda lib, x: lib.cos(x)),
    _unary("tan", lambda lib, x: lib.tan(x), low=-1.2, high=1.2),
    _unary("asin", lambda lib, x: lib.asin(x), low=-0.95, high=0.95),
    _unary("acos", lambda lib, x: lib.arccos(x), low=-0.95, high=0.95),
    _unary("atan", lambda lib, x: lib.atan(x)),
    _binary("atan2", lambda lib, x, y: lib.atan2(x, y), **_TENSORS_ONLY),
    _unary("sinh", lambda lib, x: lib.sinh(x)),
    _unary("cosh", lambda lib, x: lib.cosh(x)),
    _unary("tanh", lambda lib, x: lib.tanh(x)),
    _unary("asinh", lambda lib, x: lib.asinh(x)),
    _unary("acosh", lambda lib, x: lib.acosh(x), low=1.1, high=4.0),
    _unary("atanh", lambda lib, x: lib.atanh(x), low=-0.9, high=0.9),
    _unary("deg2rad", lambda lib, x: lib.deg2rad(x)),
    _unary("rad2deg", lambda lib, x: lib.rad2deg(x), **_FLOAT16_TOL),
    # activations and special functions
    _unary("sigmoid", lambda lib, x: lib.sigmoid(x)),
    _unary("logit", lambda lib, x: lib.logit(x), low=0.05, high=0.95),
    _unary("logit_eps", lambda lib, x: x.logit(0.2), low=0.05, high=0.95),
    _unary("relu", lambda lib, x: lib.relu(x)),
    _unary("erf", lambda lib, x: lib.erf(x)),
    _unary("erfc", lambda lib, x: lib.erfc(x)),
    _unary("erfinv", lambda lib, x: lib.erfinv(x), low=-0.9, high=0.9),
    _binary("hypot", lambda lib, x, y: lib.hypot(x, y), **_TENSORS_ONLY),
    _binary("logaddexp", lambda lib, x, y: lib.logaddexp(x, y), **_TENSORS_ONLY),
    _binary("logaddexp2", lambda lib, x, y: lib.logaddexp2(x, y), **_TENSORS_ONLY),
    # Known difference: ember's xlogy(x, number) gradient takes log of the number in
    # float32, PyTorch in float64 (measured 2.4e-9 absolute).
    _binary("xlogy", lambda lib, x, y: lib.xlogy(x, y), low=0.1, scalars=(2, 0.5),
            grad_atol=1e-8, grad_rtol=1e-8),
    OpInfo("xlogy_scalar_first", lambda lib, y: lib.xlogy(2.5, y), unary_samples(0.1)),
    _binary("copysign", lambda lib, x, y: lib.copysign(x, y), scalars=(-1.0, 2)),
    # rounding and bounding
    _unary("floor", lambda lib, x: lib.floor(x)),
    _unary("ceil", lambda lib, x: lib.ceil(x)),
    _unary("round", lambda lib, x: lib.round(x)),
    _unary("round_decimals", lambda lib, x: lib.round(x * 10, decimals=1)),
    _unary("round_negative_decimals", lambda lib, x: lib.round(x * 100, decimals=-1)),
    _unary("trunc", lambda lib, x: lib.trunc(x)),
    _unary("frac", lambda lib, x: lib.frac(x)),
    _unary("clamp", lambda lib, x: lib.clamp(x, -1, 2)),
    _unary("clamp_float_bounds", lambda lib, x: lib.clamp(x, -1.5, 0.5)),
    _unary("clamp_min_only", lambda lib, x: lib.clamp(x, min=-0.5)),
    _unary("clamp_max_only", lambda lib, x: x.clip(max=0.5)),
    OpInfo("clamp_tensor", lambda lib, x, lo, hi=None: lib.clamp(x, lo, hi),
           clamp_tensor_samples, dtypes=NUMERIC),
    _unary("clamp_min", lambda lib, x: lib.clamp_min(x, 0.5)),
    _unary("clamp_max", lambda lib, x: lib.clamp_max(x, 0)),
    _binary("clamp_min_tensor", lambda lib, x, y: lib.clamp_min(x, y), dtypes=NUMERIC,
            **_TENSORS_ONLY),
    _binary("clamp_max_tensor", lambda lib, x, y: x.clamp_max(y), dtypes=NUMERIC,
            **_TENSORS_ONLY),
    _binary("maximum", lambda lib, x, y: lib.maximum(x, y), **_TENSORS_ONLY),
    _binary("minimum", lambda lib, x, y: lib.minimum(x, y), **_TENSORS_ONLY),
    _binary("fmax", lambda lib, x, y: lib.fmax(x, y), **_TENSORS_ONLY),
    _binary("fmin", lambda lib, x, y: lib.fmin(x, y), **_TENSORS_ONLY),
    OpInfo("nan_to_num", lambda lib, x: lib.nan_to_num(x), nonfinite_samples,
           dtypes=ALL_DTYPES),
    OpInfo("nan_to_num_values", lambda lib, x: x.nan_to_num(1.0, 9.0, -9.0), nonfinite_samples),
    # fused
    OpInfo("lerp", lambda lib, x, y, w: lib.lerp(x, y, w), ternary_samples()),
    OpInfo("lerp_scalar", lambda lib, x, y: lib.lerp(x, y, 0.3),
           binary_samples(scalars=())),
    OpInfo("lerp_scalar_large", lambda lib, x, y: x.lerp(y, 0.8), binary_samples(scalars=())),
    OpInfo("addcmul", lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5), ternary_samples(),
           dtypes=NUMERIC, **_FLOAT16_TOL),
    OpInfo("addcdiv", lambda lib, x, y, z: lib.addcdiv(x, y, z, value=2), ternary_samples(
        nonzero_last=True), dtypes=ALL_DTYPES, **_FLOAT16_TOL),
    OpInfo("where", lambda lib, c, x, y: lib.where(c, x, y), where_samples, dtypes=ALL_DTYPES),
    OpInfo("where_method", lambda lib, c, x, y: x.where(c, y) if hasattr(x, "where")
           else lib.where(c, x, y), where_samples),
    # comparisons, logic, bits (no gradients)
    *[_binary(name, fn, **NO_GRAD) for name, fn in [
        ("eq", lambda lib, x, y: x == y), ("ne", lambda lib, x, y: x != y),
        ("lt", lambda lib, x, y: x < y), ("le", lambda lib, x, y: lib.le(x, y)),
        ("gt", lambda lib, x, y: lib.greater(x, y)), ("ge", lambda lib, x, y: x >= y)]],
    *[_binary(name, fn, scalars=(), **NO_GRAD) for name, fn in [
        ("logical_and", lambda lib, x, y: lib.logical_and(x, y)),
        ("logical_or", lambda lib, x, y: lib.logical_or(x, y)),
        ("logical_xor", lambda lib, x, y: lib.logical_xor(x, y))]],
    _unary("logical_not", lambda lib, x: lib.logical_not(x), **NO_GRAD),
    *[_binary(name, fn, dtypes=INT_AND_BOOL + FLOAT_DTYPES, scalars=(3,), **NO_GRAD)
      for name, fn in [("bitwise_and", lambda lib, x, y: x & y),
                       ("bitwise_or", lambda lib, x, y: lib.bitwise_or(x, y)),
                       ("bitwise_xor", lambda lib, x, y: x ^ y)]],
    _unary("bitwise_not", lambda lib, x: lib.bitwise_not(x), dtypes=INT_AND_BOOL + ("float32",),
           **NO_GRAD),
    OpInfo("left_shift", lambda lib, x, y: x << y, shift_samples, dtypes=INT_DTYPES, **NO_GRAD),
    OpInfo("right_shift", lambda lib, x, y: lib.bitwise_right_shift(x, y), shift_samples,
           dtypes=INT_DTYPES, **NO_GRAD),
    OpInfo("rlshift", lambda lib, x: 1 << x, scalar_first_samples(1, 0, 3), dtypes=INT_DTYPES,
           **NO_GRAD),
    OpInfo("rrshift", lambda lib, x: 64 >> x, scalar_first_samples(64, 0, 3), dtypes=INT_DTYPES,
           **NO_GRAD),
    *[OpInfo(name, fn, nonfinite_samples, dtypes=ALL_DTYPES, **NO_GRAD) for name, fn in [
        ("isnan", lambda lib, x: lib.isnan(x)), ("isinf", lambda lib, x: x.isinf()),
        ("isfinite", lambda lib, x: lib.isfinite(x)), ("isposinf", lambda lib, x: lib.isposinf(x)),
        ("isneginf", lambda lib, x: lib.isneginf(x))]],
    _binary("isclose", lambda lib, x, y: lib.isclose(x, y + 1e-6 if y.is_floating_point() else y),
            scalars=(), **NO_GRAD),
    _binary("isclose_tolerances", lambda lib, x, y: lib.isclose(x, y, rtol=0.5, atol=1.0),
            scalars=(), **NO_GRAD),
]

OPS += doors(OPS, {
    "addcmul": [("Tensor.addcmul", lambda lib, x, y, z: x.addcmul(y, z, value=0.5))],
    "addcdiv": [("Tensor.addcdiv", lambda lib, x, y, z: x.addcdiv(y, z, value=2))],
})
