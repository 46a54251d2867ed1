"""Selection and ordering ops: max/min, amax/amin, argmax, sort, topk, median, unique.

Part of the reduction family (re-exported by `reduction.py`). Ops
that pick elements (max along a dim, sort, topk, median, kthvalue, cummax)
send the gradient back to the picked positions with the public `scatter` (or
`scatter_add`), as PyTorch does, so double backward works. Ops
that reduce over ties (amax, max() without a dim, median() without a dim)
share the gradient evenly among the tied elements, as PyTorch does.

Orderings use NumPy's stable sort, so ties keep their input order; a
descending sort reverses, sorts stably and reverses back, which keeps ties in
input order too and puts NaN first (NaN counts as the largest value).
"""
import builtins

from .._dtype import is_floating as _is_floating
from .. import return_types as _rt
from .. import _arguments, _dtype  # noqa: F401
from ..autograd.graph import Node
from . import pointwise
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import dim_aliases, Tensor, attach, grad_state, wrap, wrap_dim
from .gather_scatter import scatter
from .pointwise_select import where
from .reduction import _constant, _kept, _reduce_axes

__all__ = ["max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "median", "kthvalue",
           "sort", "argsort", "msort", "topk", "unique"]

_BOOL_KIND = "b"


def _index_array(xp, shape):
    return xp.zeros(shape, dtype=xp.int64)


class _SelectBackward(Node):
    """Gradient of an op that picked `indices` along `dim`: scattered back to those places
    (with `scatter`, as PyTorch does; cummax/cummin, whose picks repeat, add them up)."""

    __slots__ = ("shape", "dim", "indices", "keepdim")
    _scatter = staticmethod(scatter)

    def backward(self, grad):
        if not self.shape:
            return (grad.reshape(()),)
        if not self.keepdim:
            grad = grad.unsqueeze(self.dim)
        return (self._scatter(grad.new_zeros(self.shape), self.dim, self.indices, grad),)


def _selected(result_type, node_type, input, values, indices, dim, keepdim):
    """`result_type(values, indices)`, recording `node_type` when the graph is on."""
    out = wrap(values, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        data = input._data
        node.shape, node.dim, node.keepdim = data.shape, dim, keepdim
        node.indices = wrap(indices if keepdim or not data.ndim else
                            input._device.xp.expand_dims(indices, dim), input._device)
        attach(out, node, input)
    return result_type(out, wrap(indices, input._device))


class _EvenlyBackward(Node):
    """Gradient of max()/min()/median() without a dim: shared evenly among the ties (or NaNs)."""

    __slots__ = ()

    def backward(self, grad):
        input, result = self.saved_tensors
        data, value = input._data, result._data
        xp = input._device.xp
        hit = xp.isnan(data) if _is_floating(data.dtype) and xp.isnan(value) else data == value
        # PyTorch's CPU formula: zeros, masked_fill(hit, grad / count). A product with a
        # 0/1 weight would round grad * (1/count) instead, and turn an inf or NaN gradient
        # into NaN at every element that is not a maximum.
        return (where(_constant(hit, input._device), grad / int(hit.sum()), 0.0),)


# ---------------------------------------------------------------- max / min
def _invalid_dim(name, dim):
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({type(dim).__name__}), but expected one of:\n * ()\n * (Tensor other)\n"
                     " * (int dim, bool keepdim = False)\n")


def max(input, dim=None, keepdim=False, **aliases):
    """max(): the largest value; max(dim): (values, indices); max(other): `maximum`."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    if input._data.dtype in _LIMITED and not isinstance(dim, Tensor):
        raise _refusal("max_all" if dim is None else "max_cpu", input._data.dtype)
    if dim is None:
        return _extreme(input, "max", MaxBackward1)
    if isinstance(dim, Tensor):
        return pointwise.maximum(input, dim)
    return _extreme_along(input, dim, keepdim, "max", _rt.max, MaxBackward0)


class MaxBackward1(_EvenlyBackward):
    __slots__ = ()


class MaxBackward0(_SelectBackward):
    __slots__ = ()


def min(input, dim=None, keepdim=False, **aliases):
    """min(): the smallest value; min(dim): (values, indices); min(other): `minimum`."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    if input._data.dtype in _LIMITED and not isinstance(dim, Tensor):
        raise _refusal("min_all" if dim is None else "min_cpu", input._data.dtype)
    if dim is None:
        return _extreme(input, "min", MinBackward1)
    if isinstance(dim, Tensor):
        return pointwise.minimum(input, dim)
    return _extreme_along(input, dim, keepdim, "min", _rt.min, MinBackward0)


class MinBackward1(_EvenlyBackward):
    __slots__ = ()


class MinBackward0(_SelectBackward):
    __slots__ = ()


def _no_identity(name):
    return RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                        "Specify the reduction dim with the 'dim' argument.")


def _extreme(input, name, node_type):
    data = input._data
    if data.size == 0:
        raise _no_identity(name)
    out = wrap(data.max() if name == "max" else data.min(), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


def _dim_along(input, dim, name):
    """The wrapped dim of a one-dim selection, refusing an empty one."""
    if isinstance(dim, bool) or not hasattr(dim, "__index__"):
        raise _invalid_dim(name, dim)
    data = input._data
    d = wrap_dim(dim, data.ndim)
    if data.ndim and data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return d


def _extreme_along(input, dim, keepdim, name, result_type, node_type):
    data = input._data
    d = _dim_along(input, dim, name)
    xp = input._device.xp
    if not data.ndim:
        values, indices = data.copy(), _index_array(xp, ())
    else:
        picker = xp.argmax if name == "max" else xp.argmin
        indices = picker(data, axis=d, keepdims=True)
        values = xp.take_along_axis(data, indices, d)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    return _selected(result_type, node_type, input, values, indices, d, keepdim)


# ---------------------------------------------------------------- amax / amin / aminmax
def amax(input, dim=(), keepdim=False, **aliases):
    """The maximum over `dim` (all dims when empty); ties share the gradient."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    return _amax_amin(input, dim, keepdim, "amax", AmaxBackward0)


def amin(input, dim=(), keepdim=False, **aliases):
    """The minimum over `dim` (all dims when empty); ties share the gradient."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    return _amax_amin(input, dim, keepdim, "amin", AminBackward0)


def _amax_amin(input, dim, keepdim, name, node_type):
    data = input._data
    if data.dtype in _LIMITED:
        raise _refusal(f"{name[1:]}_values_cpu", data.dtype)
    axes = _reduce_axes(input, dim)
    if data.size == 0:
        if axes is None:
            raise _no_identity(name)
        given = (dim,) if hasattr(dim, "__index__") else tuple(dim)
        for raw, axis in zip(given, axes):
            if data.shape[axis] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {raw} to have non-zero size.")
    reducer = data.max if name == "amax" else data.min
    out = wrap(reducer(axis=axes, keepdims=keepdim), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_type()
        node.axes, node.keepdim = axes, keepdim
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


def _shared_among_ties(grad, input, result, axes, keepdim):
    """grad / (number of ties) at every element equal to the result, as PyTorch scales it:
    (grad / count) * mask, so the division rounds as PyTorch's does (a weight of 1/count
    would round the product differently)."""
    data = input._data
    value = _kept(result, data.shape, axes, keepdim)._data
    hit = data == value
    count = hit.sum(axis=axes, keepdims=True).astype(data.dtype)
    device = input._device
    return (_kept(grad, data.shape, axes, keepdim) / _constant(count, device)) * \
        _constant(hit.astype(data.dtype), device)


class AmaxBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def backward(self, grad):
        input, result = self.saved_tensors
        return (_shared_among_ties(grad, input, result, self.axes, self.keepdim),)


class AminBackward0(AmaxBackward0):
    __slots__ = ()


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) over `dim` (all dims when None), as `ember.return_types.aminmax`."""
    data = input._data
    if data.dtype in _LIMITED:
        raise _refusal("aminmax_cpu", data.dtype)
    if dim is None:
        if data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        axes = None
    else:
        d = wrap_dim(dim, data.ndim)
        if data.ndim and data.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        axes = (d,) if data.ndim else None
    low = wrap(data.min(axis=axes, keepdims=keepdim), input._device)
    high = wrap(data.max(axis=axes, keepdims=keepdim), input._device)
    if grad_state.enabled and input._requires_grad:
        node = AminmaxBackward0()
        node.axes, node.keepdim = axes, keepdim
        node.save(input)
        node.save_output(low, 0)
        node.save_output(high, 1)
        attach(low, node, input)
        high.grad_fn, high._requires_grad, high._output_nr = node, True, 1
    return _rt.aminmax(low, high)


class AminmaxBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def backward(self, grad_min=None, grad_max=None):
        input, low, high = self.saved_tensors
        total = None
        for grad, result in ((grad_min, low), (grad_max, high)):
            if grad is not None:
                part = _shared_among_ties(grad, input, result, self.axes, self.keepdim)
                total = part if total is None else total + part
        return (total,)


# ---------------------------------------------------------------- argmax / argmin
def argmax(input, dim=None, keepdim=False, **aliases):
    """The index of the (first) largest value, over the flattened input when dim is None."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    return _arg_extreme(input, dim, keepdim, "argmax")


def argmin(input, dim=None, keepdim=False, **aliases):
    """The index of the (first) smallest value, over the flattened input when dim is None."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    return _arg_extreme(input, dim, keepdim, "argmin")


def _arg_extreme(input, dim, keepdim, name):
    data = input._data
    xp = input._device.xp
    if data.dtype.kind == _BOOL_KIND:
        raise RuntimeError(f"{name}(): does not support bool input")
    if data.dtype in _LIMITED:
        raise _refusal(f"{name}_cpu", data.dtype)
    picker = xp.argmax if name == "argmax" else xp.argmin
    if dim is None:
        if data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        result = picker(data)
        if keepdim:
            result = xp.asarray(result).reshape((1,) * data.ndim)
    else:
        d = wrap_dim(dim, data.ndim)
        if data.ndim and data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        result = picker(data, axis=d, keepdims=keepdim) if data.ndim else _index_array(xp, ())
    return wrap(xp.asarray(result).astype(xp.int64, copy=False), input._device)


# ---------------------------------------------------------------- sort / argsort / topk
def _argsort(data, axis, descending, xp):
    """A stable argsort; descending keeps ties in input order and puts NaN first."""
    if not descending:
        return xp.argsort(data, axis=axis, kind="stable")
    order = xp.argsort(xp.flip(data, axis), axis=axis, kind="stable")
    return xp.flip(data.shape[axis] - 1 - order, axis)


def sort(input, dim=-1, descending=False, *, stable=None):
    """(values, indices) sorted along `dim`; always stable here (PyTorch allows any order).

    Passing `stable` at all selects PyTorch's other overload, hence SortBackward1.
    """
    data = input._data
    xp = input._device.xp
    d = wrap_dim(dim, data.ndim)
    if not data.ndim:
        values, indices = data.copy(), _index_array(xp, ())
    else:
        indices = _argsort(data, d, descending, xp)
        values = xp.take_along_axis(data, indices, d)
    node_type = SortBackward0 if stable is None else SortBackward1
    return _selected(_rt.sort, node_type, input, values, indices, d, True)


class SortBackward0(_SelectBackward):
    __slots__ = ()


class SortBackward1(_SelectBackward):
    __slots__ = ()


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort `input` along `dim`."""
    data = input._data
    xp = input._device.xp
    d = wrap_dim(dim, data.ndim)
    if not data.ndim:
        return wrap(_index_array(xp, ()), input._device)
    return wrap(_argsort(data, d, descending, xp), input._device)


def msort(input):
    """Sorted along the first dim."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) values along `dim` and their indices, largest first."""
    data = input._data
    xp = input._device.xp
    if data.dtype.kind == _BOOL_KIND:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if data.dtype in _LIMITED:
        raise _refusal("topk_cpu", data.dtype)
    d = wrap_dim(dim, data.ndim)
    size = data.shape[d] if data.ndim else 1
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    if not data.ndim:
        values, indices = data.copy(), _index_array(xp, ())
    else:
        order = _argsort(data, d, largest, xp)
        indices = xp.take(order, xp.arange(k), axis=d)
        values = xp.take_along_axis(data, indices, d)
    return _selected(_rt.topk, TopkBackward0, input, values, indices, d, True)


class TopkBackward0(_SelectBackward):
    __slots__ = ()


# ---------------------------------------------------------------- median / kthvalue
def _not_for_bool(data, kernel):
    if data.dtype.kind == _BOOL_KIND:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if data.dtype in _LIMITED:
        raise _refusal(kernel, data.dtype)


def _kth_along(input, d, position, keepdim):
    """(values, indices) of the element at sorted `position` along d; NaN sorts last.

    `position` is an int or, for median, an array that already points slices
    holding NaN at their first NaN.
    """
    data = input._data
    xp = input._device.xp
    if not data.ndim:
        return data.copy(), _index_array(xp, ())
    order = xp.argsort(data, axis=d, kind="stable")
    if isinstance(position, int):
        shape = list(data.shape)
        shape[d] = 1
        position = xp.full(shape, position, dtype=xp.int64)
    indices = xp.take_along_axis(order, position, d)
    values = xp.take_along_axis(data, indices, d)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return values, indices


def median(input, dim=None, keepdim=False, **aliases):
    """The lower median: of all elements (a value), or along `dim` (values, indices)."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    data = input._data
    xp = input._device.xp
    if dim is None:
        flat = data.reshape(-1)
        if flat.size == 0:
            value = xp.asarray(_empty_median(input), data.dtype)
        elif (_not_for_bool(data, "median_cpu")
              or _is_floating(data.dtype) and xp.isnan(flat).any()):
            value = xp.asarray(xp.nan, dtype=data.dtype)
        else:
            value = xp.sort(flat)[(flat.size - 1) // 2]
        out = wrap(xp.asarray(value), input._device)
        if grad_state.enabled and input._requires_grad:
            node = MedianBackward0()
            node.save(input)
            node.save_output(out)
            attach(out, node, input)
        return out
    _not_for_bool(data, "median_out")
    d = _dim_along(input, dim, "median")
    position = None
    if data.ndim:
        size = data.shape[d]
        position = (size - 1) // 2
        if _is_floating(data.dtype):
            nans = xp.isnan(data).sum(axis=d, keepdims=True)
            position = xp.where(nans > 0, size - nans, position).astype(xp.int64)
    values, indices = _kth_along(input, d, position, keepdim)
    return _selected(_rt.median, MedianBackward1, input, values, indices, d, keepdim)


def _empty_median(input):
    """PyTorch's median of nothing: NaN, converted to the dtype as C++ converts it.

    x86 turns NaN into the 32-bit 0x80000000 (or 64-bit minimum); narrower integers keep
    its low bits, 0; bool is True.
    """
    dtype = input.dtype
    if dtype.is_floating_point:
        return float("nan")
    if dtype is _dtype.bool:
        return True
    itemsize = input._data.itemsize
    return 0 if itemsize < 4 else -(1 << (8 * itemsize - 1))


class MedianBackward0(_EvenlyBackward):
    __slots__ = ()


class MedianBackward1(_SelectBackward):
    __slots__ = ()


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along `dim` (1-based) and its index."""
    data = input._data
    d = _dim_along(input, dim, "kthvalue")
    size = data.shape[d] if data.ndim else 1
    if k < 1 or k > size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if data.ndim:  # the kernel's dtype check comes after the dim and k checks
        _not_for_bool(data, "kthvalue_cpu")
    values, indices = _kth_along(input, d, k - 1, keepdim)
    return _selected(_rt.kthvalue, KthvalueBackward0, input, values, indices, d, keepdim)


class KthvalueBackward0(_SelectBackward):
    __slots__ = ()


# ---------------------------------------------------------------- unique
_NO_INT_DIM = frozenset({type(None), int})


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (or slices along `dim`), sorted; NaNs are each distinct.

    PyTorch's unique is Python, calling C++ _unique2 or (with a dim) unique_dim with its
    flags as keywords: their parsers refuse a flag that is no bool."""
    if (sorted.__class__ is not bool or return_inverse.__class__ is not bool
            or return_counts.__class__ is not bool or dim.__class__ not in _NO_INT_DIM):
        flags = {"sorted": sorted, "return_inverse": return_inverse,
                 "return_counts": return_counts}
        if dim is None:
            _arguments.check("_unique2", (input,), flags)
        else:
            _arguments.check("unique_dim", (input, dim), flags)
    data = input._data
    xp = input._device.xp
    if dim is None:
        found = xp.unique(data.reshape(-1), return_inverse=True, return_counts=True,
                          equal_nan=False)
        node_type = Unique2Backward0
        inverse_shape = data.shape
    else:
        if not data.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = wrap_dim(dim, data.ndim)
        if builtins.any(s == 0 for i, s in enumerate(data.shape) if i != d):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so "
                               "unique cannot be applied")
        node_type = UniqueDimBackward0
        inverse_shape = (data.shape[d],)
        if data.shape[d] == 0:
            found = (data, _index_array(xp, (0,)), _index_array(xp, (0,)))
        else:
            found = xp.unique(data, return_inverse=True, return_counts=True, axis=d)
    values, inverse, counts = found
    out = wrap(values, input._device)
    if grad_state.enabled and input._requires_grad:
        attach(out, node_type(), input)
    results = [out]
    if return_inverse:
        inverse = inverse.reshape(inverse_shape).astype(xp.int64, copy=False)
        results.append(wrap(inverse, input._device))
    if return_counts:
        results.append(wrap(counts.astype(xp.int64, copy=False), input._device))
    return results[0] if len(results) == 1 else tuple(results)


class Unique2Backward0(Node):
    __slots__ = ()

    def backward(self, grad):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


class UniqueDimBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        raise NotImplementedError("the derivative for 'unique_dim' is not implemented.")
