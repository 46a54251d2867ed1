"""Catalog entries for ember/ops/linalg.py (with diagonal.py, einsum.py and norms.py)."""
from . import OpInfo, Sample, doors, random_array

PRODUCT_DTYPES = ("float32", "float64", "int64")
INT_DTYPES = ("uint8", "int8", "int16", "int32")

# matmul: every rank combination ATen distinguishes (dot, mv, 1-D @ 2-D, mm, folded mm/mv
# with and without transposing, the 3-D batch-of-one squeeze, broadcast bmm), plus empties.
MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
    ((2, 2, 3), (3,)), ((3,), (2, 3, 2)), ((2, 2, 3), (3, 2)), ((2, 3), (2, 3, 2)),
    ((2, 2, 3), (2, 3, 2)), ((2, 2, 3), (1, 3, 2)), ((1, 2, 3), (2, 3, 2)),
    ((2, 1, 2, 3), (3, 3, 2)), ((1, 3), (2, 3, 2)), ((2, 1, 1, 3), (3,)),
    ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((0,), (0,)), ((0, 2, 3), (3,)), ((2, 3), (0, 3, 2)),
]


def _pairs(shapes, low=-3.0, high=3.0):
    def samples(rng, dtype):
        for a, b in shapes:
            yield Sample((random_array(rng, a, dtype, low, high),
                          random_array(rng, b, dtype, low, high)), name=f"{a}x{b}")
    return samples


def _tensors(cases, low=-3.0, high=3.0):
    """Each case: (shapes tuple, extra args tuple, kwargs dict)."""
    def samples(rng, dtype):
        for shapes, args, kwargs in cases:
            arrays = tuple(random_array(rng, s, dtype, low, high) for s in shapes)
            yield Sample(arrays + tuple(args), dict(kwargs), name=f"{shapes} {args} {kwargs}")
    return samples


def _one(*cases):
    return _tensors([((shape,), args, {}) for shape, *args in cases])


def _add_product_cases(self_shapes, first, second):
    cases = [((s, first, second), (), {}) for s in self_shapes]
    cases += [((self_shapes[0], first, second), (), {"beta": 0.5, "alpha": 2}),
              ((self_shapes[0], first, second), (), {"beta": 0, "alpha": -1.5})]
    return cases


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 2)]),                      # implicit output
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ii", [(3, 3)]),                                 # trace
    ("ii->i", [(3, 3)]),                              # diagonal
    ("iij->j", [(2, 2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ji", [(2, 3)]),                                 # implicit transpose
    ("bA", [(2, 3)]),                                 # A sorts before b
    ("...ij->...ji", [(2, 3, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),  # broadcast ellipsis
    ("...i,...i", [(2, 3), (3,)]),
    ("i...->...", [(2, 3)]),
    ("ai,ai->a", [(1, 3), (4, 3)]),                   # size-1 label broadcasts
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("ij,ij->ij", [(0, 3), (0, 3)]),
    ("", [()]),
]


def _einsum_samples(rng, dtype):
    for equation, shapes in EINSUM_CASES:
        yield Sample((equation,) + tuple(random_array(rng, s, dtype) for s in shapes),
                     name=equation)


def _einsum_list_samples(rng, dtype):
    yield Sample(([random_array(rng, (2, 3), dtype), random_array(rng, (3, 2), dtype)],),
                 name="list")


# Distinct magnitudes, away from zero: norms are smooth there and inf-norms have no ties.
def _norm_samples(cases):
    def samples(rng, dtype):
        for shape, args, kwargs in cases:
            size = 1
            for s in shape:
                size *= s
            signs = rng.choice([-1.0, 1.0], size=size)
            values = signs * rng.uniform(0.5, 3.0, size=size)
            yield Sample((values.reshape(shape).astype(dtype),) + tuple(args), dict(kwargs),
                         name=f"{shape} {args} {kwargs}")
    return samples


VECTOR_NORM_CASES = [
    ((2, 3), (), {}), ((4,), (1,), {}), ((2, 3), (float("inf"),), {}),
    ((2, 3), (-float("inf"), 1), {}), ((2, 3), (0,), {}), ((2, 3), (3, 0), {}),
    ((2, 3), (1.5,), {"dim": -1, "keepdim": True}), ((2, 3), (0.5,), {"dim": (0, 1)}),
    ((2, 3), (-1,), {}), ((), (), {}), ((2, 3), (2, ()), {}),
    ((0, 3), (), {}), ((0, 3), (float("inf"), 1), {}), ((2, 3), (2, None, True), {}),
]

MATRIX_NORM_CASES = [
    ((2, 3), (), {}), ((2, 3), ("fro",), {"keepdim": True}), ((2, 2, 3), (1,), {}),
    ((2, 3), (-1,), {"keepdim": True}), ((2, 3), (float("inf"),), {}),
    ((2, 2, 3), (-float("inf"), (0, 2)), {}), ((3, 2), (1, (1, 0)), {}),
]

NORM_CASES = [
    ((2, 3), (), {}), ((2, 3, 2), (), {"keepdim": True}), ((4,), (3,), {}),
    ((2, 3), (1,), {}), ((2, 3), ("fro",), {}), ((2, 3, 2), (None, 1), {}),
    ((2, 3, 2), (float("inf"), (0, 2)), {}), ((2, 3), (2, -1), {}),
]

OPS = [
    OpInfo("matmul", lambda lib, a, b: lib.matmul(a, b), _pairs(MATMUL_SHAPES),
           dtypes=PRODUCT_DTYPES),
    OpInfo("matmul_operator", lambda lib, a, b: a @ b,
           _pairs([((2, 3), (3, 2)), ((3,), (3,)), ((2, 2, 3), (2, 3, 2))]),
           dtypes=PRODUCT_DTYPES + INT_DTYPES),
    OpInfo("matmul_one_requires_grad", lambda lib, a, b: lib.matmul(a, b.detach()),
           _pairs([((2, 2, 3), (1, 3, 2)), ((1, 2, 3), (2, 3, 2)), ((2, 3), (2, 3, 2)),
                   ((3,), (2, 3, 2)), ((2, 2, 3), (3, 2))]),
           skip={"gradcheck": "b is detached inside the op", "gradgradcheck": "same"}),
    OpInfo("linalg.matmul", lambda lib, a, b: lib.linalg.matmul(a, b),
           _pairs([((2, 3), (3, 2)), ((2, 2, 3), (3,))])),
    OpInfo("mm", lambda lib, a, b: lib.mm(a, b),
           _pairs([((2, 3), (3, 4)), ((1, 1), (1, 3)), ((0, 2), (2, 3)), ((2, 0), (0, 3)),
                   ((3, 2), (2, 0))]), dtypes=PRODUCT_DTYPES + INT_DTYPES),
    OpInfo("mm_transposed", lambda lib, a, b: lib.mm(a.t(), b.t()),
           _pairs([((3, 2), (4, 3))])),
    OpInfo("mv", lambda lib, a, b: lib.mv(a, b),
           _pairs([((2, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,))]), dtypes=PRODUCT_DTYPES),
    OpInfo("dot", lambda lib, a, b: lib.dot(a, b), _pairs([((3,), (3,)), ((0,), (0,))]),
           dtypes=PRODUCT_DTYPES + INT_DTYPES),
    OpInfo("vdot", lambda lib, a, b: lib.vdot(a, b), _pairs([((4,), (4,))]),
           dtypes=PRODUCT_DTYPES),
    OpInfo("Tensor.vdot", lambda lib, a, b: a.vdot(b), _pairs([((4,), (4,))])),
    OpInfo("bmm", lambda lib, a, b: lib.bmm(a, b),
           _pairs([((2, 2, 3), (2, 3, 2)), ((0, 2, 3), (0, 3, 2)), ((2, 0, 3), (2, 3, 1))]),
           dtypes=PRODUCT_DTYPES),
    OpInfo("addmm", lambda lib, c, a, b, **kw: lib.addmm(c, a, b, **kw),
           _tensors(_add_product_cases([(2, 4), (4,), (), (1, 4)], (2, 3), (3, 4))),
           dtypes=PRODUCT_DTYPES),
    OpInfo("Tensor.addmm", lambda lib, c, a, b: c.addmm(a, b, beta=2, alpha=0.5),
           _tensors([(((2, 2), (2, 3), (3, 2)), (), {})])),
    OpInfo("addmv", lambda lib, c, a, b, **kw: lib.addmv(c, a, b, **kw),
           _tensors(_add_product_cases([(2,), (), (1,)], (2, 3), (3,))),
           dtypes=PRODUCT_DTYPES),
    OpInfo("baddbmm", lambda lib, c, a, b, **kw: lib.baddbmm(c, a, b, **kw),
           _tensors(_add_product_cases([(2, 2, 2), (2,), (2, 1, 2)], (2, 2, 3), (2, 3, 2))),
           dtypes=PRODUCT_DTYPES),
    OpInfo("outer", lambda lib, a, b: lib.outer(a, b),
           _pairs([((2,), (3,)), ((0,), (2,))]), dtypes=PRODUCT_DTYPES + ("bool",)),
    OpInfo("ger", lambda lib, a, b: a.ger(b), _pairs([((2,), (3,))])),
    OpInfo("inner", lambda lib, a, b: lib.inner(a, b),
           _pairs([((3,), (3,)), ((2, 3), (4, 3)), ((2, 3), (3,)), ((), (2, 3)),
                   ((2, 1, 3), (2, 3))]), dtypes=PRODUCT_DTYPES),
    OpInfo("tensordot", lambda lib, a, b, **kw: lib.tensordot(a, b, **kw),
           _tensors([(((2, 3), (3, 2)), (), {"dims": 1}),
                     (((2, 3, 2), (3, 2, 2)), (), {"dims": ([1, 2], [0, 1])}),
                     (((2, 3), (2, 2)), (), {"dims": 0}),
                     (((2, 3, 2), (3, 2)), (), {}),
                     (((2, 1), (3, 2)), (), {"dims": ([1], [0])}),
                     (((3, 2), (2, 3)), (), {"dims": ([-1, 0], [0, -1])})]),
           dtypes=PRODUCT_DTYPES),
    OpInfo("einsum", lambda lib, eq, *ops: lib.einsum(eq, *ops), _einsum_samples,
           dtypes=PRODUCT_DTYPES, grad_fn=False),
    OpInfo("einsum_list", lambda lib, ops: lib.einsum("ij,jk->ik", ops), _einsum_list_samples,
           grad_fn=False),
    OpInfo("trace", lambda lib, x: lib.trace(x), _one(((3, 3),), ((2, 3),), ((3, 2),), ((0, 2),)),
           dtypes=PRODUCT_DTYPES + INT_DTYPES + ("float16",)),
    OpInfo("tril", lambda lib, x, *a: lib.tril(x, *a),
           _one(((3, 3),), ((2, 3), 1), ((2, 2, 3), -1), ((0, 2),), ((2, 3), 5)),
           dtypes=PRODUCT_DTYPES + ("bool",)),
    OpInfo("triu", lambda lib, x, *a: x.triu(*a),
           _one(((3, 3),), ((2, 3), -1), ((2, 2, 3), 1), ((2, 3), -4)),
           dtypes=PRODUCT_DTYPES + ("bool",)),
    OpInfo("diag", lambda lib, x, *a: lib.diag(x, *a),
           _one(((3,),), ((3,), 1), ((2,), -2), ((0,),), ((3, 3),), ((2, 3), 1), ((3, 2), -1),
                ((2, 3), 5)), dtypes=PRODUCT_DTYPES + ("bool",)),
    OpInfo("diag_embed", lambda lib, x, *a: lib.diag_embed(x, *a),
           _one(((3,),), ((2, 3), 1), ((2, 3), -1, 0, 2), ((2, 2), 0, -1, 0), ((0,),)),
           dtypes=PRODUCT_DTYPES + ("bool",)),
    OpInfo("linalg.vector_norm", lambda lib, x, *a, **kw: lib.linalg.vector_norm(x, *a, **kw),
           _norm_samples(VECTOR_NORM_CASES), atol=1e-5, rtol=1e-5),
    OpInfo("linalg.vector_norm_dtype",
           lambda lib, x: lib.linalg.vector_norm(x, 3, dtype=lib.float64),
           _norm_samples([((2, 3), (), {})])),
    OpInfo("linalg.matrix_norm", lambda lib, x, *a, **kw: lib.linalg.matrix_norm(x, *a, **kw),
           _norm_samples(MATRIX_NORM_CASES)),
    OpInfo("linalg.norm", lambda lib, x, *a, **kw: lib.linalg.norm(x, *a, **kw),
           _norm_samples(NORM_CASES)),
    OpInfo("linalg.vecdot", lambda lib, a, b, **kw: lib.linalg.vecdot(a, b, **kw),
           _tensors([(((2, 3), (2, 3)), (), {}), (((2, 3), (3,)), (), {}),
                     (((2, 3), (2, 1)), (), {"dim": 0})])),
]

OPS += doors(OPS, {
    "matmul": [("Tensor.matmul", lambda lib, a, b: a.matmul(b))],
    "mm": [("Tensor.mm", lambda lib, a, b: a.mm(b))],
    "mv": [("Tensor.mv", lambda lib, a, b: a.mv(b))],
    "dot": [("Tensor.dot", lambda lib, a, b: a.dot(b))],
    "bmm": [("Tensor.bmm", lambda lib, a, b: a.bmm(b))],
    "addmv": [("Tensor.addmv", lambda lib, c, a, b, **kw: c.addmv(a, b, **kw))],
    "baddbmm": [("Tensor.baddbmm", lambda lib, c, a, b, **kw: c.baddbmm(a, b, **kw))],
    "outer": [("Tensor.outer", lambda lib, a, b: a.outer(b))],
    "ger": [("ember.ger", lambda lib, a, b: lib.ger(a, b))],
    "trace": [("Tensor.trace", lambda lib, x: x.trace())],
    "tril": [("Tensor.tril", lambda lib, x, *a: x.tril(*a))],
    "diag": [("Tensor.diag", lambda lib, x, *a: x.diag(*a))],
    "diag_embed": [("Tensor.diag_embed", lambda lib, x, *a: x.diag_embed(*a))],
})

# linalg11: the LAPACK-backed ops live in their own catalog module.
from .linalg_decomp import OPS as _DECOMP_OPS  # noqa: E402

OPS += _DECOMP_OPS
