"""Separable linear maps: one small (out x in) matrix applied along each spatial dim.

Linear/bilinear/trilinear/bicubic resizing (nn_resize) and adaptive average pooling
(pooling_adaptive) are both such maps; they share this module, which sits below both.
The gradient applies the transposed matrices with ember ops, so higher orders come free.
"""
import math

from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, wrap


def _apply_along(x, matrix, dim, matmul):
    """matrix (out, in) applied along `dim` of x; works on arrays and on Tensors alike."""
    shape = tuple(x.shape)
    pre, post = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    if post == 1:
        y = matmul(x.reshape(pre, shape[dim]), matrix.T if hasattr(matrix, "T") else matrix)
    else:
        y = matmul(matrix, x.reshape(pre, shape[dim], post))
    return y.reshape(shape[:dim] + (matrix.shape[0],) + shape[dim + 1:])


def linear_map(input, matrices, node_class):
    """input with one (out x in) matrix applied along each of its trailing spatial dims."""
    data = input._data
    xp = input._device.xp
    dtype = data.dtype
    work = matrices[0][1].dtype
    if dtype != work:
        data = data.astype(work)
    for dim, matrix in matrices:
        data = _apply_along(data, matrix, dim, xp.matmul)
    out = wrap(data.astype(dtype) if dtype != work else data, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.matrices = matrices
        attach(out, node, input)
    return out


class _LinearMapBackward(Node):
    """Gradient of a separable linear map: the transposed matrices, applied with ember ops."""
    __slots__ = ("matrices",)

    def backward(self, grad):
        device = grad._device
        dtype = grad.dtype
        for dim, matrix in self.matrices:
            transposed = wrap(device.xp.ascontiguousarray(matrix.T).astype(grad._data.dtype),
                              device)
            grad = _apply_along(grad, transposed, dim, Tensor.matmul)
        return (grad if grad.dtype is dtype else grad.to(dtype),)
