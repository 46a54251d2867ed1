"""Views onto part of a tensor: select, narrow, split/chunk/unbind, diagonal, as_strided, unfold.

Every result shares memory with its input (NumPy basic slicing or `as_strided`).
Their gradients put the incoming gradient back where the view looked, into zeros
of the input's shape. For views whose elements never overlap that is one
assignment (`_embed`); for `as_strided` and `unfold`, whose windows may overlap,
it is a scatter-add over flat positions (`_put_accumulate`, adjoint of `_take`).
"""
import functools
import math

from .. import _arguments, _errors
from ..autograd.graph import Node
from ._common import (Tensor, attach, edge, grad_state, make_tensor, make_view, track_view, wrap,
                      wrap_dim)

__all__ = []

_ALL = slice(None)


def _index_value(value):
    """A Python int from an int, a NumPy integer or a one-element integer tensor."""
    if isinstance(value, Tensor):
        return int(value.item())
    return value.__index__()


def _zeros_like_shape(like, shape):
    """Constant zeros with `like`'s dtype and device (a missing gradient)."""
    return make_tensor(like._device.xp.zeros(shape, like._data.dtype), like._device)


def _embed(grad, shape, view_fn, node_type):
    """Zeros of `shape` holding `grad` where `view_fn` looks: the adjoint of a view.

    Differentiable: its own gradient is `view_fn` applied to the incoming gradient.
    """
    out = _zeros_like_shape(grad, shape)
    view_fn(out)._data[...] = grad._data
    if grad_state.enabled and grad._requires_grad:
        node = node_type()
        node.view_fn = view_fn
        attach(out, node, grad)
    return out


class _EmbedBackward(Node):
    __slots__ = ("view_fn",)

    def backward(self, grad):
        return (self.view_fn(grad),)


# ---------------------------------------------------------------- select, narrow, slice
def select(input, dim, index):
    """The sub-tensor at `index` along `dim`, one dimension fewer (a view)."""
    data = input._data
    if data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, data.ndim)
    index = _index_value(index)
    size = data.shape[dim]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{_errors.shape_list(data.shape)} at dimension {dim}")
    if index < 0:
        index += size
    # The trailing Ellipsis keeps NumPy returning a (0-d) view, never a scalar.
    out = make_view(data[(_ALL,) * dim + (index, Ellipsis)], input)
    if grad_state.enabled and input._requires_grad:
        node = SelectBackward0()
        node.shape = data.shape
        node.dim = dim
        node.index = index
        attach(out, node, input)
    return out


class SelectBackward0(Node):
    __slots__ = ("shape", "dim", "index")

    def backward(self, grad):
        view_fn = functools.partial(select, dim=self.dim, index=self.index)
        return (_embed(grad, self.shape, view_fn, SelectBackwardBackward0),)


class SelectBackwardBackward0(_EmbedBackward):
    __slots__ = ()


def narrow(input, dim, start, length):
    """`length` elements along `dim` from `start` (a view)."""
    data = input._data
    if data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start = _index_value(start)
    length = _index_value(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = wrap_dim(dim, data.ndim)
    size = data.shape[dim]
    if start < -size or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return _slice(input, dim, start, start + length)


def _slice(input, dim, start, end, step=1):
    """input[..., start:end:step, ...] along `dim` (bounds already valid), recorded as
    SliceBackward0."""
    data = input._data
    out = make_view(data[(_ALL,) * dim + (slice(start, end, step),)], input)
    if grad_state.enabled and input._requires_grad:
        node = SliceBackward0()
        node.shape = data.shape
        node.dim = dim
        node.start = start
        node.end = end
        node.step = step
        attach(out, node, input)
    return out


class SliceBackward0(Node):
    __slots__ = ("shape", "dim", "start", "end", "step")

    def backward(self, grad):
        view_fn = functools.partial(_slice, dim=self.dim, start=self.start, end=self.end,
                                    step=self.step)
        return (_embed(grad, self.shape, view_fn, SliceBackwardBackward0),)


class SliceBackwardBackward0(_EmbedBackward):
    __slots__ = ()


# ---------------------------------------------------------------- multi-output splits
def _multi_view(input, dim, bounds, node):
    """Views input[start:end] along `dim` for each bound, all outputs of one `node`."""
    data = input._data
    record = grad_state.enabled and input._requires_grad
    lead = (_ALL,) * dim
    outs = []
    for i, (start, end) in enumerate(bounds):
        index = lead + ((start, Ellipsis) if end is None else (slice(start, end),))
        out = make_view(data[index], input)
        if record:
            out.grad_fn = node
            out._requires_grad = True
            out._output_nr = i
            track_view(out)
        outs.append(out)
    if record:
        node.next_functions = (edge(input),)
    return tuple(outs)


class _MultiViewBackward(Node):
    """Gradient of several views along `dim`: the pieces back in place, zeros where unused."""

    __slots__ = ("shape", "dim", "sizes")

    def backward(self, *grads):
        from .joining import cat  # noqa: PLC0415 - joining imports views; resolved at call
        like = next(g for g in grads if g is not None)
        parts = []
        for i, size in enumerate(self.sizes):
            g = grads[i] if i < len(grads) else None
            if g is None:
                g = _zeros_like_shape(like, self.shape[:self.dim] + (size,)
                                      + self.shape[self.dim + 1:])
            parts.append(g)
        return (cat(parts, self.dim),)


def unbind(input, dim=0):
    """A tuple of views, one per index along `dim`."""
    data = input._data
    if data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, data.ndim)
    node = None
    if grad_state.enabled and input._requires_grad:
        node = UnbindBackward0()
        node.shape = data.shape
        node.dim = dim
    return _multi_view(input, dim, [(i, None) for i in range(data.shape[dim])], node)


class UnbindBackward0(Node):
    __slots__ = ("shape", "dim")

    def backward(self, *grads):
        from .joining import stack  # noqa: PLC0415 - joining imports views; resolved at call
        like = next(g for g in grads if g is not None)
        slice_shape = self.shape[:self.dim] + self.shape[self.dim + 1:]
        parts = []
        for i in range(self.shape[self.dim]):
            g = grads[i] if i < len(grads) else None
            parts.append(_zeros_like_shape(like, slice_shape) if g is None else g)
        return (stack(parts, self.dim),)


def split(tensor, split_size_or_sections, dim=0):
    """Views of `split_size` elements each (the last may be shorter), or of the listed sizes.

    PyTorch's split is Python: it hands an int (a bool too) to C++ split and anything else
    to split_with_sizes, whose parsers word a wrong type."""
    name = "split" if isinstance(split_size_or_sections, int) else "split_with_sizes"
    if split_size_or_sections.__class__ is bool or dim.__class__ is not int:
        _arguments.check(name, (tensor, split_size_or_sections, dim))
    try:
        return _split(tensor, split_size_or_sections, dim)
    except Exception:
        _arguments.check(name, (tensor, split_size_or_sections, dim))
        raise


def _split(tensor, split_size_or_sections, dim):
    data = tensor._data
    if data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    given, dim = dim, wrap_dim(dim, data.ndim)
    size = data.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        return _split_with_sizes(tensor, [_index_value(s) for s in split_size_or_sections], dim,
                                 given)
    split_size = _index_value(split_size_or_sections)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    count = max(-(-size // split_size), 1) if split_size else 1
    sizes = [min(split_size, size - i * split_size) for i in range(count)]
    return _split_views(tensor, dim, sizes, SplitBackward0)


def _split_with_sizes(tensor, sizes, dim, given):
    """Views of the listed sizes along `dim` (wrapped); messages name the dim as `given`."""
    size = tensor._data.shape[dim]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries,"
                           f" but got split_sizes={_errors.shape_list(sizes)}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                           f"tensor's size at dimension {given}), but got "
                           f"split_sizes={_errors.shape_list(sizes)}")
    return _split_views(tensor, dim, sizes, SplitWithSizesBackward0)


def _split_views(tensor, dim, sizes, node_type):
    node = None
    if grad_state.enabled and tensor._requires_grad:
        node = node_type()
        node.shape = tensor._data.shape
        node.dim = dim
        node.sizes = tuple(sizes)
    bounds = []
    start = 0
    for s in sizes:
        bounds.append((start, start + s))
        start += s
    return _multi_view(tensor, dim, bounds, node)


class SplitBackward0(_MultiViewBackward):
    __slots__ = ()


class SplitWithSizesBackward0(_MultiViewBackward):
    __slots__ = ()


def chunk(input, chunks, dim=0):
    """At most `chunks` views of equal size (the last may be smaller), via split."""
    data = input._data
    if data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = _index_value(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = data.shape[wrap_dim(dim, data.ndim)]
    split_size = -(-size // chunks)
    if size == 0:
        # As PyTorch: keep the requested number of (empty) chunks.
        return split(input, [0] * chunks, dim)
    return split(input, split_size, dim)


def tensor_split(input, indices_or_sections, dim=0):
    """Views split into n near-equal sections, or at the given indices; one slice node each."""
    data = input._data
    if data.ndim == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a "
                           f"tensor with {data.ndim} dims")
    dim = wrap_dim(dim, data.ndim)
    size = data.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = _tensor_split_arg(indices_or_sections)
    if isinstance(indices_or_sections, (list, tuple)):
        bounds = []
        start = 0
        for index in list(indices_or_sections) + [None]:
            end = size if index is None else _index_value(index)
            bounds.append(slice(start, end).indices(size)[:2])
            start = end
    else:
        sections = _index_value(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        bounds = []
        start = 0
        for i in range(sections):
            end = start + small + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    return tuple(_slice(input, dim, start, max(start, end)) for start, end in bounds)


def _tensor_split_arg(t):
    if t._data.ndim > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                           "zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{t._data.ndim} dims")
    if t._data.dtype.kind != "i" or t._data.itemsize != 8:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {_errors._scalar_type_name(t.dtype)}")
    return t._data.tolist()


# ---------------------------------------------------------------- diagonal, as_strided, unfold
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal over dims dim1 and dim2 as a last dimension (a view)."""
    data = input._data
    d1 = wrap_dim(dim1, data.ndim)
    d2 = wrap_dim(dim2, data.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape, strides = data.shape, data.strides
    if offset >= 0:
        length = max(min(shape[d1], shape[d2] - offset), 0)
        start = (_ALL,) * d2 + (slice(min(offset, shape[d2]), None),)
    else:
        length = max(min(shape[d1] + offset, shape[d2]), 0)
        start = (_ALL,) * d1 + (slice(min(-offset, shape[d1]), None),)
    keep = [d for d in range(data.ndim) if d not in (d1, d2)]
    result = input._device.xp.lib.stride_tricks.as_strided(
        data[start], shape=tuple(shape[d] for d in keep) + (length,),
        strides=tuple(strides[d] for d in keep) + (strides[d1] + strides[d2],))
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = DiagonalBackward0()
        node.shape = shape
        node.view_args = (offset, d1, d2)
        attach(out, node, input)
    return out


class DiagonalBackward0(Node):
    __slots__ = ("shape", "view_args")

    def backward(self, grad):
        return (diagonal_backward(grad, self.shape, *self.view_args),)


def diagonal_backward(grad, shape, offset, dim1, dim2):
    """Zeros of `shape` with `grad` on a diagonal: the gradient of taking that diagonal."""
    view_fn = functools.partial(diagonal, offset=offset, dim1=dim1, dim2=dim2)
    return _embed(grad, shape, view_fn, DiagonalBackwardBackward0)


class DiagonalBackwardBackward0(_EmbedBackward):
    __slots__ = ()


def as_strided(input, size, stride, storage_offset=None):
    """A view with explicit sizes and strides (in elements) into the input's storage."""
    size = tuple(_index_value(s) for s in size)
    stride = tuple(_index_value(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {_errors.shape_list(stride)}")
    offset = input.storage_offset() if storage_offset is None else _index_value(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    flat = _storage_flat(input)
    needed = _storage_needed(size, stride, offset)
    itemsize = flat.itemsize
    if needed > flat.size:
        raise RuntimeError(
            f"setStorage: sizes {_errors.shape_list(size)}, strides {_errors.shape_list(stride)},"
            f" storage offset {offset}, and itemsize {itemsize} requiring a storage size of "
            f"{needed * itemsize} are out of bounds for storage of size {flat.size * itemsize}")
    result = input._device.xp.lib.stride_tricks.as_strided(
        flat[min(offset, flat.size):], shape=size, strides=tuple(s * itemsize for s in stride))
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = AsStridedBackward0()
        node.input_geometry = (input._data.shape, input.stride(), input.storage_offset())
        node.output_geometry = (size, stride, offset)
        attach(out, node, input)
    return out


def _storage_flat(input):
    """The whole shared storage as a flat array (the root array's memory)."""
    root = input._storage.root
    return input._device.xp.lib.stride_tricks.as_strided(
        root, shape=(root.size,), strides=(root.itemsize,))


def _storage_needed(size, stride, offset):
    """Elements of storage a geometry touches (0 when it has no elements)."""
    extent = 1
    for s, st in zip(size, stride):
        if s == 0:
            return 0
        extent += (s - 1) * st
    return offset + extent


def _positions(xp, size, stride, offset):
    """The storage position of every element of a geometry, as an int64 array."""
    positions = xp.full(size, offset, dtype=xp.int64)
    for d, (s, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = s
        positions = positions + (xp.arange(s, dtype=xp.int64) * st).reshape(shape)
    return positions


class AsStridedBackward0(Node):
    __slots__ = ("input_geometry", "output_geometry")

    def backward(self, grad):
        xp = grad._device.xp
        out_size, out_stride, out_offset = self.output_geometry
        in_size, in_stride, in_offset = self.input_geometry
        out_positions = _positions(xp, out_size, out_stride, out_offset)
        in_positions = _positions(xp, in_size, in_stride, in_offset)
        length = max(_storage_needed(out_size, out_stride, out_offset),
                     _storage_needed(in_size, in_stride, in_offset))
        storage_grad = _put_accumulate(grad, out_positions, (length,))
        result = _take(storage_grad, in_positions)
        counts = xp.bincount(in_positions.reshape(-1), minlength=length)
        if in_positions.size and counts.max() > 1:
            # An input whose elements share memory splits the gradient among them.
            result = result / make_tensor(counts[in_positions].astype(grad._data.dtype),
                                          grad._device)
        return (result,)


def unfold(input, dimension, size, step):
    """All windows of `size` elements, `step` apart, along `dimension`, as a new last dim (view)."""
    data = input._data
    dim = wrap_dim(dimension, data.ndim)
    size = _index_value(size)
    step = _index_value(step)
    result = _unfold_array(data, dim, size, step, input._device.xp)
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = UnfoldBackward0()
        node.shape = data.shape
        node.view_args = (dim, size, step)
        attach(out, node, input)
    return out


def _unfold_array(data, dim, size, step, xp):
    if data.ndim == 0:
        return _unfold_array(data.reshape(1), 0, size, step, xp)[0]
    max_size = data.shape[dim]
    if size > max_size:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {max_size} but size "
                           f"is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape = list(data.shape)
    strides = list(data.strides)
    shape[dim] = (max_size - size) // step + 1
    strides[dim] *= step
    return xp.lib.stride_tricks.as_strided(data, shape=tuple(shape) + (size,),
                                           strides=tuple(strides) + (data.strides[dim],))


class UnfoldBackward0(Node):
    __slots__ = ("shape", "view_args")

    def backward(self, grad):
        xp = grad._device.xp
        positions = xp.arange(math.prod(self.shape), dtype=xp.int64).reshape(self.shape)
        positions = _unfold_array(positions, *self.view_args, xp)
        return (_put_accumulate(grad, positions, self.shape),)


# ---------------------------------------------------------------- flat gather / scatter-add
def _take(input, positions):
    """input.flatten()[positions]: a gather by flat position (shape of `positions`)."""
    out = wrap(input._data.reshape(-1)[positions], input._device)
    if grad_state.enabled and input._requires_grad:
        node = TakeBackward0()
        node.positions = positions
        node.shape = input._data.shape
        attach(out, node, input)
    return out


class TakeBackward0(Node):
    __slots__ = ("positions", "shape")

    def backward(self, grad):
        return (_put_accumulate(grad, self.positions, self.shape),)


def _put_accumulate(input, positions, shape):
    """Zeros of `shape` with `input` added at flat `positions` (repeats accumulate)."""
    xp = input._device.xp
    result = xp.zeros(shape, dtype=input._data.dtype)
    xp.add.at(result.reshape(-1), positions.reshape(-1), input._data.reshape(-1))
    out = make_tensor(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = PutBackward0()
        node.positions = positions
        attach(out, node, input)
    return out


class PutBackward0(Node):
    __slots__ = ("positions",)

    def backward(self, grad):
        return (_take(grad, self.positions),)
