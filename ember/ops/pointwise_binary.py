"""Binary float functions (atan2, hypot, logaddexp, xlogy, copysign) and the fused
three-operand ops (addcmul, addcdiv, lerp), with their gradients.

Integer operands promote to the default float dtype where PyTorch promotes them
and are refused (with PyTorch's NotImplementedError) where it refuses them.
"""
from .._dtype import is_floating as _is_floating
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, any_requires_grad, attach, binary, inplace, sum_to_shape, wrap
from ._elementwise import (broadcast_error, float_binary, require_tensor, shape_of, unsupported,
                           upcast)
from .pointwise_math import _FLOAT32, _FLOAT64, _PRECISE_LIMIT
from .pointwise_select import where

__all__ = ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "addcmul",
           "addcdiv", "lerp", "xlogy_"]


# ---------------------------------------------------------------- binary float functions
def _float_pair(input, other, name, kernel=None):
    """Promoted float operands for a binary math function; ints refused when PyTorch does."""
    if kernel is not None and input._data.dtype.kind in "iub" and other._data.dtype.kind in "iub":
        raise unsupported(kernel, binary(input, other, name)[0])
    return float_binary(input, other, name)


def _compute(function, a, b):
    try:
        return upcast(function, a, b)
    except ValueError:
        raise broadcast_error(a, b) from None


def atan2(input, other):
    """The angle of the point (other, input): atan(input / other) in the right quadrant."""
    require_tensor(other, "atan2")
    a, b, device = _float_pair(input, other, "atan2")
    out = wrap(_compute(device.xp.arctan2, a, b), device)
    if any_requires_grad(input, other):
        node = Atan2Backward0()
        node.save(input, other)
        attach(out, node, input, other)
    return out


arctan2 = atan2


class Atan2Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        # PyTorch's order of operations (each rounding shows in float32):
        # grad * other * r and grad * -input * r, r = 1 / (input^2 + other^2), and r is
        # filled with 0 where that sum is 0 (at the origin the gradient is 0, not NaN)
        input, other = self.saved_tensors
        denominator = input * input + other * other
        recip = denominator.reciprocal().masked_fill(denominator == 0, 0)
        grad_a = sum_to_shape(grad * other * recip, input.shape) \
            if self.needs_input_grad(0) else None
        grad_b = sum_to_shape(grad * -input * recip, other.shape) \
            if self.needs_input_grad(1) else None
        return grad_a, grad_b


def hypot(input, other):
    """sqrt(input**2 + other**2) without overflow."""
    require_tensor(other, "hypot")
    a, b, device = _float_pair(input, other, "hypot", "hypot_cpu")
    out = wrap(_compute(device.xp.hypot, a, b), device)
    if any_requires_grad(input, other):
        node = HypotBackward0()
        node.save(input, other)
        node.save_output(out)
        attach(out, node, input, other)
    return out


class HypotBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other, result = self.saved_tensors   # grad * x / result, in that order
        grad_a = sum_to_shape(grad * input / result, input.shape) \
            if self.needs_input_grad(0) else None
        grad_b = sum_to_shape(grad * other / result, other.shape) \
            if self.needs_input_grad(1) else None
        return grad_a, grad_b


def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    require_tensor(other, "logaddexp")
    a, b, device = _float_pair(input, other, "logaddexp", "logaddexp_cpu")
    out = wrap(_compute(device.xp.logaddexp, a, b), device)
    if any_requires_grad(input, other):
        node = LogaddexpBackward0()
        node.save(input, other)
        attach(out, node, input, other)
    return out


class LogaddexpBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(grad / ((other - input).exp() + 1), input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(grad / ((input - other).exp() + 1), other.shape)
        return grad_a, grad_b


def logaddexp2(input, other):
    """log2(2**input + 2**other) without overflow."""
    require_tensor(other, "logaddexp2")
    a, b, device = _float_pair(input, other, "logaddexp2", "logaddexp2_cpu")
    out = wrap(_compute(device.xp.logaddexp2, a, b), device)
    if any_requires_grad(input, other):
        node = Logaddexp2Backward0()
        node.save(input, other)
        attach(out, node, input, other)
    return out


class Logaddexp2Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(grad / ((other - input).exp2() + 1), input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(grad / ((input - other).exp2() + 1), other.shape)
        return grad_a, grad_b


def xlogy(input, other):
    """input * log(other), with 0 where input is 0 (unless other is nan)."""
    if isinstance(input, Tensor):
        a, b, device = float_binary(input, other, "xlogy")
    else:
        require_tensor(other, "xlogy", "other", 2)
        b, a, device = float_binary(other, input, "xlogy")
    xp = device.xp
    if not hasattr(a, "dtype"):
        a = xp.asarray(a, b.dtype)
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, a.dtype)

    try:  # PyTorch evaluates xlogy in the input's own precision, even for float16
        result = xp.where(xp.isnan(b), xp.nan, xp.where(a == 0, 0.0, a * _log(xp, b)))
    except ValueError:
        raise broadcast_error(a, b) from None
    out = wrap(result.astype(a.dtype, copy=False), device)
    if any_requires_grad(input, other):
        if not isinstance(input, Tensor):
            node = XlogyBackward1()
        elif not isinstance(other, Tensor):
            node = XlogyBackward2()
        else:
            node = XlogyBackward0()
        node.scalars = (input, other)
        node.save(input if isinstance(input, Tensor) else None,
                  other if isinstance(other, Tensor) else None)
        attach(out, node, input, other)
    return out


def _log(xp, b):
    """log(b); float32 through float64 and rounded once (NumPy's float32 log can be an ulp
    off where PyTorch's is correctly rounded), as ops/pointwise_math's precise unaries do."""
    if b.dtype == _FLOAT32 and b.size <= _PRECISE_LIMIT:
        return xp.log(b.astype(_FLOAT64)).astype(_FLOAT32)
    return xp.log(b)


class XlogyBackward0(Node):
    __slots__ = ("scalars",)

    def backward(self, grad):
        input, other = self.saved_tensors
        input = self.scalars[0] if input is None else input
        other = self.scalars[1] if other is None else other
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            # PyTorch's formula: xlogy(grad, other), zeroed where input == 0 and other <= 0
            # (so d/dx at x = 0 is log(other), not 0).
            grad_a = xlogy(grad, other).masked_fill((input == 0) & (other <= 0), 0)
            grad_a = sum_to_shape(grad_a, input.shape)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(grad * input / other, other.shape)
        return grad_a, grad_b


class XlogyBackward1(XlogyBackward0):
    """xlogy(scalar, tensor)."""
    __slots__ = ()


class XlogyBackward2(XlogyBackward0):
    """xlogy(tensor, scalar)."""
    __slots__ = ()


def copysign(input, other):
    """|input| with the sign of other."""
    a, b, device = float_binary(input, other, "copysign")
    out = wrap(_compute(device.xp.copysign, a, b), device)
    if any_requires_grad(input, other):
        node = CopysignBackward0() if isinstance(other, Tensor) else CopysignBackward1()
        node.other_shape = shape_of(other)
        node.save(input)
        node.save_output(out)
        attach(out, node, input, other)
    return out


class CopysignBackward0(Node):
    __slots__ = ("other_shape",)

    def backward(self, grad):
        input, result = self.saved_tensors
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            ratio = where(input == 0, 0.0, result / input)
            grad_a = sum_to_shape(grad * ratio, input.shape)
        if self.needs_input_grad(1):  # the sign of `other` is piecewise constant
            grad_b = _zeros(grad, self.other_shape)
        return grad_a, grad_b


class CopysignBackward1(CopysignBackward0):
    """copysign(tensor, scalar)."""
    __slots__ = ()


def _zeros(grad, shape):
    return wrap(grad._device.xp.zeros(shape, grad._data.dtype), grad._device)


def atan2_(input, other):
    return inplace(input, atan2, other)


def hypot_(input, other):
    return inplace(input, hypot, other)


def xlogy_(input, other):
    return inplace(input, xlogy, other)


def copysign_(input, other):
    return inplace(input, copysign, other)


# ---------------------------------------------------------------- fused: addcmul / addcdiv / lerp
def _fused_arrays(tensors):
    """The arrays of several tensors cast to their common dtype (PyTorch's result_type)."""
    result = _dtype._result_type_many(tensors).np_dtype
    return [t._data.astype(result, copy=False) for t in tensors], tensors[0]._device


def _fused(function, arrays):
    try:
        return upcast(function, *arrays)
    except ValueError:
        shapes = [x.shape for x in arrays]
        for i, first in enumerate(shapes):
            for second in shapes[i + 1:]:
                if _errors.broadcast_mismatch(first, second):
                    raise broadcast_error(_Shaped(first), _Shaped(second)) from None
        raise


class _Shaped:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    (a, b, c), device = _fused_arrays((input, tensor1, tensor2))
    if a.dtype.kind == "b":
        raise unsupported("addcmul_cpu_out", a)
    if a.dtype.kind in "iu":
        value = int(value)
    out = wrap(_fused(lambda x, y, z: x + value * y * z, (a, b, c)), device)
    if any_requires_grad(input, tensor1, tensor2):
        node = AddcmulBackward0()
        node.value = value
        node.shape = a.shape
        node.save(tensor1, tensor2)
        attach(out, node, input, tensor1, tensor2)
    return out


class AddcmulBackward0(Node):
    __slots__ = ("value", "shape")

    def backward(self, grad):
        tensor1, tensor2 = self.saved_tensors
        value = self.value
        grad_a = sum_to_shape(grad, self.shape) if self.needs_input_grad(0) else None
        grad_b = grad_c = None
        if self.needs_input_grad(1):   # grad * (the other factor * value), as PyTorch rounds
            grad_b = sum_to_shape(grad * (tensor2 * value), tensor1.shape)
        if self.needs_input_grad(2):
            grad_c = sum_to_shape(grad * (tensor1 * value), tensor2.shape)
        return grad_a, grad_b, grad_c


def addcmul_(input, tensor1, tensor2, *, value=1):
    return inplace(input, addcmul, tensor1, tensor2, value=value)


_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * ember.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2 (integer tensor1/tensor2 refused, as PyTorch does)."""
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(_ADDCDIV_INTEGER)
    (a, b, c), device = _fused_arrays((input, tensor1, tensor2))
    out = wrap(_fused(lambda x, y, z: x + value * y / z, (a, b, c)), device)
    if any_requires_grad(input, tensor1, tensor2):
        node = AddcdivBackward0()
        node.value = value
        node.shape = a.shape
        node.save(tensor1, tensor2)
        attach(out, node, input, tensor1, tensor2)
    return out


class AddcdivBackward0(Node):
    __slots__ = ("value", "shape")

    def backward(self, grad):
        tensor1, tensor2 = self.saved_tensors
        value = self.value
        grad_a = sum_to_shape(grad, self.shape) if self.needs_input_grad(0) else None
        grad_b = grad_c = None
        if self.needs_input_grad(1):   # grad * (value / t2); -grad * (value * t1 / t2^2)
            grad_b = sum_to_shape(grad * _scalar_over(value, tensor2), tensor1.shape)
        if self.needs_input_grad(2):
            grad_c = sum_to_shape(-grad * (value * tensor1 / (tensor2 * tensor2)),
                                  tensor2.shape)
        return grad_a, grad_b, grad_c


def _scalar_over(value, tensor):
    """value / tensor as one true division in the tensor's float dtype (`value / x` on a
    tensor records reciprocal then mul, two roundings, as PyTorch's rdiv does)."""
    if not _is_floating(tensor._data.dtype):
        return value / tensor
    return wrap(tensor._device.xp.asarray(value, dtype=tensor._data.dtype), tensor._device) \
        / tensor


def addcdiv_(input, tensor1, tensor2, *, value=1):
    return inplace(input, addcdiv, tensor1, tensor2, value=value)


def lerp(input, end, weight):
    """input + weight * (end - input), evaluated from the nearer end as PyTorch does."""
    require_tensor(end, "lerp", "end")
    if weight is None:
        raise TypeError("lerp: weight is None")  # the door gives PyTorch's words
    a, b = input._data, end._data
    if a.dtype != b.dtype:
        raise RuntimeError(_lerp_dtype_message(input, end, "end"))
    weight_is_tensor = isinstance(weight, Tensor)
    # a weight tensor must match input's dtype too, unless it is 0-dim (then it is a scalar)
    if weight_is_tensor and weight._data.ndim and weight._data.dtype != a.dtype:
        raise RuntimeError(_lerp_dtype_message(input, weight, "weight"))
    if not _is_floating(a.dtype):
        raise unsupported("lerp_kernel_tensor" if weight_is_tensor else "lerp_kernel_scalar", a)
    xp = input._device.xp
    w = weight._data.astype(a.dtype, copy=False) if weight_is_tensor else weight

    def forward(x, y, t):
        return xp.where(xp.abs(t) < 0.5, x + t * (y - x), y - (y - x) * (1 - t))
    out = wrap(_fused(forward, (a, b, xp.asarray(w, dtype=a.dtype))).astype(a.dtype, copy=False),
               input._device)
    if any_requires_grad(input, end, weight):
        node = LerpBackward1() if weight_is_tensor else LerpBackward0()
        node.weight = weight
        node.shapes = (a.shape, b.shape)
        node.save(input, end, weight if weight_is_tensor else None)
        attach(out, node, input, end, weight)
    return out


def _lerp_dtype_message(input, other, name):
    return (f"expected dtype {_errors.cpp_type_name(input.dtype)} for `{name}` but got "
            f"dtype {_errors.cpp_type_name(other.dtype)}")


class LerpBackward0(Node):
    __slots__ = ("weight", "shapes")

    def backward(self, grad):
        input, end, weight = self.saved_tensors
        weight = self.weight if weight is None else weight
        shape_a, shape_b = self.shapes
        grad_a = grad_b = grad_w = None
        if self.needs_input_grad(0):
            grad_a = sum_to_shape(grad * (1 - weight), shape_a)
        if self.needs_input_grad(1):
            grad_b = sum_to_shape(grad * weight, shape_b)
        if isinstance(weight, Tensor) and self.needs_input_grad(2):
            grad_w = sum_to_shape(grad * (end - input), weight.shape)
        return grad_a, grad_b, grad_w


class LerpBackward1(LerpBackward0):
    __slots__ = ()


def lerp_(input, end, weight):
    return inplace(input, lerp, end, weight)
