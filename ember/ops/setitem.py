"""Writing `x[index] = value`, with PyTorch's semantics.

The index is parsed exactly as for reading (indexing.py); the value's shape,
dtype and any Python number are validated before anything is written, so a
failing assignment leaves the tensor and its version untouched. Without a graph
to record, the value is written straight into the indexed part of the array.
With one, the write is what PyTorch makes of it: take the view that the ints,
slices and None select, then write into it in place through `_common.inplace`:
`copy_` for a tensor value, `fill_` for a 0-dim or Python one, an index_put for
index tensors. An in-place op on a view is what rebases the base's history
(CopySlices), so assigning into a view of a tensor with history works too.
"""
from .. import _errors
from .._backend import numpy as _numpy
from . import _view_rebase
from ._cast import steps_before as _steps_before
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import (Tensor, check_no_overlap, check_no_partial_overlap, grad_state,
                      inplace_overlapping, make_view, scalar_number, wrap)
from .indexing import (_INVALID_0DIM, _MASK, _advanced_key, _apply_basic,
                       _check_put_value, _index_put, _items, _record_chain, _type_name)

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
    view, shape, steps, entries = _apply_basic(self, _items(index))
    adv_key = None
    if entries:
        adv_key, target = _advanced_key(shape, entries, self._device.xp)
    else:
        target = shape
    array = _setitem_value(self, value, target, entries)
    if adv_key is None:
        check_no_overlap(view)  # index_put_ may write into an expand; copy_ and fill_ not
        if isinstance(value, Tensor) and value._storage is self._storage:
            check_no_partial_overlap(make_view(view, self), (value,))
    value_grad = isinstance(value, Tensor) and value._requires_grad
    # Integer and bool tensors never get a history: they always take the plain write.
    if grad_state.enabled and (self._requires_grad or value_grad) and self.is_floating_point():
        _write_recorded(self, value, array, view, steps, adv_key)
        return
    if adv_key is not None:
        view[adv_key] = array
    else:
        view[...] = array
    self._storage.version += 1


def _write_recorded(self, value, array, view, steps, adv_key):
    """The write as PyTorch records it: an in-place op on the indexed view of `self`."""
    sliced = self
    if steps:
        sliced = make_view(view, self)
        if self._requires_grad:
            _record_chain(sliced, self, steps, None)
    if not isinstance(value, Tensor):  # a number becomes a 0-dim tensor
        array = self._device.xp.asarray(array, dtype=self._data.dtype)
        value = wrap(array, self._device)
    if adv_key is not None:
        inplace_overlapping(sliced, _index_put, adv_key, _drop_leading_ones(value, array), False)
    elif value._data.shape == view.shape:
        sliced.copy_(value)
    elif value._data.ndim == 0:
        sliced.fill_(value)
    else:
        value = _drop_leading_ones(value, array)
        sliced.copy_(value if value._data.shape == view.shape else value.expand(view.shape))
    if sliced is not self and self._base is not None:
        # `self` is a view of the rebased base too (a tracked one was refreshed already).
        _view_rebase.regenerate_view_history(self)


def _drop_leading_ones(value, array):
    """`value` viewed without its leading 1s (`array`'s shape), as PyTorch's setitem does."""
    return value if array.shape == value._data.shape else value.view(array.shape)


def _setitem_value(self, value, target, entries):
    """The array to write: a tensor's data with leading 1s dropped (PyTorch does so),
    or a Python number converted with PyTorch's overflow check."""
    data = self._data
    if entries and data.dtype in _LIMITED:  # PyTorch's masked_fill / index_put kernels
        single_mask = len(entries) == 1 and entries[0][1] is _MASK
        raise _refusal("masked_fill" if single_mask else "index_put", data.dtype)
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
        return _steps_before(array, data.dtype)  # NumPy finishes the cast as PyTorch does
    if isinstance(value, (bool, int, float, _np_integer)):
        return _setitem_number(value, self.dtype, self._device.xp)
    raise TypeError(f"can't assign a {_type_name(value)} to a ember.{self.dtype.tensor_type}")


_np_integer = _numpy.integer
_FLOAT32 = _numpy.dtype("float32")


def _setitem_number(value, dtype, xp):
    """A number for `x[i] = v`, read as PyTorch's setitem reads it: ints must fit int64
    (NumPy's integers count as ints, its floats other than float64 are refused by the
    caller); the overflow check applies except into float16/bfloat16, where PyTorch's
    setitem lets 70000 become inf."""
    if value.__class__ is not bool and not isinstance(value, float):
        value = int(value)
        if not -0x8000000000000000 <= value <= 0x7FFFFFFFFFFFFFFF:
            raise ValueError("Overflow when unpacking long long")
    elif value.__class__ is not bool:
        value = float(value)
    if dtype.is_floating_point and dtype.itemsize == 2:  # through float32, as c10 does
        return xp.asarray(value).astype(_FLOAT32).astype(dtype.np_dtype)
    return scalar_number(value, dtype)


def _check_expand(value, shape, target):
    """PyTorch's expand errors for copying a value of `shape` into a view of `target`."""
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand({_errors.legacy_type_name(value.dtype)}{{{_errors.shape_list(shape)}}}, "
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


