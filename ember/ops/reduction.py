"""Reductions: sum, mean, prod, max/min, std/var, norms, cumulative ops, sorting.

Each op is its public function followed by its backward node. `dim` may be an
int, a tuple, or None (all dimensions); `keepdim` keeps reduced dims as size 1.
"""
from .. import _dtype
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap, wrap_dims

__all__ = ["sum", "mean"]


def _reduce_axes(input, dim):
    ndim = input._data.ndim
    if dim is None:
        return None
    axes = wrap_dims(dim, ndim)
    return axes if axes else None


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (all dims when None); integers and bools sum as int64."""
    data = input._data
    axes = _reduce_axes(input, dim)
    if dtype is not None:
        np_dtype = dtype.np_dtype
    elif data.dtype.kind in "iub":
        np_dtype = _dtype.int64.np_dtype
    else:
        np_dtype = None
    result = data.sum(axis=axes, keepdims=keepdim, dtype=np_dtype)
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = SumBackward0() if dim is None else SumBackward1()
        node.shape = data.shape
        node.axes = axes
        node.keepdim = keepdim
        attach(out, node, input)
    return out


class SumBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim")

    def backward(self, grad):
        if not self.keepdim and self.axes is not None:
            grad = grad.reshape(_kept_shape(self.shape, self.axes))
        elif not self.keepdim:
            grad = grad.reshape((1,) * len(self.shape))
        return (grad.expand(self.shape),)


class SumBackward1(SumBackward0):
    __slots__ = ()


def _kept_shape(shape, axes):
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over `dim`; integer inputs raise as in PyTorch (pass a float dtype)."""
    data = input._data
    if dtype is None and data.dtype.kind in "iub":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_dtype.FROM_NUMPY[data.dtype].tensor_type[:-6]}")
    if dtype is not None:
        data = data.astype(dtype.np_dtype)
    axes = _reduce_axes(input, dim)
    result = data.mean(axis=axes, keepdims=keepdim)
    out = wrap(result.astype(data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = MeanBackward0() if dim is None else MeanBackward1()
        node.shape = data.shape
        node.axes = axes
        node.keepdim = keepdim
        count = 1
        for i, s in enumerate(data.shape):
            if axes is None or i in axes:
                count *= s
        node.count = count
        attach(out, node, input)
    return out


class MeanBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim", "count")

    def backward(self, grad):
        if not self.keepdim:
            grad = grad.reshape(_kept_shape(self.shape, self.axes))
        return (grad.expand(self.shape) / self.count,)


class MeanBackward1(MeanBackward0):
    __slots__ = ()
