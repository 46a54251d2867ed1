"""max_unpool1d/2d/3d: the partial inverse of max pooling, with PyTorch's nodes.

Each value is written to the flat per-plane position its max-pool index names; every other
position is zero. The gradient is the gather of the incoming gradient at those indices
(written with ember ops, so it is differentiable again). 1-D unpooling is 2-D unpooling of an
unsqueezed input, as PyTorch's Python does (hence its `SqueezeBackward1` grad_fn).
"""
import math

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _tuple(value, n):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


def _unpool_output_size(input, kernel, stride, padding, output_size):
    """PyTorch's _unpool_output_size: the default size, or a checked `output_size`."""
    n = len(kernel)
    size = input.size()
    default = [(size[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        result = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f"{low} and {high})")
        result = output_size
    for d in range(n):
        if result[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={result[d]}")
    return list(result)


def _unpool(input, indices, output_size, n, node_class):
    """The kernel: scatter `input` into zeros of `output_size` per (N, C) plane."""
    if indices.dtype is not _dtype.int64:
        # PyTorch's 3-d kernel does not name the dtype it got
        got = "" if n == 3 else f" but got: {_errors.scalar_type_name(indices.dtype)}"
        raise RuntimeError("elements in indices should be type int64" + got)
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({_errors.shape_list(input.shape)}) but got indices tensor with "
                           f"shape: {_errors.shape_list(indices.shape)}")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, "
                           f"but got a tensor with {input.dim()} dimensions.")
    if not _is_floating(input._data.dtype):
        raise NotImplementedError(_errors.not_implemented_for(f"max_unpool{n}d", input.dtype))
    xp = input._device.xp
    plane = math.prod(output_size)
    lead = tuple(input.shape[:-n])
    flat = indices._data.reshape(math.prod(lead), math.prod(indices.shape[-n:]))
    bad = (flat < 0) | (flat >= plane)
    if bad.any():
        # PyTorch's kernel scans every index and reports the last invalid one it saw
        raise RuntimeError(f"Found an invalid max index: {int(flat[bad][-1])} (output volumes are "
                           f"of size {'x'.join(str(s) for s in output_size)})")
    out = xp.zeros((flat.shape[0], plane), input._data.dtype)
    out[xp.arange(flat.shape[0])[:, None], flat] = input._data.reshape(flat.shape)
    result = wrap(out.reshape(lead + tuple(output_size)), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.save(indices)
        node.n = n
        attach(result, node, input)
    return result


class _UnpoolBackward(Node):
    __slots__ = ("n",)

    def backward(self, grad):
        (indices,) = self.saved_tensors
        lead = tuple(indices.shape[:-self.n])
        planes = grad.reshape(lead + (-1,))
        flat = indices.reshape(lead + (-1,))
        return (planes.gather(-1, flat).reshape(indices.shape),)


class MaxUnpool2DBackward0(_UnpoolBackward):
    __slots__ = ()


class MaxUnpool3DBackward0(_UnpoolBackward):
    __slots__ = ()


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of max_pool1d: values back at their indices, zeros elsewhere."""
    if _autocast.on:
        return _autocast.float32(max_unpool1d, input, indices, kernel_size, stride, padding,
                                 output_size)
    kernel = _tuple(kernel_size, 1)
    stride = _tuple(stride, 1) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 1), output_size)
    return _unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1], 2,
                   MaxUnpool2DBackward0).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of max_pool2d: values back at their indices, zeros elsewhere."""
    if _autocast.on:
        return _autocast.float32(max_unpool2d, input, indices, kernel_size, stride, padding,
                                 output_size)
    kernel = _tuple(kernel_size, 2)
    stride = _tuple(stride, 2) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 2), output_size)
    return _unpool(input, indices, size, 2, MaxUnpool2DBackward0)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of max_pool3d: values back at their indices, zeros elsewhere."""
    if _autocast.on:
        return _autocast.float32(max_unpool3d, input, indices, kernel_size, stride, padding,
                                 output_size)
    kernel = _tuple(kernel_size, 3)
    stride = _tuple(stride, 3) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _tuple(padding, 3), output_size)
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{_errors.shape_list(stride)}")
    return _unpool(input, indices, size, 3, MaxUnpool3DBackward0)
