"""Catalog entries for ops13: the *_copy ops (values, strides-free fresh memory, the view's
node renamed `<Node>_copy`, gradients and gradcheck through the view's backward),
torch.gradient, and the integer-valued index helpers (unravel_index, nonzero_static).
What a catalog cannot express (errors, in-place resize/apply_/map_, storages, frombuffer,
histogramdd's tuple of edges, detach_copy's unnamed node) is in tests/test_ops_more3.py."""
import numpy as np

from . import ALL_DTYPES, OpInfo, Sample, random_array


def _matrix(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype),))


def _cube(rng, dtype):
    yield Sample((random_array(rng, (2, 3, 4), dtype),))


def _copy(name, call, samples=_matrix, **kw):
    return OpInfo(name, call, samples, dtypes=("float32", "float64", "int64"), **kw)


def _gradient_samples(rng, dtype):
    x = random_array(rng, (4, 5), dtype)
    yield Sample((x,), name="all dims")
    yield Sample((x,), {"dim": 1, "spacing": 2.0}, name="dim 1, h=2")
    yield Sample((x,), {"spacing": (0.5, 3.0), "edge_order": 2}, name="per-dim h, order 2")
    yield Sample((x,), {"dim": (-1,), "edge_order": 2}, name="dim tuple")


def _gradient_coordinates(rng, dtype):
    x = random_array(rng, (4, 5), dtype)
    for order in (1, 2):
        yield Sample((x, np.array([0.0, 1.0, 3.0, 4.5]), np.array([0.0, 0.5, 1.0, 3.0, 4.5]),
                      order), name=f"coordinates, order {order}")


def _unravel_samples(rng, dtype):
    yield Sample((np.array([4, 1, 11, 0, -1, 12, 25]), (3, 4)), name="2-D shape, wrapping")
    yield Sample((np.array([[1234], [5678]]), (10, 10, 10, 10)), name="batched")
    yield Sample((np.array(5, dtype=np.int32), (2, 3)), name="0-dim int32")
    yield Sample((np.array([3]), 7), name="int shape")


def _nonzero_samples(rng, dtype):
    x = random_array(rng, (3, 4), dtype) * (rng.random((3, 4)) > 0.5)
    for size, fill in ((2, -1), (12, -7), (0, -1)):
        yield Sample((x.astype(dtype),), {"size": size, "fill_value": fill},
                     name=f"size {size}")


OPS = [
    _copy("view_copy", lambda lib, x: lib.view_copy(x, (4, 3))),
    _copy("view_copy (-1)", lambda lib, x: lib.view_copy(x, (2, -1))),
    _copy("view_copy (non-viewable)", lambda lib, x: lib.view_copy(x.t(), (12,))),
    _copy("permute_copy", lambda lib, x: lib.permute_copy(x, (2, 0, 1)), _cube),
    _copy("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, -1), _cube),
    _copy("t_copy", lambda lib, x: lib.t_copy(x)),
    _copy("expand_copy", lambda lib, x: lib.expand_copy(x[:1], (2, 3, 4))),
    _copy("squeeze_copy", lambda lib, x: lib.squeeze_copy(x[None, :, None])),
    _copy("squeeze_copy (dim)", lambda lib, x: lib.squeeze_copy(x[None], 0)),
    _copy("squeeze_copy (dims)", lambda lib, x: lib.squeeze_copy(x[None, :, None], (0, 2))),
    _copy("unsqueeze_copy", lambda lib, x: lib.unsqueeze_copy(x, 1)),
    _copy("select_copy", lambda lib, x: lib.select_copy(x, 1, -2)),
    _copy("slice_copy", lambda lib, x: lib.slice_copy(x, 1, 1, 3)),
    _copy("slice_copy (step, clamped)", lambda lib, x: lib.slice_copy(x, -1, -3, 100, 2)),
    _copy("slice_copy (defaults)", lambda lib, x: lib.slice_copy(x)),
    _copy("split_copy", lambda lib, x: lib.split_copy(x, 3, 1)),
    _copy("split_with_sizes_copy", lambda lib, x: lib.split_with_sizes_copy(x, [1, 3], 1)),
    _copy("unbind_copy", lambda lib, x: lib.unbind_copy(x, 1)),
    _copy("diagonal_copy", lambda lib, x: lib.diagonal_copy(x, 1, 0, 2), _cube),
    _copy("alias_copy", lambda lib, x: lib.alias_copy(x)),
    _copy("unfold_copy", lambda lib, x: lib.unfold_copy(x, 1, 2, 1)),
    _copy("narrow_copy", lambda lib, x: lib.narrow_copy(x, 1, 1, 2)),
    _copy("as_strided_copy", lambda lib, x: lib.as_strided_copy(x.contiguous(), (2, 2), (1, 2), 1),
          noncontiguous=False),
    OpInfo("gradient", lambda lib, x, **kw: lib.gradient(x, **kw), _gradient_samples,
           dtypes=("float32", "float64", "int64")),
    OpInfo("gradient (coordinates)",
           lambda lib, x, c0, c1, order: lib.gradient(x, spacing=[c0, c1], edge_order=order),
           _gradient_coordinates),
    OpInfo("unravel_index", lambda lib, i, shape: lib.unravel_index(i, shape), _unravel_samples,
           dtypes=("int64",), differentiable=False),
    OpInfo("nonzero_static", lambda lib, x, **kw: lib.nonzero_static(x, **kw), _nonzero_samples,
           dtypes=ALL_DTYPES, differentiable=False),
    OpInfo("Tensor.nonzero_static", lambda lib, x, **kw: x.nonzero_static(**kw), _nonzero_samples,
           differentiable=False),
]
