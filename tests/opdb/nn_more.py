"""Catalog entries for the nn11 layers: sliding blocks, pixel and channel shuffles, unpooling,
grid sampling and the margin losses (nn.functional)."""
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
