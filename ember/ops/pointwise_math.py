"""Elementwise math functions of one tensor: roots, exponentials, logarithms,
trigonometry, sigmoid/logit and the error functions.

Integer and bool inputs promote to the default float dtype, as in PyTorch.
Each function is followed by its backward node, named as PyTorch names it and
written with ember ops so that double backward works.
"""
import math

from .. import _dtype, _parallel
from ..autograd.graph import Node
from . import _erf
from ._common import attach, float_operand, grad_state, inplace, wrap
from ._elementwise import upcast
from .pointwise_select import where

__all__ = ["sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos",
           "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
           "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "sigmoid", "logit", "erf",
           "erfc", "erfinv", "deg2rad", "rad2deg", "sqrt_", "rsqrt_", "exp_", "exp2_", "expm1_",
           "log_", "log1p_", "log2_", "log10_", "sin_", "cos_", "tan_", "asin_", "acos_", "atan_",
           "sinh_", "cosh_", "tanh_", "asinh_", "acosh_", "atanh_", "sigmoid_", "logit_", "erf_",
           "erfc_", "deg2rad_", "rad2deg_", "arcsin_", "arccos_", "arctan_", "arcsinh_",
           "arccosh_", "arctanh_"]

_INPUT, _OUTPUT = "input", "output"
_FLOAT32 = _dtype.float32.np_dtype
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


# PyTorch's float32 transcendental kernels are almost always correctly rounded;
# NumPy's SIMD float32 ones are often 1 ulp off (exp: ~40% of inputs), which shows
# in printed values. Small float32 tensors are therefore computed in float64 and
# rounded once; large ones keep NumPy's float32 speed.
_PRECISE_LIMIT = 1 << 16
_FLOAT32 = _dtype.float32.np_dtype
_FLOAT64 = _dtype.float64.np_dtype
_PARALLEL = _parallel.THRESHOLD  # elements from which a ufunc runs on all threads


def _unary(input, function, node_class, save, precise=False):
    """`function` on the float form of `input`; records `node_class` when needed."""
    try:
        a = float_operand(input)
    except AttributeError:
        raise TypeError(f"{node_class.__name__[:-9].lower()}(): argument 'input' (position 1) "
                        f"must be Tensor, not {type(input).__name__}") from None
    if precise and a.dtype == _FLOAT32 and a.size <= _PRECISE_LIMIT:
        result = function(a.astype(_FLOAT64)).astype(_FLOAT32)
    elif a.size < _PARALLEL:
        result = function(a)
    else:
        result = _parallel.call(function, a)
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        if save is _INPUT:
            node.save(input)
        else:
            node.save_output(out)
        attach(out, node, input)
    return out


def _inplace(op):
    def method(input):
        return inplace(input, op)
    method.__name__ = op.__name__ + "_"
    method.__doc__ = f"In-place {op.__name__}; see `_common.inplace` for the rules."
    return method


# ---------------------------------------------------------------- roots and powers of e
def sqrt(input):
    """Square root; nan for negative inputs."""
    return _unary(input, input._device.xp.sqrt, SqrtBackward0, _OUTPUT)


class SqrtBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad / (2 * result),)


def rsqrt(input):
    """1 / sqrt(input)."""
    xp = input._device.xp
    return _unary(input, lambda a: 1 / xp.sqrt(a), RsqrtBackward0, _OUTPUT)


class RsqrtBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-0.5 * grad * result.pow(3),)


def exp(input):
    """e ** input."""
    return _unary(input, input._device.xp.exp, ExpBackward0, _OUTPUT, precise=True)


class ExpBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result,)


def exp2(input):
    """2 ** input."""
    return _unary(input, input._device.xp.exp2, Exp2Backward0, _OUTPUT, precise=True)


class Exp2Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result * _LN2,)


def expm1(input):
    """exp(input) - 1, accurate near 0."""
    return _unary(input, input._device.xp.expm1, Expm1Backward0, _OUTPUT, precise=True)


class Expm1Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (result + 1),)


# ---------------------------------------------------------------- logarithms
def log(input):
    """Natural logarithm; -inf at 0, nan below."""
    return _unary(input, input._device.xp.log, LogBackward0, _INPUT, precise=True)


class LogBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad / input,)


def log1p(input):
    """log(1 + input), accurate near 0."""
    return _unary(input, input._device.xp.log1p, Log1PBackward0, _INPUT, precise=True)


class Log1PBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad / (input + 1),)


def log2(input):
    """Base-2 logarithm."""
    return _unary(input, input._device.xp.log2, Log2Backward0, _INPUT, precise=True)


class Log2Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad / (input * _LN2),)


def log10(input):
    """Base-10 logarithm."""
    return _unary(input, input._device.xp.log10, Log10Backward0, _INPUT, precise=True)


class Log10Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad / (input * _LN10),)


# ---------------------------------------------------------------- trigonometry
def sin(input):
    return _unary(input, input._device.xp.sin, SinBackward0, _INPUT, precise=True)


class SinBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * input.cos(),)


def cos(input):
    return _unary(input, input._device.xp.cos, CosBackward0, _INPUT, precise=True)


class CosBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * -input.sin(),)


def tan(input):
    return _unary(input, input._device.xp.tan, TanBackward0, _OUTPUT, precise=True)


class TanBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (result * result + 1),)


def asin(input):
    return _unary(input, input._device.xp.arcsin, AsinBackward0, _INPUT, precise=True)


class AsinBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * (-input * input + 1).rsqrt(),)


def acos(input):
    return _unary(input, input._device.xp.arccos, AcosBackward0, _INPUT, precise=True)


class AcosBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * -(-input * input + 1).rsqrt(),)


def atan(input):
    return _unary(input, input._device.xp.arctan, AtanBackward0, _INPUT, precise=True)


class AtanBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad / (input * input + 1),)


arcsin, arccos, arctan = asin, acos, atan


def sinh(input):
    return _unary(input, input._device.xp.sinh, SinhBackward0, _INPUT, precise=True)


class SinhBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * input.cosh(),)


def cosh(input):
    return _unary(input, input._device.xp.cosh, CoshBackward0, _INPUT, precise=True)


class CoshBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * input.sinh(),)


def tanh(input):
    return _unary(input, input._device.xp.tanh, TanhBackward0, _OUTPUT, precise=True)


class TanhBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        if result._data.dtype in _dtype.COMPUTED_IN_FLOAT32:  # PyTorch rounds once
            wide = result.float()
            return ((grad.float() * (1 - wide * wide)).to(result.dtype),)
        return (grad * (1 - result * result),)


def asinh(input):
    return _unary(input, input._device.xp.arcsinh, AsinhBackward0, _INPUT, precise=True)


class AsinhBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * (input * input + 1).rsqrt(),)


def acosh(input):
    return _unary(input, input._device.xp.arccosh, AcoshBackward0, _INPUT, precise=True)


class AcoshBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad * (input * input - 1).rsqrt(),)


def atanh(input):
    return _unary(input, input._device.xp.arctanh, AtanhBackward0, _INPUT, precise=True)


class AtanhBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (grad / (1 - input * input),)


arcsinh, arccosh, arctanh = asinh, acosh, atanh


def deg2rad(input):
    """Degrees to radians."""
    return _unary(input, lambda a: upcast(lambda x: x * (math.pi / 180), a),
                  Deg2RadBackward0, _INPUT)


class Deg2RadBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad * (math.pi / 180),)


def rad2deg(input):
    """Radians to degrees."""
    return _unary(input, lambda a: upcast(lambda x: x * (180 / math.pi), a),
                  Rad2DegBackward0, _INPUT)


class Rad2DegBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad * (180 / math.pi),)


# ---------------------------------------------------------------- sigmoid, logit, erf
def sigmoid(input):
    """1 / (1 + exp(-input))."""
    return _unary(input, _Sigmoid(input._device.xp), SigmoidBackward0, _OUTPUT)


class _Sigmoid:
    """The sigmoid formula on arrays, rounded once for float16/bfloat16."""
    __slots__ = ("xp",)

    def __init__(self, xp):
        self.xp = xp

    def __call__(self, a):
        if a.dtype.itemsize == 2:
            return self(a.astype(_FLOAT32)).astype(a.dtype)
        return 1 / (1 + self.xp.exp(-a))


class SigmoidBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (result * (1 - result)),)


def logit(input, eps=None):
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given."""
    xp = input._device.xp

    def forward(x):
        if eps is not None:
            # PyTorch's test order (below eps first), so eps > 0.5 gives its values; bounds
            # in x's dtype, as np.clip would widen bfloat16 to float32
            low, high = xp.asarray(eps, x.dtype), xp.asarray(1 - eps, x.dtype)
            x = xp.where(x < low, low, xp.where(x > high, high, x))
        return xp.log(x / (1 - x))
    # PyTorch evaluates logit in the input's own precision, even for float16.
    out = _unary(input, forward, LogitBackward0, _INPUT)
    if out.grad_fn is not None:
        out.grad_fn.eps = eps
    return out


class LogitBackward0(Node):
    __slots__ = ("eps",)

    def backward(self, grad):
        (input,) = self.saved_tensors
        eps = self.eps
        derivative = grad / (input * (1 - input))
        if eps is None:
            outside = (input < 0).logical_or(input > 1)
            return (where(outside, float("nan"), derivative),)
        outside = (input < eps).logical_or(input > 1 - eps)
        return (where(outside, 0.0, derivative),)


def logit_(input, eps=None):
    return inplace(input, logit, eps)


def erf(input):
    """The error function (Cody's rational approximations; see `_erf`)."""
    xp = input._device.xp
    return _unary(input, lambda a: _erf.erf(xp, a), ErfBackward0, _INPUT)


class ErfBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (_TWO_OVER_SQRT_PI * (-input.pow(2)).exp() * grad,)


def erfc(input):
    """1 - erf(input), without cancellation for large inputs."""
    xp = input._device.xp
    return _unary(input, lambda a: _erf.erfc(xp, a), ErfcBackward0, _INPUT)


class ErfcBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (-_TWO_OVER_SQRT_PI * (-input.pow(2)).exp() * grad,)


def erfinv(input):
    """The inverse error function on [-1, 1]."""
    xp = input._device.xp
    return _unary(input, lambda a: _erf.erfinv(xp, a), ErfinvBackward0, _INPUT)


class ErfinvBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (_HALF_SQRT_PI * input.erfinv().pow(2).exp() * grad,)


(sqrt_, rsqrt_, exp_, exp2_, expm1_, log_, log1p_, log2_, log10_, sin_, cos_, tan_, asin_,
 acos_, atan_, sinh_, cosh_, tanh_, sigmoid_, erf_, erfc_, erfinv_, deg2rad_, rad2deg_) = [
    _inplace(op) for op in (sqrt, rsqrt, exp, exp2, expm1, log, log1p, log2, log10, sin, cos,
                            tan, asin, acos, atan, sinh, cosh, tanh, sigmoid, erf, erfc,
                            erfinv, deg2rad, rad2deg)]


# PyTorch 2.13 records asinh_/acosh_/atanh_ as XxxBackward1, whose backward is not
# implemented: the forward succeeds and the backward raises.
class _NoInplaceDerivative(Node):
    __slots__ = ()
    op_name = ""

    def backward(self, grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {self.op_name}' "
                                  "is not implemented.")


class AsinhBackward1(_NoInplaceDerivative):
    __slots__ = ()
    op_name = "asinh"


class AcoshBackward1(_NoInplaceDerivative):
    __slots__ = ()
    op_name = "acosh"


class AtanhBackward1(_NoInplaceDerivative):
    __slots__ = ()
    op_name = "atanh"


def _asinh_in_place(input):
    return _unary(input, input._device.xp.arcsinh, AsinhBackward1, _INPUT, precise=True)


def _acosh_in_place(input):
    return _unary(input, input._device.xp.arccosh, AcoshBackward1, _INPUT, precise=True)


def _atanh_in_place(input):
    return _unary(input, input._device.xp.arctanh, AtanhBackward1, _INPUT, precise=True)


def asinh_(input):
    return inplace(input, _asinh_in_place)


def acosh_(input):
    return inplace(input, _acosh_in_place)


def atanh_(input):
    return inplace(input, _atanh_in_place)
arcsin_, arccos_, arctan_, arcsinh_, arccosh_, arctanh_ = asin_, acos_, atan_, asinh_, acosh_, atanh_
