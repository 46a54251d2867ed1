"""Catalog entries for ops12: the fused add-products, dist, ldexp/frexp, mode/nanmedian,
the index reductions and copies, the numpy-style splits, the *_scatter ops, diagflat and
sum_to_size. What a catalog cannot express (errors, integer-only ops, in-place forms,
the torch.* doors into nn.functional) is in tests/test_ops_more2.py."""
import numpy as np

from . import ALL_DTYPES, FLOAT_DTYPES, OpInfo, Sample, doors, random_array

NUMERIC = ("int64", "float16", "float32", "float64")


def _long(*values):
    return np.array(values, dtype=np.int64)


def _distinct(rng, shape, dtype):
    size = int(np.prod(shape))
    values = rng.permutation(size) * 0.5 - size / 4 + 0.125
    return values.reshape(shape).astype(dtype)


def _addr_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), random_array(rng, (3,), dtype),
                  random_array(rng, (4,), dtype)), {"beta": 2, "alpha": 3})
    yield Sample((random_array(rng, (4,), dtype), random_array(rng, (3,), dtype),
                  random_array(rng, (4,), dtype)), name="broadcast input")
    yield Sample((random_array(rng, (0, 2), dtype), random_array(rng, (0,), dtype),
                  random_array(rng, (2,), dtype)), name="empty")


def _addbmm_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), random_array(rng, (5, 3, 2), dtype),
                  random_array(rng, (5, 2, 4), dtype)), {"beta": 0.5, "alpha": 2})
    yield Sample((random_array(rng, (4,), dtype), random_array(rng, (2, 3, 2), dtype),
                  random_array(rng, (2, 2, 4), dtype)), name="broadcast input")


def _dist_samples(rng, dtype):
    for p in (2, 1, 3, 0.5, float("inf")):
        yield Sample((_distinct(rng, (2, 3), dtype), _distinct(rng, (3,), dtype) / 3 + 0.05, p),
                     name=f"p={p}")


def _ldexp_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 3), dtype), _long(1, -2, 0)))
    yield Sample((random_array(rng, (3,), dtype), np.array(3)))


def _mode_samples(rng, dtype):
    x = rng.integers(0, 3, size=(3, 5)).astype(dtype)
    yield Sample((x,), name="dim -1")
    yield Sample((x, 0, True), name="dim 0 keepdim")
    yield Sample((np.array(2.5, dtype),), name="0-dim")


def _nanmedian_samples(rng, dtype):
    x = _distinct(rng, (3, 5), dtype)
    if dtype.startswith("float"):
        x[0, 1] = x[2, 0] = x[2, 3] = np.nan
    yield Sample((x,), name="all")
    yield Sample((x, 1), name="dim 1")
    yield Sample((x, 0, True), name="dim 0 keepdim")


def _scatter_reduce_samples(rng, dtype):
    index = np.array([[0, 0, 2], [1, 1, 1]])
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            yield Sample((_distinct(rng, (2, 3), dtype), 1, index,
                          _distinct(rng, (2, 3), dtype) + 0.05, reduce), {"include_self": include_self},
                         name=f"{reduce} {include_self}")
    yield Sample((_distinct(rng, (3,), dtype), 0, _long(0, 0), _distinct(rng, (2,), dtype), "amax"))


def _index_reduce_samples(rng, dtype):
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            yield Sample((_distinct(rng, (3, 2), dtype), 0, _long(2, 0, 2),
                          _distinct(rng, (3, 2), dtype) + 0.05, reduce), {"include_self": include_self},
                         name=f"{reduce} {include_self}")


def _index_copy_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), 0, _long(2, 0), random_array(rng, (2, 4),
                                                                                   dtype)))
    yield Sample((random_array(rng, (3, 4), dtype), -1, _long(1), random_array(rng, (3, 1),
                                                                                dtype)))


def _put_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), _long(1, -1, 5), random_array(rng, (3,),
                                                                                   dtype)))
    yield Sample((random_array(rng, (2, 3), dtype), _long(1, 1, 0), random_array(rng, (3,),
                                                                                  dtype), True),
                 name="accumulate")


def _split_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 4, 6), dtype), 2), name="sections")
    yield Sample((random_array(rng, (2, 4, 6), dtype), [1, 3]), name="indices")


def _scatter_into_samples(view_shape, *arguments):
    def samples(rng, dtype):
        yield Sample((random_array(rng, (3, 4, 5), dtype), random_array(rng, view_shape, dtype))
                     + arguments)
    return samples


OPS = [
    OpInfo("addr", lambda lib, x, a, b, **kw: lib.addr(x, a, b, **kw), _addr_samples,
           dtypes=("float32", "float64", "int64")),
    OpInfo("addbmm", lambda lib, x, a, b, **kw: lib.addbmm(x, a, b, **kw), _addbmm_samples),
    OpInfo("dist", lambda lib, x, y, p: lib.dist(x, y, p), _dist_samples),
    OpInfo("ldexp", lambda lib, x, e: lib.ldexp(x, e), _ldexp_samples,
           skip={"gradcheck": "PyTorch's gradient scales by pow(2, other) in integers, 0 for a "
                              "negative exponent (matched, not the true derivative)"}),
    OpInfo("frexp", lambda lib, x: lib.frexp(x), lambda rng, dtype: [
        Sample((random_array(rng, (2, 3), dtype, -40, 40),))], dtypes=("float16",) + FLOAT_DTYPES),
    OpInfo("mode", lambda lib, x, *args: lib.mode(x, *args), _mode_samples,
           dtypes=NUMERIC, skip={"gradcheck": "a finite step breaks the ties that pick the mode",
                                 "gradgradcheck": "as gradcheck"}),
    OpInfo("nanmedian", lambda lib, x, *args: lib.nanmedian(x, *args), _nanmedian_samples,
           dtypes=NUMERIC),
    OpInfo("scatter_reduce", lambda lib, x, dim, index, src, reduce, **kw:
           lib.scatter_reduce(x, dim, index, src, reduce, **kw), _scatter_reduce_samples,
           dtypes=NUMERIC, atol=1e-3,  # float16 mean: PyTorch accumulates in float16
           skip={"gradgradcheck": "prod/amax/amin backward treats the result as a constant"}),
    OpInfo("index_reduce", lambda lib, x, dim, index, src, reduce, **kw:
           x.index_reduce(dim, index, src, reduce, **kw), _index_reduce_samples,
           dtypes=NUMERIC, atol=1e-3,
           skip={"gradgradcheck": "prod/amax/amin backward treats the result as a constant"}),
    OpInfo("index_copy", lambda lib, x, dim, index, src: lib.index_copy(x, dim, index, src),
           _index_copy_samples, dtypes=ALL_DTYPES),
    OpInfo("put", lambda lib, x, index, src, *args: lib.put(x, index, src, *args), _put_samples,
           dtypes=NUMERIC),
    OpInfo("hsplit", lambda lib, x, s: lib.hsplit(x, s), _split_samples, dtypes=ALL_DTYPES),
    OpInfo("vsplit", lambda lib, x, s: lib.vsplit(x.transpose(0, 1), s), _split_samples),
    OpInfo("dsplit", lambda lib, x, s: lib.dsplit(x, s), _split_samples),
    OpInfo("split_with_sizes", lambda lib, x, s: lib.split_with_sizes(x, [1, 5], 2),
           _split_samples),
    OpInfo("unsafe_split", lambda lib, x, s: lib.unsafe_split(x, 2, 1), _split_samples),
    OpInfo("unsafe_chunk", lambda lib, x, s: lib.unsafe_chunk(x, 3, -1), _split_samples),
    OpInfo("unsafe_split_with_sizes",
           lambda lib, x, s: lib.unsafe_split_with_sizes(x, [4, 2], 2), _split_samples),
    OpInfo("select_scatter", lambda lib, x, src, *a: lib.select_scatter(x, src, *a),
           _scatter_into_samples((3, 5), 1, -1), dtypes=ALL_DTYPES),
    OpInfo("slice_scatter", lambda lib, x, src, *a: lib.slice_scatter(x, src, *a),
           _scatter_into_samples((3, 4, 2), 2, 1, 5, 2)),
    OpInfo("diagonal_scatter", lambda lib, x, src, *a: lib.diagonal_scatter(x, src, *a),
           _scatter_into_samples((3, 4), 1, 1, 2)),
    OpInfo("as_strided_scatter", lambda lib, x, src, *a: lib.as_strided_scatter(x, src, *a),
           _scatter_into_samples((2, 3), (2, 3), (5, 2), 1),
           skip={"gradcheck": "PyTorch keeps input's gradient where src was written (matched)",
                 "gradgradcheck": "as gradcheck"}),
    OpInfo("diagflat", lambda lib, x, *a: lib.diagflat(x, *a), lambda rng, dtype: [
        Sample((random_array(rng, (3,), dtype),)), Sample((random_array(rng, (2, 2), dtype), -1))],
        dtypes=ALL_DTYPES),
    OpInfo("sum_to_size", lambda lib, x, *size: x.sum_to_size(*size), lambda rng, dtype: [
        Sample((random_array(rng, (2, 3, 4), dtype), 1, 3, 1)),
        Sample((random_array(rng, (2, 3, 4), dtype), (3, 4)))]),
]

OPS += doors(OPS, {
    "addr": [("Tensor.addr", lambda lib, x, a, b, **kw: x.addr(a, b, **kw))],
    "addbmm": [("Tensor.addbmm", lambda lib, x, a, b, **kw: x.addbmm(a, b, **kw))],
    "dist": [("Tensor.dist", lambda lib, x, y, p: x.dist(y, p))],
    "ldexp": [("Tensor.ldexp", lambda lib, x, e: x.ldexp(e))],
    "frexp": [("Tensor.frexp", lambda lib, x: x.frexp())],
    "mode": [("Tensor.mode", lambda lib, x, *args: x.mode(*args))],
    "nanmedian": [("Tensor.nanmedian", lambda lib, x, *args: x.nanmedian(*args))],
    "scatter_reduce": [("Tensor.scatter_reduce", lambda lib, x, dim, index, src, reduce, **kw:
                        x.scatter_reduce(dim, index, src, reduce, **kw))],
    "index_reduce": [("ember.index_reduce", lambda lib, x, dim, index, src, reduce, **kw:
                      lib.index_reduce(x, dim, index, src, reduce, **kw))],
    "index_copy": [("Tensor.index_copy", lambda lib, x, dim, index, src:
                    x.index_copy(dim, index, src))],
    "put": [("Tensor.put", lambda lib, x, index, src, *args: x.put(index, src, *args))],
    "hsplit": [("Tensor.hsplit", lambda lib, x, s: x.hsplit(s))],
    "vsplit": [("Tensor.vsplit", lambda lib, x, s: x.transpose(0, 1).vsplit(s))],
    "dsplit": [("Tensor.dsplit", lambda lib, x, s: x.dsplit(s))],
    "split_with_sizes": [("Tensor.split_with_sizes",
                          lambda lib, x, s: x.split_with_sizes([1, 5], 2))],
    "unsafe_split": [("Tensor.unsafe_split", lambda lib, x, s: x.unsafe_split(2, 1))],
    "unsafe_chunk": [("Tensor.unsafe_chunk", lambda lib, x, s: x.unsafe_chunk(3, -1))],
    "unsafe_split_with_sizes": [("Tensor.unsafe_split_with_sizes",
                                 lambda lib, x, s: x.unsafe_split_with_sizes([4, 2], 2))],
    "select_scatter": [("Tensor.select_scatter", lambda lib, x, src, *a:
                        x.select_scatter(src, *a))],
    "slice_scatter": [("Tensor.slice_scatter", lambda lib, x, src, *a: x.slice_scatter(src, *a))],
    "diagonal_scatter": [("Tensor.diagonal_scatter", lambda lib, x, src, *a:
                          x.diagonal_scatter(src, *a))],
    "as_strided_scatter": [("Tensor.as_strided_scatter", lambda lib, x, src, *a:
                            x.as_strided_scatter(src, *a))],
    "diagflat": [("Tensor.diagflat", lambda lib, x, *a: x.diagflat(*a))],
})
