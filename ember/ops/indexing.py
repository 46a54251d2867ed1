"""Indexing: reading and writing `x[index]`, and index_put.

`x[index]` follows PyTorch's applySlicing: integers, slices and None are applied
first, left to right, as views (recorded as the chain of the views family's nodes
PyTorch records: SelectBackward0, SliceBackward0, UnsqueezeBackward0, or
AliasBackward0 when nothing applied); then index tensors and masks, if any, pick elements out of
that view as a copy (IndexBackward0). Applying the basic part first is what
makes PyTorch place advanced dims differently from NumPy in `x[0, :, [0]]`.

Writing lives in setitem.py, the gather/scatter family in gather_scatter.py; both
build on the parsing and key primitives here and are re-exported from here.
"""
import warnings

from .._dtype import is_floating as _is_floating
from .. import _diagnose, _dtype, _errors
from .._dtype import FROM_NUMPY as _FROM_NUMPY
from .._backend import generic as _np_generic, ndarray as _np_ndarray, numpy as _numpy
from ..autograd.graph import Node
from ._common import (Tensor, contiguous, edge, grad_state, inplace_overlapping, make_view,
                      scalar_array, sum_to_shape, track_view, wrap)
from .dims import AliasBackward0, UnsqueezeBackward0
from .slicing import SelectBackward0, SliceBackward0

__all__ = ["index_put"]

_FULL = slice(None)
_INT, _SLICE, _NONE, _ELLIPSIS, _BOOL, _ARRAY, _MASK = range(7)
_INDEX_DTYPES = (_numpy.dtype("int64"), _numpy.dtype("int32"))
_UINT8 = _numpy.dtype("uint8")
_INT64 = _numpy.dtype("int64")
_FLOAT32 = _numpy.dtype("float32")
_HALF_TYPES = ("float16", "bfloat16")
_SCALAR_TYPES = (bool, int, float, _np_generic)
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t"}
_INVALID_0DIM = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
_SEQUENCE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[ember.tensor(seq)], which will result either in an error "
    "or a different result")


# ---------------------------------------------------------------- scalar values
def scalar_to_array(value, np_dtype, xp):
    """A number as a 0-dim array of `np_dtype`, refusing overflow as PyTorch does
    (the one conversion lives in `_common.scalar_to`)."""
    return scalar_array(value, _FROM_NUMPY[np_dtype], xp)


def out_of_bounds(array, low, high):
    """The first value of an index array outside [low, high), or None (two reductions
    on the happy path)."""
    if array.size and (array.min() < low or array.max() >= high):
        return int(array[(array < low) | (array >= high)].ravel()[0])
    return None


def accumulate_at(xp, data, key, values, ufunc="add", wide=True):
    """data[key] (op)= values in place, repeats accumulating; with `wide`, half types
    accumulate in float32 and round once, as PyTorch's CPU scatter kernels do (its
    index_put rounds after every repeat instead: `wide=False`)."""
    if wide and data.dtype.name in _HALF_TYPES:
        wide = data.astype(_FLOAT32)
        getattr(xp, ufunc).at(wide, key, xp.asarray(values).astype(_FLOAT32))
        data[...] = wide
    else:
        getattr(xp, ufunc).at(data, key, values)


def _type_name(value):
    cls = type(value)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _scalar_name(np_dtype):
    return _errors.scalar_type_name(_dtype.FROM_NUMPY[np_dtype])


# ---------------------------------------------------------------- parsing an index
def _items(index):
    """The index as a tuple; a list holding slices, tensors or sequences counts as one
    (NumPy's legacy rule, which PyTorch still follows with a warning)."""
    if type(index) is tuple:
        return index
    if isinstance(index, list) and len(index) < 32:
        for item in index:
            if item is None or item is Ellipsis or isinstance(item, (slice, Tensor, list, tuple,
                                                                      range, _np_ndarray)):
                warnings.warn(_SEQUENCE_WARNING, UserWarning, stacklevel=4)
                return tuple(index)
    return (index,)


def _index_object(input, item, scalars=True):
    """(kind, payload) for an index that is not an int, slice, None, Ellipsis or bool."""
    if isinstance(item, Tensor):
        array = item._data
    elif isinstance(item, (list, tuple, range, _np_ndarray)):  # range: d2l's y[range(n), y]
        array = input._device.xp.asarray(item)
        if array.size == 0 and _is_floating(array.dtype):
            array = array.astype(_INT64)
    elif isinstance(item, _numpy.bool_):
        return _BOOL, bool(item)
    elif hasattr(item, "__index__"):  # NumPy integers and other int-likes
        return _INT, item.__index__()
    elif isinstance(item, str):
        raise TypeError("new(): invalid data type 'str'")
    else:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {type(item).__name__})")
    dtype = array.dtype
    if dtype == _UINT8 and array.ndim:
        warnings.warn("indexing with dtype ember.uint8 is now deprecated, please use a dtype "
                      "ember.bool instead.", UserWarning, stacklevel=5)
        array = array.astype(bool)
    elif dtype.kind != "b" and dtype not in _INDEX_DTYPES and dtype != _UINT8:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if array.dtype.kind == "b" or dtype == _UINT8:
        return (_MASK, array) if array.ndim else (_BOOL, bool(array))
    if array.ndim == 0 and scalars:
        return _INT, int(array)
    return _ARRAY, array


def _normalize(input, items):
    """(kind, payload, position) per item, and how many dims of `input` they consume."""
    out = []
    specified = 0
    for position, item in enumerate(items):
        cls = item.__class__
        if cls is int:
            kind = _INT
        elif cls is slice:
            kind = _SLICE
        elif item is None:
            kind = _NONE
        elif item is Ellipsis:
            kind = _ELLIPSIS
        elif cls is bool:
            kind = _BOOL
        else:
            kind, item = _index_object(input, item)
        if kind is _INT or kind is _SLICE or kind is _ARRAY:
            specified += 1
        elif kind is _MASK:
            specified += item.ndim
        out.append((kind, item, position))
    return out, specified


def _slice_bounds(item, size):
    step = item.step
    if step is not None and step.__index__() < 0:
        raise ValueError("step must be greater than zero")
    return item.indices(size)  # raises "slice step cannot be zero"


def _apply_basic(input, items, keep_full_slices=False):
    """Apply ints, slices and None of `items` as one view, as PyTorch's applySlicing does.

    Returns (view array, view shape, view steps for autograd as (node class, dim, item)
    to replay in `_record_chain`, and (dim, kind, array) entries for the index tensors,
    at dims of the view).
    """
    data = input._data
    ndim = data.ndim
    normalized, specified = _normalize(input, items)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    shape = list(data.shape)
    strides = list(data.strides)
    key, steps, entries = [], [], []
    has_none = False
    dim = 0
    for kind, item, position in normalized:
        if kind is _INT:
            size = shape[dim]
            if item < -size or item >= size:
                raise _diagnose.noted(IndexError(f"index {item} is out of bounds for dimension "
                                                 f"{position} with size {size}"),
                                      "index", index=item, dim=position, size=size)
            if item < 0:
                item += size
            steps.append((SelectBackward0, dim, item))
            del shape[dim], strides[dim]
        elif kind is _SLICE:
            size = shape[dim]
            start, stop, step = _slice_bounds(item, size)
            length = len(range(start, stop, step))
            item = slice(start, stop, step)
            if keep_full_slices or not (start == 0 and step == 1 and length == size):
                steps.append((SliceBackward0, dim, item))
            shape[dim] = length
            strides[dim] *= step
            dim += 1
        elif kind is _NONE or kind is _BOOL:
            # PyTorch's unsqueeze stride: the size times stride of the dim it lands before.
            stride = shape[dim] * strides[dim] if dim < len(shape) else data.itemsize
            steps.append((UnsqueezeBackward0, dim, None))
            shape.insert(dim, 1)
            strides.insert(dim, stride)
            has_none = True
            if kind is _BOOL:
                entries.append((dim, _BOOL, item))
            item = None
            dim += 1
        elif kind is _ELLIPSIS:
            count = ndim - specified
            key.extend((_FULL,) * count)
            dim += count
            continue
        else:  # an index tensor: leave its dims whole in the view, index them afterwards
            count = item.ndim if kind is _MASK else 1
            entries.append((dim, kind, item))
            key.extend((_FULL,) * count)
            dim += count
            continue
        key.append(item)
    key.append(Ellipsis)
    view = data[tuple([k for k in key if k is not None]) if has_none else tuple(key)]
    shape = tuple(shape)
    strides = tuple(strides)
    if view.strides != strides or has_none:
        view = _restride(view, shape, strides, input._device.xp)
    return view, shape, steps, entries


def _restride(view, shape, strides, xp):
    """`view` with PyTorch's strides for new dims, and for the empty or size-1 sliced
    dims where NumPy normalises its own (a reshape when that already agrees)."""
    if view.shape != shape:
        reshaped = view.reshape(shape)
        if reshaped.strides == strides:
            return reshaped
    return xp.lib.stride_tricks.as_strided(view, shape, strides)


def _advanced_key(shape, entries, xp):
    """The NumPy key and result shape for index arrays and masks at dims of `shape`.

    Validates as PyTorch's index does: mask shapes, broadcasting, bounds (reported
    at the ordinal of the index tensor, as PyTorch reports them).
    """
    key = [_FULL] * len(shape)
    dims, arrays, checked = [], [], []
    for dim, kind, item in entries:
        if kind is _MASK:
            for j, size in enumerate(item.shape):
                if size != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {_errors.shape_list(item.shape)} at index {j} "
                        "does not match the shape of the indexed tensor "
                        f"{_errors.shape_list(shape)} at index {dim + j}")
            parts = item.nonzero()
        elif kind is _BOOL:
            parts = (xp.zeros(1 if item else 0, dtype=_INT64),)
        else:
            parts = (item,)
        for j, part in enumerate(parts):
            key[dim + j] = part
            dims.append(dim + j)
            arrays.append(part)
            checked.append(kind is _ARRAY)
    for ordinal, (dim, array, check) in enumerate(zip(dims, arrays, checked)):
        size = shape[dim]
        bad = out_of_bounds(array, -size, size) if check else None
        if bad is not None:
            raise _diagnose.noted(IndexError(f"index {bad} is out of bounds for dimension "
                                             f"{ordinal} with size {size}"),
                                  "index", index=bad, dim=ordinal, size=size)
    try:
        index_shape = arrays[0].shape if len(arrays) == 1 else _numpy.broadcast_shapes(
            *[a.shape for a in arrays])
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(_errors.shape_list(a.shape) for a in arrays)
                         ) from None
    if dims == list(range(dims[0], dims[0] + len(dims))):
        result_shape = shape[:dims[0]] + index_shape + shape[dims[-1] + 1:]
    else:  # separated index tensors: their dims go first, as in NumPy
        result_shape = index_shape + tuple(s for d, s in enumerate(shape) if d not in dims)
    return tuple(key), result_shape


# ---------------------------------------------------------------- reading x[index]
def getitem(input, index):
    """input[index]: a view for ints, slices, None and Ellipsis; a copy with index tensors."""
    cls = index.__class__
    if cls is int:
        return _select(input, index)
    if cls is Tensor and index._data.ndim and index._data.dtype in _INDEX_DTYPES:
        return _take_rows(input, index._data)
    if cls is slice:
        if input._data.ndim == 0:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        items, keep_full = (index,), True
    else:
        items, keep_full = _items(index), False
    view, shape, steps, entries = _apply_basic(input, items, keep_full)
    advanced = None
    if entries:
        key, _ = _advanced_key(shape, entries, input._device.xp)
        out = wrap(contiguous(view[key], input._device.xp), input._device)
        advanced = (shape, key)
    else:
        out = make_view(view, input)
    if grad_state.enabled and input._requires_grad:
        _record_chain(out, input, steps, advanced)
    return out


def _select(input, index):
    """input[i], the hot path: one bounds check, one NumPy view."""
    data = input._data
    if data.ndim == 0:
        raise IndexError(_INVALID_0DIM)
    size = data.shape[0]
    if index < -size or index >= size:
        raise _diagnose.noted(IndexError(f"index {index} is out of bounds for dimension 0 with "
                                         f"size {size}"), "index", index=index, dim=0, size=size)
    if index < 0:
        index += size
    out = make_view(data[index, ...], input)
    if grad_state.enabled and input._requires_grad:
        _record_chain(out, input, ((SelectBackward0, 0, index),), None)
    return out


def _take_rows(input, index):
    """input[index_tensor], the common advanced case: rows of dim 0, as a copy."""
    data = input._data
    if data.ndim == 0:
        return getitem(input, (index,))  # the general path words the error
    size = data.shape[0]
    bad = out_of_bounds(index, -size, size)
    if bad is not None:
        raise _diagnose.noted(IndexError(f"index {bad} is out of bounds for dimension 0 with "
                                         f"size {size}"), "index", index=bad, dim=0, size=size)
    out = wrap(contiguous(data[index], input._device.xp), input._device)
    if grad_state.enabled and input._requires_grad:
        _record_chain(out, input, (), (data.shape, (index,)))
    return out


def _record_chain(out, input, steps, advanced):
    """One node per view step, as PyTorch chains them, then IndexBackward0 if any."""
    previous = edge(input)
    node = None
    shape = input._data.shape
    for node_class, dim, item in steps:
        node = node_class()
        node.dim = dim
        if node_class is SelectBackward0:
            node.shape, node.index = shape, item
            shape = shape[:dim] + shape[dim + 1:]
        elif node_class is SliceBackward0:
            node.shape, node.start, node.end, node.step = shape, item.start, item.stop, item.step
            shape = shape[:dim] + (len(range(item.start, item.stop, item.step)),) + shape[dim + 1:]
        else:
            shape = shape[:dim] + (1,) + shape[dim:]
        node.next_functions = (previous,)
        previous = (node, 0)
    if advanced is not None:
        node = IndexBackward0()
        node.shape, node.key = advanced
        node.advanced = True
        node.next_functions = (previous,)
    elif node is None:
        node = AliasBackward0()
        node.next_functions = (previous,)
    out.grad_fn = node
    out._requires_grad = True
    if advanced is None:
        track_view(out)


# ---------------------------------------------------------------- key-based primitives
def _index(input, key, advanced):
    """input[key] for a prepared NumPy key, as a new tensor; the adjoint of _zeros_with."""
    result = input._data[key]
    out = wrap(result if advanced else result.copy(), input._device)
    if grad_state.enabled and input._requires_grad:
        node = IndexBackward0()
        node.shape = input._data.shape
        node.key = key
        node.advanced = advanced
        node.next_functions = (edge(input),)
        out.grad_fn = node
        out._requires_grad = True
    return out


class IndexBackward0(Node):
    __slots__ = ("shape", "key", "advanced")

    def backward(self, grad):
        return (_zeros_with(grad, self.shape, self.key, self.advanced),)


def _zeros_with(values, shape, key, advanced):
    """zeros(shape) with `values` added at `key`: the gradient of reading input[key]."""
    zeros = wrap(values._device.xp.zeros(shape, dtype=values._data.dtype), values._device)
    return _index_put(zeros, key, values, advanced, advanced)


def _index_put(input, key, values, accumulate, advanced=True):
    """A copy of `input` with `values` written (or added) at a prepared, validated key."""
    data = input._data.copy()
    is_tensor = isinstance(values, Tensor)
    array = values._data if is_tensor else values
    if accumulate:
        if is_tensor and array.dtype != data.dtype:
            array = array.astype(data.dtype)
        accumulate_at(input._device.xp, data, key, array, wide=False)
    else:
        data[key] = array
    out = wrap(data, input._device)
    if grad_state.enabled and (input._requires_grad or is_tensor and values._requires_grad):
        node = IndexPutBackward0()
        node.key = key
        node.accumulate = accumulate
        node.advanced = advanced
        node.value_shape = array.shape if is_tensor else ()
        node.value_dtype = array.dtype if is_tensor else None
        node.next_functions = (edge(input), edge(values))
        out.grad_fn = node
        out._requires_grad = True
    return out


class IndexPutBackward0(Node):
    __slots__ = ("key", "accumulate", "advanced", "value_shape", "value_dtype")

    def backward(self, grad):
        grad_self = grad_values = None
        if self.needs_input_grad(0):
            grad_self = grad if self.accumulate else _index_put(grad, self.key, 0, False,
                                                                 self.advanced)
        if self.needs_input_grad(1):
            grad_values = _reduce_to(_index(grad, self.key, self.advanced), self.value_shape,
                                     self.value_dtype)
        return grad_self, grad_values


def _reduce_to(grad, shape, dtype=None):
    """Sum a gradient down to a broadcast value's shape (which may add leading 1s), in
    the value's dtype when the write cast it."""
    if len(shape) > grad._data.ndim:
        grad = grad.reshape((1,) * (len(shape) - grad._data.ndim) + grad._data.shape)
    grad = sum_to_shape(grad, tuple(shape))
    if dtype is not None and dtype != grad._data.dtype:
        grad = grad.to(_FROM_NUMPY[dtype])
    return grad


# ---------------------------------------------------------------- index_put
def index_put(input, indices, values, accumulate=False):
    """A copy of `input` with `values` put at the index tensors `indices` (added if
    `accumulate`); `indices[k]` indexes dim k, a mask covers as many dims as it has."""
    return _index_put_checked(input, indices, values, accumulate, "index_put")


def warn_if_expanded(input, name, example):
    """PyTorch still writes into an expanded tensor with these ops, warning each call."""
    data = input._data
    if 0 in data.strides and any(stride == 0 and size > 1
                                 for size, stride in zip(data.shape, data.strides)):
        warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the "
                      "tensor before performing this operation. This also applies to advanced "
                      f"indexing e.g. {example}", UserWarning, stacklevel=3)


def index_put_(input, indices, values, accumulate=False):
    """In place index_put; see `_common.inplace` (PyTorch lets it write into an expand)."""
    warn_if_expanded(input, "index_put_", "tensor[indices] = tensor")
    return inplace_overlapping(input, _index_put_checked, indices, values, accumulate, "index_put_")


def _index_put_checked(input, indices, values, accumulate, name):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    data = input._data
    entries = []
    dim = 0
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(index).__name__}")
        kind, array = _index_object(input, index, scalars=False)
        if kind is _BOOL:
            raise IndexError("0-dim boolean index tensors are not supported by index_put")
        entries.append((dim, kind, array))
        dim += array.ndim if kind is _MASK else 1
    if dim > data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {data.ndim} (got {dim})")
    if not entries:
        return _index_put(input, (Ellipsis,), values, accumulate, False)
    key, target = _advanced_key(data.shape, entries, input._device.xp)
    single_mask = len(entries) == 1 and entries[0][1] is _MASK
    _check_put_value(data, values._data, values._data.shape, target, single_mask)
    return _index_put(input, key, values, accumulate)


def _check_put_value(data, value, shape, target, single_mask):
    """PyTorch's index_put checks: same dtype (a single mask takes any one-element
    value, as its masked_fill shortcut does), and a value that broadcasts to the result."""
    lead = len(target) - len(shape)
    if lead < 0 or any(s != 1 and s != target[lead + i] for i, s in enumerate(shape)):
        raise RuntimeError(f"shape mismatch: value tensor of shape {_errors.shape_list(shape)} "
                           "cannot be broadcast to indexing result of shape "
                           f"{_errors.shape_list(target)}")
    if value.dtype != data.dtype and not (single_mask and value.size == 1):
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{_scalar_name(data.dtype)} for the destination and "
                           f"{_scalar_name(value.dtype)} for the source.")


from .setitem import setitem  # noqa: E402,F401 - it builds on the parsing above
from . import gather_scatter as _gather_scatter  # noqa: E402 - it builds on the primitives above
from .gather_scatter import *  # noqa: E402,F401,F403
from .gather_scatter import (index_add_, index_fill_, masked_fill_,  # noqa: E402,F401
                             masked_scatter_, scatter_, scatter_add_)

__all__ += _gather_scatter.__all__
