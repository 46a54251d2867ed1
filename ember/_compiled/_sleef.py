"""SLEEF's float32 exponential (`expf_u10`), the one PyTorch's vectorized CPU kernels
call (Vectorized<float>::exp: softmax, log_softmax's gradient, ...).

Round x / ln 2 to q, reduce by ln 2 split in two, a degree-6 polynomial with a fused
multiply-add at every step, and 2**q applied in two halves (so that a subnormal result
rounds once). Within one ulp of exp everywhere; the tests compare it bit for bit with
PyTorch's.
"""
import numba
import numpy as np

from ._common import float_from_bits, fma32

__all__ = ["exp"]

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
