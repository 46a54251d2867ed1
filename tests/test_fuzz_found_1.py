"""What the differential fuzzer found in slice 1 of the op families (EMBER_FUZZ_SLICE=1/4).

Each test is one drawn call (or its family) made a plain comparison with torch: the same
result (values, dtype, repr, requires_grad, grad_fn) or the same exception and text.
"""
import pytest

import ember
from oracle import assert_same_outcome


def _grad_fn_name(result):
    return None if result.grad_fn is None else result.grad_fn.name()


# ---------------------------------------------------------------- autograd and dtypes
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float64"])
@pytest.mark.parametrize("call", [
    lambda x, d: x.sum(dtype=d), lambda x, d: x.sum(0, dtype=d),
    lambda x, d: x.sum((0,), True, dtype=d), lambda x, d: x.nansum(dtype=d),
    lambda x, d: x.prod(dtype=d), lambda x, d: x.prod(1, dtype=d),
    lambda x, d: x.cumsum(0, dtype=d), lambda x, d: x.cumprod(1, dtype=d),
    lambda x, d: x.mean(dtype=d), lambda x, d: x.mean(5, dtype=d),
    lambda x, d: x.nanmean(dtype=d), lambda x, d: x.nanmean(5, dtype=d),
], ids=["sum", "sum_dim", "sum_keepdim", "nansum", "prod", "prod_dim", "cumsum", "cumprod",
        "mean", "mean_bad_dim", "nanmean", "nanmean_bad_dim"])
def test_reduction_to_a_dtype_under_autograd(torch, call, dtype):
    """Only floating results carry a gradient: an integer or bool dtype= of an input that
    requires grad raises 'Autograd not support dtype'; a mean refuses one before its dims."""
    def run(lib):
        x = lib.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        out = call(x, getattr(lib, dtype))
        return out, _grad_fn_name(out)
    assert_same_outcome(run)


@pytest.mark.parametrize("dtype", ["bool", "int64"])
@pytest.mark.parametrize("name", ["mean", "nanmean"])
def test_mean_refuses_an_integer_dtype_without_grad(torch, name, dtype):
    assert_same_outcome(lambda lib: getattr(lib.ones(0), name)(dtype=getattr(lib, dtype)))
    assert_same_outcome(lambda lib: lib.mean(lib.ones(2, dtype=lib.int32),
                                             dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (2, 0)])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_to_bool(torch, name, shape):
    """PyTorch's scans have no bool kernel: a non-empty, non-0-dim bool scan is refused."""
    assert_same_outcome(lambda lib: getattr(lib.ones(shape), name)(0, dtype=lib.bool))
    assert_same_outcome(lambda lib: getattr(lib, name)(lib.ones(shape, dtype=lib.bool), 0,
                                                       dtype=lib.bool))


# ---------------------------------------------------------------- integer division by zero
@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
@pytest.mark.parametrize("a, b", [
    ("ones(0, 3, dtype=lib.uint8)", "tensor(0, dtype=lib.uint8)"),
    ("ones(0, 3, dtype=lib.int32)", "0"),
    ("ones(2, dtype=lib.int32)", "zeros(0, dtype=lib.int32)"),
    ("ones((), dtype=lib.int32)", "zeros(1, 0, dtype=lib.int32)"),
    ("ones(2, dtype=lib.int32)", "zeros(3, dtype=lib.int32)"),   # broadcast error first
    ("ones(2, dtype=lib.int32)", "zeros(2, dtype=lib.int32)"),   # ZeroDivisionError
])
def test_integer_division_by_zero_of_empty_tensors(torch, name, a, b):
    def run(lib):
        make = lambda text: eval(text if text.isdigit() else "lib." + text)  # noqa: E731
        return getattr(lib, name)(make(a), make(b))
    assert_same_outcome(run)


# ---------------------------------------------------------------- div's nodes
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.div(x, 2, rounding_mode=None),
    lambda lib, x: lib.divide(x, lib.tensor([2.0, 4.0]), rounding_mode=None),
    lambda lib, x: x.div(2.5, rounding_mode=None),
    lambda lib, x: x.clone().div_(lib.tensor(2.0), rounding_mode=None),
    lambda lib, x: x.div(2), lambda lib, x: x / 2,
    lambda lib, x: lib.div(x, 3, rounding_mode="floor"),
])
def test_div_with_rounding_mode_none_records_divbackward2(torch, call):
    """rounding_mode passed at all (even None) is PyTorch's other overload: DivBackward2,
    with true division's gradients."""
    def run(lib):
        x = lib.tensor([1.0, -3.0], requires_grad=True)
        out = call(lib, x)
        out.sum().backward()
        return out, _grad_fn_name(out), x.grad
    assert_same_outcome(run)


# ---------------------------------------------------------------- graph membership
@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_"])
@pytest.mark.parametrize("other", ["tensor", "number"])
def test_inplace_comparison_keeps_the_graph(torch, name, other):
    """x.lt_(y) under autograd: x records LtBackward0/1 (zero gradients), as in PyTorch."""
    def run(lib):
        a = lib.tensor([0.0, 2.0], requires_grad=True)
        b = lib.tensor([1.0, 1.0], requires_grad=True)
        x = a.clone()
        getattr(x, name)(b if other == "tensor" else 1.0)
        x.sum().backward()
        return x, _grad_fn_name(x), a.grad, b.grad
    assert_same_outcome(run)


def test_new_of_a_tensor_aliases_it(torch):
    def run(lib):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        out = lib.zeros(2).new(t)
        return out, _grad_fn_name(out), out.data_ptr() == t.data_ptr()
    assert_same_outcome(run)


@pytest.mark.parametrize("shape", [(2, 4, 0, 4), (0, 1, 2, 4), (1, 1, 2, 0), (1, 4, 2, 2)])
def test_pixel_unshuffle_of_an_empty_input_keeps_its_shape(torch, shape):
    """(PyTorch's backward then fails on its own shape check; ember's gives x's shape.)"""
    def run(lib):
        out = lib.pixel_unshuffle(lib.ones(shape, requires_grad=True), 2)
        return out, _grad_fn_name(out)
    assert_same_outcome(run)


@pytest.mark.parametrize("call", [
    lambda lib, t: lib.full((2,), t), lambda lib, t: lib.zeros(1).new_full((2,), t),
    lambda lib, t: lib.scalar_tensor(t)])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_tensor_that_requires_grad_is_no_number(torch, call, requires_grad):
    assert_same_outcome(lambda lib: call(lib, lib.tensor(2.5, requires_grad=requires_grad)))


# ---------------------------------------------------------------- nn
def test_instance_norm_float64_input_float32_running_stats(torch):
    """Running statistics of another dtype are allowed (only weight and bias must match)."""
    def run(lib):
        norm = lib.nn.InstanceNorm2d(2, track_running_stats=True, momentum=0.5)
        out = norm(lib.arange(18, dtype=lib.float64).reshape(1, 2, 3, 3))
        return out.dtype, norm.running_mean, norm.running_var
    assert_same_outcome(run)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
@pytest.mark.parametrize("shape", [(2, 3, 2), (1, 3, 2, 2)])
def test_local_response_norm_of_integers(torch, dtype, shape):
    """int64 is averaged by PyTorch's integer pooling (rounded toward zero); the other
    integer dtypes and bool have no pooling kernel."""
    def run(lib):
        x = (lib.arange(12) % 5).reshape(shape).to(getattr(lib, dtype))
        return lib.nn.LocalResponseNorm(2, alpha=0.5)(x)
    assert_same_outcome(run)


def test_poisson_nll_loss_takes_no_number_target(torch):
    assert_same_outcome(lambda lib: lib.nn.functional.poisson_nll_loss(lib.ones(2), 3))


def test_tensor_repeat_interleave_needs_repeats(torch):
    assert_same_outcome(lambda lib: lib.tensor([2, 3]).repeat_interleave())
    assert_same_outcome(lambda lib: lib.repeat_interleave(lib.tensor([2, 3])))


# ---------------------------------------------------------------- einsum of integers and bools
@pytest.mark.parametrize("dtype", ["bool", "int8"])
@pytest.mark.parametrize("equation, shapes", [
    ("i->", [(3,)]), ("ij->j", [(2, 3)]), ("ii->", [(2, 2)]), ("ii->i", [(2, 2)]),
    ("i,i->", [(2,), (2,)]), ("i,i->i", [(2,), (2,)]), ("ij,j->", [(2, 2), (2,)]),
    ("j,ij->", [(2,), (2, 2)]), ("ij,j->j", [(2, 2), (2,)]), ("i,j->", [(2,), (3,)]),
    ("i,j->i", [(2,), (3,)]), ("ij,jk->ik", [(2, 2), (2, 2)]), ("i,j,k->ijk", [(2,), (2,), (2,)]),
    ("i,i->", [(0,), (0,)]), ("i,ij->", [(0,), (0, 2)]), ("ij,j->i", [(2, 2), (1,)]),
    ("i,i->", [(1,), (1,)]), ("i,j,ij->", [(2,), (2,), (2, 2)]),
])
def test_einsum_of_integers_follows_pytorchs_steps(torch, equation, shapes, dtype):
    """Labels summed out of one operand promote to int64 as `sum` does; a pair with nothing
    to sum is multiplied; one with something to sum goes to bmm (one dtype, no bool)."""
    value = True if dtype == "bool" else 100
    assert_same_outcome(lambda lib: lib.einsum(
        equation, *[lib.full(shape, value, dtype=getattr(lib, dtype)) for shape in shapes]))


@pytest.mark.parametrize("args", [("i->",), ("i->", ()), ("i->", []), ()])
def test_einsum_without_operands(torch, args):
    assert_same_outcome(lambda lib: lib.einsum(*args))


# ---------------------------------------------------------------- error precedence and text
@pytest.mark.parametrize("call", [
    lambda lib: lib.trace(lib.ones(2, 2, 2, dtype=lib.bool)),
    lambda lib: lib.trace(lib.ones(2, 2, 2, dtype=lib.int8)),
    lambda lib: lib.triangular_solve(lib.ones(()), lib.ones(())),
    lambda lib: lib.triangular_solve(lib.ones(2, 2), lib.ones(3)),
    lambda lib: lib.triangular_solve(lib.ones(2, 2, dtype=lib.int16),
                                     lib.ones(2, 2, dtype=lib.int16)),
    lambda lib: lib.cholesky_inverse(lib.ones(2, 2, dtype=lib.int16)),
    lambda lib: lib.cholesky_inverse(lib.ones(0, 0, dtype=lib.bool)),
    lambda lib: lib.cholesky_inverse(lib.ones(3, 0, dtype=lib.int16)),
    lambda lib: lib.linalg.qr(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib: lib.repeat_interleave(lib.ones(2, 2, dtype=lib.int64)),
], ids=["trace_bool", "trace_int", "triangular_solve_0d", "triangular_solve_1d_A",
        "triangular_solve_int", "cholesky_inverse_int", "cholesky_inverse_bool",
        "cholesky_inverse_not_square", "qr_int", "repeat_interleave_2d"])
def test_error_precedence_and_text(torch, call):
    assert_same_outcome(call)


def test_concat_of_nothing_keeps_torch_cat_word_for_word(torch):
    """The one text ember keeps with `torch.` in it (tests/test_joining.py pins cat's)."""
    texts = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            lib.concat([])
        texts.append(str(info.value))
    assert texts[0] == texts[1] == "torch.cat(): expected a non-empty list of Tensors"


def test_detach_copy_node_name(torch):
    names = [lib.detach_copy(lib.ones(2, requires_grad=True)).grad_fn.name()
             for lib in (torch, ember)]
    assert names[1] == names[0].replace("torch::", "ember::")


@pytest.mark.parametrize("call", [
    lambda lib: lib.cross(lib.tensor(1.0), lib.tensor(2.0)),
    lambda lib: lib.cross(lib.tensor(1.0), lib.tensor(2.0), -1),
    lambda lib: lib.linalg.cross(lib.tensor(1.0), lib.tensor(2.0)),
    lambda lib: lib.cross(lib.ones(1), lib.ones(0)),
    lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 3)),
])
def test_cross_without_a_dimension_of_size_3(torch, call):
    assert_same_outcome(call)
