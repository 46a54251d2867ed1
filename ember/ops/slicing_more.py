"""The rest of the slicing family: the numpy-style splits (hsplit, vsplit, dsplit),
split_with_sizes and the 'unsafe' splits, the *_scatter ops that write a tensor into
a view of a copy (select/slice/diagonal/as_strided_scatter), diagflat, and
fill_diagonal_.

The splits are slicing.py's views (tensor_split's slices for the numpy-style ones,
as PyTorch decomposes them). A *_scatter op copies its input, takes the same view of
the copy with slicing.py's view op and assigns `src` through it; its gradient is the
incoming gradient with that view zeroed (for input) and the view read out (for src).
"""
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, inplace_overlapping, make_tensor, wrap_dim
from ._view_rebase import CopySlices
from .diagonal import diag_embed
from .gather_scatter import MaskedFillBackward0
from .pointwise_select import FillBackward2
from .slicing import (_MultiViewBackward, _index_value, _split_views, _split_with_sizes,
                      as_strided, diagonal, select, split, tensor_split)

__all__ = ["hsplit", "vsplit", "dsplit", "split_with_sizes", "unsafe_split", "unsafe_chunk",
           "unsafe_split_with_sizes", "select_scatter", "slice_scatter", "diagonal_scatter",
           "as_strided_scatter", "diagflat"]

_dtype_bool = _dtype.bool


# ---------------------------------------------------------------- numpy-style splits
def _numpy_split(name, input, sections, dim, least):
    ndim = input._data.ndim
    if ndim < least:
        raise RuntimeError(f"ember.{name} requires a tensor with at least {least} dimension, but "
                           f"got a tensor with {ndim} dimensions!")
    if not isinstance(sections, (list, tuple)):
        sections = _index_value(sections)
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"ember.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """Split along dim 1 (dim 0 for a 1-D tensor), into equal sections or at indices."""
    return _numpy_split("hsplit", input, indices_or_sections,
                        1 if input._data.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _numpy_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _numpy_split("dsplit", input, indices_or_sections, 2, 3)


def _check_sizes(input, sizes, dim):
    """split_with_sizes' sum check, naming `dim` as given (PyTorch does not wrap it here)."""
    size = input._data.shape[wrap_dim(dim, input._data.ndim)]
    if all(s >= 0 for s in sizes) and sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                           f"tensor's size at dimension {dim}), but got "
                           f"split_sizes={_errors.shape_list(sizes)}")


def split_with_sizes(input, split_sizes, dim=0):
    sizes = [_index_value(s) for s in split_sizes]
    if input._data.ndim:
        _check_sizes(input, sizes, dim)
    return split(input, sizes, dim)


# ---------------------------------------------------------------- unsafe splits
def unsafe_split(input, split_size, dim=0):
    """split, recorded as UnsafeSplitBackward0 (PyTorch skips the outputs' view checks)."""
    pieces = split(input, split_size, dim)
    return _unsafe(input, pieces, dim, UnsafeSplitBackward0)


def unsafe_chunk(input, chunks, dim=0):
    pieces = input.chunk(chunks, dim)
    # PyTorch splits an empty dim by a list of sizes (one 0 per chunk): another node name
    empty = input._data.ndim and input._data.shape[wrap_dim(dim, input._data.ndim)] == 0
    return _unsafe(input, pieces, dim,
                   UnsafeSplitWithSizesBackward0 if empty else UnsafeSplitBackward0)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    sizes = [_index_value(s) for s in split_sizes]
    _check_sizes(input, sizes, dim)
    given, dim = dim, wrap_dim(dim, input._data.ndim)
    _split_with_sizes(input.detach(), sizes, dim, given)  # PyTorch's other checks and messages
    return _split_views(input, dim, sizes, UnsafeSplitWithSizesBackward0)


def _unsafe(input, pieces, dim, node_type):
    sizes = [p._data.shape[wrap_dim(dim, input._data.ndim)] for p in pieces]
    return _split_views(input, wrap_dim(dim, input._data.ndim), sizes, node_type)


class UnsafeSplitBackward0(_MultiViewBackward):
    __slots__ = ()


class UnsafeSplitWithSizesBackward0(_MultiViewBackward):
    __slots__ = ()


# ---------------------------------------------------------------- *_scatter
def _scatter_into(input, src, view, node_type, arguments):
    """A copy of input with `src` written into view(copy); records node_type(arguments)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{node_type.op}(): argument 'src' (position 2) must be Tensor, not "
                        f"{type(src).__name__}")
    copy = make_tensor(input._data.copy(), input._device)
    target = view(copy, *arguments)
    if target._data.shape != src._data.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{_errors.shape_list(src._data.shape)}, slice size = "
                           f"{_errors.shape_list(target._data.shape)}")
    if src._data.dtype != input._data.dtype:
        source = src._data.astype(input._data.dtype)
    else:
        source = src._data
    target._data[...] = source
    out = make_tensor(copy._data, input._device)
    if grad_state.enabled and (input._requires_grad or src._requires_grad):
        node = node_type()
        node.view, node.arguments = view, arguments
        node.src_dtype = src.dtype
        attach(out, node, input, src)
    return out


class _ScatterIntoBackward(Node):
    __slots__ = ("view", "arguments", "src_dtype")
    op = ""

    def backward(self, grad):
        grad_input = grad_src = None
        if self.needs_input_grad(0):
            piece = self.view(grad, *self.arguments)
            grad_input = _scatter_into(grad, piece.new_zeros(piece.shape), self.view,
                                       type(self), self.arguments)
        if self.needs_input_grad(1):
            grad_src = self.view(grad, *self.arguments).clone()
            if grad_src.dtype is not self.src_dtype:
                grad_src = grad_src.to(self.src_dtype)
        return grad_input, grad_src


def select_scatter(input, src, dim, index):
    """input with src written at `index` along `dim`."""
    return _scatter_into(input, src, select, SelectScatterBackward0, (dim, index))


class SelectScatterBackward0(_ScatterIntoBackward):
    __slots__ = ()
    op = "select_scatter"


def _slice(input, dim, start, end, step):
    key = (slice(None),) * wrap_dim(dim, input._data.ndim) + (slice(start, end, step),)
    return input[key]


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with src written into input[..., start:end:step] along `dim`."""
    return _scatter_into(input, src, _slice, SliceScatterBackward0, (dim, start, end, step))


class SliceScatterBackward0(_ScatterIntoBackward):
    __slots__ = ()
    op = "slice_scatter"


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with src written onto the diagonal (offset, dim1, dim2)."""
    return _scatter_into(input, src, diagonal, DiagonalScatterBackward0, (offset, dim1, dim2))


class DiagonalScatterBackward0(_ScatterIntoBackward):
    __slots__ = ()
    op = "diagonal_scatter"


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with src written through as_strided(size, stride, storage_offset)."""
    return _scatter_into(input.contiguous(), src, as_strided, AsStridedScatterBackward0,
                         (tuple(size), tuple(stride), storage_offset))


class AsStridedScatterBackward0(_ScatterIntoBackward):
    """PyTorch 2.13 keeps input's gradient where src was written and zeroes it elsewhere
    (the reverse of the other *_scatter ops); matched here, as the specification."""

    __slots__ = ()
    op = "as_strided_scatter"

    def backward(self, grad):
        grad = grad.contiguous()
        grad_input = grad_src = None
        if self.needs_input_grad(0):
            written = _scatter_into(grad.new_zeros(grad.shape, dtype=_dtype_bool),
                                    grad.new_ones(self.arguments[0], dtype=_dtype_bool),
                                    as_strided, AsStridedScatterBackward0, self.arguments)
            grad_input = grad * written
        if self.needs_input_grad(1):
            grad_src = as_strided(grad, *self.arguments).clone()
            if grad_src.dtype is not self.src_dtype:
                grad_src = grad_src.to(self.src_dtype)
        return grad_input, grad_src


# ---------------------------------------------------------------- diagonals
def diagflat(input, offset=0):
    """A matrix with the flattened input on diagonal `offset` (PyTorch: diag_embed of it)."""
    return diag_embed(input.contiguous().view(-1), offset)


def fill_diagonal_(input, fill_value, wrap=False):
    """Fill the main diagonal (all indices equal) in place; with `wrap`, a tall matrix's
    diagonal restarts every ncols + 1 rows, as NumPy's fill_diagonal does."""
    data = input._data
    if data.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if data.ndim > 2 and len(set(data.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if grad_state.enabled and input._requires_grad and input.grad_fn is None:
        raise RuntimeError(_errors.VIEW_OF_LEAF_INPLACE)  # PyTorch writes through a view
    inplace_overlapping(input, _filled_diagonal, fill_value, wrap)
    if input._base is None and input.grad_fn.__class__ is MaskedFillBackward0:
        # PyTorch fills a strided view of the diagonal, and with `wrap` a second view of
        # the rows below it, so its history is one CopySlices over a fill per view (a
        # view input gets its CopySlices from the view rebase already).
        data = input._data
        positions = input._device.xp.flatnonzero(_diagonal_mask(data, wrap, input._device.xp))
        edge = input.grad_fn.next_functions[0]
        main = min(data.shape) * data.shape[-1] if data.ndim == 2 else data.size
        for part in (positions[positions < main], positions[positions >= main]):
            if part.size:
                edge = (_copy_slices_of_fill(input, part, edge), 0)
        input.grad_fn = edge[0]
    return input


def _copy_slices_of_fill(input, positions, edge):
    fill = FillBackward2()
    fill.next_functions = (edge, (None, 0))
    node = CopySlices()
    node.fn = fill
    node.positions = make_tensor(positions, input._device)
    node.base_shape = input._data.shape
    node.next_functions = (edge,)
    return node


def _filled_diagonal(input, fill_value, wrap):
    mask = make_tensor(_diagonal_mask(input._data, wrap, input._device.xp), input._device)
    return input.masked_fill(mask, fill_value)


def _diagonal_mask(data, wrap, xp):
    mask = xp.zeros(data.shape, dtype=bool)
    if data.ndim == 2:
        rows, cols = data.shape
        positions = xp.arange(0, rows * cols if wrap else min(rows, cols) * cols, cols + 1)
        mask.reshape(-1)[positions] = True
    else:
        index = xp.arange(data.shape[0])
        mask[(index,) * data.ndim] = True
    return mask
