"""Build the same inputs in ember and torch, and compare what comes back."""
import warnings

import numpy as np
import pytest

import ember

STRIDE_PAD = 2


def to_lib(lib, value, requires_grad=False, noncontiguous=False):
    """NumPy arrays (also inside lists/tuples) become `lib` tensors; others pass through."""
    if isinstance(value, np.ndarray):
        if noncontiguous and value.ndim >= 1 and value.size > 1:
            padded = np.zeros(value.shape[:-1] + (value.shape[-1] * STRIDE_PAD,), value.dtype)
            padded[..., ::STRIDE_PAD] = value
            tensor = lib.tensor(padded)[..., ::STRIDE_PAD]
            assert not tensor.is_contiguous()
        else:
            tensor = lib.tensor(value)
        if requires_grad and tensor.is_floating_point():
            tensor.requires_grad_()
        return tensor
    if isinstance(value, list):
        return [to_lib(lib, v, requires_grad, noncontiguous) for v in value]
    if isinstance(value, tuple):
        return tuple(to_lib(lib, v, requires_grad, noncontiguous) for v in value)
    return value


def tensors_in(value):
    """The tensors of a (possibly nested) argument, in order."""
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    if hasattr(value, "requires_grad") and hasattr(value, "grad"):
        return [value]
    return []


def to_numpy(t):
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t.numpy())


def ember_dtype_name(torch_dtype):
    return str(torch_dtype).replace("torch.", "ember.")


# Tolerances used when a caller names none, by dtype: float32 and the half types keep
# torch.testing's defaults; float64 is held near what the suite measures against torch
# 2.13 (worst forward difference 1.4e-14 absolute / 2e-15 relative over the op catalog),
# not float32's. Anything else (integers, bools) must be equal.
TOLERANCES = {"float64": (1e-12, 1e-12), "float32": (1e-5, 1.3e-6),
              "float16": (1e-5, 1e-3), "bfloat16": (1e-5, 1.6e-2)}


def _tolerances(dtype_name, atol, rtol):
    default_atol, default_rtol = TOLERANCES.get(dtype_name, (0.0, 0.0))
    return (default_atol if atol is None else atol), (default_rtol if rtol is None else rtol)


def assert_same(ember_out, torch_out, atol=None, rtol=None, path="output"):
    """Same type, dtype, shape and values (within tolerance for floats).

    `atol`/`rtol` left as None take the dtype's entry in TOLERANCES.
    """
    import torch  # noqa: PLC0415 - only called by tests that have the oracle
    if isinstance(torch_out, torch.Tensor):
        assert isinstance(ember_out, ember.Tensor), f"{path}: expected a Tensor, got {ember_out!r}"
        assert str(ember_out.dtype) == ember_dtype_name(torch_out.dtype), (
            f"{path}: dtype {ember_out.dtype} != {torch_out.dtype}")
        assert tuple(ember_out.shape) == tuple(torch_out.shape), (
            f"{path}: shape {tuple(ember_out.shape)} != {tuple(torch_out.shape)}")
        expected = to_numpy(torch_out)
        got = to_numpy(ember_out)
        if expected.dtype.kind == "f":
            tensor_atol, tensor_rtol = _tolerances(str(torch_out.dtype)[6:], atol, rtol)
            np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                       atol=tensor_atol, rtol=tensor_rtol, equal_nan=True,
                                       err_msg=path)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=path)
        return
    if isinstance(torch_out, (tuple, list)):
        assert isinstance(ember_out, (tuple, list)), f"{path}: expected a sequence"
        assert len(ember_out) == len(torch_out), f"{path}: length differs"
        if hasattr(torch_out, "_fields") or hasattr(torch_out, "n_fields"):
            fields = getattr(torch_out, "_fields", None)
            if fields is not None:
                assert tuple(ember_out._fields) == tuple(fields)
        for i, (e, t) in enumerate(zip(ember_out, torch_out)):
            assert_same(e, t, atol, rtol, f"{path}[{i}]")
        return
    if isinstance(torch_out, float):
        assert isinstance(ember_out, float), f"{path}: {ember_out!r} is not a float"
        float_atol, float_rtol = _tolerances("float64", atol, rtol)
        np.testing.assert_allclose(ember_out, torch_out, atol=float_atol, rtol=float_rtol)
        return
    assert type(ember_out) is type(torch_out), f"{path}: {type(ember_out)} != {type(torch_out)}"
    assert ember_out == torch_out, f"{path}: {ember_out!r} != {torch_out!r}"


def ember_names(text):
    """PyTorch's text as ember prints it: `torch.` becomes `ember.`."""
    return text.replace("torch.", "ember.")


def assert_raises_alike(torch_call, ember_call, rename=ember_names):
    """Both thunks raise: the same exception type, and str(e) equal after `rename`.

    The one definition of "same error as torch"; returns ember's exception for further checks.
    """
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(Exception) as got:
        ember_call()
    assert type(got.value) is type(expected.value), (
        f"{type(got.value).__name__}: {got.value} != {type(expected.value).__name__}: "
        f"{expected.value}")
    assert str(got.value) == rename(str(expected.value))
    return got.value


def assert_same_error(call, rename=ember_names):
    """`call(torch)` and `call(ember)` raise the same exception type with the same text."""
    import torch  # noqa: PLC0415 - only called by tests that have the oracle
    return assert_raises_alike(lambda: call(torch), lambda: call(ember), rename)


def _outcome(call, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call(lib)
        except Exception as error:  # the comparison is the point: any type may come back
            return "error", error


def assert_same_outcome(call):
    """`call(torch)` and `call(ember)` agree: the same result (a tensor's values, dtype and
    repr; anything else by repr), or the same exception type and text."""
    import torch  # noqa: PLC0415 - only called by tests that have the oracle
    kind_t, torch_out = _outcome(call, torch)
    kind_e, ember_out = _outcome(call, ember)
    assert kind_e == kind_t, f"torch: {torch_out!r}, ember: {ember_out!r}"
    if kind_t == "error":
        if type(torch_out).__module__ == "builtins":
            assert type(ember_out) is type(torch_out)
        else:   # torch.linalg.LinAlgError is torch._C._LinAlgError: compare the public name
            assert type(ember_out).__name__ == type(torch_out).__name__.lstrip("_")
        assert str(ember_out) == ember_names(str(torch_out))
        return
    if isinstance(torch_out, torch.Tensor):
        assert_same(ember_out, torch_out)
    assert repr(ember_out) == ember_names(repr(torch_out))
