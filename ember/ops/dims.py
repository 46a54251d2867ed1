"""Dimension bookkeeping views: transpose/permute/movedim, squeeze/unsqueeze, in-place forms.

Each result is a view with PyTorch's strides; none of these ops moves data. The
in-place forms (`t_`, `transpose_`, `squeeze_`, `unsqueeze_`) give the tensor
itself the new shape and strides.
"""
import warnings

from .. import _backend
from ..autograd.graph import Node
from ._common import (_check_inplace_allowed, attach, grad_state, make_view, wrap_dim,
                      wrap_dim_list)

__all__ = []


def _shape_arg(shape):
    """Accept view(2, 3), view((2, 3)) and view([2, 3])."""
    if len(shape) == 1 and not isinstance(shape[0], int) and not hasattr(shape[0], "__index__"):
        shape = shape[0]
    return tuple(s if s.__class__ is int else s.__index__() for s in shape)


def _record(out, node, input):
    """Attach `node` when the graph is being recorded; the common tail of a view op."""
    if grad_state.enabled and input._requires_grad:
        attach(out, node, input)
    return out


# ---------------------------------------------------------------- transposes, permutes
def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    return _transpose(input, dim0, dim1, TransposeBackward0)


swapaxes = swapdims = transpose


def _transpose(input, dim0, dim1, node_type):
    data = input._data
    dim0 = wrap_dim(dim0, data.ndim)
    dim1 = wrap_dim(dim1, data.ndim)
    out = make_view(data.swapaxes(dim0, dim1) if data.ndim else data.view(), input)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.dim0 = dim0
        node.dim1 = dim1
        attach(out, node, input)
    return out


class TransposeBackward0(Node):
    __slots__ = ("dim0", "dim1")

    def backward(self, grad):
        return (grad.transpose(self.dim0, self.dim1),)


class TransposeBackward1(TransposeBackward0):
    __slots__ = ()


def transpose_(input, dim0, dim1):
    return _inplace_view(input, _transpose, dim0, dim1, TransposeBackward1)


def t(input):
    """Transpose a matrix; 0-D and 1-D tensors come back as views of themselves."""
    return _t(input, TBackward0)


def _t(input, node_type, name="t"):
    ndim = input._data.ndim
    if ndim > 2:
        raise RuntimeError(f"{name}() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    out = make_view(input._data.T, input)
    return _record(out, node_type(), input)


class TBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad.t(),)


class TBackward1(TBackward0):
    __slots__ = ()


def t_(input):
    return _inplace_view(input, _t, TBackward1, "t_")


def T(input):
    """`x.T`: all dims reversed, with PyTorch's deprecation warnings for non-matrices."""
    ndim = input._data.ndim
    if ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=3)
    elif ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.", UserWarning, stacklevel=3)
    return permute(input, tuple(range(ndim - 1, -1, -1)))


def mT(input, name="tensor.mT", zero_dim_warning="Tensor.mT is deprecated on 0-D tensors. "
       "This function is the identity in these cases."):
    """The last two dims swapped (batches of matrices)."""
    ndim = input._data.ndim
    if ndim == 0:
        warnings.warn(zero_dim_warning, UserWarning, stacklevel=3)
        return input
    if ndim < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got "
                           f"{ndim}-D tensor.")
    return transpose(input, -2, -1)


def mH(input):
    return mT(input, "tensor.mH", "Tensor.mH is deprecated on 0-D tensors. Consider using "
              "x.conj().")


def adjoint(input):
    """The conjugate transpose of the last two dims (a plain transpose for real tensors)."""
    return mT(input, "tensor.adjoint()", "adjoint() is deprecated on 0-D tensors. Consider "
              "using x.conj().")


def H(input):
    """The conjugate transpose of a matrix."""
    ndim = input._data.ndim
    if ndim == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=3)
        return input
    if ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D "
                           f"tensor.{hint}")
    return transpose(input, 0, 1)


def permute(input, *args, dims=None):
    """Reorder the dims (a view)."""
    data = input._data
    dims = _shape_arg(args) if args else tuple(dims or ())
    ndim = data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{ndim} is not equal to len(dims) = {len(dims)}")
    dims = wrap_dim_list(dims, ndim)
    if len(set(dims)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = make_view(data.transpose(dims), input)
    if grad_state.enabled and input._requires_grad:
        node = PermuteBackward0()
        node.dims = dims
        attach(out, node, input)
    return out


class PermuteBackward0(Node):
    __slots__ = ("dims",)

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return (grad.permute(inverse),)


def movedim(input, source, destination):
    """Move dims from `source` to `destination`, keeping the others in order (a permute)."""
    ndim = input._data.ndim
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
            f"contain the same number of dims as destination ({list(destination)} dims)")
    src = tuple(wrap_dim(d, ndim) for d in source)
    dst = tuple(wrap_dim(d, ndim) for d in destination)
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:
        return _alias(input)
    order = [None] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return permute(input, order)


moveaxis = movedim


def _alias(input):
    """A view of the whole tensor, as PyTorch returns where an op has nothing to do."""
    return _record(make_view(input._data.view(), input), AliasBackward0(), input)


class AliasBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


# ---------------------------------------------------------------- squeeze, unsqueeze
def squeeze(input, dim=None):
    """Drop size-1 dims (all, one, or a tuple of them); other dims are left alone."""
    if dim is None:
        node_type = SqueezeBackward0
    elif isinstance(dim, (tuple, list)):
        node_type = SqueezeBackward2
    else:
        node_type = SqueezeBackward1
    return _squeeze(input, dim, node_type)


def _squeeze(input, dim, node_type):
    data = input._data
    shape = data.shape
    if dim is None:
        dims = range(len(shape))
    elif isinstance(dim, (tuple, list)):
        dims = wrap_dim_list(dim, len(shape))
        if len(set(dims)) != len(dims):
            for d in dims:
                if dims.count(d) > 1:
                    raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    else:
        dims = (wrap_dim(dim, len(shape)),)
    axes = tuple(d for d in dims if d < len(shape) and shape[d] == 1)
    out = make_view(data.squeeze(axes) if axes else data.view(), input)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.shape = shape
        attach(out, node, input)
    return out


class SqueezeBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.reshape(self.shape),)


class SqueezeBackward1(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward2(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward3(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward4(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward5(SqueezeBackward0):
    __slots__ = ()


def squeeze_(input, dim=None):
    if dim is None:
        node_type = SqueezeBackward3
    elif isinstance(dim, (tuple, list)):
        node_type = SqueezeBackward5
    else:
        node_type = SqueezeBackward4
    return _inplace_view(input, _squeeze, dim, node_type)


def unsqueeze(input, dim):
    """Insert a size-1 dim at `dim` (which may be one past the last)."""
    return _unsqueeze(input, dim, UnsqueezeBackward0)


def _unsqueeze(input, dim, node_type):
    data = input._data
    dim = wrap_dim(dim, data.ndim + 1)
    shape, strides = data.shape, data.strides
    # PyTorch gives the new dim the stride that keeps the layout contiguous-looking.
    stride = shape[dim] * strides[dim] if dim < data.ndim else data.itemsize
    new_shape = shape[:dim] + (1,) + shape[dim:]
    new_strides = strides[:dim] + (stride,) + strides[dim:]
    result = data.reshape(new_shape, copy=False)  # cheap, and usually already right
    if result.strides != new_strides:
        result = _backend.as_strided(data, new_shape, new_strides)
    out = make_view(result, input)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.dim = dim
        attach(out, node, input)
    return out


class UnsqueezeBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        return (grad.squeeze(self.dim),)


class UnsqueezeBackward1(UnsqueezeBackward0):
    __slots__ = ()


def unsqueeze_(input, dim):
    return _inplace_view(input, _unsqueeze, dim, UnsqueezeBackward1)


def _inplace_view(self, op, *args):
    """Give `self` the shape and strides of `op(self, *args)`; its memory is untouched.

    Like every in-place op it bumps the version and, when recording, takes over the
    new node as its history.
    """
    if grad_state.enabled:
        _check_inplace_allowed(self)
    result = op(self, *args)
    self._data = result._data
    self._storage.version += 1
    if result.grad_fn is not None:
        self.grad_fn = result.grad_fn
        self._output_nr = 0
    return self
