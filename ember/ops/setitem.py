"""Writing `x[index] = value`, with PyTorch's semantics.

The index is parsed exactly as for reading (indexing.py); the value's shape,
dtype and any Python number are validated before anything is written, so a
failing assignment leaves the tensor and its version untouched. A write bumps
the version once and, when autograd records, rebases the written tensor's
history on the node PyTorch uses for the case: CopySlices (written through a
view), IndexPutBackward0 (index tensors on the tensor itself), FillBackward3 or
CopyBackwards (the whole tensor).
"""
from .. import _errors
from ..autograd.graph import Node
from ._common import Tensor, edge, grad_state, wrap
from .indexing import (_INVALID_0DIM, _MASK, _SCALAR_TYPES, IndexPutBackward0, _advanced_key,
                       _apply_basic, _check_put_value, _index, _items, _reduce_to, _type_name,
                       scalar_to_array)

__all__ = []


def setitem(self, index, value):
    """self[index] = value: validated first, written once, history rebased."""
    if index is False:
        return  # PyTorch returns before looking at anything
    if index is True:
        index = None  # a bare True is an unsqueeze plus a copy, as in PyTorch
    cls = index.__class__
    data = self._data
    if data.ndim == 0 and (cls is int or cls is slice):
        raise IndexError(_INVALID_0DIM if cls is int else
                         "slice() cannot be applied to a 0-dim tensor.")
    view, np_key, shape, steps, entries = _apply_basic(self, _items(index))
    adv_key = None
    if entries:
        adv_key, target = _advanced_key(shape, entries, self._device.xp)
    else:
        target = shape
    array = _setitem_value(self, value, target, entries)
    value_grad = isinstance(value, Tensor) and value._requires_grad
    recording = grad_state.enabled and (self._requires_grad or value_grad)
    if recording and self.is_floating_point():
        _check_write_allowed(self, bool(steps))
    else:
        recording = False  # integer and bool tensors never get a history
    if adv_key is not None:
        view[adv_key] = array
    else:
        view[...] = array
    self._storage.version += 1
    if recording:
        _rebase(self, value, steps, np_key, adv_key)


def _setitem_value(self, value, target, entries):
    """The array to write: a tensor's data with leading 1s dropped (PyTorch does so),
    or a Python number converted with PyTorch's overflow check."""
    data = self._data
    if isinstance(value, Tensor):
        array = value._data
        shape = array.shape
        first = 0
        while first < len(shape) and shape[first] == 1:
            first += 1
        if first:
            shape = shape[first:]
            array = array.reshape(shape)
        if entries:
            single_mask = len(entries) == 1 and entries[0][1] is _MASK
            _check_put_value(data, array, shape, target, single_mask)
        else:
            _check_expand(value, shape, target)
        return array
    if isinstance(value, _SCALAR_TYPES):
        return scalar_to_array(value, data.dtype, self._device.xp)
    raise TypeError(f"can't assign a {_type_name(value)} to a ember.{self.dtype.tensor_type}")


def _check_expand(value, shape, target):
    """PyTorch's expand errors for copying a value of `shape` into a view of `target`."""
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand(ember.{value.dtype.tensor_type}{{{_errors.shape_list(shape)}}}, "
            f"size={_errors.shape_list(target)}): the number of sizes provided ({len(target)}) "
            f"must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    lead = len(target) - len(shape)
    for i in range(len(target) - 1, lead - 1, -1):
        size = shape[i - lead]
        if size != 1 and size != target[i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i]}) must match the existing size "
                f"({size}) at non-singleton dimension {i}.  Target sizes: "
                f"{_errors.shape_list(target)}.  Tensor sizes: {_errors.shape_list(shape)}")


def _check_write_allowed(self, through_view):
    """The leaf rules; writing into a view of a graph tensor waits for view tracking."""
    if self.grad_fn is None and self._requires_grad:
        raise RuntimeError(_errors.VIEW_OF_LEAF_INPLACE if through_view else
                           _errors.LEAF_INPLACE)
    base = self._base
    if base is not None:
        if base.grad_fn is None and base._requires_grad:
            raise RuntimeError(_errors.VIEW_OF_LEAF_INPLACE)
        raise NotImplementedError(
            "assigning into a view of a tensor with autograd history is not supported yet; "
            "assign into the base tensor instead")


def _rebase(self, value, steps, np_key, adv_key):
    """Make the write the new producer of `self`, with PyTorch's node for this case."""
    value_shape = value._data.shape if isinstance(value, Tensor) else ()
    if steps:
        node = CopySlices()
        node.basic_key = np_key
        node.adv_key = adv_key
    elif adv_key is not None:
        node = IndexPutBackward0()
        node.key = adv_key
        node.accumulate = False
        node.advanced = True
    else:
        whole = isinstance(value, Tensor) and (value_shape == self._data.shape
                                               or value._data.ndim)
        node = CopyBackwards() if whole else FillBackward3()
        node.basic_key = (Ellipsis,)
        node.adv_key = None
    node.value_shape = value_shape
    node.value_dtype = value._data.dtype if isinstance(value, Tensor) else None
    node.next_functions = (edge(self), edge(value))
    self.grad_fn = node
    self._requires_grad = True
    self._output_nr = 0


class CopySlices(Node):
    """Gradient of writing `value` into a region of a tensor: the old values' gradient
    is zero in the region; the value gets the region's gradient, summed over broadcast."""

    __slots__ = ("basic_key", "adv_key", "value_shape", "value_dtype")

    def backward(self, grad):
        grad_self = grad_value = None
        if self.next_functions[0][0] is not None:
            keep = grad._device.xp.ones(grad._data.shape, dtype=grad._data.dtype)
            region = keep[self.basic_key]
            region[self.adv_key if self.adv_key is not None else Ellipsis] = 0
            grad_self = grad * wrap(keep, grad._device)
        if self.next_functions[1][0] is not None:
            region = grad if self.basic_key == (Ellipsis,) else _index(grad, self.basic_key,
                                                                         False)
            if self.adv_key is not None:
                region = _index(region, self.adv_key, True)
            grad_value = _reduce_to(region, self.value_shape, self.value_dtype)
        return grad_self, grad_value


class FillBackward3(CopySlices):
    __slots__ = ()


class CopyBackwards(CopySlices):
    __slots__ = ()
