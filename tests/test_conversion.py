"""Conversions against torch: to/type/casts, clone/contiguous, copy_, deepcopy, pickle."""
import copy
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given

import ember
from conftest import broadcastable_pairs
from oracle import to_numpy
from test_creation import check, check_error

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
INF, NAN = float("inf"), float("nan")
# Every kind of value a cast meets: exact, fractional (ints truncate towards zero), negative
# (unsigned wraps through int64), past each integer range and float16's, huge, inf, nan,
# tiny and subnormal, and float64/int64 values that round differently straight to 16 bits
# than through float32, as PyTorch rounds them (1 + 2**-8 + 2**-30 is 1.0 in bfloat16).
# Out-of-range float -> int results are what x86 gives, as in PyTorch's CPU build here.
FLOATS = [0.0, -0.0, 1.0, -1.0, 2.5, -2.7, 0.5, -0.5, 100.9, -100.9, 127.5, 128.0, 255.9, 256.0,
          300.7, -129.5, 32768.0, 65504.0, 65520.0, 70000.0, -70000.0, 2.0**31, -2.0**31 - 1e4,
          3e9, -3e9, 1e10, -1e10, 2.0**40 + 3, 2.0**63, -2.0**63, 1e19, -1e19, 3e38, -3e38, 1e300,
          INF, -INF, NAN, 1e-30, 1e-40, 1e-45, 1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-30),
          1 + 2**-11 + 2**-40, 3.0000001]
INTS = [0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31,
        -2**31, 2**40 + 3, 2**53 + 1, -2**63, 2**63 - 1, 16777217, 2**24 + 2**16 + 1,
        -(2**24 + 2**16 + 1)]


def assert_same_bits(got, expected):
    """Same dtype, shape and bits in every element (-0.0 is not 0.0; NaN payloads aside)."""
    assert str(got.dtype) == str(expected.dtype).replace("torch.", "ember.")
    assert tuple(got.shape) == tuple(expected.shape)
    got, expected = to_numpy(got), to_numpy(expected)
    if got.dtype.kind == "f":
        got, expected = (np.where(np.isnan(a), np.nan, a).astype(a.dtype).view(f"u{a.itemsize}")
                         for a in (got, expected))
    np.testing.assert_array_equal(got, expected)


def _sources(lib, dtype):
    """FLOATS and INTS, each cast to `dtype` (itself a cast checked by the pair test)."""
    return (lib.tensor(FLOATS, dtype=lib.float64).to(getattr(lib, dtype)),
            lib.tensor(INTS).to(getattr(lib, dtype)))


@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.parametrize("target", DTYPES)
def test_casts_match_torch_bit_for_bit(torch, source, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns on nan -> int; PyTorch does not
        for got, expected in zip(_sources(ember, source), _sources(torch, source)):
            assert_same_bits(got, expected)
            assert_same_bits(got.to(getattr(ember, target)), expected.to(getattr(torch, target)))
            written = ember.zeros(got.shape, dtype=getattr(ember, target)).copy_(got)
            assert_same_bits(written, torch.zeros(expected.shape, dtype=getattr(torch, target))
                             .copy_(expected))


def test_bfloat16_casts_go_through_float32():
    # The mechanism behind the bit-for-bit test: ml_dtypes only ever converts between
    # bfloat16 and float32 (exact one way, round-to-nearest-even the other), so no other
    # ml_dtypes cast, whose results differ between its releases, is ever reached.
    from ember.ops._cast import _ROUTES
    bfloat16, float32 = ember.bfloat16.np_dtype, ember.float32.np_dtype
    for name in DTYPES:
        other = getattr(ember, name).np_dtype
        if other in (bfloat16, float32):
            continue
        assert _ROUTES[(other, bfloat16)] == (float32,)
        assert _ROUTES[(bfloat16, other)][0] == float32


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_16_bit_floats_from_python_and_numpy_match_torch(torch, target):
    # Python numbers and float64/int64 arrays round through float32 in PyTorch.
    for make in (lambda lib, values: lib.tensor(values, dtype=getattr(lib, target)),
                 lambda lib, values: lib.tensor(np.array(values), dtype=getattr(lib, target)),
                 lambda lib, values: lib.as_tensor(np.array(values), dtype=getattr(lib, target))):
        for values in (FLOATS, INTS):
            assert_same_bits(make(ember, values), make(torch, values))
    for value in (1 + 2**-8 + 2**-30, np.float64(1 + 2**-11 + 2**-40), 16908289, -(2**70),
                  [2**54 + 2**30 + 1, 2**70]):
        assert_same_bits(ember.tensor(value, dtype=getattr(ember, target)),
                         torch.tensor(value, dtype=getattr(torch, target)))


def _setitem(target, index, value):
    target[index] = value
    return target


# Writers that cast a value into a tensor's dtype: each must cast as to() does.
WRITERS = {
    "setitem": lambda lib, dest, src: _setitem(dest, slice(None), src),
    "setitem_strided": lambda lib, dest, src: _setitem(dest, slice(None, None, 2), src[::2]),
    "fill_tensor": lambda lib, dest, src: dest.fill_(src[7]),
}
SCALAR_WRITERS = {
    "setitem": lambda lib, dest, value: _setitem(dest, 0, value),
    "fill_": lambda lib, dest, value: dest.fill_(value),
    "masked_fill": lambda lib, dest, value: dest.masked_fill(dest == 0, value),
    "index_fill": lambda lib, dest, value: dest.index_fill(0, lib.tensor([1]), value),
    "full": lambda lib, dest, value: lib.full((2,), value, dtype=dest.dtype),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("source, target", [
    ("bfloat16", "uint8"), ("float64", "uint8"), ("float64", "bfloat16"), ("int64", "bfloat16"),
    ("float64", "float16"), ("bfloat16", "int32")])
def test_writers_cast_like_to(torch, writer, source, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [WRITERS[writer](lib, lib.zeros(len(FLOATS), dtype=getattr(lib, target)),
                                   _sources(lib, source)[0]) for lib in (ember, torch)]
    assert_same_bits(*results)


@pytest.mark.parametrize("writer", sorted(SCALAR_WRITERS))
@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_python_numbers_written_round_through_float32(torch, writer, target):
    for value in (1 + 2**-8 + 2**-30, 1 + 2**-11 + 2**-40, -(1 + 2**-8 + 2**-30)):
        assert_same_bits(
            *[SCALAR_WRITERS[writer](lib, lib.zeros(2, dtype=getattr(lib, target)), value)
              for lib in (ember, torch)])


def test_bfloat16_to_python_and_printing_match_torch(torch):
    got = ember.tensor(FLOATS, dtype=ember.float64).bfloat16()
    expected = torch.tensor(FLOATS, dtype=torch.float64).bfloat16()
    assert str(got.tolist()) == str(expected.tolist())
    assert [str(x.item()) for x in got] == [str(x.item()) for x in expected]
    assert repr(got) == repr(expected).replace("torch.", "ember.")
    assert float(got[-1]) == float(expected[-1]) and type(got[3].item()) is float


@pytest.mark.parametrize("method, dtype", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("bfloat16", "bfloat16"),
    ("long", "int64"), ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"),
    ("bool", "bool")])
def test_cast_methods_match_torch(torch, method, dtype):
    check(torch, lambda lib: getattr(lib.tensor([1.5, -2.7, 0.0, 3.0]), method)(), atol=0, rtol=0)
    check(torch, lambda lib: getattr(lib.tensor([[True, False]]), method)(), atol=0, rtol=0)
    t = ember.tensor([1.0])
    assert getattr(t, method)().dtype is getattr(ember, dtype)


def test_float_to_int_truncates_and_bool_is_nonzero(torch):
    check(torch, lambda lib: lib.tensor([-1.7, 2.9, -0.5, 0.5]).long(), atol=0, rtol=0)
    check(torch, lambda lib: lib.tensor([-1.7, 2.9, 120.9]).char(), atol=0, rtol=0)
    check(torch, lambda lib: lib.tensor([0.0, 0.5, -0.0, -2.0]).bool(), atol=0, rtol=0)
    check(torch, lambda lib: lib.tensor([0, 3, -1]).bool(), atol=0, rtol=0)
    check(torch, lambda lib: lib.tensor([300, -1]).byte(), atol=0, rtol=0)
    check(torch, lambda lib: lib.tensor([70000]).short(), atol=0, rtol=0)


# ---------------------------------------------------------------- to() overloads
TO_CALLS = {
    "dtype": lambda lib, x: x.to(lib.float64),
    "int_dtype": lambda lib, x: x.to(lib.int64),
    "device": lambda lib, x: x.to("cpu"),
    "device_object": lambda lib, x: x.to(lib.device("cpu")),
    "device_and_dtype": lambda lib, x: x.to("cpu", lib.float64),
    "tensor": lambda lib, x: x.to(lib.tensor([1])),
    "keywords": lambda lib, x: x.to(device="cpu", dtype=lib.float16),
    "dtype_non_blocking_copy": lambda lib, x: x.to(lib.float32, True, True),
    "device_dtype_flags": lambda lib, x: x.to("cpu", lib.float32, False, True),
    "copy_keyword": lambda lib, x: x.to(lib.float32, copy=True),
    "tensor_copy": lambda lib, x: x.to(lib.tensor([1.0]), copy=True),
    "type_as": lambda lib, x: x.type_as(lib.tensor([1], dtype=lib.int16)),
    "type_no_args": lambda lib, x: x.type(),
    "type_dtype": lambda lib, x: x.type(lib.float64),
    "type_dtype_keyword": lambda lib, x: x.type(dtype=lib.int64),
    "type_string": lambda lib, x: x.type(f"{lib.__name__}.DoubleTensor"),
    "type_int_string": lambda lib, x: x.type(f"{lib.__name__}.IntTensor"),
    "cpu": lambda lib, x: x.cpu(),
}


def _type_name(value):
    return value.replace("torch.", "ember.") if isinstance(value, str) else value


@pytest.mark.parametrize("name", sorted(TO_CALLS))
def test_to_overloads_match_torch(torch, name):
    def run(lib):
        x = lib.tensor([1.5, -2.7], requires_grad=True)
        y = TO_CALLS[name](lib, x)
        if isinstance(y, str):
            return _type_name(y)
        return y, y.requires_grad, y is x, type(y.grad_fn).__name__
    check(torch, run, atol=0, rtol=0)


def test_type_accepts_torch_names():
    x = ember.tensor([1.0])
    assert x.type("torch.DoubleTensor").dtype is ember.float64
    assert x.type("ember.LongTensor").dtype is ember.int64
    assert x.type("torch.FloatTensor") is x
    assert x.type() == "ember.FloatTensor"


TO_ERRORS = {
    "type_unknown": lambda lib, x: x.type("foo"),
    "type_bare_name": lambda lib, x: x.type("DoubleTensor"),
    "to_string_keyword_dtype": lambda lib, x: x.to(lib.float32, 1),
    "to_unknown_keyword": lambda lib, x: x.to(lib.float32, foo=1),
    "to_other_keyword": lambda lib, x: x.to(other=lib.tensor([1])),
}


@pytest.mark.parametrize("name", sorted(TO_ERRORS))
def test_to_errors_match_torch(torch, name):
    # Same exception type; the first line of the message is the same text.
    with pytest.raises(Exception) as expected:
        TO_ERRORS[name](torch, torch.tensor([1.0]))
    with pytest.raises(type(expected.value)) as got:
        TO_ERRORS[name](ember, ember.tensor([1.0]))
    first_line = str(expected.value).replace("torch.", "ember.").splitlines()[0]
    assert str(got.value).splitlines()[0] == first_line


def test_to_returns_self_when_nothing_changes():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert x.to(ember.float32) is x
    assert x.to("cpu") is x
    assert x.float() is x
    assert x.to(ember.float32, copy=True) is not x


@pytest.mark.parametrize("target", ["float64", "float16", "bfloat16", "float32"])
def test_grad_through_to(torch, target):
    def run(lib):
        x = lib.tensor([1.5, -2.7, 0.25], requires_grad=True)
        y = x.to(getattr(lib, target), copy=True)
        (y * y).backward(lib.ones_like(y))
        return type(y.grad_fn).__name__, y.grad_fn.next_functions[0][0] is not None, x.grad
    check(torch, run, atol=0, rtol=0)


def test_casts_double_backward():
    x = ember.tensor([1.5, -2.0], dtype=ember.float64, requires_grad=True)
    y = (x.float() * x.float() * x.float()).sum()
    (grad,) = ember.autograd.grad(y, x, create_graph=True)
    assert grad.dtype is ember.float64
    (second,) = ember.autograd.grad(grad.sum(), x)
    np.testing.assert_array_equal(second.numpy(), [9.0, -12.0])


def test_int_outputs_have_no_grad():
    x = ember.tensor([1.5, 2.5], requires_grad=True)
    for y in (x.long(), x.int(), x.bool(), x.byte(), x.to(ember.int16)):
        assert not y.requires_grad and y.grad_fn is None


# ---------------------------------------------------------------- clone / contiguous
def test_clone_matches_torch(torch):
    def run(lib):
        x = lib.arange(6.0, requires_grad=True)
        base = x.reshape(2, 3)
        y = base.t().clone()
        z = base.t().clone(memory_format=lib.contiguous_format) \
            if hasattr(lib, "contiguous_format") else base.t().contiguous()
        c = base.t().contiguous()
        (y * 2 + c).sum().backward()
        return y, y.stride(), z.stride(), c.stride(), type(y.grad_fn).__name__, \
            type(c.grad_fn).__name__, x.grad
    check(torch, run, atol=0, rtol=0)


def test_clone_copies_and_contiguous_shares():
    x = ember.tensor([1.0, 2.0])
    y = x.clone()
    y.numpy()[0] = 9.0
    assert x.tolist() == [1.0, 2.0]
    assert x.contiguous() is x
    leaf = ember.tensor([1.0, 2.0], requires_grad=True)
    assert leaf.contiguous() is leaf
    t = ember.arange(6).reshape(2, 3).t()
    assert not t.is_contiguous() and t.contiguous().is_contiguous()
    assert t.contiguous().tolist() == t.tolist()


def test_clone_keeps_version_and_requires_grad_rules():
    x = ember.tensor([1, 2])
    assert x.clone().dtype is ember.int64 and x.clone().grad_fn is None
    with ember.no_grad():
        y = ember.ones(2, requires_grad=True).clone()
    assert not y.requires_grad


# ---------------------------------------------------------------- copy_
COPY_CASES = {
    "broadcast_row": lambda lib: lib.zeros(2, 3).copy_(lib.tensor([1, 2, 3])),
    "scalar_number": lambda lib: lib.zeros(2, 3).copy_(5),
    "0d_tensor": lambda lib: lib.zeros(2).copy_(lib.tensor(7.5)),
    "float_to_int": lambda lib: lib.zeros(3, dtype=lib.int64).copy_(lib.tensor([1.7, -2.5, 3.0])),
    "float_to_bool": lambda lib: lib.zeros(3, dtype=lib.bool).copy_(lib.tensor([0.0, 2.0, -1.0])),
    "int_to_half": lambda lib: lib.zeros(2, dtype=lib.float16).copy_(lib.tensor([1, 2])),
    "bool_to_float": lambda lib: lib.zeros(2).copy_(lib.tensor([True, False])),
    "into_transposed": lambda lib: lib.zeros(2, 3).t().copy_(lib.arange(6.0).reshape(3, 2)),
    "empty": lambda lib: lib.zeros(0, 3).copy_(lib.ones(3)),
}


@pytest.mark.parametrize("name", sorted(COPY_CASES))
def test_copy_matches_torch(torch, name):
    def run(lib):
        out = COPY_CASES[name](lib)
        return out, out._version
    check(torch, run, atol=0, rtol=0)


COPY_ERRORS = {
    "shape": lambda lib: lib.zeros(2, 3).copy_(lib.ones(3, 2)),
    "shape_trailing": lambda lib: lib.zeros(2, 3).copy_(lib.ones(2, 3, 1)),
    "more_dims": lambda lib: lib.zeros(2, 3).copy_(lib.ones(1, 2, 3)),
    "ndarray": lambda lib: lib.zeros(3).copy_(np.ones(3)),
    "leaf": lambda lib: lib.zeros(3, requires_grad=True).copy_(lib.ones(3)),
}


@pytest.mark.parametrize("name", sorted(COPY_ERRORS))
def test_copy_errors_match_torch(torch, name):
    check_error(torch, COPY_ERRORS[name])


def test_failed_copy_leaves_tensor_unchanged():
    x = ember.zeros(2, 3)
    with pytest.raises(RuntimeError):
        x.copy_(ember.ones(3, 2))
    assert x._version == 0 and not x.numpy().any()


def test_copy_writes_through_views_and_bumps_version_once():
    base = ember.zeros(2, 3)
    row = base.narrow(0, 0, 1)
    row.copy_(ember.ones(3))
    assert base.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    assert base._version == 1 and row._version == 1
    with ember.no_grad():
        leaf = ember.zeros(3, requires_grad=True)
        leaf.copy_(ember.ones(3))
    assert leaf.tolist() == [1.0, 1.0, 1.0] and leaf._version == 1 and leaf.is_leaf


@pytest.mark.parametrize("self_dtype", ["float32", "float64", "float16", "int64"])
def test_copy_gradients_match_torch(torch, self_dtype):
    def run(lib):
        src = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        old = lib.tensor([5.0, 5.0, 5.0], requires_grad=True)
        dest = (old * 1).to(getattr(lib, self_dtype)).reshape(1, 3).expand(2, 3).clone()
        dest.copy_(src)
        weights = lib.arange(6.0).reshape(2, 3).to(dest.dtype)
        if dest.requires_grad:
            (dest * weights).sum().backward()
        return dest, type(dest.grad_fn).__name__, src.grad, old.grad
    check(torch, run, atol=0, rtol=0)


@given(broadcastable_pairs(max_dims=3))
def test_copy_broadcasting_matches_torch(pair):
    torch = pytest.importorskip("torch")
    dest_shape, src_shape = pair
    src = np.arange(int(np.prod(src_shape)), dtype=np.float32).reshape(src_shape)
    results = []
    for lib in (torch, ember):
        try:
            out = lib.zeros(dest_shape).copy_(lib.tensor(src))
            results.append(("ok", out.tolist(), tuple(out.shape)))
        except RuntimeError as error:
            results.append(("error", str(error).replace("torch.", "ember.")))
    assert results[0] == results[1]


# ---------------------------------------------------------------- deepcopy and pickle
def test_deepcopy_of_leaf_keeps_grad_and_requires_grad():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    x.grad = ember.tensor([3.0, 4.0])
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.is_leaf
    assert y.tolist() == [1.0, 2.0] and y.grad.tolist() == [3.0, 4.0]
    y.grad.numpy()[0] = 0.0
    y.detach().numpy()[1] = 0.0
    assert x.grad.tolist() == [3.0, 4.0] and x.tolist() == [1.0, 2.0]
    assert copy.deepcopy(ember.tensor([1, 2])).dtype is ember.int64


def test_deepcopy_of_non_leaf_raises_torchs_error(torch):
    """PyTorch's text verbatim (it names torch.nn.utils.weight_norm and a PyTorch PR)."""
    with pytest.raises(RuntimeError) as expected:
        copy.deepcopy(torch.ones(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError) as got:
        copy.deepcopy(ember.ones(2, requires_grad=True) * 2)
    assert str(got.value) == str(expected.value)


def test_deepcopy_keeps_views_sharing_memory(torch):
    def run(lib):
        v = lib.arange(6.0)
        w = v.narrow(0, 2, 2)
        copied_v, copied_w = copy.deepcopy([v, w])
        copied_v.numpy()[2] = 100.0
        return copied_w, copied_w.storage_offset(), v
    check(torch, run, atol=0, rtol=0)


def test_deepcopy_uses_memo():
    x = ember.tensor([1.0])
    a, b = copy.deepcopy([x, x])
    assert a is b


@pytest.mark.parametrize("dtype", DTYPES)
def test_pickle_round_trip(dtype):
    x = ember.arange(6.0).reshape(2, 3).to(getattr(ember, dtype))
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype is x.dtype and y.shape == x.shape and y.tolist() == x.tolist()
    assert not y.requires_grad


def test_pickle_keeps_requires_grad_views_and_strides():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    x.grad = ember.ones(2)
    y = pickle.loads(pickle.dumps(x))
    assert y.requires_grad and y.is_leaf and y.grad is None and y.tolist() == [1.0, 2.0]
    base = ember.arange(6.0)
    view = base.narrow(0, 1, 3)
    t = ember.arange(6.0).reshape(2, 3).t()
    loaded_base, loaded_view, loaded_t = pickle.loads(pickle.dumps([base, view, t]))
    loaded_base.numpy()[2] = 50.0
    assert loaded_view.tolist() == [1.0, 50.0, 3.0]
    assert loaded_view._base is loaded_base and loaded_view.storage_offset() == 1
    assert loaded_t.stride() == (1, 3) and loaded_t.tolist() == t.tolist()
    empty = pickle.loads(pickle.dumps(ember.zeros(0, 3)))
    assert empty.shape == (0, 3)
    scalar = pickle.loads(pickle.dumps(ember.tensor(2.5)))
    assert scalar.shape == () and scalar.item() == 2.5


def test_pickle_non_leaf_as_values():
    y = ember.ones(2, requires_grad=True) * 3
    z = pickle.loads(pickle.dumps(y))
    assert z.tolist() == [3.0, 3.0] and z.is_leaf


def test_negative_bfloat16_to_uint8_wraps_like_torch(torch):
    """ml_dtypes saturates bfloat16 -> uint8 at 0; PyTorch's C cast wraps (-1 -> 255)."""
    check(torch, lambda lib: lib.tensor([-1.0, -101.0, 3.0]).bfloat16().to(lib.uint8))
    check(torch, lambda lib: lib.zeros(3, dtype=lib.uint8).copy_(
        lib.tensor([-1.0, -101.0, 3.0]).bfloat16()))
