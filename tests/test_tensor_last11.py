"""The last Tensor/torch names of the API sweep, against torch: LAPACK's Householder QR
(geqrf, orgqr / linalg.householder_product, ormqr) and the removed 1.9 functions that only
raise (eig, lstsq, solve, symeig, matrix_rank)."""
import numpy as np
import pytest

import ember
from tests.oracle import assert_same, assert_same_error, to_lib

_REMOVED = [
    lambda lib, a: lib.eig(a), lambda lib, a: lib.eig(a, True),
    lambda lib, a: a.eig(), lambda lib, a: lib.lstsq(a, a), lambda lib, a: a.lstsq(a),
    lambda lib, a: lib.solve(a, a), lambda lib, a: a.solve(a),
    lambda lib, a: lib.symeig(a, eigenvectors=True), lambda lib, a: a.symeig(),
    lambda lib, a: lib.matrix_rank(a), lambda lib, a: lib.matrix_rank(a, 1e-3, True),
]


@pytest.mark.parametrize("call", _REMOVED)
def test_removed_functions_raise_pytorchs_migration_text(torch, call):
    values = np.eye(3, dtype=np.float32)
    assert_same_error(lambda lib: call(lib, to_lib(lib, values)))


def _matrix(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype == "complex128":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


_SHAPES = [(4, 3), (3, 3), (3, 5), (2, 5, 3), (0, 3), (2, 0, 4, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", _SHAPES)
def test_geqrf_orgqr_ormqr_match_torch(torch, shape, dtype):
    values = _matrix(shape, dtype)
    results = {}
    for lib in (torch, ember):
        a, tau = lib.geqrf(to_lib(lib, values))
        m, n = shape[-2:]
        out = {"a": a, "tau": tau, "tuple": type(to_lib(lib, values).geqrf()).__name__}
        if m >= n:
            out["orgqr"] = lib.orgqr(a, tau)
            out["householder"] = lib.linalg.householder_product(a, tau)
            out["method"] = a.orgqr(tau)
        other = to_lib(lib, _matrix(shape[:-2] + (m, 2), dtype, seed=1))
        out["ormqr"] = lib.ormqr(a, tau, other)
        out["ormqr_t"] = a.ormqr(tau, other, transpose=True)
        right = to_lib(lib, _matrix(shape[:-2] + (2, m), dtype, seed=2))
        out["ormqr_right"] = lib.ormqr(a, tau, right, left=False, transpose=True)
        results[lib] = out
    tol = 1e-5 if dtype == "float32" else 1e-12
    for key in results[torch]:
        assert_same(results[ember][key], results[torch][key], atol=tol, rtol=tol, path=key)


def test_geqrf_has_no_derivative_in_either(torch):
    values = _matrix((3, 3), "float64")
    for lib in (torch, ember):
        a = to_lib(lib, values, requires_grad=True)
        packed = lib.geqrf(a).a
        assert packed.grad_fn.name() == "GeqrfBackward0"
    assert_same_error(lambda lib: lib.geqrf(to_lib(lib, values, requires_grad=True))
                      .a.sum().backward())


def test_householder_nodes_carry_pytorchs_names(torch):
    values = _matrix((4, 3), "float64")
    for lib in (torch, ember):
        a, tau = lib.geqrf(to_lib(lib, values))
        a.requires_grad_()
        assert lib.orgqr(a, tau).grad_fn.name() == "LinalgHouseholderProductBackward0"
        assert lib.ormqr(a, tau, a).grad_fn.name() == "OrmqrBackward0"


_BAD_CALLS = [
    lambda lib, a, tau: lib.geqrf(a[0]),
    lambda lib, a, tau: lib.geqrf(a.bool()),
    lambda lib, a, tau: lib.geqrf(a.long()),
    lambda lib, a, tau: lib.orgqr(a[0], tau),
    lambda lib, a, tau: lib.orgqr(a, tau[0]),
    lambda lib, a, tau: lib.orgqr(a.mT, tau),
    lambda lib, a, tau: lib.orgqr(a, lib.ones(4)),
    lambda lib, a, tau: lib.orgqr(a, tau.double()),
    lambda lib, a, tau: lib.orgqr(a.long(), tau.long()),
    lambda lib, a, tau: lib.orgqr(a.expand(2, 4, 3), tau),
    lambda lib, a, tau: lib.orgqr(a.expand(2, 4, 3), tau.expand(3, 3)),
    lambda lib, a, tau: lib.orgqr(a, 3),
    lambda lib, a, tau: lib.ormqr(a[0], tau, a),
    lambda lib, a, tau: lib.ormqr(a, tau[0], a),
    lambda lib, a, tau: lib.ormqr(a, tau, a[0, 0]),
    lambda lib, a, tau: lib.ormqr(a, tau, lib.ones(3, 3)),
    lambda lib, a, tau: lib.ormqr(a, tau, lib.ones(3, 3), left=False),
    lambda lib, a, tau: lib.ormqr(a, lib.ones(2), lib.ones(4, 2)),
    lambda lib, a, tau: lib.ormqr(a, tau.double(), a),
    lambda lib, a, tau: lib.ormqr(a, tau, a.double()),
    lambda lib, a, tau: lib.ormqr(a.long(), tau.long(), a.long()),
    lambda lib, a, tau: lib.ormqr(a.expand(2, 4, 3), tau, a),
    lambda lib, a, tau: lib.ormqr(a.expand(2, 4, 3), tau.expand(2, 3), a),
    lambda lib, a, tau: lib.ormqr(a.expand(2, 4, 3), tau.expand(3, 3), a.expand(2, 4, 3)),
    lambda lib, a, tau: lib.ormqr(a.expand(2, 4, 3), tau.expand(2, 3), a.expand(3, 4, 3)),
    lambda lib, a, tau: lib.ormqr(a, 0, 1.5),
]


@pytest.mark.parametrize("call", _BAD_CALLS)
def test_householder_errors_match_torch(torch, call):
    values = _matrix((4, 3), "float32")

    def run(lib):
        a, tau = lib.geqrf(to_lib(lib, values))
        return call(lib, a, tau)
    assert_same_error(run)


@pytest.mark.parametrize("detach_slice", [False, True])
def test_slice_inverse_views_the_base_and_slices_the_gradient(torch, detach_slice):
    results = {}
    for lib in (torch, ember):
        base = lib.arange(12.0).reshape(3, 4).requires_grad_()
        part = base[:, 1:4:2]
        if detach_slice:
            part = part.detach().requires_grad_()
        out = lib.slice_inverse(part, base.detach(), 1, 1, 4, 2)
        method = part.slice_inverse(base.detach(), dim=1, start=1, end=4, step=2)
        (out * lib.arange(12.0).reshape(3, 4)).sum().backward()
        leaf = part if detach_slice else base
        results[lib] = (out, method, out.stride(), out.storage_offset(), leaf.grad,
                        out.grad_fn.name())
    assert_same(results[ember], results[torch])


def test_slice_inverse_errors_match_torch(torch):
    assert_same_error(lambda lib: lib.slice_inverse(lib.ones(2)))
    assert_same_error(lambda lib: lib.slice_inverse(lib.ones(2, 3), lib.ones(4, 5), 0))


_ORMQR_SIDES = [(True, False), (True, True), (False, False), (False, True)]


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 3)])
def test_orgqr_ormqr_gradients_match_torch(torch, shape):
    m = shape[-2]
    values = _matrix(shape, "float64")
    grads = {}
    for lib in (torch, ember):
        a, tau = lib.geqrf(to_lib(lib, values))
        a, tau = a.clone().requires_grad_(), tau.clone().requires_grad_()
        weights = lambda out: lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape)
        q = lib.orgqr(a, tau)
        found = list(lib.autograd.grad((q * weights(q)).sum(), (a, tau)))
        for left, transpose in _ORMQR_SIDES:
            rows = (m, 2) if left else (2, m)
            c = to_lib(lib, _matrix(shape[:-2] + rows, "float64", seed=3), requires_grad=True)
            out = lib.ormqr(a, tau, c, left=left, transpose=transpose)
            found += lib.autograd.grad((out * weights(out)).sum(), (a, tau, c))
        grads[lib] = found
    assert_same(grads[ember], grads[torch], atol=1e-12, rtol=1e-12)


def test_orgqr_ormqr_pass_gradcheck_and_gradgradcheck():
    a, tau = ember.geqrf(ember.tensor(_matrix((4, 3), "float64")))
    a, tau = a.requires_grad_(), tau.requires_grad_()
    c = ember.tensor(_matrix((3, 4), "float64"), requires_grad=True)
    assert ember.autograd.gradcheck(ember.orgqr, (a, tau))
    assert ember.autograd.gradgradcheck(ember.orgqr, (a, tau))
    assert ember.autograd.gradcheck(lambda *x: ember.ormqr(*x, left=False), (a, tau, c))
