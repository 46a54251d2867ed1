"""Mismatches the differential fuzzer (tests/test_fuzz.py) found, as plain cases.

Each test runs one call in torch and in ember and compares outcomes with the fuzzer's
rules (tests/fuzz/compare.py). Those marked xfail(strict=True) are open: the reason
names the owner; when a fix lands the test passes, xfail turns it red, and the marker
(and the matching entry in test_fuzz.KNOWN) comes off.
"""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

from fuzz.compare import Mismatch, compare_errors, compare_results  # noqa: E402


def same(fn, random=False):
    """fn(torch) and fn(ember) give the same result, or raise the same error."""
    t_result, t_error = _call(torch, fn)
    e_result, e_error = _call(ember, fn)
    if t_error is not None or e_error is not None:
        assert t_error is not None, f"ember raised {e_error!r}; torch returned {t_result!r}"
        assert e_error is not None, f"torch raised {t_error!r}; ember returned {e_result!r}"
        compare_errors(e_error, t_error)
        return
    compare_results(e_result, t_result, random=random)


def _call(lib, fn):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(lib), None
    except Mismatch:
        raise
    except Exception as error:    # noqa: BLE001 - the outcome compared
        return None, error


def xfail(owner, what):
    return pytest.mark.xfail(strict=True, raises=(AssertionError, Mismatch),
                             reason=f"{what} (owner: {owner})")


# ---------------------------------------------------------------- results and invariants
def test_normal_of_0dim_tensors_holds_an_array():
    out = ember.normal(ember.tensor(0.5), ember.tensor(2.0))
    assert isinstance(out._data, np.ndarray), type(out._data)


def test_bernoulli_of_0dim_bfloat16_holds_an_array():
    out = ember.bernoulli(ember.tensor(0.5, dtype=ember.bfloat16))
    assert isinstance(out._data, np.ndarray), type(out._data)


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_reduction_with_explicit_dim_none_grad_fn(name):
    same(lambda lib: getattr(lib, name)(lib.tensor([1.0, 2.0], requires_grad=True), dim=None))


@xfail("argcheck: ember/_tensor.py", "Tensor.layout is a string, not a layout object")
def test_layout_is_an_object():
    same(lambda lib: lib.ones(2).layout)


@xfail("scalars: ember/_dtype.py", "a NumPy scalar takes part in promotion as a Python number")
def test_result_type_of_numpy_scalar_and_int_tensor():
    same(lambda lib: lib.result_type(np.float16(1.5), lib.tensor(0, dtype=lib.int16)))


@xfail("coverage: ember/ops/reduction.py", "dim is checked against a 0-dim input's range [-1, 0]")
def test_norm_of_0dim_with_out_of_range_dim():
    same(lambda lib: lib.norm(lib.tensor(1.0), dim=-2))


def test_clamp_int_tensor_with_huge_bound():
    same(lambda lib: lib.clamp(lib.tensor([1, 2], dtype=lib.int32), min=10**30))


@xfail("scalars: ember/ops/pointwise_binary.py", "lerp checks weight's dtype against input's")
def test_lerp_with_bool_weight():
    same(lambda lib: lib.lerp(lib.zeros(2, dtype=lib.float64), lib.zeros(2, dtype=lib.float64),
                              lib.zeros(2, dtype=lib.bool)))


@xfail("coverage: ember/ops/sorting.py", "median of an empty bfloat16 tensor")
def test_median_of_empty_bfloat16():
    same(lambda lib: lib.median(lib.zeros(0, dtype=lib.bfloat16)))


@xfail("coverage/argcheck: ember/ops/nn_ops.py, nn_activation.py",
       "softmax/log_softmax to an integer dtype on empty input")
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_to_int_dtype_of_empty(name):
    same(lambda lib: getattr(lib, name)(lib.zeros(0, 2, dtype=lib.float64), 0, dtype=lib.int16))


@xfail("scalars: ember/ops/pointwise_select.py", "torch still accepts a uint8 condition")
def test_where_with_uint8_condition():
    same(lambda lib: lib.ones(2).where(lib.tensor([1, 0], dtype=lib.uint8), lib.zeros(2)))


@xfail("argcheck: ember/_tensor.py (leaf check)", "non-differentiable in-place ops on a leaf "
       "that requires grad are allowed in torch")
def test_logical_and_inplace_on_leaf_requiring_grad():
    same(lambda lib: lib.tensor(1.0, requires_grad=True).logical_and_(lib.tensor(2.0)))


@xfail("coverage: ember/ops/random.py", "normal_ on an empty integer tensor returns it")
def test_normal_inplace_on_empty_int_tensor():
    same(lambda lib: lib.zeros(0, dtype=lib.int8).normal_(), random=True)


@xfail("scalars: ember/ops/ranges.py", "triu_indices allocates rows it never returns")
def test_triu_indices_with_huge_row_count():
    same(lambda lib: lib.triu_indices(2**40, 1))


def test_adaptive_avg_pool1d_with_nan():
    same(lambda lib: lib.nn.functional.adaptive_avg_pool1d(
        lib.tensor([[[1.0, float("nan"), -2.0]]]), 3))
    same(lambda lib: lib.nn.functional.adaptive_avg_pool1d(
        lib.tensor([[[1.0, float("nan"), -2.0, 4, float("inf"), 5, -float("inf"), 6]]]), 4))


def test_adaptive_avg_pool2d_with_nan_and_inf():
    nan, inf = float("nan"), float("inf")
    same(lambda lib: lib.nn.functional.adaptive_avg_pool2d(
        lib.tensor([[[1.0, nan, -2.0], [1, 2, 3], [inf, 0, 0], [1, -inf, inf]]]), 2))


@xfail("coverage: ember/ops/slicing.py", "split's message names the dim as given")
def test_split_message_keeps_negative_dim():
    same(lambda lib: lib.split(lib.zeros(0, 2, 3, 1), [0], -2))


@xfail("coverage: ember/ops/nn_linear.py", "alpha_dropout on uint8 input in training")
def test_alpha_dropout_on_uint8():
    same(lambda lib: lib.nn.functional.alpha_dropout(lib.tensor([3, 1], dtype=lib.uint8), 0.5,
                                                     True), random=True)


def test_bce_with_logits_of_0dim_holds_an_array():
    half = ember.float16
    out = ember.nn.functional.binary_cross_entropy_with_logits(ember.tensor(0.5, dtype=half),
                                                               ember.tensor(1.0, dtype=half))
    assert isinstance(out._data, np.ndarray), type(out._data)


def test_fill_float_tensor_with_negative_int():
    same(lambda lib: lib.tensor([2.875, 1.0]).fill_(-7))


def test_masked_fill_inplace_on_expanded_tensor():
    def fill(lib):
        x = lib.tensor([-1.913, -2.297], dtype=lib.float64)[:1].expand(3)
        return x.masked_fill_(lib.tensor([False, True, False]), 5.0)
    same(fill)

    def fill_index(lib):
        x = lib.tensor([-1.913, -2.297], dtype=lib.float64)[:1].expand(3)
        return x.index_fill_(0, lib.tensor([1]), float("nan"))
    same(fill_index)


def test_logit_inplace_with_large_eps():
    same(lambda lib: lib.tensor([0.73, -1.0]).logit_(eps=2.0))


def test_mse_loss_mean_holds_an_array():
    out = ember.nn.functional.mse_loss(ember.ones(3), ember.zeros(3))
    assert isinstance(out._data, np.ndarray), type(out._data)


def test_clamp_with_bool_and_numpy_int_bounds():
    same(lambda lib: lib.clamp(lib.tensor(-1.233), True, np.int64(11)))


@xfail("scalars: ember/ops/pointwise_math.py", "logit of bfloat16 with eps returns float32")
def test_logit_of_bfloat16_with_eps():
    same(lambda lib: lib.logit(lib.zeros(0, dtype=lib.bfloat16), eps=-1.0))


@xfail("coverage: ember/ops/reduction.py", "var of an empty tensor with correction=-1 is nan")
def test_var_of_empty_with_negative_correction():
    same(lambda lib: lib.var(lib.zeros(0), correction=-1))


@xfail("coverage: ember/ops/sorting.py", "median of an empty int8 tensor")
def test_median_of_empty_int8():
    same(lambda lib: lib.median(lib.zeros(0, dtype=lib.int8)))


@xfail("ops13: ember/ops/view_copies.py", "a bool tensor as slice_copy's bound trips PyTorch's "
       "internal assert (scalar.isIntegral); ember refuses it as an index instead")
def test_slice_copy_with_a_bool_tensor_bound():
    same(lambda lib: lib.slice_copy(lib.zeros(0, 2), end=lib.tensor(True)))
