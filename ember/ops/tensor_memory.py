"""Tensor methods about the memory behind a tensor rather than its values: resize_ and
resize_as_ (re-window the shared storage, growing it when needed), the deprecated
out-of-place resize, the per-element Python callbacks apply_/map_/map2_, the storage
accessors, and pinning and sharing.

resize_ keeps PyTorch's contract: the first elements of the storage (from the tensor's
offset) are kept, and a larger request reallocates the storage with the old bytes at its
front; the new elements are uninitialised.
"""
import warnings

from .. import _backend, _dtype, _storage, _storage_legacy, _typename
from ..autograd.graph import Node
from ._common import attach, contiguous, grad_state

__all__ = ["resize_as_"]

_NO_LEGACY_NAME = {_dtype.bool: "CPUBoolType", _dtype.bfloat16: "CPUBFloat16Type"}
_CHANNELS_LAST = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}
_RESIZE_GRAD = "cannot resize variables that require grad"
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


# ---------------------------------------------------------------- resize_
def resize_(input, *sizes, memory_format=None):
    """Give `input` the shape `sizes` over its storage, from its storage offset."""
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = sizes[0]
    shape = tuple(int(s) for s in sizes)
    if input._requires_grad:
        raise RuntimeError(_RESIZE_GRAD)
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    order = None
    if memory_format is not None and "channels_last" in str(memory_format):
        order = _CHANNELS_LAST.get(len(shape))
        if order is None:
            rank = 4 if "3d" not in str(memory_format) else 5
            raise RuntimeError(f"required rank {rank} tensor to use channels_last format")
    if shape == input._data.shape and order is None:
        return input
    data = input._data
    xp = input._device.xp
    offset = input.storage_offset()
    numel = 1
    for s in shape:
        numel *= s
    record = input._storage
    root = record.root
    needed = (offset + numel) * data.itemsize
    if not root.flags.c_contiguous or needed > root.nbytes:
        grown = xp.zeros(offset + numel, dtype=data.dtype)  # deterministic new elements
        old = _storage.root_bytes(root)
        grown.view(xp.uint8)[:min(old.size, needed)] = old[:needed]
        record.root = root = grown
    flat = _storage.root_bytes(root)[offset * data.itemsize:needed].view(data.dtype)
    if order is None:
        resized = contiguous(flat.reshape(shape), xp)
    else:
        inverse = [order.index(d) for d in range(len(order))]
        resized = flat.reshape([shape[d] for d in order]).transpose(inverse)
    input._data = resized
    return input


def resize_as_(input, the_template, *, memory_format=None):
    """resize_ to the template's shape."""
    return resize_(input, the_template._data.shape, memory_format=memory_format)


# ---------------------------------------------------------------- deprecated resize
def resize(input, *sizes):
    """The deprecated out-of-place resize: a reshape that must keep the element count."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=3)
    return _resized(input, sizes)


def resize_as(input, tensor):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=3)
    return _resized(input, tuple(tensor._data.shape))


def _resized(input, sizes):
    # PyTorch multiplies the raw arguments, so a size given as one tuple never matches
    # (the "count" becomes that tuple) and is refused; matched here, as the specification.
    numel = 1
    for s in sizes:
        numel = numel * s
    if numel != input._data.size:
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but "
            f"the given tensor has a size of {'x'.join(map(str, input._data.shape))} "
            f"({input._data.size} elements). autograd's resize can only change the shape of a "
            f"given tensor, while preserving the number of elements. ")
    out = input.detach().contiguous().view(sizes)
    if grad_state.enabled and input._requires_grad:
        node = ResizeBackward()
        node.shape = input._data.shape
        attach(out, node, input)
    return out


class ResizeBackward(Node):
    """PyTorch's autograd.Function for the deprecated resize."""

    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.contiguous().view(self.shape),)


# ---------------------------------------------------------------- per-element callbacks
def apply_(input, callable):
    """Replace each element by `callable(element)` (a Python loop, as in PyTorch)."""
    _refuse_grad("apply_", input)
    return _write_each(input, callable, (input._data,))


def map_(input, other, callable):
    """Replace each element by `callable(element, other's element)`, other broadcast."""
    _refuse_grad("map_", input, other)
    _check_same_type("map_", input, other, "'other'")
    return _write_each(input, callable, (input._data, other.expand(input.shape)._data))


def map2_(input, x, y, callable):
    _refuse_grad("map2_", input, x, y)
    _check_same_type("map2_", input, x, "argument 'x'")
    _check_same_type("map2_", input, y, "argument 'y'")
    shape = input.shape
    return _write_each(input, callable, (input._data, x.expand(shape)._data,
                                         y.expand(shape)._data))


def _refuse_grad(name, *tensors):
    if any(t._requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def _check_same_type(name, input, other, label):
    if other.dtype != input.dtype:
        raise TypeError(f"{name}: expected {_legacy_name(input)} for {label} (got "
                        f"{_legacy_name(other)})")


def _legacy_name(tensor):
    """PyTorch's legacy type name; bool and bfloat16 have none, so their message prints
    the C++ type."""
    return _NO_LEGACY_NAME.get(tensor.dtype) or _typename.typename(tensor)


def _write_each(input, callable, arrays):
    data = input._data
    kind = data.dtype.kind
    convert = bool if kind == "b" else int if kind in "iu" else float
    results = []
    for values in zip(*[a.reshape(-1).tolist() for a in arrays]):
        result = callable(*values)
        if isinstance(result, str) or not hasattr(result, "__float__"):
            raise TypeError(f"must be real number, not {type(result).__name__}")
        results.append(convert(result))
    if results:
        values = input._device.xp.asarray(results)
        data[...] = values.astype(data.dtype).reshape(data.shape)
        input._storage.version += 1
    return input


# ---------------------------------------------------------------- storage, pin, share
def untyped_storage(input):
    return _storage.UntypedStorage._wrap(input._storage, input._device)


def storage(input):
    return _storage.TypedStorage._wrap(input._storage, input._device, input.dtype)


def storage_type(input):
    """The legacy storage class of the tensor's dtype (None for uint16/32/64, as PyTorch)."""
    return _storage_legacy.storage_type(input)


def is_pinned(input, device=None):
    return False


def pin_memory(input, device=None):
    """Page-locked host memory needs an accelerator, as in PyTorch's CPU build."""
    if not _backend.cupy_available():
        raise RuntimeError(_NO_ACCELERATOR)
    return input.clone()


def share_memory_(input):
    """Move the storage into memory shared with processes forked afterwards."""
    record = input._storage
    root = record.root
    shared = _backend.share_memory(root)
    if shared is not root:
        offset = input.storage_offset()
        data = input._data
        record.root = shared
        if data.size:
            input._data = _backend.as_strided(
                _storage.root_bytes(shared)[offset * data.itemsize:].view(data.dtype), data.shape,
                data.strides)
    return input


def is_shared(input):
    return _backend.is_shared(input._storage.root)

