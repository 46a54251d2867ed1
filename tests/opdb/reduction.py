"""Catalog entries for ember/ops/reduction.py and ember/ops/sorting.py.

Ops whose indices the catalog compares exactly (sort, topk, median, kthvalue)
take samples without ties (`distinct_array`); max/min/argmax/cummax keep ties on
purpose, since their tie-breaking (first, or latest for cummax) is specified.
"""
import numpy as np

from . import ALL_DTYPES, OpInfo, Sample, doors, random_array

NUMERIC_DTYPES = tuple(d for d in ALL_DTYPES if d != "bool")
# PyTorch's float16 kernels for these round differently in the last bit (its own
# accumulation order); tests/test_reduction.py checks float16 with a tolerance.
NO_HALF = tuple(d for d in ALL_DTYPES if d != "float16")


def distinct_array(rng, shape, dtype):
    """Distinct values (no ties) of `dtype`, spread apart enough for finite differences."""
    size = int(np.prod(shape))
    values = rng.permutation(size) - size // 2
    if dtype == "uint8":
        values = values + size // 2
    if dtype.startswith("float"):
        values = values * 0.5 + rng.uniform(-0.1, 0.1, size)
    return values.reshape(shape).astype(dtype)


def with_zeros(rng, shape, dtype, where):
    array = random_array(rng, shape, dtype)
    array.reshape(-1)[list(where)] = 0
    return array


# ---------------------------------------------------------------- sample generators
REDUCE_CASES = [
    ((), {}), ((), {"dim": 0}), ((), {"dim": -1, "keepdim": True}),
    ((5,), {}), ((5,), {"dim": 0}), ((2, 3), {"dim": 1}), ((2, 3), {"dim": -1, "keepdim": True}),
    ((2, 3, 4), {"dim": (0, 2)}), ((2, 3, 4), {"dim": [-1, 0], "keepdim": True}),
    ((0, 3), {"dim": 1, "keepdim": True}),
]
# Empty reductions: fine for sum/mean/prod, errors for max/amax (tested by hand).
EMPTY_CASES = [((0, 3), {}), ((0, 3), {"dim": 0}), ((2, 0), {"dim": (0, 1)})]

ONE_DIM_CASES = [
    ((), {}), ((), {"dim": 0}), ((), {"dim": -1, "keepdim": True}), ((5,), {}),
    ((5,), {"dim": 0}), ((2, 3), {"dim": 1}), ((2, 3), {"dim": -2, "keepdim": True}),
    ((2, 3, 4), {"dim": 1}), ((0, 3), {"dim": 1}),
]


def cases_samples(cases, make=random_array):
    def samples(rng, dtype):
        for shape, kwargs in cases:
            yield Sample((make(rng, shape, dtype),), dict(kwargs), name=f"{shape} {kwargs}")
    return samples


reduce_samples = cases_samples(REDUCE_CASES)
sum_samples = cases_samples(REDUCE_CASES + EMPTY_CASES)
one_dim_samples = cases_samples(ONE_DIM_CASES)
distinct_one_dim_samples = cases_samples(ONE_DIM_CASES, distinct_array)


def nan_samples(rng, dtype):
    yield from sum_samples(rng, dtype)
    if dtype.startswith("float"):
        array = random_array(rng, (3, 4), dtype)
        array[0, 1] = array[2, 2] = np.nan
        array[1, :] = np.nan
        for kwargs in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}):
            yield Sample((array.copy(),), kwargs, name=f"nan {kwargs}")


def prod_samples(rng, dtype):
    yield from one_dim_samples(rng, dtype)
    yield from cases_samples([((0, 3), {}), ((0, 3), {"dim": 0})])(rng, dtype)
    for shape, where, kwargs in [((4,), [2], {}), ((2, 3), [1], {"dim": 1}),
                                 ((2, 3), [0, 4], {"dim": 0}), ((3, 3), [0, 1, 5], {"dim": 1}),
                                 ((2, 3), [1, 3], {}), ((2, 2), [0, 1, 2], {}), ((), [0], {})]:
        yield Sample((with_zeros(rng, shape, dtype, where),), kwargs, name=f"zeros {shape}")


STD_CASES = [
    ((5,), {}), ((2, 3), {"dim": 1}), ((2, 3), {"dim": 0, "keepdim": True}),
    ((2, 3, 4), {"dim": (0, 2)}), ((2, 3), {"unbiased": False}), ((2, 3), {"correction": 0}),
    ((2, 3), {"dim": -1, "correction": 2, "keepdim": True}), ((3, 4), {"correction": 1.5}),
    ((4,), {"dim": 0, "unbiased": True}),
]
std_samples = cases_samples(STD_CASES)

NORM_CASES = [((), {}), ((5,), {}), ((2, 3), {"p": "fro"}), ((2, 3), {"p": 1, "dim": 1}),
              ((2, 3), {"p": 3, "dim": -1, "keepdim": True}), ((2, 3), {"p": float("inf")}),
              ((2, 3), {"p": -float("inf"), "dim": 0}), ((2, 3), {"p": 0}),
              ((2, 3), {"p": 0.5, "dim": 1}), ((2, 3), {"p": 1.5}), ((2, 3, 2), {"dim": (0, 2)}),
              ((0, 3), {}), ((0, 3), {"p": 3, "dim": 0}), ((0, 3), {"p": float("inf"), "dim": 1})]
norm_samples = cases_samples(NORM_CASES)

LSE_CASES = [((), {"dim": 0}), ((5,), {"dim": 0}), ((2, 3), {"dim": 1}),
             ((2, 3), {"dim": -2, "keepdim": True}), ((2, 3, 4), {"dim": (0, 2)}),
             ((0, 3), {"dim": 0}), ((0, 3), {"dim": 1})]
lse_samples = cases_samples(LSE_CASES)

CUMULATIVE_CASES = [((), {"dim": 0}), ((), {"dim": -1}), ((5,), {"dim": 0}),
                    ((2, 3), {"dim": 1}), ((2, 3), {"dim": -2}), ((2, 3, 4), {"dim": 1}),
                    ((0, 3), {"dim": 0}), ((0, 3), {"dim": 1})]
cumulative_samples = cases_samples(CUMULATIVE_CASES)


def cumprod_samples(rng, dtype):
    yield from cumulative_samples(rng, dtype)
    for shape, where, dim in [((5,), [2], 0), ((2, 4), [1, 6], 1), ((2, 4), [0, 1, 5], 1),
                              ((3, 2), [2], 0), ((4,), [3], 0)]:
        yield Sample((with_zeros(rng, shape, dtype, where),), {"dim": dim}, name=f"zeros {shape}")


def tied_samples(rng, dtype):
    """Repeated values, for ops whose tie-breaking is specified (first / latest index)."""
    yield from one_dim_samples(rng, dtype)
    if dtype == "float64":   # the gradient checks run in float64; ties have no derivative
        return
    array = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [0, 1, 0, 1]]).astype(dtype)
    for kwargs in ({"dim": 1}, {"dim": 0, "keepdim": True}):
        yield Sample((array,), kwargs, name=f"ties {kwargs}")


SORT_CASES = [((), {}), ((5,), {}), ((2, 3), {"dim": 0}), ((2, 3), {"descending": True}),
              ((2, 3, 4), {"dim": 1, "descending": True}), ((0, 3), {}), ((0, 3), {"dim": 0}),
              ((3, 4), {"dim": -2, "stable": True})]
sort_samples = cases_samples(SORT_CASES, distinct_array)

TOPK_CASES = [((), {"k": 1}), ((5,), {"k": 2}), ((2, 3), {"k": 3}),
              ((2, 3), {"k": 1, "dim": 0, "largest": False}), ((2, 3, 4), {"k": 2, "dim": 1}),
              ((3, 4), {"k": 0}), ((0, 3), {"k": 2}), ((2, 3), {"k": 2, "largest": False})]
topk_samples = cases_samples(TOPK_CASES, distinct_array)

KTH_CASES = [((), {"k": 1}), ((5,), {"k": 3}), ((2, 3), {"k": 1, "dim": 0}),
             ((2, 3), {"k": 3, "keepdim": True}), ((2, 3, 4), {"k": 2, "dim": -2}),
             ((0, 3), {"k": 1})]
kth_samples = cases_samples(KTH_CASES, distinct_array)


def median_samples(rng, dtype):
    yield from distinct_one_dim_samples(rng, dtype)
    yield Sample((distinct_array(rng, (4,), dtype),), name="even length")
    yield Sample((distinct_array(rng, (2, 4), dtype),), {"dim": 1}, name="even length dim")


def unique_samples(rng, dtype):
    for shape in [(), (6,), (3, 4), (0,)]:
        array = random_array(rng, shape, dtype, -2, 2)
        for kwargs in ({}, {"return_inverse": True}, {"return_counts": True},
                       {"return_inverse": True, "return_counts": True}):
            yield Sample((array,), kwargs, name=f"{shape} {kwargs}")
    rows = np.array([[1, 2, 0], [0, 1, 1], [1, 2, 0], [0, 1, 0]]).astype(dtype)
    for dim in (0, 1, -1):
        yield Sample((rows,), {"dim": dim, "return_inverse": True, "return_counts": True},
                     name=f"dim {dim}")


def scalar_samples(rng, dtype, shapes=((), (5,), (2, 3), (2, 3, 4))):
    for shape in shapes:
        yield Sample((random_array(rng, shape, dtype),), name=str(shape))


def empty_samples(rng, dtype):
    return scalar_samples(rng, dtype, ((), (5,), (2, 3), (0,), (0, 3)))


def logical_samples(rng, dtype, keepdim=True):
    for shape, kwargs in REDUCE_CASES + EMPTY_CASES + [((2, 3), {"dim": ()})]:
        array = random_array(rng, shape, dtype)
        if array.size:
            array.reshape(-1)[0] = 0
        if not keepdim:
            kwargs = {k: v for k, v in kwargs.items() if k != "keepdim"}
        yield Sample((array,), dict(kwargs), name=f"{shape} {kwargs}")


def count_samples(rng, dtype):
    return logical_samples(rng, dtype, keepdim=False)


OPS = [
    OpInfo("sum", lambda lib, x, **kw: lib.sum(x, **kw), sum_samples, dtypes=ALL_DTYPES),
    OpInfo("sum_method", lambda lib, x, **kw: x.sum(**kw), reduce_samples),
    OpInfo("sum_dtype", lambda lib, x: x.sum(-1, dtype=lib.float64), empty_samples,
           dtypes=ALL_DTYPES),
    OpInfo("nansum", lambda lib, x, **kw: lib.nansum(x, **kw), nan_samples, dtypes=NO_HALF),
    OpInfo("mean", lambda lib, x, **kw: lib.mean(x, **kw), sum_samples, dtypes=ALL_DTYPES),
    OpInfo("mean_dtype", lambda lib, x: lib.mean(x, 0, dtype=lib.float64), empty_samples,
           dtypes=ALL_DTYPES),
    OpInfo("nanmean", lambda lib, x, **kw: lib.nanmean(x, **kw), nan_samples, dtypes=NO_HALF),
    OpInfo("prod", lambda lib, x, **kw: lib.prod(x, **kw), prod_samples, dtypes=NO_HALF),
    OpInfo("amax", lambda lib, x, **kw: lib.amax(x, **kw), reduce_samples, dtypes=ALL_DTYPES),
    OpInfo("amin", lambda lib, x, **kw: x.amin(**kw), reduce_samples, dtypes=ALL_DTYPES),
    OpInfo("aminmax", lambda lib, x, **kw: lib.aminmax(x, **kw), one_dim_samples,
           dtypes=ALL_DTYPES),
    OpInfo("max", lambda lib, x: lib.max(x), scalar_samples, dtypes=ALL_DTYPES),
    OpInfo("min", lambda lib, x: x.min(), scalar_samples, dtypes=ALL_DTYPES),
    OpInfo("max_dim", lambda lib, x, dim=-1, keepdim=False: lib.max(x, dim, keepdim),
           tied_samples, dtypes=ALL_DTYPES),
    OpInfo("min_dim", lambda lib, x, dim=-1, keepdim=False: x.min(dim=dim, keepdim=keepdim),
           tied_samples, dtypes=ALL_DTYPES),
    OpInfo("argmax", lambda lib, x, **kw: lib.argmax(x, **kw), tied_samples, dtypes=ALL_DTYPES,
           differentiable=False),
    OpInfo("argmin", lambda lib, x, **kw: x.argmin(**kw), tied_samples, dtypes=ALL_DTYPES,
           differentiable=False),
    OpInfo("std", lambda lib, x, **kw: lib.std(x, **kw), std_samples, dtypes=ALL_DTYPES),
    OpInfo("var", lambda lib, x, **kw: x.var(**kw), std_samples),
    OpInfo("std_mean", lambda lib, x, **kw: lib.std_mean(x, **kw), std_samples),
    OpInfo("var_mean", lambda lib, x, **kw: lib.var_mean(x, **kw), std_samples),
    OpInfo("var_mean_one_output", lambda lib, x, **kw: lib.var_mean(x, **kw)[1], std_samples),
    OpInfo("norm", lambda lib, x, **kw: x.norm(**kw), norm_samples, dtypes=ALL_DTYPES),
    OpInfo("norm_function", lambda lib, x, **kw: lib.norm(x, **kw), norm_samples),
    OpInfo("logsumexp", lambda lib, x, **kw: lib.logsumexp(x, **kw), lse_samples,
           dtypes=NO_HALF),
    OpInfo("cumsum", lambda lib, x, **kw: lib.cumsum(x, **kw), cumulative_samples,
           dtypes=ALL_DTYPES),
    OpInfo("cumsum_dtype", lambda lib, x, dim: x.cumsum(dim, dtype=lib.float64),
           cumulative_samples, dtypes=ALL_DTYPES),
    OpInfo("cumprod", lambda lib, x, **kw: x.cumprod(**kw), cumprod_samples, dtypes=ALL_DTYPES),
    OpInfo("cummax", lambda lib, x, dim: lib.cummax(x, dim), cumulative_samples,
           dtypes=ALL_DTYPES),
    OpInfo("cummin", lambda lib, x, dim: x.cummin(dim), cumulative_samples, dtypes=ALL_DTYPES),
    OpInfo("all", lambda lib, x, **kw: lib.all(x, **kw), logical_samples, dtypes=ALL_DTYPES,
           differentiable=False),
    OpInfo("any", lambda lib, x, **kw: x.any(**kw), logical_samples, dtypes=ALL_DTYPES,
           differentiable=False),
    OpInfo("count_nonzero", lambda lib, x, **kw: lib.count_nonzero(x, **kw), count_samples,
           dtypes=ALL_DTYPES, differentiable=False),
    OpInfo("median", lambda lib, x, **kw: lib.median(x, **kw), median_samples,
           dtypes=NUMERIC_DTYPES + ("bool",)),
    OpInfo("kthvalue", lambda lib, x, **kw: x.kthvalue(**kw), kth_samples, dtypes=ALL_DTYPES),
    OpInfo("sort", lambda lib, x, **kw: lib.sort(x, **kw), sort_samples, dtypes=NUMERIC_DTYPES),
    OpInfo("argsort", lambda lib, x, **kw: x.argsort(**kw), sort_samples, dtypes=NUMERIC_DTYPES,
           differentiable=False),
    OpInfo("msort", lambda lib, x, **kw: lib.msort(x), sort_samples, dtypes=NUMERIC_DTYPES),
    OpInfo("topk", lambda lib, x, **kw: lib.topk(x, **kw), topk_samples, dtypes=ALL_DTYPES),
    OpInfo("unique", lambda lib, x, **kw: lib.unique(x, **kw), unique_samples,
           dtypes=ALL_DTYPES, differentiable=False),
]

OPS += doors(OPS, {
    "amin": [("ember.amin", lambda lib, x, **kw: lib.amin(x, **kw))],
    "argmin": [("ember.argmin", lambda lib, x, **kw: lib.argmin(x, **kw))],
    "cumprod": [("ember.cumprod", lambda lib, x, **kw: lib.cumprod(x, **kw))],
    "any": [("ember.any", lambda lib, x, **kw: lib.any(x, **kw))],
    "kthvalue": [("ember.kthvalue", lambda lib, x, **kw: lib.kthvalue(x, **kw))],
    "argsort": [("ember.argsort", lambda lib, x, **kw: lib.argsort(x, **kw))],
    "msort": [("Tensor.msort", lambda lib, x, **kw: x.msort())],
})
