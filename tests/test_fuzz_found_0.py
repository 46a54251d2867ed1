"""Mismatches the differential fuzzer found in slice 0 of the op families (EMBER_FUZZ_SLICE=0/4),
each pinned as a plain case that runs in torch and in ember and compares with the fuzzer's
own rules (tests/fuzz/compare.py): values, dtype, shape, requires_grad, grad_fn, repr, or
the same exception type and text, and inputs unchanged by a call that raises.
"""

import pytest

import ember

torch = pytest.importorskip("torch")

from fuzz.compare import (call_quietly as _call, check_unchanged,  # noqa: E402
                          compare_errors, compare_results, snapshot)


def same(fn, inputs=None):
    """fn(torch) and fn(ember) give the same result or raise the same error; `inputs(lib)`
    builds the tensors fn receives, so ember's are checked unchanged when it raises."""
    t_in = inputs(torch) if inputs else ()
    e_in = inputs(ember) if inputs else ()
    before = snapshot(e_in)
    t_result, t_error = _call(torch, lambda lib: fn(lib, *t_in) if inputs else fn(lib))
    e_result, e_error = _call(ember, lambda lib: fn(lib, *e_in) if inputs else fn(lib))
    if t_error is not None or e_error is not None:
        assert t_error is not None, f"ember raised {e_error!r}; torch returned {t_result!r}"
        assert e_error is not None, f"torch raised {t_error!r}; ember returned {e_result!r}"
        compare_errors(e_error, t_error)
        check_unchanged(before, e_in)
        return
    compare_results(e_result, t_result)
    compare_results(e_in, t_in, "inputs after the call")


# ---------------------------------------------------------------- silent wrong answers
def test_is_signed_of_bfloat16():
    same(lambda lib: lib.ones(2, dtype=lib.bfloat16).is_signed())
    same(lambda lib: lib.is_signed(lib.ones(2, dtype=lib.bfloat16)))


@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.divide(x, 2, rounding_mode=None),
    lambda lib, x, y: lib.divide(x, y, rounding_mode=None),
    lambda lib, x, y: x.div(y, rounding_mode=None),
    lambda lib, x, y: lib.divide(x, y),
    lambda lib, x, y: x / 2,
    lambda lib, x, y: (x * 1).div_(y, rounding_mode=None),
    lambda lib, x, y: lib.autograd.grad(lib.div(x, y, rounding_mode=None).sum(), (x, y)),
])
def test_div_given_rounding_mode_none_records_divbackward2(call):
    same(lambda lib: call(lib, lib.tensor([1.0, -2.0], requires_grad=True),
                          lib.tensor([3.0, 4.0], requires_grad=True)))


@pytest.mark.parametrize("p", [2, 3, 1e-5, -1, 0.5, 0, float("inf")])
def test_norm_of_one_element_per_output_is_its_magnitude(p):
    """PyTorch gives |x| exactly: no |x|**p rounding, no overflow of 1e30**2 in float32."""
    values = [[[3.45], [-2.733], [1e30], [0.0], [float("nan")]]]
    same(lambda lib: lib.tensor(values).norm(p, -1, True))
    same(lambda lib: lib.tensor(values).transpose(0, 2).norm(p, dim=0))
    same(lambda lib: lib.linalg.vector_norm(lib.tensor([-3.45]), p))
    same(lambda lib: lib.linalg.vector_norm(lib.tensor([[-3.45]], dtype=lib.float16), p,
                                            keepdim=True))


@pytest.mark.parametrize("args", [
    (0, ()), (2, (2, 2)), (2, (2, 2), (1, 2)), (0, (2,), (1, 1)), (-1, (2,)), (0, (-2,)),
    (0, (3, -1)), (0, (2, 3), (1, -1)), (0, (3, 0), (-1, -1)), (0, (1,), (-1,)),
])
@pytest.mark.parametrize("source", ["tensor", "view", "storage"])
def test_set_to_a_window_of_a_tensor_or_storage(source, args):
    """A tensor source with an offset and sizes is a window on its memory, the offset counted
    from the source's own; bad geometries raise PyTorch's setStorage messages."""
    def inputs(lib):
        base = lib.arange(12, dtype=lib.uint8).reshape(3, 4)
        return lib.tensor(3, dtype=lib.uint8), base, base[1:]

    def call(lib, x, base, view):
        src = {"tensor": base, "view": view, "storage": base.untyped_storage()}[source]
        out = x.set_(src, *args)    # (an empty array keeps no offset in ember: not compared)
        return out, out.stride(), out.storage_offset() if out.numel() else None
    same(call, inputs)


def test_set_offset_without_sizes_is_refused():
    same(lambda lib: lib.tensor(3.0).set_(lib.ones(3), storage_offset=1))


def test_set_growing_a_storage_reads_the_grown_memory():
    """The window is taken on the grown buffer (it read past the old one's end)."""
    x, base = ember.tensor(3, dtype=ember.uint8), ember.arange(12, dtype=ember.uint8)
    x.set_(base.untyped_storage(), 0, (20,))
    assert x.tolist()[:12] == list(range(12)) and x.storage_offset() == 0


@pytest.mark.parametrize("name", ["ge_", "eq_", "lt_", "greater_equal_", "not_equal_"])
@pytest.mark.parametrize("other", ["tensor", "number", "empty"])
def test_inplace_comparison_records_a_zero_gradient_node(name, other):
    """PyTorch records GeBackward0/1 for x.ge_(y) when x or y needs a gradient."""
    def call(lib):
        shape = (2, 0) if other == "empty" else (3,)
        x = lib.zeros(shape, dtype=lib.float64, requires_grad=True) * 1
        y = lib.ones(shape, dtype=lib.float64, requires_grad=True)
        getattr(x, name)(2.0 if other == "number" else y)
        x.sum().backward()
        return x, len(x.grad_fn.next_functions), y.grad
    same(call)
    same(lambda lib: getattr(lib.zeros(2), name)(lib.ones(2, requires_grad=True)))


@pytest.mark.parametrize("call", [
    lambda lib, x, s: lib.zeros(2).set_(s),
    lambda lib, x, s: x.set_(lib.ones(3)),
    lambda lib, x, s: x.set_(),
    lambda lib, x, s: x.set_(lib.ones(3).untyped_storage()),
    lambda lib, x, s: lib.zeros(2).set_(s, 0, (1,)),
    lambda lib, x, s: x.set_(lib.ones(2), 0, (2,)),
])
def test_set_records_a_node_without_derivative(call):
    def run(lib):
        out = call(lib, lib.zeros(2, requires_grad=True) * 1, lib.ones(2, requires_grad=True))
        edges = out.grad_fn and [f is None for f, _ in out.grad_fn.next_functions]
        return out, edges
    same(run)
    same(lambda lib: call(lib, lib.zeros(2, requires_grad=True) * 1,
                          lib.ones(2, requires_grad=True)).sum().backward())


@pytest.mark.parametrize("name, args", [
    ("exponential_", (-1,)), ("normal_", (0, -1)), ("geometric_", (2,)), ("log_normal_", (0, -1)),
    ("uniform_", (1, 0)), ("random_", (3, 1)), ("cauchy_", (0, -1)), ("bernoulli_", (2,)),
    ("exponential_", ()), ("normal_", ()), ("geometric_", (0.5,))])
@pytest.mark.parametrize("shape", [(2, 0), (2,)])
def test_inplace_sampling_refuses_a_leaf_first(name, args, shape):
    """The leaf rule comes before the parameter check and the empty-tensor early return."""
    same(lambda lib: getattr(lib.zeros(shape, requires_grad=True), name)(*args))


@pytest.mark.parametrize("call", [
    lambda lib, x, i, s: lib.scatter(x, 0, i, src=s, value=0.0),
    lambda lib, x, i, s: x.scatter(0, i, src=s, value=0.0),
    lambda lib, x, i, s: x.scatter_(0, i, s, value=0.0),
    lambda lib, x, i, s: x.scatter(0, i, 2.0, value=1.0),
])
def test_scatter_refuses_src_and_value_together(call):
    same(call, lambda lib: (lib.zeros(3), lib.tensor([0]), lib.ones(1)))


@pytest.mark.parametrize("call", [
    lambda lib, v: lib.full((2,), v), lambda lib, v: lib.full((2,), fill_value=v),
    lambda lib, v: lib.full_like(lib.zeros(2), v), lambda lib, v: lib.zeros(2).new_full((2,), v),
    lambda lib, v: lib.zeros(2).fill_(v),
])
@pytest.mark.parametrize("grad", [False, True])
def test_a_number_argument_refuses_a_tensor_that_needs_grad(call, grad):
    """PyTorch's parser takes a 0-dim tensor for a Number only when it needs no gradient."""
    same(lambda lib: call(lib, lib.tensor(1.5, requires_grad=grad)))


def test_pairwise_distance_over_one_element_is_its_magnitude():
    same(lambda lib: lib.nn.functional.pairwise_distance(
        lib.tensor([[[-1.358], [0.598]]]), lib.tensor(-1), p=2**31, eps=1.0))


@pytest.mark.parametrize("args", [(True,), (False,), (True, True), (1.5,), (2.5, True),
                                  (True, False, True)])
def test_to_a_python_number_takes_its_wrapped_dtype(args):
    """x.to(True) fits to(Tensor other) with True as a wrapped number: bool (a float: double)."""
    same(lambda lib: lib.ones(2).to(*args))


@pytest.mark.parametrize("stride", [-1, (1, -1, 2), (1, 1, -1), (-1, 1, 1)])
@pytest.mark.parametrize("call", [
    lambda F, x, s, s2, s1: F.avg_pool3d(x, 1, s), lambda F, x, s, s2, s1: F.max_pool3d(x, 1, s),
    lambda F, x, s, s2, s1: F.avg_pool2d(x, 1, s2), lambda F, x, s, s2, s1: F.max_pool2d(x, 1, s2),
    lambda F, x, s, s2, s1: F.avg_pool1d(x[0], 1, s1),
    lambda F, x, s, s2, s1: F.lp_pool2d(x, 2, 1, s2),
])
def test_pooling_refuses_a_negative_stride(call, stride):
    """A negative stride gave a result (avg/lp pools) where PyTorch refuses it."""
    s2 = stride[:2] if isinstance(stride, tuple) else stride
    s1 = stride[:1] if isinstance(stride, tuple) else stride
    same(lambda lib: call(lib.nn.functional, lib.ones(1, 3, 3, 3), stride, s2, s1))


@pytest.mark.parametrize("running_var", [lambda lib: lib.tensor(1.0, dtype=lib.float64),
                                         lambda lib: lib.ones(1, 4, 1, dtype=lib.float64)])
def test_batch_norm_update_stats_refusal_changes_no_running_tensor(running_var):
    """running_mean was updated before running_var's shape was refused."""
    same(lambda lib, x, mean, var: lib.batch_norm_update_stats(x, mean, var, 0.5),
         lambda lib: (lib.tensor([[[-1.6], [1.3], [0.1], [-0.7]]], dtype=lib.float64),
                      lib.tensor([-0.6, 1.7, 3.4, 3.6], dtype=lib.float64), running_var(lib)))


def test_batch_norm_update_stats_refuses_a_running_mean_of_another_size():
    """PyTorch writes past the end of a too-short running_mean (heap corruption, not
    replicated); ember refuses it in F.batch_norm's words and leaves it unchanged."""
    mean = ember.zeros(3, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        ember.batch_norm_update_stats(ember.ones(2, 4, 1, dtype=ember.float64), mean, None, 0.5)
    assert mean.tolist() == [0.0, 0.0, 0.0] and mean._version == 0


def test_t_in_place_names_itself_when_refusing():
    same(lambda lib: lib.ones(2, 2, 2).t_())
    same(lambda lib: lib.ones(2, 2, 2).t())
