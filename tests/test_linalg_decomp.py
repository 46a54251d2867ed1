"""ember.linalg's LAPACK ops against torch: errors, LinAlgError, return types, infos of
failed factorizations, and the invariants of decompositions with a sign freedom.

Values, dtypes, gradients and gradchecks are in the catalog (tests/opdb/linalg_decomp.py).
"""
import math
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, ember_names, to_lib

RNG = np.random.default_rng(0)
SQUARE = RNG.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
WIDE = RNG.uniform(-1, 1, (2, 3))
INTS = np.ones((3, 3), dtype=np.int64)
HALF = np.eye(3, dtype=np.float16)
VECTOR = RNG.uniform(-1, 1, 3)


def _lib_args(lib, args):
    return [to_lib(lib, a) for a in args]


# (name, call(lib, *tensors), arrays): torch raises, ember raises the same type and text.
ERROR_CASES = [
    ("inv non-square", lambda lib, a: lib.linalg.inv(a), [WIDE]),
    ("inv int", lambda lib, a: lib.linalg.inv(a), [INTS]),
    ("inv 1-D", lambda lib, a: lib.linalg.inv(a), [VECTOR]),
    ("inv half", lambda lib, a: lib.linalg.inv(a), [HALF]),
    ("det non-square", lambda lib, a: lib.linalg.det(a), [WIDE]),
    ("det int", lambda lib, a: lib.linalg.det(a), [INTS]),
    ("det half", lambda lib, a: lib.linalg.det(a), [HALF]),
    ("slogdet int", lambda lib, a: lib.linalg.slogdet(a), [INTS]),
    ("slogdet half", lambda lib, a: lib.linalg.slogdet(a), [HALF]),
    ("logdet int", lambda lib, a: lib.logdet(a), [INTS]),
    ("solve non-square", lambda lib, a, b: lib.linalg.solve(a, b), [WIDE, VECTOR]),
    ("solve int", lambda lib, a: lib.linalg.solve(a, a), [INTS]),
    ("solve shapes", lambda lib, a, b: lib.linalg.solve(a, b), [SQUARE, VECTOR[:2]]),
    ("solve dtypes", lambda lib, a, b: lib.linalg.solve(a, b),
     [SQUARE.astype(np.float32), VECTOR]),
    ("solve_triangular 1-D B", lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True),
     [SQUARE, VECTOR]),
    ("solve_triangular int", lambda lib, a: lib.linalg.solve_triangular(a, a, upper=True), [INTS]),
    ("solve_triangular shapes", lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True),
     [SQUARE, np.ones((2, 2))]),
    ("solve_triangular right shapes",
     lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True, left=False),
     [SQUARE, np.ones((2, 2))]),
    ("cholesky int", lambda lib, a: lib.linalg.cholesky(a), [INTS]),
    ("cholesky half", lambda lib, a: lib.linalg.cholesky(a), [HALF]),
    ("cholesky non-square", lambda lib, a: lib.linalg.cholesky(a), [WIDE]),
    ("cholesky_solve 1-D", lambda lib, b, a: lib.cholesky_solve(b, a), [VECTOR, SQUARE]),
    ("qr int", lambda lib, a: lib.linalg.qr(a), [INTS]),
    ("qr half", lambda lib, a: lib.linalg.qr(a), [HALF]),
    ("qr mode", lambda lib, a: lib.linalg.qr(a, mode="x"), [WIDE]),
    ("qr 1-D", lambda lib, a: lib.linalg.qr(a), [VECTOR]),
    ("svd int", lambda lib, a: lib.linalg.svd(a), [INTS]),
    ("svd half", lambda lib, a: lib.linalg.svd(a), [HALF]),
    ("svd 1-D", lambda lib, a: lib.linalg.svd(a), [VECTOR]),
    ("svdvals int", lambda lib, a: lib.linalg.svdvals(a), [INTS]),
    ("eigh non-square", lambda lib, a: lib.linalg.eigh(a), [WIDE]),
    ("eigh UPLO", lambda lib, a: lib.linalg.eigh(a, UPLO="X"), [SQUARE]),
    ("eigh int", lambda lib, a: lib.linalg.eigh(a), [INTS]),
    ("eigvalsh int", lambda lib, a: lib.linalg.eigvalsh(a), [INTS]),
    ("matrix_power non-square", lambda lib, a: lib.linalg.matrix_power(a, 2), [WIDE]),
    ("matrix_power int inverse", lambda lib, a: lib.linalg.matrix_power(a, -1), [INTS]),
    ("matrix_exp int", lambda lib, a: lib.linalg.matrix_exp(a), [INTS]),
    ("matrix_exp non-square", lambda lib, a: lib.linalg.matrix_exp(a), [WIDE]),
    ("multi_dot one", lambda lib, a: lib.linalg.multi_dot([a]), [SQUARE]),
    ("multi_dot 3-D last", lambda lib, a, b: lib.linalg.multi_dot([a, b]),
     [SQUARE, np.ones((2, 3, 3))]),
    ("multi_dot 3-D middle", lambda lib, a, b: lib.linalg.multi_dot([a, b, a]),
     [SQUARE, np.ones((2, 3, 3))]),
    ("multi_dot dtypes", lambda lib, a, b: lib.linalg.multi_dot([a, b]), [SQUARE, INTS]),
    ("multi_dot shapes", lambda lib, a, b: lib.linalg.multi_dot([a, b]), [SQUARE, WIDE]),
    ("multi_dot vectors", lambda lib, a, b: lib.linalg.multi_dot([a, b]), [VECTOR, VECTOR[:2]]),
    ("lstsq int", lambda lib, a: lib.linalg.lstsq(a, a), [INTS]),
    ("lstsq driver", lambda lib, a: lib.linalg.lstsq(a, a, driver="gelsd2"), [SQUARE]),
    ("lstsq shapes", lambda lib, a, b: lib.linalg.lstsq(a, b), [SQUARE, WIDE]),
    ("pinv int", lambda lib, a: lib.linalg.pinv(a), [INTS]),
    ("matrix_rank int", lambda lib, a: lib.linalg.matrix_rank(a), [INTS]),
    ("cond int", lambda lib, a: lib.linalg.cond(a), [INTS]),
    ("cond fro non-square", lambda lib, a: lib.linalg.cond(a, "fro"), [WIDE]),
    ("cross length", lambda lib, a: lib.linalg.cross(a[:2], a[:2]), [VECTOR]),
    ("cross ranks", lambda lib, a, b: lib.linalg.cross(a, b), [WIDE[:, :3].reshape(2, 3)[:1],
                                                        VECTOR]),
    ("cross dtypes", lambda lib, a, b: lib.linalg.cross(a, b), [VECTOR.astype(np.float32),
                                                         VECTOR]),
    ("lu_factor int", lambda lib, a: lib.linalg.lu_factor(a), [INTS]),
    ("lu_factor no pivot", lambda lib, a: lib.linalg.lu_factor(a, pivot=False), [SQUARE]),
    ("lu_factor 1-D", lambda lib, a: lib.linalg.lu_factor(a), [VECTOR]),
    ("lu_factor singular", lambda lib, a: lib.linalg.lu_factor(a),
     [np.array([[1.0, 2.0], [2.0, 4.0]])]),
    ("lu_factor singular batch", lambda lib, a: lib.linalg.lu_factor(a), [np.zeros((2, 3, 3))]),
    ("matrix_norm 2 int", lambda lib, a: lib.linalg.matrix_norm(a, 2), [INTS]),
    ("eig int", lambda lib, a: lib.linalg.eig(a), [INTS]),
    ("eigvals int", lambda lib, a: lib.linalg.eigvals(a), [INTS]),
]


@pytest.mark.parametrize("name,call,arrays", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(name, call, arrays, torch):
    assert_same_error(lambda lib: call(lib, *_lib_args(lib, arrays)))


SINGULAR_BATCH = np.stack([np.eye(3), np.zeros((3, 3))])
NOT_PD = np.stack([np.eye(3), -np.eye(3)])

# LinAlgError cases: torch raises its torch.linalg.LinAlgError, ember its own (same text).
LINALG_ERROR_CASES = [
    ("inv singular", lambda lib, a: lib.linalg.inv(a), np.zeros((3, 3))),
    ("inv singular batch", lambda lib, a: lib.linalg.inv(a), SINGULAR_BATCH),
    ("inv pivot 2", lambda lib, a: lib.linalg.inv(a), np.array([[1.0, 2.0], [2.0, 4.0]])),
    ("inverse singular", lambda lib, a: lib.inverse(a), np.zeros((3, 3))),
    ("matrix_power singular", lambda lib, a: lib.linalg.matrix_power(a, -2), np.zeros((2, 2))),
    ("solve singular", lambda lib, a: lib.linalg.solve(a, a), np.zeros((3, 3))),
    ("solve singular batch", lambda lib, a: lib.linalg.solve(a, a[0]), SINGULAR_BATCH),
    ("cholesky not PD", lambda lib, a: lib.linalg.cholesky(a), -np.eye(3)),
    ("cholesky not PD batch", lambda lib, a: lib.linalg.cholesky(a), NOT_PD),
    ("cholesky minor 2", lambda lib, a: lib.linalg.cholesky(a), np.diag([1.0, -1.0, 1.0])),
]


@pytest.mark.parametrize("name,call,array", LINALG_ERROR_CASES,
                         ids=[c[0] for c in LINALG_ERROR_CASES])
def test_linalg_errors_match_torch(name, call, array, torch):
    with pytest.raises(torch.linalg.LinAlgError) as expected:
        call(torch, torch.tensor(array))
    with pytest.raises(ember.linalg.LinAlgError) as got:
        call(ember, ember.tensor(array))
    assert str(got.value) == ember_names(str(expected.value))
    assert isinstance(got.value, RuntimeError)


def test_ex_variants_report_info_instead_of_raising(torch):
    cases = [(lambda lib, a: lib.linalg.inv_ex(a).info, SINGULAR_BATCH),
             (lambda lib, a: lib.linalg.cholesky_ex(a).info, NOT_PD),
             (lambda lib, a: lib.linalg.cholesky_ex(a).info, np.diag([1.0, -1.0, 1.0])),
             (lambda lib, a: lib.linalg.solve_ex(a, a).info, SINGULAR_BATCH),
             (lambda lib, a: lib.linalg.lu_factor_ex(a).info, SINGULAR_BATCH)]
    for call, array in cases:
        assert_same(call(ember, ember.tensor(array)), call(torch, torch.tensor(array)))


RETURN_TYPES = [
    (lambda lib, a: lib.linalg.inv_ex(a), "linalg_inv_ex"),
    (lambda lib, a: lib.linalg.slogdet(a), "linalg_slogdet"),
    (lambda lib, a: lib.slogdet(a), "slogdet"),
    (lambda lib, a: lib.linalg.solve_ex(a, a), "linalg_solve_ex"),
    (lambda lib, a: lib.linalg.cholesky_ex(a @ a.mT), "linalg_cholesky_ex"),
    (lambda lib, a: lib.linalg.qr(a), "linalg_qr"),
    (lambda lib, a: lib.qr(a), "qr"),
    (lambda lib, a: lib.linalg.svd(a), "linalg_svd"),
    (lambda lib, a: lib.svd(a), "svd"),
    (lambda lib, a: lib.linalg.eigh(a), "linalg_eigh"),
    (lambda lib, a: lib.linalg.lstsq(a, a), "linalg_lstsq"),
    (lambda lib, a: lib.linalg.lu_factor(a), "linalg_lu_factor"),
    (lambda lib, a: lib.linalg.lu_factor_ex(a), "linalg_lu_factor_ex"),
    (lambda lib, a: lib.linalg.lu(a), "linalg_lu"),
    (lambda lib, a: lib.lu_unpack(*lib.linalg.lu_factor(a)), "lu_unpack"),
    (lambda lib, a: lib.triangular_solve(a, a), "triangular_solve"),
]


@pytest.mark.parametrize("call,name", RETURN_TYPES, ids=[r[1] for r in RETURN_TYPES])
def test_return_types(call, name, torch):
    expected = call(torch, torch.tensor(SQUARE))
    got = call(ember, ember.tensor(SQUARE))
    assert type(got).__name__ == type(expected).__name__ == name
    assert got._fields == expected._fields if hasattr(expected, "_fields") else True
    assert type(got) is getattr(ember.return_types, name)
    assert repr(got).startswith(f"ember.return_types.{name}(\n")


def test_eig_refuses_with_a_clear_reason():
    for function in (ember.linalg.eig, ember.linalg.eigvals):
        with pytest.raises(NotImplementedError, match="no complex dtypes"):
            function(ember.tensor(SQUARE))


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_reconstructs_and_is_orthonormal(shape, full_matrices):
    A = RNG.uniform(-1, 1, shape)
    U, S, Vh = ember.linalg.svd(ember.tensor(A), full_matrices=full_matrices)
    k = min(shape[-2:])
    rebuilt = (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    np.testing.assert_allclose(rebuilt.numpy(), A, atol=1e-13)
    eye_u = U.mT @ U
    np.testing.assert_allclose(eye_u.numpy(), np.broadcast_to(np.eye(U.shape[-1]),
                                                              eye_u.shape), atol=1e-13)
    assert (np.diff(S.numpy(), axis=-1) <= 0).all()


def test_eigh_reconstructs_with_ascending_values():
    A = RNG.uniform(-1, 1, (2, 4, 4))
    A = A + A.swapaxes(-1, -2)
    L, V = ember.linalg.eigh(ember.tensor(A))
    rebuilt = (V * L.unsqueeze(-2)) @ V.mT
    np.testing.assert_allclose(rebuilt.numpy(), A, atol=1e-13)
    assert (np.diff(L.numpy(), axis=-1) >= 0).all()


def test_svd_gauge_invariant_gradient_matches_torch(torch):
    """A loss that ignores the column signs (U diag(S) Vh) has torch's gradient."""
    A = RNG.uniform(-1, 1, (4, 3))
    grads = []
    for lib in (torch, ember):
        x = lib.tensor(A, requires_grad=True)
        U, S, Vh = lib.linalg.svd(x, full_matrices=False)
        ((U * S.unsqueeze(-2)) @ Vh).pow(2).sum().backward()
        grads.append(x.grad)
    assert_same(grads[1], grads[0], atol=1e-12, rtol=1e-10)


def test_qr_backward_refusals(torch):
    for mode, shape in (("r", (3, 3)), ("complete", (4, 3))):
        def call(lib):
            x = lib.tensor(RNG.uniform(-1, 1, shape), requires_grad=True)
            Q, R = lib.linalg.qr(x, mode=mode)
            R.sum().backward()
        assert_same_error(call)


def test_matrix_rank_and_pinv_tolerances(torch):
    low = RNG.uniform(-1, 1, (5, 2)) @ RNG.uniform(-1, 1, (2, 4))
    for kwargs in ({}, {"atol": 1e-3}, {"rtol": 0.5}, {"atol": 0.0, "rtol": 0.0}):
        assert_same(ember.linalg.matrix_rank(ember.tensor(low), **kwargs),
                    torch.linalg.matrix_rank(torch.tensor(low), **kwargs))
        assert_same(ember.linalg.pinv(ember.tensor(low), **{**kwargs, "atol": 1e-8}),
                    torch.linalg.pinv(torch.tensor(low), **{**kwargs, "atol": 1e-8}),
                    atol=1e-10, rtol=1e-9)


def test_cond_of_singular_matrix_is_inf(torch):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for p in ("fro", 1, math.inf):
        assert_same(ember.linalg.cond(ember.tensor(singular), p),
                    torch.linalg.cond(torch.tensor(singular), p))


def test_torch_cross_default_dim_is_the_first_of_size_three(torch):
    a, b = RNG.uniform(-1, 1, (3, 4)), RNG.uniform(-1, 1, (3, 4))
    with pytest.warns(UserWarning):
        got = ember.cross(ember.tensor(a), ember.tensor(b))
    with warnings.catch_warnings():  # torch warns once per process (TORCH_WARN_ONCE)
        warnings.simplefilter("ignore")
        expected = torch.cross(torch.tensor(a), torch.tensor(b))
    assert_same(got, expected)


def test_empty_inputs(torch):
    for call, shape in [(lambda lib, a: lib.linalg.svd(a), (0, 3)),
                        (lambda lib, a: lib.linalg.svd(a, full_matrices=False), (2, 0)),
                        (lambda lib, a: lib.linalg.qr(a), (0, 3)),
                        (lambda lib, a: lib.linalg.det(a), (2, 0, 0)),
                        (lambda lib, a: lib.linalg.slogdet(a), (0, 0)),
                        (lambda lib, a: lib.linalg.eigh(a), (2, 0, 0)),
                        (lambda lib, a: lib.linalg.cholesky(a), (0, 0)),
                        (lambda lib, a: lib.linalg.inv(a), (0, 3, 3)),
                        (lambda lib, a: lib.linalg.matrix_rank(a), (2, 0, 3))]:
        assert_same(call(ember, ember.zeros(shape, dtype=ember.float64)),
                    call(torch, torch.zeros(shape, dtype=torch.float64)))
