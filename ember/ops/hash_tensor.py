"""hash_tensor: a cheap fingerprint of a tensor's values, as PyTorch computes it.

Each element is widened to its 64-bit kind (floats to float64, signed integers and bool
to int64, unsigned ones to uint64), its 64 bits are read as a uint64, and the words are
xor-reduced over `dim` (mode 0, the only mode PyTorch has). Equal values give equal hashes
whatever the input's float width, so a float32 tensor and its float64 copy hash alike.
The limited unsigned types are refused, as PyTorch's xor kernel lacks them.
"""
from .. import _dtype, _errors
from .._dtype import is_floating as _is_floating
from ._common import make_tensor, wrap_dims
from ._out import write_out

__all__ = ["hash_tensor"]

_FLOAT64 = _dtype.float64.np_dtype
_INT64 = _dtype.int64.np_dtype
_UINT64 = _dtype.uint64.np_dtype
_REFUSED = {d.np_dtype: d for d in _dtype.LIMITED_UNSIGNED}
_NO_DIM = ("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
           "Specify the reduction dim with the 'dim' argument.")


def _words(data):
    """The elements as the uint64 words PyTorch xors (a fresh contiguous array)."""
    wide = _FLOAT64 if _is_floating(data.dtype) else _UINT64 if data.dtype.kind == "u" \
        else _INT64
    return data.astype(wide).view(_UINT64)


def hash_tensor(input, dim=(), *, keepdim=False, mode=0, out=None):
    """The xor of every element's 64-bit pattern over `dim` (all dims when empty or None)."""
    if mode.__class__ is bool or not hasattr(mode, "__index__"):
        raise TypeError(f"hash_tensor(): argument 'mode' must be int, not "
                        f"{type(mode).__name__}")
    data = input._data
    refused = _REFUSED.get(data.dtype)
    if refused is not None:
        raise NotImplementedError(_errors.not_implemented_for("xor_sum_cpu", refused))
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    axes = wrap_dims(dim, data.ndim) if dim is not None else ()
    if data.size == 0:
        if not axes:
            raise RuntimeError(_NO_DIM)
        for axis in axes:
            if data.shape[axis] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {axis} to have "
                                 "non-zero size.")
    if out is not None and out.dtype is not _dtype.uint64:
        raise RuntimeError("Expected result to be of dtype uint64, but got "
                           f"{_errors.scalar_type_name(out.dtype)}")
    xp = input._device.xp
    axis = (axes or None) if data.ndim else None
    result = xp.bitwise_xor.reduce(_words(data), axis=axis, keepdims=keepdim)
    result = make_tensor(xp.asarray(result, dtype=_UINT64), input._device)
    if out is not None:
        write_out(result, out)
        return out
    return result
