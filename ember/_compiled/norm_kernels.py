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
def _sum(values):
    """The float32 values added in float64 by eight accumulators (a loop-carried sum
    runs at the adder's latency; eight independent ones run at its throughput), the
    accumulators then added in order."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    n = values.size - values.size % 8
    for i in range(0, n, 8):
        a0 += values[i]
        a1 += values[i + 1]
        a2 += values[i + 2]
        a3 += values[i + 3]
        a4 += values[i + 4]
        a5 += values[i + 5]
        a6 += values[i + 6]
        a7 += values[i + 7]
    for i in range(n, values.size):
        a0 += values[i]
    return ((((((a0 + a1) + a2) + a3) + a4) + a5) + a6) + a7


@numba.njit(inline="always")
def _dot(a, b):
    """sum(a * b) for float32 rows, each product exact in float64, as `_sum` adds."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    n = a.size - a.size % 8
    for i in range(0, n, 8):
        a0 += np.float64(a[i]) * b[i]
        a1 += np.float64(a[i + 1]) * b[i + 1]
        a2 += np.float64(a[i + 2]) * b[i + 2]
        a3 += np.float64(a[i + 3]) * b[i + 3]
        a4 += np.float64(a[i + 4]) * b[i + 4]
        a5 += np.float64(a[i + 5]) * b[i + 5]
        a6 += np.float64(a[i + 6]) * b[i + 6]
        a7 += np.float64(a[i + 7]) * b[i + 7]
    for i in range(n, a.size):
        a0 += np.float64(a[i]) * b[i]
    return ((((((a0 + a1) + a2) + a3) + a4) + a5) + a6) + a7


def _forward(rows, weight, bias, out, xhat, mean, invstd, eps, has_weight, has_bias,
             add_zero):
    count, size = rows.shape
    n = np.float32(size)
    for r in range(count):
        x, h = rows[r], xhat[r]
        m = np.float32(_sum(x)) / n
        for j in range(size):
            h[j] = x[j] - m
        square = _dot(h, h)
        inv = np.float32(1.0) / np.sqrt(np.float32(square) / n + eps)
        mean[r] = m
        invstd[r] = inv
        o = out[r]
        for j in range(size):
            v = h[j] * inv
            h[j] = v
            if has_weight:
                v = v * weight[j]
                if has_bias:
                    v = v + bias[j]
                elif add_zero:
                    v = v + np.float32(0.0)
            elif has_bias:
                v = v + bias[j]
            o[j] = v


def _backward(grad, rows, xhat, weight, mean, invstd, grad_input, grad_weight, grad_bias,
              has_weight, need_input, need_weight, need_bias):
    count, size = grad.shape
    n = np.float32(size)
    weight_sums = np.zeros(size)
    bias_sums = np.zeros(size)
    scaled = np.empty(size, np.float32)
    product = np.empty(size, np.float32)
    for r in range(count):
        g, x, h = grad[r], rows[r], xhat[r]
        if need_input:
            m, inv = mean[r], invstd[r]
            for j in range(size):
                scaled[j] = g[j] * weight[j] if has_weight else g[j]
            for j in range(size):
                product[j] = scaled[j] * x[j]
            ds32, db32 = np.float32(_sum(product)), np.float32(_sum(scaled))
            b = ((((db32 * m) - ds32) * inv) * inv) * inv / n
            c = (-b) * m - (db32 * inv) / n
            target = grad_input[r]
            for j in range(size):
                target[j] = (x[j] * b + c) + scaled[j] * inv
        if need_weight:
            for j in range(size):
                weight_sums[j] += g[j] * h[j]
        if need_bias:
            for j in range(size):
                bias_sums[j] += g[j]
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
