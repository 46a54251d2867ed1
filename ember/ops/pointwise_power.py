"""Powers: pow in its three forms (tensor**number, tensor**tensor, number**tensor),
float_power, and square, with their gradients.

Integer powers follow PyTorch, not NumPy: a negative Python-int exponent on an
integer tensor is an error, while negative exponents inside a tensor give
1 (base 1), +-1 (base -1) or 0 (any other base), as C integer division would.
"""
import math

from .. import _dtype, _errors
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import (Tensor, any_requires_grad, attach, binary, inplace, make_tensor, plain,
                      scalar_value, sum_to_shape, wrap)
from ._elementwise import broadcast_error, unsupported, zeros_like
from .pointwise_math import log
from .pointwise_select import where

__all__ = ["pow", "float_power", "square", "square_"]

_NEGATIVE_INT_POWER = "Integers to negative integer powers are not allowed."
_FLOAT64 = _dtype.float64
_F16 = _dtype.float16.np_dtype
_F32 = _dtype.float32.np_dtype
_F64 = _dtype.float64.np_dtype
_NUMBERS = (int, float, bool)
_CATEGORY = _dtype.CATEGORY  # bfloat16 joins it when ml_dtypes loads
_FLOATING = _dtype.FLOATING


def _int_power(xp, base, exponent):
    """base ** exponent for integer arrays, with PyTorch's answer for negative exponents."""
    negative = exponent < 0
    if not negative.any():
        return xp.power(base, exponent)
    result = xp.power(base, xp.where(negative, 0, exponent))
    odd = (exponent % 2) != 0
    inverse = xp.where(base == 1, 1, xp.where(base == -1, xp.where(odd, -1, 1), 0))
    return xp.where(negative, inverse, result).astype(result.dtype, copy=False)


def _power(xp, a, b):
    if a.dtype.kind in "iu" and hasattr(b, "dtype"):
        return _int_power(xp, a, b)
    if a.dtype == _F32:
        # NumPy's float32 power is often an ulp off; float64 rounded once is correctly
        # rounded, as PyTorch's pow (SLEEF) nearly always is (see _float_power_of_number)
        return xp.power(a.astype(_F64), xp.asarray(b).astype(_F64)).astype(_F32)
    return xp.power(a, b)


def _float_power_of_number(xp, a, exponent):
    """a ** exponent for a float array and a Python number, rounded as PyTorch rounds it.

    PyTorch's CPU kernel (ATen PowKernel.cpp, pow_tensor_scalar_kernel) calls pow only
    for some exponents. 0 fills ones and 1 copies (even nan). For float32, float64 and
    bfloat16, 0.5, -0.5 and -1 run the sqrt, rsqrt (1 / sqrt) and reciprocal kernels, and
    2, 3 and -2 are x*x, x*x*x and 1/(x*x) in the tensor's own dtype, each step rounded.
    Every other exponent (and every float16 one) goes to SLEEF's pow, within 1 ulp and in
    float32 for the half types, with the exponent first rounded to the tensor's dtype
    (float32 for float32). ember computes those in float64 and rounds once: correctly
    rounded, which is SLEEF's answer for all but ~2% of elements (1 ulp apart); float64
    keeps NumPy's pow (~4% 1 ulp apart). The exact rules above are bit-identical.
    """
    dtype = a.dtype
    if exponent == 0:
        return xp.ones_like(a)
    if exponent == 1:
        return a.copy()
    if dtype == _F16:
        # pow(float(x), float(half(e))) in float32, then rounded to half. C's pow, not
        # sqrt: (-0) ** 0.5 is +0 and (-inf) ** 0.5 is +inf (NumPy's power says -0, nan).
        wide = a.astype(_F64)
        if exponent == 0.5:
            wide = xp.sqrt(xp.where(wide == -math.inf, math.inf, wide)) + 0.0
        else:
            wide = xp.power(wide, float(_F16.type(exponent)))
        return wide.astype(_F32).astype(_F16)
    if dtype == _F32 or dtype == _F64:
        if exponent == 2:
            return a * a
        if exponent == 3:
            return a * a * a
        if exponent == -2:
            return 1 / (a * a)
        if exponent == 0.5:
            return xp.sqrt(a)
        if exponent == -0.5:
            return 1 / xp.sqrt(a)
        if exponent == -1:
            return 1 / a
        if dtype == _F64:
            return xp.power(a, float(exponent))
        return xp.power(a.astype(_F64), float(_F32.type(exponent))).astype(_F32)
    # bfloat16: each step in float32, rounded back to bfloat16.
    x = a.astype(_F32)
    if exponent == 2:
        return (x * x).astype(dtype)
    if exponent == 3:
        return ((x * x).astype(dtype).astype(_F32) * x).astype(dtype)
    if exponent == -2:
        return (1 / (x * x).astype(dtype).astype(_F32)).astype(dtype)
    if exponent == 0.5:
        return xp.sqrt(x).astype(dtype)
    if exponent == -0.5:
        return (1 / xp.sqrt(x)).astype(dtype)
    if exponent == -1:
        return (1 / x).astype(dtype)
    wide = xp.power(x.astype(_F64), float(dtype.type(exponent)))
    return wide.astype(_F32).astype(dtype)


def pow(input, exponent):
    """input ** exponent, broadcast, with PyTorch's type promotion."""
    if not isinstance(input, Tensor):
        return rpow(exponent, input)
    kind = input._data.dtype.kind
    if exponent.__class__ is int and exponent < 0 and kind in "iub":
        raise RuntimeError(_NEGATIVE_INT_POWER)
    if exponent.__class__ is bool and kind == "b":
        # bool ** bool stays bool: x ** True is x, x ** False is all True.
        data = input._data.copy() if exponent else input._device.xp.ones_like(input._data)
        return wrap(data, input._device)
    a, b, device = binary(input, exponent, "pow")
    if a.dtype.kind == "b":
        raise unsupported("pow", a)
    if a.dtype in _LIMITED:
        raise _refusal("pow", a.dtype)
    try:
        if exponent.__class__ in _NUMBERS and _CATEGORY[a.dtype] == _FLOATING:
            out = wrap(_float_power_of_number(device.xp, a, exponent), device)
        else:
            out = wrap(_power(device.xp, a, b), device)
    except ValueError:
        raise broadcast_error(a, b) from None
    if any_requires_grad(input, exponent):
        if isinstance(exponent, Tensor):
            node = PowBackward1()
            node.save(input, exponent)
            node.save_output(out)
        else:
            node = PowBackward0()
            node.exponent = b
            node.save(input)
        attach(out, node, input, exponent)
    return out


class PowBackward0(Node):
    __slots__ = ("exponent",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        exponent = self.exponent
        if exponent == 0:
            return (zeros_like(grad), None)
        if exponent.__class__ in _NUMBERS and plain(grad, input):
            # the same three steps as below (power, scale, product) on the arrays
            data = input._data
            power = _float_power_of_number(input._device.xp, data, exponent - 1)
            return (make_tensor(grad._data * (exponent * power), grad._device), None)
        return (grad * (exponent * input.pow(exponent - 1)), None)


class PowBackward1(Node):
    __slots__ = ()

    def backward(self, grad):
        input, exponent, result = self.saved_tensors
        grad_a = grad_b = None
        if self.needs_input_grad(0):
            grad_a = where(exponent == 0, 0.0, grad * (exponent * input.pow(exponent - 1)))
            grad_a = sum_to_shape(grad_a, input.shape)
        if self.needs_input_grad(1):
            zero_base = (input == 0).logical_and(exponent >= 0)
            grad_b = sum_to_shape(grad * where(zero_base, 0.0, result * log(input)),
                                  exponent.shape)
        return grad_a, grad_b


def pow_(input, exponent):
    return inplace(input, pow, exponent)


def rpow(input, other):
    """other ** input for a number `other` (what `2 ** x` and `pow(2, x)` call)."""
    a, b, device = binary(input, other, "pow")
    xp = device.xp
    if a.dtype.kind == "b":
        raise unsupported("pow", a)
    out = wrap(_power(xp, xp.asarray(b).astype(a.dtype), a), device)
    if any_requires_grad(input):
        node = PowBackward2()
        node.base = b
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class PowBackward2(Node):
    __slots__ = ("base",)

    def backward(self, grad):
        exponent, result = self.saved_tensors
        base = self.base
        if base == 0:
            # log(0) is -inf: PyTorch masks it to 0 where the exponent is >= 0.
            return (grad * where(exponent >= 0, 0.0, result * float("-inf")),)
        return (grad * (result * math.log(base)),)


def float_power(input, exponent):
    """pow computed in float64 (PyTorch decomposes it into `to(float64)` then `pow`)."""
    if isinstance(input, Tensor):
        base = input.to(_FLOAT64)
        if isinstance(exponent, Tensor):
            return pow(base, exponent.to(_FLOAT64))
        return pow(base, float(scalar_value(exponent)))
    return rpow(exponent.to(_FLOAT64), float(scalar_value(input)))


def float_power_(input, exponent):
    """In-place float_power: only a float64 tensor can hold the result (an int past 64 bits
    is refused first, by PyTorch's argument parser)."""
    if not isinstance(exponent, Tensor):
        scalar_value(exponent)
    if input.dtype is not _FLOAT64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_name(input)} but the "
                           "operation's result requires dtype Double")
    return inplace(input, float_power, exponent)


def _name(tensor):
    return _errors._scalar_type_name(tensor.dtype)


def square(input):
    """input ** 2 (PyTorch records it as pow; bool squares to int64)."""
    return pow(input, 2)


def square_(input):
    return inplace(input, square)
