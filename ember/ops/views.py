"""Views and shape ops with PyTorch's memory semantics.

A view is a NumPy view of the input's array: it shares memory and the storage
record (so the version counter too), and `_base` points at the tensor that owns
the memory. `view` refuses where NumPy would have to copy; `reshape` copies only
then.
"""
from .. import _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_view, sum_to_shape, wrap, wrap_dim

__all__ = []


def _shape_arg(shape):
    """Accept view(2, 3), view((2, 3)) and view([2, 3])."""
    if len(shape) == 1 and not isinstance(shape[0], int) and not hasattr(shape[0], "__index__"):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def infer_size(shape, numel):
    """Resolve one -1 in `shape`; RuntimeError with PyTorch's text if impossible."""
    known = 1
    infer_at = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        else:
            known *= s
    if infer_at is not None:
        if known == 0 or numel % known != 0:
            raise RuntimeError(f"shape '{_errors.shape_list(shape)}' is invalid for input of "
                               f"size {numel}")
        shape = shape[:infer_at] + (numel // known,) + shape[infer_at + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{_errors.shape_list(shape)}' is invalid for input of size "
                           f"{numel}")
    return shape


def view(input, *shape):
    """The same memory seen with a new shape; raises when the strides do not allow it."""
    data = input._data
    shape = infer_size(_shape_arg(shape), data.size)
    try:
        result = data.reshape(shape, copy=False)
    except ValueError:
        raise RuntimeError(_errors.VIEW_NOT_COMPATIBLE) from None
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = ViewBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


class ViewBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.reshape(self.shape),)


def reshape(input, *shape):
    """A view when the strides allow it, otherwise a copy."""
    data = input._data
    shape = infer_size(_shape_arg(shape), data.size)
    try:
        result = data.reshape(shape, copy=False)
    except ValueError:
        result = None
    if result is not None:
        out = make_view(result, input)
        node_type = ViewBackward0
    else:
        out = wrap(data.reshape(shape), input._device)
        node_type = UnsafeViewBackward0
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.shape = data.shape
        attach(out, node, input)
    return out


class UnsafeViewBackward0(ViewBackward0):
    __slots__ = ()


def expand(input, *sizes):
    """A broadcast view: size-1 dims repeat with stride 0; -1 keeps a size."""
    data = input._data
    sizes = _shape_arg(sizes)
    lead = len(sizes) - data.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand({input.dtype.tensor_type[:-6].lower()}{{{_errors.shape_list(data.shape)}}}, "
            f"size={_errors.shape_list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({data.ndim})")
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension " + str(i))
            target.append(s)
            continue
        current = data.shape[i - lead]
        if s == -1:
            s = current
        elif current != 1 and current != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({current}) at non-singleton dimension {i}.  Target sizes: "
                               f"{_errors.shape_list(sizes)}.  Tensor sizes: "
                               f"{_errors.shape_list(data.shape)}")
        target.append(s)
    target = tuple(target)
    if target == data.shape:
        result = data.view()
    else:
        result = input._device.xp.broadcast_to(data, target)
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = ExpandBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


class ExpandBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (sum_to_shape(grad, self.shape),)


def unbind(input, dim=0):
    """A tuple of views, one per index along `dim`."""
    data = input._data
    dim = wrap_dim(dim, data.ndim)
    outs = []
    record = grad_state.enabled and input._requires_grad
    node = None
    if record:
        node = UnbindBackward0()
        node.shape = data.shape
        node.dim = dim
        attach_inputs = (input,)
    index = [slice(None)] * data.ndim
    for i in range(data.shape[dim]):
        index[dim] = i
        out = make_view(data[tuple(index)], input)
        if record:
            out.grad_fn = node
            out._requires_grad = True
            out._output_nr = i
        outs.append(out)
    if record:
        from ._common import edge  # noqa: PLC0415
        node.next_functions = (edge(attach_inputs[0]),)
    return tuple(outs)


class UnbindBackward0(Node):
    __slots__ = ("shape", "dim")

    def backward(self, *grads):
        from . import joining  # noqa: PLC0415
        parts = []
        for i in range(self.shape[self.dim]):
            g = grads[i] if i < len(grads) else None
            if g is None:
                shape = self.shape[:self.dim] + self.shape[self.dim + 1:]
                raise NotImplementedError("zeros for missing unbind grads")
            parts.append(g)
        return (joining.stack(parts, self.dim),)
