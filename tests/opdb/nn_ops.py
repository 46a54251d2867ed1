"""Catalog entries for ember/ops/nn_ops.py."""
from . import OpInfo, Sample, random_array

SOFTMAX_CASES = [((2, 3), 1), ((2, 3), 0), ((2, 3), -1), ((4,), 0), ((), 0), ((), -1),
                 ((2, 3, 2), 1), ((0, 3), 1), ((2, 0), 1), ((1, 3), 0)]


def _softmax_samples(rng, dtype):
    for shape, dim in SOFTMAX_CASES:
        yield Sample((random_array(rng, shape, dtype), dim), name=f"{shape} dim={dim}")


def _large_samples(rng, dtype):
    """Values far beyond exp's range: only a max-shifted formula stays finite."""
    yield Sample((random_array(rng, (2, 4), dtype, -1000.0, 1000.0), 1), name="large")


OPS = [
    OpInfo("softmax", lambda lib, x, dim: lib.softmax(x, dim), _softmax_samples),
    OpInfo("softmax_half", lambda lib, x, dim: lib.softmax(x, dim), _softmax_samples,
           dtypes=("float16",), differentiable=False, atol=1e-3, rtol=1e-2),
    OpInfo("Tensor.softmax", lambda lib, x, dim: x.softmax(dim), _softmax_samples),
    OpInfo("softmax_large", lambda lib, x, dim: lib.softmax(x, dim), _large_samples),
    OpInfo("softmax_dtype", lambda lib, x, dim: lib.softmax(x, dim, dtype=lib.float64),
           _softmax_samples, dtypes=("float32",)),
    OpInfo("log_softmax", lambda lib, x, dim: lib.log_softmax(x, dim), _softmax_samples),
    OpInfo("log_softmax_half", lambda lib, x, dim: lib.log_softmax(x, dim), _softmax_samples,
           dtypes=("float16",), differentiable=False, atol=1e-2, rtol=1e-2),
    OpInfo("Tensor.log_softmax", lambda lib, x, dim: x.log_softmax(dim), _softmax_samples),
    OpInfo("log_softmax_large", lambda lib, x, dim: lib.log_softmax(x, dim), _large_samples),
    OpInfo("log_softmax_dtype", lambda lib, x, dim: x.log_softmax(dim, lib.float64),
           _softmax_samples, dtypes=("float32",)),
]
