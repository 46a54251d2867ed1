"""Normalisation ops of nn.functional: batch_norm, layer_norm, group_norm (each one node, as
PyTorch's native kernels are), and instance_norm, local_response_norm (which PyTorch composes
from other ops, so ember does too).

The three native ops share one idea: subtract the mean over some axes, scale by the inverse
standard deviation (biased variance), then apply a per-feature affine. Their forward runs in
NumPy (half precision in float32, rounded once). Their backward is written with ember ops on
the saved input: when the backward itself is being recorded (`create_graph=True`), the
statistics are recomputed from the input with ember ops, so double backward is exact; otherwise
the statistics saved by the forward are used as constants.

Where a formula has several exact forms, each op takes PyTorch's CPU kernel's (batch_norm's
x * alpha + beta, group_norm's and layer_norm's input gradients in x rather than x - mean, the
weight applied where PyTorch applies it): at an inf weight or bias the forms disagree on
which entries are inf and which NaN, and learners' models do reach those values.
"""
import math

from .._dtype import is_floating as _is_floating
from .. import _backend, _compiled, _diagnose, _dtype, _errors
from ..autograd.graph import Node
from .. import _size
from . import joining
from ._common import attach, grad_state, make_tensor, wrap_dim
from ._row_sums import column_sums as _column_sums, row_sums as _row_sums

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "local_response_norm"]

_FLOAT32 = _dtype.float32.np_dtype
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded


# ---------------------------------------------------------------- shared helpers
def _compute_array(input, kernel):
    """The input's array in compute precision; NotImplementedError for non-float dtypes."""
    data = input._data
    if not _is_floating(data.dtype) and data.dtype not in _REDUCED:
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))
    return data.astype(_FLOAT32) if data.dtype in _REDUCED else data


def _check_param_dtypes(input, *params):
    """PyTorch's CPU rule: parameters share the input's dtype, or are float32 for half input."""
    dtype = input.dtype
    for p in params:
        if p is not None and p.dtype is not dtype:
            if dtype is _dtype.float64:
                raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
            for q in params:
                if q is not None and q.dtype is not _dtype.float32 and q.dtype is not dtype:
                    raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type "
                                       "of Float")
            return


def _check_mixed_dtypes(input, *params):
    """layer_norm's CPU rule, checked before any shape: when the first given parameter's
    dtype differs from the input's, every parameter must be float32 and the input half or
    bfloat16 (argcheck10)."""
    first = next((p for p in params if p is not None), None)
    if first is None or first.dtype is input.dtype:
        return
    if any(p is not None and p.dtype is not _dtype.float32 for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._data.dtype not in _REDUCED:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _statistics(x, axes):
    """Mean and biased variance over `axes` (kept as size-1 dims), in NumPy."""
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    return centered, mean, var


def _ember_statistics(x, axes, eps):
    """Mean and inverse std with ember ops: the differentiable twin of `_statistics`."""
    mean = x.mean(axes, keepdim=True)
    centered = x - mean
    invstd = ((centered * centered).mean(axes, keepdim=True) + eps).rsqrt()
    return mean, invstd


def _sum_over(t, axes):
    """`t` summed over `axes` (no reduction at all when there are none)."""
    return t.sum(axes) if axes else t


def _in_compute(t, compute):
    return t if compute is None else t.to(compute)


def _param_dtype(weight, bias):
    """The dtype the affine parameters' gradients are returned in."""
    param = weight if weight is not None else bias
    return None if param is None else param.dtype


def _constant(array, device):
    return make_tensor(array, device)


# ---------------------------------------------------------------- batch_norm
def _verify_batch_size(size):
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise _diagnose.noted(ValueError("Expected more than 1 value per channel when "
                                         f"training, got input size {size!r}"),
                              "batchnorm", size=size)


def _check_channels(name, tensor, channels):
    if tensor is not None and tensor.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) over the batch and spatial dims.

    In training the batch statistics are used and the running statistics (if given) are
    updated in place with `momentum` (running_var with the unbiased variance); in evaluation
    the running statistics are used.
    """
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if momentum is None or not isinstance(momentum, (int, float)):
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    ndim = input.dim()
    channels = input.shape[wrap_dim(1, ndim)]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _check_channels(name, t, channels)
    x = _compute_array(input, "batch_norm")
    _check_param_dtypes(input, weight, bias, running_mean, running_var)
    axes = (0,) + tuple(range(2, ndim))
    param_shape = (1, channels) + (1,) * (ndim - 2)
    xp = input._device.xp
    if training:
        _, mean, var = _statistics(x, axes)
        if running_mean is not None and x.size:
            _update_running_stats(running_mean, running_var, mean, var, momentum,
                                  x.size // channels)
    else:
        mean = running_mean._data.reshape(param_shape).astype(x.dtype)
        var = running_var._data.reshape(param_shape).astype(x.dtype)
    invstd = 1.0 / xp.sqrt(var + eps)
    # x * alpha + beta with alpha = invstd * weight, beta = bias - mean * alpha: PyTorch's
    # order, so an inf weight or bias meets inf - inf (NaN) where PyTorch's does
    alpha = invstd if weight is None else invstd * weight._data.reshape(param_shape)
    beta = (0.0 if bias is None else bias._data.reshape(param_shape)) - mean * alpha
    out = x * alpha
    out += beta
    out = make_tensor(out.astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and (input._requires_grad or weight is not None and
                               weight._requires_grad or bias is not None and bias._requires_grad):
        node = NativeBatchNormBackward0()
        node.training = training
        node.eps = eps
        node.axes = axes
        node.stats = (mean, invstd)
        node.param_dtype = _param_dtype(weight, bias)
        node.save(input, weight)
        attach(out, node, input, weight, bias)
    return out


def _update_running_stats(running_mean, running_var, mean, var, momentum, count):
    """running = (1 - momentum) * running + momentum * batch, in place (outside the graph)."""
    xp = running_mean._device.xp
    unbiased = var.reshape(-1) * (count / (count - 1) if count > 1 else float("nan"))
    for running, batch in ((running_mean, mean.reshape(-1)), (running_var, unbiased)):
        data = running._data
        xp.copyto(data, data * (1 - momentum) + batch * momentum, casting="unsafe")
        running._storage.version += 1


class NativeBatchNormBackward0(Node):
    __slots__ = ("training", "eps", "axes", "stats", "param_dtype")

    def backward(self, grad):
        input, weight = self.saved_tensors
        compute = _dtype.float32 if input._data.dtype in _REDUCED else None
        x, grad = _in_compute(input, compute), _in_compute(grad, compute)
        axes = self.axes
        if self.training and grad_state.enabled:
            mean, invstd = _ember_statistics(x, axes, self.eps)
        else:
            mean, invstd = (_constant(s, input._device) for s in self.stats)
        # PyTorch's order: dotp = sum(dy * (x - mean)), grad_weight = dotp * invstd and
        # dx = (dy - mean(dy) - (x - mean) * dotp * invstd^2 / n) * invstd * weight, the
        # weight last, so an inf weight gives inf (or NaN only where the bracket is 0)
        centered = x - mean
        count = x.numel() // max(mean.numel(), 1)
        dotp = (grad * centered).sum(axes, keepdim=True)
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            if self.training:
                k = dotp * invstd * invstd / count
                grad_input = (grad - grad.mean(axes, keepdim=True) - centered * k) * invstd
            else:
                grad_input = grad * invstd
            if weight is not None:
                grad_input = grad_input * _in_compute(weight, compute).reshape(mean.shape)
            grad_input = _in_compute(grad_input, compute and input.dtype)
        if self.needs_input_grad(1):
            grad_weight = _in_compute((dotp * invstd).reshape(-1), compute and self.param_dtype)
        if self.needs_input_grad(2):
            grad_bias = _in_compute(grad.sum(axes), compute and self.param_dtype)
        return grad_input, grad_weight, grad_bias


# ---------------------------------------------------------------- layer_norm
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last len(normalized_shape) dims, with an elementwise affine."""
    if not isinstance(normalized_shape, (tuple, list, _size.Size)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    normalized_shape = tuple(int(s) for s in normalized_shape)
    _check_mixed_dtypes(input, weight, bias)
    _check_layer_norm_shapes(input, normalized_shape, weight, bias)
    x = _compute_array(input, "LayerNormKernelImpl")
    _check_param_dtypes(input, weight, bias)
    ndim = x.ndim
    axes = tuple(range(ndim - len(normalized_shape), ndim))
    xp = input._device.xp
    xhat = None
    compiled = _compiled_layer_norm(x, weight, bias, len(axes), eps) if x.size else None
    if compiled is not None:
        out, xhat, mean, invstd = compiled
    elif x.size:
        xhat, mean, invstd = _normalized_rows(xp, x, len(axes), eps)
        if weight is not None:
            out = xhat * weight._data.reshape(-1)
            if bias is not None:
                out += bias._data.reshape(-1)
            elif not weight._data.all():
                out += 0.0      # PyTorch adds a missing bias as 0: a zero weight gives +0.0
        else:  # a new array either way: xhat stays the node's
            out = xhat.copy() if bias is None else xhat + bias._data.reshape(-1)
        out = out.astype(input._data.dtype, copy=False).reshape(x.shape)
    else:
        mean = invstd = xp.zeros(x.shape[:ndim - len(axes)] + (1,) * len(axes), x.dtype)
        out = x.astype(input._data.dtype)
    out = make_tensor(out, input._device)
    if grad_state.enabled and (input._requires_grad or weight is not None and
                               weight._requires_grad or bias is not None and bias._requires_grad):
        node = NativeLayerNormBackward0()
        node.eps = eps
        node.axes = axes
        node.stats = (mean, invstd)
        node.xhat = xhat
        node.param_dtype = _param_dtype(weight, bias)
        node.save(input, weight)
        attach(out, node, input, weight, bias)
    return out


_NO_PARAMETER = _backend.numpy.empty(0, _FLOAT32)   # a kernel's absent weight or bias


def _norm_kernels(*arrays):
    """The compiled layer_norm kernels when the work is large, every array is a NumPy
    float32 C-contiguous array (None for an absent parameter) and numba is installed."""
    if arrays[0].size < _compiled.MIN_SIZE:
        return None
    for array in arrays:
        if array is not None and (array.__class__ is not _backend.ndarray
                                  or array.dtype != _FLOAT32 or not array.flags.c_contiguous):
            return None
    return _compiled.load("norm_kernels")


def _compiled_layer_norm(x, weight, bias, count, eps):
    """(out, xhat, mean, invstd) as layer_norm's NumPy lines compute them, in one compiled
    pass per row (`_compiled.norm_kernels`: sums in float64), or None."""
    weight_data = None if weight is None else weight._data
    bias_data = None if bias is None else bias._data
    kernels = _norm_kernels(x, weight_data, bias_data)
    if kernels is None:
        return None
    rows = x.reshape(-1, math.prod(x.shape[x.ndim - count:]))
    out, xhat = _backend.numpy.empty_like(rows), _backend.numpy.empty_like(rows)
    mean, invstd = (_backend.numpy.empty(rows.shape[0], _FLOAT32) for _ in range(2))
    add_zero = weight is not None and bias is None and not weight_data.all()
    kernels.layer_norm_forward(
        rows, _NO_PARAMETER if weight is None else weight_data.reshape(-1),
        _NO_PARAMETER if bias is None else bias_data.reshape(-1), out, xhat, mean, invstd,
        _FLOAT32.type(eps), weight is not None, bias is not None, add_zero)
    return out.reshape(x.shape), xhat, mean[:, None], invstd[:, None]


def _normalized_rows(xp, x, count, eps):
    """(x - mean) * invstd over the last `count` dims, as (rows, size) arrays.

    Returns xhat (rows, size), mean and invstd (rows, 1). The row sums are matrix-vector
    products and the squared deviations row dot products, so that no reduction runs along a
    short contiguous axis (NumPy's slowest case) and no squared temporary is formed; xhat is
    written once and kept by the node, so the backward does not recompute it.
    """
    shape = x.shape
    size = 1
    for s in shape[len(shape) - count:]:
        size *= s
    rows = x.reshape(-1, size)
    mean = _row_sums(xp, rows)
    mean /= size
    xhat = rows - mean[:, None]
    var = xp.einsum("ij,ij->i", xhat, xhat)
    var /= size
    var += eps
    invstd = xp.sqrt(var, out=var)
    xp.divide(1.0, invstd, out=invstd)
    xhat *= invstd[:, None]
    return xhat, mean[:, None], invstd[:, None]


def _check_layer_norm_shapes(input, normalized_shape, weight, bias):
    shape = tuple(input.shape)
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    expected = _errors.shape_list(normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {_errors.shape_list(t.shape)} and "
                               f"normalized_shape = {expected}")
    if len(shape) < len(normalized_shape) or shape[-len(normalized_shape):] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={expected}, expected input with shape "
                           f"[*, {expected[1:-1]}], but got input of size"
                           f"{_errors.shape_list(shape)}")


class NativeLayerNormBackward0(Node):
    __slots__ = ("eps", "axes", "stats", "xhat", "param_dtype")

    def release(self):
        super().release()
        self.xhat = None

    def backward(self, grad):
        input, weight = self.saved_tensors
        if not grad_state.enabled and self.xhat is not None:
            return self._first_order(grad, input, weight)
        compute = _dtype.float32 if input._data.dtype in _REDUCED else None
        x, grad = _in_compute(input, compute), _in_compute(grad, compute)
        axes = self.axes
        if grad_state.enabled:
            mean, invstd = _ember_statistics(x, axes, self.eps)
        else:
            mean, invstd = (_constant(s, input._device) for s in self.stats)
        xhat = (x - mean) * invstd
        leading = tuple(range(axes[0]))
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            grad_xhat = grad if weight is None else grad * _in_compute(weight, compute)
            # PyTorch's formula in x (see _first_order): dx = invstd * g + b * x + c
            count = xhat.numel() // max(mean.numel(), 1)
            ds = (grad_xhat * x).sum(axes, keepdim=True)
            db = grad_xhat.sum(axes, keepdim=True)
            b = (db * mean - ds) * invstd * invstd * invstd / count
            c = -b * mean - db * invstd / count
            grad_input = invstd * grad_xhat + b * x + c
            grad_input = _in_compute(grad_input, compute and input.dtype)
        if self.needs_input_grad(1):
            grad_weight = _in_compute(_sum_over(grad * xhat, leading),
                                      compute and self.param_dtype)
        if self.needs_input_grad(2):
            grad_bias = _in_compute(_sum_over(grad, leading), compute and self.param_dtype)
        return grad_input, grad_weight, grad_bias

    def _first_order(self, grad, input, weight):
        """The same gradients on arrays, from the forward's xhat: a few passes, no graph."""
        xhat, device = self.xhat, input._device
        xp = device.xp
        size = xhat.shape[1]
        g = grad._data.reshape(xhat.shape)
        compiled = self._by_kernel(g, input, weight)
        if compiled is not None:
            return compiled
        if g.dtype != xhat.dtype:
            g = g.astype(xhat.dtype)
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad(0):
            mean, invstd = self.stats
            g_xhat = g if weight is None else g * weight._data.reshape(-1).astype(
                xhat.dtype, copy=False)
            # PyTorch's formula, in x rather than xhat, so an inf weight gives its NaN/inf
            # pattern: with ds = sum(g * x), db = sum(g) per row (g = dy * weight),
            # dx = invstd * g + b * x + c, b = (db * mean - ds) * invstd^3 / n,
            # c = -b * mean - db * invstd / n
            x = input._data.reshape(xhat.shape)
            if x.dtype != xhat.dtype:
                x = x.astype(xhat.dtype)
            ds = xp.einsum("ij,ij->i", g_xhat, x)[:, None]
            db = _row_sums(xp, g_xhat)[:, None]
            b = (db * mean - ds) * invstd * invstd * invstd / size
            c = -b * mean - db * invstd / size
            if weight is None:
                g_xhat = g * invstd
            else:
                g_xhat *= invstd       # g * weight is this node's own array
            result = x * b
            result += c
            result += g_xhat
            grad_input = make_tensor(result.astype(input._data.dtype, copy=False).reshape(
                input._data.shape), device)
        # column sums as a matrix-vector product: BLAS's blocked sums round like PyTorch's
        # (a plain sum down the rows drifts about 4x further from the exact value)
        param_shape, param_dtype = input._data.shape[self.axes[0]:], self.param_dtype
        if self.needs_input_grad(1):
            grad_weight = make_tensor(_column_sums(xp, g * xhat).astype(
                param_dtype.np_dtype, copy=False).reshape(param_shape), device)
        if self.needs_input_grad(2):
            grad_bias = make_tensor(_column_sums(xp, g).astype(
                param_dtype.np_dtype, copy=False).reshape(param_shape), device)
        return grad_input, grad_weight, grad_bias


    def _by_kernel(self, g, input, weight):
        """`_first_order`'s gradients from the compiled kernel (`_compiled.norm_kernels`,
        float64 sums), for float32 arrays throughout; None otherwise."""
        x = input._data.reshape(self.xhat.shape)
        weight_data = None if weight is None else weight._data
        if self.param_dtype is not None and self.param_dtype.np_dtype != _FLOAT32:
            return None
        kernels = _norm_kernels(g, x, self.xhat, weight_data)
        if kernels is None:
            return None
        xp, device = _backend.numpy, input._device
        size = self.xhat.shape[1]
        needs = [self.needs_input_grad(i) for i in range(3)]
        grad_input = xp.empty_like(g) if needs[0] else xp.empty((0, size), _FLOAT32)
        grad_weight, grad_bias = xp.empty(size, _FLOAT32), xp.empty(size, _FLOAT32)
        mean, invstd = (s.reshape(-1) for s in self.stats)
        kernels.layer_norm_backward(
            g, x, self.xhat, _NO_PARAMETER if weight is None else weight_data.reshape(-1),
            mean, invstd, grad_input, grad_weight, grad_bias, weight is not None, *needs)
        param_shape = input._data.shape[self.axes[0]:]
        return (make_tensor(grad_input.reshape(input._data.shape), device) if needs[0] else None,
                make_tensor(grad_weight.reshape(param_shape), device) if needs[1] else None,
                make_tensor(grad_bias.reshape(param_shape), device) if needs[2] else None)


# ---------------------------------------------------------------- group_norm
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each of `num_groups` groups of channels per sample, then a per-channel affine."""
    ndim = input.dim()
    if ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {ndim}")
    shape = tuple(input.shape)
    batch, channels = shape[0], shape[1]
    _verify_batch_size([batch * channels // num_groups, num_groups] + list(shape[2:]))
    _check_group_norm_shapes(shape, num_groups, weight, bias)
    x = _compute_array(input, "GroupNormKernelImpl")
    _check_param_dtypes(input, weight, bias)
    grouped = x.reshape(batch, num_groups, x.size // max(batch * num_groups, 1))
    xp = input._device.xp
    if x.size:
        _, mean, var = _statistics(grouped, (2,))
    else:
        mean = var = xp.zeros((batch, num_groups, 1), x.dtype)
    invstd = 1.0 / xp.sqrt(var + eps)
    # per (sample, channel): scale = invstd * weight, shift = -scale * mean + bias (a missing
    # bias is 0), out = x * scale + shift: PyTorch's order, so an inf weight meets
    # inf - inf (NaN) where PyTorch's does and zeros keep PyTorch's sign
    per_group = channels // num_groups
    scale = xp.repeat(invstd.reshape(batch, num_groups), per_group, axis=1)
    if weight is not None:
        scale = scale * weight._data.reshape(1, channels)
    shift = -scale * xp.repeat(mean.reshape(batch, num_groups), per_group, axis=1)
    shift += 0.0 if bias is None else bias._data.reshape(1, channels)
    flat = x.reshape(batch, channels, math.prod(shape[2:]))
    out = flat * scale[:, :, None]
    out += shift[:, :, None]
    out = make_tensor(out.reshape(shape).astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and (input._requires_grad or weight is not None and
                               weight._requires_grad or bias is not None and bias._requires_grad):
        node = NativeGroupNormBackward0()
        node.eps = eps
        node.num_groups = num_groups
        node.stats = (mean, invstd)
        node.param_dtype = _param_dtype(weight, bias)
        node.save(input, weight)
        attach(out, node, input, weight, bias)
    return out


def _check_group_norm_shapes(shape, num_groups, weight, bias):
    channels = shape[1]
    if channels % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {_errors.shape_list(shape)} and "
                           f"num_groups={num_groups}")
    # PyTorch's bias message prints the weight's shape ([0] when there is none): matched as is.
    weight_shape = _errors.shape_list(weight.shape if weight is not None else (0,))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {weight_shape} and "
                               f"input of shape {_errors.shape_list(shape)}")


class NativeGroupNormBackward0(Node):
    __slots__ = ("eps", "num_groups", "stats", "param_dtype")

    def backward(self, grad):
        input, weight = self.saved_tensors
        compute = _dtype.float32 if input._data.dtype in _REDUCED else None
        x, grad = _in_compute(input, compute), _in_compute(grad, compute)
        shape = tuple(input.shape)
        grouped_shape = (shape[0], self.num_groups, input.numel() // max(
            shape[0] * self.num_groups, 1))
        grouped = x.reshape(grouped_shape)
        if grad_state.enabled:
            mean, invstd = _ember_statistics(grouped, (2,), self.eps)
        else:
            mean, invstd = (_constant(s, input._device) for s in self.stats)
        weight = None if weight is None else _in_compute(weight, compute)
        return _group_norm_grads(self, input, grad, x, weight, mean, invstd, compute)


def _group_norm_grads(node, input, grad, x, weight, mean, invstd, compute):
    """group_norm's gradients in PyTorch's formula: with ds, db the per-channel sums of
    dy * x and dy, and their weighted sums per group,
    dx = invstd * weight * dy + c2 * x + c3, c2 = (db * mean - ds) * invstd^3 / n,
    c3 = -c2 * mean - db * invstd / n; the weight's gradient is sum((ds - db * mean) * invstd).
    In x rather than x - mean, so an inf weight gives PyTorch's inf/NaN pattern."""
    shape = tuple(input.shape)
    batch, channels = shape[0], shape[1]
    groups = node.num_groups
    per_group = channels // groups
    spatial = math.prod(shape[2:])
    flat_x = x.reshape(batch, channels, spatial)
    flat_grad = grad.reshape(batch, channels, spatial)
    ds = (flat_grad * flat_x).sum(2)
    db = flat_grad.sum(2)
    mean, invstd = mean.reshape(batch, groups, 1), invstd.reshape(batch, groups, 1)
    per_channel_mean = mean.expand(batch, groups, per_group).reshape(batch, channels)
    per_channel_invstd = invstd.expand(batch, groups, per_group).reshape(batch, channels)
    grad_input = grad_weight = grad_bias = None
    if node.needs_input_grad(0):
        ds_w, db_w = (ds, db) if weight is None else (ds * weight, db * weight)
        ds_g = ds_w.reshape(batch, groups, per_group).sum(2, keepdim=True)
        db_g = db_w.reshape(batch, groups, per_group).sum(2, keepdim=True)
        count = per_group * spatial
        c2 = (db_g * mean - ds_g) * invstd * invstd * invstd / count
        c3 = -c2 * mean - db_g * invstd / count
        c1 = per_channel_invstd if weight is None else per_channel_invstd * weight
        c2, c3 = (c.expand(batch, groups, per_group).reshape(batch, channels, 1)
                  for c in (c2, c3))
        grad_input = c1.unsqueeze(2) * flat_grad + c2 * flat_x + c3
        grad_input = _in_compute(grad_input.reshape(shape), compute and input.dtype)
    if node.needs_input_grad(1):
        grad_weight = ((ds - db * per_channel_mean) * per_channel_invstd).sum(0)
        grad_weight = _in_compute(grad_weight, compute and node.param_dtype)
    if node.needs_input_grad(2):
        grad_bias = _in_compute(db.sum(0), compute and node.param_dtype)
    return grad_input, grad_weight, grad_bias


# ---------------------------------------------------------------- composites
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample: batch_norm on a (1, N*C, ...) view, as PyTorch."""
    shape = tuple(input.shape)
    if use_input_stats:
        count = 1
        for s in shape[2:]:
            count *= s
        if count == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input size "
                             f"{input.size()!r}")
    batch, channels = shape[0], shape[1]
    reshaped = input.contiguous().view((1, batch * channels) + shape[2:])
    params = [None if t is None else t.repeat(batch)
              for t in (weight, bias, running_mean, running_var)]
    # running statistics of another dtype are allowed here (batch_norm's mixed-dtype rule
    # is for weight and bias): the repeated copies work in the input's dtype
    params[2:] = [None if t is None else t.to(input.dtype) for t in params[2:]]
    out = batch_norm(reshaped, params[2], params[3], params[0], params[1], use_input_stats,
                     momentum, eps)
    if running_mean is not None and use_input_stats:
        for running, repeated in ((running_mean, params[2]), (running_var, params[3])):
            averaged = repeated._data.reshape(batch, channels).mean(axis=0)
            running._device.xp.copyto(running._data, averaged, casting="unsafe")
            running._storage.version += 1
    return out.view(shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of squares over `size` neighbouring channels) ** beta."""
    ndim = input.dim()
    if ndim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input "
                         f"(got {ndim} dimensions)")
    if input.numel() == 0:
        return input
    if ndim > 3 and input._data.dtype in _REDUCED:  # PyTorch pools 4-D and up with avg_pool3d
        raise NotImplementedError(_errors.not_implemented_for("avg_pool3d_out_frame",
                                                              input.dtype))
    if not _is_floating(input._data.dtype) and input.dtype is not _dtype.int64:
        raise NotImplementedError(_errors.not_implemented_for(
            "avg_pool2d" if ndim == 3 else "avg_pool3d_out_frame", input.dtype))
    squares = input.mul(input)
    shape = tuple(input.shape)
    before, after = size // 2, (size - 1) // 2
    # Zero-pad the channel dim, then average `size` shifted windows (avg_pool counts the pad).
    padded = joining.cat([squares.new_zeros((shape[0], before) + shape[2:]), squares,
                          squares.new_zeros((shape[0], after) + shape[2:])], 1)
    window = padded.narrow(1, 0, shape[1])
    for offset in range(1, size):
        window = window + padded.narrow(1, offset, shape[1])
    # an int64 input is averaged as PyTorch's integer avg_pool does: rounded toward zero
    mean = window / size if _is_floating(window._data.dtype) else window.div(
        size, rounding_mode="trunc")
    div = mean.mul(alpha).add(k).pow(beta)
    return input / div
