"""tensor ** number, bit for bit against PyTorch's CPU kernel where its rule is exact.

PyTorch (ATen PowKernel.cpp) turns some exponents into plain arithmetic: 0 and 1 fill
and copy; in float32, float64 and bfloat16, 2, 3 and -2 are x*x, x*x*x and 1/(x*x), and
-1, -0.5 are 1/x and 1/sqrt(x); float16 always computes powf in float32. Those must match
exactly. Every other exponent goes to SLEEF's pow (within 1 ulp), which ember cannot
reproduce bit for bit; there the test allows 1 ulp and bounds how often it is used.
"""
import numpy as np
import pytest

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16"]
EXPONENTS = [-3, -2, -1, 0, 1, 2, 3, 4, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.5, -0.5,
             2.5, True, False]
# (dtype, exponent) -> the share of elements measured 1 ulp apart (with some room), where
# PyTorch itself is not exact arithmetic: SLEEF's pow for the exponents it does not
# special-case (ember rounds a wider pow once: correctly rounded, which SLEEF is not near
# ties; float64 keeps NumPy's pow); torch's sqrt kernel, which on this build is not
# correctly rounded (float32 ~9%, float64 ~0.8% of elements); bfloat16 rsqrt (rare).
SLEEF = (-3, 4, 2.5)
WITHIN_ONE_ULP = {**{("float32", e): 0.025 for e in SLEEF}, **{("float64", e): 0.05 for e in SLEEF},
                  ("float32", 0.5): 0.12, ("float64", 0.5): 0.015, ("bfloat16", -0.5): 0.005}


def _inputs(torch, dtype, size):
    """The same values in both libraries: random magnitudes, signs, zeros and specials."""
    rng = np.random.default_rng(size)
    values = rng.standard_normal(size) * rng.choice([1e-3, 0.5, 1.0, 30.0], size)
    values[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0][:size]
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    if dtype == "bfloat16":  # exact in float32; NumPy has no bfloat16 of its own
        return t, ember.tensor(t.float().numpy()).to(ember.bfloat16)
    return t, ember.tensor(t.numpy())


def _bits(values, dtype):
    """Integer keys ordered like the floats (so neighbours differ by 1); nan maps to one key."""
    width = {"float64": np.int64, "float32": np.int32}.get(dtype, np.int16)
    if dtype == "bfloat16":
        keys = (np.asarray(values, np.float32).view(np.int32) >> 16).astype(np.int64)
    else:
        keys = np.asarray(values).view(width).astype(np.int64)
    sign = keys < 0
    keys = np.where(sign, -(keys & ~np.int64(np.iinfo(width).min)) if dtype != "bfloat16"
                    else -(keys & 0x7FFF), keys)
    return np.where(np.isnan(np.asarray(values, np.float64)), np.iinfo(np.int64).max, keys)


def _compare(got, expected, dtype):
    as_float = (lambda t: t.float().numpy()) if dtype == "bfloat16" else (lambda t: t.numpy())
    g, e = _bits(as_float(got), dtype), _bits(as_float(expected), dtype)
    return np.abs(g - e)


@pytest.mark.parametrize("size", [1, 7, 16, 1031])
@pytest.mark.parametrize("dtype", DTYPES)
def test_pow_of_number_matches_torch_bit_for_bit(torch, dtype, size):
    t, e = _inputs(torch, dtype, size)
    for exponent in EXPONENTS:
        expected, got = t ** exponent, e ** exponent
        assert str(got.dtype) == str(expected.dtype).replace("torch.", "ember.")
        distance = _compare(got, expected, dtype)
        if (dtype, exponent) in WITHIN_ONE_ULP:
            assert distance.max() <= 1, (dtype, exponent, distance.max())
            share = WITHIN_ONE_ULP[dtype, exponent]
            assert (distance > 0).mean() <= max(share, 1 / size), (dtype, exponent)
        else:
            assert distance.max() == 0, (dtype, exponent, np.flatnonzero(distance)[:5])


def test_pow_special_cases_of_half(torch):
    """float16 uses C's pow, not sqrt: (-0) ** 0.5 is +0, (-inf) ** 0.5 is +inf."""
    values = [-0.0, -np.inf, np.inf, 0.0, -2.0, 4.0]
    for exponent in (0.5, -0.5, 2.5, -3):
        expected = torch.tensor(values, dtype=torch.float16) ** exponent
        got = ember.tensor(values, dtype=ember.float16) ** exponent
        assert _compare(got, expected, "float16").max() == 0, exponent
        assert np.array_equal(np.signbit(got.numpy()), np.signbit(expected.numpy())), exponent


def test_bits_detect_one_ulp():
    """The comparison itself can fail: neighbours differ by 1, signs and nan are kept apart."""
    x = np.array([1.0, -1.0, 0.0, np.nan], np.float32)
    y = np.nextafter(x, np.float32(2))
    assert list(np.abs(_bits(y, "float32") - _bits(x, "float32"))) == [1, 1, 1, 0]
    assert _bits(np.array([-0.0], np.float32), "float32")[0] == _bits(
        np.array([0.0], np.float32), "float32")[0]
