"""Catalog entries for ember/ops/indexing.py and gather_scatter.py.

Index objects (ints, slices, None, Ellipsis, tuples of them) pass through the
samples untouched; NumPy arrays inside them become index tensors of the library
under test, so one sample exercises both ember and torch.
"""
import numpy as np

from . import ALL_DTYPES, OpInfo, Sample, doors, random_array

NUMERIC_DTYPES = tuple(d for d in ALL_DTYPES if d != "bool")


def _long(*values):
    return np.array(values, dtype=np.int64)


def _mask(*values):
    return np.array(values, dtype=bool)


def _cases(*cases):
    """samples(rng, dtype): one tensor of each shape, then the given extra arguments."""
    def samples(rng, dtype):
        for shape, *args in cases:
            yield Sample((random_array(rng, shape, dtype), *args), name=f"{shape} {args!r}"[:60])
    return samples


def _with_src(*cases):
    """samples(rng, dtype): input shape, args, a second tensor of `src_shape` (last)."""
    def samples(rng, dtype):
        for shape, *args, src_shape in cases:
            yield Sample((random_array(rng, shape, dtype), *args,
                          random_array(rng, src_shape, dtype)), name=f"{shape} {args!r}"[:60])
    return samples


_GETITEM = [
    ((3, 4), 1), ((3, 4), -1), ((3, 4), slice(1, None)), ((3, 4), (slice(None), 2)),
    ((3, 4), (Ellipsis, None)), ((3, 4), (None, 0, slice(None, None, 2))),
    ((3, 4), (slice(0, 3, 2), -1)), ((3, 4), Ellipsis), ((3, 4), (slice(None), slice(None))),
    ((2, 3, 4), (0, slice(None), _long(0, 2))),
    ((2, 3, 4), (_long(0, 1), slice(None), _long(1, 2))),
    ((2, 3, 4), (slice(None), _mask(True, False, True))), ((2, 3), _mask([True, False, True],
                                                                         [False, False, True])),
    ((3, 2), (_long([0, 1], [1, 0]),)), ((3, 2), [0, 0, 2]), ((3, 2), ([0, 2], [1, 1])),
    ((3, 2), True), ((3, 2), False), ((3, 2), (1, None, True)), ((), Ellipsis), ((), None),
    ((), True), ((0, 3), (slice(None), 1)), ((0, 3), np.array([], dtype=np.int64)),
    ((4,), slice(5, 1)), ((2, 3), (slice(None), _long(-1, 0))),
]

_SETITEM = [  # (shape, index, value shape or a Python scalar)
    ((3, 4), 1, (4,)), ((3, 4), 0, 2.5), ((3, 4), slice(1, None), (1, 4)),
    ((3, 4), (slice(None), 2), (3,)), ((3, 4), (slice(None, None, 2), slice(1, 3)), (2, 2)),
    ((3, 4), Ellipsis, ()), ((3, 4), Ellipsis, 1.0), ((3, 4), slice(None), (3, 4)),
    ((3, 4), (None, 1), (1, 1, 4)), ((3, 4), [0, 2], (2, 4)), ((3, 4), [2, 0], (4,)),
    ((3, 4), (slice(None), [1, 3]), (3, 1)), ((3, 4), (slice(1, None), [0, 3]), (2,)),
    ((2, 3), _mask([True, False, True], [False, True, True]), (4,)),
    ((2, 3), _mask([True, False, True], [False, True, True]), 3.0), ((2, 3), True, (3,)),
    ((), Ellipsis, ()), ((0, 2), slice(None), (2,)),
]


def _setitem_samples(rng, dtype):
    for shape, index, value in _SETITEM:
        if isinstance(value, tuple):
            value = random_array(rng, value, dtype)
        elif dtype == "bool":
            value = True
        elif dtype != "float64" and dtype != "float32" and dtype != "float16":
            value = int(value)
        yield Sample((random_array(rng, shape, dtype), index, value),
                     name=f"{shape} {index!r}"[:60])


def _setitem(lib, x, index, value):
    y = x.clone()
    y[index] = value
    return y


def _dims(rng, low, high, shape):
    return rng.integers(low, high, size=shape).astype(np.int64)


def _gather_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), 1, _dims(rng, 0, 4, (2, 2))))
    yield Sample((random_array(rng, (3, 4), dtype), 0, _dims(rng, 0, 3, (4, 4))))
    yield Sample((random_array(rng, (2, 3, 2), dtype), -2, _dims(rng, 0, 3, (2, 5, 1))))
    yield Sample((random_array(rng, (), dtype), 0, np.array(0)))
    yield Sample((random_array(rng, (3, 4), dtype), 1, _dims(rng, 0, 4, (3, 0))))


def _scatter_samples(rng, dtype):
    """Index rows without repeats (PyTorch leaves the winner of a repeat undefined)."""
    index = np.stack([rng.permutation(4)[:3] for _ in range(2)])
    yield Sample((random_array(rng, (3, 4), dtype), 1, index, random_array(rng, (2, 3), dtype)))
    index = np.stack([rng.permutation(3) for _ in range(4)], axis=1)[:2]
    yield Sample((random_array(rng, (3, 4), dtype), 0, index, random_array(rng, (2, 4), dtype)))
    yield Sample((random_array(rng, (), dtype), 0, np.array(0), random_array(rng, (), dtype)))
    yield Sample((random_array(rng, (2, 3), dtype), -1, np.zeros((2, 0), np.int64),
                  random_array(rng, (2, 0), dtype)))


def _scatter_add_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), 1, _dims(rng, 0, 4, (3, 5)),
                  random_array(rng, (3, 5), dtype)))
    yield Sample((random_array(rng, (3, 2), dtype), 0, _dims(rng, 0, 3, (4, 2)),
                  random_array(rng, (4, 2), dtype)))
    yield Sample((random_array(rng, (), dtype), 0, np.array(0), random_array(rng, (), dtype)))


def _index_add_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), 0, _long(0, 2, 0),
                  random_array(rng, (3, 4), dtype)))
    yield Sample((random_array(rng, (3, 4), dtype), -1, _long(3),
                  random_array(rng, (3, 1), dtype)))
    yield Sample((random_array(rng, (), dtype), 0, _long(0), random_array(rng, (), dtype)))
    yield Sample((random_array(rng, (2, 3), dtype), 1, _long(), random_array(rng, (2, 0), dtype)))


def _index_put_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), (_long(0, 2),), random_array(rng, (4,), dtype)))
    yield Sample((random_array(rng, (3, 4), dtype), (_long(0, 2), _long(1, 3)),
                  random_array(rng, (2,), dtype)))
    yield Sample((random_array(rng, (2, 3), dtype), (_mask([True, False, True],
                                                          [False, True, False]),),
                  random_array(rng, (), dtype)))
    yield Sample((random_array(rng, (3, 2), dtype), (_long(1),), random_array(rng, (1, 2), dtype)))


def _index_put_accumulate_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), (_long(0, 2, 0),),
                  random_array(rng, (3, 4), dtype)))
    yield Sample((random_array(rng, (3, 4), dtype), (_long(1, 1), _long(2, 2)),
                  random_array(rng, (), dtype)))


def _masked_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), rng.integers(0, 2, (3, 4)).astype(bool)))
    yield Sample((random_array(rng, (3, 4), dtype), _mask(True, False, False, True)))
    yield Sample((random_array(rng, (3, 1), dtype), rng.integers(0, 2, (2, 3, 4)).astype(bool)))
    yield Sample((random_array(rng, (), dtype), np.array(True)))
    yield Sample((random_array(rng, (0, 2), dtype), np.zeros((0, 2), bool)))


def _masked_value_samples(rng, dtype):
    for sample in _masked_samples(rng, dtype):
        yield Sample(sample.args + (random_array(rng, (), dtype),), name=sample.name)


def _masked_scatter_samples(rng, dtype):
    for sample in _masked_samples(rng, dtype):
        yield Sample(sample.args + (random_array(rng, (5, 6), dtype),), name=sample.name)


def _take_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), _long([0, 11], [5, 5])))
    yield Sample((random_array(rng, (3, 4), dtype), _long(-1, -12, 3)))
    yield Sample((random_array(rng, (), dtype), np.array(0)))
    yield Sample((random_array(rng, (2, 2), dtype), _long()))


def _nonzero_samples(rng, dtype):
    for shape in [(3, 4), (5,), (), (0, 2), (2, 2, 2)]:
        yield Sample((random_array(rng, shape, dtype, low=-1, high=1),), name=str(shape))


OPS = [
    OpInfo("getitem", lambda lib, x, index: x[index], _cases(*_GETITEM), dtypes=ALL_DTYPES),
    OpInfo("setitem", _setitem, _setitem_samples, dtypes=ALL_DTYPES),
    OpInfo("gather", lambda lib, x, dim, index: lib.gather(x, dim, index), _gather_samples,
           dtypes=ALL_DTYPES),
    OpInfo("scatter", lambda lib, x, dim, index, src: lib.scatter(x, dim, index, src),
           _scatter_samples, dtypes=ALL_DTYPES),
    OpInfo("scatter_value", lambda lib, x, dim, index, src: x.scatter(dim, index, value=2),
           _scatter_samples, dtypes=ALL_DTYPES),
    OpInfo("scatter_reduce_legacy",
           lambda lib, x, dim, index, src: (x.scatter(dim, index, src, reduce="add"),
                                             x.scatter(dim, index, 2, reduce="multiply")),
           _scatter_add_samples, dtypes=NUMERIC_DTYPES, differentiable=False),
    OpInfo("scatter_add", lambda lib, x, dim, index, src: lib.scatter_add(x, dim, index, src),
           _scatter_add_samples, dtypes=NUMERIC_DTYPES),
    OpInfo("index_select", lambda lib, x, dim, index: lib.index_select(x, dim, index),
           _cases(((3, 4), 0, _long(2, 0, 2)), ((3, 4), -1, _long(1)), ((), 0, _long(0)),
                  ((2, 3), 1, np.array(2)), ((2, 3), 0, _long())),
           dtypes=ALL_DTYPES),
    OpInfo("index_add", lambda lib, x, dim, index, src: lib.index_add(x, dim, index, src, alpha=2),
           _index_add_samples, dtypes=NUMERIC_DTYPES,
           atol=2e-3),  # float16: PyTorch rounds after each repeated index, ember once
    OpInfo("index_fill", lambda lib, x, dim, index: x.index_fill(dim, index, -1),
           _cases(((3, 4), 1, _long(0, 3, 0)), ((3, 4), 0, np.array(-1)), ((), 0, _long(0))),
           dtypes=ALL_DTYPES),
    OpInfo("index_fill_tensor", lambda lib, x, dim, index, value: x.index_fill(dim, index, value),
           _with_src(((3, 4), 1, _long(0, 3, 0), ()), ((2, 3), -2, _long(1), ())),
           dtypes=ALL_DTYPES),
    OpInfo("index_put", lambda lib, x, indices, values: lib.index_put(x, indices, values),
           _index_put_samples, dtypes=ALL_DTYPES),
    OpInfo("index_put_accumulate",
           lambda lib, x, indices, values: x.index_put(indices, values, accumulate=True),
           _index_put_accumulate_samples, dtypes=NUMERIC_DTYPES),
    OpInfo("masked_fill", lambda lib, x, mask: x.masked_fill(mask, 2), _masked_samples,
           dtypes=ALL_DTYPES),
    OpInfo("masked_fill_tensor", lambda lib, x, mask, value: lib.masked_fill(x, mask, value),
           _masked_value_samples, dtypes=ALL_DTYPES),
    OpInfo("masked_select", lambda lib, x, mask: lib.masked_select(x, mask), _masked_samples,
           dtypes=ALL_DTYPES),
    OpInfo("masked_scatter", lambda lib, x, mask, src: x.masked_scatter(mask, src),
           _masked_scatter_samples, dtypes=ALL_DTYPES),
    OpInfo("take", lambda lib, x, index: lib.take(x, index), _take_samples, dtypes=ALL_DTYPES),
    OpInfo("nonzero", lambda lib, x: (lib.nonzero(x), lib.argwhere(x), x.nonzero(as_tuple=True)),
           _nonzero_samples, dtypes=ALL_DTYPES, differentiable=False),
]

OPS += doors(OPS, {
    "gather": [("Tensor.gather", lambda lib, x, dim, index: x.gather(dim, index))],
    "scatter_add": [
        ("Tensor.scatter_add", lambda lib, x, dim, index, src: x.scatter_add(dim, index, src)),
        ("Tensor.scatter_add_",
         lambda lib, x, dim, index, src: (x * 1).scatter_add_(dim, index, src))],
    "index_select": [("Tensor.index_select",
                      lambda lib, x, dim, index: x.index_select(dim, index))],
    "index_add": [("Tensor.index_add",
                   lambda lib, x, dim, index, src: x.index_add(dim, index, src, alpha=2))],
    "index_fill": [("ember.index_fill",
                    lambda lib, x, dim, index: lib.index_fill(x, dim, index, -1))],
    "masked_select": [("Tensor.masked_select", lambda lib, x, mask: x.masked_select(mask))],
    "masked_scatter": [("ember.masked_scatter",
                        lambda lib, x, mask, src: lib.masked_scatter(x, mask, src))],
    "take": [("Tensor.take", lambda lib, x, index: x.take(index))],
    "nonzero": [("Tensor.argwhere", lambda lib, x: x.argwhere())],
})
