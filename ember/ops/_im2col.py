"""Array kernels of convolution and pooling: strided windows (im2col) and their adjoint.

Everything here works on backend arrays laid out (N, C, *spatial), for any number
of spatial dims. A window view costs nothing (`as_strided`); the one copy is the
reshape that feeds a single batched matmul (BLAS), and the forward hands that copy
back for the weight gradient. The adjoint (col2im) loops over kernel offsets only,
each iteration a vectorised strided add over all the rest; window maxima and sums
likewise take one whole-array ufunc per kernel offset (no `ufunc.at`, no argmax over
a strided axis).
The differentiable ops built on these live in conv.py and pooling.py.
"""
import itertools
import math

from .._dtype import is_floating as _is_floating
from .. import _backend

__all__ = []


def out_size(size, kernel, stride, padding, dilation):
    """Per-dim output size of a window sweep (PyTorch's floor rule)."""
    return tuple((s + 2 * p - d * (k - 1) - 1) // st + 1
                 for s, k, st, p, d in zip(size, kernel, stride, padding, dilation))


def pad_zeros(x, padding, xp, extra=None, value=0):
    """`x` with `padding` on both sides of each spatial dim (`extra` more at the end)."""
    if extra is None:
        if not any(padding):
            return x
        extra = (0,) * len(padding)
    spatial = x.shape[2:]
    shape = x.shape[:2] + tuple(s + 2 * p + e for s, p, e in zip(spatial, padding, extra))
    out = xp.full(shape, value, x.dtype) if value else xp.zeros(shape, x.dtype)
    out[(Ellipsis,) + tuple(slice(p, p + s) for p, s in zip(padding, spatial))] = x
    return out


def windows(padded, kernel, stride, dilation, out, xp, writeable=False):
    """A view (N, C, *kernel, *out) of every window of an already padded array (read-only
    unless `writeable`: only a gradient buffer whose windows never overlap is written so)."""
    n = len(kernel)
    strides = padded.strides
    spatial = strides[2:]
    shape = padded.shape[:2] + tuple(kernel) + tuple(out)
    view_strides = (strides[:2] + tuple(spatial[i] * dilation[i] for i in range(n))
                    + tuple(spatial[i] * stride[i] for i in range(n)))
    return _backend.as_strided(padded, shape, view_strides, writeable=writeable)


def col2im(cols, padded_shape, stride, dilation, xp):
    """Adjoint of `windows`: add cols (N, C, *kernel, *out) back into a zero array."""
    n = len(padded_shape) - 2
    kernel = cols.shape[2:2 + n]
    out = cols.shape[2 + n:]
    result = xp.zeros(padded_shape, cols.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        target = (Ellipsis,) + tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s)
            for k, d, s, o in zip(offset, dilation, stride, out))
        result[target] += cols[(slice(None), slice(None)) + offset]
    return result


def col2im_cropped(cols, size, padding, stride, dilation, xp, result=None):
    """col2im followed by crop, without the padded buffer: each kernel offset adds only the
    part of its slice that lands inside the image. Every element still receives its terms in
    kernel-offset order, starting from zero, so the sums are those of col2im + crop.
    `result`: a zeroed (N, C, *size) view to add into (a batch-last buffer, seen as NCHW)."""
    n = len(size)
    kernel = cols.shape[2:2 + n]
    out = cols.shape[2 + n:]
    if result is None:
        result = xp.zeros(cols.shape[:2] + tuple(size), cols.dtype)
    for offset in itertools.product(*(range(k) for k in kernel)):
        target, source = [Ellipsis], [slice(None), slice(None), *offset]
        for k, d, s, o, p, length in zip(offset, dilation, stride, out, padding, size):
            first = k * d - p                       # image coordinate of output position 0
            low = max(0, -(first // s))             # first output position inside the image
            high = min(o - 1, (length - 1 - first) // s)
            if low > high:
                break
            target.append(slice(first + s * low, first + s * high + 1, s))
            source.append(slice(low, high + 1))
        else:
            result[tuple(target)] += cols[tuple(source)]
    return result


def crop(x, padding, size):
    """The inner `size` region of a padded array (inverse of `pad_zeros`)."""
    if not any(padding) and x.shape[2:] == tuple(size):
        return x
    return x[(Ellipsis,) + tuple(slice(p, p + s) for p, s in zip(padding, size))]


def _compute_dtype(x, xp):
    """Half types are accumulated in float32, as PyTorch's CPU kernels do."""
    if x.dtype.itemsize == 2 and x.dtype.kind not in "iu":
        return xp.dtype("float32")
    return x.dtype


def conv_forward(x, w, stride, padding, dilation, groups, xp):
    """Cross-correlation: x (N, C, *S), w (O, C/groups, *K) -> (N, O, *out), and the columns.

    Ungrouped, the columns are batch-last (C*K, P*N) (`columns_last`) and each product
    is one 2-D GEMM; grouped, the windows are copied in their natural order
    (N, G, Cg*K, P), so the batched matmul with the weights (G, Og, Cg*K) lands
    directly in (N, O, P). The columns come back too (in the compute dtype): the weight gradient is a product
    with the same matrix, and reusing it saves the backward a second im2col.
    """
    dtype = x.dtype
    work = _compute_dtype(x, xp)
    if work != dtype:
        x, w = x.astype(work), w.astype(work)
    out = out_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    out_channels = w.shape[0]
    if _use_batch_last(groups, out):
        cols = columns_last(x, w.shape[2:], stride, padding, dilation, out, xp)
        y = xp.matmul(w.reshape(out_channels, cols.shape[0]), cols)     # (O, P*N)
        y = _batch_first(y.reshape((out_channels,) + out + (x.shape[0],)), xp)
        return (y.astype(dtype) if work != dtype else y), cols
    cols = columns(x, w.shape[2:], stride, padding, dilation, groups, out, xp)
    weight = w.reshape(groups, out_channels // groups, cols.shape[2])
    y = xp.matmul(weight, cols).reshape((x.shape[0], out_channels) + out)
    return (y.astype(dtype) if work != dtype else y), cols


def columns(x, kernel, stride, padding, dilation, groups, out, xp):
    """The im2col matrix (N, G, Cg*K, P) of x: a window view copied once."""
    n_batch, channels = x.shape[:2]
    cols = windows(pad_zeros(x, padding, xp), kernel, stride, dilation, out, xp)
    cg_k = channels // groups * math.prod(kernel)
    return xp.ascontiguousarray(cols).reshape(n_batch, groups, cg_k, math.prod(out))


def _use_batch_last(groups, out):
    """Whether `columns_last` beats `columns`: ungrouped, with output rows of at most 16
    (measured: LeNet's 10x10 and a ResNet's 16x16 gain, 28- and 32-wide rows lose to the
    extra transposes of the output and its gradient)."""
    return groups == 1 and len(out) > 0 and out[-1] <= 16


def columns_last(x, kernel, stride, padding, dilation, out, xp):
    """The im2col matrix (C*K, P*N) of x with the batch innermost (groups == 1).

    x is first copied, padded, into a (C, *padded, N) buffer; each window row of the copy
    below is then a run of N or more contiguous elements, where the (N, C, K, P) layout
    copies runs of one output row. For few channels and small images (LeNet) this makes
    the copy several times faster, and the products become single 2-D GEMMs.
    """
    n_batch, channels = x.shape[:2]
    spatial = x.shape[2:]
    padded = xp.zeros((channels,) + tuple(s + 2 * p for s, p in zip(spatial, padding))
                      + (n_batch,), x.dtype)
    inner = (slice(None),) + tuple(slice(p, p + s) for p, s in zip(padding, spatial))
    padded[inner] = _batch_last(x)
    strides = padded.strides
    n = len(kernel)
    view = _backend.as_strided(
        padded, (channels,) + tuple(kernel) + tuple(out) + (n_batch,),
        (strides[0],) + tuple(strides[1 + i] * dilation[i] for i in range(n))
        + tuple(strides[1 + i] * stride[i] for i in range(n)) + (strides[-1],))
    return xp.ascontiguousarray(view).reshape(channels * math.prod(kernel),
                                              math.prod(out) * n_batch)


def _batch_last(a):
    """View (N, C, *S) as (C, *S, N)."""
    return a.transpose(tuple(range(1, a.ndim)) + (0,))


def _batch_first_view(a):
    """View (C, *S, N) as (N, C, *S)."""
    return a.transpose((a.ndim - 1,) + tuple(range(a.ndim - 1)))


def _batch_first(a, xp):
    """Copy (C, *S, N) into a contiguous (N, C, *S), as PyTorch's kernels return."""
    return xp.ascontiguousarray(_batch_first_view(a))


def conv_input_grad(g, w, size, stride, padding, dilation, groups, xp):
    """Adjoint of conv_forward in x (= transposed convolution): (N, O, *out) -> (N, C, *size)."""
    if _adjoint_as_correlation(g, w, size, stride, padding, dilation, groups, xp):
        flipped = adjoint_weight(w, groups)
        return conv_forward(g, flipped, stride, tuple(
            d * (k - 1) - p for d, k, p in zip(dilation, w.shape[2:], padding)),
            dilation, groups, xp)[0]
    dtype = g.dtype
    work = _compute_dtype(g, xp)
    if work != dtype:
        g, w = g.astype(work), w.astype(work)
    n_batch, out_channels = g.shape[:2]
    out = g.shape[2:]
    kernel = w.shape[2:]
    channels = w.shape[1] * groups
    if _use_batch_last(groups, out):
        positions = math.prod(out) * n_batch
        grad = xp.ascontiguousarray(_batch_last(g)).reshape(out_channels, positions)
        cols = xp.matmul(w.reshape(out_channels, channels * math.prod(kernel)).T, grad)
        cols = cols.reshape((channels,) + kernel + out + (n_batch,))
        # col2im into a batch-last buffer: each strided add moves runs of N elements
        buffer = xp.zeros((channels,) + tuple(size) + (n_batch,), g.dtype)
        col2im_cropped(_batch_first_view(cols), size, padding, stride, dilation, xp,
                       _batch_first_view(buffer))
        result = _batch_first(buffer, xp)
        return result.astype(dtype) if work != dtype else result
    og = out_channels // groups
    grad = g.reshape(n_batch, groups, og, math.prod(out))
    weight = w.reshape(groups, og, w.shape[1] * math.prod(kernel)).transpose(0, 2, 1)
    cols = xp.matmul(weight, grad)                                    # (N, G, Cg*K, P)
    cols = cols.reshape((n_batch, channels) + kernel + out)
    result = col2im_cropped(cols, size, padding, stride, dilation, xp)
    return result.astype(dtype) if work != dtype else result


def _adjoint_as_correlation(g, w, size, stride, padding, dilation, groups, xp):
    """Whether the adjoint is better computed as a forward correlation of the gradient.

    At stride 1 the transposed convolution is itself a convolution: of the gradient padded
    by d*(k-1) - p, with the kernel flipped and its channel axes swapped. That path copies
    O*K columns per position and runs one GEMM with a long inner dimension (O*K); the
    col2im path writes C*K columns and adds them back offset by offset. So it pays where
    the gradient has no more channels than the input (measured: a VGG block's 64->64 3x3
    at 32x32 took 27 against 36 ms, a depthwise 3x3 0.5 against 2.1 ms; LeNet's 6->16 5x5
    took 3.4 against 0.8 ms, so that stays on col2im). Sizes with an output_padding
    beyond the natural size keep col2im, which leaves those positions zero. So does a
    kernel holding inf or NaN: the padding's zeros times inf would give NaN where PyTorch's
    result has none."""
    if any(s != 1 for s in stride) or w.shape[0] > w.shape[1] * groups:
        return False
    if _is_floating(w.dtype) and not xp.isfinite(w).all():
        return False
    return all(d * (k - 1) >= p and o + d * (k - 1) - 2 * p == length
               for d, k, p, o, length in zip(dilation, w.shape[2:], padding, g.shape[2:], size))


def adjoint_weight(w, groups):
    """The kernel of the adjoint correlation: (O, C/g, *K) flipped in space, as (C, O/g, *K)."""
    n = w.ndim - 2
    flipped = w[(slice(None), slice(None)) + (slice(None, None, -1),) * n]
    out_channels, group_channels = w.shape[:2]
    if groups == 1:
        swapped = flipped.swapaxes(0, 1)
    else:
        swapped = flipped.reshape((groups, out_channels // groups, group_channels)
                                  + w.shape[2:]).swapaxes(1, 2)
    return swapped.reshape((group_channels * groups, out_channels // groups) + w.shape[2:])


def conv_weight_grad(x, g, kernel, stride, padding, dilation, groups, xp, cols=None):
    """Gradient of conv_forward in w: sum over batch and positions of grad x window.
    `cols`: the forward's columns of x, when it kept them."""
    dtype = x.dtype
    work = _compute_dtype(x, xp)
    if work != dtype:
        x, g = x.astype(work), g.astype(work)
    n_batch, channels = x.shape[:2]
    out_channels = g.shape[1]
    out = g.shape[2:]
    if _use_batch_last(groups, out):
        if cols is None:
            cols = columns_last(x, kernel, stride, padding, dilation, out, xp)
        grad = xp.ascontiguousarray(_batch_last(g)).reshape(out_channels, cols.shape[1])
        result = xp.matmul(grad, cols.T)                                       # (O, C*K)
        return result.reshape((out_channels, channels) + tuple(kernel)).astype(dtype)
    if cols is None:
        cols = columns(x, kernel, stride, padding, dilation, groups, out, xp)
    grad = g.reshape(n_batch, groups, out_channels // groups, math.prod(out))
    result = xp.matmul(grad, cols.transpose(0, 1, 3, 2)).sum(axis=0)   # (G, Og, Cg*K)
    return result.reshape((out_channels, channels // groups) + tuple(kernel)).astype(dtype)


def _offsets(win, n):
    """Each kernel offset's slice (N, C, *out) of a window view (N, C, *K, *out)."""
    for offset in itertools.product(*(range(k) for k in win.shape[2:2 + n])):
        yield win[(slice(None), slice(None)) + offset]


def window_sum(win, n, dtype):
    """Sum over the kernel axes: one strided add per kernel offset (NumPy's reduce over
    strided axes is an order of magnitude slower)."""
    slices = _offsets(win, n)
    total = next(slices).astype(dtype)
    for part in slices:
        total += part
    return total


def window_argmax(win, n, xp):
    """Max over the kernel axes and its flat kernel offset; the first maximum wins and a NaN
    replaces anything, as in PyTorch's kernels."""
    slices = _offsets(win, n)
    best = next(slices).copy()
    arg = xp.zeros(best.shape, xp.int64)
    floating = _is_floating(best.dtype)
    for k, part in enumerate(slices, 1):
        take = part > best
        if floating:
            take |= xp.isnan(part)
        xp.copyto(best, part, where=take)
        arg[take] = k
    return best, arg


def window_max(win, n, xp):
    """Max over the kernel axes by one in-place `maximum` per kernel offset (a NaN propagates).

    Which of two equal values `maximum` keeps is left to the backend, so a window whose
    maximum is a zero may come out +0.0 where PyTorch keeps a -0.0 that came first:
    `exact_max_is_safe` says when that cannot happen.
    """
    slices = _offsets(win, n)
    best = next(slices).copy()
    for part in slices:
        xp.maximum(best, part, out=best)
    return best


def exact_max_is_safe(x, best, xp):
    """Whether `window_max` gave what `window_argmax` would: no NaN among the maxima, and no
    zero maximum unless the input holds no -0.0 (checked only when a maximum is zero)."""
    if not _is_floating(best.dtype):
        return True
    if xp.isnan(best).any():
        return False
    return not ((best == 0).any() and xp.signbit(x).any() and (xp.signbit(x) & (x == 0)).any())


def _first_hits(win, n, best, xp):
    """For each kernel offset in order, where it holds its window's first maximum (needs
    `exact_max_is_safe`: every window then has one value equal to its maximum)."""
    found = None
    for part in _offsets(win, n):
        hit = part == best
        if found is None:
            found = hit.copy()
        else:
            hit = xp.greater(hit, found)      # equal, and no earlier offset was
            found |= hit
        yield hit


def window_first_max(win, n, best, xp):
    """The flat kernel offset of each window's first maximum (as `window_argmax` finds it)."""
    arg = xp.zeros(best.shape, xp.int64)
    for k, hit in enumerate(_first_hits(win, n, best, xp)):
        if k:
            arg += hit * k
    return arg


def window_max_grad(win, n, best, grad, padded_shape, stride, dilation, xp):
    """Gradient of `window_max` over windows that share no element: each output's grad goes
    to its window's first maximum, written through a window view of the result (no scatter).
    The grad is added to zeros, as a scatter would, so a -0.0 lands as +0.0. `grad * hit`
    is the fast mask, but an inf or NaN times a miss is NaN where the scatter leaves 0, so
    a gradient holding one takes `where` (several times slower on these strided views)."""
    result = xp.zeros(padded_shape, grad.dtype)
    kernel = win.shape[2:2 + n]
    target = windows(result, kernel, stride, dilation, win.shape[2 + n:], xp, writeable=True)
    finite = not _is_floating(grad.dtype) or bool(xp.isfinite(grad).all())
    zero = grad.dtype.type(0)
    for hit, slot in zip(_first_hits(win, n, best, xp), _offsets(target, n)):
        xp.add(slot, grad * hit if finite else xp.where(hit, grad, zero), out=slot)
    return result
