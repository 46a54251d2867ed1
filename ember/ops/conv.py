"""Convolution (nn.functional.conv*d, conv_transpose*d) and its gradients.

One op, `convolution`, covers plain and transposed convolution in any number of
spatial dims, as PyTorch's does (its node is `ConvolutionBackward0` for both).
Three bilinear maps close under differentiation: the convolution y = x * w, its
adjoint in x (a transposed convolution) and its adjoint in w (the weight
gradient). Each one's backward is written with the other two, so gradients of
any order come out of the same code. The array work is in `_im2col`.
"""
import warnings

from . import _autocast
from .. import _backend, _diagnose, _errors
from ..autograd.graph import Node, _hook_stack
from ._common import attach, grad_state, wrap
from . import _im2col
from .nn_resize import pad as _pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]

_SLOW_KERNELS = {(1, False): "slow_conv2d_cpu", (2, False): "slow_conv2d_cpu",
                 (3, False): "compute_columns3d", (1, True): "slow_conv_transpose2d_out_cpu",
                 (2, True): "slow_conv_transpose2d_out_cpu",
                 (3, True): "slow_conv_transpose3d_out_cpu"}


def _expand(value, n, name):
    """PyTorch's expand_param_if_needed: one value for every spatial dim, or exactly n."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return value


def _binding_tuple(value, n):
    """How the Python binding of conv{n}d reads an int argument: repeated n times."""
    return (value,) * n if isinstance(value, int) else value


def _sizes(values):
    return " x ".join(str(v) for v in values)


def _check_shapes(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                  groups):
    """PyTorch's check_shape_forward, in its order and with its messages."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    x_shape, w_shape = input._data.shape, weight._data.shape
    w_list = _errors.shape_list(w_shape)
    if len(w_shape) != len(x_shape):
        raise RuntimeError(f"Expected {len(w_shape)}-dimensional input for {len(w_shape)}-"
                           f"dimensional weight {w_list}, but got {len(x_shape)}-dimensional "
                           f"input of size {_errors.shape_list(x_shape)} instead")
    if w_shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {w_list} instead")
    if w_shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{w_list}] instead")
    x_list = _errors.shape_list(x_shape)
    if not transposed:
        if x_shape[1] != w_shape[1] * groups:
            raise _diagnose.noted(RuntimeError(
                f"Given groups={groups}, weight of size {w_list}, expected input{x_list} to "
                f"have {w_shape[1] * groups} channels, but got {x_shape[1]} channels instead"),
                "conv_channels", weight_shape=w_shape, input_shape=x_shape,
                expected=w_shape[1] * groups)
        _check_bias(bias, w_shape[0], f"Given weight of size {w_list}")
        padded = [s + 2 * p for s, p in zip(x_shape[2:], padding)]
        kernel = [d * (k - 1) + 1 for d, k in zip(dilation, w_shape[2:])]
        if any(p < k for p, k in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: ({_sizes(padded)}). "
                               f"Kernel size: ({_sizes(kernel)}). Kernel size can't be greater "
                               f"than actual input size")
        return
    if x_shape[1] != w_shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {w_list}, expected input"
                           f"{x_list} to have {w_shape[0]} channels, but got {x_shape[1]} "
                           f"channels instead")
    _check_bias(bias, w_shape[1] * groups, f"Given transposed=1, weight of size {w_list}")


def _check_bias(bias, channels, prefix):
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != channels):
        raise RuntimeError(f"{prefix}, expected bias to be 1-dimensional with {channels} "
                           f"elements, but got bias of size {_errors.shape_list(bias.shape)} "
                           f"instead")


def _check_transposed(size, out, stride, dilation, output_padding):
    """Output padding below stride or dilation, and a positive output size (1-D shown as 2-D)."""
    n = len(size)
    if n == 1:
        size, out = (1,) + size, (1,) + out
        stride, dilation, output_padding = (1,) + stride, (1,) + dilation, (0,) + output_padding
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")[3 - len(size):]
        parts = [f"{kind}_{name}: {v}" for kind, values in
                 (("output_padding", output_padding), ("stride", stride), ("dilation", dilation))
                 for name, v in zip(names, values)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(parts))
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({_sizes(size)}). Calculated output "
                           f"size per channel: ({_sizes(out)}). Output size is too small")


def _check_bias_dtype(input, bias):
    """PyTorch's CPU convolution compares the bias's dtype with the input's before any
    shape check (not for a transposed one, which finds the weight's first)."""
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_errors.cpp_type_name(input.dtype)}) and bias type "
                           f"({_errors.cpp_type_name(bias.dtype)}) should be the same")


def _check_dtypes(input, weight, bias, transposed, n, groups):
    x_dtype, w_dtype = input.dtype, weight.dtype
    # the transposed kernels exist for floats and int64 only, and say so before the weight
    if (x_dtype.name == "bool" or transposed and x_dtype.name in _NO_TRANSPOSED_KERNEL) \
            and input._data.size:
        raise NotImplementedError(_errors.not_implemented_for(_SLOW_KERNELS[n, transposed],
                                                              x_dtype))
    if x_dtype is not w_dtype:
        if (x_dtype.name == "bfloat16" or x_dtype.name == "float16" and _ONEDNN_HALF
                or not transposed and _takes_onednn(input, weight, groups)):
            message = (f"Input type ({_onednn_type_name(input)}) and weight type "
                       f"({_onednn_type_name(weight)}) should be the same or input should be "
                       "a MKLDNN tensor and weight is a dense tensor")
        else:
            message = (f"expected scalar type {_errors.scalar_type_name(x_dtype)} but found "
                       f"{_errors.scalar_type_name(w_dtype)}")
        raise _diagnose.noted(RuntimeError(message), "dtype", input_dtype=x_dtype,
                              parameter_dtype=w_dtype, operation="convolution")
    if transposed and n == 3 and bias is not None and bias.dtype is not x_dtype:
        # the 1-d and 2-d transposed kernels add a bias of any dtype, cast to the output's
        raise RuntimeError(f"expected scalar type {_errors.scalar_type_name(x_dtype)} but "
                           f"found {_errors.scalar_type_name(bias.dtype)}")


def _onednn_type_name(tensor):
    """The type oneDNN's dtype message names: bfloat16 has no legacy tensor type name, so
    PyTorch prints its dispatch type."""
    return "CPUBFloat16Type" if tensor.dtype.name == "bfloat16" else tensor.type()


# PyTorch's CPU build runs every half-precision convolution through oneDNN where the CPU
# computes in float16 itself (AVX512-FP16, or AMX-FP16, which comes with it), as it always
# does bfloat16; elsewhere half takes the slow kernels, whose dtype message differs.
_ONEDNN_HALF = bool(_backend.cpu_features().get("AVX512FP16"))


def _takes_onednn(input, weight, groups):
    """Whether PyTorch's CPU build would run this float32 convolution through oneDNN, whose
    dtype message differs: grouped, batched, large (over 20480 input elements) or with a
    kernel over 3 in both of its last two dimensions (measured against torch 2.13)."""
    x_shape, w_shape = input._data.shape, weight._data.shape
    return input.dtype.name == "float32" and (
        groups > 1 or x_shape[0] > 1 or input._data.size > 20480
        or len(w_shape) > 3 and w_shape[-1] > 3 and w_shape[-2] > 3)


_NO_TRANSPOSED_KERNEL = frozenset({"int8", "int16", "int32", "uint8"})


# ---------------------------------------------------------------- the op
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution: the one op behind every conv*d and conv_transpose*d."""
    if _autocast.on:
        return _autocast.lower_precision(convolution, input, weight, bias, stride, padding,
                                         dilation, transposed, output_padding, groups)
    if not transposed:
        _check_bias_dtype(input, bias)
    if weight._data.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    n = weight._data.ndim - 2
    stride = _expand(stride, n, "stride")
    padding = _expand(padding, n, "padding")
    dilation = _expand(dilation, n, "dilation")
    output_padding = _expand(output_padding, n, "output_padding")
    _check_shapes(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                  groups)
    params = (stride, padding, dilation, groups)
    if not transposed:
        _check_dtypes(input, weight, bias, False, n, groups)
        return _convolution(input, weight, bias, params, False, None)
    size = input._data.shape[2:]
    out = tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, s, p, d, k, op in
                zip(size, stride, padding, dilation, weight._data.shape[2:], output_padding))
    _check_transposed(size, out, stride, dilation, output_padding)
    _check_dtypes(input, weight, bias, True, n, groups)
    return _convolution(input, weight, bias, params, True, out)


# The forward's im2col columns are kept for the weight gradient up to this size: 9x a 3x3
# convolution's input, they are dropped after backward like any saved tensor.
_KEEP_COLUMNS_BYTES = 128 << 20


def _convolution(input, weight, bias, params, transposed, out_spatial):
    """Compute and record, without validation (backward passes come through here)."""
    xp = input._device.xp
    stride, padding, dilation, groups = params
    cols = None
    if transposed:
        y = _im2col.conv_input_grad(input._data, weight._data, out_spatial, stride, padding,
                                    dilation, groups, xp)
    else:
        y, cols = _im2col.conv_forward(input._data, weight._data, stride, padding, dilation,
                                       groups, xp)
    if bias is not None:
        b = bias._data
        y += (b if b.dtype == y.dtype else b.astype(y.dtype)).reshape((-1,) + (1,) * (y.ndim - 2))
    out = wrap(y, input._device)
    if grad_state.enabled and (input._requires_grad or weight._requires_grad
                               or bias is not None and bias._requires_grad):
        node = ConvolutionBackward0()
        node.params = params
        node.transposed = transposed
        # saved-tensor hooks (save_on_cpu, ...) exist to control what backward keeps
        keep = (cols is not None and weight._requires_grad and not _hook_stack
                and cols.nbytes <= _KEEP_COLUMNS_BYTES)
        node.columns = cols if keep else None
        node.save(input, weight)
        attach(out, node, input, weight, bias)
    return out


def _fit(t, size):
    """Crop trailing positions a stride never reached (output_padding beyond the stride)."""
    if t._data.shape[2:] == tuple(size):
        return t
    return t[(Ellipsis,) + tuple(slice(0, s) for s in size)]


class ConvolutionBackward0(Node):
    """Input grad: the adjoint convolution; weight grad: `_weight_grad`; bias grad: a sum."""
    __slots__ = ("params", "transposed", "columns")

    def release(self):
        super().release()
        self.columns = None

    def backward(self, grad):
        input, weight = self.saved_tensors
        params = self.params
        size = input._data.shape[2:]
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            if self.transposed:
                grad_input = _fit(_convolution(grad, weight, None, params, False, None), size)
            else:
                grad_input = _convolution(grad, weight, None, params, True, size)
        if self.needs_input_grad(1):
            kernel = weight._data.shape[2:]
            if self.transposed:
                grad_weight = _weight_grad(grad, input, kernel, params)
            else:
                grad_weight = _weight_grad(input, grad, kernel, params, self.columns)
        if self.needs_input_grad(2):
            grad_bias = grad.sum((0,) + tuple(range(2, grad._data.ndim)))
        return grad_input, grad_weight, grad_bias


def _weight_grad(input, grad, kernel, params, columns=None):
    """The weight gradient of conv(input, w) given the output's gradient: bilinear in both.
    `columns`: the forward's im2col of `input`, when it was kept."""
    stride, padding, dilation, groups = params
    y = _im2col.conv_weight_grad(input._data, grad._data, kernel, stride, padding, dilation,
                                 groups, input._device.xp, columns)
    out = wrap(y, input._device)
    if grad_state.enabled and (input._requires_grad or grad._requires_grad):
        node = ConvolutionBackwardBackward0()
        node.params = params
        node.save(input, grad)
        attach(out, node, input, grad)
    return out


class ConvolutionBackwardBackward0(Node):
    """Backward of the weight gradient: a transposed conv (for input) and a conv (for grad)."""
    __slots__ = ("params",)

    def backward(self, grad):
        input, grad_output = self.saved_tensors
        params = self.params
        grad_input = grad_grad = None
        if self.needs_input_grad(0):
            grad_input = _convolution(grad_output, grad, None, params, True,
                                      input._data.shape[2:])
        if self.needs_input_grad(1):
            grad_grad = _fit(_convolution(input, grad, None, params, False, None),
                             grad_output._data.shape[2:])
        return grad_input, grad_grad


# ---------------------------------------------------------------- conv1d/2d/3d
def _conv_nd(input, weight, bias, stride, padding, dilation, groups, n):
    shape = input._data.shape
    if len(shape) not in (n + 1, n + 2):
        raise _diagnose.noted(RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to conv{n}d, but got "
            f"input of size: {_errors.shape_list(shape)}"), "conv_dims", operation=f"conv{n}d",
            shape=shape, spatial=n)
    unbatched = len(shape) == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _binding_tuple(stride, n), _binding_tuple(dilation, n)
    if isinstance(padding, str):
        input, padding = _padding_mode(input, weight, padding, stride, dilation)
    out = convolution(input, weight, bias, stride, _binding_tuple(padding, n), dilation, False,
                      (0,), groups)
    return out.squeeze(0) if unbatched else out


def _padding_mode(input, weight, padding, stride, dilation):
    """'valid' is no padding; 'same' pads d*(k-1) in total, the odd one on the right."""
    if padding == "valid":
        return input, 0
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    n = weight._data.ndim - 2
    if any(s != 1 for s in _expand(stride, n, "stride")):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = _expand(dilation, n, "dilation")
    totals = [d * (k - 1) for d, k in zip(dilation, weight._data.shape[2:])]
    left = tuple(t // 2 for t in totals)
    if any(t % 2 for t in totals):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", UserWarning,
                      stacklevel=4)
        pads = []
        for t in reversed(totals):          # F.pad counts from the last dim
            pads += [0, t % 2]
        input = _pad(input, pads)
    return input, left


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation over (N, C, L) or unbatched (C, L) input."""
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation over (N, C, H, W) or unbatched (C, H, W) input."""
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation over (N, C, D, H, W) or unbatched input."""
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                       n):
    shape = input._data.shape
    if len(shape) not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"conv_transpose{n}d, but got input of size: "
                           f"{_errors.shape_list(shape)}")
    if isinstance(padding, str):
        raise TypeError(f"conv_transpose{n}d(): argument 'padding' must be tuple of ints, not "
                        f"str")
    unbatched = len(shape) == n + 1
    if unbatched:
        input = input.unsqueeze(0)
    out = convolution(input, weight, bias, _binding_tuple(stride, n),
                      _binding_tuple(padding, n), _binding_tuple(dilation, n), True,
                      _binding_tuple(output_padding, n), groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv1d in its input ("deconvolution")."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv2d in its input ("deconvolution")."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The adjoint of conv3d in its input."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups,
                              dilation, 3)
