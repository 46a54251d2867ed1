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
import warnings

from . import _autocast
from .. import _arguments, _dtype
from ..autograd.graph import Node
from . import nn_ops
from .._errors import scalar_type_name
from ._common import (Tensor, attach, grad_state, scalar_number, scalar_value, sum_to_shape,
                      wrap, wrap_dim)
from ._common import inplace as _inplace, inplace_overlapping
from ._elementwise import unsupported, upcast
from ._activation_base import _SavedInput, _finish, _floating
from .joining import cat
from .nn_gelu import gelu
from .pointwise_math import sigmoid, tanh
from .pointwise_select import _clamp_forward, relu as _relu, relu_, where

__all__ = ["relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "sigmoid",
           "tanh", "hardsigmoid", "hardswish", "softplus", "softsign", "logsigmoid", "prelu",
           "softmax", "log_softmax", "softmin", "glu", "threshold", "threshold_", "softshrink",
           "hardshrink", "tanhshrink"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_INT_LIMITS = {d.np_dtype: (_dtype.iinfo(d).min, _dtype.iinfo(d).max, c_name)
               for d, c_name in ((_dtype.uint8, "uint8_t"), (_dtype.int8, "int8_t"),
                                 (_dtype.int16, "int16_t"), (_dtype.int32, "int"),
                                 (_dtype.int64, "int64_t"))}


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


# ---------------------------------------------------------------- silu, mish (gelu: nn_gelu)
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
