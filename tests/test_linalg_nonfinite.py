"""Decompositions given an inf, a NaN or a singular matrix: PyTorch's errors and its
inf/NaN results, never a hang and never finite numbers that solve nothing.

OpenBLAS's SVD driver never returns on some matrices holding an inf, so `linalg.svd`,
`pinv`, `matrix_rank`, `norm(A, 2)`, `cond`, `lstsq` and the low-rank helpers hung the
program; a NaN gave NumPy's bare 'SVD did not converge'. OpenBLAS's Cholesky also runs
through a NaN pivot that LAPACK's reference (and MKL, under PyTorch) stops at. The
non-raising `inv_ex` and `solve_ex` answered a singular matrix with the pseudo-inverse's
finite numbers, and slogdet's and solve_ex's backward raised where PyTorch's LU solve
gives inf.
"""
import subprocess
import sys

import pytest

import ember
from oracle import assert_same_outcome

SVD_USERS = {
    "svd": lambda lib, x: lib.linalg.svd(x),
    "svdvals": lambda lib, x: lib.linalg.svdvals(x),
    "torch.svd": lambda lib, x: lib.svd(x),
    "pinv": lambda lib, x: lib.linalg.pinv(x),
    "matrix_rank": lambda lib, x: lib.linalg.matrix_rank(x),
    "norm2": lambda lib, x: lib.linalg.norm(x, 2),
    "nuclear": lambda lib, x: lib.linalg.matrix_norm(x, "nuc"),
    "cond": lambda lib, x: lib.linalg.cond(x),
    "pca_lowrank": lambda lib, x: lib.pca_lowrank(x),
}
ROWS = [[float("nan"), 1.0, 2.0], [2.0, 3.0, 4.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@pytest.mark.parametrize("name", SVD_USERS)
def test_nan_gives_pytorchs_svd_error(torch, name):
    assert_same_outcome(lambda lib: SVD_USERS[name](lib, lib.tensor(ROWS, dtype=lib.float64)))


def test_a_batch_names_the_element_holding_the_nan(torch):
    for lib in (ember, torch):
        x = lib.ones(3, 4, 3)
        x[1, 0, 0] = float("nan")
        with pytest.raises(RuntimeError, match=r"^linalg\.svd: \(Batch element 1\): The "
                           "algorithm failed to converge because the input matrix contained "
                           "non-finite values.$"):
            lib.linalg.svdvals(x)


def test_inf_gives_nan_factors_instead_of_hanging(torch):
    """In a child process with a deadline: the regression this guards against hangs.
    PyTorch (MKL) mostly returns NaN factors for a matrix holding an inf; ember always
    does, for that batch element only."""
    script = ("import ember, math\n"
              "x = ember.ones(2, 4, 3, dtype=ember.float64)\n"
              "x[1, 0, 0] = float('inf')\n"
              "u, s, vh = ember.linalg.svd(x)\n"
              "assert all(t[1].isnan().all() for t in (u, s, vh))\n"
              "assert not any(t[0].isnan().any() for t in (u, s, vh))\n"
              "assert ember.linalg.pinv(x)[1].isnan().all()\n"
              "assert ember.linalg.lstsq(x, x[:, :, :1]).solution[1].isnan().all()\n"
              "print('nan')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "nan"
    rows = [[float("inf"), 1.0, 2.0], [2.0, 3.0, 4.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert_same_outcome(lambda lib: lib.linalg.svdvals(lib.tensor(rows, dtype=lib.float64)))


@pytest.mark.parametrize("position", [(0, 0), (1, 0), (2, 2), (2, 1)])
def test_cholesky_stops_at_a_nan_pivot(torch, position):
    def call(lib, ex=False):
        x = lib.eye(3, dtype=lib.float64) * 2
        x[position] = x[position[::-1]] = float("nan")
        return lib.linalg.cholesky_ex(x).info if ex else lib.linalg.cholesky(x)
    assert_same_outcome(call)
    assert call(ember, True).item() == call(torch, True).item()


def test_cholesky_of_a_batch_names_the_element_with_the_nan_pivot(torch):
    for lib in (ember, torch):
        x = lib.eye(3, dtype=lib.float64).repeat(3, 1, 1)
        x[2, 1, 1] = float("nan")
        with pytest.raises(RuntimeError, match=r"\(Batch element 2\): .*order 2 is not"):
            lib.linalg.cholesky(x)


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


def _singular(lib, requires_grad=False):
    return lib.tensor(SINGULAR, dtype=lib.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.inv_ex(_singular(lib)),
    lambda lib: lib.linalg.solve_ex(_singular(lib), lib.ones(2, 1, dtype=lib.float64)),
    lambda lib: lib.linalg.solve_ex(lib.stack([lib.eye(2, dtype=lib.float64), _singular(lib)]),
                                    lib.ones(2, 2, 1, dtype=lib.float64)),
    lambda lib: lib.linalg.slogdet(_singular(lib))[1],
], ids=["inv_ex", "solve_ex", "solve_ex_batch", "slogdet"])
def test_singular_matrices_give_pytorchs_infinities(torch, call):
    assert_same_outcome(call)


def test_gradients_through_a_singular_matrix_are_infinite_not_errors(torch):
    grads = []
    for lib in (ember, torch):
        a, b = _singular(lib, True), lib.ones(2, 1, dtype=lib.float64, requires_grad=True)
        lib.linalg.solve_ex(a, b).result.sum().backward()
        c = _singular(lib, True)
        lib.linalg.slogdet(c)[1].backward()
        grads.append([a.grad, b.grad, c.grad])
    for got, expected in zip(*grads):
        assert got.tolist() == expected.tolist()
