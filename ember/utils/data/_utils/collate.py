"""Collation: turning a list of samples into a batch, as PyTorch's default_collate does.

`collate` walks the structure of the first sample (mappings, namedtuples,
sequences) and hands each leaf type to the function registered for it in
`collate_fn_map`: tensors are stacked, NumPy arrays and scalars become tensors,
Python floats a float64 tensor, ints an int64 tensor (bools a bool tensor), strings
and bytes stay as they are.
"""
import collections
import copy
import re

from ...._backend import numpy as np
from ...._dtype import float64
from ...._tensor import Tensor
from ....ops.creation import tensor
from ....ops.interop import as_tensor
from ....ops.joining import stack

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

# NumPy dtypes of strings and objects, which no tensor can hold.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def default_convert(data):
    """Convert the NumPy arrays and scalars inside `data` to tensors, keeping its structure.

    The collate_fn of a DataLoader without automatic batching (`batch_size=None`).
    """
    data_type = type(data)
    if isinstance(data, Tensor):
        return data
    if data_type.__module__ == "numpy" and data_type.__name__ not in ("str_", "string_"):
        if data_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return data_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # PyTorch returns a list, for compatibility
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(template, values):
    """A mapping of `template`'s type holding `values` (a plain dict if it can't be built)."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)
            clone.update(values)
            return clone
        return type(template)(values)
    except TypeError:
        return values


def _rebuild_sequence(template, items):
    """A sequence of `template`'s type holding `items` (a list if it can't be built)."""
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(template)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collate `batch` (a list of samples) by the structure of its first sample.

    `collate_fn_map` maps a type (or tuple of types) to a function
    `fn(batch, *, collate_fn_map)`; the exact type is looked up first, then each
    key in order by isinstance.
    """
    elem = batch[0]
    leaf_fn = _registered_fn(elem, collate_fn_map)
    if leaf_fn is not None:
        return leaf_fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {
            key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
            for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # PyTorch returns a list, for compatibility
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


def _registered_fn(sample, collate_fn_map):
    """The function `collate_fn_map` registers for `sample`, or None.

    The exact type wins (one dict probe, the common case); otherwise the first key
    in the map's order that `sample` is an instance of, so subclasses are served too.
    """
    if not collate_fn_map:
        return None
    exact = collate_fn_map.get(type(sample))
    if exact is not None:
        return exact
    for registered, fn in collate_fn_map.items():
        if isinstance(sample, registered):
            return fn
    return None


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    # Strings and objects have no tensor dtype: refused, naming the NumPy dtype.
    first_dtype = batch[0].dtype
    if np_str_obj_array_pattern.search(first_dtype.str):
        raise TypeError(default_collate_err_msg_format.format(first_dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch: tensors gain a leading batch dimension,
    numbers become tensors, strings stay lists, and containers are collated field by field.

    >>> default_collate([(0, 1.5), (2, 3.0)])
    [tensor([0, 2]), tensor([1.5000, 3.0000], dtype=ember.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
