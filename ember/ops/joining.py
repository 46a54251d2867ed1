"""Joining tensors: cat (concat, concatenate), stack, and the h/v/d/column stacks.

All inputs are promoted to one dtype as PyTorch does; the gradient of each input is
its piece of the output gradient, cast back to the input's dtype.
"""
from . import _autocast
from .. import _diagnose, _dtype
from .._errors import shape_list
from ..autograd.graph import Node
from ._common import Tensor, any_requires_grad, attach, check_same_device, make_tensor, wrap_dim
from . import views as _views

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
           "column_stack"]


def _tensor_list(tensors, name):
    """The inputs as a list of Tensors, with PyTorch's TypeErrors for anything else."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return list(tensors)


def _common_arrays(tensors):
    """(arrays cast to the promoted dtype, that dtype); checks that devices agree."""
    result = tensors[0].dtype
    first = tensors[0]
    for t in tensors[1:]:
        if t._device is not first._device:
            check_same_device(first, t)
        if t.dtype is not result:
            result = _dtype.promote_types(result, t.dtype)
    np_dtype = result.np_dtype
    return [t._data.astype(np_dtype, copy=False) for t in tensors], result


def _write_out(result, out):
    """Put an op's result into a user-supplied `out=` tensor (resized as PyTorch does)."""
    if out is None:
        return result
    if out._data.shape == result._data.shape:
        out._device.xp.copyto(out._data, result._data, casting="unsafe")
    else:
        out._data = result._data.astype(out._data.dtype)
        out._storage.root = out._data
    out._storage.version += 1
    return out


def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dim; PyTorch's legacy rule skips 1-D empty tensors."""
    if _autocast.on and out is None:
        return _autocast.promote(cat, tensors, dim, out=out)
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    arrays, dtype = _common_arrays(tensors)
    kept = [i for i, t in enumerate(tensors) if t._data.shape != (0,)]
    if not all(array.ndim for array in arrays):     # checked before dim, as PyTorch does
        _check_cat_shapes(tensors, kept, 0)
    device = tensors[0]._device
    if not kept:
        result = make_tensor(device.xp.empty((0,), dtype.np_dtype), device)
        return _write_out(_record_cat(result, tensors, 0), out)
    dim = wrap_dim(dim, tensors[kept[0]]._data.ndim or 1)
    try:  # NumPy validates; PyTorch's messages are only worked out when it refuses
        result = device.xp.concatenate([arrays[i] for i in kept], axis=dim)
    except ValueError:
        _check_cat_shapes(tensors, kept, dim)
        raise
    return _write_out(_record_cat(make_tensor(result, device), tensors, dim), out)


def _check_cat_shapes(tensors, kept, dim):
    """Raise PyTorch's error for tensors that cannot be concatenated along `dim`."""
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    reference = tensors[kept[0]]._data.shape
    for i in kept:
        shape = tensors[i]._data.shape
        if len(shape) != len(reference):
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{len(reference)} and {len(shape)}")
        for d, (expected, got) in enumerate(zip(reference, shape)):
            if d != dim and expected != got:
                raise _diagnose.noted(RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{expected} but got size {got} for tensor number {i} in the list."),
                    "cat", shapes=[t._data.shape for t in tensors], dim=dim, index=i)


def _record_cat(out, tensors, dim):
    if any_requires_grad(*tensors) and out.is_floating_point():
        node = CatBackward0()
        node.dim = dim
        node.pieces = [(t.dtype, t._data.shape) for t in tensors]
        attach(out, node, *tensors)
    return out


class CatBackward0(Node):
    __slots__ = ("dim", "pieces")

    def backward(self, grad):
        grads = []
        offset = 0
        for i, (dtype, shape) in enumerate(self.pieces):
            if shape == (0,):
                # A skipped legacy empty tensor gets an empty gradient.
                piece = make_tensor(grad._device.xp.zeros((0,), dtype.np_dtype), grad._device)
                grads.append(piece if self.needs_input_grad(i) else None)
                continue
            size = shape[self.dim]
            if not self.needs_input_grad(i):
                grads.append(None)
            else:
                grads.append(_as_dtype(grad.narrow(self.dim, offset, size), dtype))
            offset += size
        return tuple(grads)


def _as_dtype(grad, dtype):
    return grad if grad.dtype is dtype else grad.to(dtype)


def concat(tensors, dim=0, *, out=None):
    return cat(tensors, dim, out=out)


def concatenate(tensors, axis=0, *, dim=None, out=None):
    return cat(tensors, axis if dim is None else dim, out=out)


def stack(tensors, dim=0, *, out=None):
    """Join equally shaped tensors along a new dim."""
    if _autocast.on and out is None:
        return _autocast.promote(stack, tensors, dim, out=out)
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != shape:
            raise _diagnose.noted(RuntimeError(
                f"stack expects each tensor to be equal size, but got {shape_list(shape)} at "
                f"entry 0 and {shape_list(t._data.shape)} at entry {i}"),
                "stack", shapes=[t._data.shape for t in tensors], index=i)
    dim = wrap_dim(dim, len(shape) + 1)
    arrays, dtype = _common_arrays(tensors)
    device = tensors[0]._device
    result = make_tensor(device.xp.stack(arrays, axis=dim), device)
    if any_requires_grad(*tensors) and result.is_floating_point():
        node = StackBackward0()
        node.dim = dim
        node.dtypes = [t.dtype for t in tensors]
        attach(result, node, *tensors)
    return _write_out(result, out)


class StackBackward0(Node):
    __slots__ = ("dim", "dtypes")

    def backward(self, grad):
        return tuple(None if not self.needs_input_grad(i)
                     else _as_dtype(grad.select(self.dim, i), dtype)
                     for i, dtype in enumerate(self.dtypes))


def _nonempty(tensors, name):
    tensors = _tensor_list(tensors, name)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """cat along dim 1, or dim 0 for 1-D (0-D inputs become 1-D)."""
    tensors = _views.atleast_1d(_nonempty(tensors, "hstack"))
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """cat along dim 0 after making every input at least 2-D."""
    return cat(_views.atleast_2d(_nonempty(tensors, "vstack")), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """cat along dim 2 after making every input at least 3-D."""
    return cat(_views.atleast_3d(_nonempty(tensors, "dstack")), 2, out=out)


def column_stack(tensors, *, out=None):
    """Columns side by side: 0-D and 1-D inputs become (n, 1) columns, then cat along dim 1."""
    tensors = _nonempty(tensors, "column_stack")
    columns = [_views.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t
               for t in tensors]
    return cat(columns, 1, out=out)
