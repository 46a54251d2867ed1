"""PyTorch's native_* functions: the kernels behind layer_norm, batch_norm, group_norm
and dropout, which return what the backward needs beside the result (the per-row mean
and reciprocal std; the dropout mask).

The results come from ember's own ops (so they record the same NativeXxxBackward0 nodes
as F.layer_norm and friends); the statistics are recomputed from the input in the
kernel's precision and handed back without history, as PyTorch's are.
"""
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor
from .normalization import _compute_array, _statistics, batch_norm, group_norm, layer_norm

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout"]


def _stats(input, x, axes, eps, shape):
    """(mean, 1 / sqrt(var + eps)) over `axes` of the array `x`, reshaped to `shape`, in
    input's dtype."""
    xp = input._device.xp
    if x.size:
        _, mean, var = _statistics(x, axes)
    else:
        mean = var = xp.zeros([1 if i in axes else s for i, s in enumerate(x.shape)], x.dtype)
    rstd = 1.0 / xp.sqrt(var + eps)
    dtype = input._data.dtype
    return (make_tensor(mean.reshape(shape).astype(dtype, copy=False), input._device),
            make_tensor(rstd.reshape(shape).astype(dtype, copy=False), input._device))


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(layer_norm's result, mean, rstd), the statistics shaped like the input with the
    normalized dims kept as 1."""
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    count = len(tuple(normalized_shape))
    ndim = input.dim()
    axes = tuple(range(ndim - count, ndim))
    shape = tuple(input.shape[:ndim - count]) + (1,) * count
    mean, rstd = _stats(input, _compute_array(input, "LayerNormKernelImpl"), axes, eps, shape)
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(batch_norm's result, batch mean, batch 1/std) per channel in training; in
    evaluation the two statistics are empty."""
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = input._device.xp.empty((0,), input._data.dtype)
        return out, make_tensor(empty, input._device), make_tensor(empty.copy(), input._device)
    axes = (0,) + tuple(range(2, input.dim()))
    x = _compute_array(input, "batch_norm")
    mean, invstd = _stats(input, x, axes, eps, (input.shape[1],))
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(group_norm's result, mean, rstd), the statistics of shape (N, group)."""
    out = group_norm(input, group, weight, bias, eps)
    x = _compute_array(input, "GroupNormKernelImpl").reshape(N, group, -1)
    mean, rstd = _stats(input, x, (2,), eps, (N, group))
    return out, mean, rstd


def native_dropout(input, p, train):
    """(output, keep mask): in training each element is kept with probability 1 - p (one
    bool Bernoulli draw each, PyTorch's stream) and scaled by 1 / (1 - p); otherwise a
    copy and an all-true mask. Recorded as NativeDropoutBackward0 either way."""
    xp = input._device.xp
    training = train is None or bool(train)
    if training:
        keep = 1.0 - p
        scale = 0.0 if keep == 0 else 1.0 / keep
        mask = input.new_empty(tuple(input.shape), dtype=_dtype.bool).bernoulli_(keep)
        if not _dtype.is_floating(input._data.dtype):
            # PyTorch scales in place by a double: an integer or bool input cannot hold it
            # (the mask is drawn first, so the generator moves on as PyTorch's does)
            raise RuntimeError(_errors.cannot_cast(_dtype._defaults.float_dtype, input.dtype))
        values = input._data * mask._data
        values = (values * values.dtype.type(scale)).astype(input._data.dtype, copy=False)
    else:
        scale = 1.0
        mask = make_tensor(xp.ones(input._data.shape, bool), input._device)
        values = input._data.copy()
    out = make_tensor(values, input._device)
    if grad_state.enabled and input._requires_grad:
        node = NativeDropoutBackward0()
        node.scale = scale
        node.save(mask)
        attach(out, node, input)
    return out, mask


class NativeDropoutBackward0(Node):
    __slots__ = ("scale",)

    def backward(self, grad):
        (mask,) = self.saved_tensors
        return (grad * mask * self.scale,)
