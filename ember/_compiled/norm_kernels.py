"""layer_norm's forward and first-order backward, one row at a time (see the package
docstring).

The NumPy code (`ops.normalization`) makes a pass over the whole tensor per step, with
row sums as matrix-vector products (OpenBLAS's order); these loops take a row while it
is in cache and do the same float32 operations in the same order, except that every sum
(a row's mean, variance, and the backward's two row sums and two column sums) is
accumulated in float64 and rounded once. So the results are within a few ulps of the
NumPy path's, not the same bits, and at least as close to the exact values
(tests/test_compiled_kernels.py bounds both).
"""
import numba
import numpy as np

from ._common import OPTIONS

__all__ = ["layer_norm_forward", "layer_norm_backward"]



@numba.njit(inline="always")
def _sum(values, r):
    """Row r of the float32 rows `values` added in float64 by eight accumulators (a
    loop-carried sum runs at the adder's latency; eight independent ones run at its
    throughput), the accumulators then added in order. (Rows are indexed, never taken
    as views: numba counts references to each view, a cost per row.)"""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    size = values.shape[1]
    n = size - size % 8
    for i in range(0, n, 8):
        a0 += values[r, i]
        a1 += values[r, i + 1]
        a2 += values[r, i + 2]
        a3 += values[r, i + 3]
        a4 += values[r, i + 4]
        a5 += values[r, i + 5]
        a6 += values[r, i + 6]
        a7 += values[r, i + 7]
    for i in range(n, size):
        a0 += values[r, i]
    return ((((((a0 + a1) + a2) + a3) + a4) + a5) + a6) + a7


@numba.njit(inline="always")
def _square_sum(h, r):
    """sum(h[r] * h[r]) for a float32 row, each product exact in float64, as `_sum`
    adds."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    size = h.shape[1]
    n = size - size % 8
    for i in range(0, n, 8):
        a0 += np.float64(h[r, i]) * h[r, i]
        a1 += np.float64(h[r, i + 1]) * h[r, i + 1]
        a2 += np.float64(h[r, i + 2]) * h[r, i + 2]
        a3 += np.float64(h[r, i + 3]) * h[r, i + 3]
        a4 += np.float64(h[r, i + 4]) * h[r, i + 4]
        a5 += np.float64(h[r, i + 5]) * h[r, i + 5]
        a6 += np.float64(h[r, i + 6]) * h[r, i + 6]
        a7 += np.float64(h[r, i + 7]) * h[r, i + 7]
    for i in range(n, size):
        a0 += np.float64(h[r, i]) * h[r, i]
    return ((((((a0 + a1) + a2) + a3) + a4) + a5) + a6) + a7


def _forward(rows, weight, bias, out, xhat, mean, invstd, eps, has_weight, has_bias,
             add_zero):
    count, size = rows.shape
    n = np.float32(size)
    for r in range(count):
        m = np.float32(_sum(rows, r)) / n
        for j in range(size):
            xhat[r, j] = rows[r, j] - m
        square = _square_sum(xhat, r)
        inv = np.float32(1.0) / np.sqrt(np.float32(square) / n + eps)
        mean[r] = m
        invstd[r] = inv
        for j in range(size):
            v = xhat[r, j] * inv
            xhat[r, j] = v
            if has_weight:
                v = v * weight[j]
                if has_bias:
                    v = v + bias[j]
                elif add_zero:
                    v = v + np.float32(0.0)
            elif has_bias:
                v = v + bias[j]
            out[r, j] = v


def _backward(grad, rows, xhat, weight, mean, invstd, grad_input, grad_weight, grad_bias,
              has_weight, need_input, need_weight, need_bias):
    count, size = grad.shape
    n = np.float32(size)
    weight_sums = np.zeros(size)
    bias_sums = np.zeros(size)
    scaled = np.empty((1, size), np.float32)
    product = np.empty((1, size), np.float32)
    for r in range(count):
        if need_input:
            m, inv = mean[r], invstd[r]
            for j in range(size):
                scaled[0, j] = grad[r, j] * weight[j] if has_weight else grad[r, j]
            for j in range(size):
                product[0, j] = scaled[0, j] * rows[r, j]
            ds32, db32 = np.float32(_sum(product, 0)), np.float32(_sum(scaled, 0))
            b = ((((db32 * m) - ds32) * inv) * inv) * inv / n
            c = (-b) * m - (db32 * inv) / n
            for j in range(size):
                grad_input[r, j] = (rows[r, j] * b + c) + scaled[0, j] * inv
        if need_weight:
            for j in range(size):
                weight_sums[j] += grad[r, j] * xhat[r, j]
        if need_bias:
            for j in range(size):
                bias_sums[j] += grad[r, j]
    for j in range(size):
        grad_weight[j] = np.float32(weight_sums[j])
        grad_bias[j] = np.float32(bias_sums[j])


_ROWS, _ROW = "float32[:, ::1]", "float32[::1]"
layer_norm_forward = numba.njit(
    f"void({_ROWS}, {_ROW}, {_ROW}, {_ROWS}, {_ROWS}, {_ROW}, {_ROW}, float32, boolean, "
    "boolean, boolean)", **OPTIONS)(_forward)
layer_norm_backward = numba.njit(
    f"void({_ROWS}, {_ROWS}, {_ROWS}, {_ROW}, {_ROW}, {_ROW}, {_ROWS}, {_ROW}, {_ROW}, "
    "boolean, boolean, boolean, boolean)", **OPTIONS)(_backward)
