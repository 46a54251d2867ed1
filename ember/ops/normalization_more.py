"""rms_norm and the weight-norm interface: two normalisations PyTorch added later.

rms_norm is composite in PyTorch (its grad_fn is a MulBackward0), so ember writes it with
ordinary ops too: x * rsqrt(mean(x^2) + eps), times the weight. `_weight_norm` is
PyTorch's fused w = v * g / ||v|| when the kept dim is the first or the last (one node,
WeightNormInterfaceBackward0) and the composite otherwise, as PyTorch dispatches it.
"""
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor, wrap_dim
from .nn_linear import NormBackward1
from .reduction import LinalgVectorNormBackward0, vector_norm

__all__ = ["rms_norm", "norm_except_dim"]

_REDUCED = _dtype.COMPUTED_IN_FLOAT32


# ---------------------------------------------------------------- rms_norm
def _check_rms_shapes(input, normalized_shape, weight):
    expected = _errors.shape_list(normalized_shape)
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if input.dim() == 0:
        raise ValueError("Input tensor must have at least 1 dimensions, but got 0")
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {_errors.shape_list(weight.shape)} and "
                           f"normalized_shape = {expected}")
    shape = tuple(input.shape)
    if len(shape) < len(normalized_shape) or shape[-len(normalized_shape):] != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={expected}, expected input with shape "
                           f"[*{expected[1:-1]}], but got input of size"
                           f"{_errors.shape_list(shape)}")


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the last dims) + eps) * weight; eps defaults to finfo.eps.

    Half-precision input is computed in float32 and cast back, as PyTorch's composite does.
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(s) for s in normalized_shape)
    _check_rms_shapes(input, normalized_shape, weight)
    if not input.is_floating_point():
        raise NotImplementedError(_errors.not_implemented_for("rms_norm", input.dtype))
    x = input.float() if input.dtype in _REDUCED_TYPES else input
    if eps is None:
        eps = _dtype.finfo(x.dtype).eps
    dims = tuple(range(-len(normalized_shape), 0))
    out = x * (x.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    if out.dtype != input.dtype:
        out = out.to(input.dtype)
    return out if weight is None else out * weight


_REDUCED_TYPES = (_dtype.float16, _dtype.bfloat16)


# ---------------------------------------------------------------- weight norm
def _at_norm(v, pow, dim, node_class):  # noqa: A002
    """vector_norm recorded under at::norm's node name (its formula is vector_norm's)."""
    out = vector_norm(v, pow, dim)
    if out.grad_fn is not None:
        out.grad_fn.__class__ = node_class
    return out


class NormBackward0(LinalgVectorNormBackward0):
    __slots__ = ()


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 - PyTorch's parameter name
    """The `pow`-norm of v over every dim but `dim` (over all of them for dim=-1), kept
    broadcastable against v. Written through a 2-D view and at::norm, as PyTorch's, so that
    its errors on empty tensors and its gradient nodes are PyTorch's."""
    if dim == -1:
        return _at_norm(v, pow, None, NormBackward0)
    if v.dim() == 0:
        if dim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        wrap_dim(dim, 0)                 # raises PyTorch's out-of-range IndexError
    last = v.dim() - 1
    if dim == 0:
        shape = (v.shape[0],) + (1,) * last
        flat = v.contiguous().view(v.shape[0], -1)
        return _at_norm(flat, pow, 1, NormBackward1).view(shape)
    if dim == last:
        shape = (1,) * last + (v.shape[-1],)
        flat = v.contiguous().view(-1, v.shape[-1])
        return _at_norm(flat, pow, 0, NormBackward1).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """w = v * (g / ||v||), the norm over every dim of v but `dim`."""
    if dim == -1 or v.dim() == 0 or dim not in (0, v.dim() - 1):
        return v * (g / norm_except_dim(v, 2, dim))
    axes = tuple(d for d in range(v.dim()) if d != dim)
    xp = v._device.xp
    v_data = v._data
    norm = xp.sqrt((v_data * v_data).sum(axis=axes, keepdims=True))
    scale = g._data.reshape(norm.shape) / norm
    out = make_tensor((v_data * scale).astype(v_data.dtype, copy=False), v._device)
    if grad_state.enabled and (v._requires_grad or g._requires_grad):
        node = WeightNormInterfaceBackward0()
        node.axes = axes
        node.save(v, g)
        attach(out, node, v, g)
    return out


class WeightNormInterfaceBackward0(Node):
    __slots__ = ("axes",)

    def backward(self, grad):
        v, g = self.saved_tensors
        axes = self.axes
        norm = v.pow(2).sum(axes, keepdim=True).sqrt()
        projection = (grad * v).sum(axes, keepdim=True)
        grad_v = grad_g = None
        if self.needs_input_grad(0):
            scale = g.reshape(norm.shape) / norm
            grad_v = scale * (grad - v * (projection / (norm * norm)))
        if self.needs_input_grad(1):
            grad_g = (projection / norm).reshape(g.shape)
        return grad_v, grad_g
