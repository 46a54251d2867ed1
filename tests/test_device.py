"""Device objects: parsing, interning, reprs and errors as PyTorch."""
import pytest

import ember


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:0", "cuda:1", "cpu:0"])
def test_device_str_and_repr_match_torch(torch, spec):
    assert str(ember.device(spec)) == str(torch.device(spec))
    assert repr(ember.device(spec)) == repr(torch.device(spec))
    assert ember.device(spec).type == torch.device(spec).type
    assert ember.device(spec).index == torch.device(spec).index


def test_device_type_and_index_form(torch):
    assert repr(ember.device("cuda", 1)) == repr(torch.device("cuda", 1))
    assert ember.device("cuda", 1) == ember.device("cuda:1")
    assert ember.device("cpu") == "cpu"
    assert ember.device("cpu") is ember.device("cpu")


@pytest.mark.parametrize("spec", ["cud", "cuda:x", "cuda:-1", "gpu"])
def test_invalid_device_strings_raise_like_torch(torch, spec):
    with pytest.raises(RuntimeError) as expected:
        torch.device(spec)
    with pytest.raises(RuntimeError) as got:
        ember.device(spec)
    assert str(got.value) == str(expected.value)


def test_cpu_tensors_report_their_device():
    t = ember.ones(2) if hasattr(ember, "ones") else ember.tensor([1.0, 1.0])
    assert t.device == ember.device("cpu")
    assert not t.is_cuda
    assert t.get_device() == -1
    assert t.to("cpu") is t


def test_cuda_availability_without_a_gpu():
    assert isinstance(ember.cuda.is_available(), bool)
    if not ember.cuda.is_available():
        assert ember.cuda.device_count() == 0
        with pytest.raises(AssertionError):     # PyTorch's CPU build's error
            ember.tensor([1.0], device="cuda")
