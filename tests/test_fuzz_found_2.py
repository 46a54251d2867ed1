"""Mismatches the differential fuzzer found in slice 2 of the op families (EMBER_FUZZ_SLICE=2/4),
each pinned as a plain call compared with torch after its fix.

Grouped by mechanism, most harmful first: silent wrong answers, then calls one library
refuses and the other answers, then exception types and texts.
"""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, assert_same_outcome


# ---------------------------------------------------------------- the leaf rules of in-place ops
def _view_leaf(lib):
    """A view made a leaf: `requires_grad_()` on a transpose of a plain tensor."""
    t = lib.ones(3, 2).transpose(-1, -2)
    t.requires_grad_()
    return t


IN_PLACE = [
    ("abs_", ()), ("negative_", ()), ("rsqrt_", ()), ("asin_", ()), ("floor_", ()),
    ("conj_physical_", ()), ("squeeze_", ()), ("t_", ()), ("zero_", ()), ("fill_", (1,)),
    ("copy_", (np.ones((2, 3)),)), ("as_strided_", ((2,), (1,))), ("clamp_", (0, 1)),
]


@pytest.mark.parametrize("name, args", IN_PLACE, ids=[c[0] for c in IN_PLACE])
@pytest.mark.parametrize("make", ["view made a leaf", "slice of a leaf", "slice of a view leaf",
                                  "leaf"])
def test_inplace_write_into_a_leaf_or_a_view_of_one(torch, name, args, make):
    """A view whose base is a leaf is refused in its own words even when the base does not
    require grad (the view was made a leaf by requires_grad_())."""
    def call(lib):
        if make == "view made a leaf":
            x = _view_leaf(lib)
        elif make == "slice of a leaf":
            x = lib.ones(2, 4, requires_grad=True)[:, 1:]
        elif make == "slice of a view leaf":
            x = _view_leaf(lib)[:, :]
        else:
            x = lib.ones(2, 3, requires_grad=True)
        values = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        return getattr(x, name)(*values)
    assert_same_error(call)


def test_view_of_a_non_leaf_may_be_written(torch):
    def call(lib):
        y = lib.ones(2, 3, requires_grad=True) * 2
        v = y.transpose(0, 1)
        v.abs_()
        return v
    assert_same_outcome(call)


SAMPLERS = [("cauchy_", (0, -1)), ("log_normal_", (1, 0)), ("exponential_", (-1,)),
            ("geometric_", (1,)), ("uniform_", (2, 1)), ("normal_", (0, -1)),
            ("random_", (5, 1)), ("bernoulli_", (2.0,)), ("log_normal_", ())]


@pytest.mark.parametrize("name, args", SAMPLERS, ids=[c[0] for c in SAMPLERS])
@pytest.mark.parametrize("shape", [(2, 3), (0, 3)])
def test_sampler_refuses_a_leaf_before_checking_its_arguments(torch, name, args, shape):
    """Autograd's refusal comes before the kernel's bounds checks and an empty tensor's
    early return."""
    assert_same_error(lambda lib: getattr(lib.ones(shape, requires_grad=True), name)(*args))
    assert_same_error(lambda lib: getattr(lib.ones(2, 4, requires_grad=True)[:, 1:],
                                          name)(*args))


@pytest.mark.parametrize("value", [2**64, 2**70, -2**63 - 1])
@pytest.mark.parametrize("name", ["add_", "fill_", "clamp_max_", "mul_"])
def test_int_past_64_bits_refused_before_the_leaf_rule(torch, name, value):
    """PyTorch's argument parser converts the number before autograd sees the tensor."""
    assert_same_error(lambda lib: getattr(lib.ones(2, requires_grad=True), name)(value))


# ---------------------------------------------------------------- in-place comparisons record
@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "less_",
                                  "greater_", "less_equal_", "greater_equal_", "not_equal_"])
@pytest.mark.parametrize("other", ["number", "tensor"])
def test_inplace_comparison_records_a_zero_gradient_node(torch, name, other):
    """`x.gt_(y)` has a node (GtBackward0 for a number, GtBackward1 for a tensor) where `gt`
    has none; its gradient is zero for both inputs."""
    def call(lib):
        leaf = lib.tensor([0.5, 1.5, -2.0], requires_grad=True)
        y = lib.tensor([1.0], requires_grad=True)
        x = leaf * 1
        out = getattr(x, name)(1.0 if other == "number" else y)
        assert out is x
        out.sum().backward()
        return (out.grad_fn.name(), out.requires_grad, leaf.grad,
                y.grad if other == "tensor" else None)
    assert_same_outcome(call)
    assert_same_outcome(lambda lib: call(lib)[2])


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_inplace_comparison_with_an_operand_that_requires_grad(torch, dtype):
    """A plain x compared in place with a y that requires grad takes a node, integer x too."""
    def call(lib):
        x = lib.zeros(2, 3, dtype=getattr(lib, dtype))
        out = x.gt_(lib.ones(3, dtype=lib.float64, requires_grad=True))
        return out.requires_grad, out.grad_fn.name()
    assert_same_outcome(call)
