"""The *_copy ops: each view op's result as fresh, contiguous memory.

PyTorch generates these for backends that cannot alias; their gradient is the view's
gradient and their node is the view's node with `_copy` appended (`ViewBackward0_copy`,
`SplitBackward0_copy`...). So each op here runs the view op of slicing.py/dims.py/views.py
once, copies the values out, and hands the result a `_ViewCopy` node that wraps the view's
node: the same edges, the same backward, the derived name. Only `narrow_copy` has a node of
its own name (`NarrowCopyBackward0`), and `detach_copy` is recorded but not differentiable.
"""
import operator

from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, contiguous, grad_state, make_tensor, wrap_dim
from ._elementwise import NotImplementedBackward
from .dims import _alias, permute, squeeze, t, transpose, unsqueeze
from .slicing import (_slice, as_strided, diagonal, narrow, select, split,
                      unbind, unfold)
from .slicing_more import split_with_sizes
from .views import ViewBackward0, _view_dtype, expand, view

__all__ = ["view_copy", "permute_copy", "transpose_copy", "t_copy", "expand_copy",
           "squeeze_copy", "unsqueeze_copy", "select_copy", "slice_copy", "split_copy",
           "split_with_sizes_copy", "unbind_copy", "diagonal_copy", "alias_copy", "detach_copy",
           "unfold_copy", "narrow_copy", "as_strided_copy", "values_copy", "indices_copy"]

_INT64_MAX = 2 ** 63 - 1


def _fresh(views, node_type=None):
    """Copies of `views` (one tensor or a tuple), sharing one copy node over the views' node."""
    single = isinstance(views, Tensor)
    outs = []
    copy_node = None
    for v in ((views,) if single else views):
        data = v._data
        out = make_tensor(contiguous(data.copy(order="C"), v._device.xp), v._device)
        if v.grad_fn is not None:
            if copy_node is None:
                copy_node = (node_type or _ViewCopy)(v.grad_fn)
            out.grad_fn = copy_node
            out._requires_grad = True
            out._output_nr = v._output_nr
        outs.append(out)
    return outs[0] if single else tuple(outs)


class _ViewCopy(Node):
    """A view's node under the copy op's name: PyTorch's generated `<ViewNode>_copy`."""

    __slots__ = ("view_node",)

    def __init__(self, view_node):
        Node.__init__(self, view_node.next_functions)
        self.view_node = view_node

    def name(self):
        return self.view_node.name() + "_copy"

    def backward(self, *grads):
        return self.view_node.backward(*grads)


# ---------------------------------------------------------------- shape and dim copies
def view_copy(input, *shape):
    """view's values in fresh memory; unlike view it also accepts strides view refuses."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _fresh(_view_dtype(input, shape[0]))
    try:
        return _fresh(view(input, *shape))
    except RuntimeError as error:
        if str(error) != _errors.VIEW_NOT_COMPATIBLE:
            raise
    # The values are those of the input read in order; the gradient is still view's.
    out = _fresh(view(input.detach().contiguous(), *shape))
    if grad_state.enabled and input._requires_grad:
        node = ViewBackward0()
        node.shape = input._data.shape
        attach(out, node, input)
        out.grad_fn = _ViewCopy(node)
    return out


def permute_copy(input, dims):
    return _fresh(permute(input, dims))


def transpose_copy(input, dim0, dim1):
    return _fresh(transpose(input, dim0, dim1))


def t_copy(input):
    return _fresh(t(input))


def expand_copy(input, size, *, implicit=False):
    return _fresh(expand(input, size))


def squeeze_copy(input, dim=None):
    return _fresh(squeeze(input, dim))


def unsqueeze_copy(input, dim):
    return _fresh(unsqueeze(input, dim))


def alias_copy(input):
    return _fresh(_alias(input))


# ---------------------------------------------------------------- slicing copies
def select_copy(input, dim, index):
    return _fresh(select(input, dim, index))


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """input[..., start:end:step] along `dim`, bounds clamped as PyTorch's slice clamps them."""
    ndim = input._data.ndim
    if ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = input._data.shape[dim]
    # operator.index refuses a bool or float tensor bound (PyTorch trips an assert there)
    start, end, _ = slice(0 if start is None else operator.index(start),
                          _INT64_MAX if end is None else operator.index(end)).indices(size)
    return _fresh(_slice(input, dim, start, max(start, end), step))


def split_copy(input, split_size, dim=0):
    return _fresh(split(input, split_size, dim))


def split_with_sizes_copy(input, split_sizes, dim=0):
    return _fresh(split_with_sizes(input, split_sizes, dim))


def unbind_copy(input, dim=0):
    return _fresh(unbind(input, dim))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    return _fresh(diagonal(input, offset, dim1, dim2))


def unfold_copy(input, dimension, size, step):
    return _fresh(unfold(input, dimension, size, step))


def as_strided_copy(input, size, stride, storage_offset=None):
    return _fresh(as_strided(input, size, stride, storage_offset))


def narrow_copy(input, dim, start, length):
    """narrow's values in fresh memory; PyTorch gives this one a node of its own name."""
    return _fresh(narrow(input, dim, start, length), NarrowCopyBackward0)


class NarrowCopyBackward0(_ViewCopy):
    __slots__ = ()

    def name(self):
        return "NarrowCopyBackward0"


# ---------------------------------------------------------------- detach, sparse parts
def detach_copy(input):
    """The values, detached in memory but (as in PyTorch) still marked as needing a
    gradient that it cannot give."""
    out = make_tensor(contiguous(input._data.copy(order="C"), input._device.xp),
                      input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, NotImplementedBackward("detach_copy"), input)
    return out


def values_copy(input):
    """Dense tensors have no sparse values: PyTorch's refusal."""
    raise RuntimeError("values expected sparse tensor layout but got Strided")


def indices_copy(input):
    raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

