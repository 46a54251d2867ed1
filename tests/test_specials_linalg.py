"""Determinants and solves at special values, ember against torch element by element.

tests/grad_specials.py found these where NumPy's answer is not PyTorch's formula:
NumPy's slogdet keeps a sign of +-1 beside a NaN pivot and says (0, -inf) for any zero
pivot (PyTorch: sgn(NaN) = 0, and log|0| + log|inf| = NaN); NumPy's det is
sign * exp(logdet), which loses -0.0 and turns inf * 0 into 0; det's first-order
gradient at an exactly singular matrix is zero in PyTorch (it solves A^T X = det * grad * I
with zero pivots nudged to eps); slogdet's gradient is a solve with A^T and solve_ex's a
transposed solve with A's own LU, whose inf/NaN patterns differ from grad * inv(A)^T.
What is left (LAPACK's garbage for an inf inside an elimination, MKL against OpenBLAS)
is listed in the branch's report, not pinned here.
"""
import numpy as np
import pytest

import ember
from oracle import assert_same_outcome

NAN, INF = float("nan"), float("inf")

# rank 2: the first and last columns are parallel (the catalog's sample with zeros in it)
SINGULAR = [[0.0, -0.4604265724722594, -0.0],
            [-0.9669447289429418, 0.0, 0.8255111545554434],
            [-0.0, 0.4589931219679968, 0.0]]
TIES = [[0.7, 0.7, 0.7]] * 3
NAN_MATRICES = [
    [[NAN, 1.0, 2.0], [0.5, 3.0, 1.0], [1.0, -1.5, 2.0]],
    [[NAN, -0.4604265724722594, 0.5], [-0.9669447289429418, -1.5, 0.8255111545554434],
     [NAN, 0.4589931219679968, 0.5]],
]
ZERO_PIVOT_BESIDE_INF = [[INF, 1.0], [0.0, 0.0]]


def _same(got, expected, zero_sign=True):
    """Same NaN positions, same infinities, the same sign of each zero, values to 1e-12."""
    a = np.asarray(got.detach().numpy(), dtype=np.float64)
    b = np.asarray(expected.detach().numpy(), dtype=np.float64)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b)), (a, b)
    assert np.array_equal(np.isposinf(a), np.isposinf(b)), (a, b)
    assert np.array_equal(np.isneginf(a), np.isneginf(b)), (a, b)
    finite = np.isfinite(b)
    np.testing.assert_allclose(a[finite], b[finite], rtol=1e-12, atol=0)
    if zero_sign:
        zero = b == 0
        assert np.array_equal(np.signbit(a[zero]), np.signbit(b[zero])), (a, b)


def _grad_of(lib, fn, rows, upstream_seed=7):
    A = lib.tensor(rows, dtype=lib.float64, requires_grad=True)
    out = fn(lib, A)
    upstream = np.random.default_rng(upstream_seed).standard_normal(tuple(out.shape))
    out.backward(lib.tensor(upstream, dtype=lib.float64))
    return out, A.grad


@pytest.mark.parametrize("rows", NAN_MATRICES + [ZERO_PIVOT_BESIDE_INF])
def test_slogdet_of_a_nan_pivot_has_sign_zero_and_nan_log(torch, rows):
    # the sign of that zero is not pinned: PyTorch's comes from its own sgn product
    got = ember.linalg.slogdet(ember.tensor(rows, dtype=ember.float64))
    expected = torch.linalg.slogdet(torch.tensor(rows, dtype=torch.float64))
    _same(got.sign, expected.sign, zero_sign=False)
    _same(got.logabsdet, expected.logabsdet)


def test_slogdet_of_a_batch_redoes_only_the_special_matrices(torch):
    rows = [SINGULAR, NAN_MATRICES[0], [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]]
    got = ember.linalg.slogdet(ember.tensor(rows, dtype=ember.float64))
    expected = torch.linalg.slogdet(torch.tensor(rows, dtype=torch.float64))
    _same(got.sign, expected.sign, zero_sign=False)
    _same(got.logabsdet, expected.logabsdet)


@pytest.mark.parametrize("rows", [SINGULAR, ZERO_PIVOT_BESIDE_INF, TIES])
def test_det_of_a_singular_matrix_is_the_lu_product(torch, rows):
    """-0.0 for the rank-2 sample (NumPy said 0.0), NaN for inf * 0 (NumPy said 0.0)."""
    _same(ember.linalg.det(ember.tensor(rows, dtype=ember.float64)),
          torch.linalg.det(torch.tensor(rows, dtype=torch.float64)))


@pytest.mark.parametrize("rows", [SINGULAR, TIES, [SINGULAR, TIES]])
def test_first_order_det_gradient_of_an_exactly_singular_matrix_is_zero(torch, rows):
    def det(lib, A):
        return lib.linalg.det(A)
    got, expected = _grad_of(ember, det, rows)[1], _grad_of(torch, det, rows)[1]
    _same(got, expected, zero_sign=False)
    assert not got.abs().max().item()


def test_det_double_backward_at_a_singular_matrix_still_uses_the_cofactors(torch):
    """With create_graph PyTorch goes through the SVD: the true (nonzero) cofactors."""
    def first(lib):
        A = lib.tensor(SINGULAR, dtype=lib.float64, requires_grad=True)
        (grad,) = lib.autograd.grad(lib.linalg.det(A), A, create_graph=True)
        return grad
    got, expected = first(ember), first(torch)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-12)
    assert expected.abs().max().item() > 0.1


def test_slogdet_gradient_of_a_singular_matrix_is_the_transposed_solve(torch):
    def logabsdet(lib, A):
        return lib.linalg.slogdet(A).logabsdet
    _same(_grad_of(ember, logabsdet, SINGULAR)[1], _grad_of(torch, logabsdet, SINGULAR)[1],
          zero_sign=False)


@pytest.mark.parametrize("left", [True, False])
def test_solve_ex_gradient_of_a_singular_matrix_uses_the_lu_of_A(torch, left):
    rhs = np.random.default_rng(3).standard_normal((3, 2) if left else (2, 3))

    def run(lib):
        A = lib.tensor(SINGULAR, dtype=lib.float64, requires_grad=True)
        B = lib.tensor(rhs, dtype=lib.float64, requires_grad=True)
        X = lib.linalg.solve_ex(A, B, left=left).result
        upstream = np.random.default_rng(7).standard_normal(tuple(X.shape))
        X.backward(lib.tensor(upstream, dtype=lib.float64))
        return X, A.grad, B.grad
    for got, expected in zip(run(ember), run(torch)):
        _same(got, expected, zero_sign=False)


def test_solve_ex_gradient_of_a_singular_matrix_for_a_vector(torch):
    def run(lib):
        A = lib.tensor(SINGULAR, dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.3, -1.2, 0.8], dtype=lib.float64, requires_grad=True)
        x = lib.linalg.solve_ex(A, b).result
        x.backward(lib.tensor([1.0, -0.5, 2.0], dtype=lib.float64))
        return x, A.grad, b.grad
    for got, expected in zip(run(ember), run(torch)):
        _same(got, expected, zero_sign=False)


def _nan_on_the_diagonal(n):
    matrix = np.eye(n) + 0.1
    matrix[n - 1, n - 1] = NAN
    return matrix


@pytest.mark.parametrize("n", [3, 4, 8])
def test_eigh_of_a_nan_matrix_gives_pytorchs_error_and_lapack_info(torch, n):
    assert_same_outcome(lambda lib: lib.linalg.eigh(lib.tensor(_nan_on_the_diagonal(n))))


def test_eigh_of_a_batch_names_the_element_holding_the_nan(torch):
    batch = np.full((2, 3, 3), 0.5)
    batch[1, 2, 2] = NAN
    assert_same_outcome(lambda lib: lib.linalg.eigh(lib.tensor(batch)))


def test_eigvalsh_of_a_nan_matrix_gives_pytorchs_error(torch):
    """The text up to LAPACK's info: MKL's eigenvalue-only driver counts one fewer."""
    messages = []
    for lib in (ember, torch):
        with pytest.raises(lib.linalg.LinAlgError) as caught:
            lib.linalg.eigvalsh(lib.tensor(_nan_on_the_diagonal(4)))
        messages.append(str(caught.value).split("(error code")[0])
    assert messages[0] == messages[1]


HUGE = [[1e300, -0.4604265724722594, -1e300],
        [-0.9669447289429418, 1e-300, 0.8255111545554434],
        [-1e-300, 0.4589931219679968, 1e-320]]


def test_svd_gradient_with_an_overflowing_singular_value_squared(torch):
    """S^2 = inf makes E's diagonal inf - inf: PyTorch sets it to 1, it never adds 1."""
    rng = np.random.default_rng(5)
    weights = [rng.standard_normal((3, 3)), rng.standard_normal(3), rng.standard_normal((3, 3))]

    def run(lib):
        A = lib.tensor(HUGE, dtype=lib.float64, requires_grad=True)
        U, S, Vh = lib.linalg.svd(A)
        w = [lib.tensor(x, dtype=lib.float64) for x in weights]
        ((U.abs() * w[0]).sum() + (S * w[1]).sum() + (Vh.abs() * w[2]).sum()).backward()
        return A.grad
    got, expected = run(ember), run(torch)
    assert np.isfinite(expected.numpy()).all()
    _same(got, expected, zero_sign=False)


def _factors_with_one_special(upper):
    """Well-conditioned triangular factors with one entry set to NaN, inf or -inf."""
    rng = np.random.default_rng(0)
    for n in (2, 3, 4):
        for _ in range(6):
            factor = np.tril(rng.standard_normal((n, n))) + 3 * np.eye(n)
            factor = factor.T.copy() if upper else factor
            factor.reshape(-1)[rng.integers(n * n)] = rng.choice([NAN, INF, -INF])
            yield factor


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_of_a_non_finite_factor_is_lapacks_potri(torch, upper):
    """Finite entries beside a NaN pivot, as potri leaves them (ember solved twice: all NaN)."""
    compared = 0
    for factor in _factors_with_one_special(upper):
        try:
            expected = torch.cholesky_inverse(torch.tensor(factor), upper=upper)
        except RuntimeError:   # an exactly zero diagonal element: both raise (tested elsewhere)
            continue
        got = ember.cholesky_inverse(ember.tensor(factor), upper=upper)
        _same(got, expected, zero_sign=False)
        compared += 1
    assert compared == 18


def test_cholesky_inverse_of_a_batch_with_one_non_finite_factor(torch):
    rng = np.random.default_rng(1)
    batch = np.stack([np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3) for _ in range(2)])
    batch[1, 2, 0] = NAN
    _same(ember.cholesky_inverse(ember.tensor(batch)),
          torch.cholesky_inverse(torch.tensor(batch)), zero_sign=False)


ADD_PRODUCTS = {
    "addmm": (lambda lib, *t, **kw: lib.addmm(*t, **kw), [(2, 3), (2, 4), (4, 3)]),
    "addmm_broadcast": (lambda lib, *t, **kw: lib.addmm(*t, **kw), [(3,), (2, 4), (4, 3)]),
    "addmv": (lambda lib, *t, **kw: lib.addmv(*t, **kw), [(2,), (2, 4), (4,)]),
    "addbmm": (lambda lib, *t, **kw: lib.addbmm(*t, **kw), [(2, 3), (2, 2, 4), (2, 4, 3)]),
    "addr": (lambda lib, *t, **kw: lib.addr(*t, **kw), [(2, 3), (2,), (3,)]),
    "baddbmm": (lambda lib, *t, **kw: lib.baddbmm(*t, **kw), [(2, 2, 3), (2, 2, 4), (2, 4, 3)]),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ADD_PRODUCTS)
@pytest.mark.parametrize("scales", [{"alpha": 0}, {"alpha": 0.0, "beta": 0}, {"alpha": 0, "beta": -2.5}])
def test_zero_alpha_ignores_a_nan_product_only_where_pytorch_calls_blas(torch, dtype, name,
                                                                          scales):
    """gemm/gemv with alpha == 0 never read the matrices (float32/float64 addmm, addmv,
    addbmm); addr, baddbmm and the half types multiply the product by 0 and keep a NaN."""
    fn, shapes = ADD_PRODUCTS[name]
    for position in (1, 2):
        for special in (NAN, INF):
            results = []
            for lib in (ember, torch):
                arrays = [np.arange(1.0, 1 + np.prod(shape)).reshape(shape) / 7
                          for shape in shapes]
                arrays[position].reshape(-1)[0] = special
                tensors = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
                           for a in arrays]
                out = fn(lib, *tensors, **scales)
                out.float().sum().backward()
                results.append([out.float()] + [t.grad.float() for t in tensors])
            for got, expected in zip(*results):
                _same(got, expected)


def test_lu_unpack_keeps_a_negative_zero_multiplier(torch):
    """L's unit diagonal is set, not added: -0.0 + 0.0 would turn L's -0.0 into 0.0."""
    packed = [[2.0, 1.0, 0.5], [-0.0, 3.0, 1.0], [0.25, -0.0, 4.0]]
    for lib_call in (lambda lib: lib.lu_unpack(lib.tensor(packed, dtype=lib.float64),
                                               lib.tensor([1, 2, 3], dtype=lib.int32)),
                     lambda lib: lib.linalg.lu(lib.tensor(packed, dtype=lib.float64))):
        for got, expected in zip(lib_call(ember), lib_call(torch)):
            _same(got, expected)
