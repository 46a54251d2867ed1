"""The backward pass's array shortcuts give exactly what the op formulas give.

Without `create_graph`, a few hot backward formulas (MeanBackward0, PowBackward0,
MmBackward0, MulBackward0 by a number, un-broadcasting in Add/Sub) work on the
arrays directly instead of through ops. With `create_graph=True` the same nodes run
their op formulas, so comparing the two passes pins the shortcut bit for bit (values,
dtype, shape and strides); torch pins the values.
"""
import numpy as np
import pytest

import ember
from oracle import assert_same

RNG = np.random.default_rng(7)


def _grads(fn, arrays, create_graph):
    leaves = [ember.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*leaves)
    out.backward(create_graph=create_graph)
    return [leaf.grad for leaf in leaves]


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


CASES = {
    "mean_all": (lambda x: x.mean(), [(4, 5)]),
    "mean_dim": (lambda x: (x.mean(1) * 3.0).sum(), [(4, 5)]),
    "mean_keepdim": (lambda x: (x.mean((0, 2), keepdim=True) * 2.5).sum(), [(3, 4, 2)]),
    "pow2": (lambda x: (x ** 2).mean(), [(6,)]),
    "pow3": (lambda x: (x ** 3).sum(), [(6,)]),
    "pow_half": (lambda x: (x.abs() ** 0.5).sum(), [(6,)]),
    "pow_float": (lambda x: (x.abs() ** 2.5).sum(), [(6,)]),
    "pow_neg": (lambda x: (x ** -1).sum(), [(6,)]),
    "pow_bool": (lambda x: (x ** True).sum(), [(6,)]),
    "mm": (lambda a, b: (a @ b).sum(), [(5, 3), (3, 4)]),
    "mm_transposed": (lambda a, b: (a.t() @ b.t()).sum(), [(3, 5), (4, 3)]),
    "mul_number": (lambda x: (x * 1.01 * -0.5).sum(), [(7,)]),
    "add_broadcast": (lambda a, b: ((a + b) * 2.0).sum(), [(4, 3), (3,)]),
    "sub_broadcast": (lambda a, b: ((a - b) * 2.0).sum(), [(2, 4, 3), (4, 1)]),
    "linreg": (lambda w, b, X, Y: ((X @ w + b - Y) ** 2).mean(), [(1, 1), (1,), (9, 1), (9, 1)]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_array_shortcut_matches_op_formula_and_torch(name, dtype, torch):
    fn, shapes = CASES[name]
    arrays = [RNG.standard_normal(s).astype(dtype) + 0.1 for s in shapes]
    fast = _grads(fn, arrays, create_graph=False)
    recorded = _grads(fn, arrays, create_graph=True)
    for a, b in zip(fast, recorded):
        _same_bits(a, b)
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(*leaves).backward()
    for mine, theirs in zip(fast, leaves):
        assert_same(mine, theirs.grad)


def test_shortcut_leaves_float16_to_the_ops(torch):
    x = RNG.standard_normal((4, 3)).astype(np.float16)
    e, t = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ((e ** 2).mean() * 3.0).backward()
    ((t ** 2).mean() * 3.0).backward()
    assert_same(e.grad, t.grad)


def test_zero_fast_path_counts_a_version_and_zeroes_an_expanded_tensor(torch):
    for lib in (ember, torch):
        base = lib.ones(3)
        before = base._version
        base.zero_()
        assert base._version == before + 1
        wide = lib.ones(1).expand(4)
        wide.zero_()
        assert wide.tolist() == [0.0] * 4
        leaf = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            leaf.zero_()
        assert leaf.tolist() == [0.0, 0.0] and leaf.grad_fn is None
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            lib.ones(2, requires_grad=True).zero_()


def test_loss_backward_refuses_a_non_scalar_and_a_leaf_keeps_working(torch):
    for lib in (ember, torch):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
            (x * 2.0).backward()
        leaf = lib.ones((), requires_grad=True)
        leaf.backward()
        assert leaf.grad.item() == 1.0


def test_as_strided_views_share_memory_and_keep_bounds(torch):
    base = np.arange(12, dtype=np.float32)
    e, t = ember.tensor(base), torch.tensor(base)
    for args in [((3, 2), (4, 1)), ((2, 2), (0, 1)), ((4,), (3,), 1)]:
        ev, tv = e.as_strided(*args), t.as_strided(*args)
        assert_same(ev, tv)
        assert ev.stride() == tv.stride() and ev.storage_offset() == tv.storage_offset()
    view = e.as_strided((2, 2), (1, 1))
    view[0, 0] = 100.0
    assert e[0].item() == 100.0
    assert ember.ones(1).expand(3, 2).stride() == torch.ones(1).expand(3, 2).stride()
