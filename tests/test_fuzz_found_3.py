"""What the differential fuzzer found in slice 3 of the op families, as plain cases.

Each test runs one call in torch and in ember and compares the outcomes (tests/oracle.py);
each failed before the fix it pins. The fuzzer itself is tests/test_fuzz.py
(`EMBER_FUZZ_SLICE=3/4` walks this slice).
"""
import math

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, assert_same_outcome


# ---------------------------------------------------------------- vector norms
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("ord", [1e300, 1e-300, -1e300, 400.0, 3.0, 0.5, 0, 2, math.inf])
def test_vector_norm_over_single_elements_is_the_magnitude(torch, dtype, ord):
    """Where each output reduces one element, PyTorch gives |x| exactly (x != 0 for ord 0):
    no |x|**ord round trip that overflows, underflows or loses the last bit."""
    values = np.array([[-3.375], [0.0], [0.5], [2.0]])
    x = {lib: lib.tensor(values, dtype=getattr(lib, dtype)) for lib in (torch, ember)}
    for call in (lambda lib: lib.linalg.vector_norm(x[lib][0, 0], ord),
                 lambda lib: lib.linalg.vector_norm(x[lib][:1], ord),
                 lambda lib: lib.linalg.vector_norm(x[lib], ord, dim=1),
                 lambda lib: lib.linalg.vector_norm(x[lib], ord, dim=(1,), keepdim=True),
                 lambda lib: lib.dist(x[lib][1, 0], x[lib][0, 0], ord)):
        assert_same(call(ember), call(torch), atol=0, rtol=0)


def test_vector_norm_of_one_element_keeps_its_gradient(torch):
    grads = []
    for lib in (torch, ember):
        x = lib.tensor([-3.375], requires_grad=True)
        y = lib.linalg.vector_norm(x, 3)
        assert type(y.grad_fn).__name__ == "LinalgVectorNormBackward0"
        y.backward()
        grads.append(x.grad)
    assert_same(grads[1], grads[0])


# ---------------------------------------------------------------- mvlgamma
@pytest.mark.parametrize("call", [
    lambda lib: lib.mvlgamma(lib.tensor([2, 3], dtype=lib.uint8), 3),
    lambda lib: lib.mvlgamma(lib.tensor([[]], dtype=lib.int8), 3),
    lambda lib: lib.tensor([2, 3]).mvlgamma(2),
    lambda lib: lib.special.multigammaln(lib.tensor([2, 3], dtype=lib.int16), 2),
    lambda lib: lib.mvlgamma(lib.tensor([True]), 3),
    lambda lib: lib.mvlgamma(lib.tensor(True), -2147483649),
    lambda lib: lib.mvlgamma(lib.tensor([2]), 0),
    lambda lib: lib.tensor([2.0]).mvlgamma(2**63),
    lambda lib: lib.tensor([2, 3], dtype=lib.uint8).mvlgamma_(3),
    lambda lib: lib.tensor([2]).mvlgamma_(0),
    lambda lib: lib.tensor([True]).mvlgamma_(0),
    lambda lib: lib.tensor([2.0, 5.0]).mvlgamma_(3),
])
def test_mvlgamma_promotes_integers_and_refuses_bool_first(torch, call):
    assert_same_outcome(call)


def test_mvlgamma_of_integers_records_its_gradient_on_floats_only(torch):
    assert_same_outcome(lambda lib: lib.mvlgamma(lib.tensor([2.5, 4.0], requires_grad=True),
                                                 2).grad_fn.name())


# ---------------------------------------------------------------- clamp / clip bounds
@pytest.mark.parametrize("call", [
    lambda lib: lib.clamp(lib.tensor([1.0, 5.0, -3.0]), lib.tensor(0.0), 2),
    lambda lib: lib.clamp(lib.tensor([1, 5, -3]), lib.tensor(0), 2.5),
    lambda lib: lib.clip(lib.tensor([1, 5, -3]), 0, lib.tensor(2.5)),
    lambda lib: lib.clip(lib.tensor([], dtype=lib.float64), lib.tensor(-1.0, dtype=lib.bfloat16),
                         73972),
    lambda lib: lib.tensor([1.0, 5.0, -3.0]).clamp_(lib.tensor(0.0), 2),
    lambda lib: lib.clamp(lib.tensor([1.0, 5.0, -3.0], requires_grad=True), lib.tensor(0.0), 2),
    lambda lib: lib.clamp(lib.tensor([1, 5, -3]), lib.tensor(0), 2**70),
])
def test_clamp_reads_a_0dim_tensor_beside_a_number_as_a_number(torch, call):
    """PyTorch's parser takes a 0-dim tensor that needs no gradient for a Number: a tensor
    bound beside a number bound goes to clamp's Number overload (ClampBackward1)."""
    assert_same_outcome(call)


@pytest.mark.parametrize("call", [
    lambda lib: lib.clip(lib.tensor([1, 5, -3]), lib.tensor([0, 1, 2]), 2.5),
    lambda lib: lib.clip(lib.tensor([1.0]), lib.tensor(0.5, requires_grad=True), 3),
    lambda lib: lib.clip(lib.tensor([True, True]), min=False,
                         max=lib.tensor(0.095, requires_grad=True)),
    lambda lib: lib.tensor([True]).clip_(min=False, max=lib.tensor(0.5, requires_grad=True)),
    lambda lib: lib.add(lib.ones(2), lib.ones(2), alpha=lib.tensor(2.0, requires_grad=True)),
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2), rtol=lib.tensor(2.0, requires_grad=True)),
])
def test_a_tensor_that_needs_a_gradient_is_no_number(torch, call):
    assert_same_error(call)


# ---------------------------------------------------------------- what torch refuses
@pytest.mark.parametrize("call", [
    lambda lib: lib.result_type(1, 10**30),
    lambda lib: lib.result_type(10**30, 1.5),
    lambda lib: lib.result_type(lib.tensor(1), 2**64),
    lambda lib: lib.result_type(lib.tensor(1), -2**63 - 1),
    lambda lib: lib.result_type(lib.tensor(1), 2**63),
    lambda lib: lib.result_type(lib.tensor(1), -2**63),
])
def test_result_type_takes_ints_that_fit_a_scalar(torch, call):
    assert_same_outcome(call)


@pytest.mark.parametrize("call", [
    lambda lib: lib.broadcast_tensors([]),
    lambda lib: lib.broadcast_tensors([lib.ones(2)]),
    lambda lib: lib.broadcast_tensors((lib.ones(2), lib.ones(1))),
    lambda lib: lib.broadcast_tensors(),
    lambda lib: lib.broadcast_tensors(lib.ones(2), lib.ones(3, 1)),
])
def test_broadcast_tensors_takes_tensors_not_a_list(torch, call):
    assert_same_outcome(call)


def _uniform(lib, *args, **kwargs):
    lib.manual_seed(0)
    return lib.zeros(3).uniform_(*args, **kwargs)


@pytest.mark.parametrize("args, kwargs", [
    ((), {"from": 0.5}), ((), {"from": 0.5, "to": 3}), ((0.5,), {"to": 3}), ((), {"to": 2.0}),
    ((), {"from_": 0.5}), ((), {"fro": 1}), ((), {"from": 3, "to": 1}),
])
def test_uniform_takes_pytorchs_from_keyword(torch, args, kwargs):
    assert_same_outcome(lambda lib: _uniform(lib, *args, **kwargs))


# ---------------------------------------------------------------- in-place comparisons
def _compare_in_place(lib, name):
    out = []
    leaf = lib.tensor([1.0, 0.5], requires_grad=True)
    middle = leaf * 2
    getattr(middle, name)(1.0)
    out.append((middle.tolist(), middle.grad_fn.name(), len(middle.grad_fn.next_functions)))
    middle.sum().backward()
    out.append(leaf.grad.tolist())
    other = lib.tensor([1.0, 2.0], dtype=lib.float16, requires_grad=True)
    x = lib.tensor([1.0, 3.0])
    getattr(x, name)(other)
    out.append((x.tolist(), x.grad_fn.name(), len(x.grad_fn.next_functions)))
    x.sum().backward()
    out.append((other.grad.tolist(), str(other.grad.dtype)))
    x = lib.tensor([1, 3])
    getattr(x, name)(lib.tensor(2.0, requires_grad=True))
    out.append((x.tolist(), x.requires_grad, str(x.dtype)))
    with lib.no_grad():
        x = lib.tensor([1.0, 3.0])
        getattr(x, name)(other)
        out.append(x.requires_grad)
    base = lib.tensor([1.0, 0.5], requires_grad=True) * 2
    view = base[:1]
    getattr(view, name)(1.0)
    out.append((base.grad_fn.name(), view.grad_fn.name()))
    empty = lib.zeros(0, 2, dtype=lib.float64)
    getattr(empty, name)(lib.zeros(0, 2, dtype=lib.float64, requires_grad=True))
    out.append(repr(empty))
    return str(out).replace("torch", "ember")


@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "not_equal_",
                                  "less_", "greater_equal_"])
def test_inplace_comparisons_record_a_zero_gradient(torch, name):
    """Out of place a comparison is bool and records nothing; in place PyTorch records
    EqBackward0 (number other) / EqBackward1 (tensor other), passing zeros back."""
    assert _compare_in_place(ember, name) == _compare_in_place(torch, name)


# ---------------------------------------------------------------- softplus's numbers
@pytest.mark.parametrize("dtype, kwargs", [
    ("float32", {"beta": -4.7e73}), ("float32", {"beta": 0.5, "threshold": -3.5e38}),
    ("bfloat16", {"beta": 1e39}), ("float16", {"beta": 1e5}), ("float64", {"beta": 1e300}),
    ("float32", {"beta": 2**70}), ("float32", {"beta": 2**64}), ("float32", {"beta": True}),
    ("float32", {"beta": np.float64(1e300)}), ("float32", {"beta": np.float64(2.5)}),
    ("float32", {"threshold": math.inf}),
])
def test_softplus_holds_beta_and_threshold_in_the_kernels_float(torch, dtype, kwargs):
    """beta and threshold are floats in the kernel (doubles for float64): an overflowing
    one is refused, a NumPy double does not widen the result."""
    assert_same_outcome(lambda lib: lib.nn.functional.softplus(
        lib.tensor([1.0, 2.0], dtype=getattr(lib, dtype)), **kwargs))


def test_softplus_reads_a_0dim_tensor_beta_as_a_number(torch):
    assert_same_outcome(lambda lib: lib.nn.functional.softplus(
        lib.tensor([1.0, 2.0], requires_grad=True), beta=lib.tensor(2.0), threshold=3))


# ---------------------------------------------------------------- legacy loss flags
_X = [0.095, 3.604, -2.847]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.hinge_embedding_loss(
        lib.tensor(_X), lib.tensor(5), margin=0, size_average=lib.tensor(_X), reduce=0),
    lambda lib: lib.nn.functional.multilabel_soft_margin_loss(
        lib.tensor([_X]), True, size_average=lib.tensor([_X]), reduce=0),
    lambda lib: lib.nn.L1Loss(size_average=lib.tensor(_X), reduce=False),
    lambda lib: lib.nn.functional.l1_loss(lib.tensor(_X), lib.tensor(_X), size_average=True,
                                          reduce=False),
])
@pytest.mark.filterwarnings("ignore:size_average and reduce")
def test_legacy_size_average_is_read_before_reduce(torch, call):
    assert_same_outcome(call)


# ---------------------------------------------------------------- LU of empty batches
@pytest.mark.parametrize("call", [
    lambda lib: lib.lu(lib.zeros(2, 0, dtype=lib.bfloat16)),
    lambda lib: lib.lu(lib.zeros(2, 0, 0, 1, dtype=lib.int8), pivot=True),
    lambda lib: lib.lu(lib.zeros(2, 0, dtype=lib.bfloat16), get_infos=True),
    lambda lib: lib.lu(lib.eye(2), get_infos=True),
    lambda lib: lib.eye(2).lu(get_infos=True),
    lambda lib: lib.lu(lib.zeros(2, 2, dtype=lib.int8)),
    lambda lib: lib.linalg.lu_factor(lib.zeros(2, 0, dtype=lib.int8)),
    lambda lib: lib.linalg.lu_factor_ex(lib.zeros(0, 2, dtype=lib.float16)),
    lambda lib: lib.linalg.lu(lib.zeros(2, 0, dtype=lib.int8)),
    lambda lib: lib.linalg.lu(lib.zeros(0, 3, 3, dtype=lib.bool)),
    lambda lib: lib.linalg.lu(lib.zeros(4, 0, 3)),
    lambda lib: lib.linalg.lu(lib.zeros(2, 0, 3, 3)),
    lambda lib: lib.linalg.lu(lib.ones(2, 2, dtype=lib.float16)),
])
def test_lu_of_an_empty_batch_refuses_no_dtype(torch, call):
    """PyTorch's LU kernel, which refuses integer and half dtypes, never runs on an empty
    batch; m x 0 and 0 x n matrices unpack to empty factors."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_outcome(call)


# ---------------------------------------------------------------- constant padding's value
def _row(lib, dtype="uint8"):
    return lib.tensor([[1, 2, 3]], dtype=getattr(lib, dtype))


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.ConstantPad1d(0, -2)(lib.tensor([[[1, 2]]], dtype=lib.uint8)),
    lambda lib: lib.nn.ConstantPad1d(1, -2)(lib.tensor([[[1, 2]]], dtype=lib.uint8)),
    lambda lib: lib.nn.functional.pad(_row(lib), (-1, 0), value=-2),
    lambda lib: lib.nn.functional.pad(_row(lib), (-1, 1), value=-2),
    lambda lib: lib.nn.functional.pad(_row(lib), (1, 0), value=2.5),
    lambda lib: lib.nn.functional.pad(_row(lib, "bool"), (1, 0), value=-2),
    lambda lib: lib.nn.functional.pad(_row(lib, "float32"), (1, 0), value=2**70),
    lambda lib: lib.nn.functional.pad(_row(lib, "float32"), (1, 0), value=1e300),
    lambda lib: lib.nn.functional.pad(_row(lib, "float16"), (1, 0), value=70000),
    lambda lib: lib.nn.functional.pad(_row(lib, "int64"), (1, 0), value=2**62 + 1),
    lambda lib: lib.constant_pad_nd(_row(lib), (1, 0), value=-2),
    lambda lib: lib.constant_pad_nd(_row(lib), (1, 0), value=-300),
    lambda lib: lib.constant_pad_nd(_row(lib), (0, 0), value=-300),
    lambda lib: lib.constant_pad_nd(_row(lib, "int64"), (1, 0), value=2**62 + 1),
])
def test_constant_pad_converts_its_value_only_when_it_fills(torch, call):
    """F.pad's value is a float (a double: -2 does not wrap into uint8, 2**62 + 1 rounds);
    constant_pad_nd's is a Scalar (an int wraps as fill_ does); padding that fills nothing
    never converts it."""
    assert_same_outcome(call)


@pytest.mark.parametrize("dim", [0, -1, 100, None])
def test_stride_of_a_0dim_tensor_names_the_dim(torch, dim):
    assert_same_outcome(lambda lib: lib.tensor(1.0).stride(dim))
