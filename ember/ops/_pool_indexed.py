"""The index-routed gradient shared by max pooling and adaptive max pooling.

A max-style pool remembers, per output, the flat in-plane index it read; its gradient
scatters there, and the gradient of that scatter is the gather again. Both pooling
modules build on this one, which sits below them.
"""
import math

from ..autograd.graph import Node
from ._common import attach, grad_state, wrap


def _batched(data, n):
    """The array seen as (N, C, *spatial) (an unbatched input gets N = 1)."""
    return data if data.ndim == n + 2 else data[None]


class _IndexedBackward(Node):
    """Max-style pools: the gradient goes to the input position each output was read from."""
    __slots__ = ("indices", "input_shape", "spatial")

    def backward(self, grad):
        return (_plane_scatter(grad, self.indices, self.input_shape, self.spatial,
                              type(self)),)


def _record_indexed(out, node_class, input, indices, spatial):
    node = node_class()
    node.indices = indices
    node.input_shape = input._data.shape
    node.spatial = spatial
    attach(out, node, input)


def _plane_scatter(grad, indices, input_shape, spatial, gather_class):
    """Add grad into zeros(input_shape) at per-plane flat `indices` (one bincount)."""
    xp = grad._device.xp
    planes = math.prod(input_shape[:-spatial])
    plane = math.prod(input_shape[-spatial:])
    if planes * plane == 0 or indices.size == 0:
        total = xp.zeros(input_shape, grad._data.dtype)
    else:
        where = (xp.arange(planes)[:, None] * plane + indices.reshape(planes, -1)).reshape(-1)
        total = xp.bincount(where, weights=grad._data.reshape(-1), minlength=planes * plane)
        total = total.astype(grad._data.dtype).reshape(input_shape)
    out = wrap(total, grad._device)
    if grad_state.enabled and grad._requires_grad:
        node = MaxPoolBackwardBackward0()
        node.indices = indices
        node.spatial = spatial
        node.gather_class = gather_class
        attach(out, node, grad)
    return out


class MaxPoolBackwardBackward0(Node):
    """Second derivative of a max-style pool: read the incoming gradient at the indices."""
    __slots__ = ("indices", "spatial", "gather_class")

    def backward(self, grad):
        return (_plane_gather(grad, self.indices, self.spatial, self.gather_class),)


def _plane_gather(x, indices, spatial, node_class):
    """x read at per-plane flat `indices`: a max pool whose argmax is already known."""
    xp = x._device.xp
    data = x._data
    planes = math.prod(data.shape[:-spatial])
    if planes == 0 or indices.size == 0:
        values = xp.zeros(indices.shape, data.dtype)
    else:
        flat = data.reshape(planes, -1)
        values = xp.take_along_axis(flat, indices.reshape(planes, -1), axis=1)
    out = wrap(values.reshape(indices.shape), x._device)
    if grad_state.enabled and x._requires_grad:
        _record_indexed(out, node_class, x, indices, spatial)
    return out
