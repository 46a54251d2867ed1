"""Elementwise arithmetic: add, sub, mul, div (and its rounding modes), remainders,
powers, neg/reciprocal/square, the fused addcmul/addcdiv/lerp, and their gradients.

Each op is its public function followed by its backward node, named as PyTorch
names it. Binary ops go through `binary()` for PyTorch's type promotion;
backward formulas use ember ops so they can be recorded for higher-order
gradients, and `sum_to_shape` undoes broadcasting.

The other elementwise families live beside this module (pointwise_math,
pointwise_select, pointwise_logic) and are re-exported from here, so that
`ember.ops.pointwise` is the one door Tensor methods and `ember.xxx` go through.
"""
from .._dtype import is_floating as _is_floating
from .. import _backend, _dtype, _parallel
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import (Tensor, any_requires_grad, attach, binary, float_operand, grad_state,
                      inplace, make_tensor, plain, scalar_value, sum_to_shape, wrap)
from ._elementwise import (DEFAULTS, NotImplementedBackward, broadcast_error, shape_of,
                           unsupported, upcast)
from . import (pointwise_binary, pointwise_logic, pointwise_math, pointwise_power,
               pointwise_select)
from .pointwise_binary import *  # noqa: F401,F403
from .pointwise_logic import *  # noqa: F401,F403
from .pointwise_math import *  # noqa: F401,F403
from .pointwise_power import *  # noqa: F401,F403
from .pointwise_select import *  # noqa: F401,F403
# Tensor methods and operators whose names torch does not export at the top level.
from .pointwise_binary import addcdiv_, addcmul_, atan2_, copysign_, hypot_, lerp_  # noqa: F401
from .pointwise_logic import (_invert, bitwise_and_, bitwise_left_shift_,  # noqa: F401
                              bitwise_not_, bitwise_or_, bitwise_right_shift_, bitwise_xor_,
                              eq_, ge_, gt_, le_, logical_and_, logical_not_, logical_or_,
                              logical_xor_, lt_, ne_, rlshift, rrshift)
from .pointwise_math import erfinv_  # noqa: F401
from .pointwise_power import float_power_, pow_, rpow  # noqa: F401
from .pointwise_select import sgn_, sign_  # noqa: F401

__all__ = ["add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide",
           "floor_divide", "remainder", "fmod", "neg", "negative", "positive", "reciprocal",
           "neg_", "negative_", "reciprocal_"]
__all__ += (pointwise_math.__all__ + pointwise_binary.__all__ + pointwise_power.__all__
            + pointwise_select.__all__ + pointwise_logic.__all__)

_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
             "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
_BOOL_SUB_BOTH = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                  "the `^` or `logical_xor()` operator instead.")


_numpy = _backend.numpy
_LONGDOUBLE = _numpy.dtype(_numpy.longdouble)
_FLOAT32 = _numpy.float32
_PARALLEL = _parallel.THRESHOLD  # elements from which a ufunc runs on all threads
_add, _subtract, _multiply = _numpy.add, _numpy.subtract, _numpy.multiply
_FUSED_LIMIT = 1 << 16  # elements; as pointwise_math's float64 path for small tensors
# float16/bfloat16 keep the plain formula: PyTorch's half kernel matches neither form.
_WIDER = {_dtype.float32.np_dtype: _dtype.float64.np_dtype,
          _dtype.float64.np_dtype: _LONGDOUBLE}


_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded


def _reduced_by_scalar(function, a, b):
    """float16/bfloat16 times or over a number, as PyTorch's CPU kernels compute it: in
    float32 with the number itself, not the number rounded to a's dtype first (so
    `half(0) * 70000` is 0, not 0 * inf = nan)."""
    return function(a.astype(_FLOAT32), _FLOAT32(b)).astype(a.dtype)


def _scaled(b, alpha, dtype, xp):
    """alpha * other in the result dtype, with PyTorch's checks on alpha's type."""
    kind = dtype.kind
    if kind in "iub" and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if alpha.__class__ is bool and kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if kind == "b":
        return xp.logical_and(b, bool(alpha))
    if kind in "iu":
        # PyTorch casts alpha to the result dtype, wrapping out-of-range values.
        alpha = xp.asarray(alpha & 0xFFFFFFFFFFFFFFFF).astype(dtype)[()]
    return b * alpha


def _fused_add(a, b, alpha, xp, negate=False):
    """a + alpha * b rounded once, as PyTorch's CPU kernel computes it (a fused multiply-add).

    Rounding alpha * b to the tensor's precision first is 1 ulp off for ~10% of float32
    elements, and optimizers apply `param.add_(grad, alpha=-lr)` every step. The
    product and sum are therefore formed in a wider type and rounded once.
    """
    if alpha.__class__ is bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if negate:
        alpha = -alpha
    wide = _WIDER[a.dtype]
    if wide is not _LONGDOUBLE:
        # PyTorch's "opmath" type for float32 is float32: alpha is rounded to it
        # (a Python-number `other` keeps its double value).
        alpha = float(_FLOAT32(alpha))
    if xp is not _numpy or a.size > _FUSED_LIMIT:
        # Large tensors keep NumPy's speed (at most 1 ulp from PyTorch); the GPU has no
        # extended precision.
        if xp is _numpy and a.size >= _PARALLEL:
            return _parallel.call(_add, a, _parallel.call(_multiply, b, alpha))
        return a + b * alpha
    result = xp.asarray(a, dtype=wide) + xp.asarray(b, dtype=wide) * alpha
    return result.astype(a.dtype)


_FAST_IN_PLACE = {_dtype.float32.np_dtype, _dtype.float64.np_dtype}
_EXACT_INT = 1 << 53


def _write_in_place(input, other, ufunc):
    """The common case of `x += y` written straight into x's memory (one NumPy call).

    Only where nothing is recorded and nothing can differ from `_common.inplace`:
    float32/float64 `input` without aliasing, a Python number or a same-dtype tensor
    on the same device. Returns False to fall back to the general mechanism (which
    also raises PyTorch's errors).
    """
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        return False
    data = input._data
    if data.dtype not in _FAST_IN_PLACE or input._extras is not None or 0 in data.strides:
        return False
    kind = other.__class__
    if kind is float or kind is int and -_EXACT_INT <= other <= _EXACT_INT:
        operand = other
    elif (kind is Tensor and other._data.dtype == data.dtype and other._device is input._device
          and other._storage is not input._storage):
        operand = other._data
    else:
        return False
    try:
        getattr(input._device.xp, ufunc)(data, operand, out=data)
    except ValueError:  # not broadcastable to input's shape: nothing was written
        return False
    input._storage.version += 1
    return True


# ---------------------------------------------------------------- add / sub
def add(input, other, *, alpha=1):
    """input + alpha * other, broadcast, with PyTorch's type promotion."""
    a, b, device = binary(input, other, "add")
    if a.dtype in _LIMITED:
        raise _refusal("add_stub", a.dtype)
    try:
        if alpha.__class__ is int and alpha == 1:
            result = a + b if a.size < _PARALLEL else _parallel.call(_add, a, b)
        elif a.dtype in _WIDER:
            result = _fused_add(a, b, alpha, device.xp)
        else:
            result = a + _scaled(b, alpha, a.dtype, device.xp)
    except ValueError:
        raise broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = AddBackward0()
        node.alpha = alpha
        node.shapes = (a.shape, shape_of(other))
        attach(out_t, node, input, other)
    return out_t


class AddBackward0(Node):
    __slots__ = ("alpha", "shapes")

    def backward(self, grad):
        shape_a, shape_b = self.shapes
        (input_node, _), (other_node, _) = self.next_functions
        grad_a = sum_to_shape(grad, shape_a) if input_node is not None else None
        grad_b = None
        if other_node is not None:
            grad_b = grad if self.alpha == 1 else grad * self.alpha
            grad_b = sum_to_shape(grad_b, shape_b)
        return grad_a, grad_b


def add_(input, other, *, alpha=1):
    """In-place add; see `_common.inplace` for the rules it enforces."""
    if alpha.__class__ is int and alpha == 1 and _write_in_place(input, other, "add"):
        return input
    return inplace(input, add, other, alpha=alpha)


def _check_bool_sub(input, other):
    """PyTorch refuses `-` whenever a bool tensor or a Python bool takes part."""
    input_bool = input._data.dtype.kind == "b"
    other_bool = other.__class__ is bool or isinstance(other, Tensor) and \
        other._data.dtype.kind == "b"
    if input_bool or other_bool:
        if not isinstance(other, Tensor):
            scalar_value(other)  # an unconvertible number fails first, as in PyTorch
        both = input_bool and other_bool  # a Python bool counts as a bool tensor
        raise RuntimeError(_BOOL_SUB_BOTH if both else _BOOL_SUB)


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    _check_bool_sub(input, other)
    a, b, device = binary(input, other, "sub")
    if a.dtype in _LIMITED:
        raise _refusal("add_stub", a.dtype)
    try:
        if alpha.__class__ is int and alpha == 1:
            result = a - b if a.size < _PARALLEL else _parallel.call(_subtract, a, b)
        elif a.dtype in _WIDER:
            result = _fused_add(a, b, alpha, device.xp, negate=True)
        else:
            result = a - _scaled(b, alpha, a.dtype, device.xp)
    except ValueError:
        raise broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = SubBackward0()
        node.alpha = alpha
        node.shapes = (a.shape, shape_of(other))
        attach(out_t, node, input, other)
    return out_t


subtract = sub


class SubBackward0(Node):
    __slots__ = ("alpha", "shapes")

    def backward(self, grad):
        shape_a, shape_b = self.shapes
        (input_node, _), (other_node, _) = self.next_functions
        grad_a = sum_to_shape(grad, shape_a) if input_node is not None else None
        grad_b = None
        if other_node is not None:
            grad_b = sum_to_shape(-grad if self.alpha == 1 else grad * -self.alpha, shape_b)
        return grad_a, grad_b


def sub_(input, other, *, alpha=1):
    if alpha.__class__ is int and alpha == 1 and _write_in_place(input, other, "subtract"):
        return input
    return inplace(input, sub, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    """other - alpha * input (what `2 - x` calls)."""
    _check_bool_sub(input, other)
    a, b, device = binary(input, other, "rsub")
    if a.dtype in _LIMITED:
        raise _refusal("add_stub", a.dtype)
    try:
        result = b - (a if alpha.__class__ is int and alpha == 1
                      else _scaled(a, alpha, a.dtype, device.xp))
    except ValueError:
        raise broadcast_error(b, a) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = RsubBackward0() if isinstance(other, Tensor) else RsubBackward1()
        node.alpha = alpha
        node.shapes = (a.shape, shape_of(other))
        attach(out_t, node, input, other)
    return out_t


class RsubBackward0(Node):
    """rsub(tensor, tensor); RsubBackward1 is rsub(tensor, number), as in `2 - x`."""
    __slots__ = ("alpha", "shapes")

    def backward(self, grad):
        shape_a, shape_b = self.shapes
        grad_a = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(-grad if self.alpha == 1 else grad * -self.alpha, shape_a)
        grad_b = sum_to_shape(grad, shape_b) if self.needs_input_grad(1) else None
        return grad_a, grad_b


class RsubBackward1(RsubBackward0):
    __slots__ = ()


# ---------------------------------------------------------------- mul / div
def mul(input, other):
    """input * other, broadcast."""
    a, b, device = binary(input, other, "mul")
    try:
        if a.dtype in _REDUCED and other.__class__ is not Tensor and b.__class__ is not bool:
            result = _reduced_by_scalar(_numpy.multiply, a, b)
        elif a.size < _PARALLEL:
            result = a * b
        else:
            result = _parallel.call(_multiply, a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = MulBackward0()
        node.shapes = (a.shape, shape_of(other))
        if isinstance(other, Tensor):
            node.other_scalar = None
            node.save(input, other)
        else:
            node.other_scalar = b
            node.save(None, None)
        attach(out_t, node, input, other)
    return out_t


multiply = mul


class MulBackward0(Node):
    __slots__ = ("shapes", "other_scalar")

    def backward(self, grad):
        input, other = self.saved_tensors
        shape_a, shape_b = self.shapes
        if other is None:
            scalar = self.other_scalar
            if scalar.__class__ is float and plain(grad):  # grad * scalar, one NumPy call
                g = grad._data
                g = g * scalar if g.size < _PARALLEL else _parallel.call(_multiply, g, scalar)
                return make_tensor(g, grad._device), None
            return grad * scalar, None
        grad_a = sum_to_shape(grad * other, shape_a) if self.needs_input_grad(0) else None
        grad_b = sum_to_shape(grad * input, shape_b) if self.needs_input_grad(1) else None
        return grad_a, grad_b


def mul_(input, other):
    if _write_in_place(input, other, "multiply"):
        return input
    return inplace(input, mul, other)


# div's rounding_mode when the caller passes none: PyTorch records DivBackward2 (div.Tensor_mode)
# whenever rounding_mode is passed, even as None, and DivBackward0 only when it is left out.
_NO_MODE = object()


def div(input, other, *, rounding_mode=_NO_MODE):
    """input / other: true division (integers give floats) unless a rounding mode is given."""
    if rounding_mode is not _NO_MODE and rounding_mode is not None:
        return _div_rounded(input, other, rounding_mode)
    a, b, device = binary(input, other, "div", floating=True)
    if a.dtype.kind in "iub":
        a = a.astype(DEFAULTS.float_dtype.np_dtype)
        if isinstance(other, Tensor):
            b = b.astype(a.dtype)
    try:
        if a.dtype in _REDUCED and not isinstance(other, Tensor):
            result = _reduced_by_scalar(_numpy.true_divide, a, b)
        elif a.size < _PARALLEL:
            result = a / b
        else:
            result = _parallel.call(_numpy.true_divide, a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    out_t = wrap(result, device)
    if grad_state.enabled and (input._requires_grad or isinstance(other, Tensor)
                               and other._requires_grad):
        node = DivBackward0() if rounding_mode is _NO_MODE else DivBackward2()
        node.rounded = False
        node.shapes = (a.shape, shape_of(other))
        if isinstance(other, Tensor):
            node.other_scalar = None
            node.save(input, other)
        else:
            node.other_scalar = b
            node.save(None, None)
        attach(out_t, node, input, other)
    return out_t


divide = true_divide = div


class DivBackward0(Node):
    __slots__ = ("shapes", "other_scalar", "rounded")

    def backward(self, grad):
        input, other = self.saved_tensors
        shape_a, shape_b = self.shapes
        if other is None:
            return grad / self.other_scalar, None
        grad_a = sum_to_shape(grad / other, shape_a) if self.needs_input_grad(0) else None
        grad_b = None
        if self.needs_input_grad(1):
            # -grad * ((input / other) / other): PyTorch's order, each rounding visible
            grad_b = sum_to_shape(-grad * (input / other / other), shape_b)
        return grad_a, grad_b


def div_(input, other, *, rounding_mode=_NO_MODE):
    if rounding_mode is _NO_MODE:
        if _write_in_place(input, other, "true_divide"):
            return input
        return inplace(input, div, other)
    return inplace(input, div, other, rounding_mode=rounding_mode)


def rdiv(input, other):
    """other / input (what `2 / x` calls): PyTorch records reciprocal then mul."""
    return mul(reciprocal(input), other)


# ---------------------------------------------------------------- rounded division, remainders
def _check_divisor(xp, a, b):
    """Integer division by zero is an error in PyTorch, not a warning, once the kernel runs:
    an empty operand (so an empty result, or a broadcast error raised next) divides nothing,
    and operands that do not broadcast are refused as such first."""
    if not a.size or not getattr(b, "size", 1):
        return
    if (b == 0).any() if hasattr(b, "any") else b == 0:
        if hasattr(b, "shape"):
            xp.broadcast_shapes(a.shape, b.shape)   # ValueError: the caller's broadcast error
        raise RuntimeError("ZeroDivisionError")


def _floor_divide(xp, a, b):
    return xp.floor_divide(a, b)


def _trunc_divide(xp, a, b):
    if _is_floating(a.dtype) or getattr(b, "dtype", None) is not None and _is_floating(b.dtype):
        return xp.trunc(a / b)
    quotient = xp.floor_divide(a, b)
    inexact = (a - quotient * b) != 0
    return quotient + (inexact & ((a < 0) != (b < 0)))


_ROUNDED = {"trunc": (_trunc_divide, "div_trunc_cpu"), "floor": (_floor_divide, "div_floor_cpu")}


def _divide_arrays(input, other, function, kernel, swap=False, half_number=False):
    """`function(xp, a, b)` on promoted operands, with PyTorch's dtype and zero checks.

    float16/bfloat16 compute in float32; a number meets them as a float32 (floor
    division), or rounded to the tensor's dtype first with `half_number` (remainder and
    fmod, whose kernels see the number as a tensor of the common dtype).
    """
    a, b, device = binary(input, other, kernel)
    if a.dtype in _LIMITED:
        raise _refusal(kernel, a.dtype)
    if half_number and a.dtype in _REDUCED and b.__class__ in _NUMBERS:
        b = a.dtype.type(b)
    if swap:
        a, b = (device.xp.asarray(b).astype(a.dtype), a)
    kind = a.dtype.kind
    if kind == "b":
        raise unsupported(kernel, a)
    xp = device.xp
    try:
        if _CATEGORY[a.dtype] != _FLOATING:
            _check_divisor(xp, a, b)
            return wrap(function(xp, a, b), device)
        return wrap(upcast(lambda x, y: function(xp, x, y), a, b), device)
    except ValueError:
        raise broadcast_error(a, b) from None


_NUMBERS = (int, float)
_CATEGORY = _dtype.CATEGORY  # shared: bfloat16 joins when ml_dtypes loads
_FLOATING = _dtype.FLOATING


def _div_rounded(input, other, rounding_mode):
    if rounding_mode not in _ROUNDED:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    function, kernel = _ROUNDED[rounding_mode]
    out = _divide_arrays(input, other, function, kernel)
    if any_requires_grad(input, other):
        node = DivBackward2()
        node.rounded = True
        node.shapes = (input._data.shape, shape_of(other))
        attach(out, node, input, other)
    return out


class DivBackward2(Node):
    """Division given a rounding_mode. Rounded, it is piecewise constant: zero gradients;
    given as None, it is true division and differentiates as DivBackward0."""
    __slots__ = ("shapes", "other_scalar", "rounded")

    def backward(self, grad):
        if not self.rounded:
            return DivBackward0.backward(self, grad)
        xp = grad._device.xp
        return tuple(wrap(xp.zeros(shape, grad._data.dtype), grad._device)
                     for shape in self.shapes)


def floor_divide(input, other):
    """input // other, rounding toward -inf. PyTorch defines no gradient for it."""
    out = _divide_arrays(input, other, _floor_divide, "div_floor_cpu")
    if any_requires_grad(input, other):
        attach(out, NotImplementedBackward("floor_divide"), input, other)
    return out


def floor_divide_(input, other):
    return inplace(input, floor_divide, other)


def rfloordiv(input, other):
    """other // input, for `2 // x`."""
    out = _divide_arrays(input, other, _floor_divide, "div_floor_cpu", swap=True)
    if any_requires_grad(input):
        attach(out, NotImplementedBackward("floor_divide"), input)
    return out


def _remainder(xp, a, b):
    """PyTorch's floating remainder is fmod with the sign fixed (`mod + b` where the signs
    differ), so an exact multiple keeps fmod's zero, the dividend's sign (`-4. % 2` is
    -0.0); NumPy's is the same but for that zero, which takes the divisor's sign."""
    out = xp.asarray(xp.remainder(a, b))  # a 0-dim input gives a NumPy scalar
    if _is_floating(a.dtype):
        nonzero = xp.count_nonzero(out)
        if not nonzero and out.shape == xp.shape(a):
            xp.copysign(out, a, out=out)
        elif nonzero != out.size:
            xp.copysign(out, a, out=out, where=out == 0)
    return out


def remainder(input, other):
    """Python's modulus: the result takes the sign of the divisor."""
    out = _divide_arrays(input, other, _remainder, "remainder_cpu", half_number=True)
    if any_requires_grad(input, other):
        node = RemainderBackward1() if isinstance(other, Tensor) else RemainderBackward0()
        node.save(input, other if isinstance(other, Tensor) else None)
        attach(out, node, input, other)
    return out


class _RemainderGradient(Node):
    """input - q * other with q = input / other rounded (a step function: no gradient)."""

    __slots__ = ()
    rounding_mode = "floor"

    def backward(self, grad):
        input, other = self.saved_tensors
        grad_a = sum_to_shape(grad, input.shape) if self.needs_input_grad(0) else None
        grad_b = None
        if other is not None and self.needs_input_grad(1):
            quotient = input.div(other, rounding_mode=self.rounding_mode)
            grad_b = sum_to_shape(-grad * quotient, other.shape)
        return grad_a, grad_b


class RemainderBackward0(_RemainderGradient):
    __slots__ = ()


class RemainderBackward1(_RemainderGradient):
    __slots__ = ()


def remainder_(input, other):
    return inplace(input, remainder, other)


def rremainder(input, other):
    """other % input, for `2 % x` (PyTorch defines no gradient for it)."""
    out = _divide_arrays(input, other, _remainder, "remainder_cpu", swap=True,
                         half_number=True)
    if any_requires_grad(input):
        attach(out, NotImplementedBackward("remainder"), input)
    return out


def _fmod(xp, a, b):
    return xp.fmod(a, b)


def fmod(input, other):
    """C's fmod: the result takes the sign of the dividend."""
    out = _divide_arrays(input, other, _fmod, "fmod_cpu", half_number=True)
    if any_requires_grad(input, other):
        node = FmodBackward1() if isinstance(other, Tensor) else FmodBackward0()
        node.save(input, other if isinstance(other, Tensor) else None)
        attach(out, node, input, other)
    return out


class FmodBackward0(_RemainderGradient):
    __slots__ = ()
    rounding_mode = "trunc"


class FmodBackward1(FmodBackward0):
    __slots__ = ()


def fmod_(input, other):
    return inplace(input, fmod, other)


# ---------------------------------------------------------------- neg / positive / reciprocal
def neg(input):
    """-input (integers wrap, as in PyTorch)."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    if input._data.dtype in _LIMITED:
        raise _refusal("neg_cpu", input._data.dtype)
    out_t = wrap(-input._data, input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out_t, NegBackward0(), input)
    return out_t


negative = neg


class NegBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def neg_(input):
    return inplace(input, neg)


negative_ = neg_


def positive(input):
    """`+input`: the tensor itself (PyTorch returns the same object)."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def reciprocal(input):
    """1 / input; integers promote to the default float dtype."""
    out = wrap(1 / float_operand(input), input._device)
    if grad_state.enabled and input._requires_grad:
        node = ReciprocalBackward0()
        node.save_output(out)
        attach(out, node, input)
    return out


class ReciprocalBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-grad * (result * result),)


def reciprocal_(input):
    return inplace(input, reciprocal)
