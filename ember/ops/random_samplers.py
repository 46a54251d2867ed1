"""PyTorch's scalar samplers: _standard_gamma, _sample_dirichlet, poisson, binomial.

PyTorch draws these on the CPU one element at a time, in memory order, each element
taking a variable number of the generator's double uniforms (and, for the gamma,
Box-Muller normals that share the generator's cached second normal). Reproducing its
draws therefore means running the same published algorithms in the same order on the
same stream:
- gamma: Marsaglia & Tsang (2000), with the alpha < 1 boost u**(1/alpha);
- Dirichlet: gammas in float64 normalised by their sum;
- Poisson: multiplication of uniforms below rate 10, Hormann's PTRS (1993) above;
- binomial: geometric-gap inversion below mean 10, Hormann's BTRS (1993) above.
The loops are Python over elements (the stream's order forbids vectorising); uniforms
are drawn from the generator in blocks and the generator is then advanced by exactly
the number used. Arithmetic PyTorch does in float for float tensors is rounded to
float32 here at the same points, so float32 draws agree too.

The gamma's reparameterisation gradient is the exact implicit derivative
dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha) of the regularised incomplete gamma P,
with dP/dalpha by central differences of scipy's gammainc: about 1e-10 relative against
mpmath. PyTorch uses series and asymptotic approximations, off by up to ~1e-4, so
reparameterised gradients agree with its to that (draws agree exactly). The Dirichlet's
pathwise derivative is the same construction on the Beta marginal's betainc.
"""
import math

from .. import _random
from .._backend import numpy as _np
from .._backend import scipy_special as _sc
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor
from ._elementwise import NotImplementedBackward
from .random import _host, _require_floating

__all__ = ["poisson", "binomial"]

_ONE_THIRD_F = float(_np.float32(1.0) / _np.float32(3.0))  # C++'s 1.0f / 3.0f
_SQUEEZE_F = float(_np.float32(0.0331))                    # C++'s 0.0331f
_TWO_PI = 2.0 * math.pi


class _Stream:
    """The generator's double uniforms and normals, one at a time, as C++'s samplers."""

    def __init__(self, generator, block):
        self.generator = generator
        self.start = generator._bit_state()
        self.values = generator._unit64(max(block, 16)).tolist()
        self.used = 0
        self.cached_normal = generator._next_double_normal

    def uniform(self):
        if self.used == len(self.values):
            self.values.extend(self.generator._unit64(len(self.values)).tolist())
        value = self.values[self.used]
        self.used += 1
        return value

    def normal(self):
        """normal_distribution<double>: Box-Muller, the sine half cached for the next call."""
        if self.cached_normal is not None:
            value, self.cached_normal = self.cached_normal, None
            return value
        u1 = self.uniform()
        radius = math.sqrt(-2.0 * math.log1p(-self.uniform()))
        self.cached_normal = radius * math.sin(_TWO_PI * u1)
        return radius * math.cos(_TWO_PI * u1)

    def close(self):
        """Leave the generator exactly where PyTorch's would be after these draws."""
        generator = self.generator
        generator._bits.state = self.start
        generator._draw_bits64(self.used)
        generator._next_double_normal = self.cached_normal


def _rounder(np_dtype):
    """Rounding to the kernel's scalar type: identity for double, float32 otherwise."""
    if np_dtype == _np.float64:
        return float
    return lambda v: float(_np.float32(v))


def _gamma_one(alpha, stream, scalar):
    """One Marsaglia-Tsang draw; `scalar` rounds what C++ computes in scalar_t."""
    boost = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        boost = math.pow(1 - stream.uniform(), scalar(1.0 / alpha))
        alpha = scalar(alpha + 1.0)
    d = scalar(alpha - _ONE_THIRD_F)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = stream.normal()
        y = 1.0 + c * x
        if y <= 0:
            continue
        v = y * y * y
        u = 1 - stream.uniform()
        xx = x * x
        if u < 1.0 - _SQUEEZE_F * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v +
                                                                             math.log(v)):
            return boost * d * v


def _run(values, np_dtype, sample_one, generator, block):
    """sample_one(value, stream) for each value in C order, as one stream of draws."""
    stream = _Stream(_random.resolve(generator), block)
    try:
        out = [sample_one(v, stream) for v in values.ravel().tolist()]
    finally:
        stream.close()
    return _np.array(out, dtype=_np.float64).reshape(values.shape)


def _gamma_array(alpha, np_dtype, generator):
    scalar = _rounder(np_dtype)
    draws = _run(alpha, np_dtype, lambda a, s: _gamma_one(a, s, scalar), generator,
                 3 * alpha.size)
    narrowed = draws.astype(np_dtype)
    return _np.maximum(narrowed, _np.finfo(np_dtype).tiny)


def _standard_gamma(input, generator=None):
    """Gamma(input, 1) draws on PyTorch's stream; differentiable in `input`."""
    _require_floating(input.dtype, "gamma_cpu")
    alpha = _host(input)
    out = make_tensor(_gamma_array(alpha, alpha.dtype.type, generator), input._device)
    if grad_state.enabled and input._requires_grad:
        node = StandardGammaBackward0()
        node.alpha, node.result = input.detach(), out.detach()
        attach(out, node, input)
    return out


class StandardGammaBackward0(Node):
    __slots__ = ("alpha", "result")

    def backward(self, grad):
        return (grad * _standard_gamma_grad(self.alpha, self.result),)


def _standard_gamma_grad(input, output):
    """d sample / d alpha at fixed quantile: -(dP/dalpha) / density, elementwise."""
    alpha = _host(input).astype(_np.float64)
    x = _host(output).astype(_np.float64)
    step = 1e-5 * _np.maximum(alpha, 1e-3)
    with _np.errstate(all="ignore"):
        dp_dalpha = (_sc.gammainc(alpha + step, x) - _sc.gammainc(alpha - step, x)) / (2 * step)
        log_density = (alpha - 1) * _np.log(x) - x - _sc.gammaln(alpha)
        grad = -dp_dalpha / _np.exp(log_density)
    return make_tensor(grad.astype(_host(input).dtype), input._device)


def _sample_dirichlet(input, generator=None):
    """Dirichlet draws: float64 gammas normalised over the last dim, kept inside (0, 1)."""
    _require_floating(input.dtype, "dirichlet")
    alpha = _host(input)
    np_dtype = alpha.dtype.type
    gammas = _run(alpha.astype(_np.float64), _np.float64,
                  lambda a, s: _gamma_one(a, s, float), generator, 3 * alpha.size)
    gammas = _np.maximum(gammas, _np.finfo(_np.float64).tiny)
    ratios = (gammas / gammas.sum(-1, keepdims=True)).astype(np_dtype)
    top = _np.nextafter(np_dtype(1), np_dtype(0))
    out = make_tensor(_np.minimum(top, _np.maximum(ratios, _np.finfo(np_dtype).tiny)),
                      input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, NotImplementedBackward("_sample_dirichlet"), input)
    return out


def _dirichlet_grad(x, alpha, total):
    """PyTorch's `_dirichlet_grad`: the pathwise derivative of a Dirichlet coordinate.

    A coordinate x ~ Beta(a, t - a). Raising a alone (the other concentrations fixed,
    so b = t - a stays) moves x at a fixed quantile by -(dI_x(a, b)/da) / density; the
    other coordinates shrink in proportion, and PyTorch's backward applies that
    through the factor (delta_ij - x_j), so this returns the derivative over (1 - x).
    """
    xs, alphas, totals = (_host(t).astype(_np.float64) for t in (x, alpha, total))
    xs, alphas, totals = _np.broadcast_arrays(xs, alphas, totals)
    rest = totals - alphas
    step = 1e-5 * _np.maximum(alphas, 1e-3)
    with _np.errstate(all="ignore"):
        dI_da = (_sc.betainc(alphas + step, rest, xs)
                 - _sc.betainc(alphas - step, rest, xs)) / (2 * step)
        log_density = ((alphas - 1) * _np.log(xs) + (rest - 1) * _np.log1p(-xs)
                       - _sc.betaln(alphas, rest))
        grad = -dI_da / _np.exp(log_density) / (1 - xs)
    return make_tensor(grad.astype(_host(x).dtype), x._device)


# ---- Poisson

def _poisson_one(rate, stream):
    if rate >= 10:
        # PTRS: transformed rejection with squeeze (Hormann 1993).
        root, log_rate = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = stream.uniform() - 0.5
            v = stream.uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= v_r:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(inverse_alpha) - math.log(a / (us * us) + b)
                    <= -rate + k * log_rate - math.lgamma(k + 1.0)):
                return k
    if rate == 0:
        return 0
    # Count uniforms until their running product falls to exp(-rate) or below.
    threshold, product, count = math.exp(-rate), 1.0, 0
    while True:
        product *= stream.uniform()
        if product <= threshold:
            return count
        count += 1


def poisson(input, generator=None):
    """Poisson(input) counts, in input's dtype, drawn on PyTorch's stream."""
    _require_floating(input.dtype, "poisson_cpu")
    rates = _host(input)
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    draws = _run(rates.astype(_np.float64), _np.float64, _poisson_one, generator,
                 2 * rates.size)
    out = make_tensor(draws.astype(rates.dtype), input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, PoissonBackward0(), input)
    return out


class PoissonBackward0(Node):
    """Counts have no gradient: PyTorch passes zeros back."""

    __slots__ = ()

    def backward(self, grad):
        return (grad * 0,)


# ---- binomial

_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)  # log k! - Stirling's formula, k < 10


def _stirling_tail(k):
    """log(k!) minus Stirling's approximation: tabulated, then its asymptotic series."""
    if k < len(_TAIL):
        return _TAIL[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_inversion(count, prob, stream, scalar):
    """Count geometric gaps (trials to each success) until they pass `count`."""
    log_q = scalar(math.log1p(-prob)) if scalar is float else float(_np.log1p(_np.float32(-prob)))
    total, successes = 0.0, 0.0
    while True:
        total += math.ceil(math.log(stream.uniform()) / log_q)
        if total > count:
            return successes
        successes = scalar(successes + 1)


def _btrs(count, prob, stream, scalar):
    """Hormann's BTRS transformed rejection, in PyTorch's variant (no extra log)."""
    spread = math.sqrt(scalar(scalar(count * prob) * scalar(1 - prob)))
    spread = scalar(spread)
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = scalar(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = scalar(prob / scalar(1 - prob))
    alpha = (2.83 + 5.1 / b) * spread
    m = math.floor(scalar(scalar(count + 1) * prob))
    while True:
        u = stream.uniform() - 0.5
        v = stream.uniform()
        us = 0.5 - abs(u)
        k = scalar(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        rest = scalar(scalar(count - k) + 1)
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + scalar(count + 1) * math.log((count - m + 1) / rest)
                 + (k + 0.5) * math.log(r * rest / scalar(k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(scalar(count - k)))
        if v <= bound:
            return k


def _binomial_one(count, prob, stream, scalar):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if scalar(count * prob) >= 10.0:
            return _btrs(count, prob, stream, scalar)
        return _binomial_inversion(count, prob, stream, scalar)
    if prob > 0.5:
        q = scalar(1.0 - prob)
        if scalar(count * q) >= 10.0:
            return scalar(count - _btrs(count, q, stream, scalar))
        return scalar(count - _binomial_inversion(count, q, stream, scalar))
    return math.nan


def binomial(count, prob, generator=None):
    """Binomial(count, prob) draws (count and prob broadcast), on PyTorch's stream."""
    _require_floating(count.dtype, "binomial_cpu")
    counts, probs = _np.broadcast_arrays(_host(count), _host(prob))
    np_dtype = _np.result_type(counts, probs).type
    scalar = _rounder(np_dtype)
    pairs = _np.stack([counts.astype(_np.float64), probs.astype(_np.float64)], -1)
    stream = _Stream(_random.resolve(generator), 2 * counts.size)
    try:
        draws = [_binomial_one(n, p, stream, scalar) for n, p in pairs.reshape(-1, 2).tolist()]
    finally:
        stream.close()
    out = make_tensor(_np.array(draws, dtype=np_dtype).reshape(counts.shape), count._device)
    if grad_state.enabled and (count._requires_grad or prob._requires_grad):
        attach(out, NotImplementedBackward("binomial"), count, prob)
    return out


