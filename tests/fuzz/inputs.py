"""Library-neutral argument specs and the strategies that draw them.

A case is drawn once as specs (NumPy arrays plus a dtype name and a memory layout)
and materialised twice, in ember and in torch, so both calls see identical inputs.
Strategies are chosen by parameter name (`input`, `other`, `dim`, `keepdim`, ...),
the way PyTorch's own signatures name them; a few names need a per-op rule.
"""
import dataclasses
import math

import numpy as np
from hypothesis import strategies as st

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
LAYOUTS = ("contiguous", "transposed", "strided", "expanded")


@dataclasses.dataclass
class TensorSpec:
    """A tensor to build in each library: values, dtype name, layout, requires_grad."""
    array: np.ndarray          # values, float64/int64/bool, already in the dtype's range
    dtype: str
    layout: str = "contiguous"
    requires_grad: bool = False

    def __repr__(self):
        flags = "" if self.layout == "contiguous" else f", {self.layout}"
        flags += ", requires_grad" if self.requires_grad else ""
        return f"T({self.array.tolist()!r}, {self.dtype}{flags})"


@dataclasses.dataclass
class DtypeSpec:
    name: str

    def __repr__(self):
        return f"dtype.{self.name}"


class Bad:
    """A value no signature accepts (an arbitrary object)."""

    def __repr__(self):
        return "<bad object>"


def materialize(lib, spec):
    """Build `spec` (possibly nested in lists/tuples/dicts) as `lib` objects."""
    if isinstance(spec, TensorSpec):
        return _tensor(lib, spec)
    if isinstance(spec, DtypeSpec):
        return getattr(lib, spec.name)
    if isinstance(spec, list):
        return [materialize(lib, s) for s in spec]
    if isinstance(spec, tuple):
        return tuple(materialize(lib, s) for s in spec)
    if isinstance(spec, dict):
        return {k: materialize(lib, v) for k, v in spec.items()}
    return spec


def _storage_dtype(lib, name):
    return lib.float32 if name == "bfloat16" else getattr(lib, name)


def _tensor(lib, spec):
    """The spec's values in the spec's layout; bfloat16 goes through float32 (exact)."""
    a = spec.array
    dtype = _storage_dtype(lib, spec.dtype)
    if spec.layout == "transposed" and a.ndim >= 2:
        t = lib.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=dtype)
        t = t.transpose(-1, -2)
    elif spec.layout == "strided" and a.ndim >= 1 and a.size > 1:
        padded = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
        padded[..., ::2] = a
        t = lib.tensor(padded, dtype=dtype)[..., ::2]
    elif spec.layout == "expanded" and a.ndim >= 1 and a.shape[0] > 1:
        t = lib.tensor(np.ascontiguousarray(a[:1]), dtype=dtype).expand(a.shape)
    else:
        t = lib.tensor(a, dtype=dtype)
    if spec.dtype == "bfloat16":
        t = t.to(lib.bfloat16)
    if spec.requires_grad:
        t.requires_grad_()
    return t


# ---------------------------------------------------------------- values
def _bf16_round(a):
    """Round float64 values to bfloat16 (round to nearest even on float32's bits)."""
    f = a.astype(np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isnan(f), np.nan, out)


SPECIAL_FLOATS = (0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e30, -1e-30, 65504.0,
                  3.0e38)
INT_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
              "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def _values(rng, shape, dtype, special):
    """Values for one tensor: mostly small, with specials (extremes, inf, nan, -0.0)."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in INT_RANGES:
        low, high = INT_RANGES[dtype]
        a = rng.integers(max(low, -5), min(high, 6), size=shape, endpoint=True).astype(np.int64)
        if special and a.size:
            mask = rng.random(shape) < 0.2
            a = np.where(mask, rng.choice([low, high, 0], size=shape), a)
        return a
    a = np.round(rng.uniform(-4, 4, size=shape), 3)
    if special and a.size:
        mask = rng.random(shape) < 0.25
        a = np.where(mask, rng.choice(SPECIAL_FLOATS, size=shape), a)
    if dtype == "float16":
        a = a.astype(np.float16).astype(np.float64)
    elif dtype == "bfloat16":
        a = _bf16_round(a)
    elif dtype == "float32":
        a = a.astype(np.float32).astype(np.float64)
    return a


@st.composite
def tensors(draw, shape, dtype, layouts=True, special=None, grad=True):
    seed = draw(st.integers(0, 2**32 - 1))
    if special is None:
        special = draw(st.integers(0, 3)) == 0
    array = _values(np.random.default_rng(seed), shape, dtype, special)
    layout = draw(st.sampled_from(LAYOUTS)) if layouts and draw(st.integers(0, 2)) == 0 \
        else "contiguous"
    requires_grad = grad and dtype in FLOATS and draw(st.integers(0, 9)) == 0
    return TensorSpec(array, dtype, layout, requires_grad)


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


def broadcast_partner(draw, shape):
    """A shape that broadcasts with `shape` (sometimes equal, sometimes not at all)."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return shape
    if kind == 1:
        return ()
    if kind == 2:
        return draw(shapes(0, 3, 0, 3))        # arbitrary: often does not broadcast
    out = [draw(st.sampled_from((size, 1))) for size in shape]
    return tuple(out[draw(st.integers(0, len(out))):])


def python_scalars():
    """Python and NumPy numbers from a wide domain, including the awkward ones."""
    return st.one_of(
        st.integers(-3, 3), st.sampled_from([0.0, -0.0, 0.5, -2.5, 1e-3]),
        st.booleans(),
        st.sampled_from([2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**63, 2**64, -2**70,
                         10**30]),
        st.sampled_from([math.inf, -math.inf, math.nan, 1e300, -1e300, 5e-324, 3.5e38]),
        st.sampled_from([np.bool_(True), np.uint8(200), np.int8(-3), np.int16(7), np.int32(-9),
                         np.int64(11), np.float16(1.5), np.float32(-0.25), np.float64(2.75)]),
        st.floats(allow_nan=True, allow_infinity=True, width=64),
        st.integers(),
    )


BAD_VALUES = (None, "x", 1.5, [], (), Bad(), [1, "a"], True, -7, 99, {"a": 1})


def bad_values():
    return st.sampled_from(BAD_VALUES)


def dtypes():
    return st.sampled_from(DTYPES)
