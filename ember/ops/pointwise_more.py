"""Binary elementwise ops learners meet outside the arithmetic core: gcd/lcm on integers,
heaviside, the float-representation ops (ldexp, frexp, nextafter) and the regularized
incomplete gamma functions (igamma, igammac), each with its in-place form.

The operands go through `binary` (PyTorch's type promotion, broadcast errors); the
numerics are NumPy's (gcd, lcm, ldexp, frexp, nextafter) and scipy.special's
(gammainc, gammaincc). Each op is followed by its node, named as PyTorch names it;
where PyTorch has no derivative the node raises its message.
"""
import math

from .._backend import scipy_special as _sc

from .. import _dtype, _errors, return_types as _rt
from ..autograd.graph import Node
from ._common import Tensor, any_requires_grad, attach, binary, inplace, sum_to_shape, wrap
from ._elementwise import NotImplementedBackward, broadcast_error, require_tensor, unsupported
from .pointwise_math import exp
from .special import lgamma

__all__ = ["gcd", "gcd_", "lcm", "lcm_", "heaviside", "ldexp", "ldexp_", "frexp", "nextafter",
           "igamma", "igammac"]

_FLOAT64 = _dtype.float64.np_dtype
_FLOAT32 = _dtype.float32.np_dtype
_INT32 = _dtype.int32.np_dtype
_REDUCED = _dtype.COMPUTED_IN_FLOAT32
_LN2 = math.log(2.0)


def _tensor_pair(input, other, name, argname="other"):
    """Both operands as arrays in PyTorch's promoted dtype (other must be a Tensor)."""
    require_tensor(input, name, "input", 1)
    require_tensor(other, name, argname, 2)
    return binary(input, other, name)


def _apply(function, a, b):
    try:
        return function(a, b)
    except ValueError:
        raise broadcast_error(a, b) from None


# ---------------------------------------------------------------- gcd / lcm
def _integer_op(input, other, name, function):
    a, b, device = _tensor_pair(input, other, name)
    if a.dtype.kind not in "iu":
        raise unsupported(f"{name}_cpu", a)
    return wrap(_apply(function, a, b).astype(a.dtype, copy=False), device)


def gcd(input, other):
    """Greatest common divisor, elementwise (non-negative; gcd(0, 0) = 0)."""
    xp = input._device.xp
    return _integer_op(input, other, "gcd", lambda a, b: _gcd(xp, a, b))


def _gcd(xp, a, b):
    """NumPy's gcd, except where an operand is the signed dtype's minimum: PyTorch's
    Euclid takes abs() (which wraps there) and C's truncating %, and so answers
    gcd(-2**31, 5) = -1 in int32; those elements follow the same steps."""
    out = xp.gcd(a, b)
    if a.dtype.kind != "i" or not out.size:
        return out
    lowest = xp.iinfo(a.dtype).min
    odd = (a == lowest) | (b == lowest)
    if not odd.any():
        return out
    a, b = xp.broadcast_to(a, odd.shape)[odd], xp.broadcast_to(b, odd.shape)[odd]
    x, y = xp.abs(a), xp.abs(b)
    while (x != 0).any():
        nonzero = x != 0
        x, y = (xp.where(nonzero, xp.fmod(y, xp.where(nonzero, x, 1)), 0),
                xp.where(nonzero, x, y))
    out = out.copy() if not out.flags.writeable else out
    out[odd] = y
    return out


def _check_integer_inplace(input, other):
    """An in-place integer op refuses a float operand by the cast rule first, as PyTorch."""
    result = _dtype.promote_types(input.dtype, other.dtype)
    if not _dtype.can_cast(result, input.dtype):
        raise RuntimeError(_errors.cannot_cast(result, input.dtype))


def gcd_(input, other):
    require_tensor(other, "gcd_")
    _check_integer_inplace(input, other)
    return inplace(input, gcd, other)


def lcm(input, other):
    """Least common multiple, elementwise (non-negative; wraps around like PyTorch's)."""
    return _integer_op(input, other, "lcm", input._device.xp.lcm)


def lcm_(input, other):
    require_tensor(other, "lcm_")
    _check_integer_inplace(input, other)
    return inplace(input, lcm, other)


# ---------------------------------------------------------------- heaviside
def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, `values` where input == 0 (no derivative)."""
    require_tensor(values, "heaviside", "values", 2)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    a, b, device = input._data, values._data, input._device
    xp = device.xp
    result = _apply(lambda x, v: xp.where(x == 0, v, (x > 0).astype(x.dtype)), a, b)
    out = wrap(result.astype(a.dtype, copy=False), device)
    if any_requires_grad(input, values):
        attach(out, NotImplementedBackward("heaviside"), input, values)
    return out


def heaviside_(input, values):
    return inplace(input, heaviside, values)


# ---------------------------------------------------------------- ldexp / frexp / nextafter
def ldexp(input, other):
    """input * 2**other; integer operands give the default float dtype."""
    a, b, device = _tensor_pair(input, other, "ldexp")
    xp = device.xp
    if a.dtype.kind in "iub":
        a = a.astype(_dtype._defaults.float_dtype.np_dtype)
    result = _apply(lambda x, e: x * xp.power(2.0, e).astype(x.dtype), a, b)
    out = wrap(result.astype(a.dtype, copy=False), device)
    if any_requires_grad(input, other):
        node = LdexpBackward0()
        node.save(input, other)
        attach(out, node, input, other)
    return out


def ldexp_(input, other):
    if not input.is_floating_point():  # PyTorch names the op where others say 'result type'
        raise RuntimeError("ldexp can't be cast to the desired output type "
                           f"{_errors.scalar_type_name(input.dtype)}")
    return inplace(input, ldexp, other)


class LdexpBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        if other.is_floating_point():
            scale = exp(other * _LN2).to(grad.dtype)
        else:  # PyTorch's pow(2, other) in integers: 0 for a negative exponent
            scale = (2 ** other.clamp(min=0)).masked_fill(other < 0, 0).to(grad.dtype)
        grad_input = grad_other = None
        if self.needs_input_grad(0):
            grad_input = sum_to_shape(grad * scale, input.shape)
        if self.needs_input_grad(1):
            grad_other = sum_to_shape(grad * input * scale * _LN2, other.shape)
        return grad_input, grad_other


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1)."""
    if not input.is_floating_point():
        raise RuntimeError("ember.frexp() only supports floating-point dtypes")
    a = input._data
    xp = input._device.xp
    mantissa, exponent = xp.frexp(a.astype(_FLOAT32) if a.dtype in _REDUCED else a)
    out = wrap(mantissa.astype(a.dtype, copy=False), input._device)
    exponent = wrap(exponent.astype(_INT32), input._device)
    if any_requires_grad(input):
        node = FrexpBackward0()
        node.save(exponent)
        attach(out, node, input)
    return _rt.frexp(out, exponent)


class FrexpBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (exponent,) = self.saved_tensors
        return (grad / (2.0 ** exponent.to(grad.dtype)),)


def nextafter(input, other):
    """The next float after input in the direction of other, in input's dtype."""
    a, b, device = _tensor_pair(input, other, "nextafter")
    if a.dtype.kind in "iub" or a.dtype in _REDUCED:
        raise unsupported("nextafter_cpu", a)
    out = wrap(_apply(device.xp.nextafter, a, b), device)
    if any_requires_grad(input, other):
        node = NextafterBackward0()
        node.shapes = (input._data.shape, other._data.shape)
        attach(out, node, input, other)
    return out


def nextafter_(input, other):
    return inplace(input, nextafter, other)


class NextafterBackward0(Node):
    """PyTorch treats nextafter as the identity in input and a constant in other."""

    __slots__ = ("shapes",)

    def backward(self, grad):
        grad_input = sum_to_shape(grad, self.shapes[0]) if self.needs_input_grad(0) else None
        grad_other = grad.new_zeros(self.shapes[1]) if self.needs_input_grad(1) else None
        return grad_input, grad_other


# ---------------------------------------------------------------- igamma / igammac
def _incomplete_gamma(input, other, name, function, node_class):
    a, b, device = _tensor_pair(input, other, name)
    if a.dtype.kind in "iub":
        raise unsupported(f"{name}_cpu", a)
    dtype = a.dtype
    wide = (a.astype(_FLOAT64), b.astype(_FLOAT64)) if dtype != _FLOAT64 else (a, b)
    out = wrap(_apply(function, *wide).astype(dtype), device)
    if any_requires_grad(input, other):
        node = node_class()
        node.save(input, other)
        attach(out, node, input, other)
    return out


def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other)."""
    return _incomplete_gamma(input, other, "igamma", _sc.gammainc, IgammaBackward0)


def igamma_(input, other):
    return inplace(input, igamma, other)


def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P."""
    return _incomplete_gamma(input, other, "igammac", _sc.gammaincc, IgammacBackward0)


def igammac_(input, other):
    return inplace(input, igammac, other)


class IgammaBackward0(Node):
    """d/dx P(a, x) = x**(a-1) e**-x / Gamma(a); PyTorch has no derivative in a."""

    __slots__ = ()
    _sign = 1
    _label = "igamma"

    def backward(self, grad):
        input, other = self.saved_tensors
        if self.needs_input_grad(0):
            raise NotImplementedError(f"the derivative for '{self._label}: input' is not "
                                      "implemented.")
        density = exp((input - 1) * other.log() - other - lgamma(input))
        grad_other = sum_to_shape(grad * density * self._sign, other.shape)
        return None, grad_other


class IgammacBackward0(IgammaBackward0):
    __slots__ = ()
    _sign = -1
    _label = "igammac"
