"""erf, erfc and erfinv on whole arrays, with the array module alone.

NumPy has no error function and ember depends on NumPy only, so these follow
W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev
approximations for the error function", Math. Comp. 1969), accurate to float64
precision, evaluated branch-free over the array. erfinv starts from the rational
guess PyTorch uses and polishes it with two Newton steps on `erf`.
"""
import math

from .._backend import scipy_special as _sc

__all__ = ["erf", "erfc", "erfinv", "gelu_parts"]

# |x| <= 0.46875: erf(x) = x * A(x^2) / B(x^2)
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
# 0.46875 < |x| <= 4: erfc(x) = exp(-x^2) * C(|x|) / D(|x|)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
# |x| > 4: erfc(x) = exp(-x^2) / |x| * (1/sqrt(pi) - P(1/x^2) / (x^2 Q(1/x^2)))
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_SQRT_PI_INV = 0.56418958354775628695
_THRESHOLD = 0.46875


def _small(x):
    """erf(x) for |x| <= 0.46875."""
    xsq = x * x
    num = _A[4] * xsq
    den = xsq
    for i in range(3):
        num = (num + _A[i]) * xsq
        den = (den + _B[i]) * xsq
    return x * (num + _A[3]) / (den + _B[3])


def _erfc_positive(xp, y):
    """erfc(y) for y > 0.46875 (both of Cody's outer intervals, chosen per element)."""
    mid = y <= 4.0
    # Middle interval, rational in y.
    num = _C[8] * y
    den = y
    for i in range(7):
        num = (num + _C[i]) * y
        den = (den + _D[i]) * y
    middle = (num + _C[7]) / (den + _D[7])
    # Outer interval, rational in 1/y^2.
    ysq = 1.0 / (y * y)
    num = _P[5] * ysq
    den = ysq
    for i in range(4):
        num = (num + _P[i]) * ysq
        den = (den + _Q[i]) * ysq
    outer = (_SQRT_PI_INV - ysq * (num + _P[4]) / (den + _Q[4])) / y
    ratio = xp.where(mid, middle, outer)
    # exp(-y^2) split as exp(-r^2) * exp(-(y-r)(y+r)) with r = y rounded down to 1/16,
    # so that y^2 is not rounded before exponentiating.
    r = xp.trunc(y * 16.0) / 16.0
    return xp.exp(-r * r) * xp.exp(-(y - r) * (y + r)) * ratio


def _as_float64(x):
    return x.astype("float64") if x.dtype.itemsize < 8 else x


def erf(xp, x):
    """The error function, elementwise, in `x`'s dtype."""
    if xp.__name__ == "numpy" and x.dtype.char in "fd":
        return _sc.erf(x)  # scipy's ufunc: the same float32 values, about 5x faster
    y = _as_float64(x)
    magnitude = xp.abs(y)
    small = magnitude <= _THRESHOLD
    large = 1.0 - _erfc_positive(xp, xp.where(small, 1.0, xp.minimum(magnitude, 30.0)))
    result = xp.where(small, _small(xp.where(small, y, 0.0)), xp.copysign(large, y))
    return result.astype(x.dtype, copy=False)


def erfc(xp, x):
    """1 - erf(x), without the cancellation for large x.

    float32 goes through scipy's ufunc (the same float32 values, ~6x faster); float64 keeps
    Cody's form, which PyTorch's float64 erfc agrees with to 1e-12 where scipy's does not
    (its far tail differs by up to ~1e-11 relatively)."""
    if xp.__name__ == "numpy" and x.dtype.char == "f":
        return _sc.erfc(x)
    y = _as_float64(x)
    magnitude = xp.abs(y)
    small = magnitude <= _THRESHOLD
    tail = _erfc_positive(xp, xp.where(small, 1.0, xp.minimum(magnitude, 30.0)))
    result = xp.where(small, 1.0 - _small(xp.where(small, y, 0.0)),
                      xp.where(y < 0, 2.0 - tail, tail))
    return result.astype(x.dtype, copy=False)


# Initial guess for erfinv (the same rational approximation PyTorch starts from).
_EA = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_EB = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_EC = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ED = (3.543889200, 1.637067800)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def erfinv(xp, x):
    """The inverse error function: nan outside [-1, 1], +-inf at +-1."""
    y = _as_float64(x)
    magnitude = xp.abs(y)
    central = magnitude <= 0.7
    z = y * y
    guess_central = y * (((_EA[3] * z + _EA[2]) * z + _EA[1]) * z + _EA[0]) / (
        (((_EB[3] * z + _EB[2]) * z + _EB[1]) * z + _EB[0]) * z + 1.0)
    t = xp.sqrt(-xp.log(xp.where(central, 0.5, (1.0 - magnitude) / 2.0)))
    guess_tail = xp.copysign(
        (((_EC[3] * t + _EC[2]) * t + _EC[1]) * t + _EC[0]) / ((_ED[1] * t + _ED[0]) * t + 1.0),
        y)
    inside = magnitude < 1.0
    # Newton on |result|: near +-1 the residual is taken on erfc against 1 - |y|
    # (exact there), since erf itself has rounded to 1.
    estimate = xp.abs(xp.where(inside, xp.where(central, guess_central, guess_tail), 0.0))
    target = xp.where(inside, magnitude, 0.0)
    for _ in range(2):
        residual = xp.where(central, erf(xp, estimate) - target,
                            (1.0 - target) - erfc(xp, estimate))
        estimate = estimate - residual / (_TWO_OVER_SQRT_PI * xp.exp(-estimate * estimate))
    result = xp.where(inside, xp.copysign(estimate, y),
                      xp.where(magnitude == 1.0, xp.copysign(xp.inf, y), xp.nan))
    return result.astype(x.dtype, copy=False)


# gelu's float32 erf: Abramowitz & Stegun 7.1.26, erfc(z) ~ t * P(t) * exp(-z^2) with
# t = 1 / (1 + p z), |error| < 1.5e-7 (about one float32 ulp of 1 + erf). The coefficients
# are rescaled so that the exp factor is the normal density at x itself (z = x / sqrt 2),
# which the backward needs anyway.
_GELU_P = 0.3275911 * math.sqrt(0.5)
_GELU_A = tuple(c * math.sqrt(2.0 * math.pi) for c in (
    0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
_LOG_INV_SQRT_2PI = -0.5 * math.log(2.0 * math.pi)


def gelu_parts(xp, x):
    """1 + erf(x / sqrt 2) and the normal density at x, for a float32 gelu and its backward.

    scipy's erf works in float64 and costs ~14 ns an element; these ~20 passes of float32
    ufuncs (one exp) take a seventh of that, within PyTorch's float32 tolerance of its own
    vectorised gelu kernel. The sign of erf is copied bitwise (NumPy's copysign and where are
    several times slower than an integer or), so no branch depends on the data.
    """
    t = xp.abs(x)
    t *= _GELU_P
    t += 1.0
    xp.divide(1.0, t, out=t)
    tail = t * _GELU_A[4]
    for c in _GELU_A[3::-1]:
        tail += c
        tail *= t
    with xp.errstate(over="ignore"):  # |x| > 1.8e19: x * x is inf, its density 0
        density = xp.multiply(x, x)
    density *= -0.5
    density += _LOG_INV_SQRT_2PI
    xp.exp(density, out=density)
    tail *= density  # erfc(|x| / sqrt 2)
    one_plus = xp.subtract(1.0, tail, out=tail)  # erf(|x| / sqrt 2), then its sign from x
    bits = one_plus.view(f"u{x.dtype.itemsize}")
    xp.bitwise_or(bits, x.view(bits.dtype) & (1 << (8 * x.dtype.itemsize - 1)), out=bits)
    one_plus += 1.0
    return one_plus, density
