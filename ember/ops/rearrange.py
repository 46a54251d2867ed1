"""Shape ops that copy: repeat/tile, flip, roll, rot90.

Unlike views they return fresh memory (as PyTorch does); each gradient is the
inverse rearrangement of the incoming gradient (summed over copies for repeat).
"""
from .._errors import shape_list
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import attach, grad_state, make_tensor, wrap_dim, wrap_dims

__all__ = []


def _ints(args):
    """Accept f(2, 3), f((2, 3)) and f([2, 3])."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(a if a.__class__ is int else a.__index__() for a in args)


def repeat(input, *repeats):
    """Tile the tensor `repeats[i]` times along each dim (leading repeats add dims)."""
    data = input._data
    repeats = _ints(repeats)
    if len(repeats) < data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - data.ndim) + data.shape
    target = tuple(r * s for r, s in zip(repeats, padded))
    for s in target:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{shape_list(target)}")
    out = make_tensor(input._device.xp.tile(data, repeats) if repeats else data.copy(),
                      input._device)
    if grad_state.enabled and input._requires_grad:
        node = RepeatBackward0()
        node.shape = data.shape
        node.repeats = repeats
        attach(out, node, input)
    return out


class RepeatBackward0(Node):
    __slots__ = ("shape", "repeats")

    def backward(self, grad):
        repeats = self.repeats
        if not repeats:
            return (grad,)
        padded = (1,) * (len(repeats) - len(self.shape)) + self.shape
        interleaved = []
        for r, s in zip(repeats, padded):
            interleaved += [r, s]
        summed = grad.reshape(interleaved).sum(tuple(range(0, 2 * len(repeats), 2)))
        return (summed.reshape(self.shape),)


def tile(input, *dims):
    """repeat() with missing leading repeats taken as 1."""
    dims = _ints(dims)
    lead = input._data.ndim - len(dims)
    return repeat(input, (1,) * lead + dims if lead > 0 else dims)


def flip(input, *args, dims=None):
    """A copy with the order of elements reversed along `dims`."""
    if args:
        dims = _ints(args)
    elif dims is None:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    else:
        dims = _ints((dims,))
    data = input._data
    axes = wrap_dims(dims, data.ndim)
    if data.dtype in _LIMITED:
        raise _refusal("flip_cpu", data.dtype)
    if data.ndim == 0:
        axes = ()  # a 0-d tensor accepts dim 0 or -1, and there is nothing to reverse
    out = make_tensor(input._device.xp.flip(data, axes).copy(), input._device)
    if grad_state.enabled and input._requires_grad:
        node = FlipBackward0()
        node.dims = axes
        attach(out, node, input)
    return out


class FlipBackward0(Node):
    __slots__ = ("dims",)

    def backward(self, grad):
        return (grad.flip(self.dims),)


def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def roll(input, shifts, dims=None):
    """A copy with elements shifted cyclically along `dims` (of the flattened tensor if None)."""
    data = input._data
    shifts = (shifts,) if not isinstance(shifts, (tuple, list)) else _ints(shifts)
    if dims is None:
        dims = ()
    dims = (dims,) if not isinstance(dims, (tuple, list)) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims and len(shifts) != len(dims) or not dims and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if data.ndim == 0 and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    axes = tuple(wrap_dim(d, data.ndim) for d in dims)
    xp = input._device.xp
    if axes:
        result = xp.roll(data, tuple(int(s) for s in shifts), axis=axes)
    else:
        result = xp.roll(data, int(shifts[0]))
    out = make_tensor(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = RollBackward0()
        node.shifts = shifts
        node.dims = axes
        attach(out, node, input)
    return out


class RollBackward0(Node):
    __slots__ = ("shifts", "dims")

    def backward(self, grad):
        back = tuple(-s for s in self.shifts)
        return (roll(grad, back, self.dims if self.dims else None),)


def rot90(input, k=1, dims=(0, 1)):
    """A copy rotated by 90 degrees `k` times, from dims[0] towards dims[1]."""
    data = input._data
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if data.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {data.ndim}")
    axes = (wrap_dim(dims[0], data.ndim), wrap_dim(dims[1], data.ndim))
    if axes[0] == axes[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    out = make_tensor(input._device.xp.rot90(data, k, axes).copy(), input._device)
    if grad_state.enabled and input._requires_grad:
        node = Rot90Backward0()
        node.k = k
        node.dims = axes
        attach(out, node, input)
    return out


class Rot90Backward0(Node):
    __slots__ = ("k", "dims")

    def backward(self, grad):
        return (rot90(grad, -self.k, self.dims),)
