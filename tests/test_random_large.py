"""Large draws against PyTorch: the float32 normal kernel's rewritten arithmetic (contiguous
halves, float64 fused steps) checked bit for bit on millions of inputs, at sizes around the
16-value blocks and the kernel's chunk and thread boundaries, with and without mean and std.
float64 blocks of 16 go through NumPy's log, cos and sin, which differ from the C library's
in the last bits for about one value in a thousand (see ember/_random.py): those compare
within a few units in the last place, and everything after them bit for bit."""
import numpy as np
import pytest

import ember
from ember import _random_kernels

BLOCK_ROWS = _random_kernels._CHUNK        # rows of 16 per kernel pass / worker task
SIZES = [15, 16, 17, 31, 33, 16 * 62 + 7, 16 * BLOCK_ROWS - 1, 16 * BLOCK_ROWS,
         16 * BLOCK_ROWS + 1, 16 * BLOCK_ROWS + 16, 16 * 3 * BLOCK_ROWS + 9]


def _bits(t):
    a = t.numpy()
    return a if a.dtype == np.float64 else a.view(np.int16 if a.itemsize == 2 else np.int32)


def _same(torch, fn, seed):
    """fn(lib) gives the same bits from the same seed, and the next draws agree too."""
    results = []
    for lib in (ember, torch):
        lib.manual_seed(seed)
        out = fn(lib)
        results.append([_bits(t) for t in (out if isinstance(out, tuple) else (out,))]
                       + [_bits(lib.randn(20)), _bits(lib.rand(3))])
    for got, expected in zip(*results):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        if got.dtype == np.float64:
            np.testing.assert_allclose(got, expected, rtol=1e-15, atol=1e-14)
            continue
        mismatched = np.flatnonzero(got.ravel() != expected.ravel())
        assert not len(mismatched), f"{len(mismatched)} values differ, first at {mismatched[:5]}"


def test_two_million_float_normals_match_torch(torch):
    """2**21 + 5 float32 normals: 2**22 inputs to each half of the kernel (log, sincos),
    a quarter of all 2**24 possible ones, then the ragged end."""
    _same(torch, lambda lib: lib.randn(2 ** 21 + 5), 0)


def test_million_normals_with_mean_and_std_match_torch(torch):
    """normal_ with mean and std: the kernel's final fused multiply-add, float and double."""
    _same(torch, lambda lib: (lib.empty(2 ** 20 + 3).normal_(0.25, 3.5),
                              lib.empty(2 ** 20 + 3, dtype=lib.float64).normal_(-2.0, 0.125)), 5)


def test_million_double_normals_match_torch(torch):
    _same(torch, lambda lib: lib.randn(2 ** 20, dtype=lib.float64), 9)


@pytest.mark.parametrize("n", SIZES)
def test_normals_at_block_and_chunk_boundaries_match_torch(torch, n):
    _same(torch, lambda lib: (lib.randn(n), lib.empty(n).normal_(1.5, 0.5),
                              lib.randn(n, dtype=lib.float16)), n)


# ---------------------------------------------------------------- small draws in a run
# From the second small normal call in a row, ember computes normals ahead and puts the
# generator back when anything else draws or reads the state: every way out of a run
# must leave it where PyTorch's stands.
def _run_then(lib, count, then):
    draws = [lib.randn(8) for _ in range(count)]
    draws += [lib.randn(3), lib.randn(1, dtype=lib.float64), lib.empty(5).normal_()]
    return tuple(draws) + (then(lib),)


ENDINGS = {
    "state": lambda lib: lib.get_rng_state(),
    "rand": lambda lib: lib.rand(5),
    "rand_double": lambda lib: lib.rand(3, dtype=lib.float64),
    "big_randn": lambda lib: lib.randn(1000),
    "randn_odd": lambda lib: lib.randn(7, dtype=lib.float64),
    "normal_mean_std": lambda lib: lib.normal(1.0, 2.0, (9,), dtype=lib.float64),
    "strided_normal_many": lambda lib: lib.empty(20, 15).t().normal_(0.5, 2.0),
    "randint": lambda lib: lib.randint(0, 100, (6,)),
    "poisson": lambda lib: lib.poisson(lib.full((4,), 30.0)),
    "strided_normal_": lambda lib: lib.empty(4, 5).t().normal_(),
    "uniform_": lambda lib: lib.empty(6).uniform_(),
}


@pytest.mark.parametrize("count", [1, 2, 3, 40, 300])
@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_runs_of_small_normals_leave_torch_state(torch, count, ending):
    results = []
    for lib in (ember, torch):
        lib.manual_seed(count)
        out = _run_then(lib, count, ENDINGS[ending])
        results.append([t.numpy() for t in out] + [lib.get_rng_state().numpy(),
                                                    lib.randn(5, dtype=lib.float64).numpy()])
    for got, expected in zip(*results):
        np.testing.assert_array_equal(got, expected)


def test_small_draws_with_own_generator_and_reseeding(torch):
    """A run on one generator, a seed in the middle, a state restored mid-run."""
    results = []
    for lib in (ember, torch):
        g = lib.Generator().manual_seed(3)
        first = [lib.randn(4, generator=g) for _ in range(5)]
        state = g.get_state()
        middle = [lib.randn(9, generator=g) for _ in range(4)]
        g.set_state(state)
        again = [lib.randn(9, generator=g) for _ in range(4)]
        lib.manual_seed(8)
        x = [lib.randn(2) for _ in range(6)]
        lib.manual_seed(8)
        y = [lib.randn(2) for _ in range(3)] + [lib.rand(4), lib.randn(8)]
        results.append([t.numpy() for t in first + middle + again + x + y])
    for got, expected in zip(*results):
        np.testing.assert_array_equal(got, expected)
