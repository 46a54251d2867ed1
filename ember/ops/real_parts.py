"""The complex-number vocabulary as PyTorch answers it for real tensors.

ember has no complex dtypes, yet code written for both kinds calls `x.real`, `x.conj()`,
`x.resolve_conj()` or `torch.angle(x)` on real tensors. PyTorch's CPU build gives the
tensor itself back from the identity ones (no copy, no graph node), False from the
lazy-bit queries, an error from `imag`, and from `angle` the argument of a real number:
pi for negatives, 0 otherwise, NaN kept.
"""
import math

from ..autograd.graph import Node
from ._common import Tensor, _check_inplace_allowed, attach, float_operand, grad_state, make_tensor

__all__ = ["real", "imag", "conj", "conj_physical", "conj_physical_", "resolve_conj",
           "resolve_neg", "is_conj", "is_neg", "angle"]

_NO_IMAG = "imag is not implemented for tensors with non-complex dtypes."


def _tensor(input):
    """The identity answers below would hand a non-tensor straight back; PyTorch's parser
    refuses it first (the door turns this TypeError into its words)."""
    if not isinstance(input, Tensor):
        raise TypeError("expected a Tensor")
    return input


def real(input):
    """The real part: a real tensor is its own real part (the same object)."""
    return _tensor(input)


def imag(input):
    raise RuntimeError(_NO_IMAG)


def conj(input):
    """Conjugate view; a real tensor is its own conjugate (the same object)."""
    return _tensor(input)


def conj_physical(input):
    return _tensor(input)


def conj_physical_(input):
    """In place, so a leaf that requires grad is refused even though nothing changes."""
    if grad_state.enabled:
        _check_inplace_allowed(_tensor(input))
    return input


def resolve_conj(input):
    """Materialise a lazy conjugation; real tensors never carry one."""
    return _tensor(input)


def resolve_neg(input):
    """Materialise a lazy negation; ember never makes one."""
    return _tensor(input)


def is_conj(input):
    _tensor(input)
    return False


def is_neg(input):
    _tensor(input)
    return False


def angle(input):
    """The argument of each element: pi where negative, 0 where not, NaN where NaN
    (integers and bools give the default float dtype, as PyTorch's unary float ops)."""
    data = float_operand(input)
    xp = input._device.xp
    result = xp.where(data < 0, data.dtype.type(math.pi), data.dtype.type(0))
    result = xp.where(xp.isnan(data), data, result)
    out = make_tensor(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = AngleBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


class AngleBackward0(Node):
    """The argument of a real number is piecewise constant: zero gradient (NaN included)."""
    __slots__ = ("shape",)

    def backward(self, grad):
        return (make_tensor(grad._device.xp.zeros(self.shape, grad._data.dtype), grad._device),)
