"""In-place ops on views of tensors in the graph: PyTorch's CopySlices.

When `v = y[1:3]` is modified in place, the values of its base `y` change too,
so `y`'s history must change: `y.grad_fn` becomes a `CopySlices` node that
wraps the in-place op's node, and `v.grad_fn` becomes an `AsStridedBackward0`
view of the new `y`. Gradients then flow to the old `y` everywhere except the
overwritten region, which receives what the op sends back to its input.

The view's place in its base is kept as an integer index array (base flat
positions of each view element), computed from the two arrays' memory offsets,
so any view geometry (slices, transposes, diagonals, expands) is handled alike.
"""
from .. import _dtype
from ..autograd.graph import Node
from ._common import edge, make_tensor

__all__ = ["rebase_view_history", "CopySlices", "AsStridedBackward0"]

_INT64 = _dtype.int64.np_dtype


def _element_offsets(array, xp):
    """Each element's distance (in elements) from the array's first element."""
    offsets = xp.zeros(array.shape, dtype=_INT64)
    itemsize = array.itemsize
    for dim, (size, stride) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[dim] = size
        offsets = offsets + (xp.arange(size, dtype=_INT64) * (stride // itemsize)).reshape(shape)
    return offsets


def _address(array):
    return array.__array_interface__["data"][0] if hasattr(array, "__array_interface__") \
        else array.data.ptr


def view_positions(view, base):
    """For each element of `view`, its flat (C-order) position in `base`."""
    xp = base._device.xp
    view_data, base_data = view._data, base._data
    start = (_address(view_data) - _address(base_data)) // base_data.itemsize
    positions = start + _element_offsets(view_data, xp)
    if base_data.flags.c_contiguous:
        return positions
    base_offsets = _element_offsets(base_data, xp).reshape(-1)
    lookup = xp.full(int(base_offsets.max()) + 1 if base_offsets.size else 1, -1, dtype=_INT64)
    lookup[base_offsets] = xp.arange(base_offsets.size, dtype=_INT64)
    return lookup[positions]


def rebase_view_history(view, result):
    """After `view` was overwritten by `result` (an op's output), rebase base and view."""
    base = view._base
    op_node = result.grad_fn
    positions = make_tensor(view_positions(view, base), base._device)
    copy_slices = CopySlices()
    copy_slices.fn = op_node
    copy_slices.positions = positions
    copy_slices.base_shape = base._data.shape
    copy_slices.next_functions = (edge(base),) + tuple(op_node.next_functions[1:])
    base.grad_fn = copy_slices
    base._requires_grad = True
    base._output_nr = 0
    view_node = AsStridedBackward0()
    view_node.positions = positions
    view_node.base_shape = base._data.shape
    view_node.next_functions = ((copy_slices, 0),)
    view.grad_fn = view_node
    view._requires_grad = True
    view._output_nr = 0


class CopySlices(Node):
    """The base's node after an in-place op on one of its views."""

    __slots__ = ("fn", "positions", "base_shape")

    def backward(self, grad):
        flat = grad.reshape(-1)
        grad_view = flat[self.positions]
        results = self.fn.backward(grad_view)
        if not isinstance(results, tuple):
            results = (results,)
        grad_base = flat.clone()
        grad_input = results[0]
        if grad_input is None:
            grad_base[self.positions] = 0
        else:
            grad_base[self.positions] = grad_input.reshape(self.positions.shape)
        return (grad_base.reshape(self.base_shape),) + tuple(results[1:])


class AsStridedBackward0(Node):
    """A view's node once its base was rebased: gradient scattered back into the base."""

    __slots__ = ("positions", "base_shape")

    def backward(self, grad):
        numel = 1
        for size in self.base_shape:
            numel *= size
        grad_base = grad.new_zeros((numel,))
        grad_base.index_put_((self.positions.reshape(-1),), grad.reshape(-1), accumulate=True)
        return (grad_base.reshape(self.base_shape),)
