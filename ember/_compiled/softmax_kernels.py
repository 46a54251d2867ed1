"""softmax and log_softmax over the last dim, forward and first-order backward, a row at
a time, replaying PyTorch's vectorized CPU kernels (see the package docstring).

PyTorch's last-dim kernels (`_vec_softmax_lastdim` and friends in SoftMaxKernel.cpp)
work on one row in SIMD registers of `lanes` floats (16 with AVX-512, 8 with AVX2):
a row's sum is kept in `lanes` partial sums (lane l adds elements l, l + lanes, ...,
the ragged end added into the first lanes), which are then halved pairwise (lane i
plus lane i + lanes/2, ...); a row shorter than `lanes` is added in order. Their
exponential is SLEEF's `expf_u10`, a float32 polynomial with a fused multiply-add at
each step (`_sleef.exp`), and log_softmax takes each row sum's log with SLEEF's
`logf_u10` (`_sleef.log`). `_row_sum` replays that order, so with the caller's `lanes`
matching PyTorch's CPU capability the results are PyTorch's bits (the tests compare).
"""
import numba
import numpy as np

from ._common import OPTIONS, fma32
from ._sleef import exp as _exp, log as _log

__all__ = ["softmax_forward", "softmax_backward", "log_softmax_forward",
           "log_softmax_backward"]

_F32, _U64 = np.float32, np.uint64
_ONE, _ZERO = _F32(1.0), _F32(0.0)


@numba.njit(inline="always")
def _sum16(a, r):
    """Row r of the float32 rows `a` added in PyTorch's order for 16-float registers
    (AVX-512): sixteen partial sums, the ragged end into the first ones, then halved
    pairwise."""
    n = a.shape[1]
    a0, a1, a2, a3 = a[r, 0], a[r, 1], a[r, 2], a[r, 3]
    a4, a5, a6, a7 = a[r, 4], a[r, 5], a[r, 6], a[r, 7]
    a8, a9, a10, a11 = a[r, 8], a[r, 9], a[r, 10], a[r, 11]
    a12, a13, a14, a15 = a[r, 12], a[r, 13], a[r, 14], a[r, 15]
    full = n - n % 16
    for block in range(1, full // 16):
        b = _U64(16 * block)   # unsigned: no negative-index check between the loads
        a0 += a[r, b]
        a1 += a[r, b + _U64(1)]
        a2 += a[r, b + _U64(2)]
        a3 += a[r, b + _U64(3)]
        a4 += a[r, b + _U64(4)]
        a5 += a[r, b + _U64(5)]
        a6 += a[r, b + _U64(6)]
        a7 += a[r, b + _U64(7)]
        a8 += a[r, b + _U64(8)]
        a9 += a[r, b + _U64(9)]
        a10 += a[r, b + _U64(10)]
        a11 += a[r, b + _U64(11)]
        a12 += a[r, b + _U64(12)]
        a13 += a[r, b + _U64(13)]
        a14 += a[r, b + _U64(14)]
        a15 += a[r, b + _U64(15)]
    rest = n - full
    if rest:
        a0 += a[r, full]
        if rest > 1:
            a1 += a[r, full + 1]
        if rest > 2:
            a2 += a[r, full + 2]
        if rest > 3:
            a3 += a[r, full + 3]
        if rest > 4:
            a4 += a[r, full + 4]
        if rest > 5:
            a5 += a[r, full + 5]
        if rest > 6:
            a6 += a[r, full + 6]
        if rest > 7:
            a7 += a[r, full + 7]
        if rest > 8:
            a8 += a[r, full + 8]
        if rest > 9:
            a9 += a[r, full + 9]
        if rest > 10:
            a10 += a[r, full + 10]
        if rest > 11:
            a11 += a[r, full + 11]
        if rest > 12:
            a12 += a[r, full + 12]
        if rest > 13:
            a13 += a[r, full + 13]
        if rest > 14:
            a14 += a[r, full + 14]
    return (((a0 + a8) + (a4 + a12)) + ((a2 + a10) + (a6 + a14))) + \
        (((a1 + a9) + (a5 + a13)) + ((a3 + a11) + (a7 + a15)))


@numba.njit(inline="always")
def _sum8(a, r):
    """Row r of `a` added in PyTorch's order for 8-float registers (AVX2)."""
    n = a.shape[1]
    a0, a1, a2, a3 = a[r, 0], a[r, 1], a[r, 2], a[r, 3]
    a4, a5, a6, a7 = a[r, 4], a[r, 5], a[r, 6], a[r, 7]
    full = n - n % 8
    for block in range(1, full // 8):
        b = _U64(8 * block)
        a0 += a[r, b]
        a1 += a[r, b + _U64(1)]
        a2 += a[r, b + _U64(2)]
        a3 += a[r, b + _U64(3)]
        a4 += a[r, b + _U64(4)]
        a5 += a[r, b + _U64(5)]
        a6 += a[r, b + _U64(6)]
        a7 += a[r, b + _U64(7)]
    rest = n - full
    if rest:
        a0 += a[r, full]
        if rest > 1:
            a1 += a[r, full + 1]
        if rest > 2:
            a2 += a[r, full + 2]
        if rest > 3:
            a3 += a[r, full + 3]
        if rest > 4:
            a4 += a[r, full + 4]
        if rest > 5:
            a5 += a[r, full + 5]
        if rest > 6:
            a6 += a[r, full + 6]
    return ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))


@numba.njit(inline="always")
def _row_sum(a, r, lanes):
    """Row r of `a` added in PyTorch's reduce_all order for `lanes`-float registers; a
    row shorter than a register is added in order."""
    n = a.shape[1]
    if n < lanes:
        total = a[r, 0]
        for i in range(1, n):
            total += a[r, i]
        return total
    return _sum16(a, r) if lanes == 16 else _sum8(a, r)


@numba.njit(inline="always")
def _larger(a, b):
    return b if b > a else a


@numba.njit(inline="always")
def _row_max(a, r):
    """Row r's maximum, in eight running maxima (a maximum's order does not matter).
    A NaN may be missed here, but it makes the row's sum NaN, and so every output of
    the row, as PyTorch's NaN-propagating maximum does."""
    n = a.shape[1]
    top = a[r, 0]
    if n < 8:
        for i in range(1, n):
            top = _larger(top, a[r, i])
        return top
    m0, m1, m2, m3 = a[r, 0], a[r, 1], a[r, 2], a[r, 3]
    m4, m5, m6, m7 = a[r, 4], a[r, 5], a[r, 6], a[r, 7]
    full = n - n % 8
    for block in range(1, full // 8):
        b = _U64(8 * block)
        m0 = _larger(m0, a[r, b])
        m1 = _larger(m1, a[r, b + _U64(1)])
        m2 = _larger(m2, a[r, b + _U64(2)])
        m3 = _larger(m3, a[r, b + _U64(3)])
        m4 = _larger(m4, a[r, b + _U64(4)])
        m5 = _larger(m5, a[r, b + _U64(5)])
        m6 = _larger(m6, a[r, b + _U64(6)])
        m7 = _larger(m7, a[r, b + _U64(7)])
    for i in range(full, n):
        m0 = _larger(m0, a[r, i])
    return _larger(_larger(_larger(m0, m1), _larger(m2, m3)),
                   _larger(_larger(m4, m5), _larger(m6, m7)))


@numba.njit(**OPTIONS)
def softmax_forward(x, out, size, lanes, masked_rows_zero):
    """out = exp(x - max) * (1 / sum), row by row (rows of `size` in flat x and out).
    Rows are indexed, never taken as views: numba counts references to each view.
    With `masked_rows_zero`, a row of -inf gives zeros (attention's fused kernel) where
    softmax gives NaN."""
    x, out = x.reshape((x.size // size, size)), out.reshape((out.size // size, size))
    for r in range(x.shape[0]):
        top = _row_max(x, r)
        if masked_rows_zero and top == -np.inf:
            for i in range(size):
                out[r, i] = _ZERO
            continue
        for i in range(size):
            out[r, i] = _exp(x[r, i] - top)
        scale = _ONE / _row_sum(out, r, lanes)
        for i in range(size):
            out[r, i] = out[r, i] * scale


@numba.njit(**OPTIONS)
def log_softmax_forward(x, out, size, lanes):
    """out = (x - max) - log(sum(exp(x - max))), row by row."""
    x, out = x.reshape((x.size // size, size)), out.reshape((out.size // size, size))
    for r in range(x.shape[0]):
        top = _row_max(x, r)
        for i in range(size):
            out[r, i] = _exp(x[r, i] - top)
        log_sum = _log(_row_sum(out, r, lanes))
        for i in range(size):
            out[r, i] = (x[r, i] - top) - log_sum


@numba.njit(**OPTIONS)
def softmax_backward(grad, y, out, size, lanes):
    """out = (grad - sum(grad * y)) * y, row by row (the products rounded, then added)."""
    rows = grad.size // size
    grad, y = grad.reshape((rows, size)), y.reshape((rows, size))
    out = out.reshape((rows, size))
    for r in range(rows):
        for i in range(size):
            out[r, i] = grad[r, i] * y[r, i]
        total = _row_sum(out, r, lanes)
        for i in range(size):
            out[r, i] = (grad[r, i] - total) * y[r, i]


@numba.njit(**OPTIONS)
def log_softmax_backward(grad, y, out, size, lanes):
    """out = grad - exp(y) * sum(grad), the product and difference fused as PyTorch's
    compiler fuses them, row by row."""
    rows = grad.size // size
    grad, y = grad.reshape((rows, size)), y.reshape((rows, size))
    out = out.reshape((rows, size))
    for r in range(rows):
        total = _row_sum(grad, r, lanes)
        for i in range(size):
            out[r, i] = fma32(-_exp(y[r, i]), total, grad[r, i])
