"""lp_pool3d and fractional max pooling (2-D and 3-D).

lp_pool3d is composite in PyTorch (avg_pool3d of x^p, rescaled), so ember composes it the
same way. Fractional max pooling picks, per plane, pseudo-random window starts from one
uniform sample per spatial dim: start_i = int((i + u) * alpha) - int(u * alpha) with
alpha = (in - k) / (out - 1), computed in the input's dtype, the last start pinned to
in - k. The samples come from `rand` on PyTorch's stream, so after manual_seed the windows
(and so values and indices) equal PyTorch's. Its gradient routes through the argmax
indices like every max-style pool (FractionalMaxPool2DBackward0 / 3DBackward0).
"""
import math

from ._common import grad_state, wrap
from ._pool_indexed import _IndexedBackward, _batched, _record_indexed
from .pooling import avg_pool3d, max_pool3d
from .random import rand

__all__ = ["lp_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _triple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 3-D windows: (sum over the window of x^p)^(1/p)."""
    depth, width, height = _triple(kernel_size)
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        if norm_type > 0:
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(depth * width * height).pow(1.0 / norm_type)


# ---------------------------------------------------------------- fractional max pooling
def _starts(xp, samples, size, out, kernel, dtype):
    """Window starts per plane: samples (planes,) -> (planes, out) integer array."""
    if out > 1:
        alpha = dtype.type(size - kernel) / dtype.type(out - 1)
        steps = xp.arange(out - 1, dtype=dtype)[None, :]
        u = samples.astype(dtype)[:, None]
        first = ((steps + u) * alpha).astype(xp.int64) - (u * alpha).astype(xp.int64)
    else:
        first = xp.zeros((samples.shape[0], 0), xp.int64)
    last = xp.full((samples.shape[0], 1), size - kernel, xp.int64)
    return xp.concatenate([first, last], axis=1)


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _output_size(name, input, n, output_size, output_ratio):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _tuple(output_size, n)
    if len(output_ratio) > n:  # a bare float fails here with len's TypeError, as PyTorch
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                         "of Ints.")
    ratio = _tuple(output_ratio, n)
    return tuple(int(input.size(d - n) * r) for d, r in zip(range(n), ratio))


_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}
_SUFFIX = {2: "", 3: "_out"}  # PyTorch names the 3-D check after its out= kernel


def _fractional(name, n, input, kernel_size, output_size, output_ratio, samples, node_class):
    out_size = _output_size(name, input, n, output_size, output_ratio)
    kernel = _tuple(kernel_size, n)
    if samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    if samples.size(1) != input.size(-n - 1):
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    in_size = tuple(input.shape[-n:])
    for axis, o, k, s in zip(_AXES[n], out_size, kernel, in_size):
        if o + k - 1 > s:
            raise RuntimeError(f"{name}{_SUFFIX[n]}(): pool {axis} {k} too large relative "
                               f"to input "
                               f"{axis} {s}")
    xp = input._device.xp
    data = _batched(input._data, n)
    batch, channels = data.shape[:2]
    planes = batch * channels
    drawn = samples._data.reshape(planes, n)
    # the 2-D kernel reads sample 0 for the width and 1 for the height; 3-D reads them in order
    order = (1, 0) if n == 2 else (0, 1, 2)
    starts = [_starts(xp, drawn[:, order[d]], in_size[d], out_size[d], kernel[d], data.dtype)
              for d in range(n)]
    windows = [s[:, :, None] + xp.arange(k)[None, None, :] for s, k in zip(starts, kernel)]
    if planes == 0 or 0 in out_size:
        values = xp.zeros((planes,) + out_size, data.dtype)
        flat = xp.zeros((planes,) + out_size, xp.int64)
    elif min(kernel) <= 0:
        # empty windows: PyTorch reports -inf at each window's start
        flat = _start_index(xp, starts, in_size)
        values = xp.full(flat.shape, -xp.inf, data.dtype)
    else:
        values, flat = _window_max(xp, data.reshape((planes,) + in_size), windows, in_size)
    shape = input.shape[:-n] + out_size
    result = wrap(values.reshape(shape), input._device)
    indices = flat.reshape(shape)
    if grad_state.enabled and input._requires_grad:
        _record_indexed(result, node_class, input, indices, n)
    return result, wrap(indices, input._device)


def _start_index(xp, starts, in_size):
    """Flat in-plane index of every window's first element, (planes, *out_size)."""
    n = len(starts)
    flat = 0
    for d, start in enumerate(starts):
        shape = [start.shape[0]] + [1] * n
        shape[1 + d] = start.shape[1]
        flat = flat * in_size[d] + start.reshape(shape)
    return flat


def _window_max(xp, planes, windows, in_size):
    """Max over each output's window (NaN wins, first maximum on ties) and its flat index."""
    n = len(windows)
    count = planes.shape[0]
    # broadcast every window axis against the others: (planes, o1, k1, o2, k2, ...)
    grids = []
    for d, window in enumerate(windows):
        shape = [count] + [1] * (2 * n)
        shape[1 + 2 * d], shape[2 + 2 * d] = window.shape[1], window.shape[2]
        grids.append(window.reshape(shape))
    flat = grids[0]
    for d in range(1, n):
        flat = flat * in_size[d] + grids[d]
    plane_ids = xp.arange(count).reshape([count] + [1] * (2 * n))
    gathered = planes.reshape(count, -1)[plane_ids, flat]
    # move the kernel axes last and merge them
    order = [0] + [1 + 2 * d for d in range(n)] + [2 + 2 * d for d in range(n)]
    gathered = gathered.transpose(order)
    flat = xp.broadcast_to(flat, _grid_shape(grids)).transpose(order)
    out_shape = gathered.shape[:n + 1]
    gathered = gathered.reshape(out_shape + (-1,))
    flat = flat.reshape(out_shape + (-1,))
    arg = gathered.argmax(axis=-1)[..., None]
    return (xp.take_along_axis(gathered, arg, -1)[..., 0],
            xp.take_along_axis(flat, arg, -1)[..., 0])


def _grid_shape(grids):
    shape = [1] * grids[0].ndim
    for g in grids:
        shape = [max(a, b) for a, b in zip(shape, g.shape)]
    return tuple(shape)


class FractionalMaxPool2DBackward0(_IndexedBackward):
    __slots__ = ()


class FractionalMaxPool3DBackward0(_IndexedBackward):
    __slots__ = ()


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Max over pseudo-randomly placed kxk windows; returns (values, indices)."""
    return _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size,
                       output_ratio, _random_samples, FractionalMaxPool2DBackward0)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over pseudo-randomly placed kxk windows (values, or (values, indices))."""
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, False, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """Max over pseudo-randomly placed kxkxk windows; returns (values, indices)."""
    return _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size,
                       output_ratio, _random_samples, FractionalMaxPool3DBackward0)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max over pseudo-randomly placed kxkxk windows (values, or (values, indices))."""
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, False, _random_samples)
    return (values, indices) if return_indices else values
