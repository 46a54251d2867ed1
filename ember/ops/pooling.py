"""Pooling (nn.functional.*pool*) and its gradients.

Max and average pooling read strided windows of a padded copy of the input (see
`_im2col`); 1-D pooling is 2-D pooling over an unsqueezed input, as in PyTorch
(hence its `SqueezeBackward1` grad_fn). Max pooling routes gradients to the
first maximum of each window. Where windows share no element (MaxPool2d(2) and the
like) the backward finds that maximum again in the saved input and writes through a
window view; otherwise it goes through flat per-plane indices (the `indices` it can
return), whose scatter has the index gather as its own gradient.
Adaptive pooling lives in pooling_adaptive.py and is re-exported here.
"""
import math

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _arguments, _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap, wrap_dim
from . import _im2col
from . import pooling_adaptive
from ._pool_indexed import _IndexedBackward, _batched, _plane_scatter, _record_indexed
# Re-exported: ember.nn.functional reaches every pooling op through this module.
from .pooling_adaptive import *  # noqa: F401,F403

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "lp_pool1d", "lp_pool2d"]

_WORDS = {1: "one", 2: "two", 3: "three"}


def _param(value, n, name, what, default=None):
    """An n-tuple from an int or a 1/n-tuple, with PyTorch's message for other lengths."""
    if value is None or isinstance(value, (list, tuple)) and len(value) == 0:
        if default is not None:
            return default
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        if what == "max_pool1d":  # the 1-D kernels word it their own way
            raise RuntimeError(f"max_pool1d() {name} must be {_PHRASES_1D[name]} of size 1 but "
                               f"got size {len(value)}")
        if what == "avg_pool1d":
            raise RuntimeError(f"avg_pool1d() argument '{name}' should contain one int (got "
                               f"{len(value)})")
        raise RuntimeError(f"{what}: {name} {_PHRASES[name]}{_WORDS[n]} ints")
    return value


_PHRASES_1D = {"kernel_size": "an int, list of ints or tuple of ints",
               "stride": "None, an int, list of ints, or tuple of ints",
               "padding": "an int, list of ints, or tuple of ints",
               "dilation": "an int, list of ints or tuple of ints"}


_PHRASES = {"kernel_size": "must either be a single int, or a tuple of ",
            "stride": "must either be omitted, a single int, or a tuple of ",
            "padding": "must either be a single int, or a tuple of ",
            "dilation": "must be either a single int, or a tuple of "}


def _pool_out(size, kernel, stride, pad, dilation, ceil_mode):
    """pooling_output_shape: PyTorch's output size, with its ceil_mode correction."""
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _check_pool(input, kernel, stride, padding, dilation, ceil_mode, n, whole_kernel=False):
    """Shapes and sizes checked as PyTorch's pool2d_shape_check; returns the output size.
    `whole_kernel`: the input must hold a whole kernel (PyTorch's 3-D average pool)."""
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    names = ("T", "H", "W")[3 - n:]
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + " ".join(f"k{a}: {k}" for a, k in zip(names, kernel)))
    if any(s < 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got "
                           + " ".join(f"d{a}: {s}" for a, s in zip(names, stride)))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{a}: {d}" for a, d in zip(names, dilation)))
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    shape = input._data.shape
    if len(shape) not in (n + 1, n + 2) or n != 2 and any(s == 0 for s in shape[-n - 1:]):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for "
                           f"input")
    if any(s == 0 for s in shape[-n - 1:]):   # the 2-d check words an empty input so
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{_errors.shape_list(shape)}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    if whole_kernel and any(s < k for s, k in zip(shape[-n:], kernel)):
        raise RuntimeError("input image (" + " ".join(f"{a}: {s}" for a, s in zip(
            names, shape[-n:])) + ") smaller than kernel size (" + " ".join(
            f"k{a}: {k}" for a, k in zip(names, kernel)) + ")")
    out = tuple(_pool_out(s, k, st, p, d, ceil_mode) for s, k, st, p, d in
                zip(shape[-n:], kernel, stride, padding, dilation))
    if any(o < 1 for o in out):
        given = "x".join(str(s) for s in shape[-n - 1:])
        calc = "x".join(str(s) for s in (shape[-n - 1],) + out)
        raise RuntimeError(f"Given input size: ({given}). Calculated output size: ({calc}). "
                           f"Output size is too small")
    return out


def _padded(x, kernel, stride, padding, dilation, out, fill, xp):
    """x padded with `fill`, and far enough for ceil_mode (x itself when nothing is added)."""
    extra = tuple(max((o - 1) * s + d * (k - 1) + 1 - (size + 2 * p), 0) for o, s, d, k, size, p
                  in zip(out, stride, dilation, kernel, x.shape[2:], padding))
    return _im2col.pad_zeros(x, padding, xp, extra, fill) if any(padding) or any(extra) else x


def _padded_windows(x, kernel, stride, padding, dilation, out, fill, xp):
    """Windows (N, C, *K, *out), padding with `fill` and far enough for ceil_mode."""
    padded = _padded(x, kernel, stride, padding, dilation, out, fill, xp)
    return _im2col.windows(padded, kernel, stride, dilation, out, xp)


# ---------------------------------------------------------------- max pooling
def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n):
    try:
        return _max_pool_checked(input, kernel_size, stride, padding, dilation, ceil_mode,
                                 return_indices, n)
    except Exception:
        _parse_max_pool(n, input, kernel_size, stride, padding, dilation, ceil_mode,
                        return_indices)
        raise


def _parse_max_pool(n, input, kernel_size, stride, padding, dilation, ceil_mode,
                    return_indices):
    """nn.functional's max pools are Python functions handing their arguments to the C++
    max_pool{n}d or max_pool{n}d_with_indices, whose parser refuses a wrong type first."""
    name = f"max_pool{n}d_with_indices" if return_indices else f"max_pool{n}d"
    _arguments.check(name, (input, kernel_size, stride, padding, dilation, ceil_mode))


def _max_pool_checked(input, kernel_size, stride, padding, dilation, ceil_mode,
                      return_indices, n):
    what = f"max_pool{n}d"
    kernel = _param(kernel_size, n, "kernel_size", what)
    stride = _param(stride, n, "stride", what, default=kernel)
    padding = _param(padding, n, "padding", what)
    dilation = _param(dilation, n, "dilation", what)
    out = _check_pool(input, kernel, stride, padding, dilation, ceil_mode, n)
    if input._data.dtype.kind == "b":  # after the shape checks, as PyTorch's kernel does
        raise NotImplementedError(_errors.not_implemented_for(what, input.dtype))
    data = input._data
    xp = input._device.xp
    x = _batched(data, n)
    fill = -math.inf if _is_floating(x.dtype) else xp.iinfo(x.dtype).min
    win = _padded_windows(x, kernel, stride, padding, dilation, out, fill, xp)
    record = grad_state.enabled and input._requires_grad
    values = _im2col.window_max(win, n, xp)
    arg = None
    if not _im2col.exact_max_is_safe(x, values, xp):   # a NaN, or signed zeros: the slow way
        values, arg = _im2col.window_argmax(win, n, xp)
    shape = data.shape[:-n] + out
    result = wrap(values.reshape(shape), input._device)
    if not (record or return_indices):
        return result
    node_class = (MaxPool1DWithIndicesBackward0, MaxPool2DWithIndicesBackward0,
                  MaxPool3DWithIndicesBackward0)[n - 1]
    if record and arg is None and not return_indices and all(
            s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation)):
        # windows that share no element: the backward finds each window's first maximum
        # again from the saved input and writes the grad there, with no index arrays
        node = node_class()
        node.indices = None
        node.input_shape = data.shape
        node.spatial = n
        node.window = (kernel, stride, padding, dilation, out, fill)
        node.maxima = values.copy()     # the output itself may be modified in place
        node.save(input)
        attach(result, node, input)
        return result
    if arg is None:
        arg = _im2col.window_first_max(win, n, values, xp)
    indices = _flat_indices(arg, kernel, stride, padding, dilation, x.shape[2:], xp)
    indices = indices.reshape(shape)
    if record:
        _record_indexed(result, node_class, input, indices, n)
        result.grad_fn.save(input)
    if return_indices:
        return result, wrap(indices, input._device)
    return result


def _flat_indices(arg, kernel, stride, padding, dilation, size, xp):
    """Window-local argmax -> flat index into the unpadded input plane (PyTorch's indices):
    each window's origin plus its kernel offset's step, both looked up, not unravelled."""
    n = len(kernel)
    plane_steps = [math.prod(size[i + 1:]) for i in range(n)]
    origin = 0
    for i in range(n):
        position = xp.arange(arg.shape[2 + i]).reshape((-1,) + (1,) * (n - 1 - i))
        origin = origin + (position * stride[i] - padding[i]) * plane_steps[i]
    steps = 0
    for i in range(n):
        offset = xp.arange(kernel[i]).reshape((-1,) + (1,) * (n - 1 - i))
        steps = steps + offset * dilation[i] * plane_steps[i]
    return xp.asarray(steps, dtype=xp.int64).reshape(-1).take(arg) + origin


class _MaxPoolBackward(_IndexedBackward):
    """Through the indices when they were built; else from the saved input and maxima."""
    __slots__ = ("window", "maxima")

    def release(self):
        super().release()
        self.maxima = None

    def backward(self, grad):
        saved = self.saved_tensors          # PyTorch saves the input: in-place changes raise
        if self.indices is not None:
            return super().backward(grad)
        return (_window_max_backward(self, saved[0], grad),)


def _window_max_backward(node, input, grad):
    """Each output's grad to its window's first maximum (windows that share no element)."""
    kernel, stride, padding, dilation, out, fill = node.window
    n = node.spatial
    xp = grad._device.xp
    x = _batched(input._data, n)
    padded = _padded(x, kernel, stride, padding, dilation, out, fill, xp)
    win = _im2col.windows(padded, kernel, stride, dilation, out, xp)
    if grad_state.enabled and grad._requires_grad:    # create_graph: the recorded scatter
        arg = _im2col.window_first_max(win, n, node.maxima, xp)
        indices = _flat_indices(arg, kernel, stride, padding, dilation, x.shape[2:], xp)
        return _plane_scatter(grad, indices.reshape(grad._data.shape), node.input_shape, n,
                              type(node))
    result = _im2col.window_max_grad(win, n, node.maxima, _batched(grad._data, n),
                                     padded.shape, stride, dilation, xp)
    if result.shape != x.shape:
        result = xp.ascontiguousarray(_im2col.crop(result, padding, x.shape[2:]))
    return wrap(result.reshape(node.input_shape), grad._device)


class MaxPool1DWithIndicesBackward0(_MaxPoolBackward):
    __slots__ = ()


class MaxPool2DWithIndicesBackward0(_MaxPoolBackward):
    __slots__ = ()


class MaxPool3DWithIndicesBackward0(_MaxPoolBackward):
    __slots__ = ()


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool1d returning (values, indices); computed as a 2-D pool, as PyTorch does."""
    return _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, L) or (C, L) input."""
    return _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    try:
        return _max_pool1d_checked(input, kernel_size, stride, padding, dilation, ceil_mode,
                                   return_indices)
    except Exception:
        _parse_max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode,
                        return_indices)
        raise


def _max_pool1d_checked(input, kernel_size, stride, padding, dilation, ceil_mode,
                        return_indices):
    kernel = _param(kernel_size, 1, "kernel_size", "max_pool1d")
    stride = _param(stride, 1, "stride", "max_pool1d", default=kernel)
    padding = _param(padding, 1, "padding", "max_pool1d")
    dilation = _param(dilation, 1, "dilation", "max_pool1d")
    if not return_indices:   # PyTorch 2.13 takes this kernel's checks with grad too
        _check_pool1d(input, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
        if not _is_floating(input._data.dtype):
            raise NotImplementedError(_errors.not_implemented_for("max_pool1d_impl",
                                                                  input.dtype))
    if input._data.ndim not in (2, 3):   # max_pool1d_with_indices's checkDimRange (argcheck10)
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"max_pool1d)")
    result = _max_pool(input.unsqueeze(-2), (1,) + kernel, (1,) + stride, (0,) + padding,
                       (1,) + dilation, ceil_mode, return_indices, 2)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def _check_pool1d(input, kernel, stride, padding, dilation, ceil_mode):
    """The messages of PyTorch's no-grad max_pool1d kernel."""
    shape = input._data.shape
    if len(shape) not in (2, 3) or shape[-1] == 0 or shape[-2] == 0:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{_errors.shape_list(shape)}")
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got "
                           f"{kernel}")
    if stride <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={padding} and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got "
                           f"{dilation}")
    out = _pool_out(shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, H, W) or (C, H, W) input."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""
    if _autocast.on:
        return _autocast.float32(max_pool3d, input, kernel_size, stride, padding, dilation,
                                 ceil_mode, return_indices)
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


# ---------------------------------------------------------------- average pooling
def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, n):
    what = f"avg_pool{n}d"
    kernel = _param(kernel_size, n, "kernel_size", what)
    stride = _param(stride, n, "stride", what, default=kernel)
    padding = _param(padding, n, "padding", what)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _check_pool(input, kernel, stride, padding, (1,) * n, ceil_mode, n, n == 3)
    # the dtypes after the shape checks, as PyTorch's kernels do
    if not _is_floating(input._data.dtype) and input._data.dtype.name != "int64":
        raise NotImplementedError(_errors.not_implemented_for(what, input.dtype))
    if n == 3 and input._data.dtype in _REDUCED:  # PyTorch's 3-D kernel lacks half types
        raise NotImplementedError(_errors.not_implemented_for("avg_pool3d_out_frame",
                                                              input.dtype))
    params = (kernel, stride, padding, out, count_include_pad, divisor_override)
    return _avg_pool_apply(input, params, n)


def _avg_divisor(size, params, xp):
    """Per-output divisor: window size clipped at the padded (or, without padding, real) edge."""
    kernel, stride, padding, out, count_include_pad, divisor_override = params
    if divisor_override is not None:
        return divisor_override
    n = len(kernel)
    divisor = 1
    for i in range(n):
        start = xp.arange(out[i]) * stride[i] - padding[i]
        end = xp.minimum(start + kernel[i], size[i] + padding[i])
        if count_include_pad:
            length = end - start
        else:
            length = xp.minimum(end, size[i]) - xp.maximum(start, 0)
        divisor = divisor * length.reshape((-1,) + (1,) * (n - 1 - i))
    return divisor


def _avg_pool_apply(input, params, n):
    """Average pool with validated params; records AvgPool{n}DBackward0."""
    kernel, stride, padding, out = params[:4]
    data = input._data
    xp = input._device.xp
    x = _batched(data, n)
    win = _padded_windows(x, kernel, stride, padding, (1,) * n, out, 0, xp)
    divisor = _avg_divisor(x.shape[2:], params, xp)
    if _is_floating(data.dtype):
        work = "float32" if data.dtype.itemsize == 2 else data.dtype
        result = (_im2col.window_sum(win, n, work) / divisor).astype(data.dtype)
    else:
        total = _im2col.window_sum(win, n, data.dtype)
        result = (xp.abs(total) // divisor) * xp.sign(total)   # C++ division truncates
    result = wrap(result.reshape(data.shape[:-n] + out), input._device)
    if grad_state.enabled and input._requires_grad:
        node = (AvgPool1DBackward0, AvgPool2DBackward0, AvgPool3DBackward0)[n - 1]()
        node.params = params
        node.input_shape = data.shape
        attach(result, node, input)
    return result


class _AvgPoolBackward(Node):
    __slots__ = ("params", "input_shape")

    def backward(self, grad):
        return (_avg_pool_backward(grad, self.params, self.input_shape, type(self)),)


class AvgPool1DBackward0(_AvgPoolBackward):
    __slots__ = ()


class AvgPool2DBackward0(_AvgPoolBackward):
    __slots__ = ()


class AvgPool3DBackward0(_AvgPoolBackward):
    __slots__ = ()


def _avg_pool_backward(grad, params, input_shape, forward_class):
    """Adjoint of average pooling: each output's grad / divisor spread over its window."""
    kernel, stride, padding, out = params[:4]
    n = len(kernel)
    xp = grad._device.xp
    size = input_shape[-n:]
    g = _batched(grad._data, n)
    g = g / _avg_divisor(size, params, xp) if _is_floating(g.dtype) else g
    g = g.astype(grad._data.dtype)
    cols = xp.broadcast_to(g.reshape(g.shape[:2] + (1,) * n + out), g.shape[:2] + kernel + out)
    result = _im2col.col2im_cropped(cols, size, padding, stride, (1,) * n, xp)
    result = wrap(result.reshape(input_shape), grad._device)
    if grad_state.enabled and grad._requires_grad:
        node = AvgPoolBackwardBackward0()
        node.params = params
        node.forward_class = forward_class
        attach(result, node, grad)
    return result


class AvgPoolBackwardBackward0(Node):
    """Second derivative of average pooling: average pooling again (it is linear)."""
    __slots__ = ("params", "forward_class")

    def backward(self, grad):
        n = len(self.params[0])
        return (_avg_pool_apply(grad, self.params, n),)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over sliding windows of (N, C, L) or (C, L) input (a 2-D pool underneath)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"avg_pool1d)")
    kernel = _param(kernel_size, 1, "kernel_size", "avg_pool1d")
    stride = _param(stride, 1, "stride", "avg_pool1d", default=kernel)
    padding = _param(padding, 1, "padding", "avg_pool1d")
    out = _avg_pool(input.unsqueeze(-2), (1,) + kernel, (1,) + stride, (0,) + padding,
                    ceil_mode, count_include_pad, None, 2)
    return out.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, H, W) or (C, H, W) input."""
    if input._data.ndim < 3:   # PyTorch's 2-d kernel reads the channel dim (-3) first
        wrap_dim(-3, input._data.ndim)
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over sliding windows of (N, C, D, H, W) or (C, D, H, W) input."""
    if _autocast.on:
        return _autocast.float32(avg_pool3d, input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling, composed as PyTorch composes it."""
    if norm_type in (math.inf, -math.inf):
        sign = 1 if norm_type > 0 else -1
        return sign * max_pool1d(sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling, composed as PyTorch composes it."""
    kw, kh = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    if norm_type in (math.inf, -math.inf):
        sign = 1 if norm_type > 0 else -1
        return sign * max_pool2d(sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


__all__ += pooling_adaptive.__all__
