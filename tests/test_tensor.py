"""Tensor attributes and Python protocol, compared with torch."""
import numpy as np
import pytest

import ember


@pytest.fixture
def pair(torch):
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return ember.tensor(data), torch.tensor(data)


def test_size_repr_and_type(torch):
    assert repr(ember.Size([2, 3])) == repr(torch.Size([2, 3])).replace("torch.", "ember.")
    assert repr(ember.Size([])) == "ember.Size([])"
    assert isinstance(ember.Size([2]) + (3,), ember.Size)
    assert isinstance(ember.Size([2, 3])[1:], ember.Size)
    assert ember.Size([2, 3]) == (2, 3)
    assert ember.Size([2, 3]).numel() == 6


def test_shape_attributes_match_torch(pair):
    e, t = pair
    assert isinstance(e.shape, ember.Size) and e.shape == t.shape
    assert e.size() == t.size() and e.size(1) == t.size(1) and e.size(-1) == t.size(-1)
    assert e.dim() == t.dim() == e.ndim == e.ndimension()
    assert e.numel() == t.numel() == e.nelement()
    assert e.stride() == t.stride() and e.stride(0) == t.stride(0)
    assert e.storage_offset() == t.storage_offset()
    assert e.is_contiguous() == t.is_contiguous()
    assert e.element_size() == t.element_size() and e.nbytes == t.nbytes
    assert e.itemsize == t.itemsize


def test_size_dim_out_of_range_matches_torch(pair):
    e, t = pair
    with pytest.raises(IndexError) as expected:
        t.size(3)
    with pytest.raises(IndexError) as got:
        e.size(3)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                  "float32", "float64"])
def test_dtype_attributes(torch, name):
    e = ember.tensor(np.zeros(3, dtype=name))
    t = torch.tensor(np.zeros(3, dtype=name))
    assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.")
    assert e.dtype is getattr(ember, name)
    assert e.element_size() == t.element_size()
    assert e.is_floating_point() == t.is_floating_point()


def test_grad_attributes_of_fresh_tensor(pair):
    e, _ = pair
    assert e.is_leaf and not e.requires_grad and e.grad is None and e.grad_fn is None


def test_data_is_detached_and_shares_memory():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad
    d.add_(1)
    assert x.tolist() == [2.0, 3.0]


def test_python_protocol(torch):
    e = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert len(e) == 2
    assert float(ember.tensor(2.5)) == 2.5 and int(ember.tensor(7)) == 7
    assert bool(ember.tensor([1.0])) is True
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        bool(e)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(ember.tensor(1.0))
    assert [1, 2, 3][ember.tensor(1)] == 2
    assert hash(e) == hash(e) and e in {e}
    assert f"{ember.tensor(3.14159):.2f}" == "3.14"


def test_version_counter_starts_at_zero():
    x = ember.tensor([1.0])
    assert x._version == 0
    x.add_(1)
    assert x._version == 1
