"""Catalog entries for ember.linalg's LAPACK ops (ops/linalg_solve.py, linalg_spectral.py,
linalg_decomp.py, linalg_functions.py, linalg_lu.py).

Samples are well conditioned: square matrices get n*I added (diagonally dominant), and the
ops that need symmetric positive-definite input build it inside the op (A A^T + n I), so
the finite-difference checks perturb a free matrix, as PyTorch's OpInfos do. Singular and
eigen vectors have a sign freedom: those entries compare their absolute values, which are
gauge invariant (and so are their gradients).
"""
import math

import numpy as np

from . import OpInfo, Sample, doors

SQUARE = [(3, 3), (2, 3, 3), (1, 1), (0, 0), (2, 0, 0)]
RECT = [(4, 3), (3, 4), (2, 4, 3), (2, 3, 4), (3, 3), (0, 3), (3, 0)]


def _matrix(rng, shape, dtype, shift=True):
    data = rng.uniform(-1, 1, size=shape)
    if shift and len(shape) >= 2 and shape[-1] == shape[-2]:
        data = data + shape[-1] * np.eye(shape[-1])
    return data.astype(dtype)


def _square(shapes=SQUARE, **kwargs):
    def samples(rng, dtype):
        for shape in shapes:
            yield Sample((_matrix(rng, shape, dtype),), dict(kwargs), name=str(shape))
    return samples


def _rect(shapes=RECT, **kwargs):
    def samples(rng, dtype):
        for shape in shapes:
            yield Sample((_matrix(rng, shape, dtype, shift=False),), dict(kwargs),
                         name=str(shape))
    return samples


def _pairs(cases):
    """cases: ((A shape, B shape), kwargs): A well conditioned, B free."""
    def samples(rng, dtype):
        for (a, b), kwargs in cases:
            yield Sample((_matrix(rng, a, dtype), _matrix(rng, b, dtype, shift=False)),
                         dict(kwargs), name=f"{a} {b} {kwargs}")
    return samples


def _spd(lib, x):
    """A symmetric positive-definite matrix made from a free one."""
    n = x.shape[-1]
    return x @ x.mT + n * lib.eye(n, dtype=x.dtype)


def _sym(x):
    return x + x.mT


def _svd_abs(lib, x, full_matrices=True):
    U, S, Vh = lib.linalg.svd(x, full_matrices=full_matrices)
    k = S.shape[-1]
    return U[..., :k].abs(), S, Vh[..., :k, :].abs()


def _singular_samples(rng, dtype):
    yield from _square()(rng, dtype)
    low_rank = rng.uniform(-1, 1, (3, 2)) @ rng.uniform(-1, 1, (2, 3))
    yield Sample((low_rank.astype(dtype),), name="rank 2 of 3")


SOLVE_CASES = [(((3, 3), (3, 2)), {}), (((2, 3, 3), (2, 3)), {}), (((2, 3, 3), (2, 3)), {}),
               (((3, 3), (2, 3, 2)), {}), (((2, 1, 3, 3), (3, 3, 1)), {}),
               (((3, 3), (2, 3)), {"left": False}), (((0, 0), (0, 2)), {}),
               (((3, 3), (3, 0)), {})]
TRIANGULAR_CASES = [(((3, 3), (3, 2)), {"upper": True}), (((3, 3), (3, 2)), {"upper": False}),
                    (((2, 3, 3), (3, 2)), {"upper": True, "unitriangular": True}),
                    (((3, 3), (2, 3)), {"upper": False, "left": False}),
                    (((2, 3, 3), (2, 4, 3)), {"upper": True, "left": False,
                                              "unitriangular": True}),
                    (((0, 0), (0, 2)), {"upper": True})]
OLD_TRIANGULAR_CASES = [(((3, 2), (3, 3)), {}), (((3, 2), (3, 3)), {"upper": False}),
                        (((2, 3, 2), (3, 3)), {"transpose": True}),
                        (((3, 2), (2, 3, 3)), {"unitriangular": True, "upper": False})]


def _old_triangular(cases):
    def samples(rng, dtype):
        for (b, a), kwargs in cases:
            yield Sample((_matrix(rng, b, dtype, shift=False), _matrix(rng, a, dtype)),
                         dict(kwargs), name=f"{b} {a} {kwargs}")
    return samples


def _list_samples(shape_lists):
    def samples(rng, dtype):
        for shapes in shape_lists:
            yield Sample(([_matrix(rng, s, dtype, shift=False) for s in shapes],),
                         name=str(shapes))
    return samples


def _rank_samples(rng, dtype):
    for inner, kwargs in ((2, {}), (3, {}), (2, {"hermitian": True}), (2, {"atol": 0.5}),
                          (3, {"rtol": 0.2}), (2, {"atol": 0.1, "rtol": 0.1})):
        left = rng.uniform(-1, 1, (2, 4, inner)).astype(dtype)
        yield Sample((left,), kwargs, name=f"rank {inner} {kwargs}")


def _matrix_rank(lib, x, **kwargs):
    product = x @ x.mT if kwargs.get("hermitian") else x @ x.mT[..., :3, :]
    return lib.linalg.matrix_rank(product, **kwargs)


def _lu_solve(lib, x, b, **kwargs):
    LU, pivots = lib.linalg.lu_factor(x)
    return lib.linalg.lu_solve(LU, pivots, b, **kwargs)


def _mixed(rng, dtype):
    """A matrix with a row swap needed (so pivots are not the identity)."""
    for shape in ((3, 3), (2, 4, 4)):
        data = _matrix(rng, shape, dtype)
        yield Sample((data[..., ::-1, :].copy(),), name=f"flipped {shape}")


POWERS = (0, 1, 2, 3, 5, 6, -1, -2, -3)
COND_ORDERS = (None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf)

OPS = [
    OpInfo("linalg.inv", lambda lib, x: lib.linalg.inv(x), _square()),
    OpInfo("linalg.inv_ex", lambda lib, x: lib.linalg.inv_ex(x), _square()),
    OpInfo("linalg.det", lambda lib, x: lib.linalg.det(x), _square()),
    OpInfo("linalg.det_singular", lambda lib, x: lib.linalg.det(x), _singular_samples,
           gradgrad=False),
    OpInfo("linalg.slogdet", lambda lib, x: lib.linalg.slogdet(x), _square()),
    OpInfo("logdet", lambda lib, x: lib.logdet(_spd(lib, x)), _square()),
    OpInfo("logdet_negative", lambda lib, x: lib.logdet(-x), _square([(3, 3), (2, 1, 1)]),
           differentiable=False),
    OpInfo("linalg.solve", lambda lib, a, b, **kw: lib.linalg.solve(a, b, **kw),
           _pairs(SOLVE_CASES)),
    OpInfo("linalg.solve_ex", lambda lib, a, b, **kw: lib.linalg.solve_ex(a, b, **kw),
           _pairs(SOLVE_CASES)),
    OpInfo("linalg.solve_triangular",
           lambda lib, a, b, **kw: lib.linalg.solve_triangular(a, b, **kw),
           _pairs(TRIANGULAR_CASES)),
    OpInfo("triangular_solve", lambda lib, b, a, **kw: lib.triangular_solve(b, a, **kw),
           _old_triangular(OLD_TRIANGULAR_CASES)),
    OpInfo("linalg.cholesky", lambda lib, x, **kw: lib.linalg.cholesky(_spd(lib, x), **kw),
           _square()),
    OpInfo("linalg.cholesky_upper",
           lambda lib, x: lib.linalg.cholesky(_spd(lib, x), upper=True), _square()),
    OpInfo("linalg.cholesky_ex", lambda lib, x: lib.linalg.cholesky_ex(_spd(lib, x)),
           _square()),
    OpInfo("cholesky", lambda lib, x: lib.cholesky(_spd(lib, x)), _square()),
    OpInfo("cholesky_solve",
           lambda lib, b, x, **kw: lib.cholesky_solve(
               b, lib.linalg.cholesky(_spd(lib, x), upper=kw.get("upper", False)), **kw),
           _old_triangular([(((3, 2), (3, 3)), {}), (((2, 3, 2), (3, 3)), {"upper": True}),
                            (((3, 1), (2, 3, 3)), {})])),
    OpInfo("cholesky_inverse",
           lambda lib, x, **kw: lib.cholesky_inverse(
               lib.linalg.cholesky(_spd(lib, x), upper=kw.get("upper", False)), **kw),
           lambda rng, dtype: list(_square()(rng, dtype)) + list(
               _square(upper=True)(rng, dtype))),
    OpInfo("linalg.qr", lambda lib, x, **kw: lib.linalg.qr(x, **kw),
           lambda rng, dtype: [*_rect()(rng, dtype),
                               *_rect([(3, 3), (3, 4), (2, 3, 5)], mode="complete")(rng, dtype)]),
    OpInfo("linalg.qr_r", lambda lib, x: lib.linalg.qr(x, mode="r"), _rect(),
           differentiable=False),
    OpInfo("linalg.svd", _svd_abs, lambda rng, dtype: [
        *_rect()(rng, dtype), *_rect(full_matrices=False)(rng, dtype)]),
    OpInfo("linalg.svdvals", lambda lib, x: lib.linalg.svdvals(x), _rect()),
    OpInfo("svd", lambda lib, x, **kw: tuple(
        t.abs() if i != 1 else t for i, t in enumerate(lib.svd(x, **kw))),
        lambda rng, dtype: [*_rect([(3, 3), (2, 3, 3)])(rng, dtype),
                            *_rect([(3, 3)], compute_uv=False)(rng, dtype)]),
    OpInfo("linalg.eigh", lambda lib, x, **kw: (lambda L, V: (L, V.abs()))(
        *lib.linalg.eigh(_sym(x), **kw)),
        lambda rng, dtype: [*_square()(rng, dtype), *_square([(3, 3)], UPLO="U")(rng, dtype)]),
    OpInfo("linalg.eigvalsh", lambda lib, x, **kw: lib.linalg.eigvalsh(_sym(x), **kw),
           lambda rng, dtype: [*_square()(rng, dtype),
                               *_square([(2, 3, 3)], UPLO="U")(rng, dtype)]),
    OpInfo("linalg.lstsq", lambda lib, a, b, **kw: lib.linalg.lstsq(a, b, **kw).solution,
           _pairs([(((4, 3), (4, 2)), {}), (((3, 4), (3, 2)), {}), (((2, 4, 3), (2, 4)), {}),
                   (((3, 3), (3, 2)), {"driver": "gelsd"})])),
    OpInfo("linalg.lstsq_tuple", lambda lib, a, b, **kw: lib.linalg.lstsq(a, b, **kw),
           _pairs([(((4, 3), (4, 2)), {"driver": d}) for d in ("gels", "gelsy", "gelsd",
                                                               "gelss")]
                  + [(((2, 4, 3), (2, 4, 2)), {"driver": "gelsd"}),
                     (((3, 4), (3, 2)), {"driver": "gelss"})]),
           differentiable=False),
    OpInfo("linalg.pinv", lambda lib, x, **kw: lib.linalg.pinv(x, **kw),
           lambda rng, dtype: [*_rect([s for s in RECT if 0 not in s])(rng, dtype),
                               *_rect([(3, 3)], rtol=0.01)(rng, dtype)]),
    OpInfo("linalg.pinv_hermitian",
           lambda lib, x: lib.linalg.pinv(_sym(x), hermitian=True), _square()),
    OpInfo("pinverse", lambda lib, x: lib.pinverse(x), _rect([(4, 3), (2, 3, 4)])),
    OpInfo("linalg.matrix_rank", _matrix_rank, _rank_samples, differentiable=False),
    OpInfo("linalg.matrix_power", lambda lib, x, n: lib.linalg.matrix_power(x, n),
           lambda rng, dtype: [Sample((_matrix(rng, s, dtype) / 3, n), name=f"{s} {n}")
                               for n in POWERS for s in ((3, 3), (2, 3, 3))]),
    OpInfo("linalg.matrix_power_int", lambda lib, x, n: lib.linalg.matrix_power(x, n),
           lambda rng, dtype: [Sample((rng.integers(-2, 3, (2, 3, 3)), n), name=str(n))
                               for n in (0, 1, 2, 5)], dtypes=("int64",),
           differentiable=False),
    OpInfo("linalg.matrix_exp", lambda lib, x: lib.linalg.matrix_exp(x),
           lambda rng, dtype: [Sample((rng.uniform(-1, 1, s).astype(dtype),), name=str(s))
                               for s in ((3, 3), (2, 3, 3), (1, 1), (0, 0))],
           atol=1e-6, rtol=1e-5),
    OpInfo("linalg.multi_dot", lambda lib, xs: lib.linalg.multi_dot(xs),
           _list_samples([[(2, 3), (3, 4)], [(3,), (3, 4), (4,)], [(2, 3), (3, 4), (4, 2)],
                          [(5, 2), (2, 6), (6, 3)], [(3,), (3, 2), (2, 5), (5, 4), (4, 1)],
                          [(2, 3), (3, 4), (4, 5), (5,)], [(3,), (3,)]])),
    # torch's cond for the norm orders fails its own backward (an in-place nan_to_num on a
    # saved inverse), so only the singular-value orders are differentiated.
    OpInfo("linalg.cond_norms", lambda lib, x, p: lib.linalg.cond(x, p),
           lambda rng, dtype: [Sample((_matrix(rng, s, dtype), p), name=f"{s} {p}")
                               for p in COND_ORDERS[3:] for s in ((3, 3), (2, 3, 3))],
           differentiable=False),
    OpInfo("linalg.cond", lambda lib, x, p: lib.linalg.cond(x, p),
           lambda rng, dtype: [Sample((_matrix(rng, s, dtype), p), name=f"{s} {p}")
                               for p in COND_ORDERS[:3] for s in ((3, 3), (2, 3, 3))]
           + [Sample((_matrix(rng, (3, 4), dtype, False), p), name=f"wide {p}")
              for p in (None, 2, -2)], grad_fn=False),
    OpInfo("linalg.cross", lambda lib, a, b, **kw: lib.linalg.cross(a, b, **kw),
           _pairs([(((3,), (3,)), {}), (((2, 3), (1, 3)), {}), (((3, 2), (3, 2)), {"dim": 0}),
                   (((4, 1, 3), (1, 2, 3)), {})]), dtypes=("float32", "float64", "int64")),
    OpInfo("cross", lambda lib, a, b, **kw: lib.cross(a, b, **kw),
           _pairs([(((3, 4), (3, 4)), {"dim": 0}), (((2, 3), (2, 3)), {"dim": 1})])),
    OpInfo("linalg.diagonal", lambda lib, x, **kw: lib.linalg.diagonal(x, **kw),
           lambda rng, dtype: [Sample((_matrix(rng, (2, 3, 4), dtype),), kw, name=str(kw))
                               for kw in ({}, {"offset": 1}, {"dim1": 0, "dim2": 2})]),
    OpInfo("linalg.matrix_norm_spectral",
           lambda lib, x, *args: lib.linalg.matrix_norm(x, *args),
           lambda rng, dtype: [Sample((_matrix(rng, s, dtype, False), o, d, k),
                                      name=f"{s} {o} {d} {k}")
                               for o in (2, -2, "nuc") for s, d in (((3, 4), (-2, -1)),
                                                                    ((2, 3, 4), (0, 2)),
                                                                    ((2, 3, 4), (2, 1)))
                               for k in (False, True)]),
    OpInfo("linalg.lu_factor", lambda lib, x: lib.linalg.lu_factor(x),
           lambda rng, dtype: [*_square([(3, 3), (2, 3, 3)])(rng, dtype),
                               *_mixed(rng, dtype)]),
    OpInfo("linalg.lu_factor_ex", lambda lib, x: lib.linalg.lu_factor_ex(x), _mixed),
    OpInfo("linalg.lu", lambda lib, x: lib.linalg.lu(x),
           lambda rng, dtype: [*_square([(3, 3), (2, 3, 3)])(rng, dtype),
                               *_mixed(rng, dtype)]),
    OpInfo("lu_unpack", lambda lib, x: lib.lu_unpack(*lib.linalg.lu_factor(x)), _mixed),
    OpInfo("linalg.lu_solve", _lu_solve, _pairs(
        [(((3, 3), (3, 2)), {}), (((2, 3, 3), (2, 3, 2)), {"adjoint": True}),
         (((3, 3), (2, 3)), {"left": False}), (((3, 3), (2, 3)), {"left": False,
                                                               "adjoint": True})]),
        gradgrad=False,  # the gradient reaching LU is computed from a detached LU
       ),
]

OPS += doors(OPS, {
    "linalg.inv": [("inverse", lambda lib, x: lib.inverse(x)),
                   ("Tensor.inverse", lambda lib, x: x.inverse())],
    "linalg.det": [("det", lambda lib, x: lib.det(x)), ("Tensor.det", lambda lib, x: x.det())],
    "linalg.slogdet": [("slogdet", lambda lib, x: lib.slogdet(x)),
                       ("Tensor.slogdet", lambda lib, x: x.slogdet())],
    "logdet": [("Tensor.logdet", lambda lib, x: _spd(lib, x).logdet())],
    "cholesky": [("Tensor.cholesky", lambda lib, x: _spd(lib, x).cholesky())],
    "linalg.matrix_power": [("matrix_power", lambda lib, x, n: lib.matrix_power(x, n)),
                            ("Tensor.matrix_power", lambda lib, x, n: x.matrix_power(n))],
    "linalg.matrix_exp": [("matrix_exp", lambda lib, x: lib.matrix_exp(x)),
                          ("Tensor.matrix_exp", lambda lib, x: x.matrix_exp())],
    "pinverse": [("Tensor.pinverse", lambda lib, x: x.pinverse())],
    "cross": [("Tensor.cross", lambda lib, a, b, **kw: a.cross(b, **kw))],
    "triangular_solve": [("Tensor.triangular_solve",
                          lambda lib, b, a, **kw: b.triangular_solve(a, **kw))],
    "cholesky_inverse": [("Tensor.cholesky_inverse", lambda lib, x, **kw: lib.linalg.cholesky(
        _spd(lib, x), upper=kw.get("upper", False)).cholesky_inverse(**kw))],
    "cholesky_solve": [("Tensor.cholesky_solve", lambda lib, b, x, **kw: b.cholesky_solve(
        lib.linalg.cholesky(_spd(lib, x), upper=kw.get("upper", False)), **kw))],
})
OPS += [
    OpInfo("qr", lambda lib, x, **kw: lib.qr(x, **kw),
           lambda rng, dtype: [*_rect([(4, 3), (3, 3)])(rng, dtype),
                               *_rect([(3, 3), (3, 4)], some=False)(rng, dtype)]),
    OpInfo("Tensor.qr", lambda lib, x: x.qr(), _rect([(4, 3)])),
    OpInfo("Tensor.svd", lambda lib, x: tuple(t.abs() for t in x.svd()), _rect([(4, 3)])),
]
