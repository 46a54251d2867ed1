"""Creation ops against torch: dtype inference, factories, ranges, *_like/new_*, errors."""
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from oracle import assert_same


def _plain(value):
    """dtypes as their names, so results holding dtypes compare across libraries."""
    if isinstance(value, (tuple, list)) and not hasattr(value, "shape"):
        return type(value)(_plain(v) for v in value) if not hasattr(value, "_fields") else value
    if type(value).__name__ == "dtype" and not hasattr(value, "shape"):
        return str(value).replace("torch.", "ember.")
    return value


def check(torch, fn, atol=1e-5, rtol=1.3e-6):
    """Same result (type, dtype, shape, values) from ember and torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = fn(torch)
        got = fn(ember)
    assert_same(_plain(got), _plain(expected), atol=atol, rtol=rtol)
    return got, expected


def check_error(torch, fn):
    """Same exception type and message (torch. -> ember.) from ember and torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as expected:
            fn(torch)
        with pytest.raises(type(expected.value)) as got:
            fn(ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


# ---------------------------------------------------------------- tensor(): dtype inference
INFERENCE = {
    "int": lambda lib: lib.tensor(1),
    "float": lambda lib: lib.tensor(1.5),
    "bool": lambda lib: lib.tensor(True),
    "ints": lambda lib: lib.tensor([1, 2, 3]),
    "int_float": lambda lib: lib.tensor([1, 2.0]),
    "bool_int": lambda lib: lib.tensor([True, 1]),
    "bool_float": lambda lib: lib.tensor([True, 1.5]),
    "bools": lambda lib: lib.tensor([True, False]),
    "nested": lambda lib: lib.tensor([[1, 2], [3, 4]]),
    "nested_mixed": lambda lib: lib.tensor([[1, 2], [3, 4.5]]),
    "tuple": lambda lib: lib.tensor((1, 2)),
    "range": lambda lib: lib.tensor(range(4)),
    "empty": lambda lib: lib.tensor([]),
    "empty_nested": lambda lib: lib.tensor([[], []]),
    "deep": lambda lib: lib.tensor([[[1.5]], [[2.5]]]),
    "big_int": lambda lib: lib.tensor(2 ** 63 - 1),
    "np_float64": lambda lib: lib.tensor(np.float64(1.5)),
    "np_float32": lambda lib: lib.tensor(np.float32(2)),
    "np_int32": lambda lib: lib.tensor(np.int32(3)),
    "np_int16_scalar_list": lambda lib: lib.tensor([np.int16(1), np.int16(2)]),
    "np_float64_in_list": lambda lib: lib.tensor([np.float64(1.0), 2]),
    "np_float32_int": lambda lib: lib.tensor([np.float32(1), 2]),
    "np_int16_float": lambda lib: lib.tensor([np.int16(1), 2.5]),
    "np_uint8_int8": lambda lib: lib.tensor([np.uint8(1), np.int8(-1)]),
    "ndarray_int32": lambda lib: lib.tensor(np.array([1, 2], dtype=np.int32)),
    "ndarray_float64": lambda lib: lib.tensor(np.array([[1.0, 2.0]])),
    "ndarray_bool": lambda lib: lib.tensor(np.array([True, False])),
    "ndarray_0d": lambda lib: lib.tensor(np.array(3.5, dtype=np.float16)),
    "ndarray_noncontiguous": lambda lib: lib.tensor(np.arange(12.0).reshape(3, 4)[:, ::2]),
    "list_of_ndarrays": lambda lib: lib.tensor([np.array([1, 2], dtype=np.int32),
                                                np.array([3, 4], dtype=np.int32)]),
    "tensors_0d_float": lambda lib: lib.tensor([lib.tensor(1.0), lib.tensor(2.0)]),
    "tensor_int32": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int32)]),
    "tensor_int32_and_int": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int32), 5]),
    "tensor_float64_and_int": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.float64), 5]),
    "tensor_int16_and_float": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.int16), 1.5]),
    "tensor_bool_and_bool": lambda lib: lib.tensor([lib.tensor(True), False]),
    "tensor_bool_and_int": lambda lib: lib.tensor([lib.tensor(True), 3]),
    "tensor_uint8_int8": lambda lib: lib.tensor([lib.tensor(1, dtype=lib.uint8),
                                                 lib.tensor(-1, dtype=lib.int8)]),
    "tensor_one_element_1d": lambda lib: lib.tensor([lib.tensor([1.0])]),
    "dtype_float_to_int": lambda lib: lib.tensor([1.7, -2.7], dtype=lib.int64),
    "dtype_int_to_float64": lambda lib: lib.tensor([1, 2], dtype=lib.float64),
    "dtype_wraps_negative_uint8": lambda lib: lib.tensor([3, -1], dtype=lib.uint8),
    "dtype_float_overflows_half": lambda lib: lib.tensor([1e5], dtype=lib.float16),
    "dtype_bool": lambda lib: lib.tensor([0, 2, -1], dtype=lib.bool),
    "dtype_half": lambda lib: lib.tensor([1.5, 2.25], dtype=lib.float16),
    "dtype_bfloat16": lambda lib: lib.tensor([1.5, 2.25], dtype=lib.bfloat16),
    "ndarray_dtype": lambda lib: lib.tensor(np.array([1.5, 2.5]), dtype=lib.int32),
}


@pytest.mark.parametrize("name", sorted(INFERENCE))
def test_tensor_inference_matches_torch(torch, name):
    check(torch, INFERENCE[name])


def test_tensor_inference_follows_default_dtype(torch):
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        check(torch, lambda lib: lib.tensor([1, 2.5]))
        check(torch, lambda lib: lib.tensor([np.int16(1), 2.5]))
        check(torch, lambda lib: lib.full((2,), 1.5))
        check(torch, lambda lib: lib.arange(0, 1, 0.25))
    finally:
        ember.set_default_dtype(previous)
        torch.set_default_dtype(torch.float32)


TENSOR_ERRORS = {
    "ragged_dim1": lambda lib: lib.tensor([[1, 2], [3, 4, 5]]),
    "ragged_shorter": lambda lib: lib.tensor([[1, 2], [3]]),
    "ragged_dim2": lambda lib: lib.tensor([[[1, 2]], [[3, 4]], [[5]]]),
    "ragged_ndarrays": lambda lib: lib.tensor([np.array([1, 2]), np.array([1, 2, 3])]),
    "list_where_int": lambda lib: lib.tensor([1, [2]]),
    "list_where_float": lambda lib: lib.tensor([1.5, [2]]),
    "not_a_sequence": lambda lib: lib.tensor([[1], 2]),
    "string": lambda lib: lib.tensor("abc"),
    "string_in_list": lambda lib: lib.tensor(["a"]),
    "none": lambda lib: lib.tensor(None),
    "none_in_list": lambda lib: lib.tensor([1, None]),
    "object": lambda lib: lib.tensor(object()),
    "dict": lambda lib: lib.tensor({1: 2}),
    "overflow": lambda lib: lib.tensor(2 ** 64),
    "overflow_in_list": lambda lib: lib.tensor([2 ** 64]),
    "multi_element_tensor": lambda lib: lib.tensor([lib.tensor([1.0, 2.0]), 1]),
    "unsupported_ndarray": lambda lib: lib.tensor(np.array(["a"])),
    "negative_strides": lambda lib: lib.tensor(np.arange(3.0)[::-1]),
    "requires_grad_int": lambda lib: lib.tensor([1, 2], requires_grad=True),
    "overflow_uint8": lambda lib: lib.tensor([300, -1], dtype=lib.uint8),
    "overflow_uint8_negative": lambda lib: lib.tensor([-256], dtype=lib.uint8),
    "overflow_int8_scalar": lambda lib: lib.tensor(128, dtype=lib.int8),
    "overflow_float_to_uint8": lambda lib: lib.tensor([-1.5], dtype=lib.uint8),
    "overflow_nan_to_int": lambda lib: lib.tensor([float("nan")], dtype=lib.int64),
    "overflow_int16": lambda lib: lib.tensor([[1], [70000]], dtype=lib.int16),
}


@pytest.mark.parametrize("name", sorted(TENSOR_ERRORS))
def test_tensor_errors_match_torch(torch, name):
    check_error(torch, TENSOR_ERRORS[name])


def test_tensor_copies_data():
    array = np.array([1.0, 2.0])
    t = ember.tensor(array)
    array[0] = 9
    assert t.tolist() == [1.0, 2.0]
    source = [1, 2]
    t = ember.tensor(source)
    source[0] = 5
    assert t.tolist() == [1, 2]


def test_tensor_of_tensor_warns_and_copies():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=r"sourceTensor.detach\(\).clone\(\)") as record:
        y = ember.tensor(x)
    assert "rather than ember.tensor(sourceTensor)." in str(record[0].message)
    assert not y.requires_grad and y.is_leaf
    y.numpy()[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    with pytest.warns(UserWarning):
        z = ember.tensor(x, dtype=ember.float64, requires_grad=True)
    assert z.dtype is ember.float64 and z.requires_grad and z.is_leaf


def test_tensor_requires_grad_makes_a_leaf():
    t = ember.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None


def test_list_of_ndarrays_warns():
    with pytest.warns(UserWarning, match="list of numpy.ndarrays is extremely slow"):
        ember.tensor([np.array([1, 2]), np.array([3, 4])])


@given(st.recursive(st.one_of(st.integers(-5, 5), st.floats(-4, 4, width=32), st.booleans()),
                    lambda children: st.lists(children, min_size=1, max_size=3), max_leaves=8))
def test_tensor_inference_on_random_nested_data(data):
    torch = pytest.importorskip("torch")
    try:
        expected = torch.tensor(data)
    except (ValueError, TypeError) as error:
        with pytest.raises(type(error)):
            ember.tensor(data)
        return
    assert_same(ember.tensor(data), expected)


# ---------------------------------------------------------------- the legacy constructor
LEGACY = {
    "list": lambda lib: lib.Tensor([1, 2]),
    "bools": lambda lib: lib.Tensor([True]),
    "tuple_is_data": lambda lib: lib.Tensor((1, 2)),
    "empty": lambda lib: lib.Tensor(),
    "ndarray": lambda lib: lib.Tensor(np.array([1, 2])),
    "int_tensor_alias": lambda lib: lib.Tensor(lib.tensor([1, 2])),
    "nested": lambda lib: lib.Tensor([[1.5, 2], [3, 4]]),
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_legacy_constructor_matches_torch(torch, name):
    check(torch, LEGACY[name])


def test_legacy_constructor_sizes():
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert ember.Tensor(2, 3).dtype is ember.float32
    assert ember.Tensor(ember.Size([4])).shape == (4,)
    assert ember.Tensor(np.int64(2)).shape == (2,)


def test_legacy_constructor_aliases_a_tensor():
    t = ember.tensor([1.0, 2.0])
    alias = ember.Tensor(t)
    assert alias is not t
    alias.numpy()[0] = 5.0
    assert t.tolist() == [5.0, 2.0]


LEGACY_ERRORS = {
    "float": lambda lib: lib.Tensor(2.5),
    "numpy_scalar": lambda lib: lib.Tensor(np.float64(2)),
    "mixed_size": lambda lib: lib.Tensor(2, 3.0),
    "negative": lambda lib: lib.Tensor(-1),
    "ragged": lambda lib: lib.Tensor([[1], [2, 3]]),
}


@pytest.mark.parametrize("name", sorted(LEGACY_ERRORS))
def test_legacy_constructor_errors_match_torch(torch, name):
    check_error(torch, LEGACY_ERRORS[name])


def test_legacy_constructor_rejects_dtype():
    with pytest.raises(TypeError, match="new\\(\\) received an invalid combination"):
        ember.Tensor(3, dtype=ember.float64)


# ---------------------------------------------------------------- factories
FACTORIES = {
    "zeros_varargs": lambda lib: lib.zeros(2, 3),
    "zeros_tuple": lambda lib: lib.zeros((2, 3)),
    "zeros_list": lambda lib: lib.zeros([2]),
    "zeros_size": lambda lib: lib.zeros(lib.Size([2, 1])),
    "zeros_scalar": lambda lib: lib.zeros(()),
    "zeros_empty": lambda lib: lib.zeros(0, 3),
    "zeros_size_kw": lambda lib: lib.zeros(size=(2,)),
    "zeros_numpy_int": lambda lib: lib.zeros(np.int64(2)),
    "zeros_tensor_int": lambda lib: lib.zeros([2, lib.tensor(3)]),
    "zeros_dtype": lambda lib: lib.zeros(2, dtype=lib.int16),
    "ones": lambda lib: lib.ones(2, 2, dtype=lib.bool),
    "ones_float64": lambda lib: lib.ones((3,), dtype=lib.float64),
    "empty_shape": lambda lib: lib.empty(2, 3).shape,
    "full_int": lambda lib: lib.full((2,), 1),
    "full_bool": lambda lib: lib.full((2,), True),
    "full_float": lambda lib: lib.full((2, 2), 1.5),
    "full_numpy_float": lambda lib: lib.full((2,), np.float64(2)),
    "full_numpy_int": lambda lib: lib.full((2,), np.int32(2)),
    "full_tensor_int": lambda lib: lib.full((2,), lib.tensor(2)),
    "full_tensor_float64": lambda lib: lib.full((2,), lib.tensor(2.0, dtype=lib.float64)),
    "full_dtype": lambda lib: lib.full([2, 1], 1, dtype=lib.float16),
    "full_truncates": lambda lib: lib.full((2,), 1.5, dtype=lib.int64),
    "full_wraps_negative_uint8": lambda lib: lib.full((2,), -1, dtype=lib.uint8),
    "full_bool_dtype": lambda lib: lib.full((2,), 2.5, dtype=lib.bool),
    "full_inf_half": lambda lib: lib.full((2,), float("inf"), dtype=lib.float16),
    "eye": lambda lib: lib.eye(3),
    "eye_rect": lambda lib: lib.eye(2, 3),
    "eye_m_kw": lambda lib: lib.eye(3, m=2),
    "eye_empty": lambda lib: lib.eye(0),
    "eye_bool": lambda lib: lib.eye(2, dtype=lib.bool),
    "scalar_tensor_int": lambda lib: lib.scalar_tensor(3),
    "scalar_tensor_bool": lambda lib: lib.scalar_tensor(True),
    "scalar_tensor_dtype": lambda lib: lib.scalar_tensor(3, dtype=lib.int64),
    "scalar_tensor_tensor": lambda lib: lib.scalar_tensor(lib.tensor(3)),
    "empty_strided_strides": lambda lib: lib.empty_strided((2, 3), (1, 2)).stride(),
    "empty_strided_contiguous": lambda lib: lib.empty_strided((2, 3), (3, 1)).is_contiguous(),
    "empty_strided_zero": lambda lib: lib.empty_strided((2,), (0,)).stride(),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_match_torch(torch, name):
    check(torch, FACTORIES[name])


FACTORY_ERRORS = {
    "zeros_negative": lambda lib: lib.zeros(-1),
    "ones_negative": lambda lib: lib.ones(2, -1),
    "empty_negative": lambda lib: lib.empty([2, -3]),
    "full_negative": lambda lib: lib.full((-1,), 2),
    "zeros_float": lambda lib: lib.zeros(2.5),
    "zeros_float_element": lambda lib: lib.zeros(2, 2.5),
    "zeros_float_in_tuple": lambda lib: lib.zeros((2, 2.5)),
    "zeros_string": lambda lib: lib.zeros("a"),
    "zeros_int_requires_grad": lambda lib: lib.zeros(2, dtype=lib.int32, requires_grad=True),
    "full_int_size": lambda lib: lib.full(2, 1),
    "full_overflow_uint8": lambda lib: lib.full((2,), 300, dtype=lib.uint8),
    "full_overflow_uint8_negative": lambda lib: lib.full((2,), -256, dtype=lib.uint8),
    "full_overflow_int8": lambda lib: lib.full((2,), 128, dtype=lib.int8),
    "full_overflow_int32": lambda lib: lib.full((2,), 1e20, dtype=lib.int32),
    "full_overflow_float": lambda lib: lib.full((2,), 1e300),
    "full_overflow_half": lambda lib: lib.full((2,), 1e5, dtype=lib.float16),
    "full_float_overflow_uint8": lambda lib: lib.full((2,), 255.9, dtype=lib.uint8),
    "full_nan_int": lambda lib: lib.full((2,), float("nan"), dtype=lib.int64),
    "full_tensor_value": lambda lib: lib.full((2,), lib.tensor([2.0])),
    "eye_negative_n": lambda lib: lib.eye(-1),
    "eye_negative_m": lambda lib: lib.eye(2, -1),
    "empty_strided_mismatch": lambda lib: lib.empty_strided((2, 3), (1,)),
    "scalar_tensor_of_tensor": lambda lib: lib.scalar_tensor(lib.tensor([1.0, 2.0])),
}


@pytest.mark.parametrize("name", sorted(FACTORY_ERRORS))
def test_factory_errors_match_torch(torch, name):
    check_error(torch, FACTORY_ERRORS[name])


@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_requires_grad_and_device(factory):
    t = getattr(ember, factory)(2, 3, requires_grad=True, device="cpu")
    assert t.requires_grad and t.is_leaf and t.device == ember.device("cpu")
    assert getattr(ember, factory)(2, dtype=ember.float64).dtype is ember.float64


@pytest.mark.parametrize("call", [lambda out: ember.zeros(2, out=out),
                                  lambda out: ember.arange(3, out=out),
                                  lambda out: ember.rand(2, out=out)])
def test_out_argument_is_written_not_ignored(call):
    out = ember.full((2,), 7.0)
    assert call(out) is out and 7.0 not in out.tolist()  # tests/test_out.py: the rules


def test_empty_strided_views_one_buffer():
    t = ember.empty_strided((2, 3), (1, 2))
    t.copy_(ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert t.storage_offset() == 0 and t.stride() == (1, 2)


# ---------------------------------------------------------------- arange, range, linspace, logspace
ARANGE = [(5,), (1, 5), (0, 1, 0.1), (5, 0, -1), (0, 5, 2), (1.0, 5), (0, 5, 0.5), (2.5,),
          (0, -5, -1.5), (0, 0), (True,), (0, 10, 3), (1, 2, 0.3), (0, 1, 1 / 3), (-3, 3, 0.7),
          (10, -10, -3), (0.1, 0.5, 0.1), (-1.5, 1.75, 0.25), (0, 2 ** 40, 2 ** 38),
          (np.int32(4),), (np.float32(2.5),)]


@pytest.mark.parametrize("args", ARANGE, ids=str)
def test_arange_matches_torch(torch, args):
    check(torch, lambda lib: lib.arange(*args))


@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "uint8", "int64"])
def test_arange_dtypes_match_torch(torch, dtype):
    check(torch, lambda lib: lib.arange(0.5, 3, dtype=getattr(lib, dtype)))
    check(torch, lambda lib: lib.arange(-1.5, 2, dtype=getattr(lib, dtype)))


def test_arange_tensor_arguments_and_keywords(torch):
    check(torch, lambda lib: lib.arange(lib.tensor(3)))
    check(torch, lambda lib: lib.arange(lib.tensor(1.0), 5))
    check(torch, lambda lib: lib.arange(start=1, end=4))
    check(torch, lambda lib: lib.arange(end=4))
    check(torch, lambda lib: lib.arange(5.0, requires_grad=True).requires_grad)


@given(st.integers(-20, 20), st.integers(-20, 20),
       st.sampled_from([1, 2, 3, -1, -4, 0.5, 0.3, -0.7, 1.1, 0.1]))
def test_arange_lengths_match_torch(start, end, step):
    torch = pytest.importorskip("torch")
    try:
        expected = torch.arange(start, end, step)
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match=str(error)):
            ember.arange(start, end, step)
        return
    assert_same(ember.arange(start, end, step), expected)


ARANGE_ERRORS = {
    "zero_step": lambda lib: lib.arange(0, 1, 0),
    "wrong_sign": lambda lib: lib.arange(0, 5, -1),
    "wrong_sign_down": lambda lib: lib.arange(5, 0, 1),
    "inf": lambda lib: lib.arange(0, float("inf")),
    "nan": lambda lib: lib.arange(0, float("nan")),
    "bool": lambda lib: lib.arange(5, dtype=lib.bool),
    "int_requires_grad": lambda lib: lib.arange(5, requires_grad=True),
    "range_wrong_sign": lambda lib: lib.range(0, 4, -1),
    "linspace_negative": lambda lib: lib.linspace(0, 1, -1),
    "linspace_bool": lambda lib: lib.linspace(0, 1, 3, dtype=lib.bool),
}


@pytest.mark.parametrize("name", sorted(ARANGE_ERRORS))
def test_range_errors_match_torch(torch, name):
    check_error(torch, ARANGE_ERRORS[name])


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (4, 1, -1), (1, 1), (0, 1, 0.3)],
                         ids=str)
def test_range_is_inclusive_and_deprecated(torch, args):
    check(torch, lambda lib: lib.range(*args))
    check(torch, lambda lib: lib.range(*args, dtype=lib.int64) if isinstance(args[-1], int)
          else lib.range(*args, dtype=lib.float64))
    with pytest.warns(UserWarning, match="ember.range is deprecated"):
        ember.range(*args)


LINSPACE = [(0, 1, 5), (0, 1, 1), (0, 1, 0), (3, -1, 7), (-3.3, 7.1, 11), (0, 1, 7),
            (0, 1, 100), (-5, 5, 33), (1e-3, 1, 17)]


@pytest.mark.parametrize("args", LINSPACE, ids=str)
def test_linspace_matches_torch(torch, args):
    check(torch, lambda lib: lib.linspace(*args))
    check(torch, lambda lib: lib.linspace(*args, dtype=lib.float64))


@pytest.mark.parametrize("args", [(0, 10, 5), (0, 10, 4), (0, 9, 10), (-5, 5, 7), (-1, 1, 5),
                                  (7, -3, 6)], ids=str)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int16"])
def test_linspace_integer_dtypes_match_torch(torch, args, dtype):
    check(torch, lambda lib: lib.linspace(*args, dtype=getattr(lib, dtype)))


def test_linspace_tensor_arguments_and_requires_grad(torch):
    check(torch, lambda lib: lib.linspace(lib.tensor(0.0), lib.tensor(1.0), 3))
    check(torch, lambda lib: lib.linspace(0, 1, 5, requires_grad=True).requires_grad)
    check(torch, lambda lib: lib.linspace(0, 1, 3, dtype=lib.float16))


LOGSPACE = [((0, 2, 3), {}), ((0, 3, 4), {"base": 2}), ((0, 3, 4), {"dtype": "int64"}),
            ((0, 1, 1), {}), ((0, -2, 3), {"base": 0.5}),
            ((0, 3, 4), {"base": 2, "dtype": "int64"}),
            ((0, 3, 0), {}), ((-2, 2, 9), {"dtype": "float64"}), ((1, 2, 5), {"base": 3.0})]


@pytest.mark.parametrize("args, kwargs", LOGSPACE, ids=str)
def test_logspace_matches_torch(torch, args, kwargs):
    def call(lib):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(lib, options["dtype"])
        return lib.logspace(*args, **options)
    check(torch, call)


def _range_cases():
    """Seeded linspace/logspace calls over every dtype, ends and step counts (both
    halves, k beyond float16's exact integers, overflowing ends and pow results)."""
    import random
    rng = random.Random(5)
    dtypes = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
              "uint8"]
    cases = []
    for dtype in dtypes:
        for _ in range(8):
            a = rng.choice([0, -3, 1.7, 2.5, rng.uniform(-100, 100), -1e5, 300])
            b = rng.choice([1, 10, rng.uniform(-100, 100), 99.3, 1e6, 70000.0])
            steps = rng.choice([1, 2, 3, 7, 10, 33, 100, 257, 5000])
            cases.append(f"torch.linspace({a!r}, {b!r}, {steps}, dtype=torch.{dtype})")
            a = rng.choice([0, -3, 1.7, rng.uniform(-4, 4)])
            b = rng.choice([1, 2, rng.uniform(-4, 4), 40])
            base = rng.choice([10.0, 2.0, 2.5, 0.7, 2])
            steps = rng.choice([1, 2, 3, 7, 10, 33, 100, 257])
            cases.append(f"torch.logspace({a!r}, {b!r}, {steps}, base={base!r}, "
                         f"dtype=torch.{dtype})")
    return cases


def _exactly(lib, expression):
    """('T', dtype, values as doubles) or ('E', type, message) of one expression."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = eval(expression, {"torch": lib})  # noqa: S307 - a fixed table
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("E", type(e).__name__, str(e).replace("torch.", "ember."))
    return ("T", str(result.dtype).split(".")[-1], result.double().tolist())


def test_linspace_logspace_value_for_value(torch):
    """PyTorch's CPU kernels exactly: linspace's fma per element from either end (half
    types rounding after every operation), logspace's double exponents, C's pow and x86's
    float-to-int conversion; all mismatches reported at once."""
    mismatches = [expression for expression in _range_cases()
                  if repr(_exactly(ember, expression)) != repr(_exactly(torch, expression))]
    assert not mismatches, "\n".join(mismatches[:20])


# ---------------------------------------------------------------- meshgrid, tril/triu_indices
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_torch(torch, indexing):
    for sizes in [(2, 3), (2, 3, 4), (1,), (0, 2), (3, 1)]:
        check(torch, lambda lib: lib.meshgrid(*[lib.arange(float(n)) for n in sizes],
                                              indexing=indexing))
    check(torch, lambda lib: lib.meshgrid([lib.tensor([1, 2]), lib.tensor(5)], indexing=indexing))


def test_meshgrid_outputs_are_expanded_views_with_grad(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        gx, gy = lib.meshgrid(x, lib.tensor([1.0, 2.0, 3.0]), indexing="ij")
        (gx * gy).sum().backward()
        return gx.stride(), type(gx.grad_fn).__name__, x.grad
    check(torch, run)


def test_meshgrid_warns_without_indexing():
    with pytest.warns(UserWarning, match="ember.meshgrid: in an upcoming release"):
        grids = ember.meshgrid(ember.tensor([1, 2]), ember.tensor([3, 4, 5]))
    assert grids[0].shape == (2, 3)


MESHGRID_ERRORS = {
    "indexing": lambda lib: lib.meshgrid(lib.tensor([1, 2]), indexing="foo"),
    "empty": lambda lib: lib.meshgrid(indexing="ij"),
    "dtypes": lambda lib: lib.meshgrid(lib.tensor([1, 2]), lib.tensor([1.0]), indexing="ij"),
}


@pytest.mark.parametrize("name", sorted(MESHGRID_ERRORS))
def test_meshgrid_errors_match_torch(torch, name):
    check_error(torch, MESHGRID_ERRORS[name])


@pytest.mark.parametrize("fn", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("args", [(3, 3), (3, 4, 1), (4, 3, -1), (0, 0), (3, 3, 10),
                                  (3, 3, -10), (1, 5, 2), (5, 1, -2)], ids=str)
def test_triangle_indices_match_torch(torch, fn, args):
    check(torch, lambda lib: getattr(lib, fn)(*args))
    check(torch, lambda lib: getattr(lib, fn)(*args, dtype=lib.int32))


def test_triangle_indices_errors_match_torch(torch):
    check_error(torch, lambda lib: lib.tril_indices(3, 3, dtype=lib.float32))
    check_error(torch, lambda lib: lib.tril_indices(-1, 3))
    check_error(torch, lambda lib: lib.triu_indices(3, 3, dtype=lib.int16))


# ---------------------------------------------------------------- *_like and new_*
LIKE = {
    "zeros_like": lambda lib, x: lib.zeros_like(x),
    "zeros_like_dtype": lambda lib, x: lib.zeros_like(x, dtype=lib.bool),
    "ones_like": lambda lib, x: lib.ones_like(x),
    "ones_like_int": lambda lib, x: lib.ones_like(x, dtype=lib.int64),
    "full_like": lambda lib, x: lib.full_like(x, 2.7),
    "full_like_int": lambda lib, x: lib.full_like(x.long(), 2.7),
    "empty_like_shape": lambda lib, x: lib.empty_like(x).shape,
    "rand_like_shape": lambda lib, x: (lib.rand_like(x).shape, lib.rand_like(x).dtype),
    "randn_like_dtype": lambda lib, x: lib.randn_like(x, dtype=lib.float64).dtype,
    "randint_like": lambda lib, x: (lib.randint_like(x, 5).dtype, lib.randint_like(x, 5).shape),
    "randint_like_int": lambda lib, x: lib.randint_like(x.long(), 2, 5).dtype,
    "zeros_like_strides": lambda lib, x: lib.zeros_like(x.t()).stride(),
    "empty_like_sliced_strides": lambda lib, x: lib.empty_like(x.t().narrow(0, 0, 2)).stride(),
    "rand_like_strides": lambda lib, x: lib.rand_like(x.t()).stride(),
    "randn_like_strides": lambda lib, x: lib.randn_like(x.t()).stride(),
    "randint_like_strides": lambda lib, x: lib.randint_like(x.t(), 3).stride(),
    "new_tensor": lambda lib, x: x.new_tensor([1, 2]),
    "new_tensor_dtype": lambda lib, x: x.new_tensor([1, 2], dtype=lib.int32),
    "new_tensor_ndarray": lambda lib, x: x.new_tensor(np.array([1, 2])),
    "new_zeros": lambda lib, x: x.new_zeros(2, 3),
    "new_zeros_tuple": lambda lib, x: x.new_zeros((2, 3)),
    "new_ones_dtype": lambda lib, x: x.new_ones(2, dtype=lib.int64),
    "new_empty": lambda lib, x: x.new_empty(()).shape,
    "new_full": lambda lib, x: x.new_full((2,), 3),
    "new_full_of_int": lambda lib, x: x.long().new_full((2,), 3.5),
    "new_zeros_strides": lambda lib, x: x.t().new_zeros(3, 2).stride(),
}


@pytest.mark.parametrize("name", sorted(LIKE))
def test_like_and_new_match_torch(torch, name):
    check(torch, lambda lib: LIKE[name](lib, lib.arange(6.0).reshape(2, 3)))


def test_like_and_new_requires_grad(torch):
    x = ember.ones(2, requires_grad=True)
    assert not ember.zeros_like(x).requires_grad
    assert not x.new_zeros(2).requires_grad
    assert ember.zeros_like(x, requires_grad=True).requires_grad
    assert x.new_ones(2, requires_grad=True).is_leaf
    check_error(torch, lambda lib: lib.zeros_like(lib.tensor([1, 2]), requires_grad=True))
    check_error(torch, lambda lib: lib.full_like(lib.tensor([1, 2]), 300, dtype=lib.uint8))
    check_error(torch, lambda lib: lib.rand_like(lib.tensor([1, 2])))
    check_error(torch, lambda lib: lib.zeros(2).new_full(2, 3))


def test_new_tensor_of_tensor_warns():
    x = ember.zeros(2)
    with pytest.warns(UserWarning, match=r"rather than tensor.new_tensor\(sourceTensor\)"):
        y = x.new_tensor(ember.tensor([1, 2]))
    assert y.dtype is ember.float32


@pytest.mark.parametrize("name, args", [("zeros_like", ([1, 2],)), ("ones_like", (3,)),
                                        ("empty_like", (None,)), ("full_like", ([1], 2))])
def test_like_factories_refuse_non_tensors(torch, name, args):
    """The argument parser's TypeError, not an AttributeError from inside."""
    check_error(torch, lambda lib: getattr(lib, name)(*args))
