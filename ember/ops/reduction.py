"""Reductions: sum, mean, prod, std/var, norm, logsumexp, all/any.

Each op is its public function followed by its backward node. `dim` may be an
int, a tuple, or None (all dimensions); `keepdim` keeps reduced dims as size 1.
A backward first gives the incoming gradient back its reduced dims (size 1,
`_kept`), then lets broadcasting spread it over the input. Masks that only
select where a gradient goes (ties of a max, zeros of a norm) are constants:
their derivative is zero, so double backward stays exact.

`norm` is a door into linalg's `vector_norm` (norms.py), as in PyTorch.
Selection ops (max/min, sort, topk, median, unique) live in `sorting.py` and
cumulative ops in `cumulative.py`; both are re-exported here, so
`ember/_tensor.py` and `ember/__init__.py` reach the whole family through
this module.
"""
import builtins
import math
import warnings

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _backend, _diagnose, _dtype
from ..autograd.graph import Node
from . import pointwise
from .joining import cat
from .pointwise_select import where
from .norms import (LinalgVectorNormBackward0, matrix_norm,  # noqa: F401 - re-exported
                    vector_norm)
from ._dim_sum import float_sum
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import dim_aliases, attach, grad_state, make_tensor, plain, wrap, wrap_dims

__all__ = ["sum", "nansum", "mean", "nanmean", "prod", "std", "var", "std_mean", "var_mean",
           "norm", "logsumexp", "all", "any", "count_nonzero"]

_INT64 = _dtype.int64.np_dtype
_FLOAT32 = _dtype.float32.np_dtype
_FLOAT64 = _dtype.float64.np_dtype
_NDARRAY = _backend.numpy.ndarray
_ADD_REDUCE = _backend.numpy.add.reduce
# Half-precision sums accumulate in float32, as PyTorch's CPU kernels do.
_ACCUMULATE = _dtype.COMPUTED_IN_FLOAT32  # float16 (and bfloat16 once loaded) -> float32


# ---------------------------------------------------------------- shared helpers
def _plain_sum(data, axes, keepdim, dtype=None):
    """data summed over `axes` (None: all): float32/float64 in PyTorch's order where
    `_dim_sum` replays it, else as `ndarray.sum` computes it.

    On NumPy the ufunc is called from ember's modules: `ndarray.sum` goes through NumPy's
    Python wrapper, so an overflow or inf - inf warned from numpy/_core/_methods.py, past
    the filter that keeps ember as silent as PyTorch (it covers ember's own modules)."""
    if type(data) is _NDARRAY:
        if dtype is None:
            # float32/float64: PyTorch's own summation order, so that a printed
            # loss.item() or x.sum(0) agrees to the last digit
            return float_sum(data, axes, keepdim)
        return _ADD_REDUCE(data, axes, dtype, None, keepdim)
    return data.sum(axis=axes, keepdims=keepdim, dtype=dtype)


def _reduce_axes(input, dim):
    """None for a reduction over every dim (dim None or empty), else a tuple of dims."""
    if dim is None:
        return None
    ndim = input._data.ndim
    axes = wrap_dims(dim, ndim)
    return axes if axes and ndim else None


def _kept_shape(shape, axes):
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _kept(grad, shape, axes, keepdim):
    """`grad` with the reduced dims restored as size 1, so it broadcasts over the input."""
    if keepdim:
        return grad
    return grad.reshape(_kept_shape(shape, axes))


def _kept_array(array, shape, axes, keepdim):
    return array if keepdim else array.reshape(_kept_shape(shape, axes))


def _count(shape, axes):
    """How many elements each output element reduces over."""
    n = 1
    for i, s in enumerate(shape):
        if axes is None or i in axes:
            n *= s
    return n


def _constant(array, device):
    """A tensor outside the graph (a mask or a weight used in a backward)."""
    return make_tensor(array, device)


def _type_name(data):
    return _dtype.FROM_NUMPY[data.dtype].tensor_type[:-6]


def _integral_result(data, dtype):
    """The dtype a sum/prod returns: `dtype`, else int64 for integers and bools."""
    if dtype is not None:
        return dtype.np_dtype
    if data.dtype.kind in "iub":
        return _INT64
    return data.dtype


_UFUNC_REDUCERS = {"sum": _backend.numpy.add.reduce, "prod": _backend.numpy.multiply.reduce,
                   "nansum": _backend.numpy.nansum}


def _summed(input, axes, keepdim, out_dtype, reducer):
    """`reducer` ('sum', 'prod', 'nansum') in out_dtype, accumulating half precision in float32."""
    data = input._data
    xp = input._device.xp
    # NumPy's ufunc methods, called from here: np.sum/np.prod's Python wrappers would warn
    # about an overflow or inf * 0 from numpy's own module, past ember's warning filter
    reducer = _UFUNC_REDUCERS[reducer] if xp is _backend.numpy else getattr(xp, reducer)
    if data.dtype != out_dtype and data.dtype.kind not in "iub":
        data = data.astype(out_dtype)
    accumulate = _ACCUMULATE.get(out_dtype, out_dtype)
    if accumulate is not out_dtype:
        # widen first: NumPy's nan-reducers treat bfloat16 (not np.inexact) as NaN-free
        data = data.astype(accumulate)
    result = reducer(data, axis=axes, keepdims=keepdim, dtype=accumulate)
    if accumulate is not out_dtype:
        result = result.astype(out_dtype)
    return result


# ---------------------------------------------------------------- sum / nansum
class _AllDims:
    """sum's and mean's default dim: PyTorch records SumBackward0 / MeanBackward0 only when
    no dim is given; an explicit dim=None picks the dim overload (SumBackward1)."""
    __slots__ = ()

    def __repr__(self):
        return "None"


_ALL_DIMS = _AllDims()


def sum(input, dim=_ALL_DIMS, keepdim=False, *, dtype=None, **aliases):
    """Sum over `dim` (all dims when None); integers and bools sum as int64."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    whole = dim is _ALL_DIMS
    if whole:
        dim = None
    data = input._data
    axes = _reduce_axes(input, dim)
    if dtype is None and _is_floating(data.dtype) and data.dtype not in _ACCUMULATE:
        result = _plain_sum(data, axes, keepdim)   # the fast path
    else:
        result = _summed(input, axes, keepdim, _integral_result(data, dtype), "sum")
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = SumBackward0() if whole else SumBackward1()
        node.shape = data.shape
        node.axes = axes
        node.keepdim = keepdim
        node.dtype = input.dtype if data.dtype != out._data.dtype else None
        attach(out, node, input)
    return out


class SumBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim", "dtype")

    def backward(self, grad):
        grad = _kept(grad, self.shape, self.axes, self.keepdim).expand(self.shape)
        return (grad if self.dtype is None else grad.to(self.dtype),)


class SumBackward1(SumBackward0):
    __slots__ = ()


def nansum(input, dim=None, keepdim=False, *, dtype=None, **aliases):
    """Sum treating NaN as zero."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    data = input._data
    axes = _reduce_axes(input, dim)
    result = _summed(input, axes, keepdim, _integral_result(data, dtype), "nansum")
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = NansumBackward0()
        node.axes = axes
        node.keepdim = keepdim
        node.save(input)
        attach(out, node, input)
    return out


class NansumBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def backward(self, grad):
        (input,) = self.saved_tensors
        data = input._data
        keep = _constant(input._device.xp.isnan(data) == False, input._device)  # noqa: E712
        grad = _kept(grad, data.shape, self.axes, self.keepdim)
        return (grad.to(input.dtype) * keep,)


# ---------------------------------------------------------------- mean / nanmean
def mean(input, dim=_ALL_DIMS, keepdim=False, *, dtype=None, **aliases):
    """Mean over `dim`; integer inputs raise as in PyTorch (pass a float dtype)."""
    whole = dim is _ALL_DIMS and "axis" not in aliases
    if whole:
        dim = None
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    data = input._data
    if dtype is None and data.dtype.kind in "iub":
        raise _diagnose.noted(RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_type_name(data)}"),
            "integer_reduction", operation="mean", dtype=data.dtype)
    if dtype is not None:
        _check_mean_dtype("mean", dtype)
        data = data.astype(dtype.np_dtype, copy=False)
    axes = _reduce_axes(input, dim)
    accumulate = _ACCUMULATE.get(data.dtype)
    count = data.size if axes is None else _count(data.shape, axes)
    if data.size and accumulate is None:
        # sum / count is what ndarray.mean computes, without its Python-level overhead.
        result = _plain_sum(data, axes, keepdim) / count
    elif data.size:
        result = _plain_sum(data, axes, keepdim, accumulate) / count
    else:   # NaN like PyTorch, without NumPy's "Mean of empty slice" warning
        result = _plain_sum(data, axes, keepdim) / 0
    # one call for the cast and the 0-dim array a whole mean needs (NumPy gives a scalar)
    out = make_tensor(input._device.xp.asarray(result, dtype=data.dtype), input._device)
    if grad_state.enabled and input._requires_grad:
        node = MeanBackward0() if whole else MeanBackward1()
        node.shape = data.shape
        node.axes = axes
        node.keepdim = keepdim
        node.count = count
        node.dtype = input.dtype if dtype is not None and dtype is not input.dtype else None
        attach(out, node, input)
    return out


def _check_mean_dtype(name, dtype):
    """A mean's explicit dtype must be floating: PyTorch checks it before the dims."""
    if not _is_floating(dtype.np_dtype):
        raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be "
                           f"either a floating point or complex dtype. Got: "
                           f"{dtype.tensor_type[:-6]}")


class MeanBackward0(Node):
    __slots__ = ("shape", "axes", "keepdim", "count", "dtype")

    def backward(self, grad):
        if self.dtype is None and plain(grad):
            # expand + divide in one NumPy call: the same float division per element
            data = _kept_array(grad._data, self.shape, self.axes, self.keepdim)
            out = grad._device.xp.empty(self.shape, data.dtype)
            grad._device.xp.divide(data, self.count, out=out)
            return (make_tensor(out, grad._device),)
        grad = _kept(grad, self.shape, self.axes, self.keepdim).expand(self.shape) / self.count
        return (grad if self.dtype is None else grad.to(self.dtype),)


class MeanBackward1(MeanBackward0):
    __slots__ = ()


def nanmean(input, dim=None, keepdim=False, *, dtype=None, **aliases):
    """Mean over the non-NaN values: nansum / count, as PyTorch composes it (DivBackward0)."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    data = input._data
    if not _is_floating(data.dtype):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_type_name(data)}")
    if dtype is not None:
        _check_mean_dtype("nanmean", dtype)
    axes = _reduce_axes(input, dim)
    total = nansum(input, dim, keepdim, dtype=dtype)
    present = input._device.xp.isnan(data) == False  # noqa: E712
    count = present.sum(axis=axes, keepdims=keepdim).astype(total._data.dtype)
    return pointwise.div(total, _constant(count, input._device))


# ---------------------------------------------------------------- prod
def prod(input, dim=None, keepdim=False, *, dtype=None, **aliases):
    """Product over one dim (or all); integers and bools multiply as int64."""
    if _autocast.on and dtype is None:
        return _autocast.float32(prod, input, dim, keepdim, dtype=dtype, **aliases)
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    data = input._data
    if dim is not None and not hasattr(dim, "__index__") or isinstance(dim, bool):
        raise TypeError(f"prod() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:\n"
                        " * (*, ember.dtype dtype = None)\n"
                        " * (int dim, bool keepdim = False, *, ember.dtype dtype = None)\n")
    axes = None if dim is None else wrap_dims(dim, data.ndim)
    if not data.ndim:
        axes = None
    result = _summed(input, axes, keepdim, _integral_result(data, dtype), "prod")
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = ProdBackward0() if dim is None else ProdBackward1()
        node.axes = axes
        node.keepdim = keepdim
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class ProdBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def backward(self, grad):
        input, result = self.saved_tensors
        shape = input._data.shape
        grad = _kept(grad, shape, self.axes, self.keepdim)
        result = _kept(result, shape, self.axes, self.keepdim)
        if input.dtype is not result.dtype:
            grad, result = grad.to(input.dtype), result.to(input.dtype)
        if not shape:
            # a scalar is its own product: PyTorch passes the gradient through, so an
            # inf or nan input does not turn it into result / input = nan
            return (grad,)
        return (_prod_backward(grad, input, result, self.axes),)


class ProdBackward1(ProdBackward0):
    __slots__ = ()


def _prod_backward(grad, input, result, axes):
    """PyTorch's prod_backward: grad * result / input without zeros; with zeros, grad times
    each element's exclusive prefix and suffix products (`prod_safe_zeros_backward`), or,
    over the whole tensor with two zeros or more and nothing recorded, zeros. Built from
    ember ops (cumprod, cat, flip), so it differentiates again; and an inf beside a zero
    gives the NaN PyTorch's products give, no more."""
    data = input._data
    zero = data == 0
    if not zero.any():
        return grad * (result / input)
    if axes is None:
        if not grad_state.enabled and int(zero.sum()) > 1:
            return wrap(input._device.xp.zeros(data.shape, data.dtype), input._device)
        return grad * _exclusive_products(input.reshape(-1), 0).reshape(data.shape)
    return grad * _exclusive_products(input, axes[0])


def _exclusive_products(x, dim):
    """For each element along `dim`, the product of those before it times the product of
    those after it, as PyTorch forms them: cumprod of [1, x_0 .. x_{n-2}] times the
    flipped cumprod of [1, x_{n-1} .. x_1]."""
    length = x.shape[dim]
    if length == 1:
        return x.new_ones(x.shape)
    ones = x.new_ones(x.shape[:dim] + (1,) + x.shape[dim + 1:])
    before = cat([ones, x.narrow(dim, 0, length - 1)], dim).cumprod(dim)
    after = cat([ones, x.narrow(dim, 1, length - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return before * after


# ---------------------------------------------------------------- std / var
def _correction(name, dim, unbiased, correction):
    """(dim, correction) from PyTorch's overloads: (unbiased), (dim, unbiased), correction=."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(correction=int, unbiased=bool, )")
    if correction is None:
        correction = 1 if unbiased is None else int(unbiased)
    return dim, correction


def _variance(input, dim, keepdim, correction, name):
    """(var array, axes, dof): the shared forward of std, var, std_mean and var_mean."""
    data = input._data
    if not _is_floating(data.dtype):
        raise _diagnose.noted(
            RuntimeError("std and var only support floating point and complex dtypes"),
            "integer_reduction", operation=name.partition("_")[0], dtype=data.dtype)
    axes = _reduce_axes(input, dim)
    n = _count(data.shape, axes)
    dof = n - correction
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)
    # PyTorch's CPU std/var accumulate in double for every floating dtype (Welford's
    # update in double; a whole-tensor float32 var sums squared deviations in double), so
    # the result is the variance rounded once.
    work = data.astype(_FLOAT64, copy=False)
    centered = work - work.sum(axis=axes, keepdims=True) / n
    squares = (centered * centered).sum(axis=axes, keepdims=keepdim)
    # the variance of no elements is NaN whatever the correction (0 / 0)
    return squares / (builtins.max(0, dof) if n else 0), axes, dof


def _from_double(result, np_dtype):
    """A double result in `np_dtype` as PyTorch's C++ casts it: a half type through float."""
    if np_dtype in _ACCUMULATE:
        result = result.astype(_FLOAT32)
    return result.astype(np_dtype, copy=False)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, **aliases):
    """Variance with Bessel's `correction` (1 unless `unbiased=False` or given)."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    dim, correction = _correction("var", dim, unbiased, correction)
    result, axes, dof = _variance(input, dim, keepdim, correction, "var")
    out = wrap(_from_double(result, input._data.dtype), input._device)
    if grad_state.enabled and input._requires_grad:
        node = VarBackward0()
        node.axes, node.keepdim, node.dof = axes, keepdim, dof
        node.save(input)
        attach(out, node, input)
    return out


class VarBackward0(Node):
    __slots__ = ("axes", "keepdim", "dof")

    def backward(self, grad):
        (input,) = self.saved_tensors
        return (_var_backward(grad, input, self.axes, self.keepdim, self.dof),)


def _var_backward(grad, input, axes, keepdim, dof):
    """2 (x - mean) / dof; PyTorch's inf/NaN pattern when there are no degrees of freedom."""
    data = input._data
    grad = _kept(grad, data.shape, axes, keepdim)
    if dof <= 0 and axes is None:
        same = data == data.mean()
        weight = input._device.xp.where(same, math.nan, math.inf).astype(data.dtype)
        return grad * _constant(weight, input._device)
    scale = 2.0 / dof if dof else math.inf
    return scale * grad * (input - mean(input, axes, True))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, **aliases):
    """Standard deviation: the square root of `var` with the same arguments."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    dim, correction = _correction("std", dim, unbiased, correction)
    result, axes, dof = _variance(input, dim, keepdim, correction, "std")
    xp = input._device.xp
    out = wrap(_from_double(xp.sqrt(result), input._data.dtype), input._device)
    if grad_state.enabled and input._requires_grad:
        node = StdBackward0()
        node.axes, node.keepdim, node.dof = axes, keepdim, dof
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class StdBackward0(Node):
    __slots__ = ("axes", "keepdim", "dof")

    def backward(self, grad):
        input, result = self.saved_tensors
        return (_std_backward(grad, input, result, self.axes, self.keepdim, self.dof),)


def _std_backward(grad, input, result, axes, keepdim, dof):
    """var's gradient scaled by 1 / (2 std), zero where std is zero (as PyTorch masks it)."""
    shape = input._data.shape
    result = _kept(result, shape, axes, keepdim)
    grad = _kept(grad, shape, axes, keepdim)
    # PyTorch: (grad / (2 std)).masked_fill_(std == 0, 0), then var's backward; `where`
    # keeps a NaN or inf upstream gradient out of those rows, as the fill does
    zero = _constant(result._data == 0, input._device)
    return _var_backward(where(zero, 0.0, grad / (result * 2)), input, axes, True, dof)


def _two_outputs(out0, out1, node, input):
    attach(out0, node, input)
    out1.grad_fn = node
    out1._requires_grad = True
    out1._output_nr = 1


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) in one pass; a plain tuple, as in PyTorch."""
    dim, correction = _correction("var_mean", dim, unbiased, correction)
    if not _is_floating(input._data.dtype):  # named, unlike std's and var's
        raise RuntimeError("var_mean only support floating point and complex dtypes")
    with _no_record():
        variance = var(input, dim, keepdim=keepdim, correction=correction)
        average = mean(input, dim, keepdim)
    if grad_state.enabled and input._requires_grad:
        node = VarMeanBackward0()
        node.axes, node.keepdim, node.dof = _reduce_axes(input, dim), keepdim, None
        node.dof = _count(input._data.shape, node.axes) - correction
        node.save(input)
        _two_outputs(variance, average, node, input)
    return variance, average


class VarMeanBackward0(Node):
    __slots__ = ("axes", "keepdim", "dof")

    def backward(self, grad_var=None, grad_mean=None):
        (input,) = self.saved_tensors
        total = None
        if grad_var is not None:
            total = _var_backward(grad_var, input, self.axes, self.keepdim, self.dof)
        return (_add_mean_grad(total, grad_mean, input, self.axes, self.keepdim),)


def _add_mean_grad(total, grad_mean, input, axes, keepdim):
    if grad_mean is None:
        return total
    shape = input._data.shape
    part = _kept(grad_mean, shape, axes, keepdim).expand(shape) / _count(shape, axes)
    return part if total is None else total + part


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) in one pass; a plain tuple, as in PyTorch."""
    dim, correction = _correction("std_mean", dim, unbiased, correction)
    if not _is_floating(input._data.dtype):  # named, unlike std's and var's
        raise RuntimeError("std_mean only support floating point and complex dtypes")
    with _no_record():
        deviation = std(input, dim, keepdim=keepdim, correction=correction)
        average = mean(input, dim, keepdim)
    if grad_state.enabled and input._requires_grad:
        node = StdMeanBackward0()
        node.axes, node.keepdim = _reduce_axes(input, dim), keepdim
        node.dof = _count(input._data.shape, node.axes) - correction
        node.save(input)
        node.save_output(deviation)
        _two_outputs(deviation, average, node, input)
    return deviation, average


class StdMeanBackward0(Node):
    __slots__ = ("axes", "keepdim", "dof")

    def backward(self, grad_std=None, grad_mean=None):
        input, result = self.saved_tensors
        total = None
        if grad_std is not None:
            total = _std_backward(grad_std, input, result, self.axes, self.keepdim, self.dof)
        return (_add_mean_grad(total, grad_mean, input, self.axes, self.keepdim),)


class _no_record:
    """Compute the parts of a fused op without recording them (the fused node is recorded)."""

    __slots__ = ("previous",)

    def __enter__(self):
        self.previous = grad_state.enabled
        grad_state.enabled = False

    def __exit__(self, *exc):
        grad_state.enabled = self.previous


# ---------------------------------------------------------------- norm
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: 'fro' and numbers are linalg's vector norms over `dim` (all dims when
    None), 'nuc' its matrix norm, as PyTorch dispatches them."""
    if isinstance(p, str):
        if p == "nuc":
            return matrix_norm(input, p, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
        if p != "fro":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if dim is not None and not isinstance(dim, int) and len(dim) > 2:
            raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                               + " ".join(str(d) for d in dim))
        p = 2
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


# ---------------------------------------------------------------- logsumexp
def _rounded_to(dtype):
    return lambda array: array.astype(dtype).astype(array.dtype)


def _unrounded(array):
    return array


def logsumexp(input, dim, keepdim=False, **aliases):
    """log(sum(exp(x))) over `dim`, computed stably by shifting by the max."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    data = input._data
    xp = input._device.xp
    if not _is_floating(data.dtype):
        data = data.astype(_dtype.get_default_dtype().np_dtype)
    axes = _reduce_axes(input, dim)
    work = data.astype(_ACCUMULATE.get(data.dtype, data.dtype), copy=False)
    if work.size == 0:
        result = xp.log(xp.exp(work).sum(axis=axes, keepdims=keepdim))
    else:
        # float16/bfloat16: PyTorch rounds to the dtype after each step (shift, exp, sum,
        # log), so the same roundings here, in float32
        step = _rounded_to(data.dtype) if work.dtype != data.dtype else _unrounded
        shift = work.max(axis=axes, keepdims=True)
        shift = xp.where(xp.isfinite(shift), shift, 0)
        total = step(xp.exp(step(work - shift))).sum(axis=axes, keepdims=True)
        result = _kept_array(step(xp.log(step(total))) + shift, data.shape, axes, True)
        if not keepdim:
            result = result.reshape(_reduced_shape(data.shape, axes))
    out = wrap(xp.asarray(result).astype(data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = LogsumexpBackward0()
        node.axes, node.keepdim = axes, keepdim
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


def _reduced_shape(shape, axes):
    return tuple(s for i, s in enumerate(shape) if axes is not None and i not in axes)


class LogsumexpBackward0(Node):
    __slots__ = ("axes", "keepdim")

    def backward(self, grad):
        input, result = self.saved_tensors
        shape = input._data.shape
        grad = _kept(grad, shape, self.axes, self.keepdim)
        return (grad * pointwise.exp(input - _kept(result, shape, self.axes, self.keepdim)),)


# ---------------------------------------------------------------- all / any / count_nonzero
def _logical_reduction(input, dim, keepdim, reducer):
    data = input._data
    reducer = getattr(input._device.xp, reducer)
    axes = None if dim is None else wrap_dims(dim, data.ndim)
    if not data.ndim:
        axes = None
    result = reducer(data, axis=axes, keepdims=keepdim)
    if data.dtype == _dtype.uint8.np_dtype:   # PyTorch keeps uint8 for uint8 input
        result = input._device.xp.asarray(result).astype(data.dtype)
    return wrap(result, input._device)


def all(input, dim=None, keepdim=False, **aliases):
    """Whether every element (along `dim`) is nonzero; bool, or uint8 for uint8 input."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    return _logical_reduction(input, dim, keepdim, "all")


def any(input, dim=None, keepdim=False, **aliases):
    """Whether some element (along `dim`) is nonzero; bool, or uint8 for uint8 input."""
    if aliases:  # NumPy-style axis=/keepdims=, which PyTorch accepts too
        dim, keepdim = dim_aliases(dim, keepdim, aliases)
    return _logical_reduction(input, dim, keepdim, "any")


def count_nonzero(input, dim=None):
    """The number of nonzero elements (along `dim`), as int64."""
    data = input._data
    if data.dtype in _LIMITED:
        raise _refusal("nonzero_count_cpu", data.dtype)
    axes = _reduce_axes(input, dim)
    result = (data != 0).sum(axis=axes, dtype=_INT64)
    return wrap(result, input._device)


# The selection and cumulative parts of the family; imported last, they use the helpers above.
from .sorting import *  # noqa: E402,F401,F403
from .cumulative import *  # noqa: E402,F401,F403
from .cumulative import cumsum_  # noqa: E402,F401 - a Tensor method only, not ember.cumsum_
from . import cumulative as _cumulative, sorting as _sorting  # noqa: E402

__all__ += _sorting.__all__ + _cumulative.__all__
