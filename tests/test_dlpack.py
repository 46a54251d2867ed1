"""DLPack: zero-copy exchange with NumPy and PyTorch, checked by mutating one side."""
import numpy as np
import pytest

import ember
from tests.oracle import to_numpy

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def sample(dtype, shape=(2, 3)):
    values = np.arange(int(np.prod(shape))).reshape(shape) % 3
    return ember.tensor(values.tolist(), dtype=getattr(ember, dtype))


def layouts(tensor):
    """The tensor, a transposed (non-contiguous) view, a strided slice, 0-dim and empty."""
    return {"contiguous": tensor, "transposed": tensor.t(), "sliced": tensor[:, ::2],
            "scalar": tensor[1, 2], "empty": tensor[:0]}


def one(dtype):
    return True if dtype == "bool" else 1


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bfloat16"])
def test_numpy_shares_memory_both_ways(dtype):
    for name, tensor in layouts(sample(dtype)).items():
        array = np.from_dlpack(tensor)
        assert array.shape == tuple(tensor.shape), name
        assert array.strides == tuple(s * tensor.element_size() for s in tensor.stride()), name
        if tensor.numel():
            index = (0,) * tensor.dim()
            array[index] = one(dtype)
            assert tensor[index].item() == one(dtype), name
        back = ember.from_dlpack(array)
        assert back.dtype is tensor.dtype and back.shape == tensor.shape
        if tensor.numel():
            assert tuple(back.stride()) == tuple(tensor.stride())
            assert np.shares_memory(back._data, tensor._data)


def test_from_numpy_array_shares_memory():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    tensor = ember.from_dlpack(array)
    tensor[1, 1] = 40.0
    assert array[1, 1] == 40.0
    assert tensor.dtype is ember.float32 and tensor.shape == (2, 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_shares_memory_both_ways(torch, dtype):
    for name, tensor in layouts(sample(dtype)).items():
        theirs = torch.from_dlpack(tensor)
        assert str(theirs.dtype) == f"torch.{dtype}", name
        assert tuple(theirs.shape) == tuple(tensor.shape), name
        assert tuple(theirs.stride()) == tuple(tensor.stride()), name
        np.testing.assert_array_equal(to_numpy(theirs), to_numpy(tensor))
        if tensor.numel():
            index = (0,) * tensor.dim()
            theirs[index] = one(dtype)
            assert tensor[index].item() == one(dtype), name
        ours = ember.from_dlpack(theirs)
        assert ours.dtype is tensor.dtype and ours.shape == tensor.shape
        if tensor.numel():  # (an empty tensor's strides carry no meaning through DLPack)
            assert tuple(ours.stride()) == tuple(tensor.stride()), name
            ours[index] = 0
            assert theirs[index].item() == 0, name


def test_torch_tensor_to_ember_shares_memory(torch):
    theirs = torch.arange(12, dtype=torch.float64).reshape(3, 4)[:, 1:]
    ours = ember.from_dlpack(theirs)
    assert tuple(ours.stride()) == (4, 1) and ours.storage_offset() == 0
    theirs[2, 2] = -5.0
    assert ours[2, 2].item() == -5.0


def test_capsules_are_accepted_once(torch):
    capsule = torch.utils.dlpack.to_dlpack(torch.ones(3))
    tensor = ember.from_dlpack(capsule)
    assert tensor.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(BufferError, match="consumed only once"):
        ember.from_dlpack(capsule)


def test_tensors_requiring_grad_are_refused_as_torch_does(torch):
    with pytest.raises(BufferError) as theirs:
        torch.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError) as ours:
        ember.ones(2, requires_grad=True).__dlpack__()
    assert str(ours.value) == str(theirs.value)
    assert np.from_dlpack(ember.ones(2, requires_grad=True).detach()).tolist() == [1.0, 1.0]


def test_device_and_unsupported_dtypes():
    assert ember.ones(1).__dlpack_device__() == (1, 0)
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.complex64"):
        ember.from_dlpack(np.zeros(2, np.complex64))
    assert ember.from_dlpack(np.zeros(2, np.uint16)).dtype is ember.uint16  # limited, as torch


def test_from_dlpack_of_an_ember_tensor_aliases_it(torch):
    tensor = ember.ones(3)
    alias = ember.from_dlpack(tensor)
    alias[0] = 5.0
    assert tensor[0].item() == 5.0 and alias is not tensor
    with pytest.raises(BufferError) as theirs:
        torch.from_dlpack(torch.ones(3, requires_grad=True))
    with pytest.raises(BufferError) as ours:
        ember.from_dlpack(ember.ones(3, requires_grad=True))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")
def test_cuda_exchange_with_cupy_shares_memory():
    device = "cuda"
    cupy = ember._backend.cupy_module()
    tensor = ember.arange(6.0).reshape(2, 3).to(device)
    assert tensor.__dlpack_device__()[0] == 2
    theirs = cupy.from_dlpack(tensor.t())
    theirs[0, 1] = 42.0
    assert tensor[1, 0].item() == 42.0
    ours = ember.from_dlpack(cupy.arange(4.0))
    assert ours.device == ember.device("cuda:0") and ours.tolist() == [0.0, 1.0, 2.0, 3.0]
