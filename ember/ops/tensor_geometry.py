"""Tensor methods that change or report how a tensor lies over its memory rather than its
values: set_ (take another tensor's or a storage's memory), as_strided_ (re-window in
place), new_empty_strided, is_set_to, dim_order and output_nr.

ember's memory is a backend array shared through a storage record (its root array and the
version counter). `set_` gives the tensor a record of its own over the source's root, as
PyTorch gives it its own version counter over a shared allocation: writes through either
tensor are seen by both, and each counts its own versions.
"""
from .. import _errors, _storage
from .._tensor import _Storage
from ..autograd.graph import Node
from ._common import Tensor, _check_inplace_allowed, attach, grad_state, make_view
from ._elementwise import NotImplementedBackward
from .creation import empty_strided
from .slicing import AsStridedBackward0, as_strided

_STORAGES = (_storage.UntypedStorage, _storage.TypedStorage)

__all__ = ["set_", "as_strided_", "new_empty_strided", "is_set_to", "dim_order", "output_nr",
           "as_subclass", "to_dense", "module_load"]

_AMBIGUOUS = ("The tensor does not have unique dim order, or cannot map to exact one of the "
              "given memory formats.")
_BAD_CHECK = "The ambiguity_check argument must be a bool or a list of memory formats."


# ---------------------------------------------------------------- set_
def set_(input, source=None, storage_offset=0, size=None, stride=None):
    """Make `input` a window on `source`'s memory (a tensor, or a storage from
    `storage_offset` with `size` and `stride`), or, with no source, an empty 1-D tensor."""
    if grad_state.enabled and input._requires_grad:
        _check_inplace_allowed(input)
    xp = input._device.xp
    if source is None:
        data = xp.empty((0,), input._data.dtype)
        root = data
    elif isinstance(source, _STORAGES):
        if isinstance(source, _storage.TypedStorage) and source.dtype is not input.dtype:
            raise RuntimeError(
                f"Expected a Storage of type {_errors.cpp_type_name(input.dtype)} or an "
                f"UntypedStorage, but got type {_errors.scalar_type_name(source.dtype)} for "
                "argument 1 'storage'")
        data = _storage_window(input, source, storage_offset, size, stride, xp)
        root = source._record.root
    else:
        if source._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_errors.cpp_type_name(source.dtype)} to a "
                f"tensor of type {_errors.cpp_type_name(input.dtype)}")
        if size is None:
            if storage_offset or stride is not None:
                # no overload takes an offset or strides without sizes: the door (ember/
                # _arguments.py) answers a TypeError with PyTorch's overload listing
                raise TypeError("set_(): an offset or strides need sizes")
            data, root = source._data, source._storage.root
        else:   # a window on the source's memory, its offset counted from the source's own
            storage = source.untyped_storage()
            data = _storage_window(input, storage, source.storage_offset() + storage_offset,
                                   size, stride, xp)
            root = storage._record.root
    # PyTorch records set_ as a node without a derivative: set_(tensor) when either side
    # needs a gradient (edges to both), the other forms only when input does
    sources = (source,) if isinstance(source, Tensor) and size is None else ()
    record = grad_state.enabled and (input._requires_grad
                                     or any(s._requires_grad for s in sources))
    _rebind(input, data, root)
    if record:
        input._output_nr = 0
        attach(input, NotImplementedBackward("set_", namespace=""), input, *sources)
    return input


def _storage_window(input, source, storage_offset, size, stride, xp):
    """The elements of a storage's bytes, read as `input`'s dtype, that a geometry covers.
    A geometry past the end grows the storage first, as PyTorch grows a resizable one
    (the new bytes are zeros here, uninitialised there; tensors already viewing the old
    bytes keep them)."""
    dtype = input._data.dtype
    count = _storage.root_bytes(source._record.root).size // dtype.itemsize
    if size is None:
        size, stride = (count - storage_offset,), (1,)
    size = tuple(int(s) for s in size)
    if stride is None:
        stride = _contiguous_strides(size)
    stride = tuple(int(s) for s in stride)
    _check_geometry(size, stride, storage_offset)
    if any(st < 0 for st in stride):   # left past the checks only on dims of size <= 1
        stride = _negative_strides_filled(size, stride)
    needed = _extent(size, stride, storage_offset)
    if needed > count and not any(s < 0 for s in size):
        source.untyped()._resize_bytes(needed * dtype.itemsize)
        count = _storage.root_bytes(source._record.root).size // dtype.itemsize
    if needed > count:
        raise RuntimeError(
            f"setStorage: sizes {_errors.shape_list(size)}, strides {_errors.shape_list(stride)},"
            f" storage offset {storage_offset}, and itemsize {dtype.itemsize} requiring a "
            f"storage size of {needed * dtype.itemsize} are out of bounds for storage of size "
            f"{count * dtype.itemsize}")
    raw = _storage.root_bytes(source._record.root)     # the grown buffer, if it grew
    flat = raw[:count * dtype.itemsize].view(dtype)
    return xp.lib.stride_tricks.as_strided(
        flat[min(storage_offset, count):], shape=size,
        strides=tuple(s * dtype.itemsize for s in stride))


def _check_geometry(size, stride, storage_offset):
    """PyTorch's setStorage checks, in its order: lengths, offset, sizes, then strides."""
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                           f"({len(stride)})")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    if 0 not in size and any(st < 0 and s > 1 for s, st in zip(size, stride)):
        raise RuntimeError(f"Storage size calculation overflowed with sizes="
                           f"{_errors.shape_list(size)} and strides={_errors.shape_list(stride)}")


def _negative_strides_filled(size, stride):
    """PyTorch's setStorage reads a negative stride as 'contiguous here': the next
    dimension's stride times its size (at least 1), or 1 for the last dimension."""
    filled = list(stride)
    for dim in reversed(range(len(size))):
        if filled[dim] < 0:
            filled[dim] = 1 if dim == len(size) - 1 else filled[dim + 1] * max(size[dim + 1], 1)
    return tuple(filled)


def _rebind(input, data, root):
    version = input._storage.version
    input._data = data
    input._storage = _Storage(root)
    input._storage.version = version + 1
    input._base = None


def _contiguous_strides(size):
    strides, step = [], 1
    for s in reversed(size):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))


def _extent(size, stride, offset):
    if 0 in size:
        return 0
    return offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))


def is_set_to(input, tensor):
    """Whether both tensors are the same window (memory, offset, sizes, strides)."""
    return (input._storage.root is tensor._storage.root
            and input.storage_offset() == tensor.storage_offset()
            and input._data.shape == tensor._data.shape
            and input._data.strides == tensor._data.strides)


# ---------------------------------------------------------------- as_strided_
def as_strided_(input, size, stride, storage_offset=None):
    """Re-window `input` over its own storage, in place; recorded as AsStridedBackward1."""
    recording = grad_state.enabled and input._requires_grad
    if recording:
        _check_inplace_allowed(input)
    view = as_strided(input, size, stride, storage_offset)
    input._data = view._data
    input._storage.version += 1
    if recording:
        node = view.grad_fn
        node.__class__ = AsStridedBackward1  # same saved geometry, PyTorch's in-place name
        input.grad_fn = node
        input._output_nr = 0
    return input


class AsStridedBackward1(AsStridedBackward0):
    __slots__ = ()


# ---------------------------------------------------------------- new_empty_strided
def new_empty_strided(input, size, stride, *, dtype=None, layout=None, device=None,
                      pin_memory=False, requires_grad=False):
    """empty_strided with `input`'s dtype and device unless given."""
    return empty_strided(size, stride, dtype=input.dtype if dtype is None else dtype,
                         device=input._device if device is None else device,
                         requires_grad=requires_grad)


# ---------------------------------------------------------------- dim_order
def dim_order(input, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (PyTorch's stable insertion order:
    size-1 and zero-stride dims keep their place)."""
    if ambiguity_check.__class__ is not bool:
        # ember has no memory formats, so only an empty list is one of them
        if not isinstance(ambiguity_check, list) or ambiguity_check:
            raise TypeError(_BAD_CHECK)
    shape, strides = input._data.shape, input.stride()
    if ambiguity_check is not False and (
            1 in shape or any(a == b for a, b in zip(strides, strides[1:]))):
        raise RuntimeError(_AMBIGUOUS)
    order, sorted_ = _physical_order(shape, strides)
    # (PyTorch verifies only a sorted order, and only for a truthy check: [] passes)
    if sorted_ and ambiguity_check and any(
            _compare(shape, strides, inner, outer) != -1
            for inner, outer in zip(order[::-1], order[-2::-1])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return order


def _physical_order(shape, strides):
    """(the order, whether it was sorted rather than read off a dense layout)"""
    ndim = len(shape)
    if ndim < 2:
        return tuple(range(ndim)), False
    contiguous = _numel(shape) < 2 or _dense_in(shape, strides, range(ndim - 1, -1, -1))
    channels_last = ndim in (4, 5) and _dense_in(shape, strides, (1, *range(ndim - 1, 1, -1), 0))
    if contiguous != channels_last:
        return (tuple(range(ndim)) if contiguous else (0, *range(2, ndim), 1)), False
    # Sorted innermost first: each dim walks outward past the dims it must follow, and
    # stops at the first one it must precede; an undecided pair is stepped over.
    inner_first = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        moving = i
        for j in range(i - 1, -1, -1):
            verdict = _compare(shape, strides, inner_first[j], inner_first[moving])
            if verdict < 0:
                break
            if verdict > 0:
                inner_first[j], inner_first[moving] = inner_first[moving], inner_first[j]
                moving = j
    return tuple(reversed(inner_first)), True


def _compare(shape, strides, a, b):
    """1 when dim `a` lies outside `b`, -1 when inside, 0 when memory cannot tell."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if shape[b] >= shape[a] else 1
    return -1 if sb > sa else 1


def _numel(shape):
    count = 1
    for s in shape:
        count *= s
    return count


def _dense_in(shape, strides, dims):
    """Whether the dims, innermost first, are packed densely (size-1 dims pass)."""
    expected = 1
    for d in dims:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def output_nr(input):
    """Which output of its grad_fn this tensor is (0 for leaves and untracked results)."""
    return input._output_nr if input.grad_fn is not None else 0



# ---------------------------------------------------------------- aliases
def as_subclass(input, cls):
    """The same memory as a tensor of class `cls`, recorded as AliasBackward0."""
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    out = make_view(input._data, input)
    if cls is not Tensor:
        out.__class__ = cls
    if grad_state.enabled and input._requires_grad:
        attach(out, AliasBackward0(), input)
    return out


class AliasBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def to_dense(input, dtype=None):
    """A strided tensor is already dense: itself, or a copy in `dtype`."""
    return input if dtype is None or dtype is input.dtype else input.to(dtype)


def module_load(input, other, assign=False):
    """What load_state_dict puts in a module for `input` given the saved `other`: `other`
    itself (detached) when assigning, else `input` with other's values copied in."""
    source = other if assign else input.copy_(other)
    return source.detach()
