"""Reductions and copies into indexed places: scatter_reduce, index_reduce, index_copy, put.

Like gather_scatter.py, each op turns its index into one NumPy key (coordinate arrays)
after PyTorch's checks; the forward is one `ufunc.at` (or assignment) on a copy, and
the backward reads and writes gradients through indexing.py's key primitives (`_index`,
`_zeros_with`, `_index_put`). scatter_reduce and index_reduce share one reduction core
and one backward, PyTorch's formulas for sum / prod / mean / amax / amin with and
without `include_self`: amax/amin share the gradient evenly among every element equal
to the result, prod divides the result by the factor (and handles single zeros through
the product of the nonzero factors).
"""
from . import _autocast
from .. import _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, inplace, wrap, wrap_dim
from .gather_scatter import _dim_key, _prefix, _shape1
from .indexing import _index, _index_put, _zeros_with, accumulate_at, out_of_bounds
from .pointwise_select import where

__all__ = ["scatter_reduce", "index_reduce", "index_copy", "put"]  # the _ forms: methods only

_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum",
           "amin": "minimum"}
_INT_KINDS = "iub"


def _recording(*tensors):
    return grad_state.enabled and any(isinstance(t, Tensor) and t._requires_grad
                                      for t in tensors)


def _reduce_at(xp, data, key, values, reduce, include_self):
    """data (a copy) reduced at `key` with `values`; returns (result, count of hits)."""
    if not include_self:  # the first value written stands in for the old one
        data[key] = 0 if reduce in ("sum", "mean") else 1 if reduce == "prod" else values
    accumulate_at(xp, data, key, values, _UFUNCS[reduce])
    counts = xp.zeros(data.shape, dtype=xp.int64)
    xp.add.at(counts, key, 1)
    if reduce == "mean":
        divisor = xp.maximum(counts + int(include_self), 1)
        if data.dtype.kind in _INT_KINDS:
            data = xp.floor_divide(data, divisor).astype(data.dtype)
        else:
            data = (data / divisor).astype(data.dtype)
    return data, counts


def _keyed_reduce(input, key, values, reduce, include_self, node, src=None, src_shape=None):
    """The reduction recorded as `node`; values is the array read from `src` at key."""
    data = input._data
    xp = input._device.xp
    result, counts = _reduce_at(xp, data.reshape(_shape1(data.shape)).copy(), key, values,
                                reduce, include_self)
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, src):
        node.key, node.reduce, node.include_self = key, reduce, include_self
        node.shape, node.src_shape, node.counts = data.shape, src_shape, counts
        node.values = wrap(values, input._device)
        node.save(input)
        node.save_output(out)
        attach(out, node, input, src)
    return out


class _KeyedReduceBackward(Node):
    """PyTorch's scatter_reduce / index_reduce gradients, on 1-dim views of 0-dim tensors."""

    __slots__ = ("key", "reduce", "include_self", "shape", "src_shape", "counts", "values")

    def backward(self, grad):
        input, result = self.saved_tensors
        shape1 = _shape1(self.shape)
        grad, input, result = grad.reshape(shape1), input.reshape(shape1), result.reshape(shape1)
        key, values, device = self.key, self.values, grad._device
        hit = wrap(self.counts > 0, device)
        grad_self, grad_values = self._formulas(grad, input, result, key, values, device)
        if not self.include_self:
            grad_self = grad_self.masked_fill(hit, 0)
        grad_src = None
        if self.src_shape is not None and self.needs_input_grad(1):
            src_shape1 = _shape1(self.src_shape)
            if tuple(grad_values.shape) != src_shape1:
                grad_values = _zeros_with(grad_values, src_shape1, _prefix(key), False)
            grad_src = grad_values.reshape(self.src_shape)
        return grad_self.reshape(self.shape), grad_src

    def _formulas(self, grad, input, result, key, values, device):
        reduce = self.reduce
        if reduce == "sum":
            return grad, _index(grad, key, True)
        if reduce == "mean":
            count = self.counts + int(self.include_self)
            divided = grad / wrap(count.clip(1, None).astype(grad._data.dtype), device)
            return divided, _index(divided, key, True)
        if reduce in ("amax", "amin"):
            self_hits = input == result  # counted even without include_self, as PyTorch
            value_hits = values == _index(result, key, True)
            share = self_hits.to(grad.dtype) + _zeros_with(value_hits.to(grad.dtype),
                                                           tuple(grad.shape), key, True)
            distributed = grad / share
            return (distributed * self_hits,
                    _index(distributed, key, True) * value_hits)
        return self._prod(grad, input, result, key, values, device)

    def _prod(self, grad, input, result, key, values, device):
        """PyTorch's exclusive products: the reduction redone with a zero factor read as 1,
        so a single zero gets the product of the others, and an element the reduction never
        touched gets `grad` back (its result is itself)."""
        xp = device.xp
        masked_self = input.masked_fill(input == 0, 1)
        masked_self_result, _ = _reduce_at(xp, masked_self._data.copy(), key, values._data,
                                           "prod", self.include_self)
        grad_self = grad * wrap(masked_self_result, device) / masked_self
        values_zero = values == 0
        zero_counts = _zeros_with(values_zero.to(grad.dtype), tuple(grad.shape), key, True)
        single_zero = values_zero.logical_and(_index(zero_counts, key, True) == 1)
        masked_values_result, _ = _reduce_at(xp, input._data.copy(), key,
                                             values.masked_fill(single_zero, 1)._data, "prod",
                                             self.include_self)
        grad_values = where(single_zero, _index(grad * wrap(masked_values_result, device), key,
                                                True),
                            _index(grad * result, key, True) / values.masked_fill(values_zero, 1))
        return grad_self, grad_values


# ---------------------------------------------------------------- scatter_reduce
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`input` with `src` reduced into it at `index` along `dim` (sum/prod/mean/amax/amin)."""
    if reduce not in _UFUNCS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    key, dim = _dim_key(input, dim, index, "scatter", src)
    values = src._data.reshape(_shape1(src._data.shape))[_prefix(key)]
    return _keyed_reduce(input, key, values, reduce, include_self, ScatterReduceBackward0(),
                         src, src._data.shape)


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    return inplace(input, scatter_reduce, dim, index, src, reduce, include_self=include_self)


class ScatterReduceBackward0(_KeyedReduceBackward):
    __slots__ = ()


# ---------------------------------------------------------------- index_reduce / index_copy
def _index_key(input, dim, index, source, name, dtype_message, long_only=False):
    """The key writing source's slices along `dim` to the places `index` names."""
    data, idx, src = input._data, index._data, source._data
    d = wrap_dim(dim, data.ndim)
    if idx.ndim > 1:
        if name == "index_copy_":
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                         f"with type: {_errors.scalar_type_name(index.dtype)} and size: "
                         f"{_errors.shape_list(idx.shape)}")
    if idx.dtype.name != "int64" and (long_only or idx.dtype.name != "int32"):
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{_errors.scalar_type_name(index.dtype)}")
    if src.dtype != data.dtype:
        raise RuntimeError(dtype_message(input, source))
    shape1, src_shape1 = _shape1(data.shape), _shape1(src.shape)
    count = idx.size
    if len(src_shape1) != len(shape1) and src.ndim and data.ndim:
        raise IndexError(f"{name}(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({src.ndim}), "
                         f"destination dimensionality ({data.ndim})")
    if count != src_shape1[d]:
        separator = ": " if name == "index_reduce_" else " "
        kind = RuntimeError if name == "index_reduce_" else IndexError
        tail = f", for dim: {d}" if name == "index_reduce_" else ""
        raise kind(f"{name}(): Number of indices ({count}) should be equal to "
                   f"source.size(dim){separator}({src_shape1[d]}){tail}")
    for i, (a, b) in enumerate(zip(shape1, src_shape1)):
        if i != d and a != b:
            if name == "index_reduce_":
                raise RuntimeError("source tensor shape must match self tensor shape, excluding "
                                   "the specified dimension. Got self.shape = "
                                   f"{_errors.shape_list(data.shape)} source.shape = "
                                   f"{_errors.shape_list(src.shape)}")
            at = i if i < d else i - 1  # PyTorch counts dims of the slice (dim removed)
            raise RuntimeError(f"{name}(): Source/destination tensor must have same slice "
                               f"shapes. Destination slice shape: {a} at dimension {at} and "
                               f"source slice shape: {b} at dimension {at}.")
    bad = out_of_bounds(idx, -shape1[d] if name == "index_reduce_" else 0, shape1[d])
    if bad is not None:
        if name == "index_copy_":
            raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} "
                             f"with size {shape1[d]}")
        raise IndexError("index out of range in self")
    xp = input._device.xp
    key = []
    for i, size in enumerate(src_shape1):
        shape = [1] * len(src_shape1)
        shape[i] = size
        key.append((idx.reshape(-1) % shape1[d] if i == d else xp.arange(size)).reshape(shape))
    return tuple(key)


def _reduce_dtypes(input, source):
    return (f"index_reduce_(): self ({_errors.scalar_type_name(input.dtype)}) and source "
            f"({_errors.scalar_type_name(source.dtype)}) must have the same scalar type")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """`input` with source's slices reduced into the slices `index` names along `dim`."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    key = _index_key(input, dim, index, source, "index_reduce_", _reduce_dtypes)
    values = source._data.reshape(_shape1(source._data.shape))
    return _keyed_reduce(input, key, values, reduce, include_self, IndexReduceBackward0(),
                         source, source._data.shape)


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    return inplace(input, index_reduce, dim, index, source, reduce, include_self=include_self)


class IndexReduceBackward0(_KeyedReduceBackward):
    __slots__ = ()


def _copy_dtypes(input, source):
    return ("index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_errors.scalar_type_name(input.dtype)} and (source) "
            f"{_errors.scalar_type_name(source.dtype)}")


def index_copy(input, dim, index, source):
    """A copy of `input` with source's slices written to the slices `index` names."""
    if _autocast.on:
        return _autocast.promote(index_copy, input, dim, index, source)
    key = _index_key(input, dim, index, source, "index_copy_", _copy_dtypes, long_only=True)
    data = input._data
    result = data.reshape(_shape1(data.shape)).copy()
    result[key] = source._data.reshape(_shape1(source._data.shape))
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, source):
        node = IndexCopyBackward0()
        node.key, node.shape, node.src_shape = key, data.shape, source._data.shape
        attach(out, node, input, source)
    return out


def index_copy_(input, dim, index, source):
    return inplace(input, index_copy, dim, index, source)


class IndexCopyBackward0(Node):
    __slots__ = ("key", "shape", "src_shape")

    def backward(self, grad):
        grad1 = grad.reshape(_shape1(self.shape))
        grad_self = grad_source = None
        if self.needs_input_grad(0):
            grad_self = _index_put(grad1, self.key, 0, False).reshape(self.shape)
        if self.needs_input_grad(1):
            grad_source = _index(grad1, self.key, True).reshape(self.src_shape)
        return grad_self, grad_source


# ---------------------------------------------------------------- put
def put(input, index, source, accumulate=False):
    """A copy of `input` with source written (or added) at flat positions `index`."""
    data, idx, src = input._data, index._data, source._data
    if idx.dtype.name != "int64":
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{_errors.scalar_type_name(index.dtype)}")
    if src.dtype != data.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_errors.scalar_type_name(input.dtype)} and "
                           f"source.dtype = {_errors.scalar_type_name(source.dtype)}")
    if src.size != idx.size:
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {src.size}, index.numel() = "
                         f"{idx.size}")
    bad = out_of_bounds(idx, -data.size, data.size)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of "
                         f"{data.size} elements.")
    key = (idx.reshape(-1) % max(data.size, 1),)
    result = data.reshape(-1).copy()
    if accumulate:
        accumulate_at(input._device.xp, result, key, src.reshape(-1))
    else:
        result[key] = src.reshape(-1)
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, source):
        node = PutBackward0()
        node.key, node.shape, node.src_shape = key, data.shape, src.shape
        node.accumulate = accumulate
        attach(out, node, input, source)
    return out


def put_(input, index, source, accumulate=False):
    return inplace(input, put, index, source, accumulate)


class PutBackward0(Node):
    __slots__ = ("key", "shape", "src_shape", "accumulate")

    def backward(self, grad):
        flat = grad.reshape(-1)
        grad_self = grad_source = None
        if self.needs_input_grad(0):
            grad_self = grad if self.accumulate else \
                _index_put(flat, self.key, 0, False).reshape(self.shape)
        if self.needs_input_grad(1):
            grad_source = _index(flat, self.key, True).reshape(self.src_shape)
        return grad_self, grad_source
