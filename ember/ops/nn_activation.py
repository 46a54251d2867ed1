"""Activation functions of nn.functional: the relu family, elu/selu/celu, gelu, silu,
mish, the hard* approximations, softplus and log-sigmoid, prelu, glu, threshold and
the shrink functions, plus nn.functional's softmax/log_softmax/softmin doors.

Forwards run on arrays (float16/bfloat16 in float32, rounded once, as PyTorch's CPU
kernels do); each backward node is named as PyTorch names it and written with
ember ops, so double backward works. `inplace=True` goes through `_common.inplace`;
where PyTorch records a different node for the in-place kernel (LeakyReluBackward1,
EluBackward1, ...) ember records that name with the same formula, evaluated on the
values the input had before it was overwritten.
"""
import math
import warnings

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _arguments, _backend, _compiled, _dtype
from ..autograd.graph import Node
from . import _erf, nn_ops
from .._errors import scalar_type_name
from ._common import (Tensor, attach, grad_state, scalar_number, scalar_value, sum_to_shape,
                      wrap, wrap_dim)
from ._common import inplace as _inplace, inplace_overlapping
from ._elementwise import unsupported, upcast
from .joining import cat
from .pointwise_math import sigmoid, tanh
from .pointwise_select import _clamp_forward, relu as _relu, relu_, where

__all__ = ["relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "sigmoid",
           "tanh", "hardsigmoid", "hardswish", "softplus", "softsign", "logsigmoid", "prelu",
           "softmax", "log_softmax", "softmin", "glu", "threshold", "threshold_", "softshrink",
           "hardshrink", "tanhshrink"]

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_INT_LIMITS = {d.np_dtype: (_dtype.iinfo(d).min, _dtype.iinfo(d).max, c_name)
               for d, c_name in ((_dtype.uint8, "uint8_t"), (_dtype.int8, "int8_t"),
                                 (_dtype.int16, "int16_t"), (_dtype.int32, "int"),
                                 (_dtype.int64, "int64_t"))}
_SQRT_HALF = math.sqrt(0.5)
_FLOAT32 = _dtype.float32.np_dtype
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_BETA = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715


def _floating(input, kernel):
    """input's array; PyTorch's NotImplementedError when the kernel has no such dtype."""
    try:
        a = input._data
    except AttributeError:
        raise TypeError(f"{kernel.split('_cpu')[0]}(): argument 'input' (position 1) must be "
                        f"Tensor, not {type(input).__name__}") from None
    if not _is_floating(a.dtype) and a.dtype not in _REDUCED:
        raise unsupported(kernel, a)
    return a


def _finish(input, result, node_class, params=None):
    """Wrap the result array and record `node_class` (saving the input) when needed."""
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.params = params
        node.save(input)
        attach(out, node, input)
    return out


class _SavedInput(Node):
    """A node that saved its input and the op's scalar parameters."""
    __slots__ = ("params",)


# ---------------------------------------------------------------- relu, hardtanh, relu6
def relu(input, inplace=False):
    """max(input, 0): nn.functional's door into ember.relu / relu_."""
    try:
        return relu_(input) if inplace else _relu(input)
    except (AttributeError, TypeError):
        _arguments.check("relu_" if inplace else "relu", (input,))
        raise


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val]; integers keep their dtype."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    try:
        if inplace:
            return hardtanh_(input, min_val, max_val)
        return _hardtanh(input, min_val, max_val)
    except (AttributeError, TypeError):  # PyTorch's Python door hands these to its parser
        _arguments.check("hardtanh_" if inplace else "hardtanh", (input, min_val, max_val))
        raise


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _inplace(input, _hardtanh, min_val, max_val)


def _hardtanh(input, min_val, max_val):
    a = input._data
    kind = a.dtype.kind
    if kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if kind == "u" and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    xp = input._device.xp
    cast = a.dtype.type
    result = _clamp_forward(xp, a, cast(min_val), cast(max_val))   # keeps -0.0, as PyTorch
    return _finish(input, result, HardtanhBackward0, (min_val, max_val))


class HardtanhBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        low, high = self.params
        return (where((input > low).logical_and(input < high), grad, 0.0),)


def relu6(input, inplace=False):
    """min(max(input, 0), 6): PyTorch records it as a hardtanh."""
    if not inplace:
        try:
            return _hardtanh(input, 0.0, 6.0)
        except (AttributeError, TypeError):
            _arguments.check("relu6", (input,))
            raise
    return hardtanh(input, 0.0, 6.0, inplace)


# ---------------------------------------------------------------- leaky relu
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input where positive, negative_slope * input elsewhere."""
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _leaky_relu(input, negative_slope, LeakyReluBackward0)


def leaky_relu_(input, negative_slope=0.01):
    return _inplace(input, _leaky_relu, negative_slope, LeakyReluBackward1)


def _leaky_relu(input, negative_slope, node_class):
    a = _floating(input, "leaky_relu_cpu")
    xp = input._device.xp
    result = upcast(lambda x: xp.where(x > 0, x, x * negative_slope), a)
    return _finish(input, result, node_class, negative_slope)


class LeakyReluBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (where(input > 0, grad, grad * self.params),)


class LeakyReluBackward1(LeakyReluBackward0):
    __slots__ = ()


# ---------------------------------------------------------------- elu, selu, celu
def _elu(input, alpha, scale, input_scale, node_class):
    """scale * input where positive, alpha * scale * (exp(input * input_scale) - 1) elsewhere."""
    a = _floating(input, "elu_cpu")
    xp = input._device.xp

    def forward(x):
        negative = xp.expm1(xp.minimum(x, 0) * input_scale) * (alpha * scale)
        return xp.where(x > 0, x * scale, negative)
    return _finish(input, upcast(forward, a), node_class, (alpha, scale, input_scale))


class EluBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        alpha, scale, input_scale = self.params
        negative = grad * (input.clamp_max(0) * input_scale).exp() * (alpha * scale * input_scale)
        return (where(input > 0, grad * scale, negative),)


class EluBackward1(EluBackward0):
    __slots__ = ()


class CeluBackward0(EluBackward0):
    __slots__ = ()


class CeluBackward1(EluBackward0):
    __slots__ = ()


def elu(input, alpha=1.0, inplace=False):
    if inplace:
        return elu_(input, alpha)
    return _elu(input, alpha, 1.0, 1.0, EluBackward0)


def elu_(input, alpha=1.0):
    return _inplace(input, _elu, alpha, 1.0, 1.0, EluBackward1)


def selu(input, inplace=False):
    """elu with the self-normalising constants (PyTorch records it as an elu)."""
    if inplace:
        return selu_(input)
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, EluBackward0)


def selu_(input):
    return _inplace(input, _elu, _SELU_ALPHA, _SELU_SCALE, 1.0, EluBackward1)


def _check_celu(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if inplace:
        return celu_(input, alpha)
    _check_celu(alpha)
    return _elu(input, alpha, 1.0, 1.0 / alpha, CeluBackward0)


def celu_(input, alpha=1.0):
    _check_celu(alpha)
    return _inplace(input, _elu, alpha, 1.0, 1.0 / alpha, CeluBackward1)


# ---------------------------------------------------------------- gelu, silu, mish
def gelu(input, *, approximate="none"):
    """x * Phi(x), exactly (erf) or with PyTorch's tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    a = _floating(input, "GeluKernelImpl")
    xp = input._device.xp
    if approximate == "none" and a.dtype not in _REDUCED:
        density = None
        parts = _compiled_gelu(a) if a.dtype == _FLOAT32 else None
        if parts is not None:
            result, one_plus, density = parts
        else:
            if a.dtype == _FLOAT32 and a.ndim:
                one_plus, density = _erf.gelu_parts(xp, a)
            else:
                one_plus = _erf.erf(xp, a * _SQRT_HALF)
                one_plus += 1
            result = one_plus * a  # x * 0.5 * (1 + erf) (the 0.5 is exact in any order)
            result *= 0.5
        out = _finish(input, result, GeluBackward0, approximate)
        if out.grad_fn is not None:  # the backward's cdf (and density), without a second pass
            out.grad_fn.one_plus, out.grad_fn.density = one_plus, density
        return out
    if approximate == "none":
        def forward(x):
            return x * 0.5 * (1 + _erf.erf(xp, x * _SQRT_HALF))
    else:
        kernels = _gelu_kernels(a)
        if kernels is not None:   # the formula below in one compiled pass
            result = xp.empty(a.shape, _FLOAT32)
            _compiled.split_run(kernels.gelu_tanh_forward, [a.reshape(-1), result.reshape(-1)])
            return _finish(input, result, GeluBackward0, approximate)

        def forward(x):
            return 0.5 * x * (1 + xp.tanh(_GELU_BETA * (x + _GELU_KAPPA * x * x * x)))
    return _finish(input, upcast(forward, a), GeluBackward0, approximate)


def _gelu_kernels(*arrays):
    """The compiled gelu kernels when every array is a large C-contiguous NumPy float32
    array of one shape and numba is installed; else None (the NumPy formulas run)."""
    first = arrays[0]
    if first.size < _compiled.MIN_SIZE:
        return None
    for array in arrays:
        if (array.__class__ is not _backend.ndarray or array.dtype != _FLOAT32
                or array.shape != first.shape or not array.flags.c_contiguous):
            return None
    return _compiled.load("activation_kernels")


def _compiled_gelu(a):
    """gelu(a), 1 + erf(a / sqrt 2) and the normal density at a, in one compiled pass
    (`_compiled.activation_kernels`: gelu_parts' arithmetic), or None."""
    kernels = _gelu_kernels(a)
    if kernels is None:
        return None
    parts = [_backend.numpy.empty(a.shape, _FLOAT32) for _ in range(3)]
    _compiled.split_run(kernels.gelu_forward, [x.reshape(-1) for x in [a] + parts])
    return parts


class GeluBackward0(_SavedInput):
    __slots__ = ("one_plus", "density")

    def release(self):
        super().release()
        self.one_plus = self.density = None

    def backward(self, grad):
        (x,) = self.saved_tensors
        one_plus = getattr(self, "one_plus", None)
        if one_plus is not None and not grad_state.enabled:  # first order: on arrays
            a, xp = x._data, x._device.xp
            density = self.density
            kernels = None if density is None else _gelu_kernels(a, grad._data, one_plus,
                                                                   density)
            if kernels is not None:   # grad * (x * density + 0.5 * one_plus), one pass
                slope = xp.empty(a.shape, _FLOAT32)
                _compiled.split_run(kernels.gelu_backward, [
                    y.reshape(-1) for y in (a, one_plus, density, grad._data, slope)])
                return (wrap(slope, x._device),)
            if density is None:
                density = xp.asarray(a * a)  # (0-d: still an array)
                density *= -0.5
                xp.exp(density, out=density)
                density *= _INV_SQRT_2PI
            slope = xp.asarray(a * density)  # grad * (cdf + x * pdf), in place
            slope += 0.5 * one_plus
            slope *= grad._data
            return (wrap(slope, x._device),)
        if self.params == "tanh" and not grad_state.enabled:
            kernels = _gelu_kernels(x._data, grad._data)
            if kernels is not None:   # the tanh formula below in one compiled pass
                grad_input = x._device.xp.empty(x._data.shape, _FLOAT32)
                _compiled.split_run(kernels.gelu_tanh_backward, [
                    y.reshape(-1) for y in (x._data, grad._data, grad_input)])
                return (wrap(grad_input, x._device),)
        dtype = x.dtype if x._data.dtype in _REDUCED else None
        if dtype is not None:  # PyTorch's kernel works in float32 and rounds once
            x, grad = x.float(), grad.float()
        if self.params == "none":
            cdf = 0.5 * (1 + (x * _SQRT_HALF).erf())
            pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
            grad_input = grad * (cdf + x * pdf)
        else:
            x_sq = x * x
            inner_tanh = ((x + x_sq * x * _GELU_KAPPA) * _GELU_BETA).tanh()
            left = 0.5 * (1 + inner_tanh)
            right = (0.5 * x * (1 - inner_tanh * inner_tanh) * _GELU_BETA
                     * (1 + 3 * _GELU_KAPPA * x_sq))
            grad_input = grad * (left + right)
        return (grad_input if dtype is None else grad_input.to(dtype),)


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    if inplace:
        return _inplace(input, _silu)
    return _silu(input)


def _silu(input):
    a = _floating(input, "silu_cpu")
    xp = input._device.xp
    return _finish(input, upcast(lambda x: x / (1 + xp.exp(-x)), a), SiluBackward0)


class SiluBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        s = x.sigmoid()
        return (grad * s * (1 + x * (1 - s)),)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    if inplace:
        return _inplace(input, _mish)
    return _mish(input)


def _mish(input):
    a = _floating(input, "mish_cpu")
    xp = input._device.xp
    return _finish(input, upcast(lambda x: x * xp.tanh(xp.log1p(xp.exp(x))), a), MishBackward0)


class MishBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        t = softplus(x).tanh()
        return (grad * (t + x * x.sigmoid() * (1 - t * t)),)


# ---------------------------------------------------------------- hard approximations
def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    if inplace:
        return _inplace(input, _hardsigmoid)
    return _hardsigmoid(input)


def _hardsigmoid(input):
    a = _floating(input, "hardsigmoid_cpu")
    xp = input._device.xp
    result = upcast(lambda x: xp.minimum(xp.maximum(x + 3, 0), 6) / 6, a)
    return _finish(input, result, HardsigmoidBackward0)


class HardsigmoidBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        # PyTorch multiplies by the float constant 1.0f / 6.0f, even for float64 grads
        return (where((x > -3).logical_and(x < 3), grad * _ONE_SIXTH_FLOAT32, 0.0),)


_ONE_SIXTH_FLOAT32 = 0.1666666716337204     # float(numpy.float32(1) / numpy.float32(6))


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    if inplace:
        return _inplace(input, _hardswish)
    return _hardswish(input)


def _hardswish(input):
    a = _floating(input, "hardswish_cpu")
    xp = input._device.xp
    result = upcast(lambda x: x * xp.minimum(xp.maximum(x + 3, 0), 6) / 6, a)
    return _finish(input, result, HardswishBackward0)


class HardswishBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        # PyTorch's branches: 0 for x <= -3, the slope for -3 < x < 3, grad from 3 up
        middle = where(x < 3, grad * (x / 3 + 0.5), grad)
        return (where(x <= -3, 0.0, middle),)


# ---------------------------------------------------------------- softplus family
def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    a = _floating(input, "softplus_cpu")
    xp = input._device.xp
    beta, threshold = _kernel_scalar(beta, a), _kernel_scalar(threshold, a)

    def forward(x):
        scaled = x * beta
        return xp.where(scaled > threshold, x, xp.log1p(xp.exp(scaled)) / beta)
    return _finish(input, upcast(forward, a), SoftplusBackward0, (beta, threshold))


def _kernel_scalar(value, a):
    """A Number argument as PyTorch's kernel holds it: a float (a double for float64
    input), refusing what overflows it; a 0-dim tensor is read as its number."""
    if isinstance(value, Tensor):
        value = value.item()
    wide = a.dtype == _dtype.float64.np_dtype
    return scalar_number(scalar_value(value), _dtype.float64 if wide else _dtype.float32)


class SoftplusBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        beta, threshold = self.params
        scaled = x * beta
        return (where(scaled > threshold, grad, grad * scaled.sigmoid()),)


def softsign(input):
    """x / (1 + |x|), composed as PyTorch composes it."""
    return input / (input.abs() + 1)


def logsigmoid(input):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), which neither overflows nor underflows."""
    a = _floating(input, "log_sigmoid_cpu")
    xp = input._device.xp
    result = upcast(lambda x: xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x))), a)
    return _finish(input, result, LogSigmoidBackward0)


class LogSigmoidBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * (-x).sigmoid(),)


# ---------------------------------------------------------------- prelu
def prelu(input, weight):
    """leaky relu whose slope is learned: one weight, or one per channel (dim 1)."""
    if _autocast.on:
        return _autocast.lower_precision(prelu, input, weight)
    count = weight.numel()
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    ndim = input.dim()
    if count != 1:
        channels = input.shape[1] if ndim >= 2 else 1
        if channels != count:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {count} and channel size = {channels}.")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{_scalar_name(input)} and {_scalar_name(weight)}")
    shape = tuple(count if i == 1 else 1 for i in range(ndim))
    if tuple(weight.shape) != shape:
        weight = weight.reshape(shape)
    return _prelu_kernel(input, weight)


def _scalar_name(t):
    return scalar_type_name(t.dtype)


def _prelu_kernel(input, weight):
    a = _floating(input, "prelu_cpu")
    w = weight._data
    xp = input._device.xp
    out = wrap(upcast(lambda x, slope: xp.where(x > 0, x, slope * x), a, w), input._device)
    if grad_state.enabled and (input._requires_grad or weight._requires_grad):
        node = PreluKernelBackward0()
        node.save(input, weight)
        attach(out, node, input, weight)
    return out


class PreluKernelBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, weight = self.saved_tensors
        positive = input > 0
        grad_input = grad_weight = None
        if self.needs_input_grad(0):
            grad_input = where(positive, grad, grad * weight)
        if self.needs_input_grad(1):
            grad_weight = sum_to_shape(where(positive, 0.0, input * grad), weight.shape)
        return grad_input, grad_weight


# ---------------------------------------------------------------- softmax family
def _softmax_dim(name, ndim, stacklevel):
    """PyTorch's legacy choice of dim when none is given (0 for 0-, 1- and 3-D inputs)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`; the one definition is ember.softmax."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return nn_ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along `dim`, computed stably by ember.log_softmax."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return nn_ops.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x): PyTorch records a negation then a softmax."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return nn_ops.softmax(-input, dim, dtype)


# ---------------------------------------------------------------- glu
def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of input along `dim`."""
    if input.dim() == 0:  # first, as PyTorch's Python-level F.glu asks
        raise RuntimeError("glu does not support scalars because halving size must be even")
    a = _floating(input, "glu_cpu")
    try:
        axis = wrap_dim(dim, a.ndim)
    except (AttributeError, TypeError):
        _arguments.check("glu", (input, dim))
        raise
    size = a.shape[axis]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {size}")
    xp = input._device.xp
    first, second = xp.split(a, 2, axis=axis)
    result = upcast(lambda x, y: x / (1 + xp.exp(-y)), first, second)
    return _finish(input, result, GluBackward0, axis)


class GluBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        first, second = input.chunk(2, self.params)
        gate = second.sigmoid()
        grad_first = grad * gate
        grad_second = grad_first * first * (1 - gate)
        return (cat((grad_first, grad_second), self.params),)


# ---------------------------------------------------------------- threshold and shrinks
def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, value elsewhere."""
    if inplace:
        return threshold_(input, threshold, value)
    return _threshold(input, threshold, value, ThresholdBackward0)


def threshold_(input, threshold, value):
    """PyTorch's threshold kernel skips the overlap check: it writes into an expand too."""
    return inplace_overlapping(input, _threshold, threshold, value, ThresholdBackward1)


def _threshold(input, threshold, value, node_class):
    a = input._data
    if a.dtype.kind == "b":
        raise unsupported("threshold_cpu", a)
    xp = input._device.xp
    if a.dtype.kind in "iu":
        limits = _INT_LIMITS[a.dtype]
        for number in (threshold, value):
            if not limits[0] <= number <= limits[1]:
                raise RuntimeError(f"value cannot be converted to type {limits[2]} without "
                                   "overflow")
        threshold_, value_ = int(threshold), int(value)   # PyTorch casts both to the dtype
    else:
        threshold_, value_ = threshold, value
    # PyTorch's test is x <= threshold -> value: a NaN compares false and passes through
    result = xp.where(a <= threshold_, value_, a).astype(a.dtype, copy=False)
    return _finish(input, result, node_class, threshold)


class ThresholdBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (where(input <= self.params, 0.0, grad),)  # NaN inputs pass their gradient


class ThresholdBackward1(ThresholdBackward0):
    __slots__ = ()


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    a = _floating(input, "softshrink_check")
    xp = input._device.xp

    def forward(x):
        return xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, 0 * x))
    return _finish(input, upcast(forward, a), SoftshrinkBackward0, lambd)


class SoftshrinkBackward0(_SavedInput):
    __slots__ = ()

    def backward(self, grad):
        (x,) = self.saved_tensors
        inside = (x >= -self.params).logical_and(x <= self.params)
        return (where(inside, 0.0, grad),)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, 0 elsewhere."""
    a = _floating(input, "hardshrink_cpu")
    xp = input._device.xp
    result = xp.where((a >= -lambd) & (a <= lambd), a.dtype.type(0), a)
    return _finish(input, result, HardshrinkBackward0, lambd)


class HardshrinkBackward0(SoftshrinkBackward0):
    __slots__ = ()


def tanhshrink(input):
    """x - tanh(x), composed as PyTorch composes it."""
    return input - input.tanh()
