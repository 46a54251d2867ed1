"""`ember.set_default_tensor_type`: the pre-2.1 way to change the default dtype.

It takes a legacy tensor type (`ember.DoubleTensor`) or its dotted name
("torch.DoubleTensor" reads as ember's, so scripts run unchanged) and sets the default
floating dtype from it; PyTorch warns once per process that it is deprecated.
"""
import importlib
import warnings

from . import _dtype
from ._tensor_types import tensortype

__all__ = ["set_default_tensor_type"]

_warned = [False]


def set_default_tensor_type(t):
    """Make `t`'s dtype the default floating dtype (a floating legacy type only)."""
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("ember.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use ember.set_default_dtype() and ember.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _dotted(t)
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if t._device_type == "cuda":
        from . import cuda   # deferred: ember.cuda sits above this module
        if not cuda.is_available():
            raise TypeError(f"type {t._type_name} not available. Torch not compiled with CUDA "
                            "enabled.")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)


def _dotted(name):
    """The object a dotted name names; a leading "torch" means ember."""
    first, *rest = name.split(".")
    obj = importlib.import_module("ember" if first in ("torch", "ember") else first)
    for part in rest:
        obj = getattr(obj, part)
    return obj
