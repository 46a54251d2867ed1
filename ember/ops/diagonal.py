"""Matrix-structure ops: trace, tril/triu, diag, diag_embed.

Each op is its public function followed by its backward node. Taking a diagonal
is the views family's `diagonal` (slicing.py); putting values on one (diag_embed,
and the gradient of taking one) is its adjoint there, `_embed`.
"""
import functools

from . import _autocast
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import attach, grad_state, inplace_overlapping, make_tensor, wrap, wrap_dim
from .pointwise_select import where
from .slicing import _EmbedBackward, _embed, diagonal as _diagonal_view, diagonal_backward

__all__ = ["trace", "tril", "triu", "diag", "diag_embed"]

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_INT64 = _dtype.int64.np_dtype
_FLOAT32 = _dtype.float32.np_dtype
_FLOAT64 = _dtype.float64.np_dtype


def _type_name(array):
    return _errors.scalar_type_name(_dtype.FROM_NUMPY[array.dtype])


# ---------------------------------------------------------------- trace
def trace(input):
    """Sum of the main diagonal of a matrix; integers sum as int64, as `sum` does."""
    if _autocast.on:
        return _autocast.float32(trace, input)
    data = input._data
    if data.dtype.kind == "b":   # the kernel's refusal comes before the shape check
        raise NotImplementedError(f"\"trace\" not implemented for '{_type_name(data)}'")
    if data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {data.ndim}")
    xp = input._device.xp
    if data.dtype.kind in "iu":
        result = xp.trace(data, dtype=_INT64)
    elif data.dtype in _REDUCED:
        result = xp.trace(data, dtype=_FLOAT32).astype(data.dtype)
    else:
        # PyTorch walks the diagonal in order with a double accumulator (float32 too)
        running = xp.cumsum(xp.diagonal(data), dtype=_FLOAT64)
        result = (running[-1] if running.size else _FLOAT64.type(0)).astype(data.dtype)
    out = wrap(xp.asarray(result), input._device)
    if grad_state.enabled and input._requires_grad:
        node = TraceBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


class TraceBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        # zeros with grad on the diagonal, as PyTorch fills it (a product with an identity
        # would put inf * 0 = NaN off the diagonal); `where` differentiates again.
        eye = grad._device.xp.eye(self.shape[0], self.shape[1], dtype=bool)
        return (where(make_tensor(eye, grad._device), grad, 0.0),)


# ---------------------------------------------------------------- tril / triu
def _triangle(input, diagonal, name, node_type):
    data = input._data
    if data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    if data.dtype in _LIMITED:
        raise _refusal(name, data.dtype)
    xp = input._device.xp
    out = make_tensor((xp.tril if name == "tril" else xp.triu)(data, diagonal), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.diagonal = diagonal
        attach(out, node, input)
    return out


def tril(input, diagonal=0):
    """The lower triangle of the last two dimensions (on and below `diagonal`); zeros elsewhere."""
    return _triangle(input, diagonal, "tril", TrilBackward0)


class TrilBackward0(Node):
    __slots__ = ("diagonal",)

    def backward(self, grad):
        return (tril(grad, self.diagonal),)


def tril_(input, diagonal=0):
    return inplace_overlapping(input, tril, diagonal)  # PyTorch lets it write into an expand


def triu(input, diagonal=0):
    """The upper triangle of the last two dimensions (on and above `diagonal`); zeros elsewhere."""
    return _triangle(input, diagonal, "triu", TriuBackward0)


class TriuBackward0(Node):
    __slots__ = ("diagonal",)

    def backward(self, grad):
        return (triu(grad, self.diagonal),)


def triu_(input, diagonal=0):
    return inplace_overlapping(input, triu, diagonal)


# ---------------------------------------------------------------- diag / diag_embed
def diag(input, diagonal=0):
    """A 1-D tensor becomes a diagonal matrix; a 2-D tensor gives (a copy of) its diagonal."""
    ndim = input._data.ndim
    if ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if ndim == 2:
        out = make_tensor(input._data.diagonal(diagonal).copy(), input._device)
        if grad_state.enabled and input._requires_grad:
            node = DiagonalBackward0_copy()
            node.shape, node.offset = input._data.shape, diagonal
            attach(out, node, input)
        return out
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


class DiagonalBackward0_copy(Node):  # noqa: N801 - PyTorch's name for diagonal_copy's node
    __slots__ = ("shape", "offset")

    def backward(self, grad):
        return (diagonal_backward(grad, self.shape, self.offset, 0, 1),)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Put the last dimension on the (offset) diagonal of new dims `dim1`, `dim2`."""
    data = input._data
    ndim = data.ndim + 1
    first, second = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = data.shape[-1] + abs(offset)
    shape = list(data.shape[:-1])
    for position in sorted((first, second)):
        shape.insert(position, size)
    view_fn = functools.partial(_diagonal_view, offset=offset, dim1=first, dim2=second)
    return _embed(input, tuple(shape), view_fn, DiagEmbedBackward0)


class DiagEmbedBackward0(_EmbedBackward):
    __slots__ = ()
