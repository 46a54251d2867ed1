"""Adaptive pooling: the output size is fixed and the windows adapt to the input.

Window i along a dim of size L covers [floor(i*L/out), ceil((i+1)*L/out)). Average
pooling is then a separable linear map (one averaging matrix per dim, see
_linear_map.linear_map); max pooling gathers every window (short ones repeat their
last element) and shares max pooling's index-routed gradient.
"""
import math

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _errors
from ._common import grad_state, wrap
from ._linear_map import _LinearMapBackward, linear_map
from ._pool_indexed import _IndexedBackward, _batched, _record_indexed

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices"]


class AdaptiveMaxPool2DBackward0(_IndexedBackward):
    __slots__ = ()


class AdaptiveMaxPool3DBackward0(_IndexedBackward):
    __slots__ = ()


def _adaptive_sizes(input, output_size, n, what):
    """The requested output size (None keeps the input's size), PyTorch's messages."""
    shape = input._data.shape
    if isinstance(output_size, int):
        output_size = (output_size,) * n
    else:
        if len(shape) <= len(output_size):   # nn.functional's check, before the kernel's
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        output_size = tuple(output_size)
    if len(output_size) != n:
        if what.startswith("adaptive_max"):
            raise RuntimeError(f"{what}(): internal error: output_size.size() must be {n}")
        raise RuntimeError(f"{what}: output_size must be {n}")
    return tuple(s if s is not None else shape[-n + i] for i, s in enumerate(output_size))


def _check_adaptive_input(input, output_size, n, what):
    """The kernel's checks of the input against a requested size, PyTorch's messages."""
    shape = input._data.shape
    if len(shape) not in (n + 1, n + 2):
        tail = ": " if what.startswith("adaptive_max") else ""
        raise RuntimeError(f"{what}(): Expected {n + 1}D or {n + 2}D tensor, but got"
                           f"{tail or ' '}{_errors.shape_list(shape)}")
    for i in range(len(shape) - n - 1, len(shape)):
        if shape[i] == 0:
            raise RuntimeError(f"{what}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {_errors.shape_list(shape)} "
                               f"with dimension {i} being empty")
    if any(s < 0 for s in output_size):
        raise RuntimeError(f"{what}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(str(s) for s in output_size)}}}")
    if not _is_floating(input._data.dtype):
        # the 3-d kernels name their CPU dispatch (argcheck10)
        kernel = what + "_cpu" if n == 3 else what
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))


def _bounds(size, out, xp):
    """Adaptive window [start, end) per output position."""
    index = xp.arange(out)
    return (index * size) // out, ((index + 1) * size + out - 1) // out


def _adaptive_avg_pool_nd(input, output_size, n):
    if n == 1:
        return adaptive_avg_pool1d(input, output_size)
    what = f"adaptive_avg_pool{n}d"
    output_size = _adaptive_sizes(input, output_size, n, what)
    if all(s == 1 for s in output_size):
        # PyTorch's shortcut, taken before the kernel checks rank and dtype: a mean
        return input.mean(tuple(range(-n, 0)), keepdim=True)
    _check_adaptive_input(input, output_size, n, what)
    xp = input._device.xp
    work = xp.dtype("float64") if input._data.dtype.name == "float64" else xp.dtype("float32")
    matrices = []
    ndim = input._data.ndim
    for i, out in enumerate(output_size):
        size = input._data.shape[ndim - n + i]
        start, end = _bounds(size, out, xp)
        position = xp.arange(size)
        inside = (position[None, :] >= start[:, None]) & (position[None, :] < end[:, None])
        matrices.append((ndim - n + i, (inside / (end - start)[:, None]).astype(work)))
    node_class = AdaptiveAvgPool2DBackward0 if n == 2 else AdaptiveAvgPool3DBackward0
    return linear_map(input, tuple(matrices), node_class, windowed=True)


class AdaptiveAvgPool2DBackward0(_LinearMapBackward):
    __slots__ = ()


class AdaptiveAvgPool3DBackward0(_LinearMapBackward):
    __slots__ = ()


def _one_size(output_size, what):
    """The 1-d pools' output length: an int, or a sequence holding exactly one."""
    if isinstance(output_size, int):
        return output_size
    output_size = tuple(output_size)
    if len(output_size) != 1:
        raise RuntimeError(f"{what}() argument 'output_size' should contain one int "
                           f"(got {len(output_size)})")
    return output_size[0]


def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a fixed output length (a 2-D pool underneath)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"adaptive_avg_pool1d)")
    size = _one_size(output_size, "adaptive_avg_pool1d")
    return _adaptive_avg_pool_nd(input.unsqueeze(-2), (1, size), 2).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed (H, W) output size."""
    return _adaptive_avg_pool_nd(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed (D, H, W) output size."""
    if _autocast.on:
        return _autocast.float32(adaptive_avg_pool3d, input, output_size)
    return _adaptive_avg_pool_nd(input, output_size, 3)


def _adaptive_max_pool(input, output_size, return_indices, n):
    what = f"adaptive_max_pool{n}d"
    output_size = _adaptive_sizes(input, output_size, n, what)
    _check_adaptive_input(input, output_size, n, what)
    data = input._data
    xp = input._device.xp
    x = _batched(data, n)
    spatial = x.shape[2:]
    index_lists = []
    for i, (size, out) in enumerate(zip(spatial, output_size)):
        start, end = _bounds(size, out, xp)
        width = int((end - start).max()) if out else 1
        # Short windows repeat their last element: argmax still finds the first maximum.
        index = xp.minimum(start[:, None] + xp.arange(width)[None, :], end[:, None] - 1)
        index_lists.append(index)
    grid = tuple(index.reshape((1,) * (2 * i) + index.shape + (1,) * (2 * (n - 1 - i)))
                 for i, index in enumerate(index_lists))
    gathered = x[(slice(None), slice(None)) + grid]        # (N, C, o1, k1, ..., on, kn)
    order = (0, 1) + tuple(range(2, 2 + 2 * n, 2)) + tuple(range(3, 3 + 2 * n, 2))
    widths = tuple(index.shape[1] for index in index_lists)
    flat = gathered.transpose(order).reshape(x.shape[:2] + tuple(output_size)
                                             + (math.prod(widths),))
    arg = xp.argmax(flat, axis=-1)
    values = xp.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    if _is_floating(values.dtype) and xp.isnan(values).any():
        # PyTorch's scan takes every NaN it meets (`val > max || isnan(val)`): the window's
        # last NaN, where argmax stops at the first
        last = flat.shape[-1] - 1 - xp.argmax(xp.isnan(flat)[..., ::-1], axis=-1)
        arg = xp.where(xp.isnan(values), last, arg)
    offsets = xp.unravel_index(arg, widths)
    indices = 0
    for i, index in enumerate(index_lists):
        rows = xp.arange(output_size[i]).reshape((-1,) + (1,) * (n - 1 - i))
        indices = indices * spatial[i] + index[rows, offsets[i]]
    shape = data.shape[:-n] + tuple(output_size)
    result = wrap(values.reshape(shape), input._device)
    indices = xp.asarray(indices, dtype=xp.int64).reshape(shape)
    if grad_state.enabled and input._requires_grad:
        node_class = AdaptiveMaxPool2DBackward0 if n == 2 else AdaptiveMaxPool3DBackward0
        _record_indexed(result, node_class, input, indices, n)
    if return_indices:
        return result, wrap(indices, input._device)
    return result


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a fixed output length (a 2-D pool underneath)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"adaptive_max_pool1d)")
    size = _one_size(output_size, "adaptive_max_pool1d")
    result = _adaptive_max_pool(input.unsqueeze(-2), (1, size), return_indices, 2)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool(input, output_size, True, 2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed (H, W) output size."""
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool(input, output_size, True, 3)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling to a fixed (D, H, W) output size."""
    if _autocast.on:
        return _autocast.float32(adaptive_max_pool3d, input, output_size, return_indices)
    return _adaptive_max_pool(input, output_size, return_indices, 3)
