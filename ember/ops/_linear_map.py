"""Separable linear maps: one small (out x in) matrix applied along each spatial dim.

Linear/bilinear/trilinear/bicubic resizing (nn_resize) and adaptive average pooling
(pooling_adaptive) are both such maps; they share this module, which sits below both.
The gradient applies the transposed matrices with ember ops, so higher orders come free.
"""
import math

from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, wrap


def _apply_along(x, matrix, dim, matmul):
    """matrix (out, in) applied along `dim` of x; works on arrays and on Tensors alike."""
    shape = tuple(x.shape)
    pre, post = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    if post == 1:
        y = matmul(x.reshape(pre, shape[dim]), matrix.T if hasattr(matrix, "T") else matrix)
    else:
        y = matmul(matrix, x.reshape(pre, shape[dim], post))
    return y.reshape(shape[:dim] + (matrix.shape[0],) + shape[dim + 1:])


def linear_map(input, matrices, node_class, windowed=False):
    """input with one (out x in) matrix applied along each of its trailing spatial dims.

    `windowed`: each output reads only its nonzero weights' inputs (adaptive pooling), so
    a NaN or inf elsewhere must not reach it; "pairs" (linear resizing): each output reads
    its first nonzero weight's input and the next one (clamped), even at weight 0, as
    PyTorch's two-tap loop does."""
    data = input._data
    xp = input._device.xp
    dtype = data.dtype
    work = matrices[0][1].dtype
    if dtype != work:
        data = data.astype(work)
    raw = data
    for dim, matrix in matrices:
        data = _apply_along(data, matrix, dim, xp.matmul)
    if windowed and not xp.isfinite(raw).all():
        data = _non_finite(raw, data, matrices, xp, windowed == "pairs")
    out = wrap(data.astype(dtype) if dtype != work else data, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.matrices = matrices
        node.windowed = windowed
        attach(out, node, input)
    return out


def _pair_reads(matrix, xp):
    """Each row's first nonzero column and the next one (clamped), as 0/1 weights."""
    rows, columns = matrix.shape
    first = (matrix != 0).argmax(axis=1)
    reads = xp.zeros(matrix.shape, matrix.dtype)
    reads[xp.arange(rows), first] = 1
    reads[xp.arange(rows), xp.minimum(first + 1, columns - 1)] = 1
    return reads


def _non_finite(raw, data, matrices, xp, pairs=False, transposed=False):
    """The map's result where a window holds NaN or inf, as PyTorch's windowed loops give it.

    A matrix product multiplies every input by every weight, zeros included, so one NaN
    (or inf: inf * 0 is NaN) would spoil every output. Counting the NaNs, +infs and -infs
    each output's nonzero weights reach restores the windowed answer; this holds for
    non-negative weights, as adaptive average pooling's are. `transposed`: the backward,
    whose loops scatter each output's gradient back along the same reads, so the reach is
    the forward's transposed (`matrices` are then the transposed maps).
    """
    if any((matrix < 0).any() for _dim, matrix in matrices):
        return data

    def reads(matrix):
        forward = matrix.T if transposed else matrix
        found = _pair_reads(forward, xp) if pairs else (forward != 0).astype(matrix.dtype)
        return found.T if transposed else found
    reach = [(dim, reads(matrix)) for dim, matrix in matrices]

    def reached(mask, through=reach):
        counted = mask.astype(data.dtype)
        for dim, indicator in through:
            counted = _apply_along(counted, indicator, dim, xp.matmul)
        return counted

    def count(mask):
        return reached(mask) > 0
    nans, highs, lows = count(xp.isnan(raw)), count(raw == xp.inf), count(raw == -xp.inf)
    if pairs:   # an inf read at weight 0 is inf * 0: NaN
        infinite = xp.isinf(raw)
        weighted = [(dim, (matrix != 0).astype(matrix.dtype)) for dim, matrix in matrices]
        nans = nans | (reached(infinite) > reached(infinite, weighted))
    clean = xp.where(xp.isfinite(raw), raw, 0).astype(data.dtype)
    for dim, matrix in matrices:
        clean = _apply_along(clean, matrix, dim, xp.matmul)
    clean = xp.where(highs, xp.inf, clean)
    clean = xp.where(lows, -xp.inf, clean)
    return xp.where(nans | (highs & lows), xp.nan, clean).astype(data.dtype)


class _LinearMapBackward(Node):
    """Gradient of a separable linear map: the transposed matrices, applied with ember ops.
    A NaN or inf upstream gradient reaches only the inputs PyTorch's scatter loops send it
    to (`_non_finite` on the transposed reads), when nothing is recorded."""
    __slots__ = ("matrices", "windowed")

    def backward(self, grad):
        device = grad._device
        dtype = grad.dtype
        raw = grad._data
        xp = device.xp
        transposed_maps = [(dim, xp.ascontiguousarray(matrix.T).astype(raw.dtype))
                           for dim, matrix in self.matrices]
        for dim, matrix in transposed_maps:
            grad = _apply_along(grad, wrap(matrix, device), dim, Tensor.matmul)
        if self.windowed and not grad_state.enabled and not xp.isfinite(raw).all():
            grad = wrap(_non_finite(raw, grad._data, transposed_maps, xp,
                                    self.windowed == "pairs", transposed=True), device)
        return (grad if grad.dtype is dtype else grad.to(dtype),)
