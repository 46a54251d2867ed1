"""Index-driven ops: gather/scatter, index_select/add/fill, masked_*, take, nonzero.

Each op turns its index into one NumPy key (coordinate arrays) after PyTorch's
checks, so the forward is one NumPy indexing or `ufunc.at` call and the backward
reuses the key with indexing.py's differentiable key primitives (`_index`,
`_index_put`, `_zeros_with`), which makes higher-order gradients work too.
Ops whose input may be 0-dim work on a 1-dim view of it, as PyTorch does.
`take` reads through slicing.py's flat gather `_take`, which as_strided's
backward shares.
"""
from .. import _dtype, _errors
from .._backend import numpy as _numpy
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import (Tensor, check_leaf_write, check_no_overlap, edge, grad_state, inplace,
                      inplace_overlapping, sum_to_shape, wrap, wrap_dim)
from .indexing import (_index, _index_put, _scalar_name, _zeros_with, accumulate_at,
                       contiguous, out_of_bounds, scalar_to_array, warn_if_expanded)
from ._out import check_out, write_out
from .setitem import _check_expand
from .slicing import _take  # the flat gather, with TakeBackward0 beside it

__all__ = ["gather", "scatter", "scatter_add", "index_select", "index_add", "index_fill",
           "masked_fill", "masked_select", "masked_scatter", "take", "nonzero", "argwhere"]

_FULL = slice(None)
_INDEX_DTYPES = (_numpy.dtype("int64"), _numpy.dtype("int32"))
_INT64 = _numpy.dtype("int64")
_C_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                 "int16": "short int", "int32": "int", "int64": "long int",
                 "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                 "float64": "double"}


def _record(out, node, *inputs):
    node.next_functions = tuple([edge(x) for x in inputs])
    out.grad_fn = node
    out._requires_grad = True
    return out


def _recording(*tensors):
    if not grad_state.enabled:
        return False
    return any(isinstance(t, Tensor) and t._requires_grad for t in tensors)


def _shape1(shape):
    return shape if shape else (1,)


class _KeyedBackward(Node):
    """Backward of reading `input1[key]` (input seen at least 1-dim), reshaped back."""

    __slots__ = ("shape", "shape1", "key", "out_shape1")

    def backward(self, grad):
        if grad._data.shape != self.out_shape1:
            grad = grad.reshape(self.out_shape1)
        result = _zeros_with(grad, self.shape1, self.key, True)
        if self.shape1 != self.shape:
            result = result.reshape(self.shape)
        return (result,)


def _keyed_read(input, key, out_shape, node_class):
    """input[key] on the 1-dim view of a 0-dim input, recorded as `node_class`."""
    data = input._data
    shape1 = _shape1(data.shape)
    result = contiguous(data.reshape(shape1)[key], input._device.xp)
    out = wrap(result.reshape(out_shape) if result.shape != out_shape else result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.shape = data.shape
        node.shape1 = shape1
        node.key = key
        node.out_shape1 = result.shape
        _record(out, node, input)
    return out


# ---------------------------------------------------------------- gather / scatter
def _dim_key(input, dim, index, name, src=None):
    """Coordinate arrays for gather/scatter: `index` along `dim`, aranges elsewhere."""
    data = input._data
    idx = index._data
    if idx.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if src is not None and src._data.dtype != data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    dim = wrap_dim(dim, data.ndim)
    ndim = max(data.ndim, 1)
    shape1, index_shape1 = _shape1(data.shape), _shape1(idx.shape)
    if max(idx.ndim, 1) != ndim:
        which = "input" if name == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {which} "
                           "tensor")
    too_big = any(d != dim and index_shape1[d] > shape1[d] for d in range(ndim))
    if src is not None:
        src_shape1 = _shape1(src._data.shape)
        if len(src_shape1) != ndim:
            wrap_dim(dim, src._data.ndim)
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        if too_big or any(i > s for i, s in zip(index_shape1, src_shape1)):
            raise RuntimeError(
                f"Expected index {_errors.shape_list(idx.shape)} to be no larger than self "
                f"{_errors.shape_list(data.shape)} apart from dimension {dim} and to be no "
                f"larger size than src {_errors.shape_list(src._data.shape)}")
    elif too_big:
        prefix = "Size does not match at dimension " + str(next(
            d for d in range(ndim) if d != dim and index_shape1[d] > shape1[d])) + " expected" \
            if name == "gather" else "Expected"
        raise RuntimeError(f"{prefix} index {_errors.shape_list(idx.shape)} to be no larger than "
                           f"self {_errors.shape_list(data.shape)} apart from dimension {dim}")
    bad = out_of_bounds(idx, 0, shape1[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{shape1[dim]}")
    xp = input._device.xp
    key = []
    for d in range(ndim):
        if d == dim:
            key.append(idx.reshape(index_shape1))
        else:
            shape = [1] * ndim
            shape[d] = index_shape1[d]
            key.append(xp.arange(index_shape1[d]).reshape(shape))
    return tuple(key), dim


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """out[i][j] = input[i][index[i][j]] (for dim=1): values picked along `dim`."""
    if out is not None:
        check_out("gather", out, input.dtype, "Expected out tensor to have dtype "
                  f"{_errors.cpp_type_name(input.dtype)}, but got "
                  f"{_errors.cpp_type_name(out.dtype)} instead", input, index)
    key, _ = _dim_key(input, dim, index, "gather")
    if input._data.dtype in _LIMITED:
        raise _refusal("scatter_gather_tensor_cpu", input._data.dtype)
    result = _keyed_read(input, key, index._data.shape, GatherBackward0)
    return result if out is None else write_out(result, out)


class GatherBackward0(_KeyedBackward):
    __slots__ = ()


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """A copy of `input` with `src` (or `value`) written at `index` along `dim`."""
    if src is not None and value is not None:
        # no overload takes both: the door (ember/_arguments.py) gives PyTorch's listing
        raise TypeError("scatter(): src and value given")
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    key, dim = _dim_key(input, dim, index, "scatter", src)
    data = input._data
    if data.dtype in _LIMITED:
        kernel = "scatter_gather_tensor_cpu" if src is not None else "scatter_gather_scalar_cpu"
        raise _refusal(kernel, data.dtype)
    xp = input._device.xp
    if src is not None:
        values = src._data.reshape(_shape1(src._data.shape))[_prefix(key)]
    else:
        values = scalar_to_array(value, data.dtype, xp)
    result = data.reshape(_shape1(data.shape)).copy()
    if reduce is None:
        result[key] = values
    else:
        accumulate_at(xp, result, key, values, reduce)
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, src):
        if reduce is not None:
            node = _ScatterReduceBackward()
        else:
            node = ScatterBackward0() if src is not None else ScatterBackward1()
            node.key = key
            node.shape = data.shape
            node.src_shape = src._data.shape if src is not None else None
        _record(out, node, input, src)
    return out


def _prefix(key):
    """The slices that cut a src down to the index's extent (the key's broadcast shape)."""
    return tuple(slice(0, s) for s in _numpy.broadcast_shapes(*[k.shape for k in key]))


def scatter_(input, dim, index, src=None, *, value=None, reduce=None):
    return inplace(input, scatter, dim, index, src, value=value, reduce=reduce)


class ScatterBackward0(Node):
    __slots__ = ("key", "shape", "src_shape")

    def backward(self, grad):
        grad_self = grad_src = None
        grad1 = grad if self.shape else grad.reshape((1,))
        if self.needs_input_grad(0):
            grad_self = _index_put(grad1, self.key, 0, False)
            grad_self = grad_self if self.shape else grad_self.reshape(())
        if self.src_shape is not None and self.needs_input_grad(1):
            grad_src = _src_grad(grad1, self.key, self.src_shape)
        return grad_self, grad_src


class ScatterBackward1(ScatterBackward0):
    __slots__ = ()


def _src_grad(grad1, key, src_shape):
    """The gradient of a src read at `key` (src may be larger than the index)."""
    picked = _index(grad1, key, True)
    src_shape1 = _shape1(src_shape)
    if picked._data.shape != src_shape1:
        picked = _zeros_with(picked, src_shape1, _prefix(key), False)
    return picked.reshape(src_shape) if src_shape1 != src_shape else picked


class _ScatterReduceBackward(Node):
    __slots__ = ()

    def backward(self, grad):
        raise RuntimeError("derivative for aten::scatter is not implemented")


_ScatterReduceBackward.__name__ = _ScatterReduceBackward.__qualname__ = "NotImplemented"
_ScatterReduceBackward._namespace = "ember::autograd::"


def scatter_add(input, dim, index, src):
    """A copy of `input` with `src` added at `index` along `dim` (repeats accumulate)."""
    key, dim = _dim_key(input, dim, index, "scatter", src)
    data = input._data
    if data.dtype in _LIMITED:
        raise _refusal("scatter_gather_tensor_cpu", data.dtype)
    result = data.reshape(_shape1(data.shape)).copy()
    accumulate_at(input._device.xp, result, key,
                  src._data.reshape(_shape1(src._data.shape))[_prefix(key)])
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, src):
        node = ScatterAddBackward0()
        node.key = key
        node.shape = data.shape
        node.src_shape = src._data.shape
        _record(out, node, input, src)
    return out


def scatter_add_(input, dim, index, src):
    return inplace(input, scatter_add, dim, index, src)


class ScatterAddBackward0(ScatterBackward0):
    __slots__ = ()

    def backward(self, grad):
        grad_src = None
        if self.needs_input_grad(1):
            grad1 = grad if self.shape else grad.reshape((1,))
            grad_src = _src_grad(grad1, self.key, self.src_shape)
        return grad, grad_src


# ---------------------------------------------------------------- index_select / add / fill
def _vector_index(input, dim, index):
    """(dim, 1-dim index array) after the checks index_select and friends share."""
    return wrap_dim(dim, input._data.ndim), index._data.reshape(-1)


def index_select(input, dim, index, *, out=None):
    """The slices of `input` at `index` along `dim`, in index order (a copy)."""
    if out is not None:
        check_out("index_select", out, input.dtype,
                  "index_select(): self and result must have the same scalar type", input)
    idx = index._data
    if idx.dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if input._data.dtype in _LIMITED:
        raise _refusal("index_select", input._data.dtype)
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim, idx = _vector_index(input, dim, index)
    data = input._data
    if data.ndim == 0 and idx.size != 1:
        raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    size = _shape1(data.shape)[dim]
    if size == 0 and idx.size:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = out_of_bounds(idx, 0, size)
    if bad is not None:
        # PyTorch's special kernel for dim 1 words it differently from every other path
        if data.ndim <= 1 or dim != 1:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    key = (_FULL,) * dim + (idx,)
    out_shape = data.shape[:dim] + idx.shape + data.shape[dim + 1:] if data.ndim else ()
    result = _keyed_read(input, key, out_shape, IndexSelectBackward0)
    return result if out is None else write_out(result, out)


class IndexSelectBackward0(_KeyedBackward):
    __slots__ = ()


def index_add(input, dim, index, source, *, alpha=1):
    """A copy of `input` with alpha * `source` added at `index` along `dim`."""
    data, src, idx = input._data, source._data, index._data
    if idx.dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_scalar_name(idx.dtype)}")
    if src.dtype != data.dtype:
        raise RuntimeError(f"index_add_(): self ({_scalar_name(data.dtype)}) and source "
                           f"({_scalar_name(src.dtype)}) must have the same scalar type")
    dim, idx = _vector_index(input, dim, index)
    shape1, src_shape1 = _shape1(data.shape), _shape1(src.shape)
    if len(src_shape1) != len(shape1) or any(
            a != b for d, (a, b) in enumerate(zip(shape1, src_shape1)) if d != dim):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {_errors.shape_list(data.shape)}"
                           f" source.shape = {_errors.shape_list(src.shape)}")
    if idx.size != src_shape1[dim]:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({src_shape1[dim]}), for dim: {dim}")
    bad = out_of_bounds(idx, 0, shape1[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{shape1[dim]}")
    key = (_FULL,) * dim + (idx,)
    result = data.reshape(shape1).copy()
    values = src.reshape(src_shape1)
    if alpha != 1:  # half types scale in float32, as PyTorch's opmath does
        wide = data.dtype.name in ("float16", "bfloat16")
        values = (values.astype(_numpy.float32) if wide else values) * alpha
    accumulate_at(input._device.xp, result, key, values)
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, source):
        node = IndexAddBackward0()
        node.key = key
        node.alpha = alpha
        node.src_shape = src.shape
        _record(out, node, input, source)
    return out


def index_add_(input, dim, index, source, *, alpha=1):
    return inplace(input, index_add, dim, index, source, alpha=alpha)


class IndexAddBackward0(Node):
    __slots__ = ("key", "alpha", "src_shape")

    def backward(self, grad):
        grad_source = None
        if self.needs_input_grad(1):
            grad1 = grad if grad._data.ndim else grad.reshape((1,))
            grad_source = _index(grad1, self.key, True)
            if self.alpha != 1:
                grad_source = grad_source * self.alpha
            if grad_source._data.shape != self.src_shape:
                grad_source = grad_source.reshape(self.src_shape)
        return grad, grad_source


def index_fill(input, dim, index, value):
    """A copy of `input` with `value` written at `index` along `dim`."""
    data, idx = input._data, index._data
    if idx.dtype != _INT64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    value_is_tensor = isinstance(value, Tensor)
    if value_is_tensor and value._data.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    dim, idx = _vector_index(input, dim, index)
    shape1 = _shape1(data.shape)
    bad = out_of_bounds(idx, -shape1[dim], shape1[dim])
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size "
                         f"{shape1[dim]}")
    xp = input._device.xp
    # a 0-dim tensor value is read as a number and checked, as PyTorch does (item())
    fill = scalar_to_array(value.item() if value_is_tensor else value, data.dtype, xp)
    key = (_FULL,) * dim + (idx,)
    result = data.reshape(shape1).copy()
    result[key] = fill
    out = wrap(result.reshape(data.shape), input._device)
    if _recording(input, value):
        node = IndexFillBackward1() if value_is_tensor else IndexFillBackward0()
        node.key = key
        node.unique_key = (_FULL,) * dim + (xp.unique(idx % shape1[dim]),)
        node.shape = data.shape
        _record(out, node, input, value)
    return out


def index_fill_(input, dim, index, value):
    warn_if_expanded(input, "index_fill_", "tensor[mask] = scalar")
    return inplace_overlapping(input, index_fill, dim, index, value)  # as PyTorch, into an expand


class IndexFillBackward0(Node):
    __slots__ = ("key", "unique_key", "shape")

    def backward(self, grad):
        grad_self = grad_value = None
        grad1 = grad if self.shape else grad.reshape((1,))
        if self.needs_input_grad(0):
            grad_self = _index_put(grad1, self.key, 0, False)
            grad_self = grad_self if self.shape else grad_self.reshape(())
        if len(self.next_functions) > 1 and self.needs_input_grad(1):
            grad_value = _index(grad1, self.unique_key, True).sum()
        return grad_self, grad_value


class IndexFillBackward1(IndexFillBackward0):
    __slots__ = ()


# ---------------------------------------------------------------- masked ops
def _broadcast_shape(mask, input):
    try:
        return _numpy.broadcast_shapes(mask._data.shape, input._data.shape)
    except ValueError:
        raise RuntimeError(_errors.broadcast_mismatch(mask._data.shape, input._data.shape)
                           ) from None


def masked_fill(input, mask, value):
    """`input` with `value` where `mask` is True (mask and input broadcast together)."""
    data, m = input._data, mask._data
    if m.dtype.kind != "b":
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_C_TYPE_NAMES[mask.dtype.name]}")
    if data.dtype in _LIMITED:
        raise _refusal("masked_fill", data.dtype)
    value_is_tensor = isinstance(value, Tensor)
    if value_is_tensor and value._data.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    shape = _broadcast_shape(mask, input)
    xp = input._device.xp
    # a 0-dim tensor value is read as a number and checked, as PyTorch does (item())
    fill = scalar_to_array(value.item() if value_is_tensor else value, data.dtype, xp)
    if shape == data.shape:  # a copy, then a masked write: ~2x where's time on a causal mask
        result = data.copy()
        xp.copyto(result, fill, where=m)
    else:
        result = xp.where(m, fill, data)
    out = wrap(result, input._device)
    if _recording(input, value):
        node = MaskedFillBackward1() if value_is_tensor else MaskedFillBackward0()
        node.mask = mask
        node.shape = data.shape
        _record(out, node, input, value)
    return out


def masked_fill_(input, mask, value):
    warn_if_expanded(input, "masked_fill_", "tensor[mask] = scalar")
    return inplace_overlapping(input, masked_fill, mask, value)  # as PyTorch, into an expand


class MaskedFillBackward0(Node):
    __slots__ = ("mask", "shape")

    def backward(self, grad):
        grad_input = grad_value = None
        if self.needs_input_grad(0):
            grad_input = sum_to_shape(masked_fill(grad, self.mask, 0), self.shape)
        if len(self.next_functions) > 1 and self.needs_input_grad(1):
            outside = wrap(~self.mask._data, self.mask._device)
            grad_value = masked_fill(grad, outside, 0).sum()
        return grad_input, grad_value


class MaskedFillBackward1(MaskedFillBackward0):
    __slots__ = ()


def masked_select(input, mask, *, out=None):
    """The elements of `input` where `mask` is True, as a 1-dim copy (both broadcast)."""
    if mask._data.dtype.kind != "b":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if out is not None:
        check_out("masked_select", out, input.dtype,
                  "masked_select(): self and result must have the same scalar type", input)
        return write_out(masked_select(input, mask), out)
    shape = _shape1(_broadcast_shape(mask, input))  # NumPy has no nonzero() of 0-dim arrays
    xp = input._device.xp
    key = xp.broadcast_to(mask._data, shape).nonzero()
    data = input._data
    result = xp.broadcast_to(data, shape)[key]
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = MaskedSelectBackward0()
        node.key = key
        node.shape = shape
        node.input_shape = data.shape
        _record(out, node, input)
    return out


class MaskedSelectBackward0(Node):
    __slots__ = ("key", "shape", "input_shape")

    def backward(self, grad):
        return (sum_to_shape(_zeros_with(grad, self.shape, self.key, True), self.input_shape),)


def masked_scatter(input, mask, source):
    """`input` with the first elements of `source`, in order, where `mask` is True."""
    data, m, src = input._data, mask._data, source._data
    if src.dtype != data.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{_scalar_name(data.dtype)} and {_scalar_name(src.dtype)}")
    if m.dtype.kind != "b":
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_scalar_name(m.dtype)}")
    shape = _broadcast_shape(mask, input)
    xp = input._device.xp
    m = xp.broadcast_to(m, shape)
    count = int(m.sum())
    if src.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    result = xp.broadcast_to(data, shape).copy()
    result[m] = src.reshape(-1)[:count]
    out = wrap(result, input._device)
    if _recording(input, source):
        node = MaskedScatterBackward0()
        node.mask = wrap(m, input._device)
        node.shape = data.shape
        node.src_shape = src.shape
        node.count = count
        _record(out, node, input, source)
    return out


def masked_scatter_(input, mask, source):
    """In place masked_scatter: the mask must expand to `input`'s shape."""
    _check_expand(mask, mask._data.shape, input._data.shape)
    check_leaf_write(input)
    check_no_overlap(input._data)  # before the kernel counts the source, as PyTorch
    return inplace(input, masked_scatter, mask, source)


class MaskedScatterBackward0(Node):
    __slots__ = ("mask", "shape", "src_shape", "count")

    def backward(self, grad):
        grad_input = grad_source = None
        if self.needs_input_grad(0):
            grad_input = sum_to_shape(masked_fill(grad, self.mask, 0), self.shape)
        if self.needs_input_grad(1):
            mask = self.mask._data
            grad1 = grad if mask.ndim else grad.reshape((1,))
            picked = _index(grad1, mask.reshape(_shape1(mask.shape)).nonzero(), True)
            numel = 1
            for s in self.src_shape:
                numel *= s
            grad_source = _zeros_with(picked, (numel,), (slice(0, self.count),), False)
            grad_source = grad_source.reshape(self.src_shape)
        return grad_input, grad_source


# ---------------------------------------------------------------- take / nonzero
def take(input, index):
    """`input` read as if flattened, at `index` (negative indices count from the end)."""
    data, idx = input._data, index._data
    if idx.dtype != _INT64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_scalar_name(idx.dtype)}")
    if data.size == 0 and idx.size:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = out_of_bounds(idx, -data.size, data.size)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of "
                         f"{data.size} elements.")
    return _take(input, idx)


def nonzero(input, *, as_tuple=False, out=None):
    """The int64 coordinates of the non-zero elements: one row each, or one tensor per dim."""
    data = input._data
    xp = input._device.xp
    if data.dtype in _LIMITED:
        raise _refusal("nonzero_count_cpu", data.dtype)
    if out is not None and not as_tuple:
        check_out("nonzero", out, _dtype.int64, "nonzero: Expected out tensor to have scalar "
                  f"type Long but got scalar type{_errors.scalar_type_name(out.dtype)}")
        return write_out(nonzero(input), out)
    if as_tuple:
        parts = data.reshape(_shape1(data.shape)).nonzero()
        return tuple(wrap(p.astype(_INT64), input._device) for p in parts)
    return wrap(xp.argwhere(data).astype(_INT64, copy=False), input._device)


def argwhere(input):
    """nonzero(input) as one (count, ndim) tensor."""
    return nonzero(input)
