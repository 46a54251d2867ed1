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
