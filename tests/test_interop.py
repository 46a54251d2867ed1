"""NumPy and Python interop: shared memory both ways, conversions to Python, errors."""
import warnings

import numpy as np
import pytest

import ember
from test_creation import check, check_error


# ---------------------------------------------------------------- from_numpy / numpy() share memory
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                   np.float16, np.float32, np.float64])
def test_from_numpy_shares_memory_both_ways(dtype):
    array = np.zeros((2, 3), dtype=dtype)
    t = ember.from_numpy(array)
    assert t.dtype is ember._dtype.FROM_NUMPY[np.dtype(dtype)]
    array[0, 1] = 1
    assert t.tolist()[0][1] == 1
    t.copy_(ember.ones(2, 3))
    assert (array == 1).all()
    assert t._version == 1


def test_from_numpy_keeps_strides_and_offsets():
    array = np.arange(12.0).reshape(3, 4)
    t = ember.from_numpy(array[:, ::2])
    assert t.stride() == (4, 2) and t.tolist() == array[:, ::2].tolist()
    t2 = ember.from_numpy(array.T)
    assert t2.stride() == (1, 4)
    assert ember.from_numpy(np.array(3.0)).shape == ()


def test_numpy_shares_memory_both_ways():
    t = ember.zeros(3)
    array = t.numpy()
    array[0] = 5
    assert t.tolist() == [5.0, 0.0, 0.0]
    t.copy_(ember.tensor([7.0, 8.0, 9.0]))
    assert array.tolist() == [7.0, 8.0, 9.0]
    assert t.numpy() is array


def test_numpy_of_a_view_is_a_view():
    base = ember.arange(6.0).reshape(2, 3)
    column = base.t().narrow(0, 1, 1)
    column.numpy()[0, 0] = 100.0
    assert base.tolist()[0][1] == 100.0


def test_numpy_detach_and_force():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert np.shares_memory(x.detach().numpy(), x.numpy(force=True))
    np.testing.assert_array_equal(x.numpy(force=True), [1.0, 2.0])


INTEROP_ERRORS = {
    "numpy_requires_grad": lambda lib: lib.tensor([1.0], requires_grad=True).numpy(),
    "asarray_requires_grad": lambda lib: np.asarray(lib.tensor([1.0], requires_grad=True)),
    "numpy_bfloat16": lambda lib: lib.tensor([1.0], dtype=lib.bfloat16).numpy(),
    "from_numpy_negative_strides": lambda lib: lib.from_numpy(np.arange(6.0)[::-1]),
    "from_numpy_list": lambda lib: lib.from_numpy([1, 2]),
    "from_numpy_scalar": lambda lib: lib.from_numpy(np.float64(3)),
    "from_numpy_strings": lambda lib: lib.from_numpy(np.array(["a"])),
    "from_numpy_objects": lambda lib: lib.from_numpy(np.array([1], dtype=object)),
    "from_numpy_longdouble": lambda lib: lib.from_numpy(np.array([1], dtype=np.longdouble)),
    "from_numpy_byte_order": lambda lib: lib.from_numpy(np.array([1], dtype=">f4")),
    "as_tensor_negative_strides": lambda lib: lib.as_tensor(np.arange(3.0)[::-1]),
    "asarray_alias_dtype": lambda lib: lib.asarray(lib.tensor([1.0]), copy=False,
                                                   dtype=lib.float64),
    "asarray_alias_ndarray_dtype": lambda lib: lib.asarray(np.ones(2), copy=False,
                                                           dtype=lib.float32),
    "item_two": lambda lib: lib.tensor([1.0, 2.0]).item(),
    "item_empty": lambda lib: lib.tensor([]).item(),
    "bool_two": lambda lib: bool(lib.tensor([1.0, 2.0])),
    "bool_empty": lambda lib: bool(lib.tensor([])),
    "int_two": lambda lib: int(lib.tensor([1.0, 2.0])),
    "float_two": lambda lib: float(lib.tensor([1.0, 2.0])),
    "index_float": lambda lib: [10, 20, 30][lib.tensor(1.0)],
    "index_two": lambda lib: [10, 20][lib.tensor([1, 0])],
    "len_0d": lambda lib: len(lib.tensor(1)),
    "iter_0d": lambda lib: list(lib.tensor(1)),
}


@pytest.mark.parametrize("name", sorted(INTEROP_ERRORS))
def test_interop_errors_match_torch(torch, name):
    check_error(torch, INTEROP_ERRORS[name])


def test_from_numpy_of_read_only_array_warns():
    array = np.zeros(3)
    array.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        t = ember.from_numpy(array)
    assert t.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- as_tensor / asarray
def test_as_tensor_shares_when_it_can():
    array = np.array([1.0, 2.0])
    t = ember.as_tensor(array)
    array[0] = 9
    assert t.dtype is ember.float64 and t.tolist() == [9.0, 2.0]
    same_dtype = ember.as_tensor(array, dtype=ember.float64)
    assert np.shares_memory(same_dtype.numpy(), array)
    cast = ember.as_tensor(array, dtype=ember.float32)
    array[0] = 8
    assert cast.tolist() == [9.0, 2.0]
    x = ember.tensor([1.0, 2.0])
    assert ember.as_tensor(x) is x
    assert ember.as_tensor(x, dtype=ember.float32) is x
    assert ember.as_tensor(x, device="cpu") is x


def test_as_tensor_matches_torch(torch):
    check(torch, lambda lib: lib.as_tensor([1, 2]))
    check(torch, lambda lib: lib.as_tensor(3.0))
    check(torch, lambda lib: lib.as_tensor(lib.tensor([1.5]), dtype=lib.float64))

    def grad_fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        return type(lib.as_tensor(x, dtype=lib.float64).grad_fn).__name__
    check(torch, grad_fn)


def test_asarray_matches_torch(torch):
    check(torch, lambda lib: lib.asarray([1, 2]))
    check(torch, lambda lib: lib.asarray(np.array([1, 2], dtype=np.int32)))
    check(torch, lambda lib: lib.asarray(3))
    check(torch, lambda lib: lib.asarray([1.0, 2.0], requires_grad=True).requires_grad)
    check(torch, lambda lib: lib.asarray(np.ones(2), dtype=lib.float32))


def test_asarray_sharing_rules():
    array = np.ones(2)
    assert np.shares_memory(ember.asarray(array).numpy(), array)
    assert not np.shares_memory(ember.asarray(array, copy=True).numpy(), array)
    x = ember.tensor([1.0])
    assert ember.asarray(x) is x
    y = ember.asarray(x, copy=True)
    assert y is not x and not np.shares_memory(y.numpy(), x.numpy())


# ---------------------------------------------------------------- __array__
def test_array_protocol_shares_and_casts():
    t = ember.tensor([1.0, 2.0])
    view = np.asarray(t)
    view[0] = 9.0
    assert t.tolist() == [9.0, 2.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    copied = np.array(t)
    copied[1] = 0.0
    assert t.tolist() == [9.0, 2.0]
    assert np.asarray(ember.tensor(1)).shape == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy 2 warns when __array__ lacks copy=
        np.array(t, copy=True)
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float64, copy=False)


# ---------------------------------------------------------------- Python values
PYTHON = {
    "item_float": lambda lib: lib.tensor([1.5]).item(),
    "item_int": lambda lib: lib.tensor(2, dtype=lib.int8).item(),
    "item_bool": lambda lib: lib.tensor(True).item(),
    "item_half": lambda lib: lib.tensor(2.5, dtype=lib.float16).item(),
    "item_bfloat16": lambda lib: lib.tensor(2.5, dtype=lib.bfloat16).item(),
    "item_requires_grad": lambda lib: lib.tensor([1.0], requires_grad=True).item(),
    "tolist_nested": lambda lib: lib.tensor([[1, 2], [3, 4]]).tolist(),
    "tolist_0d": lambda lib: lib.tensor(3).tolist(),
    "tolist_empty": lambda lib: lib.zeros(2, 0).tolist(),
    "tolist_bfloat16": lambda lib: lib.tensor([2.5], dtype=lib.bfloat16).tolist(),
    "tolist_requires_grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).tolist(),
    "tolist_bool": lambda lib: lib.tensor([True, False]).tolist(),
    "int_float": lambda lib: int(lib.tensor(2.7)),
    "int_negative": lambda lib: int(lib.tensor(-2.7)),
    "int_1d": lambda lib: int(lib.tensor([5])),
    "float_int": lambda lib: float(lib.tensor([3])),
    "float_2d": lambda lib: float(lib.tensor([[5]])),
    "float_bool": lambda lib: float(lib.tensor(True)),
    "bool_true": lambda lib: bool(lib.tensor([2.0])),
    "bool_false": lambda lib: bool(lib.tensor(0)),
    "index_list": lambda lib: [10, 20, 30][lib.tensor(1)],
    "index_1d": lambda lib: [10, 20, 30][lib.tensor([2])],
    "index_bool": lambda lib: [10, 20, 30][lib.tensor(True)],
    "index_range": lambda lib: list(range(10))[lib.tensor(2):lib.tensor(5)],
    "len": lambda lib: len(lib.zeros(4, 2)),
    "iteration": lambda lib: [t.tolist() for t in lib.tensor([[1, 2], [3, 4]])],
    "format": lambda lib: f"{lib.tensor(2.5):.2f}",
}


@pytest.mark.parametrize("name", sorted(PYTHON))
def test_python_values_match_torch(torch, name):
    got, expected = PYTHON[name](ember), PYTHON[name](torch)
    assert type(got) is type(expected) and got == expected


def test_tolist_and_item_are_python_types():
    assert type(ember.tensor([1], dtype=ember.int16).tolist()[0]) is int
    assert type(ember.tensor([1.0], dtype=ember.float16).tolist()[0]) is float
    assert type(ember.tensor(1, dtype=ember.uint8).item()) is int
