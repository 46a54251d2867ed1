"""SLEEF's float32 exponential (`expf_u10`), the one PyTorch's vectorized CPU kernels
call (Vectorized<float>::exp: softmax, log_softmax's gradient, ...).

Round x / ln 2 to q, reduce by ln 2 split in two, a degree-6 polynomial with a fused
multiply-add at every step, and 2**q applied in two halves (so that a subnormal result
rounds once). Within one ulp of exp everywhere; the tests compare it bit for bit with
PyTorch's.
"""
import numba
import numpy as np

from ._common import float_bits, float_from_bits, fma32

__all__ = ["exp", "log"]

_F32 = np.float32
_ONE, _ZERO, _INF = _F32(1.0), _F32(0.0), _F32(np.inf)
_LOG2E = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_MINUS_LN2_HIGH, _MINUS_LN2_LOW = _F32(-0.693145751953125), _F32(-1.428606765330187045e-06)
_E0, _E1, _E2, _E3, _E4, _E5 = (_F32(c) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271,
    0.00833336077630519866943359, 0.0416664853692054748535156,
    0.166666671633720397949219, 0.5))
_UNDERFLOW, _OVERFLOW = _F32(-104.0), _F32(100.0)
_CLAMP = _F32(150.0)   # beyond +-104 the result is 0 or inf anyway; keeps q an int32


@numba.njit(inline="always")
def exp(d):
    """exp of a float32 as SLEEF's expf_u10 computes it (NaN stays NaN)."""
    c = min(max(d, -_CLAMP), _CLAMP) if d == d else _ZERO
    q = np.int32(np.rint(c * _LOG2E))
    qf = _F32(q)
    s = fma32(qf, _MINUS_LN2_HIGH, d)
    s = fma32(qf, _MINUS_LN2_LOW, s)
    u = fma32(_E0, s, _E1)
    u = fma32(u, s, _E2)
    u = fma32(u, s, _E3)
    u = fma32(u, s, _E4)
    u = fma32(u, s, _E5)
    u = _ONE + fma32(s * s, u, s)
    half = q >> 1
    u = u * float_from_bits((half + 0x7f) << 23) * float_from_bits((q - half + 0x7f) << 23)
    u = _ZERO if d < _UNDERFLOW else u
    return _INF if _OVERFLOW < d else u


# SLEEF's float32 log (`logf_u10`, the routine Vectorized<float>::log calls): split
# d = m * 2**e with m in [0.75, 1.5), then log m = 2 atanh((m - 1) / (m + 1)) with the
# quotient in double-float arithmetic (a value and its rounding error, fused multiply-adds
# throughout) and ln 2 * e added the same way.
_R075 = _F32(1.0 / 0.75)
_LN2_HIGH, _LN2_LOW = _F32(0.69314718246459960938), _F32(-1.904654323148236017e-09)
_L0, _L1, _L2 = _F32(0.3027294874), _F32(0.3996108174), _F32(0.6666694880)
_TWO, _NAN = _F32(2.0), _F32(np.nan)
_SMALLEST_NORMAL, _TWO_64 = _F32(np.finfo(np.float32).tiny), _F32(2.0 ** 64)


@numba.njit(inline="always")
def _minus_product(a, b, c):
    """a * b - c, rounded once."""
    return fma32(a, b, -c)


@numba.njit(inline="always")
def log(d):
    """log of a float32 as SLEEF's logf_u10 computes it (NaN for negative inputs, -inf
    for zeros)."""
    tiny = d < _SMALLEST_NORMAL                       # subnormal: scaled up by 2**64 first
    scaled = d * _TWO_64 if tiny else d
    e = ((float_bits(scaled * _R075) >> 23) & 0xff) - 0x7f
    half = e >> 1                                     # 2**-e in two normal factors
    m = scaled * float_from_bits((0x7f - half) << 23) * float_from_bits(
        (0x7f - (e - half)) << 23)
    ef = _F32(e - 64 if tiny else e)
    # s = ln 2 * e as a double-float (dfmul of (high, low) by e)
    s_hi = _LN2_HIGH * ef
    s_lo = fma32(_LN2_LOW, ef, _minus_product(_LN2_HIGH, ef, s_hi))
    # x = (m - 1) / (m + 1), numerator and denominator exact double-floats (dfadd2)
    n_hi = m - _ONE
    v = n_hi - (-_ONE)
    n_lo = ((-_ONE) - (n_hi - v)) + (m - v)
    d_hi = _ONE + m
    v = d_hi - _ONE
    d_lo = (_ONE - (d_hi - v)) + (m - v)
    t = _ONE / d_hi                                   # dfdiv
    x_hi = n_hi * t
    u = _minus_product(t, n_hi, x_hi)
    w = fma32(-d_lo, t, fma32(-d_hi, t, _ONE))
    x_lo = fma32(x_hi, w, fma32(n_lo, t, u))
    x2 = x_hi * x_hi
    p = fma32(fma32(_L0, x2, _L1), x2, _L2)
    # s += 2x (dfadd of double-floats), then s += x**3 * p (dfadd of a float)
    y_hi, y_lo = x_hi * _TWO, x_lo * _TWO
    total = s_hi + y_hi
    s_lo = (((s_hi - total) + y_hi) + s_lo) + y_lo
    s_hi = total
    tail = (x2 * x_hi) * p
    total = s_hi + tail
    s_lo = ((s_hi - total) + tail) + s_lo
    r = total + s_lo
    if d == _INF:
        return _INF
    if d < _ZERO or d != d:
        return _NAN
    if d == _ZERO:
        return -_INF
    return r
