"""Ops that repeat, pair and combine elements: repeat_interleave, take_along_dim, kron,
block_diag, cartesian_prod, combinations and vander.

Where PyTorch composes an op from others (its grad_fn shows the last of them:
repeat_interleave's ViewBackward0, kron's UnsafeViewBackward0, cartesian_prod's
StackBackward0, vander's FlipBackward0), ember composes it from the same ember ops,
so the gradients and node names come with them. block_diag has a node of
its own, as in PyTorch (cross lives with linalg.cross, in linalg_functions).
"""
import itertools

from .. import _dtype
from ..autograd.graph import Node
from .._device import CPU
from ._common import Tensor, any_requires_grad, attach, wrap, wrap_dim
from ._elementwise import unsupported
from .joining import cat, stack
from .ranges import meshgrid
from .views import _unsafe_view

__all__ = ["repeat_interleave", "take_along_dim", "kron", "block_diag", "cartesian_prod",
           "combinations", "vander"]

_INT64 = _dtype.int64.np_dtype


# ---------------------------------------------------------------- repeat_interleave
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element (or slice along `dim`) `repeats` times, in place of itself."""
    if repeats is None:  # repeat_interleave(counts): indices 0.. each repeated counts[i] times
        return _repeat_indices(input, output_size)
    if dim is None:
        input = input.flatten()
        dim = 0
    else:
        dim = wrap_dim(dim, input.dim())
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = input.shape[dim] if input.dim() else 1
        if repeats.numel() == 1:  # one count for every slice, still through index_select
            repeats = repeats.reshape(1).expand(size)
        elif repeats.shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size({dim}) = "
                               f"{size}")
        index = _repeat_indices(repeats, output_size)
        return input.index_select(dim, index)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(input.shape) or [1]
    if output_size is not None and output_size != shape[dim] * repeats:
        raise RuntimeError("allocated size does not match required size")
    expanded = (input if input.dim() else input.reshape(shape)).unsqueeze(dim + 1)
    sizes = shape[:dim + 1] + [repeats] + shape[dim + 1:]
    shape[dim] *= repeats
    return expanded.expand(sizes).contiguous().view(shape)


def _repeat_indices(repeats, output_size):
    """arange(len(repeats)) with element i repeated repeats[i] times (int64)."""
    counts = repeats._data
    if counts.dtype.kind not in "iu":
        raise unsupported("repeat_interleave_cpu", counts)
    if counts.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = counts.reshape(-1)
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    xp = repeats._device.xp
    return wrap(xp.repeat(xp.arange(counts.size, dtype=_INT64), counts), repeats._device)


# ---------------------------------------------------------------- take_along_dim
def take_along_dim(input, indices, dim=None):
    """gather() with indices broadcast against input: NumPy's take_along_axis."""
    if dim is None:  # PyTorch goes straight to gather, with gather's checks
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if indices._data.dtype != _INT64:
        raise RuntimeError(f"ember.take_along_dim(): dtype of indices should be Long but got "
                           f"{_dtype.FROM_NUMPY[indices._data.dtype].tensor_type[:-6]}")
    dim = wrap_dim(dim, input.dim())
    input_shape, index_shape = list(input.shape), list(indices.shape)
    input_shape[dim] = index_shape[dim] = 1
    broadcast = _broadcast_shape(input_shape, index_shape)
    input_shape, index_shape = list(broadcast), list(broadcast)
    input_shape[dim], index_shape[dim] = input.shape[dim], indices.shape[dim]
    return input.expand(input_shape).gather(dim, indices.expand(index_shape))


def _broadcast_shape(a, b):
    if len(a) != len(b):
        raise RuntimeError(f"ember.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {len(a)} dimensions for input, "
                           f"and {len(b)} dimensions for indices")
    shape = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        shape.append(max(x, y) if x and y else 0)
    return shape


# ---------------------------------------------------------------- products of tensors
def kron(input, other):
    """The Kronecker product: every element of input times the whole of other."""
    ndim = max(input.dim(), other.dim())
    a_shape = [1] * (ndim - input.dim()) + list(input.shape)
    b_shape = [1] * (ndim - other.dim()) + list(other.shape)
    a_view = [s for size in a_shape for s in (size, 1)]
    b_view = [s for size in b_shape for s in (1, size)]
    product = input.reshape(a_view) * other.reshape(b_view)
    return _unsafe_view(product, tuple(x * y for x, y in zip(a_shape, b_shape)))


def block_diag(*tensors):
    """The tensors (at most 2-d) as blocks down the diagonal of a zero matrix."""
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"ember.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
    shapes = [tuple(t.shape) for t in tensors]
    blocks = [(1, 1) if len(s) == 0 else (1, s[0]) if len(s) == 1 else s for s in shapes]
    rows, columns = sum(b[0] for b in blocks), sum(b[1] for b in blocks)
    if not tensors:
        return wrap(CPU.xp.empty((1, 0), _dtype._defaults.float_dtype.np_dtype), CPU)
    dtype = _dtype._result_type_many(list(tensors)).np_dtype
    device = tensors[0]._device
    xp = device.xp
    result = xp.zeros((rows, columns), dtype)
    r = c = 0
    for t, (h, w) in zip(tensors, blocks):
        result[r:r + h, c:c + w] = t._data.reshape(h, w)
        r, c = r + h, c + w
    out = wrap(result, device)
    if any_requires_grad(*tensors):
        node = BlockDiagBackward0()
        node.layout = list(zip(shapes, blocks))
        attach(out, node, *tensors)
    return out


class BlockDiagBackward0(Node):
    __slots__ = ("layout",)

    def backward(self, grad):
        grads, r, c = [], 0, 0
        for shape, (h, w) in self.layout:
            grads.append(grad[r:r + h, c:c + w].reshape(shape))
            r, c = r + h, c + w
        return tuple(grads)


def cartesian_prod(*tensors):
    """Every tuple taking one element from each 1-d tensor, as rows."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of a 1-d tensor's elements, as rows (itertools order)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(input._device.xp.empty((0,), input._data.dtype), input._device)
    pick = itertools.combinations_with_replacement if with_replacement else (
        itertools.combinations)
    xp = input._device.xp
    rows = xp.asarray(list(pick(range(input.shape[0]), r)), dtype=_INT64).reshape(-1, r)
    columns = [wrap(xp.ascontiguousarray(rows[:, k]), input._device) for k in range(r)]
    return stack([input.index_select(0, column) for column in columns], 1)


def vander(x, N=None, increasing=False):
    """Columns of powers of x (decreasing unless `increasing`), by cumprod as PyTorch."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is None:
        N = n
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "iub":
        x = x.to(_dtype.int64)
    column = x.unsqueeze(1)
    if N <= 1:  # ones (or nothing), not a function of x: no graph, as PyTorch
        result = column.new_ones((n, N))
    else:
        result = cat([column.new_ones((n, 1)), column.expand(n, N - 1)], 1).cumprod(1)
    return result if increasing else result.flip(1)
