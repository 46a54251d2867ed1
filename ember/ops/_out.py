"""`out=`: PyTorch's rules for writing an op's result into a caller's tensor, in one place.

An op that takes `out=` calls `check_out` before computing (out= ops are not
differentiable, and the dtype must be the op's) and `write_out` after: an `out` of
another shape is resized, with PyTorch's deprecation warning when it held elements,
then the values are copied in and its version bumped.
"""
import warnings

from .. import _errors
from .._tensor import _Storage
from ..autograd.grad_mode import state as grad_state

__all__ = ["check_out", "write_out"]

_RESIZED = ("An output with one or more elements was resized since it had shape {}, which does "
            "not match the required output shape {}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0).")


def check_out(name, out, dtype, dtype_message, *inputs):
    """Refuse `out` before any work: it may not take part in autograd, and must hold `dtype`
    (`dtype_message` is the op's own wording of that error)."""
    if grad_state.enabled and (out._requires_grad or any(
            getattr(x, "_requires_grad", False) for x in inputs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if out.dtype is not dtype:
        raise RuntimeError(dtype_message)


def write_out(result, out):
    """Copy `result`'s values into `out`, resizing `out` first when the shapes differ."""
    data = result._data
    if out._data.shape != data.shape:
        if out._data.size:
            warnings.warn(_RESIZED.format(_errors.shape_list(out._data.shape),
                                          _errors.shape_list(data.shape)), UserWarning,
                          stacklevel=3)
        version = out._storage.version
        out._data = out._device.xp.empty(data.shape, out._data.dtype)
        out._storage = _Storage(out._data)
        out._storage.version = version
        out._base = None
    if data.size:
        out._device.xp.copyto(out._data, data, casting="unsafe")
    out._storage.version += 1
    return out
