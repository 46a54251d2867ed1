"""Views and shape ops with PyTorch's memory semantics.

A view is a NumPy view of the input's array: it shares memory and the storage
record (so the version counter too), and `_base` points at the tensor that owns
the memory. `view` refuses where NumPy would have to copy; `reshape` copies only
then. Dimension bookkeeping (transpose, permute, squeeze...) lives in `dims.py`,
slicing views (select, narrow, split, diagonal...) in `slicing.py`, copying
rearrangements (repeat, flip, roll...) in `rearrange.py`; all are re-exported
here, the one door the Tensor methods use.
"""
from .. import _backend, _diagnose, _dtype, _errors
from .._size import Size
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, make_tensor, make_view, sum_to_shape, wrap_dim
# Re-exported: the Tensor methods reach every op of the family through this module.
from .dims import (_record, _shape_arg, H, T, adjoint, mH, movedim, moveaxis, mT,  # noqa: F401
                   permute, squeeze, squeeze_, swapaxes, swapdims, t, t_, transpose,
                   transpose_, unsqueeze, unsqueeze_)
from .rearrange import flip, fliplr, flipud, repeat, roll, rot90, tile
from .slicing import (as_strided, chunk, diagonal, narrow, select, split,  # noqa: F401
                      tensor_split, unbind, unfold)

__all__ = ["reshape", "transpose", "swapaxes", "swapdims", "t", "adjoint", "permute", "movedim",
           "moveaxis", "squeeze", "unsqueeze", "flatten", "unflatten", "ravel", "broadcast_to",
           "broadcast_tensors", "broadcast_shapes", "atleast_1d", "atleast_2d", "atleast_3d",
           "flip", "fliplr", "flipud", "roll", "rot90", "tile", "as_strided", "chunk",
           "diagonal", "narrow", "select", "split", "tensor_split", "unbind"]


def infer_size(shape, numel):
    """Resolve one -1 in `shape`; RuntimeError with PyTorch's text if impossible."""
    known = 1
    infer_at = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"{_errors.shape_list(shape)}")
        else:
            known *= s
    if infer_at is not None:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {_errors.shape_list(shape)}"
                    " because the unspecified dimension size -1 can be any value and is "
                    "ambiguous")
            raise _diagnose.noted(RuntimeError(f"shape '{_errors.shape_list(shape)}' is invalid "
                                               f"for input of size {numel}"),
                                  "numel", target=shape, numel=numel)
        if numel % known != 0:
            raise _diagnose.noted(RuntimeError(f"shape '{_errors.shape_list(shape)}' is invalid "
                                               f"for input of size {numel}"),
                                  "numel", target=shape, numel=numel)
        shape = shape[:infer_at] + (numel // known,) + shape[infer_at + 1:]
    elif known != numel:
        raise _diagnose.noted(RuntimeError(f"shape '{_errors.shape_list(shape)}' is invalid for "
                                           f"input of size {numel}"),
                              "numel", target=shape, numel=numel)
    return shape


# ---------------------------------------------------------------- view, reshape
def view(input, *shape):
    """The same memory seen with a new shape (or dtype); raises when strides do not allow it."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    data = input._data
    result = _contiguous_view(data, shape)
    if result is None:
        shape = infer_size(_shape_arg(shape), data.size)
        result = _viewed(data, shape, input._device.xp)
        if result is None:
            raise _diagnose.noted(RuntimeError(_errors.VIEW_NOT_COMPATIBLE), "view_stride",
                                  shape=data.shape, stride=input.stride(), target=shape)
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = ViewBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


def _contiguous_view(data, shape):
    """The fast path: a C-contiguous array reshaped by NumPy, whose strides are PyTorch's.

    None when the input is not contiguous or the shape needs checking (PyTorch's
    messages then come from `infer_size`).
    """
    if len(shape) == 1:
        shape = shape[0]
        if shape.__class__ is int:
            shape = (shape,)
        elif shape.__class__ is not tuple and shape.__class__ is not Size:
            return None
    if not data.flags.c_contiguous or -1 in shape:
        return None
    for size in shape:
        if size.__class__ is not int or size < 0:
            return None
    try:
        return data.reshape(shape)
    except ValueError:
        return None


_STRIDES_CACHE = {}


def _viewed(data, shape, xp):
    """`data` seen with `shape` without copying, strided as PyTorch would; None if impossible.

    NumPy's own reshape agrees with PyTorch except for the strides of some size-1
    dims, so it is used whenever its strides come out right (`as_strided` costs
    twenty times more). PyTorch's strides are cached per geometry.
    """
    key = (data.shape, data.strides, shape, data.itemsize)
    strides = _STRIDES_CACHE.get(key, False)
    if strides is False:
        itemsize = data.itemsize
        strides = _view_strides(data.shape, [s // itemsize for s in data.strides], shape)
        if strides is not None:
            strides = tuple(s * itemsize for s in strides)
        if len(_STRIDES_CACHE) > 4096:
            _STRIDES_CACHE.clear()
        _STRIDES_CACHE[key] = strides
    if strides is None:
        return None
    try:
        result = data.reshape(shape, copy=False)
        if result.strides == strides:
            return result
    except ValueError:
        pass
    return _backend.as_strided(data, shape, strides)


def _view_strides(old_shape, old_strides, new_shape):
    """PyTorch's computeStride: the strides (in elements) of a view, or None if none exists.

    Dims are grouped into chunks that are contiguous with each other; a view may
    split or merge dims only within a chunk.
    """
    if not old_shape:
        return [1] * len(new_shape)
    numel = 1
    for s in old_shape:
        numel *= s
    if numel == 0:
        if tuple(old_shape) == tuple(new_shape):
            return list(old_strides)
        strides = [1] * len(new_shape)
        for d in range(len(new_shape) - 2, -1, -1):
            strides[d] = max(new_shape[d + 1], 1) * strides[d + 1]
        return strides
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    return new_strides if view_d == -1 else None


class ViewBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.reshape(self.shape),)


def _view_dtype(input, dtype):
    """The same bytes read as another dtype; never part of the graph (as in PyTorch)."""
    data = input._data
    old = input.dtype
    if old.itemsize != dtype.itemsize:
        _check_view_dtype(input, old, dtype)
    out = make_view(data.view(dtype.np_dtype), input)
    out._base = None  # PyTorch reports no base for a dtype view, though memory is shared
    return out


def _check_view_dtype(input, old, new):
    names = (f"to view {_errors._scalar_type_name(old)} as {_errors._scalar_type_name(new)} "
             "(different element sizes)")
    if input._data.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {names}")
    strides = input.stride()
    if old.itemsize > new.itemsize:
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {names}, but got {strides[-1]}")
        return
    ratio = new.itemsize // old.itemsize
    if input._data.shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {names}, but got "
                           f"{input._data.shape[-1]}")
    offset = input.storage_offset()
    if offset % ratio:
        raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {names}, but "
                           f"got {offset}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {names}, but got {strides[-1]}")
    for i, stride in enumerate(strides[:-1]):
        if stride % ratio:
            raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {names}, but "
                               f"got {stride}")


def reshape(input, *shape):
    """A view when the strides allow it, otherwise a contiguous copy (PyTorch's node chain)."""
    data = input._data
    result = _contiguous_view(data, shape)
    if result is None:
        shape = infer_size(_shape_arg(shape), data.size)
        result = _viewed(data, shape, input._device.xp)
    if result is None:
        # PyTorch clones to contiguous memory, then views the copy: CloneBackward0 under
        # UnsafeViewBackward0.
        return _unsafe_view(input.contiguous(), shape)
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = ViewBackward0() if _is_contiguous(data) else ReshapeAliasBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


def _is_contiguous(data):
    """PyTorch's C-contiguity: empty tensors always are; size-1 dims may have any stride."""
    if data.size == 0:
        return True
    expected = data.itemsize
    for size, stride in zip(reversed(data.shape), reversed(data.strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _unsafe_view(input, shape):
    """ATen's `_unsafe_view`: reshape a fresh intermediate without making it a view."""
    out = make_tensor(input._data.reshape(shape), input._device)
    node = UnsafeViewBackward0()
    node.shape = input._data.shape
    return _record(out, node, input)


class UnsafeViewBackward0(ViewBackward0):
    __slots__ = ()


class ReshapeAliasBackward0(ViewBackward0):
    __slots__ = ()


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a view when possible, like reshape)."""
    shape = input._data.shape
    ndim = len(shape)
    start = wrap_dim(start_dim, ndim)
    end = wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return reshape(input, (1,))
    if start == end:
        return input
    merged = 1
    for s in shape[start:end + 1]:
        merged *= s
    return reshape(input, shape[:start] + (merged,) + shape[end + 1:])


def ravel(input):
    """A flat view of contiguous memory; a non-contiguous tensor is copied first."""
    return view(input.contiguous(), (-1,))


def unflatten(input, dim, sizes):
    """Split one dim into `sizes` (one of which may be -1), as a view."""
    shape = input._data.shape
    given, dim = dim, wrap_dim(dim, len(shape))
    if not shape:  # in range, then PyTorch's kernel wraps a second IndexError in its own
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as "
                           f"{given} but tensor has no dimensions")
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be "
                           "inferred")
    try:
        sizes = infer_size(sizes, shape[dim])
    except RuntimeError:
        raise RuntimeError(f"unflatten: Provided sizes {_errors.shape_list(sizes)} don't "
                           f"multiply up to the size of dim {dim} ({shape[dim]}) in the input "
                           "tensor") from None
    return view(input, shape[:dim] + sizes + shape[dim + 1:])


# ---------------------------------------------------------------- expand, broadcast
def expand(input, *sizes):
    """A broadcast view: size-1 dims repeat with stride 0; -1 keeps a size."""
    data = input._data
    sizes = _shape_arg(sizes)
    lead = len(sizes) - data.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand({_errors.legacy_type_name(input.dtype)}{{{_errors.shape_list(data.shape)}}}, "
            f"size={_errors.shape_list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({data.ndim})")
    target = []
    strides = []
    data_strides = data.strides
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension " + str(i))
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                                   f"{_errors.shape_list(sizes)}")
            target.append(s)
            strides.append(None)
            continue
        current = data.shape[i - lead]
        strides.append(data_strides[i - lead] if s in (-1, current) else 0)
        if s == -1:
            s = current
        elif current != 1 and current != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({current}) at non-singleton dimension {i}.  Target sizes: "
                               f"{_errors.shape_list(sizes)}.  Tensor sizes: "
                               f"{_errors.shape_list(data.shape)}")
        elif s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{_errors.shape_list(sizes)}")
        target.append(s)
    target = tuple(target)
    if target == data.shape:
        result = data.view()
    else:
        result = _expanded(data, target, strides, input._device.xp)
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = ExpandBackward0()
        node.shape = data.shape
        attach(out, node, input)
    return out


def _expanded(data, target, strides, xp):
    """The broadcast array with PyTorch's strides (its inferExpandGeometry).

    A dim that keeps its size keeps its stride; a new leading dim gets the stride
    a contiguous layout would give it; a broadcast dim gets 0. The array stays
    writable, as PyTorch's is: refusing writes to repeated memory is the in-place
    op's check (a slice of an expanded tensor may well be written).
    """
    for i in range(len(target) - 1, -1, -1):
        if strides[i] is None:
            inner = strides[i + 1] * target[i + 1] if i + 1 < len(target) else 0
            strides[i] = inner if target[i] == 1 else 0
    return _backend.as_strided(data, target, tuple(strides))


class ExpandBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (sum_to_shape(grad, self.shape),)


def broadcast_to(input, size):
    """`input` expanded to `size` (PyTorch's name for expand)."""
    return expand(input, tuple(size))


def broadcast_shapes(*shapes):
    """The shape that all `shapes` (ints or sequences) broadcast to."""
    result = []
    for index, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for s in shape:
            if s < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
        for i in range(1, len(shape) + 1):
            s = shape[-i]
            if i > len(result):
                result.insert(0, s)
            elif result[-i] == 1 or s == result[-i]:
                result[-i] = s
            elif s != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {s} at {-i}! Mismatching "
                    f"argument at index {index} had {shape}; but expected shape should be "
                    f"broadcastable to {_errors.shape_list(result)}")
    return Size(result)


def broadcast_tensors(*tensors):
    """The tensors expanded to one shape; a tensor already of that shape comes back as is.

    One list of tensors is no tensor: PyTorch refuses it (the door gives its words)."""
    shape = ()
    for tensor in tensors:
        other = tensor._data.shape
        if other != shape:
            shape = _broadcast_pair(shape, other)
    return tuple(x if x._data.shape == shape else expand(x, shape) for x in tensors)


def _broadcast_pair(a, b):
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def atleast_1d(*tensors):
    return _atleast(tensors, 1, "atleast_1d")


def atleast_2d(*tensors):
    return _atleast(tensors, 2, "atleast_2d")


def atleast_3d(*tensors):
    return _atleast(tensors, 3, "atleast_3d")


def _atleast(tensors, ndim, name):
    """One tensor for one argument, a tuple for several (or for a list), as PyTorch returns."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast_one(t, ndim, name) for t in tensors[0])
    if len(tensors) == 1:
        return _atleast_one(tensors[0], ndim, name)
    return tuple(_atleast_one(t, ndim, name) for t in tensors)


def _atleast_one(t, ndim, name):
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(t).__name__})")
    have = t._data.ndim
    if have >= ndim:
        return t
    if have == 0:
        return reshape(t, (1,) * ndim)
    if ndim == 2 or have == 2:
        return unsqueeze(t, 0 if ndim == 2 else -1)
    return unsqueeze(unsqueeze(t, 0), -1)
