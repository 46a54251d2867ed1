"""mt19937 and PyTorch's float32 normal kernel, compiled (see the package docstring).

`mt19937_fill` draws the next 32-bit words of NumPy's MT19937 bit generator straight
from its state in memory (the 624 key words and the position that follow them, which
`_random.Generator` maps once), tempering each as std::mt19937 does; NumPy's own
next_uint32 gives the same words. `normal_fill_float` is `_random_kernels._avx2_rows`
(PyTorch's normal_fill_16_AVX2 with avx_mathfun's log and sincos) for each row of 16
draws, with the same roundings: a fused multiply-add is a float64 sum of an exact
float64 product, rounded once to float32. The two are checked against each other on
every one of the 2**24 inputs of each half of a row (tests/test_compiled_kernels.py).

Rows are handled a block at a time: the halves of a block's rows are split into
contiguous scratch, transformed by one loop that LLVM vectorizes, and joined again;
over the rows themselves (8 lanes out of 16) it would not vectorize.
"""
import numba
import numpy as np

from ._common import OPTIONS, float_bits, float_from_bits
from .._random_kernels import (_COS_POLY64, _DP3_64, _F32_CONSTANTS, _LOG_POLY64,
                               _SIN_POLY64)

__all__ = ["mt19937_fill", "normal_fill_float"]

_N, _M = 624, 397
_MATRIX_A, _UPPER, _LOWER = np.uint32(0x9908B0DF), np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
_ONE_U32 = np.uint32(1)

_SQRT_HALF, _LOG_Q1, _LOG_Q2 = (_F32_CONSTANTS[k] for k in ("sqrt_half", "log_q1", "log_q2"))
_FOUR_OVER_PI, _DP1, _DP2 = (_F32_CONSTANTS[k] for k in ("four_over_pi", "dp1", "dp2"))
_TWO_PI_SCALED = _F32_CONSTANTS["two_pi_scaled"]
_L0, _L1, _L2, _L3, _L4, _L5, _L6, _L7, _L8 = _LOG_POLY64
_C0, _C1, _C2 = _COS_POLY64
_S0, _S1, _S2 = _SIN_POLY64
_HALF, _ONE, _MINUS_TWO = np.float32(0.5), np.float32(1.0), np.float32(-2.0)
_EPS24 = np.float32(2.0 ** -24)
_LOW24 = np.uint32(0xFFFFFF)
_BLOCK = 512   # rows per block: four scratch arrays of 4096 values stay in L1/L2

# ---------------------------------------------------------------- mt19937
@numba.njit(inline="always")
def _twisted(upper, lower, far):
    y = (upper & _UPPER) | (lower & _LOWER)
    return far ^ (y >> _ONE_U32) ^ (-(y & _ONE_U32) & _MATRIX_A)


@numba.njit(inline="always")
def _twist(key):
    """Regenerate all 624 words (mt19937's generation step)."""
    for i in range(_N - _M):
        key[i] = _twisted(key[i], key[i + 1], key[i + _M])
    for i in range(_N - _M, _N - 1):
        key[i] = _twisted(key[i], key[i + 1], key[i + _M - _N])
    key[_N - 1] = _twisted(key[_N - 1], key[0], key[_M - 1])


@numba.njit("void(uint32[::1], uint32[::1])", **OPTIONS)
def mt19937_fill(state, out):
    """out <- the next out.size words; `state` is the key followed by the position."""
    key = state[:_N]
    position = np.int64(state[_N])
    n = out.size
    done = 0
    while done < n:
        if position >= _N:
            _twist(key)
            position = 0
        take = min(_N - position, n - done)
        for t in range(take):
            y = key[position + t]
            y ^= y >> np.uint32(11)
            y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
            y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
            y ^= y >> np.uint32(18)
            out[done + t] = y
        position += take
        done += take
    state[_N] = np.uint32(position)


# ---------------------------------------------------------------- normal_fill_16_AVX2
@numba.njit(inline="always")
def _horner(y64, c, x64):
    """One fused Horner step: fl32(y + c), times x exactly in float64."""
    return np.float64(np.float32(y64 + c)) * x64


@numba.njit(inline="always")
def _log_radius(u1):
    """sqrt(-2 log256_ps(u1)) for u1 in (0, 1]: `_random_kernels._avx_log_radius`."""
    bits = float_bits(u1)
    e = np.float32((bits >> 23) - np.int32(126))
    m = float_from_bits((bits & np.int32(-0x7F800001)) | np.int32(0x3F000000))   # in [0.5, 1)
    x = m - _ONE
    if m < _SQRT_HALF:
        e = e - _ONE
        x = x + m
    x64 = np.float64(x)
    y64 = x64 * _L0
    y64 = _horner(y64, _L1, x64)
    y64 = _horner(y64, _L2, x64)
    y64 = _horner(y64, _L3, x64)
    y64 = _horner(y64, _L4, x64)
    y64 = _horner(y64, _L5, x64)
    y64 = _horner(y64, _L6, x64)
    y64 = _horner(y64, _L7, x64)
    y = np.float32(y64 + _L8) * x
    z = x * x
    y = np.float32(np.float64(y) * np.float64(z) + np.float64(e * _LOG_Q1))
    y = y - z * _HALF
    x = x + y
    x = x + e * _LOG_Q2
    return np.sqrt(x * _MINUS_TWO)


@numba.njit(inline="always")
def _sincos(theta):
    """sincos256_ps for theta >= 0: `_random_kernels._avx_sincos`."""
    j = np.int32(theta * _FOUR_OVER_PI)
    j = (j + np.int32(1)) & np.int32(-2)
    y = np.float32(j)
    x = theta + y * _DP1
    x = x + y * _DP2
    x = np.float32(np.float64(y) * _DP3_64 + np.float64(x))
    z = x * x
    z64 = np.float64(z)
    cosine = np.float32(_horner(z64 * _C0, _C1, z64) + _C2) * z
    cosine = np.float32(np.float64(cosine) * z64 - np.float64(z * _HALF)) + _ONE
    sine = np.float32(_horner(z64 * _S0, _S1, z64) + _S2) * z
    x64 = np.float64(x)
    sine = np.float32(np.float64(sine) * x64 + x64)
    if j & 2:                        # the octant swaps the polynomials...
        sine, cosine = cosine, sine
    if j & 4:                        # ...and flips the signs (exact negations)
        sine = -sine
    if (~(j - np.int32(2))) & 4:
        cosine = -cosine
    return sine, cosine


@numba.njit("void(uint32[::1], float32[::1], float32, float32, boolean)",
            **OPTIONS)
def normal_fill_float(bits, out, mean, std, affine):
    """out <- normal_fill_16_AVX2 of each row of 16 draws in `bits` (both flat, same size);
    `affine`: out * std + mean, fused, as the kernel does when std != 1 or mean != 0."""
    rows = bits.size // 16
    u_bits = np.empty(_BLOCK * 8, np.uint32)
    t_bits = np.empty(_BLOCK * 8, np.uint32)
    cosines = np.empty(_BLOCK * 8, np.float32)
    sines = np.empty(_BLOCK * 8, np.float32)
    std64, mean64 = np.float64(std), np.float64(mean)
    for start in range(0, rows, _BLOCK):
        count = min(_BLOCK, rows - start)
        for r in range(count):
            source = (start + r) * 16
            for i in range(8):
                u_bits[r * 8 + i] = bits[source + i]
                t_bits[r * 8 + i] = bits[source + 8 + i]
        for t in range(count * 8):
            # u1 = 1 - k 2**-24 and theta = (k 2**-24) 2 pi, as the kernel rounds them
            k = np.int32(u_bits[t] & _LOW24)
            radius = _log_radius(np.float32(np.int32(1 << 24) - k) * _EPS24)
            sine, cosine = _sincos(np.float32(np.int32(t_bits[t] & _LOW24)) * _TWO_PI_SCALED)
            cosine = cosine * radius
            sine = sine * radius
            if affine:
                cosine = np.float32(np.float64(cosine) * std64 + mean64)
                sine = np.float32(np.float64(sine) * std64 + mean64)
            cosines[t] = cosine
            sines[t] = sine
        for r in range(count):
            target = (start + r) * 16
            for i in range(8):
                out[target + i] = cosines[r * 8 + i]
                out[target + 8 + i] = sines[r * 8 + i]
