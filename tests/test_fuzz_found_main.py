"""Fuzzer findings fixed while merging the four slices' work (see tests/test_fuzz.py)."""
import numpy as np
import pytest

import ember
from oracle import assert_same_outcome


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_bins_in_the_inputs_precision(torch, dtype):
    """histc puts x in bin trunc((x - min) * bins / (max - min)) computed in the input's
    dtype: float32 -1.179 over [-2.179, -0.179] lands in bin 49, not the exact 50."""
    rng = np.random.default_rng(0)
    for trial in range(60):
        values = rng.standard_normal(int(rng.integers(0, 40))) * rng.choice([1, 3, 100])
        low, high = sorted(rng.standard_normal(2) * 2) if trial % 3 else (0.0, 0.0)
        bins = int(rng.integers(1, 120))
        assert_same_outcome(lambda lib: lib.histc(
            lib.tensor(values).to(getattr(lib, dtype)), bins=bins, min=float(low),
            max=float(high)))
    assert_same_outcome(lambda lib: lib.histc(lib.tensor(-1.179), min=1.0, max=1.0))


@pytest.mark.parametrize("shape, chunks, dim", [((0,), 1, 0), ((0,), 3, 0), ((2, 0), 2, 1),
                                                ((2, 0), 2, 0), ((4,), 2, 0)])
def test_unsafe_chunk_of_an_empty_dim_names_split_with_sizes(torch, shape, chunks, dim):
    names = [[t.grad_fn.name() for t in lib.unsafe_chunk(
        lib.zeros(shape, dtype=lib.float64, requires_grad=True), chunks, dim)]
        for lib in (torch, ember)]
    assert names[0] == names[1]


@pytest.mark.parametrize("call", [
    "L.avg_pool1d(L.ones(1, 1, 3), 1, 0)",          # a given stride 0 was read as "not given"
    "L.avg_pool1d(L.ones(1, 1, 3), 1)",
    "L.avg_pool1d(L.ones(1, 1, 3), 1, [])",
    "L.searchsorted(L.tensor([False, True]), True)",  # bool with bool has no kernel
    "L.searchsorted(L.tensor([False, True]), L.tensor([True]))",
    "L.searchsorted(L.tensor([False, True]), L.tensor([1.0]))",
    "L.searchsorted(L.tensor([0, 1]), L.tensor([True]))",
    "L.tensor(1.5).random_(to=None)",                # a lone to=None is refused
    "L.tensor(1.5).random_(1, to=None)",
    "L.tensor(1.5).random_(1, None)",
    "L.tensor(1.5).random_(to=3)",
])
def test_refusals_and_defaults_as_torch(torch, call):
    def run(L):
        L.manual_seed(0)
        return eval(call, {"L": L})
    assert_same_outcome(run)


@pytest.mark.parametrize("call", [
    "L.cholesky_inverse(L.tensor([[0.0]]))",
    "L.cholesky_inverse(L.zeros(2, 2, 2))",
    "L.cholesky_inverse(L.tensor([[[1.0, 0], [0, 1]], [[2.0, 0], [1, 0]]]))",
    "L.cholesky_inverse(L.tensor([[[[float('nan')]], [[0.0]], [[-1.0]]]], dtype=L.float64))",
])
def test_cholesky_inverse_refuses_a_zero_diagonal(torch, call):
    """A zero on the factor's diagonal: PyTorch's LinAlgError naming the batch element and
    the diagonal element, where solving gave inf."""
    errors = []
    for lib in (torch, ember):
        with pytest.raises(lib.linalg.LinAlgError) as info:
            eval(call, {"L": lib})
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_cholesky_inverse_of_a_nan_factor_still_computes(torch):
    assert_same_outcome(lambda L: L.cholesky_inverse(L.tensor([[float("nan")]])))
