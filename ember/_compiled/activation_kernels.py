"""GELU's forward and backward in one pass each (see the package docstring).

`gelu_forward` is `ops._erf.gelu_parts` followed by gelu's `one_plus * x * 0.5`, the
same float32 operations in the same order, with one exception: the exponential. NumPy's
float32 `exp` is its own SIMD routine, which numba cannot call from a loop, and LLVM
would call the C library's `expf` once per element, unvectorized. The kernel takes
SLEEF's float32 exp (`_sleef.exp`, the one PyTorch's vectorized kernels call: within an
ulp of exp, and vectorized by LLVM), so the density is within a few ulps of NumPy's.
The gradient, `grad * (x * density + 0.5 * one_plus)`, is IEEE arithmetic only: the
same bits as the NumPy formula. The tanh approximation's forward and gradient follow
nn_gelu's formulas op for op too, tanh computed in float64 (reduction by ln 2, a
degree-10 Taylor polynomial for its exp, relative error below 1e-12) and rounded once:
a float32 tanh through exp would lose its small arguments to cancellation.
"""
import math

import numba
import numpy as np

from ._common import OPTIONS, double_from_bits, float_bits
from ._sleef import exp as _sleef_exp
from ..ops._erf import _GELU_A, _GELU_P, _LOG_INV_SQRT_2PI
from ..ops.nn_gelu import _GELU_BETA, _GELU_KAPPA

__all__ = ["gelu_forward", "gelu_backward", "gelu_tanh_forward", "gelu_tanh_backward"]

# gelu(approximate='tanh')'s constants rounded to float32, as NumPy rounds a Python float
# against a float32 array (3 * kappa is a Python product in the formula).
_BETA, _KAPPA, _THREE_KAPPA = (np.float32(c) for c in (_GELU_BETA, _GELU_KAPPA,
                                                       3 * _GELU_KAPPA))

_F32 = np.float32
_P = _F32(_GELU_P)
_A0, _A1, _A2, _A3, _A4 = (_F32(c) for c in _GELU_A)
_LOG_DENSITY = _F32(_LOG_INV_SQRT_2PI)
_ONE, _HALF, _MINUS_HALF = _F32(1.0), _F32(0.5), _F32(-0.5)
_LOG2E = 1.0 / math.log(2.0)
_LN2_HIGH = 0.6931471803691238      # ln 2 split so that q * _LN2_HIGH is exact for |q| < 2**11
_LN2_LOW = 1.9082149292705877e-10
_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7, _T8, _T9, _T10 = (1.0 / math.factorial(k)
                                                          for k in range(10, -1, -1))


@numba.njit(inline="always")
def _tanh(x):
    """tanh of a float32, computed in float64 and rounded once: (1 - e) / (1 + e) with
    e = exp(-2|x|), and the series x - x**3 / 3 below 1e-4, where that would cancel."""
    d = np.float64(x)
    magnitude = abs(d)
    e = _exp64(-2.0 * magnitude)
    value = (1.0 - e) / (1.0 + e)
    if magnitude < 1e-4:
        value = magnitude - magnitude * magnitude * magnitude / 3.0
    value = np.float32(value)
    if d < 0:
        value = -value
    return value if d == d else x


@numba.njit(inline="always")
def _exp64(d):
    """exp of a float64 to about 1e-12, relatively, for the float32 range (a NaN in
    gives a meaningless result: callers test for it)."""
    clamped = min(max(d, -120.0), 100.0)   # past these float32 holds 0 and inf anyway
    q = np.floor(clamped * _LOG2E + 0.5)
    r = (clamped - q * _LN2_HIGH) - q * _LN2_LOW
    p = _T0
    p = p * r + _T1
    p = p * r + _T2
    p = p * r + _T3
    p = p * r + _T4
    p = p * r + _T5
    p = p * r + _T6
    p = p * r + _T7
    p = p * r + _T8
    p = p * r + _T9
    p = p * r + _T10
    return p * double_from_bits((np.int64(q) + 1023) << 52)


def _forward(x, result, one_plus, density):
    for i in range(x.size):
        v = x[i]
        t = _ONE / (abs(v) * _P + _ONE)
        tail = t * _A4
        tail = (tail + _A3) * t
        tail = (tail + _A2) * t
        tail = (tail + _A1) * t
        tail = (tail + _A0) * t
        d = _sleef_exp((v * v) * _MINUS_HALF + _LOG_DENSITY)
        density[i] = d
        o = _ONE - tail * d                # erf(|x| / sqrt 2), then the sign of x
        if float_bits(v) < 0:           # the sign bit, -0.0 and NaN's included
            o = -o
        o = o + _ONE
        one_plus[i] = o
        result[i] = (o * v) * _HALF


def _backward(x, one_plus, density, grad, out):
    for i in range(x.size):
        out[i] = (x[i] * density[i] + _HALF * one_plus[i]) * grad[i]


def _tanh_forward(x, result):
    """gelu(x, approximate='tanh') as the NumPy formula orders it."""
    for i in range(x.size):
        v = x[i]
        t = _tanh(_BETA * (v + ((_KAPPA * v) * v) * v))
        result[i] = (_HALF * v) * (_ONE + t)


def _tanh_backward(x, grad, out):
    """GeluBackward0's tanh formula, op for op (its tanh argument is ordered otherwise
    than the forward's, so tanh is recomputed): grad * (left + right)."""
    for i in range(x.size):
        v = x[i]
        square = v * v
        t = _tanh((v + (square * v) * _KAPPA) * _BETA)
        left = _HALF * (_ONE + t)
        right = (((_HALF * v) * (_ONE - t * t)) * _BETA) * (_ONE + _THREE_KAPPA * square)
        out[i] = grad[i] * (left + right)


_ARRAY = "float32[::1]"
gelu_forward = numba.njit(f"void({_ARRAY}, {_ARRAY}, {_ARRAY}, {_ARRAY})", **OPTIONS)(
    _forward)
gelu_backward = numba.njit(f"void({_ARRAY}, {_ARRAY}, {_ARRAY}, {_ARRAY}, {_ARRAY})",
                           **OPTIONS)(_backward)
gelu_tanh_forward = numba.njit(f"void({_ARRAY}, {_ARRAY})", **OPTIONS)(_tanh_forward)
gelu_tanh_backward = numba.njit(f"void({_ARRAY}, {_ARRAY}, {_ARRAY})", **OPTIONS)(
    _tanh_backward)
