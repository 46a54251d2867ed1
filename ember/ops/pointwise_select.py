"""Elementwise ops that pick, bound or round values: abs and sign, rounding,
relu and clamp, maximum/minimum, where, nan_to_num, and fill_/zero_.

Most of these have piecewise-constant parts, so their gradients are masks of the
incoming gradient (or zero), exactly as PyTorch's formulas write them.
"""
from .._dtype import is_floating as _is_floating
import warnings

from .. import _dtype, _errors
from .._backend import numpy as _numpy
from ..autograd.graph import Node
from ._cast import cast as _cast
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import (Tensor, any_requires_grad, attach, binary, check_uint64_promotion,
                      grad_state, inplace, inplace_overlapping, scalar_number, scalar_to,
                      scalar_value, sum_to_shape, wrap)
from ._elementwise import (broadcast_error, dtype_of, require_tensor, shape_of, unsupported,
                           upcast, zeros_like)

__all__ = ["abs", "absolute", "sign", "sgn", "signbit", "floor", "ceil", "round", "trunc", "fix",
           "frac", "relu", "clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum", "fmax",
           "fmin", "where", "nan_to_num", "abs_", "floor_", "ceil_", "round_", "trunc_", "fix_",
           "frac_", "relu_", "clamp_", "clip_", "clamp_min_", "clamp_max_", "nan_to_num_", "fill_",
           "zero_"]

_INT_MASK = 0xFFFFFFFFFFFFFFFF


def _unary_same(input, kernel, function, node_class, allow_int=True):
    """`function(input)` in input's own dtype; bool (and ints unless allowed) refused."""
    a = input._data
    kind = a.dtype.kind
    if kind == "b" or kind in "iu" and not allow_int:
        raise unsupported(kernel, a)
    out = wrap(function(a) if _is_floating(a.dtype) else a.copy(), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.save(input)
        attach(out, node, input)
    return out


class _ZeroGrad(Node):
    """Shared backward of the piecewise-constant ops: the gradient is zero."""
    __slots__ = ()

    def backward(self, grad):
        return (zeros_like(grad),)


# ---------------------------------------------------------------- abs and sign
def abs(input):
    """|input| (integers keep their dtype; the minimum integer stays negative)."""
    a = input._data
    if a.dtype.kind == "b":
        raise unsupported("abs_cpu", a)
    if a.dtype in _LIMITED:
        raise _refusal("abs_cpu", a.dtype)
    out = wrap(input._device.xp.abs(a), input._device)
    if grad_state.enabled and input._requires_grad:
        node = AbsBackward0()
        node.save(input)
        attach(out, node, input)
    return out


absolute = abs


class AbsBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * input.sgn(),)


def sign(input):
    """-1, 0 or 1 by sign; 0 for nan (as PyTorch, unlike NumPy); bool stays bool."""
    return _sign(input, SignBackward0)


class SignBackward0(_ZeroGrad):
    __slots__ = ()


def sgn(input):
    """sign for real tensors (PyTorch's complex-aware spelling)."""
    return _sign(input, SgnBackward0)


class SgnBackward0(_ZeroGrad):
    __slots__ = ()


def _sign(input, node_class):
    a = input._data
    if a.dtype in _LIMITED:
        raise _refusal("sign_cpu", a.dtype)
    if a.dtype.kind == "b":
        out = wrap(a.copy(), input._device)
    else:
        out = wrap((a > 0).astype(a.dtype) - (a < 0).astype(a.dtype), input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, node_class(), input)
    return out


def signbit(input):
    """True where the sign bit is set (-0.0 included)."""
    a = input._data
    xp = input._device.xp
    if _is_floating(a.dtype):
        return wrap(xp.signbit(a), input._device)
    return wrap(a < 0 if a.dtype.kind == "i" else xp.zeros(a.shape, bool), input._device)


# ---------------------------------------------------------------- rounding
def floor(input):
    return _unary_same(input, "floor_vml_cpu", input._device.xp.floor, FloorBackward0)


class FloorBackward0(_ZeroGrad):
    __slots__ = ()


def ceil(input):
    return _unary_same(input, "ceil_vml_cpu", input._device.xp.ceil, CeilBackward0)


class CeilBackward0(_ZeroGrad):
    __slots__ = ()


def trunc(input):
    """Round toward zero."""
    return _unary_same(input, "trunc_vml_cpu", input._device.xp.trunc, TruncBackward0)


fix = trunc


class TruncBackward0(_ZeroGrad):
    __slots__ = ()


def round(input, *, decimals=0):
    """Round half to even, optionally to `decimals` places (negative: tens, hundreds...)."""
    xp = input._device.xp
    if decimals == 0:
        return _unary_same(input, "round_vml_cpu", xp.rint, RoundBackward0)
    if decimals > 0:
        scale = 10.0 ** decimals

        def function(a):
            return upcast(lambda x: xp.rint(x * scale) / scale, a)
    else:
        scale = 10.0 ** -decimals

        def function(a):
            return upcast(lambda x: xp.rint(x / scale) * scale, a)
    return _unary_same(input, "round_cpu", function, RoundBackward1, allow_int=False)


class RoundBackward0(_ZeroGrad):
    __slots__ = ()


class RoundBackward1(_ZeroGrad):
    __slots__ = ()


def frac(input):
    """input - trunc(input), keeping its sign."""
    xp = input._device.xp
    return _unary_same(input, "frac_cpu", lambda a: a - xp.trunc(a), FracBackward0,
                       allow_int=False)


class FracBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


# ---------------------------------------------------------------- relu and clamp
def relu(input):
    """max(input, 0); nan stays nan."""
    a = input._data
    if a.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    # through clamp's forward: PyTorch keeps the input on ties, so relu(-0.0) is -0.0
    out = wrap(_clamp_forward(input._device.xp, a, 0, None), input._device)
    if grad_state.enabled and input._requires_grad:
        node = ReluBackward0()
        node.save_output(out)
        attach(out, node, input)
    return out


class ReluBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        if grad_state.enabled:      # create_graph: differentiable, recorded
            return (where(result <= 0, 0.0, grad),)
        return (wrap(_cleared_where(result._data <= 0, grad._data, grad._device.xp), grad._device),)


def _cleared_where(mask, values, xp):
    """`where(mask, 0.0, values)` on float arrays by clearing bits: exactly +0.0 where the
    mask holds (also over inf or nan), every other value untouched, -0.0 included. NumPy's
    `where` is ten times slower than this on a ReLU's gradient."""
    bits = xp.dtype(f"u{values.dtype.itemsize}")
    keep = xp.negative((~mask).astype(bits))           # all ones where kept, else zero
    return (values.view(bits) & keep).view(values.dtype)


def _bound(value, dtype, xp):
    """A clamp bound in the result dtype: tensors cast, numbers checked as PyTorch's
    clamp checks them (`int8.clamp(max=300)` is an overflow error, not 44)."""
    if isinstance(value, Tensor):
        return value._data.astype(dtype.np_dtype, copy=False)
    if value is None:
        return None
    return scalar_number(value, dtype)


def _clamp_arrays(input, min, max):
    """Input and bounds cast to PyTorch's result dtype for clamp."""
    a = input._data
    if _is_floating(a.dtype) and min.__class__ in _PLAIN and max.__class__ in _PLAIN:
        # the common case, kept lean: a float tensor keeps its dtype against numbers;
        # float32/float64 take finite floats within float32's range and small ints as
        # they are (NumPy rounds them as C++ does)
        if a.dtype in _WIDE and (min is None or -_FLOAT32_MAX <= min <= _FLOAT32_MAX) and \
                (max is None or -_FLOAT32_MAX <= max <= _FLOAT32_MAX) and \
                (min.__class__ is not int or -_EXACT <= min <= _EXACT) and \
                (max.__class__ is not int or -_EXACT <= max <= _EXACT):
            return a, min, max
        result = dtype_of(a)
        if min is not None:
            min = scalar_number(min, result)
        if max is not None:
            max = scalar_number(max, result)
        return a, min, max
    if not isinstance(min, Tensor) and min is not None:
        min = scalar_value(min)
    if not isinstance(max, Tensor) and max is not None:
        max = scalar_value(max)
    if a.dtype.kind == "b":
        check_uint64_promotion(min, max)
    operands = [x for x in (input, min, max) if x is not None]
    result = _dtype._result_type_many(operands)
    a = a.astype(result.np_dtype, copy=False)
    xp = input._device.xp
    if a.dtype.kind == "b":
        tensors = sum(isinstance(x, Tensor) for x in operands[1:])
        if not tensors:
            raise unsupported(_CLAMP_KERNELS[min is None, max is None], a)
        if tensors == 2:
            raise unsupported("clamp_cpu", a)
    elif a.dtype in _LIMITED:
        raise _refusal(_limited_clamp_kernel(min, max), a.dtype)
    return a, _bound(min, result, xp), _bound(max, result, xp)


def _limited_clamp_kernel(min, max):
    """The kernel PyTorch's clamp reaches for these bounds (a tensor bound alone goes
    through maximum / minimum)."""
    low, high = isinstance(min, Tensor), isinstance(max, Tensor)
    if low or high:
        if low and high:
            return "clamp_cpu"
        return "maximum_cpu" if low else "minimum_cpu"
    return _CLAMP_KERNELS[min is None, max is None]


_PLAIN = (float, int, type(None))
_FLOAT16, _FLOAT32 = _numpy.dtype("float16"), _numpy.dtype("float32")
_WIDE = (_FLOAT32, _numpy.dtype("float64"))
_FLOAT32_MAX = float(_numpy.finfo(_FLOAT32).max)
_EXACT = 1 << 24  # ints every float32 holds


def _float32(bound):
    return bound.astype(_FLOAT32) if hasattr(bound, "astype") else bound
_CLAMP_KERNELS = {(False, False): "clamp_scalar_cpu", (False, True): "clamp_min_scalar_cpu",
                  (True, False): "clamp_max_scalar_cpu"}


def _clamp_forward(xp, a, low, high):
    # The bound first: NumPy returns its second argument on ties, PyTorch keeps the
    # input (clamp(0.0, min=-0.0) is 0.0). NumPy's float16 maximum/minimum return the
    # bound on ties instead; float32 holds every float16 exactly.
    if a.dtype == _FLOAT16:
        return _clamp_forward(xp, a.astype(_FLOAT32), _float32(low), _float32(high)
                              ).astype(_FLOAT16)
    try:
        if low is not None:
            a = xp.maximum(low, a)
        if high is not None:
            a = xp.minimum(high, a)
    except ValueError:
        raise broadcast_error(a, low if high is None else high) from None
    return a


def clamp(input, min=None, max=None):
    """Bound input to [min, max] (max wins where min > max); bounds are numbers or tensors."""
    if min is None and max is None:
        raise RuntimeError("ember.clamp: At least one of 'min' or 'max' must not be None")
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        min, max = _number_bounds(min, max)
    a, low, high = _clamp_arrays(input, min, max)
    xp = input._device.xp
    out = wrap(_clamp_forward(xp, a, low, high), input._device)
    if any_requires_grad(input, min, max):
        tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
        node = ClampBackward0() if tensors else ClampBackward1()
        node.bounds = (min, max)
        node.save(input, min if isinstance(min, Tensor) else None,
                  max if isinstance(max, Tensor) else None)
        attach(out, node, input, min, max)
    return out


clip = clamp


def _number_bounds(min, max):
    """A tensor bound beside a number: PyTorch's parser reads a 0-dim tensor that needs no
    gradient as a Number, so the pair meets in clamp's Number overload; any other mix fits
    no overload."""
    bound = min if isinstance(min, Tensor) else max
    if bound._data.ndim or bound._requires_grad:
        raise TypeError("clamp: bounds mix a tensor and a number")  # door: PyTorch's words
    return (bound.item(), max) if bound is min else (min, bound.item())


class ClampBackward1(Node):
    """clamp with number bounds: the gradient passes where min <= input <= max."""
    __slots__ = ("bounds",)

    def _inputs(self):
        input, min, max = self.saved_tensors
        return (input, self.bounds[0] if min is None else min,
                self.bounds[1] if max is None else max)

    def backward(self, grad):
        input, min, max = self._inputs()
        if min is not None and max is not None:
            keep = (input >= min).logical_and(input <= max)
        elif min is not None:
            keep = input >= min
        else:
            keep = input <= max
        return where(keep, grad, 0.0), None, None


class ClampBackward0(ClampBackward1):
    """clamp with tensor bounds: each bound gets the gradient where it was chosen."""
    __slots__ = ()

    def backward(self, grad):
        input, min, max = self._inputs()
        (grad_input,) = ClampBackward1.backward(self, grad)[:1]
        grad_min = grad_max = None
        if isinstance(min, Tensor) and self.needs_input_grad(1):
            chosen = input < min
            if max is not None:
                chosen = chosen.logical_and(min < max)
            grad_min = sum_to_shape(where(chosen, grad, 0.0), min.shape)
        if isinstance(max, Tensor) and self.needs_input_grad(2):
            chosen = input > max
            if min is not None:
                chosen = chosen.logical_or(max < min)
            grad_max = sum_to_shape(where(chosen, grad, 0.0), max.shape)
        return sum_to_shape(grad_input, input.shape), grad_min, grad_max


def clamp_min(input, min):
    """max(input, min), elementwise."""
    if min is None:
        raise TypeError("clamp_min: min is None")  # the door gives PyTorch's words
    a, low, _ = _clamp_arrays(input, min, None)
    out = wrap(_clamp_forward(input._device.xp, a, low, None), input._device)
    if any_requires_grad(input, min):
        node = ClampMinBackward1() if isinstance(min, Tensor) else ClampMinBackward0()
        node.bound = min
        node.save(input)
        attach(out, node, input, min)
    return out


class ClampMinBackward0(Node):
    __slots__ = ("bound",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        min = self.bound
        grad_input = sum_to_shape(where(input >= min, grad, 0.0), input.shape)
        grad_min = None
        if self.needs_input_grad(1):
            grad_min = sum_to_shape(where(input < min, grad, 0.0), min.shape)
        return grad_input, grad_min


class ClampMinBackward1(ClampMinBackward0):
    __slots__ = ()


def clamp_max(input, max):
    """min(input, max), elementwise."""
    if max is None:
        raise TypeError("clamp_max: max is None")  # the door gives PyTorch's words
    a, _, high = _clamp_arrays(input, None, max)
    out = wrap(_clamp_forward(input._device.xp, a, None, high), input._device)
    if any_requires_grad(input, max):
        node = ClampMaxBackward1() if isinstance(max, Tensor) else ClampMaxBackward0()
        node.bound = max
        node.save(input)
        attach(out, node, input, max)
    return out


class ClampMaxBackward0(Node):
    __slots__ = ("bound",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        max = self.bound
        grad_input = sum_to_shape(where(input <= max, grad, 0.0), input.shape)
        grad_max = None
        if self.needs_input_grad(1):
            grad_max = sum_to_shape(where(input > max, grad, 0.0), max.shape)
        return grad_input, grad_max


class ClampMaxBackward1(ClampMaxBackward0):
    __slots__ = ()


# ---------------------------------------------------------------- maximum / minimum
def _extremum(input, other, name, function, node_class):
    require_tensor(other, name)
    a, b, device = binary(input, other, name)
    if a.dtype in _LIMITED:
        raise _refusal(f"{name}_cpu", a.dtype)
    try:
        out = wrap(function(a, b), device)
    except ValueError:
        raise broadcast_error(a, b) from None
    if any_requires_grad(input, other):
        node = node_class()
        node.save(input, other)
        attach(out, node, input, other)
    return out


def maximum(input, other):
    """Elementwise max; nan wins."""
    return _extremum(input, other, "maximum", input._device.xp.maximum, MaximumBackward0)


class MaximumBackward0(Node):
    """Equal inputs share the gradient half and half, as in PyTorch."""
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        shared = where(input == other, grad / 2, grad)
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(where(input < other, 0.0, shared), input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(where(input > other, 0.0, shared), other.shape)
        return grad_a, grad_b


def minimum(input, other):
    """Elementwise min; nan wins."""
    return _extremum(input, other, "minimum", input._device.xp.minimum, MinimumBackward0)


class MinimumBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        shared = where(input == other, grad / 2, grad)
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(where(input > other, 0.0, shared), input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(where(input < other, 0.0, shared), other.shape)
        return grad_a, grad_b


def fmax(input, other):
    """Elementwise max ignoring nan (nan only where both are nan)."""
    return _extremum(input, other, "fmax", input._device.xp.fmax, FmaxBackward0)


class FmaxBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        to_input = (input >= other).logical_or(other.isnan())
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(where(to_input, grad, 0.0), input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(where(to_input, 0.0, grad), other.shape)
        return grad_a, grad_b


def fmin(input, other):
    """Elementwise min ignoring nan."""
    return _extremum(input, other, "fmin", input._device.xp.fmin, FminBackward0)


class FminBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        to_input = (input <= other).logical_or(other.isnan())
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(where(to_input, grad, 0.0), input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(where(to_input, 0.0, grad), other.shape)
        return grad_a, grad_b


# ---------------------------------------------------------------- where
_UINT8 = _numpy.dtype("uint8")
_warned_uint8 = []


def _uint8_condition(c):
    """PyTorch still takes a uint8 condition (nonzero is True), warning once per process."""
    if not _warned_uint8:
        _warned_uint8.append(True)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and "
                      "will be removed in a future version of PyTorch. Use a boolean condition "
                      "instead.", UserWarning, stacklevel=3)
    return c != 0


def where(condition, input=None, other=None):
    """input where condition holds, else other; `where(condition)` lists the True indices."""
    if input is None and other is None:
        device = condition._device
        return tuple(wrap(i.astype(_dtype.int64.np_dtype, copy=False), device)
                     for i in device.xp.nonzero(condition._data))
    c = condition._data
    if c.dtype == _UINT8:
        c = _uint8_condition(c)
    elif c.dtype.kind != "b":
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_errors._scalar_type_name(dtype_of(c))}")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and \
            input._data.dtype == other._data.dtype:
        device = input._device
        a, b = input._data, other._data
        result = a.dtype
    elif other.__class__ is float and input.__class__ is Tensor and input._data.dtype in _WIDE:
        # the common `where(mask, x, 0.0)`, kept lean: float32/float64 keep their dtype
        device = input._device
        a, result = input._data, input._data.dtype
        b = scalar_number(other, dtype_of(a))
    else:
        a, b, result = _where_operands(input, other)
        device = next((x._device for x in (input, other) if isinstance(x, Tensor)),
                      condition._device)
    xp = device.xp
    try:
        chosen = xp.where(c, a, b)
    except ValueError:
        raise _where_broadcast_error(c, a, b) from None
    out = wrap(chosen.astype(result, copy=False), device)
    if any_requires_grad(input, other):
        node = WhereBackward0()
        node.shapes = (shape_of(input), shape_of(other))
        node.save(condition)
        attach(out, node, condition, input, other)
    return out


def _where_operands(input, other):
    """Both branches of `where` in PyTorch's result dtype, numbers converted as it does:
    checked ('value cannot be converted ... without overflow') except into float16 and
    bfloat16 (`where(m, half, 70000)` holds inf); an int from 2**63 up refused beside
    a bool or another int."""
    input_is_tensor, other_is_tensor = isinstance(input, Tensor), isinstance(other, Tensor)
    if not input_is_tensor:
        input = scalar_value(input)
    if not other_is_tensor:
        other = scalar_value(other)
    if not input_is_tensor and not other_is_tensor:
        _check_uint64_pair(input, other)
    elif not input_is_tensor or not other_is_tensor:
        tensor = input if input_is_tensor else other
        if tensor._data.dtype.kind == "b":
            number = other if input_is_tensor else input
            if input_is_tensor:
                check_uint64_promotion(number)
            else:
                check_uint64_promotion(number, other="Bool")
    result = _dtype._result_type_many((input, other))
    return _where_branch(input, result), _where_branch(other, result), result.np_dtype


def _where_branch(value, result):
    if isinstance(value, Tensor):
        return value._data.astype(result.np_dtype, copy=False)
    if result.is_floating_point and result.itemsize == 2:
        # unchecked, through float32 (as c10 builds a Half from a float); a NumPy scalar,
        # which any device takes
        with _numpy.errstate(over="ignore"):
            return _numpy.asarray(_numpy.float32(value)).astype(result.np_dtype)[()]
    return scalar_to(value, result)


def _check_uint64_pair(first, second):
    """PyTorch refuses to promote a uint64 number (2**63 up) with another int or bool."""
    names = []
    for value in (first, second):
        if value.__class__ is bool:
            names.append("Bool")
        elif value.__class__ is int:
            names.append("UInt64" if value > 0x7FFFFFFFFFFFFFFF else "Long")
        else:
            return
    if "UInt64" in names and names != ["UInt64", "UInt64"]:
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {names[0]} and {names[1]}")


def _where_broadcast_error(c, a, b):
    shapes = [x.shape for x in (c, a, b) if hasattr(x, "shape")]
    for i, first in enumerate(shapes):
        for second in shapes[i + 1:]:
            if _errors.broadcast_mismatch(first, second):
                return broadcast_error(_Shape(first), _Shape(second))
    return RuntimeError("where: shapes cannot be broadcast together")


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape


class WhereBackward0(Node):
    __slots__ = ("shapes",)

    def backward(self, grad):
        (condition,) = self.saved_tensors
        shape_a, shape_b = self.shapes
        grad_a = grad_b = None
        if self.needs_input_grad(1):
            grad_a = sum_to_shape(where(condition, grad, 0.0), shape_a)
        if self.needs_input_grad(2):
            grad_b = sum_to_shape(where(condition, 0.0, grad), shape_b)
        return None, grad_a, grad_b


# ---------------------------------------------------------------- nan_to_num
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan, +inf and -inf replaced (by default with 0 and the dtype's extremes)."""
    a = input._data
    xp = input._device.xp
    if not _is_floating(a.dtype):
        out = wrap(a.copy(), input._device)
    else:
        info = _dtype.finfo(dtype_of(a))
        high = info.max if posinf is None else posinf
        low = info.min if neginf is None else neginf
        replaced = xp.where(a != a, nan, a)
        replaced = xp.where(replaced == xp.inf, high, replaced)
        replaced = xp.where(replaced == -xp.inf, low, replaced)
        out = wrap(replaced.astype(a.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = NanToNumBackward0()
        node.save(input)
        attach(out, node, input)
    return out


class NanToNumBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * input.isfinite(),)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """For integers and bools PyTorch copies the tensor onto itself, with no overlap check."""
    if _is_floating(input._data.dtype):
        return inplace(input, nan_to_num, nan, posinf, neginf)
    return inplace_overlapping(input, nan_to_num, nan, posinf, neginf)


# ---------------------------------------------------------------- fill_ / zero_
def _filled(input, value):
    """A tensor like `input` holding `value` everywhere (cast as PyTorch's fill_ casts)."""
    a = input._data
    xp = input._device.xp
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        scalar = _cast(value._data, a.dtype)
    else:
        scalar = scalar_number(scalar_value(value), dtype_of(a))
    filled = xp.empty(a.shape, a.dtype)
    filled[...] = scalar
    out = wrap(filled, input._device)
    if any_requires_grad(input, value):
        node = FillBackward3() if isinstance(value, Tensor) else FillBackward2()
        attach(out, node, input, value)
    return out


class FillBackward2(Node):
    __slots__ = ()

    def backward(self, grad):
        return zeros_like(grad), None


class FillBackward3(Node):
    __slots__ = ()

    def backward(self, grad):
        return zeros_like(grad), grad.sum()


def fill_(input, value):
    """Set every element to `value` (a number or a 0-dim tensor), in place; PyTorch lets
    it (and zero_) write into an expanded tensor, where every element gets one value."""
    return inplace_overlapping(input, _filled, value)


def _zeroed(input):
    out = wrap(input._device.xp.zeros_like(input._data), input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, ZeroBackward0(), input)
    return out


class ZeroBackward0(_ZeroGrad):
    __slots__ = ()


def zero_(input):
    """Set every element to zero, in place."""
    if input._extras is None and not (grad_state.enabled and input._requires_grad):
        # Nothing to record or check (what `optimizer.zero_grad` and `w.grad.zero_()`
        # meet): fill the memory directly, as the general path would end up doing.
        input._data.fill(0)
        input._storage.version += 1
        return input
    return inplace_overlapping(input, _zeroed)


def _inplace(op):
    def method(input, *args, **kwargs):
        return inplace(input, op, *args, **kwargs)
    method.__name__ = op.__name__ + "_"
    method.__doc__ = f"In-place {op.__name__}; see `_common.inplace` for the rules."
    return method


abs_, sign_, sgn_, floor_, ceil_, round_, trunc_, frac_, relu_ = [
    _inplace(op) for op in (abs, sign, sgn, floor, ceil, round, trunc, frac, relu)]
absolute_, fix_ = abs_, trunc_


def clamp_(input, min=None, max=None):
    """In-place clamp; a float number bound on an integer tensor is refused before any
    bound is converted, with the C++ type name PyTorch's kernel prints."""
    if not _is_floating(input._data.dtype):
        _check_number_bounds_cast(input, min, max)
    return inplace(input, clamp, min, max)


def clamp_min_(input, min):
    if not _is_floating(input._data.dtype):
        _check_number_bounds_cast(input, min, None)
    return inplace(input, clamp_min, min)


def clamp_max_(input, max):
    if not _is_floating(input._data.dtype):
        _check_number_bounds_cast(input, None, max)
    return inplace(input, clamp_max, max)


clip_ = clamp_


def _check_number_bounds_cast(input, min, max):
    if isinstance(min, Tensor) or isinstance(max, Tensor) or min is None and max is None:
        return  # tensor bounds: the common in-place check (and its ScalarType names)
    bounds = [scalar_value(x) for x in (min, max) if x is not None]
    if input._data.dtype.kind == "b":
        check_uint64_promotion(*bounds)
    result = _dtype._result_type_many([input] + bounds)
    target = dtype_of(input._data)
    if not _dtype.can_cast(result, target):
        raise RuntimeError(f"result type {_errors._scalar_type_name(result)} can't be cast to "
                           f"the desired output type {_CPP_NAMES[target.name]}")


_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int"}
