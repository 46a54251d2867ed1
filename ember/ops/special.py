"""Special functions: log-gamma and its derivatives, modified Bessel functions, the
normal distribution's tails, entropy, sinc, zeta and friends (torch.special).

The numerics are scipy.special's (well kept, vectorised, accurate to the last bit or
so); this module only gives them PyTorch's dtypes and gradients. Reduced-precision
floats are evaluated in float32, as PyTorch's CPU kernels do, float32 in float64 and
rounded once (scipy's float32 loops are less accurate than PyTorch's). Integer and
bool inputs promote to the default float dtype. Each function is followed by its
backward node, named as PyTorch names it and written with ember ops.
"""
import math

from .._backend import scipy_special as _sc

from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import (Tensor, any_requires_grad, attach, float_operand, grad_state, inplace,
                      wrap)
from ._elementwise import broadcast_error, float_binary, require_tensor, unsupported
from ._scalar_ops import mul_scalar
from .pointwise_math import cos, erf, exp, log, sigmoid, sin
from .pointwise_select import where

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "sinc", "lgamma_",
           "digamma_", "polygamma_", "mvlgamma_", "i0_", "sinc_"]

_FLOAT64 = _dtype.float64.np_dtype
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT1_2 = math.sqrt(0.5)
_LOG_PI = math.log(math.pi)
_INF = math.inf
_NAN = math.nan
_INT64_MAX = 2**63 - 1


def _evaluate(function, *arrays):
    """`function` (a scipy ufunc) in float64 and rounded once to the first array's dtype."""
    dtype = arrays[0].dtype
    if dtype == _FLOAT64:
        return function(*arrays)
    return function(*[a.astype(_FLOAT64) for a in arrays]).astype(dtype)


def _unary(input, function, node_class, name, half=True):
    """`function` on the float form of `input`; records `node_class` when needed.

    `half=False`: PyTorch has no float16/bfloat16 kernel for this function."""
    try:
        a = float_operand(input)
    except AttributeError:
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}") from None
    if not half and a.dtype in _REDUCED:
        raise unsupported(f"{name[8:] if name.startswith('special_') else name}_cpu", a)
    out = wrap(_evaluate(function, a), input._device)
    if node_class is not None and grad_state.enabled and input._requires_grad:
        node = node_class()
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class _UnaryBackward(Node):
    __slots__ = ()

    def backward(self, grad):
        input, result = self.saved_tensors
        return (grad * self.derivative(input, result),)


# ---------------------------------------------------------------- gamma family
def lgamma(input):
    """log|Gamma(x)|: +inf at the poles (0, -1, -2, ...) and at both infinities."""
    xp = input._device.xp  # scipy gives -inf at -inf; PyTorch (std::lgamma) +inf
    return _unary(input, lambda x: xp.where(x == -_INF, _INF, _sc.gammaln(x)),
                  LgammaBackward0, "lgamma")


class LgammaBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return digamma(input)


def digamma(input):
    """The logarithmic derivative of Gamma: -inf at 0, nan at negative integers."""
    return _unary(input, _sc.psi, DigammaBackward0, "digamma")


class DigammaBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return polygamma(1, input)


def polygamma(n, input):
    """The n-th derivative of digamma; n must be a non-negative int."""
    if n.__class__ is not int:
        n = n.__index__()
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        function = _sc.psi
    else:
        # PyTorch's trigamma is nan at -inf and its zeta-based higher orders nan at +inf,
        # where scipy gives the limits (inf and +-0)
        undefined = -_INF if n == 1 else _INF
        xp = input._device.xp

        def function(x):
            return xp.where(x == undefined, _NAN, _sc.polygamma(n, x))
    out = _unary(input, function, PolygammaBackward0, "polygamma")
    if out.grad_fn is not None:
        out.grad_fn.n = n
    return out


class PolygammaBackward0(_UnaryBackward):
    __slots__ = ("n",)

    def derivative(self, input, result):
        return polygamma(self.n + 1, input)


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p, elementwise.

    Integer inputs promote to the default float dtype as other special functions do;
    bool is refused before p is looked at, as PyTorch does."""
    _check_mvlgamma(input, p)

    def function(x):
        xp = input._device.xp
        shifts = xp.arange(p, dtype=x.dtype) * -0.5
        result = _sc.gammaln(x[..., None] + shifts).sum(-1) + p * (p - 1) / 4 * _LOG_PI
        return xp.where(x == -_INF, _INF, result)   # lgamma(-inf) is +inf, as in lgamma

    out = _unary(input, function, MvlgammaBackward0, "mvlgamma")
    if out.grad_fn is not None:
        out.grad_fn.p = p
    return out


def _check_mvlgamma(input, p):
    if isinstance(input, Tensor) and input._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if p > _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")


class MvlgammaBackward0(_UnaryBackward):
    __slots__ = ("p",)

    def derivative(self, input, result):
        shifts = [input - 0.5 * i for i in range(self.p)]
        total = digamma(shifts[0])
        for shifted in shifts[1:]:
            total = total + digamma(shifted)
        return total


# ---------------------------------------------------------------- modified Bessel functions
def i0(input):
    """The modified Bessel function of the first kind, order 0."""
    return _unary(input, _sc.i0, I0Backward0, "i0")


class I0Backward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return special_i1(input)


def special_i0e(input):
    """i0(x) * exp(-|x|): i0 without its overflow."""
    return _unary(input, _sc.i0e, SpecialI0EBackward0, "special_i0e")


class SpecialI0EBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return special_i1e(input) - input.sgn() * result


def special_i1(input):
    """The modified Bessel function of the first kind, order 1."""
    return _unary(input, _sc.i1, SpecialI1Backward0, "special_i1")


class SpecialI1Backward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        # i1'(x) = i0(x) - i1(x)/x, which is 1/2 at x = 0
        regular, safe = _away_from_zero(input)
        return where(regular, i0(safe) - result / safe, 0.5)


def _away_from_zero(input):
    """(|x| > eps, x with those tiny entries replaced by eps) for the i1/i1e gradients.

    PyTorch gives 1/2 wherever |x| > eps fails, nan included, and divides only by the
    safe values, so the unused branch puts no nan into a second derivative either."""
    eps = _dtype.finfo(input.dtype).eps
    regular = input.abs() > eps
    return regular, where(regular, input, eps)


def special_i1e(input):
    """i1(x) * exp(-|x|)."""
    return _unary(input, _sc.i1e, SpecialI1EBackward0, "special_i1e")


class SpecialI1EBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        regular, safe = _away_from_zero(input)
        return where(regular, special_i0e(safe) - result * (safe.sgn() + safe.reciprocal()),
                     0.5)


def special_bessel_j0(input):
    """The Bessel function of the first kind, order 0 (PyTorch records no gradient)."""
    return _unary(input, _sc.j0, None, "special_bessel_j0", half=False)


def special_bessel_j1(input):
    """The Bessel function of the first kind, order 1 (PyTorch records no gradient)."""
    return _unary(input, _sc.j1, None, "special_bessel_j1", half=False)


# ---------------------------------------------------------------- error function relatives
def special_erfcx(input):
    """The scaled complementary error function exp(x**2) * erfc(x)."""
    return _unary(input, _sc.erfcx, SpecialErfcxBackward0, "special_erfcx", half=False)


class SpecialErfcxBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return 2.0 * input * result - _TWO_OVER_SQRT_PI


def special_ndtr(input):
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2, composed as PyTorch does."""
    if not isinstance(input, Tensor):
        raise TypeError(f"special_ndtr(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        input = input.to(_dtype._defaults.float_dtype)
    return mul_scalar(1 + erf(mul_scalar(input, _SQRT1_2)), 0.5)


def special_ndtri(input):
    """The inverse of the standard normal CDF."""
    return _unary(input, _sc.ndtri, SpecialNdtriBackward0, "special_ndtri", half=False)


class SpecialNdtriBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return _SQRT_2PI * (result.square() * 0.5).exp()


def special_log_ndtr(input):
    """log of the standard normal CDF, accurate far into the left tail."""
    return _unary(input, _sc.log_ndtr, SpecialLogNdtrBackward0, "special_log_ndtr", half=False)


class SpecialLogNdtrBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return (-(result + input.square() * 0.5)).exp() / _SQRT_2PI


# ---------------------------------------------------------------- entropy, sinc
def special_entr(input):
    """-x log x elementwise: 0 at 0, -inf for negative x."""
    return _unary(input, _sc.entr, SpecialEntrBackward0, "special_entr")


class SpecialEntrBackward0(_UnaryBackward):
    __slots__ = ()

    def derivative(self, input, result):
        return -(1 + log(input))


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0.

    Written here rather than through np.sinc so that sin(inf)'s invalid-value warning is
    raised from ember's module, where ember's filter silences it as PyTorch is silent."""
    xp = input._device.xp

    def function(x):
        angle = math.pi * xp.where(x == 0, 1e-20, x)   # sin(a) / a rounds to 1 there
        return xp.sin(angle) / angle
    return _unary(input, function, SincBackward0, "sinc")


class SincBackward0(_UnaryBackward):
    __slots__ = ()

    def backward(self, grad):
        # PyTorch's order, grad * (a cos a - sin a) / (pi x^2) with a = pi x, and +0.0
        # (not 0 * grad) wherever pi x^2 is 0, which includes x whose square underflows
        input, result = self.saved_tensors
        angle = input * math.pi
        squared = input * input * math.pi
        value = grad * (angle * cos(angle) - sin(angle)) / squared
        return (where(squared == 0, 0.0, value),)


def special_expit(input):
    """The logistic sigmoid under its scipy name."""
    return sigmoid(input)


# ---------------------------------------------------------------- binary: xlog1py, zeta, gammainc
def _binary(input, other, name):
    """Float arrays of a binary special function; a number may stand on either side."""
    if isinstance(input, Tensor):
        a, b, device = float_binary(input, other, name)
    else:
        require_tensor(other, name, "other", 2)
        b, a, device = float_binary(other, input, name)
    xp = device.xp
    if not hasattr(a, "dtype"):
        a = xp.asarray(a, b.dtype)
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, a.dtype)
    return a, b, device


def _binary_op(input, other, name, function, node_class, half=True, numbers=True):
    if not numbers:
        require_tensor(input, name, "input", 1)
        require_tensor(other, name, "other", 2)
    a, b, device = _binary(input, other, name)
    if not half and a.dtype in _REDUCED:
        raise unsupported(f"{name[8:]}_cpu", a)
    try:
        result = _evaluate(function, a, b)
    except ValueError:
        raise broadcast_error(a, b) from None
    out = wrap(result, device)
    if node_class is not None and any_requires_grad(input, other):
        node = node_class.variants[(isinstance(input, Tensor), isinstance(other, Tensor))]()
        node.save(input if isinstance(input, Tensor) else None,
                  other if isinstance(other, Tensor) else None)
        node.scalars = (input, other)
        attach(out, node, input, other)
    return out


class _BinaryBackward(Node):
    """A binary special function's node; PyTorch numbers the variants with a number for
    input (Backward1) or for other (Backward2)."""
    __slots__ = ("scalars",)

    def backward(self, grad):
        input, other = self.saved_tensors
        input = self.scalars[0] if input is None else input
        other = self.scalars[1] if other is None else other
        grads = self.derivatives(grad, input, other)
        return tuple(_reduced(g, x) if self.needs_input_grad(i) else None
                     for i, (g, x) in enumerate(zip(grads, (input, other))))


def _reduced(grad, x):
    if not isinstance(x, Tensor) or grad is None:
        return None
    shape = x._data.shape
    if grad._data.shape != shape:
        lead = grad.dim() - len(shape)
        dims = list(range(lead)) + [lead + i for i, s in enumerate(shape)
                                    if s == 1 and grad._data.shape[lead + i] != 1]
        if dims:
            grad = grad.sum(tuple(dims), keepdim=True)
        grad = grad.reshape(shape)
    return grad


def special_xlog1py(input, other):
    """x * log1p(y), with 0 where x is 0 (unless y is nan)."""
    return _binary_op(input, other, "special_xlog1py", _sc.xlog1py, SpecialXlog1PyBackward0)


class SpecialXlog1PyBackward0(_BinaryBackward):
    __slots__ = ()

    def derivatives(self, grad, input, other):
        grad_input = None
        if isinstance(input, Tensor):
            # PyTorch's formula: xlog1py(grad, other), zeroed where input == 0 and
            # other <= -1, so d/dx at x = 0 is log1p(other), not 0
            grad_input = special_xlog1py(grad, other).masked_fill(
                (input == 0) & (other <= -1), 0)
        grad_other = grad * input / (1 + other) if isinstance(other, Tensor) else None
        return grad_input, grad_other


def special_zeta(input, other):
    """The Hurwitz zeta function zeta(x, q)."""
    return _binary_op(input, other, "special_zeta", _sc.zeta, SpecialZetaBackward0,
                      half=False)


class SpecialZetaBackward0(_BinaryBackward):
    __slots__ = ()

    def derivatives(self, grad, input, other):
        if self.needs_input_grad(0):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, grad * -input * special_zeta(input + 1.0, other)


def special_gammainc(input, other):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _binary_op(input, other, "special_gammainc", _sc.gammainc, IgammaBackward0,
                      numbers=False)


class IgammaBackward0(_BinaryBackward):
    __slots__ = ()
    sign = 1.0

    def derivatives(self, grad, input, other):
        if self.needs_input_grad(0):
            raise RuntimeError("derivative for aten::igamma is not implemented")
        density = exp((input - 1) * log(other) - other - lgamma(input))
        return None, grad * self.sign * density


def special_gammaincc(input, other):
    """The regularized upper incomplete gamma function Q(a, x)."""
    return _binary_op(input, other, "special_gammaincc", _sc.gammaincc, IgammacBackward0,
                      numbers=False)


class IgammacBackward0(IgammaBackward0):
    __slots__ = ()
    sign = -1.0


# ---------------------------------------------------------------- in-place forms
def lgamma_(input):
    return inplace(input, lgamma)


def digamma_(input):
    return inplace(input, digamma)


def polygamma_(input, n):
    return inplace(input, lambda x: polygamma(n, x))


def mvlgamma_(input, p):
    """In place; an integer tensor cannot hold the float result (PyTorch's own words)."""
    _check_mvlgamma(input, p)
    if not input.dtype.is_floating_point:
        raise RuntimeError("mvlgamma: " + _errors.cannot_cast(input.dtype,
                                                              _dtype.get_default_dtype()))
    return inplace(input, mvlgamma, p)


def i0_(input):
    return inplace(input, i0)


def sinc_(input):
    return inplace(input, sinc)


def _variants(node_class):
    """Backward0 for two tensors, Backward1 for a number input, Backward2 for a number other."""
    stem = node_class.__name__[:-1]
    first = type(stem + "1", (node_class,), {"__slots__": ()})
    second = type(stem + "2", (node_class,), {"__slots__": ()})
    node_class.variants = {(True, True): node_class, (False, True): first, (True, False): second}


for _node_class in (SpecialXlog1PyBackward0, SpecialZetaBackward0, IgammaBackward0,
                    IgammacBackward0):
    _variants(_node_class)
