"""Cumulative ops: cumsum, cumprod, cummax, cummin (and the in-place cumsum_).

Part of the reduction family (re-exported by `reduction.py`). cumsum's adjoint
is a reverse cumsum (`_reverse_cumsum`, itself differentiable); cumprod's
gradient stays exact when the input holds zeros; cummax/cummin send the
gradient back to where each running extreme was found, like the selection
ops in `sorting.py`.
"""
from .._dtype import is_floating as _is_floating
from .. import return_types as _rt
from .. import _dtype
from .._backend import numpy as _numpy
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import attach, contiguous, dim_aliases, grad_state, inplace, wrap, wrap_dim
from .reduction import _ACCUMULATE, _constant, _integral_result
from .gather_scatter import scatter_add
from .pointwise_select import where
from .sorting import _BOOL_KIND, _SelectBackward, _index_array, _selected

__all__ = ["cumsum", "cumprod", "cummax", "cummin"]

_BOOL_DTYPE = _dtype.bool.np_dtype
# PyTorch's CPU scan kernels (cumsum, cumprod, logcumsumexp) carry the running value in
# the CPU accumulate type, not the element type: float in double, half types in float. Each output is the running value rounded once, so a float32 cumsum
# of many terms keeps full precision instead of drifting by an ulp per step.
_WIDER = {_dtype.float32.np_dtype: _dtype.float64.np_dtype}


def scan_accumulate(np_dtype):
    """The dtype a CPU scan over `np_dtype` elements accumulates in."""
    return _ACCUMULATE.get(np_dtype) or _WIDER.get(np_dtype, np_dtype)


# ---------------------------------------------------------------- cumsum / cumprod
def _scan(input, ufunc):
    """cumsum's or cumprod's array function: on NumPy the ufunc's accumulate, called from
    ember's module (np.cumsum's wrapper would warn from numpy's, past ember's filter)."""
    xp = input._device.xp
    if xp is _numpy:
        return getattr(_numpy, ufunc).accumulate
    return xp.cumsum if ufunc == "add" else xp.cumprod


def _cumulative(input, dim, dtype, accumulate, kernel):
    """Shared forward of cumsum/cumprod: (result array, wrapped dim). PyTorch's kernel has
    no bool scan: a bool result of a non-empty, non-0-dim input is refused."""
    data = input._data
    d = wrap_dim(dim, data.ndim)
    out_dtype = _integral_result(data, dtype)
    if out_dtype == _BOOL_DTYPE and data.ndim and data.size:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if data.dtype != out_dtype and data.dtype.kind not in "iub":
        data = data.astype(out_dtype)
    if not data.ndim:
        return data.astype(out_dtype), d
    return accumulate(data, axis=d, dtype=scan_accumulate(out_dtype)).astype(
        out_dtype, copy=False), d


def cumsum(input, dim=None, *, dtype=None, **aliases):
    """Running sums along `dim`; integers and bools sum as int64."""
    if aliases:  # NumPy-style axis=, which PyTorch accepts too
        dim, _ = dim_aliases(dim, False, aliases)
    if dim is None:
        raise TypeError('cumsum() missing 1 required positional arguments: "dim"')
    result, d = _cumulative(input, dim, dtype, _scan(input, "add"), "cumsum_out_cpu")
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = CumsumBackward0()
        node.dim = d
        node.dtype = input.dtype if result.dtype != input._data.dtype else None
        attach(out, node, input)
    return out


class CumsumBackward0(Node):
    __slots__ = ("dim", "dtype")

    def backward(self, grad):
        grad = _reverse_cumsum(grad, self.dim) if grad._data.ndim else grad
        return (grad if self.dtype is None else grad.to(self.dtype),)


def _reverse_cumsum(input, dim):
    """Sums from each position to the end of `dim`: cumsum's adjoint."""
    xp = input._device.xp
    data = input._data
    # NumPy's ufunc method, called from here: np.cumsum's Python wrapper would warn about
    # inf - inf from numpy's own module, past the filter that keeps ember silent
    scan = xp.add.accumulate if xp is _numpy else xp.cumsum
    result = xp.flip(scan(xp.flip(data, dim), axis=dim, dtype=scan_accumulate(data.dtype)), dim)
    out = wrap(xp.ascontiguousarray(result.astype(data.dtype, copy=False)), input._device)
    if grad_state.enabled and input._requires_grad:
        node = ReverseCumsumBackward0()
        node.dim = dim
        attach(out, node, input)
    return out


class ReverseCumsumBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        return (cumsum(grad, self.dim),)


_INPLACE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                  "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
                  "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                  "bool": "bool"}


def cumsum_(input, dim, *, dtype=None):
    """In-place cumsum; `dtype`, if given, must be the tensor's own."""
    if dtype is not None and dtype is not input.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype "
                           f"{_INPLACE_NAMES[input.dtype.name]} and output tensor dtype "
                           f"{_INPLACE_NAMES[dtype.name]} should match")
    if input._data.dtype.kind == _BOOL_KIND and _bool_scan_(input, dim, "cumsum_out_cpu"):
        return input
    return inplace(input, cumsum, dim)


def _bool_scan_(input, dim, kernel):
    """A bool tensor's in-place scan: PyTorch wraps the dim, then copies a 0-dim or empty
    input without its kernel (True: nothing to do), else the kernel refuses Bool."""
    wrap_dim(dim, max(input._data.ndim, 1))
    if input._data.ndim == 0 or input._data.size == 0:
        return True
    raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def cumprod(input, dim=None, *, dtype=None, **aliases):
    """Running products along `dim`; integers and bools multiply as int64."""
    if aliases:  # NumPy-style axis=, which PyTorch accepts too
        dim, _ = dim_aliases(dim, False, aliases)
    if dim is None:
        raise TypeError('cumprod() missing 1 required positional arguments: "dim"')
    result, d = _cumulative(input, dim, dtype, _scan(input, "multiply"),
                             "cumprod_out_cpu")
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = CumprodBackward0()
        node.dim = d
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class CumprodBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        input, result = self.saved_tensors
        if not input._data.ndim:
            return (grad.to(input.dtype),)
        original = input.dtype
        if original is not result.dtype:
            input, grad = input.to(result.dtype), grad.to(result.dtype)
        return (_cumprod_backward(grad, input, result, self.dim).to(original),)


def _cumprod_backward(grad, input, result, dim):
    """sum over i >= k of grad_i * prod_{j <= i, j != k} x_j, exact with zeros.

    Before a slice's first zero that is reverse_cumsum(grad * result) / x; at the
    first zero it is the same sum with that zero replaced by 1 (only z <= i < the
    second zero count); after it, every term holds the zero.
    """
    data = input._data
    xp, device = input._device.xp, input._device
    zero = data == 0
    if not zero.any():
        return _reverse_cumsum(grad * result, dim) / input
    if grad_state.enabled:   # create_graph: the quadratic formula, exact at every order
        return _cumprod_backward_quadratic(grad, input, dim)
    # The parts are selected, not masked by products: as in PyTorch's masked fills, a NaN
    # or inf gradient after a zero stays out of the sums before it.
    seen = xp.cumsum(zero, axis=dim)
    before = _constant(seen == 0, device)
    at = _constant((seen == 1) & zero, device)
    # the first zero's terms end at the second zero: every later product holds it
    up_to_second = _constant(seen == 1, device)
    head = _reverse_cumsum(where(before, grad * result, 0.0), dim) / where(before, input, 1.0)
    replaced = where(at, 1.0, input)
    tail = where(up_to_second, grad * cumprod(replaced, dim), 0.0).sum(dim, keepdim=True)
    return where(before, head, where(at, tail, 0.0))


def _cumprod_backward_quadratic(grad, input, dim):
    """The same sum built literally: for each k, cumprod with x_k replaced by 1.

    A new axis k sits before `dim` (the axis i): O(n^2) memory along `dim`, which
    is why only double backward through inputs with zeros takes this path.
    """
    data = input._data
    xp, device, dtype = input._device.xp, input._device, data.dtype
    shape = data.shape
    n = shape[dim]
    wide = shape[:dim] + (1, n) + shape[dim + 1:]
    trailing = (1,) * (len(shape) - dim - 1)
    eye = xp.eye(n, dtype=dtype).reshape((n, n) + trailing)
    later = xp.triu(xp.ones((n, n), dtype=dtype)).reshape((n, n) + trailing)
    others = input.reshape(wide) * _constant(1 - eye, device) + _constant(eye, device)
    terms = cumprod(others, dim + 1) * grad.reshape(wide) * _constant(later, device)
    return terms.sum(dim + 1)


# ---------------------------------------------------------------- cummax / cummin
def cummax(input, dim):
    """Running maxima along `dim` and where each was found (the latest on ties)."""
    return _cumulative_extreme(input, dim, "max", _rt.cummax, CummaxBackward0)


def cummin(input, dim):
    """Running minima along `dim` and where each was found (the latest on ties)."""
    return _cumulative_extreme(input, dim, "min", _rt.cummin, CumminBackward0)


def _cumulative_extreme(input, dim, which, result_type, node_type):
    data = input._data
    if data.dtype in _LIMITED:
        raise _refusal(f"cum{which}_cpu", data.dtype)
    xp = input._device.xp
    if data.size == 0:  # PyTorch returns empty results before it checks dim
        return _selected(result_type, node_type, input, contiguous(data.copy(), xp),
                         contiguous(xp.zeros(data.shape, xp.int64), xp), 0, True)
    if not data.ndim and dim not in (-1, 0):
        raise IndexError(f"cum{which}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = wrap_dim(dim, data.ndim)
    if not data.ndim:
        values, indices = data.copy(), _index_array(xp, ())
    else:
        ufunc = xp.maximum if which == "max" else xp.minimum
        values = ufunc.accumulate(data, axis=d)
        # An index moves to i when x_i reaches the running extreme (or is NaN, which sticks).
        reached = data == values
        if _is_floating(data.dtype):
            reached |= xp.isnan(data)
        shape = [1] * data.ndim
        shape[d] = data.shape[d]
        positions = xp.arange(data.shape[d], dtype=xp.int64).reshape(shape)
        indices = xp.maximum.accumulate(xp.where(reached, positions, 0), axis=d)
    return _selected(result_type, node_type, input, values, indices, d, True)


class CummaxBackward0(_SelectBackward):
    __slots__ = ()
    _scatter = staticmethod(scatter_add)


class CumminBackward0(CummaxBackward0):
    __slots__ = ()

