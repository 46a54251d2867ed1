"""Catalog entries for the nn11 layers: sliding blocks, pixel and channel shuffles, unpooling,
grid sampling and the margin losses (nn.functional)."""
import numpy as np

from . import OpInfo, Sample, random_array


def _f(name, **kwargs):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k, **kwargs)


def unfold_samples(rng, dtype):
    x = random_array(rng, (2, 2, 3, 4), dtype)
    yield Sample((x, 2), name="plain")
    yield Sample((x, (2, 3)), {"padding": 1, "stride": (2, 1), "dilation": (1, 2)},
                 name="all-arguments")
    yield Sample((x[0], 2), name="unbatched")


def fold_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 8, 6), dtype), (3, 4), 2), name="plain")
    yield Sample((random_array(rng, (2, 12, 9), dtype), (4, 5), (2, 3)),
                 {"padding": 1, "stride": (2, 1), "dilation": (1, 2)}, name="all-arguments")
    yield Sample((random_array(rng, (8, 6), dtype), (3, 4), 2), name="unbatched")


def shuffle_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 8, 2, 3), dtype), 2), name="batched")
    yield Sample((random_array(rng, (9, 2, 1), dtype), 3), name="unbatched")
    yield Sample((random_array(rng, (2, 1, 4, 2, 3), dtype), 2), name="two-batch-dims")


def unshuffle_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 2, 4, 6), dtype), 2), name="batched")
    yield Sample((random_array(rng, (1, 3, 3), dtype), 3), name="unbatched")


def channel_shuffle_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 6, 2, 2), dtype), 3), name="2d")
    yield Sample((random_array(rng, (2, 4, 3), dtype), 2), name="1d")


OPS = [
    OpInfo("unfold", _f("unfold"), unfold_samples, dtypes=("float16", "float32", "float64")),
    OpInfo("fold", _f("fold"), fold_samples, dtypes=("float32", "float64")),
    OpInfo("pixel_shuffle", _f("pixel_shuffle"), shuffle_samples,
           dtypes=("bool", "int64", "float32", "float64")),
    OpInfo("pixel_unshuffle", _f("pixel_unshuffle"), unshuffle_samples,
           dtypes=("int64", "float32", "float64")),
    OpInfo("channel_shuffle", _f("channel_shuffle"), channel_shuffle_samples,
           dtypes=("int64", "float32", "float64")),
]


# ---------------------------------------------------------------- losses
REDUCTIONS = ("mean", "sum", "none")


def _signs(rng, shape):
    return np.where(rng.uniform(size=shape) < 0.5, -1.0, 1.0)


def soft_margin_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (3, 4), dtype), _signs(rng, (3, 4)).tolist()),
                     {"reduction": reduction}, name=reduction)
    yield Sample((random_array(rng, (3, 4), dtype), _signs(rng, (4,)).tolist()),
                 name="broadcast-target")


def _soft_margin(lib, input, target, **kwargs):
    """The target is built here: PyTorch's kernel refuses a target that requires grad."""
    return lib.nn.functional.soft_margin_loss(input, lib.tensor(target, dtype=input.dtype),
                                              **kwargs)


def multi_margin_samples(rng, dtype):
    target = rng.integers(0, 4, size=3)
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (3, 4), dtype), target), {"reduction": reduction},
                     name=reduction)
        yield Sample((random_array(rng, (3, 4), dtype), target),
                     {"reduction": reduction, "p": 2, "margin": 0.7}, name=f"p2 {reduction}")
    yield Sample((random_array(rng, (3, 4), dtype), target),
                 {"weight": rng.uniform(0.5, 2, size=4).tolist()}, name="weight")
    yield Sample((random_array(rng, (4,), dtype), np.array(1)), {"reduction": "none"},
                 name="unbatched")


def _multi_margin(lib, input, target, weight=None, **kwargs):
    if weight is not None:   # a constant: PyTorch has no gradient for the weight
        weight = lib.tensor(weight, dtype=input.dtype)
    return lib.nn.functional.multi_margin_loss(input, target, weight=weight, **kwargs)


def multilabel_margin_samples(rng, dtype):
    target = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 2, 0, 0], [2, 2, -1, 0]])
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (4, 4), dtype), target), {"reduction": reduction},
                     name=reduction)
    yield Sample((random_array(rng, (4,), dtype), target[0]), {"reduction": "none"},
                 name="unbatched")


def multilabel_soft_margin_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (3, 4), dtype),
                      rng.uniform(0, 1, size=(3, 4)).astype(dtype)), {"reduction": reduction},
                     name=reduction)
    yield Sample((random_array(rng, (3, 4), dtype), rng.uniform(0, 1, size=(3, 4)).astype(dtype),
                  random_array(rng, (4,), dtype, 0.5, 2.0)), name="weight")


def hinge_embedding_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (3, 4), dtype), _signs(rng, (3, 4)).astype(dtype)),
                     {"reduction": reduction, "margin": 0.5}, name=reduction)


def margin_ranking_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (5,), dtype), random_array(rng, (5,), dtype),
                      _signs(rng, (5,)).astype(dtype)), {"reduction": reduction, "margin": 0.3},
                     name=reduction)


def cosine_embedding_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (4, 3), dtype), random_array(rng, (4, 3), dtype),
                      _signs(rng, (4,)).astype(dtype)), {"reduction": reduction, "margin": 0.1},
                     name=reduction)
    yield Sample((random_array(rng, (3,), dtype), random_array(rng, (3,), dtype),
                  np.array(-1.0, dtype=dtype)), name="unbatched")


def triplet_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample(tuple(random_array(rng, (4, 3), dtype) for _ in range(3)),
                     {"reduction": reduction, "margin": 2.0}, name=reduction)
    yield Sample(tuple(random_array(rng, (4, 3), dtype) for _ in range(3)),
                 {"swap": True, "margin": 3.0}, name="swap")


def triplet_p_samples(rng, dtype):
    yield from triplet_samples(rng, dtype)
    yield Sample(tuple(random_array(rng, (4, 3), dtype) for _ in range(3)),
                 {"p": 1, "eps": 1e-3, "margin": 2.0}, name="p1")


def poisson_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (3, 4), dtype), rng.uniform(0, 3, (3, 4)).astype(dtype)),
                     {"reduction": reduction}, name=reduction)
    yield Sample((rng.uniform(0.5, 2, (3, 4)).astype(dtype),
                  rng.uniform(0.5, 4, (3, 4)).astype(dtype)),
                 {"log_input": False, "full": True}, name="full")


def gaussian_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (3, 4), dtype), random_array(rng, (3, 4), dtype),
                      rng.uniform(0.5, 2, (3, 4)).astype(dtype)), {"reduction": reduction},
                     name=reduction)
    yield Sample((random_array(rng, (3, 4), dtype), random_array(rng, (3, 4), dtype),
                  rng.uniform(0.5, 2, (3,)).astype(dtype)), {"full": True}, name="homoscedastic")
    yield Sample((random_array(rng, (3, 4), dtype), random_array(rng, (3, 4), dtype),
                  rng.uniform(0.5, 2, (3, 1)).astype(dtype)), name="one-column")


OPS += [
    OpInfo("soft_margin_loss", _soft_margin, soft_margin_samples),
    OpInfo("multi_margin_loss", _multi_margin, multi_margin_samples),
    OpInfo("multilabel_margin_loss", _f("multilabel_margin_loss"), multilabel_margin_samples),
    OpInfo("multilabel_soft_margin_loss", _f("multilabel_soft_margin_loss"),
           multilabel_soft_margin_samples),
    OpInfo("hinge_embedding_loss", _f("hinge_embedding_loss"), hinge_embedding_samples),
    OpInfo("margin_ranking_loss", _f("margin_ranking_loss"), margin_ranking_samples),
    OpInfo("cosine_embedding_loss", _f("cosine_embedding_loss"), cosine_embedding_samples),
    OpInfo("triplet_margin_loss", _f("triplet_margin_loss"), triplet_p_samples),
    OpInfo("triplet_margin_with_distance_loss",
           lambda lib, a, p, n, **k: lib.nn.functional.triplet_margin_with_distance_loss(
               a, p, n, **k), triplet_samples),
    OpInfo("poisson_nll_loss", _f("poisson_nll_loss"), poisson_samples),
    OpInfo("gaussian_nll_loss", _f("gaussian_nll_loss"), gaussian_samples),
]


# ---------------------------------------------------------------- max_unpool
def _pool_indices(rng, lead, pooled, kernel, size):
    """Flat per-plane indices as max pooling (stride = kernel) would return them."""
    flat = np.zeros(lead + pooled, dtype=np.int64)
    for d, (p, k, s) in enumerate(zip(pooled, kernel, size)):
        shape = (1,) * (len(lead) + d) + (p,) + (1,) * (len(pooled) - d - 1)
        coordinate = np.arange(p).reshape(shape) * k + rng.integers(0, k, size=lead + pooled)
        flat = flat * s + coordinate
    return flat


def unpool1d_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 3, 3), dtype), _pool_indices(rng, (2, 3), (3,), (2,),
                                                                     (6,)), 2), name="batched")
    yield Sample((random_array(rng, (3, 3), dtype), _pool_indices(rng, (3,), (3,), (2,), (7,)),
                  2), {"output_size": (7,)}, name="output-size")


def unpool2d_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 2, 2, 3), dtype),
                  _pool_indices(rng, (2, 2), (2, 3), (2, 2), (4, 6)), 2), name="batched")
    yield Sample((random_array(rng, (2, 2, 3), dtype),
                  _pool_indices(rng, (2,), (2, 3), (2, 2), (5, 7)), 2),
                 {"output_size": (1, 2, 5, 7)}, name="unbatched-output-size")


def unpool3d_samples(rng, dtype):
    yield Sample((random_array(rng, (1, 2, 2, 1, 2), dtype),
                  _pool_indices(rng, (1, 2), (2, 1, 2), (2, 2, 1), (4, 2, 2)), (2, 2, 1)),
                 name="batched")


OPS += [
    OpInfo("max_unpool1d", _f("max_unpool1d"), unpool1d_samples),
    OpInfo("max_unpool2d", _f("max_unpool2d"), unpool2d_samples),
    OpInfo("max_unpool3d", _f("max_unpool3d"), unpool3d_samples),
]


# ---------------------------------------------------------------- spatial transformers
def grid_sample_samples(rng, dtype):
    x = random_array(rng, (2, 2, 3, 4), dtype)
    grid = rng.uniform(-1.2, 1.2, (2, 2, 3, 2)).astype(dtype)
    for mode in ("bilinear", "nearest"):
        for padding_mode in ("zeros", "border", "reflection"):
            for align_corners in (False, True):
                yield Sample((x, grid), {"mode": mode, "padding_mode": padding_mode,
                                         "align_corners": align_corners},
                             name=f"{mode} {padding_mode} {align_corners}")


def affine_grid_samples(rng, dtype):
    for align_corners in (False, True):
        yield Sample((random_array(rng, (2, 2, 3), dtype), (2, 3, 4, 5)),
                     {"align_corners": align_corners}, name=f"2d {align_corners}")
        yield Sample((random_array(rng, (1, 3, 4), dtype), (1, 2, 2, 3, 4)),
                     {"align_corners": align_corners}, name=f"3d {align_corners}")


OPS += [
    OpInfo("grid_sample", _f("grid_sample"), grid_sample_samples),
    OpInfo("affine_grid", _f("affine_grid"), affine_grid_samples),
]
