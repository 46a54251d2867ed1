"""In-place ops on views of tensors in the graph: PyTorch's CopySlices.

When `v = y[1:3]` is modified in place, the values of its base `y` change too,
so `y`'s history must change: `y.grad_fn` becomes a `CopySlices` node that
wraps the in-place op's node, and `v.grad_fn` becomes an `AsStridedBackward0`
view of the new `y` (`regenerate_view_history`). Gradients then flow to the old
`y` everywhere except the overwritten region, which receives what the op sends
back to its input. Assignment `y[1:3] = z` takes the same road (setitem.py).

The view's place in its base is kept as an integer index array (base flat
positions of each view element), computed from the two tensors' strides and
storage offsets, so any view geometry (slices, transposes, diagonals) is handled
alike.

Other views of the same base need a fresh history too (PyTorch regenerates a
view's `grad_fn` when it is next read, after its base's version changed). To keep
that check off the hot path (`edge` reads `grad_fn` directly), a base with
history remembers its recorded views weakly (`_common.track_view`, called by
`attach`), and a recorded in-place op regenerates the live ones at once
(`regenerate_views`).
"""
from .._backend import address as _address
from ..autograd.graph import Node
from ._common import edge, make_tensor
from .slicing import AsStridedBackward0, _positions

__all__ = ["rebase_view_history", "regenerate_view_history", "regenerate_views", "CopySlices"]


def _geometry(tensor):
    """(size, stride, storage offset) in elements, as `as_strided` takes them."""
    data = tensor._data
    itemsize = data.itemsize
    root = tensor._storage.root
    offset = (_address(data) - _address(root)) // itemsize if data.size and data is not root \
        else 0
    return data.shape, tuple([s // itemsize for s in data.strides]), offset


def view_positions(view, base):
    """For each element of `view`, its flat (C-order) position in `base`."""
    xp = base._device.xp
    positions = _positions(xp, *_geometry(view))
    base_geometry = _geometry(base)
    if base._data.flags.c_contiguous:
        return positions - base_geometry[2]
    storage = _positions(xp, *base_geometry).reshape(-1)
    lookup = xp.full(int(storage.max()) + 1 if storage.size else 1, -1, dtype=xp.int64)
    lookup[storage] = xp.arange(storage.size, dtype=xp.int64)
    return lookup[positions]


def rebase_view_history(view, result):
    """After `view` was overwritten by `result` (an op's output), rebase base and view."""
    base = view._base
    op_node = result.grad_fn
    copy_slices = CopySlices()
    copy_slices.fn = op_node
    copy_slices.positions = make_tensor(view_positions(view, base), base._device)
    copy_slices.base_shape = base._data.shape
    copy_slices.next_functions = (edge(base),) + tuple(op_node.next_functions[1:])
    base.grad_fn = copy_slices
    base._requires_grad = True
    base._output_nr = 0
    regenerate_view_history(view)


def regenerate_view_history(view):
    """Give a view of a rebased base PyTorch's fresh history: an as_strided of the base."""
    base = view._base
    node = AsStridedBackward0()
    node.input_geometry = _geometry(base)
    node.output_geometry = _geometry(view)
    node.next_functions = (edge(base),)
    view.grad_fn = node
    view._requires_grad = True
    view._output_nr = 0


def regenerate_views(written):
    """After a recorded in-place op on `written`, refresh every other live view of its base."""
    base = written if written._base is None else written._base
    views = base._extras.get("views") if base._extras is not None else None
    if views:
        for ref in views:
            view = ref()
            if view is not None and view is not written:
                regenerate_view_history(view)


class CopySlices(Node):
    """The base's node after an in-place op on one of its views."""
    _namespace = "ember::autograd::"

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
