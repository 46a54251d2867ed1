"""Catalog entries for ember/ops/pointwise.py."""
from . import ALL_DTYPES, OpInfo, Sample, random_array


def unary_samples(low=-3.0, high=3.0):
    def samples(rng, dtype):
        for shape in [(), (4,), (2, 3), (0,), (2, 0, 3)]:
            yield Sample((random_array(rng, shape, dtype, low, high),), name=str(shape))
    return samples


def binary_samples(rng, dtype):
    for a, b in [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), ()),
                 ((), (2, 2)), ((0, 3), (3,))]:
        yield Sample((random_array(rng, a, dtype), random_array(rng, b, dtype)),
                     name=f"{a}x{b}")
    yield Sample((random_array(rng, (2, 3), dtype), 2), name="python int")
    yield Sample((random_array(rng, (2, 3), dtype), 2.5), name="python float")


OPS = [
    OpInfo("add", lambda lib, x, y: lib.add(x, y), binary_samples, dtypes=ALL_DTYPES),
    OpInfo("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2), binary_samples),
    OpInfo("mul", lambda lib, x, y: x * y, binary_samples, dtypes=ALL_DTYPES),
    OpInfo("exp", lambda lib, x: lib.exp(x), unary_samples()),
]
