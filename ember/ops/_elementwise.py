"""Helpers shared by the elementwise op modules (pointwise*.py).

The pieces every elementwise op repeats: PyTorch's broadcast and dtype error
texts, float promotion of integer operands, computing float16/bfloat16 formulas
in float32 (PyTorch's CPU kernels round once, at the end), constant zero
gradients, and the `NotImplemented` node PyTorch records for ops without a
derivative.
"""
from .. import _diagnose, _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, binary, wrap

__all__ = ["broadcast_error", "shape_of", "unsupported", "require_tensor", "float_binary",
           "upcast", "zeros_like", "NotImplementedBackward",
           "dtype_of", "DEFAULTS"]

DEFAULTS = _dtype._defaults
_FROM_NUMPY = _dtype.FROM_NUMPY
_FLOAT32 = _dtype.float32.np_dtype
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded


def broadcast_error(a, b):
    """PyTorch's RuntimeError for two shapes that do not broadcast."""
    message = _errors.broadcast_mismatch(getattr(a, "shape", ()), getattr(b, "shape", ()))
    return _diagnose.noted(RuntimeError(message or "shapes cannot be broadcast together"),
                           "broadcast", a=getattr(a, "shape", ()), b=getattr(b, "shape", ()))


def shape_of(x):
    """The shape of a Tensor, () for a Python scalar."""
    return x._data.shape if isinstance(x, Tensor) else ()


def dtype_of(array):
    return _FROM_NUMPY[array.dtype]


def unsupported(kernel, array):
    """PyTorch's NotImplementedError for a kernel without this array's dtype."""
    return NotImplementedError(_errors.not_implemented_for(kernel, _FROM_NUMPY[array.dtype]))


def require_tensor(value, name, argname="other", position=2):
    """PyTorch's TypeError for an op whose argument must be a Tensor, not a number."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def float_binary(input, other, name):
    """`binary()` followed by integer -> default float promotion of both operands."""
    a, b, device = binary(input, other, name, floating=True)
    if a.dtype.kind in "iub":
        a = a.astype(DEFAULTS.float_dtype.np_dtype)
        if hasattr(b, "astype"):
            b = b.astype(a.dtype)
    return a, b, device


def upcast(function, *arrays):
    """`function(*arrays)`, computed in float32 for float16/bfloat16 and rounded once."""
    dtype = arrays[0].dtype
    if dtype in _REDUCED:
        arrays = [x.astype(_FLOAT32) if hasattr(x, "astype") else x for x in arrays]
        return function(*arrays).astype(dtype)
    return function(*arrays)


def zeros_like(t):
    """A constant zero gradient (no history), as PyTorch's `zeros_like` in a formula."""
    return wrap(t._device.xp.zeros_like(t._data), t._device)


class NotImplementedBackward(Node):
    """What PyTorch records for an op without a derivative (`2 % x`, `x // y`)."""

    __slots__ = ("op",)

    def __init__(self, op, namespace="aten::"):
        Node.__init__(self)
        self.op = namespace + op   # set_'s message names it bare, the others as aten::op

    def name(self):
        return "ember::autograd::NotImplemented"

    def backward(self, grad):
        raise RuntimeError(f"derivative for {self.op} is not implemented")
