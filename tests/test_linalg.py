"""Matrix ops beyond the catalog: exact error text, einsum forms, layouts, in-place triangles."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from conftest import broadcastable_pairs
from oracle import assert_same


def _pair(lib, a, b, dtype="float32", requires_grad=False):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(a).astype(dtype), requires_grad=requires_grad)
    y = lib.tensor(rng.standard_normal(b).astype(dtype), requires_grad=requires_grad)
    return x, y


def _ones(lib, *shape, dtype="float32"):
    return lib.ones(shape, dtype=getattr(lib, dtype))


def _assert_same_error(torch, call):
    """`call(lib)` raises the same exception type and message in ember as in torch."""
    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


ERRORS = {
    "mm shapes": lambda lib: lib.mm(_ones(lib, 16, 3), _ones(lib, 2, 4)),
    "mm self not matrix": lambda lib: lib.mm(_ones(lib, 3), _ones(lib, 3, 4)),
    "mm mat2 not matrix": lambda lib: lib.mm(_ones(lib, 2, 3), _ones(lib, 3)),
    "mm dtypes": lambda lib: lib.mm(_ones(lib, 2, 3), _ones(lib, 3, 4, dtype="float64")),
    "mm int and float": lambda lib: lib.mm(_ones(lib, 2, 3, dtype="int64"), _ones(lib, 3, 4)),
    "mm half and int8": lambda lib: lib.mm(_ones(lib, 2, 3, dtype="float16"),
                                           _ones(lib, 3, 4, dtype="int8")),
    "mm bool": lambda lib: lib.mm(_ones(lib, 2, 3, dtype="bool"), _ones(lib, 3, 4, dtype="bool")),
    "mm not a tensor": lambda lib: lib.mm(_ones(lib, 2, 3), 3),
    "matmul 0-d": lambda lib: lib.matmul(_ones(lib), _ones(lib, 2, 3)),
    "matmul 0-d right": lambda lib: _ones(lib, 3) @ _ones(lib),
    "matmul 1d·2d": lambda lib: lib.matmul(_ones(lib, 3), _ones(lib, 4, 2)),
    "matmul 2d·1d": lambda lib: lib.matmul(_ones(lib, 2, 3), _ones(lib, 4)),
    "matmul 1d·1d": lambda lib: lib.matmul(_ones(lib, 3), _ones(lib, 4)),
    "matmul batch broadcast": lambda lib: lib.matmul(_ones(lib, 3, 2, 3), _ones(lib, 2, 3, 5)),
    "matmul batch inner": lambda lib: lib.matmul(_ones(lib, 2, 2, 3), _ones(lib, 2, 4, 5)),
    "matmul folded inner": lambda lib: lib.matmul(_ones(lib, 2, 2, 3), _ones(lib, 4)),
    "matmul int and float": lambda lib: lib.matmul(_ones(lib, 2, 3, dtype="int64"),
                                                   _ones(lib, 3, 4)),
    "matmul batched dtypes": lambda lib: lib.matmul(_ones(lib, 2, 2, 3),
                                                    _ones(lib, 2, 3, 5, dtype="float64")),
    "matmul bool": lambda lib: lib.matmul(_ones(lib, 2, 2, 3, dtype="bool"),
                                          _ones(lib, 2, 3, 4, dtype="bool")),
    "matmul not a tensor": lambda lib: lib.matmul(_ones(lib, 2, 3), 3),
    "mv size": lambda lib: lib.mv(_ones(lib, 2, 3), _ones(lib, 4)),
    "mv ranks": lambda lib: lib.mv(_ones(lib, 2, 3), _ones(lib, 3, 1)),
    "mv dtypes": lambda lib: lib.mv(_ones(lib, 2, 3), _ones(lib, 3, dtype="float64")),
    "dot ranks": lambda lib: lib.dot(_ones(lib, 2, 3), _ones(lib, 2, 3)),
    "dot sizes": lambda lib: lib.dot(_ones(lib, 3), _ones(lib, 4)),
    "dot dtypes": lambda lib: lib.dot(_ones(lib, 3), _ones(lib, 3, dtype="float64")),
    "dot bool": lambda lib: lib.dot(_ones(lib, 3, dtype="bool"), _ones(lib, 3, dtype="bool")),
    "vdot sizes": lambda lib: lib.vdot(_ones(lib, 3), _ones(lib, 4)),
    "bmm rank": lambda lib: lib.bmm(_ones(lib, 2, 3), _ones(lib, 2, 3, 4)),
    "bmm rank 2": lambda lib: lib.bmm(_ones(lib, 2, 2, 3), _ones(lib, 2, 3)),
    "bmm batch": lambda lib: lib.bmm(_ones(lib, 2, 2, 3), _ones(lib, 3, 3, 4)),
    "bmm dtypes": lambda lib: lib.bmm(_ones(lib, 2, 2, 3), _ones(lib, 2, 3, 4, dtype="float64")),
    "addmm mat1 rank": lambda lib: lib.addmm(_ones(lib, 2, 4), _ones(lib, 3), _ones(lib, 3, 4)),
    "addmm shapes": lambda lib: lib.addmm(_ones(lib, 2, 4), _ones(lib, 2, 3), _ones(lib, 4, 4)),
    "addmm self dtype": lambda lib: lib.addmm(_ones(lib, 2, 4, dtype="float64"),
                                              _ones(lib, 2, 3), _ones(lib, 3, 4)),
    "addmm mat dtypes": lambda lib: lib.addmm(_ones(lib, 2, 4), _ones(lib, 2, 3, dtype="float64"),
                                              _ones(lib, 3, 4)),
    "addmm self shape": lambda lib: lib.addmm(_ones(lib, 3, 4), _ones(lib, 2, 3),
                                              _ones(lib, 3, 4)),
    "addmv self shape": lambda lib: lib.addmv(_ones(lib, 3), _ones(lib, 2, 3), _ones(lib, 3)),
    "addmv self rank": lambda lib: lib.addmv(_ones(lib, 2, 2), _ones(lib, 2, 3), _ones(lib, 3)),
    "addmv dtypes": lambda lib: lib.addmv(_ones(lib, 2), _ones(lib, 2, 3),
                                          _ones(lib, 3, dtype="float64")),
    "baddbmm input dtype": lambda lib: lib.baddbmm(_ones(lib, 2, 2, 4, dtype="float64"),
                                                   _ones(lib, 2, 2, 3), _ones(lib, 2, 3, 4)),
    "baddbmm shapes": lambda lib: lib.baddbmm(_ones(lib, 2, 2, 4), _ones(lib, 2, 2, 3),
                                              _ones(lib, 2, 4, 4)),
    "outer rank": lambda lib: lib.outer(_ones(lib, 2, 3), _ones(lib, 3)),
    "outer 0-d": lambda lib: lib.outer(_ones(lib), _ones(lib, 3)),
    "inner last dim": lambda lib: lib.inner(_ones(lib, 2, 3), _ones(lib, 4)),
    "inner dtypes": lambda lib: lib.inner(_ones(lib, 2, 3), _ones(lib, 3, dtype="float64")),
    "tensordot negative": lambda lib: lib.tensordot(_ones(lib, 2, 3), _ones(lib, 3, 2), -1),
    "tensordot too many": lambda lib: lib.tensordot(_ones(lib, 2, 3), _ones(lib, 3, 2), 3),
    "tensordot lengths": lambda lib: lib.tensordot(_ones(lib, 2, 3), _ones(lib, 3, 2),
                                                   ([0, 1], [0])),
    "tensordot sizes": lambda lib: lib.tensordot(_ones(lib, 2, 3), _ones(lib, 3, 2), ([0], [0])),
    "tensordot dim range": lambda lib: lib.tensordot(_ones(lib, 2, 3), _ones(lib, 3, 2),
                                                     ([5], [0])),
    "trace rank": lambda lib: lib.trace(_ones(lib, 3)),
    "trace bool": lambda lib: lib.trace(_ones(lib, 2, 2, dtype="bool")),
    "tril rank": lambda lib: lib.tril(_ones(lib, 3)),
    "triu 0-d": lambda lib: lib.triu(_ones(lib)),
    "diag rank": lambda lib: lib.diag(_ones(lib, 2, 2, 2)),
    "diag 0-d": lambda lib: lib.diag(_ones(lib)),
    "diag_embed same dims": lambda lib: lib.diag_embed(_ones(lib, 2, 3), 0, 1, 1),
    "diag_embed same wrapped": lambda lib: lib.diag_embed(_ones(lib, 2, 3), 0, -1, 2),
    "diag_embed dim range": lambda lib: lib.diag_embed(_ones(lib, 2, 3), 0, 1, 5),
    "diag_embed 0-d": lambda lib: lib.diag_embed(_ones(lib)),
    "einsum too few operands": lambda lib: lib.einsum("ij,jk", _ones(lib, 2, 3)),
    "einsum too many operands": lambda lib: lib.einsum("ij", _ones(lib, 2, 3), _ones(lib, 3)),
    "einsum rank": lambda lib: lib.einsum("i", _ones(lib, 2, 3)),
    "einsum ellipsis rank": lambda lib: lib.einsum("ij...k", _ones(lib, 2, 3)),
    "einsum lone dot": lambda lib: lib.einsum("i.j", _ones(lib, 2, 3)),
    "einsum two ellipses": lambda lib: lib.einsum("i...j...", _ones(lib, 2, 3)),
    "einsum bad subscript": lambda lib: lib.einsum("ij->i-", _ones(lib, 2, 3)),
    "einsum bad subscript lhs": lambda lib: lib.einsum("i1", _ones(lib, 2, 3)),
    "einsum output unknown": lambda lib: lib.einsum("ij,jk->il", _ones(lib, 2, 3),
                                                    _ones(lib, 3, 4)),
    "einsum output repeated": lambda lib: lib.einsum("ij,jk->ii", _ones(lib, 2, 3),
                                                     _ones(lib, 3, 4)),
    "einsum repeated sizes": lambda lib: lib.einsum("ii", _ones(lib, 2, 3)),
    "einsum broadcast sizes": lambda lib: lib.einsum("ij,jk->ik", _ones(lib, 2, 3),
                                                     _ones(lib, 4, 4)),
    "einsum dtypes": lambda lib: lib.einsum("i,i->", _ones(lib, 2), _ones(lib, 2, dtype="float64")),
    "vector_norm int": lambda lib: lib.linalg.vector_norm(_ones(lib, 2, dtype="int64")),
    "vector_norm narrowing": lambda lib: lib.linalg.vector_norm(
        _ones(lib, 2, dtype="float64"), dtype=lib.float32),
    "vector_norm ord str": lambda lib: lib.linalg.vector_norm(_ones(lib, 2), "fro"),
    "vector_norm inf empty": lambda lib: lib.linalg.vector_norm(_ones(lib, 0, 3), math.inf),
    "vector_norm -1 empty": lambda lib: lib.linalg.vector_norm(_ones(lib, 0, 3), -1),
    "vector_norm inf empty dim": lambda lib: lib.linalg.vector_norm(_ones(lib, 0, 3), math.inf,
                                                                    dim=0),
    "matrix_norm rank": lambda lib: lib.linalg.matrix_norm(_ones(lib, 3)),
    "matrix_norm ord": lambda lib: lib.linalg.matrix_norm(_ones(lib, 2, 3), 3),
    "matrix_norm ord str": lambda lib: lib.linalg.matrix_norm(_ones(lib, 2, 3), "foo"),
    "matrix_norm same dims": lambda lib: lib.linalg.matrix_norm(_ones(lib, 2, 3), dim=(0, 0)),
    "matrix_norm int": lambda lib: lib.linalg.matrix_norm(_ones(lib, 2, 3, dtype="int64")),
    "norm 3-d with ord": lambda lib: lib.linalg.norm(_ones(lib, 2, 3, 4), 1),
    "norm dim length": lambda lib: lib.linalg.norm(_ones(lib, 2, 3, 4), dim=(0, 1, 2)),
    "norm fro of vector": lambda lib: lib.linalg.norm(_ones(lib, 3), "fro"),
    "vecdot dtypes": lambda lib: lib.linalg.vecdot(_ones(lib, 2, 3),
                                                   _ones(lib, 3, dtype="float64")),
    "vecdot int": lambda lib: lib.linalg.vecdot(_ones(lib, 3, dtype="int64"),
                                                _ones(lib, 3, dtype="int64")),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name, torch):
    _assert_same_error(torch, ERRORS[name])


def test_failed_inplace_leaves_tensor_unchanged():
    x = ember.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        x.tril_()
    assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0


@pytest.mark.parametrize("method", ["tril_", "triu_"])
@pytest.mark.parametrize("diagonal", [0, 1, -1])
def test_inplace_triangles(torch, method, diagonal):
    results = []
    for lib in (ember, torch):
        leaf = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        x = leaf * 2
        y = getattr(x, method)(diagonal)
        assert y is x and x._version == 1
        (x * lib.arange(12.0).reshape(3, 4)).sum().backward()
        results.append((x, leaf.grad, type(x.grad_fn).__name__))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def test_inplace_triangle_on_leaf_refused():
    x = ember.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.triu_()


@given(broadcastable_pairs(max_dims=3, max_side=3), st.integers(1, 3), st.integers(0, 3),
       st.integers(1, 3))
def test_matmul_broadcast_batches(shapes, n, k, p):
    """Any broadcastable batch shapes: values, result strides, and grads match torch."""
    torch = pytest.importorskip("torch")
    a_shape, b_shape = shapes[0] + (n, k), shapes[1] + (k, p)
    outs = []
    for lib in (ember, torch):
        a, b = _pair(lib, a_shape, b_shape, "float64", requires_grad=True)
        out = a @ b
        out.sum().backward()
        outs.append((out, a.grad, b.grad))
    for e, t in zip(*outs):
        assert_same(e, t)
    assert outs[0][0].stride() == outs[1][0].stride()


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3, 2)), ((1, 3), (2, 3, 2)), ((3,), (2, 3, 2)),
                                    ((2, 2, 3), (3, 2)), ((2, 2, 3), (1, 3, 2))])
def test_matmul_grad_fn_chain(torch, shapes):
    """The decomposition matches ATen's node by node, down to the leaves."""
    def chain(node, depth=0):
        if node is None or depth > 6:
            return []
        name = node.name() if hasattr(node, "_saved") else type(node).__name__
        return [(depth, name)] + [entry for next_node, _ in node.next_functions
                                  for entry in chain(next_node, depth + 1)]
    names = []
    for lib in (ember, torch):
        a, b = _pair(lib, *shapes, requires_grad=True)
        names.append(chain((a @ b).grad_fn))
    # ember's reshape of a non-viewable tensor is one node where ATen records two
    # (CloneBackward0 + UnsafeViewBackward0) or ReshapeAliasBackward0: compare the top.
    assert names[0][:2] == names[1][:2]


def test_linear_grad_layout_matches_torch(torch):
    """addmm(bias, x, W.t()): W's gradient comes out contiguous, as in PyTorch."""
    strides = []
    for lib in (ember, torch):
        x, weight = _pair(lib, (4, 3), (2, 3), requires_grad=True)
        bias = lib.zeros(2, requires_grad=True)
        lib.addmm(bias, x, weight.t()).sum().backward()
        strides.append((weight.grad.stride(), x.grad.stride(), bias.grad.shape))
    assert strides[0] == strides[1]


def test_addmm_beta_zero_ignores_nan(torch):
    for lib in (ember, torch):
        out = lib.addmm(lib.full((2, 2), float("nan")), lib.ones(2, 3), lib.ones(3, 2), beta=0)
        assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_addmm_integer_scalars_truncate(torch):
    results = []
    for lib in (ember, torch):
        ones = lib.ones(2, 2, dtype=lib.int64)
        results.append(lib.addmm(ones, ones, ones, beta=0.5, alpha=1.7))
    assert_same(results[0], results[1])


def test_matmul_without_grad_records_nothing():
    a, b = _pair(ember, (2, 2, 3), (3,), requires_grad=True)
    with ember.no_grad():
        out = a @ b
    assert out.grad_fn is None and not out.requires_grad


def test_integer_matmul_has_no_grad_fn(torch):
    for lib in (ember, torch):
        out = lib.ones(2, 3, dtype=lib.int64) @ lib.ones(3, 2, dtype=lib.int64)
        assert out.grad_fn is None and out.dtype == lib.int64


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_products(torch, dtype):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    outs = [lib.mm(lib.tensor(a, dtype=getattr(lib, dtype)),
                   lib.tensor(b, dtype=getattr(lib, dtype))) for lib in (ember, torch)]
    assert_same(outs[0], outs[1], atol=0, rtol=0)  # measured: identical in both dtypes


# ---------------------------------------------------------------- einsum forms
def test_einsum_sublist_format(torch):
    outs = []
    for lib in (ember, torch):
        x, y = _pair(lib, (2, 3), (3, 4))
        outs.append((lib.einsum(x, [0, 1], y, [1, 2], [0, 2]),
                     lib.einsum(x, [0, 1], y, [1, 2]),
                     lib.einsum(x, [Ellipsis, 1], [1]),
                     lib.einsum(x, [27, 0])))
    assert_same(outs[0], outs[1])


@pytest.mark.parametrize("equation, shapes", [
    ("ii->", [(3, 3)]), ("iji->j", [(2, 3, 2)]), ("iij,jk->ik", [(2, 2, 3), (3, 2)]),
    ("ij,ij,ij->", [(2, 3), (2, 3), (2, 3)]), ("...ii->...i", [(2, 3, 3)]),
    ("bij,bkj->bik", [(2, 2, 3), (1, 2, 3)]),
])
def test_einsum_grads_and_double_backward(torch, equation, shapes):
    """Gradients (and gradients of gradients) of repeated and broadcast labels."""
    results = []
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s) for s in shapes]
    for lib in (ember, torch):
        operands = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.einsum(equation, *operands)
        grads = lib.autograd.grad((out * out).sum(), operands, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), operands)
        results.append((out, grads, second))
    assert_same(results[0][0], results[1][0])
    assert_same(list(results[0][1]), list(results[1][1]))
    assert_same(list(results[0][2]), list(results[1][2]))


def test_einsum_result_does_not_alias_operand():
    x = ember.ones(3, 3)
    y = ember.einsum("ij->ji", x)
    x.add_(1)
    assert y.tolist() == [[1.0] * 3] * 3


def test_linalg_namespace():
    assert set(ember.linalg.__all__) >= {"norm", "vector_norm", "matrix_norm", "vecdot",
                                         "matmul"}
    # one op behind both names (each adds only a door: argument errors, out=)
    assert getattr(ember.matmul, "__wrapped__", ember.matmul) is getattr(
        ember.linalg.matmul, "__wrapped__", ember.linalg.matmul)
