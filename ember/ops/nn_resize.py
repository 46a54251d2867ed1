"""Padding and resizing: F.pad (constant, reflect, replicate, circular) and F.interpolate.

Every non-constant pad and every nearest resize reads the input at per-dim index
lists (one index array per spatial dim): a separable gather, whose gradient is
the matching scatter-add and whose second gradient is the gather again. Linear,
bilinear, trilinear and bicubic resizing are separable linear maps: one small
(out x in) matrix per spatial dim, applied with matmul; the gradient applies the
transposes with ember ops, so higher orders come for free. PyTorch's coordinate
rules (float32 scales, align_corners, recompute_scale_factor) are matched exactly.
"""
import math
import warnings

from . import _autocast
from .. import _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, scalar_number, scalar_value, wrap
from ._linear_map import _LinearMapBackward, linear_map
from .pooling_adaptive import _adaptive_avg_pool_nd

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]


# ---------------------------------------------------------------- constant pad
def constant_pad_nd(input, pad, value=0):
    """Pad (or crop, for negative amounts) the last len(pad)//2 dims with `value`.

    `value` is PyTorch's Scalar, converted into the dtype only when some padding is
    filled (an int wraps into an unsigned dtype as fill_ does; a float must fit)."""
    data = input._data
    xp = input._device.xp
    ndim = data.ndim
    n = len(pad) // 2
    shape = list(data.shape)
    crop, place = [slice(None)] * ndim, [slice(None)] * ndim
    for i in range(n):
        dim = ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        size = shape[dim]
        new = size + before + after
        if size + min(before, 0) + min(after, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if new < 0:
            raise RuntimeError(f"The input size {size}, plus negative padding {before} and "
                               f"{after} resulted in a negative output size, which is invalid. "
                               f"Check dimension {dim} of your input.")
        crop[dim] = slice(max(-before, 0), size - max(-after, 0))
        place[dim] = slice(max(before, 0), new - max(after, 0))
        shape[dim] = new
    if value == 0 or not any(amount > 0 for amount in pad[:2 * n]):
        out = xp.zeros(shape, data.dtype)   # nothing is filled: the value is never converted
    else:
        out = xp.full(shape, scalar_number(scalar_value(value), input.dtype), data.dtype)
    out[tuple(place)] = data[tuple(crop)]
    result = wrap(out, input._device)
    if grad_state.enabled and input._requires_grad:
        node = ConstantPadNdBackward0()
        node.pad = tuple(pad)
        attach(result, node, input)
    return result


class ConstantPadNdBackward0(Node):
    """The adjoint of padding is cropping (and of cropping, zero padding): negate the pads."""
    __slots__ = ("pad",)

    def backward(self, grad):
        return (constant_pad_nd(grad, tuple(-p for p in self.pad)),)


# ---------------------------------------------------------------- separable gathers
def _gather(input, indices, node_class):
    """input read at `indices` (dim -> index array) in each listed dim."""
    data = input._data
    xp = input._device.xp
    for dim, index in indices:
        data = xp.take(data, index, axis=dim)
    out = wrap(data, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.indices = indices
        node.sizes = tuple(input._data.shape[dim] for dim, _ in indices)
        attach(out, node, input)
    return out


class _GatherBackward(Node):
    """Shared backward of the index-list ops (pads, nearest resizes): a scatter-add."""
    __slots__ = ("indices", "sizes")

    def backward(self, grad):
        return (_scatter(grad, self.indices, self.sizes, type(self)),)


def _scatter(grad, indices, sizes, gather_class):
    """Adjoint of `_gather`: add each value back at its source index (bincount per dim)."""
    data = grad._data
    xp = grad._device.xp
    for (dim, index), size in zip(indices, sizes):
        moved = xp.moveaxis(data, dim, -1)
        lead = moved.shape[:-1]
        rows = math.prod(lead)
        flat = xp.ascontiguousarray(moved).reshape(rows, moved.shape[-1])
        where = (xp.arange(rows)[:, None] * size + index[None, :]).reshape(-1)
        summed = xp.bincount(where, weights=flat.reshape(-1), minlength=rows * size)
        data = xp.moveaxis(summed.astype(data.dtype).reshape(lead + (size,)), -1, dim)
    out = wrap(xp.ascontiguousarray(data), grad._device)
    if grad_state.enabled and grad._requires_grad:
        node = GatherBackwardBackward0()
        node.indices = indices
        node.gather_class = gather_class
        attach(out, node, grad)
    return out


class GatherBackwardBackward0(Node):
    """Second derivative of a pad/nearest op: the forward gather again."""
    __slots__ = ("indices", "gather_class")

    def backward(self, grad):
        return (_gather(grad, self.indices, self.gather_class),)


class ReflectionPad1DBackward0(_GatherBackward):
    __slots__ = ()


class ReflectionPad2DBackward0(_GatherBackward):
    __slots__ = ()


class ReflectionPad3DBackward0(_GatherBackward):
    __slots__ = ()


class ReplicationPad1DBackward0(_GatherBackward):
    __slots__ = ()


class ReplicationPad2DBackward0(_GatherBackward):
    __slots__ = ()


class ReplicationPad3DBackward0(_GatherBackward):
    __slots__ = ()


class UpsampleNearest1DBackward0(_GatherBackward):
    __slots__ = ()


class UpsampleNearest2DBackward0(_GatherBackward):
    __slots__ = ()


class UpsampleNearest3DBackward0(_GatherBackward):
    __slots__ = ()


class UpsampleNearestExact1DBackward0(_GatherBackward):
    __slots__ = ()


class UpsampleNearestExact2DBackward0(_GatherBackward):
    __slots__ = ()


class UpsampleNearestExact3DBackward0(_GatherBackward):
    __slots__ = ()


_PAD_NODES = {"reflect": (ReflectionPad1DBackward0, ReflectionPad2DBackward0,
                          ReflectionPad3DBackward0),
              "replicate": (ReplicationPad1DBackward0, ReplicationPad2DBackward0,
                            ReplicationPad3DBackward0)}
_NEAREST_NODES = {"nearest": (UpsampleNearest1DBackward0, UpsampleNearest2DBackward0,
                              UpsampleNearest3DBackward0),
                  "nearest-exact": (UpsampleNearestExact1DBackward0,
                                    UpsampleNearestExact2DBackward0,
                                    UpsampleNearestExact3DBackward0)}


# ---------------------------------------------------------------- F.pad
_PAD_COMBINATIONS = ("Supported combinations for non-constant padding:\n"
                     "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                     "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                     "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode="constant", value=None):
    """F.pad: `pad` lists (before, after) amounts starting from the last dim."""
    pad = tuple(int(p) for p in pad)
    ndim = input._data.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {ndim}")
    if mode == "constant":  # F.pad's value is a float (a double): -2 does not wrap in uint8
        return constant_pad_nd(input, pad, 0 if value is None else float(value))
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pad) // 2
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if n not in (1, 2, 3) or ndim not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {ndim}D input "
                                  f"tensor.\n{_PAD_COMBINATIONS}")
    if mode == "circular":
        return _pad_circular(input, pad)
    return _pad_indexed(input, pad, mode, n)


def _pad_indexed(input, pad, mode, n):
    """Reflect or replicate: each padded dim reads the input at a computed index list."""
    if _autocast.on and (mode == "replicate" or n < 3):  # PyTorch's float32 list
        return _autocast.float32(_pad_indexed, input, pad, mode, n)
    data = input._data
    xp = input._device.xp
    shape = data.shape
    kernel = ("reflection_pad" if mode == "reflect" else "replication_pad") + f"{n}d"
    if data.dtype.kind == "b":
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))
    if any(s == 0 for s in shape[len(shape) - n - 1:]):
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{_errors.shape_list(shape)}")
    indices = []
    for i in range(n):
        dim = len(shape) - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        size = shape[dim]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({before}, "
                               f"{after}) at dimension {dim} of input "
                               f"{_errors.shape_list(shape)}")
        index = xp.arange(-before, size + after)
        if mode == "reflect":
            index = xp.abs(index)
            index = xp.where(index >= size, 2 * (size - 1) - index, index)
        else:
            index = xp.clip(index, 0, size - 1)
        indices.append((dim, index))
    return _gather(input, tuple(indices[::-1]), _PAD_NODES[mode][n - 1])


def _pad_circular(input, pad):
    """PyTorch's own decomposition (its grad_fn is CopySlices): copy the core, then wrap."""
    shape = input._data.shape
    ndim = len(shape)
    n = len(pad) // 2
    out_shape = list(shape)
    source = [slice(None)] * ndim
    target = [slice(None)] * ndim
    for i in range(n):
        dim = ndim - n + i
        before, after = pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
        size = shape[dim]
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[dim] = size + before + after
        if out_shape[dim] <= 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension.")
        source[dim] = slice(max(-before, 0), size - max(-after, 0))
        target[dim] = slice(max(before, 0), out_shape[dim] - max(after, 0))
    out = input.new_empty(out_shape)
    out[tuple(target)] = input[tuple(source)]
    for i in range(n):
        dim = ndim - n + i
        before, after = pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]
        length = out_shape[dim]
        lead = (slice(None),) * dim
        if before > 0:
            out[lead + (slice(0, before),)] = out[lead + (slice(length - before - max(after, 0),
                                                                 length - max(after, 0)),)]
        if after > 0:
            start = max(before, 0)
            out[lead + (slice(length - after, length),)] = out[lead + (slice(start,
                                                                             start + after),)]
    return out


# ---------------------------------------------------------------- separable linear maps
class UpsampleLinear1DBackward0(_LinearMapBackward):
    __slots__ = ()


class UpsampleBilinear2DBackward0(_LinearMapBackward):
    __slots__ = ()


class UpsampleTrilinear3DBackward0(_LinearMapBackward):
    __slots__ = ()


class UpsampleBicubic2DBackward0(_LinearMapBackward):
    __slots__ = ()


class UpsampleBilinear2DAaBackward0(_LinearMapBackward):
    __slots__ = ()


class UpsampleBicubic2DAaBackward0(_LinearMapBackward):
    __slots__ = ()


# ---------------------------------------------------------------- coordinates
def _scale(in_size, out_size, align_corners, scale, np_dtype):
    """area_pixel_compute_scale in the kernel's float type."""
    if align_corners:
        return np_dtype.type((in_size - 1) / (out_size - 1) if out_size > 1 else 0)
    if scale is not None and scale > 0:
        return np_dtype.type(1.0 / scale)
    return np_dtype.type(in_size) / np_dtype.type(out_size)


def _source_index(in_size, out_size, align_corners, scale, np_dtype, xp, cubic=False):
    """area_pixel_compute_source_index for every output position."""
    s = _scale(in_size, out_size, align_corners, scale, np_dtype)
    dst = xp.arange(out_size).astype(np_dtype)
    if align_corners:
        return s * dst
    src = s * (dst + np_dtype.type(0.5)) - np_dtype.type(0.5)
    return src if cubic else xp.maximum(src, np_dtype.type(0))


def _nearest_index(in_size, out_size, scale, exact, xp):
    """PyTorch's nearest_idx / nearest_neighbor_exact_compute_source_index (float32 math)."""
    f32 = xp.dtype("float32")
    dst = xp.arange(out_size)
    if not exact:
        if out_size == in_size:
            return dst
        if out_size == 2 * in_size:
            return dst >> 1
    s = f32.type(1.0 / scale) if scale is not None and scale > 0 else \
        f32.type(in_size) / f32.type(out_size)
    if exact:
        src = ((dst + 0.5) * float(s)).astype(f32)
    else:
        src = dst.astype(f32) * s
    return xp.minimum(xp.floor(src).astype(xp.int64), in_size - 1)


def _linear_matrix(in_size, out_size, align_corners, scale, np_dtype, xp):
    src = _source_index(in_size, out_size, align_corners, scale, np_dtype, xp)
    index = xp.minimum(xp.floor(src).astype(xp.int64), in_size - 1)
    lam = xp.clip(src - index.astype(np_dtype), 0, 1).astype(np_dtype)
    upper = index + (index < in_size - 1)
    matrix = xp.zeros((out_size, in_size), np_dtype)
    rows = xp.arange(out_size)
    xp.add.at(matrix, (rows, index), np_dtype.type(1) - lam)
    xp.add.at(matrix, (rows, upper), lam)
    return matrix


def _cubic_matrix(in_size, out_size, align_corners, scale, np_dtype, xp):
    src = _source_index(in_size, out_size, align_corners, scale, np_dtype, xp, cubic=True)
    index = xp.floor(src).astype(xp.int64)
    t = (src - index.astype(np_dtype)).astype(np_dtype)
    a = np_dtype.type(-0.75)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    one = np_dtype.type(1)
    weights = (far(t + one), near(t), near(one - t), far(np_dtype.type(2) - t))
    matrix = xp.zeros((out_size, in_size), np_dtype)
    rows = xp.arange(out_size)
    for k, weight in enumerate(weights):
        xp.add.at(matrix, (rows, xp.clip(index - 1 + k, 0, in_size - 1)), weight)
    return matrix


def _triangle(x):
    x = abs(x)
    return (x < 1) * (1 - x)


def _keys_cubic(x):
    """Keys' cubic kernel with a = -0.5, the one PIL (and so antialias=True) uses."""
    x = abs(x)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return (x < 1) * near + ((x >= 1) & (x < 2)) * far


_AA_FILTERS = {"bilinear": (_triangle, 2), "bicubic": (_keys_cubic, 4)}


def _antialias_matrix(in_size, out_size, align_corners, scale, np_dtype, xp, mode):
    """PIL-style resampling weights: when shrinking, the filter widens by the scale so
    every input pixel is averaged in (no aliasing); each output's weights are cut at the
    borders and renormalised to sum to one."""
    kernel, width = _AA_FILTERS[mode]
    s = _scale(in_size, out_size, align_corners, scale, np_dtype)
    support = width * 0.5 * s if s >= 1 else np_dtype.type(width * 0.5)
    stretch = 1 / s if s >= 1 else np_dtype.type(1)
    center = (s * (xp.arange(out_size) + 0.5).astype(np_dtype))[:, None]
    low = xp.maximum((center - support + 0.5).astype(xp.int64), 0)
    high = xp.minimum((center + support + 0.5).astype(xp.int64), in_size)
    position = xp.arange(in_size)[None, :]
    weights = kernel((position - center + 0.5) * stretch) * ((position >= low) &
                                                              (position < high))
    total = weights.sum(1, keepdims=True)
    return (weights / xp.where(total == 0, 1, total)).astype(np_dtype)


# ---------------------------------------------------------------- interpolate
_LINEAR_MODES = {"linear": (3, UpsampleLinear1DBackward0),
                 "bilinear": (4, UpsampleBilinear2DBackward0),
                 "trilinear": (5, UpsampleTrilinear3DBackward0),
                 "bicubic": (4, UpsampleBicubic2DBackward0)}
_MODE_LIST = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """F.interpolate: resize the spatial dims of (N, C, *spatial) input."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    shape = input._data.shape
    dim = len(shape) - 2
    output_size, scales = _output_size(shape, dim, size, scale_factor, recompute_scale_factor,
                                       mode)
    if antialias and not (mode in _AA_FILTERS and len(shape) == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if len(shape) not in (3, 4, 5):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {len(shape)}D) for the modes: {_MODE_LIST} (got {mode})")
    if mode == "area":
        return _adaptive_avg_pool_nd(input, output_size, dim)
    _check_sizes(shape[2:], output_size)
    if mode in ("nearest", "nearest-exact"):
        return _resize_nearest(input, output_size, scales, mode)
    if mode in _LINEAR_MODES and _LINEAR_MODES[mode][0] == len(shape):
        return _resize_linear(input, output_size, scales, mode, align_corners, antialias)
    if mode in ("linear", "bilinear", "trilinear"):
        needs = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {len(shape)}D input, but {mode} mode needs {needs}D "
                                  f"input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{len(shape)}D) for the modes: {_MODE_LIST} (got {mode})")


def _output_size(shape, dim, size, scale_factor, recompute_scale_factor, mode):
    """interpolate's size / scale_factor resolution, with its messages."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    f"output size in (o1, o2, ...,oK) format.")
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * dim
        scales = None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    f"Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    f"C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        output_size = [int(s * f) for s, f in zip(shape[2:], scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = None
    return output_size, scales


def _check_sizes(in_sizes, out_sizes):
    if all(s > 0 for s in in_sizes) and all(s > 0 for s in out_sizes):
        return
    names = ("D", "H", "W")[3 - len(in_sizes):]
    ins = ", ".join(f"{n}: {s}" for n, s in zip(names, in_sizes))
    outs = ", ".join(f"{n}: {s}" for n, s in zip(names, out_sizes))
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) "
                       f"output ({outs})")


def _resize_nearest(input, output_size, scales, mode):
    data = input._data
    xp = input._device.xp
    if data.dtype.kind in "biu":
        kernel = "upsample_nearest" if mode == "nearest" else "_upsample_nearest_exact"
        raise NotImplementedError(_errors.not_implemented_for(
            f"{kernel}{len(output_size)}d", input.dtype))
    n = len(output_size)
    indices = tuple(
        (2 + i, _nearest_index(data.shape[2 + i], output_size[i],
                               None if scales is None else scales[i], mode != "nearest", xp))
        for i in range(n))
    return _gather(input, indices, _NEAREST_NODES[mode][n - 1])


def _resize_linear(input, output_size, scales, mode, align_corners, antialias=False):
    data = input._data
    xp = input._device.xp
    if data.dtype.kind in "biu":
        kernel = ("compute_index_ranges_weights" if antialias else
                  f"upsample_{mode}{len(output_size)}d")
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))
    work = xp.dtype("float64") if data.dtype == xp.dtype("float64") else xp.dtype("float32")
    if antialias:
        def build(*arguments):
            return _antialias_matrix(*arguments, mode)
        node_class = _AA_NODES[mode]
    else:
        build = _cubic_matrix if mode == "bicubic" else _linear_matrix
        node_class = _LINEAR_MODES[mode][1]
    matrices = tuple(
        (2 + i, build(data.shape[2 + i], output_size[i], align_corners,
                      None if scales is None else scales[i], work, xp))
        for i in range(len(output_size)))
    # NaN and inf stay in the outputs that read them (bicubic's negative weights aside)
    return linear_map(input, matrices, node_class, windowed=False if antialias else "pairs")


_AA_NODES = {"bilinear": UpsampleBilinear2DAaBackward0, "bicubic": UpsampleBicubic2DAaBackward0}


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate (PyTorch warns the same way)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
