"""Sums and means along dims, bit for bit as PyTorch's CPU kernel rounds them.

NumPy sums the contiguous axis pairwise and other axes row by row; PyTorch's cascade
(ops/_dim_sum.py explains it) differs from both, so `x.sum(0)` or a bias gradient
summed over a batch differed from torch in the last bit for most elements (220 of 256
columns of a (256, 256) float32 sum(0)). Every comparison here is exact.
"""
import itertools

import numpy as np
import pytest

import ember

SHAPES = [(5, 7), (16, 9), (33, 40), (64, 100), (300, 10), (7, 300), (65, 3), (3, 65),
          (2, 17, 33), (8, 16, 8, 8), (4, 3, 9, 9), (2, 3, 4, 5, 6), (9, 1, 7), (1, 100),
          (128, 100), (40, 1000), (1000, 40), (400, 100), (340, 97), (4, 100, 98)]


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3, shape)).astype(dtype)


@pytest.fixture(params=[1, 2, 16])
def threads(request, torch):
    """Both libraries on the same intra-op thread count (it moves PyTorch's column split)."""
    old = (ember.get_num_threads(), torch.get_num_threads())
    ember.set_num_threads(request.param)
    torch.set_num_threads(request.param)
    yield request.param
    ember.set_num_threads(old[0])
    torch.set_num_threads(old[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_over_every_set_of_dims_matches_torch(torch, threads, dtype):
    for shape in SHAPES:
        array = _values(shape, dtype)
        for count in range(1, len(shape) + 1):
            for dims in itertools.combinations(range(len(shape)), count):
                got = ember.tensor(array).sum(dims).numpy()
                expected = torch.tensor(array).sum(dims).numpy()
                assert got.shape == expected.shape, (shape, dims)
                assert got.tobytes() == expected.tobytes(), (shape, dims, dtype)


@pytest.mark.parametrize("shape, dim", [((256, 256), 0), ((256, 256), 1), ((64, 65), -1),
                                        ((16, 64, 8, 8), (0, 2, 3)), ((3, 4, 5), (-1, 0))])
def test_mean_and_keepdim_match_torch(torch, shape, dim):
    array = _values(shape, np.float32, 1)
    for keepdim in (False, True):
        for op in ("sum", "mean"):
            got = getattr(ember.tensor(array), op)(dim, keepdim=keepdim).numpy()
            expected = getattr(torch.tensor(array), op)(dim, keepdim=keepdim).numpy()
            assert got.shape == expected.shape
            assert got.tobytes() == expected.tobytes(), (shape, dim, op, keepdim)


def test_broadcast_gradients_sum_as_torch(torch):
    """A bias gradient is the upstream gradient summed over the batch (sum_to_size)."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 40)).astype(np.float32)
    b = rng.standard_normal((1, 40)).astype(np.float32)
    c = rng.standard_normal(40).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        tb, tc = lib.tensor(b, requires_grad=True), lib.tensor(c, requires_grad=True)
        ((lib.tensor(x) + tb + tc) ** 2).backward(lib.tensor(x))
        grads.append((tb.grad.numpy(), tc.grad.numpy()))
    for got, expected in zip(*grads):
        assert got.tobytes() == expected.tobytes()


def test_linear_bias_gradient_matches_torch(torch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((256, 30)).astype(np.float32)
    w = rng.standard_normal((20, 30)).astype(np.float32)
    b = rng.standard_normal(20).astype(np.float32)
    g = rng.standard_normal((256, 20)).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        tb = lib.tensor(b, requires_grad=True)
        lib.nn.functional.linear(lib.tensor(x), lib.tensor(w), tb).backward(lib.tensor(g))
        grads.append(tb.grad.numpy())
    assert grads[0].tobytes() == grads[1].tobytes()


def test_signed_zero_and_special_values_as_torch(torch):
    """The output starts from +0.0: a sum over a dim of size 1 turns -0.0 into 0.0."""
    array = np.array([[-0.0, 1.0], [-0.0, -2.0]], np.float32)
    for dim in (0, 1):
        got = ember.tensor(array[:1]).sum(dim).numpy()
        expected = torch.tensor(array[:1]).sum(dim).numpy()
        assert got.tobytes() == expected.tobytes()
    special = np.array([[np.inf, 1.0, np.nan], [-np.inf, 2.0, 3.0]] * 20, np.float32)
    for dim in (0, 1):
        got = ember.tensor(special).sum(dim).numpy()
        expected = torch.tensor(special).sum(dim).numpy()
        np.testing.assert_array_equal(got, expected)


def test_permuted_inputs_match_torch(torch):
    """A transposed (dense) input is walked in memory order, as PyTorch's iterator walks it."""
    array = _values((6, 50, 70), np.float32, 4)
    for perm in ((0, 2, 1), (2, 1, 0), (1, 0, 2)):
        for dims in ((0,), (1,), (2,), (0, 1), (1, 2), (0, 2)):
            got = ember.tensor(array).permute(perm).sum(dims).numpy()
            expected = torch.tensor(array).permute(perm).sum(dims).numpy()
            assert got.shape == expected.shape
            assert got.tobytes() == expected.tobytes(), (perm, dims)


def test_sliced_inputs_match_torch(torch):
    """Gaps between elements change which of the kernel's loops runs; they are followed."""
    array = _values((40, 70), np.float64, 4)
    for index in ((slice(None), slice(None, None, 2)), (slice(None, None, 3),),
                  (slice(1, None), slice(2, -1))):
        for dim in (0, 1, (0, 1)):
            got = ember.tensor(array)[index].sum(dim).numpy()
            expected = torch.tensor(array)[index].sum(dim).numpy()
            assert got.tobytes() == expected.tobytes(), (index, dim)


def test_large_and_broadcast_inputs_keep_numpy_sums(torch):
    """Past 65,536 elements, and for expanded (stride 0) inputs, NumPy sums (a few ulps)."""
    big = _values((300, 300), np.float32, 5)
    np.testing.assert_allclose(ember.tensor(big).sum(1).numpy(), torch.tensor(big).sum(1).numpy(),
                               rtol=1e-5, atol=1e-3)
    row = _values((1, 50), np.float32, 6)
    got = ember.tensor(row).expand(40, 50).sum(0).numpy()
    expected = torch.tensor(row).expand(40, 50).sum(0).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-4)
