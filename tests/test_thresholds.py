"""Size thresholds that switch code paths, crossed on both sides against torch.

Three places pick a path by element count: float32 transcendentals in pointwise_math
(float64-and-round up to `_PRECISE_LIMIT`, NumPy's float32 SIMD above), add/sub with
alpha in pointwise (a fused, singly rounded form up to `_FUSED_LIMIT`, NumPy's
a + b * alpha above) and the random kernels (libm through `math` up to `_SMALL`
values, NumPy's vectorised functions above). Each side is held to what it promises,
at limit - 1, limit and limit + 1, with bounds set from measurements on torch 2.13.
"""
import numpy as np
import pytest

import ember
from ember._random_kernels import _SMALL
from ember.ops.pointwise import _FUSED_LIMIT
from ember.ops.pointwise_math import _PRECISE_LIMIT


def _ulps(got, expected):
    """Distance in units in the last place, per element (nan equals nan, -0 equals +0)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype
    width = {4: np.int32, 8: np.int64}[got.dtype.itemsize]
    keys = []
    for values in (got, expected):
        bits = values.view(width).astype(np.int64)
        keys.append(np.where(bits < 0, np.iinfo(width).min - bits, bits))
    distance = np.abs(keys[0] - keys[1])
    distance[np.isnan(got) & np.isnan(expected)] = 0
    return distance


def test_ulps_can_fail():
    x = np.array([1.0, -2.0, 0.0], np.float32)
    assert list(_ulps(np.nextafter(x, np.float32(9)), x)) == [1, 1, 1]
    assert _ulps(np.array([-0.0]), np.array([0.0]))[0] == 0


# ---------------------------------------------------------------- pointwise_math
# Measured (uniform inputs in [0.01, 10]): at or below the limit every function is within
# 1 ulp of torch (the share off by one: tan 18%, log and exp2 6.5%, sin/cos 5%, exp 1%);
# above it NumPy's float32 SIMD is up to 3 ulp off, for up to 40% of elements (exp, log10).
TRANSCENDENTALS = ["exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan"]
MAX_ULPS_BELOW, SHARE_BELOW, MAX_ULPS_ABOVE = 1, 0.20, 3


@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_precise_limit(torch, offset):
    n = _PRECISE_LIMIT + offset
    x = np.random.default_rng(n).uniform(0.01, 10.0, n).astype(np.float32)
    for name in TRANSCENDENTALS:
        distance = _ulps(getattr(ember, name)(ember.tensor(x)).numpy(),
                         getattr(torch, name)(torch.from_numpy(x)).numpy())
        if offset <= 0:
            assert distance.max() <= MAX_ULPS_BELOW, name
            assert (distance > 0).mean() <= SHARE_BELOW, name
        else:
            assert distance.max() <= MAX_ULPS_ABOVE, name


def test_precise_path_is_the_better_one(torch):
    """The float64 path exists because it is closer: exp at the limit vs just above it."""
    shares = []
    for n in (_PRECISE_LIMIT, _PRECISE_LIMIT + 1):
        x = np.random.default_rng(0).uniform(-10.0, 10.0, n).astype(np.float32)
        distance = _ulps(ember.exp(ember.tensor(x)).numpy(), torch.exp(torch.from_numpy(x)).numpy())
        shares.append((distance > 0).mean())
    assert shares[0] < 0.02 < 0.2 < shares[1]


# ---------------------------------------------------------------- add/sub with alpha
@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_fused_limit(torch, offset):
    """float32 add/sub with alpha: bit-identical up to the limit; above it NumPy's
    a + b * alpha, off by at most one rounding of the product (an absolute error of
    |b * alpha| * 2**-24, which cancellation can make many ulps of the result)."""
    n = _FUSED_LIMIT + offset
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)).astype(np.float32)
    for name in ("add", "sub"):
        for alpha in (0.3, -1.7, 3):
            got = getattr(ember, name)(ember.tensor(a), ember.tensor(b), alpha=alpha).numpy()
            expected = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b),
                                            alpha=alpha).numpy()
            if offset <= 0:
                assert _ulps(got, expected).max() == 0, (name, alpha)
            else:
                bound = (np.abs(a) + np.abs(b * np.float32(alpha))) * 2.0 ** -23
                assert (np.abs(got - expected) <= bound).all(), (name, alpha)


# ---------------------------------------------------------------- random kernels
def _draws(lib, name, n):
    lib.manual_seed(7)
    tensor = lib.empty(n, dtype=lib.float64)
    return {"exponential": lambda: tensor.exponential_(1.5),
            "log_normal": lambda: tensor.log_normal_(0.5, 2.0),
            "cauchy": lambda: tensor.cauchy_(0.5, 2.0),
            "geometric": lambda: tensor.geometric_(0.3),
            "normal": lambda: tensor.normal_(1.0, 3.0)}[name]().numpy()


# Measured above the limit: exponential up to 2 ulp, log_normal up to 7 (exp amplifies the
# last bit of log1p); cauchy, geometric and normal stay exact.
MAX_ULPS_ABOVE_SMALL = {"exponential": 4, "log_normal": 16, "cauchy": 0, "geometric": 0,
                        "normal": 0}


@pytest.mark.parametrize("offset", [-1, 0, 1, 64])
@pytest.mark.parametrize("name", list(MAX_ULPS_ABOVE_SMALL))
def test_small_limit_of_random_kernels(torch, name, offset):
    n = _SMALL + offset
    distance = _ulps(_draws(ember, name, n), _draws(torch, name, n))
    assert distance.max() <= (0 if offset <= 0 else MAX_ULPS_ABOVE_SMALL[name])


def test_libm_path_is_the_exact_one(torch):
    """Above the limit NumPy's log1p does differ from libm's: the switch is not idle."""
    distance = _ulps(_draws(ember, "log_normal", 4 * _SMALL),
                     _draws(torch, "log_normal", 4 * _SMALL))
    assert distance.max() > 0
