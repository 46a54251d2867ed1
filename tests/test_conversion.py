"""Conversions against torch: to/type/casts, clone/contiguous, copy_, deepcopy, pickle."""
import copy
import pickle

import numpy as np
import pytest
from hypothesis import given

import ember
from conftest import broadcastable_pairs
from test_creation import check, check_error

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
# In-range values every dtype holds, so casts are defined (nan/out-of-range -> int is not).
VALUES = [[0.0, 1.0, -1.0], [2.5, -2.7, 0.5], [100.9, -100.9, 3.0], [-0.0, 7.0, 126.0]]


def _source(lib, dtype, row):
    values = VALUES[row]
    if dtype in ("uint8", "bool"):
        values = [abs(v) for v in values]
    return lib.tensor(values).to(getattr(lib, dtype))


@pytest.mark.parametrize("source", DTYPES)
@pytest.mark.parametrize("target", DTYPES)
def test_casts_match_torch(torch, source, target):
    for row in range(len(VALUES)):
        check(torch, lambda lib: _source(lib, source, row).to(getattr(lib, target)))


@pytest.mark.parametrize("method, dtype", [
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("bfloat16", "bfloat16"),
    ("long", "int64"), ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"),
    ("bool", "bool")])
def test_cast_methods_match_torch(torch, method, dtype):
    check(torch, lambda lib: getattr(lib.tensor([1.5, -2.7, 0.0, 3.0]), method)())
    check(torch, lambda lib: getattr(lib.tensor([[True, False]]), method)())
    t = ember.tensor([1.0])
    assert getattr(t, method)().dtype is getattr(ember, dtype)


def test_float_to_int_truncates_and_bool_is_nonzero(torch):
    check(torch, lambda lib: lib.tensor([-1.7, 2.9, -0.5, 0.5]).long())
    check(torch, lambda lib: lib.tensor([-1.7, 2.9, 120.9]).char())
    check(torch, lambda lib: lib.tensor([0.0, 0.5, -0.0, -2.0]).bool())
    check(torch, lambda lib: lib.tensor([0, 3, -1]).bool())
    check(torch, lambda lib: lib.tensor([300, -1]).byte())
    check(torch, lambda lib: lib.tensor([70000]).short())


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
    check(torch, run)


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
    check(torch, run, atol=2e-2, rtol=1e-2)


def test_casts_double_backward():
    x = ember.tensor([1.5, -2.0], dtype=ember.float64, requires_grad=True)
    y = (x.float() * x.float() * x.float()).sum()
    (grad,) = ember.autograd.grad(y, x, create_graph=True)
    assert grad.dtype is ember.float64
    (second,) = ember.autograd.grad(grad.sum(), x)
    np.testing.assert_allclose(second.numpy(), [9.0, -12.0], rtol=1e-6)


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
    check(torch, run)


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
    check(torch, run)


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
    check(torch, run, atol=1e-3)


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
    check(torch, run)


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
