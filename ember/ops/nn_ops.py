"""Neural-net ops: softmax and log_softmax along one dimension.

Both subtract the maximum along `dim` before exponentiating, so large inputs do
not overflow; float16/bfloat16 are computed in float32 and rounded once, forward and
backward. The backward formulas are written in ember ops, so double backward works.
"""
from .._dtype import is_floating as _is_floating
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor, wrap_dim
from ._row_sums import row_sums

__all__ = ["softmax", "log_softmax"]

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype


def _prepare(input, dim, dtype, name):
    """The (cast) input, its array in compute precision, and the wrapped dim."""
    if dim is None or isinstance(dim, str):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if dtype is not None:
        input = input.to(dtype)
    data = input._data
    ndim = data.ndim
    axis = wrap_dim(dim, ndim)
    # PyTorch returns an empty input before choosing a kernel, so any dtype passes then
    if data.size and not _is_floating(data.dtype) and data.dtype not in _REDUCED:
        kernel = "_lastdim_kernel_impl" if ndim == 0 or axis == ndim - 1 else "_kernel_impl"
        raise NotImplementedError(f'"{name}{kernel}" not implemented for '
                                  f"'{_errors.scalar_type_name(_dtype.FROM_NUMPY[data.dtype])}'")
    computed = data.astype(_FLOAT32) if data.dtype in _REDUCED else data
    return input, computed, (axis if ndim else None)


def _row_max(xp, x):
    """max over the last axis, keepdims, by halving: faster than NumPy's reduce on short rows
    (NumPy pays per row; each halving is one elementwise pass over the whole array)."""
    length = x.shape[-1]
    while length > 1:
        half = length // 2
        folded = xp.maximum(x[..., :half], x[..., half:2 * half])
        if length % 2:
            xp.maximum(folded[..., :1], x[..., 2 * half:], out=folded[..., :1])
        x, length = folded, half
    return x if x.base is None else x.copy()


def _shifted(xp, x, axis):
    """x minus its maximum along `axis` (a new array): the largest exponent becomes 0."""
    if x.size == 0:
        return x.copy()
    with xp.errstate(invalid="ignore"):  # a row of -inf gives NaN, silently as in PyTorch
        if axis is not None and axis == x.ndim - 1 and x.shape[-1] <= 64:
            shifted = x - _row_max(xp, x)
        else:
            shifted = x - x.max(axis=axis, keepdims=True)
    return xp.asarray(shifted) if x.ndim == 0 else shifted  # 0-dim: NumPy gives a scalar


def _sums(xp, x, axis):
    """x summed along `axis`, kept as a size-1 dim; along the last axis as row sums
    (`_row_sums`: BLAS's gemv where NumPy's reduce is slowest)."""
    if axis is None or axis != x.ndim - 1 or x.shape[-1] < 2:
        return x.sum(axis=axis, keepdims=True)
    size = x.shape[-1]
    return row_sums(xp, x.reshape(-1, size)).reshape(x.shape[:-1] + (1,))


def _first_order(grad, result):
    """The arrays of a first-order backward (no graph to record, no half rounding), or None."""
    if grad_state.enabled or result._data.dtype in _REDUCED or not result._data.ndim:
        return None
    return grad._data, result._data, result._device.xp


def _rounded(array, dtype):
    """A float32 array rounded through `dtype` and back."""
    return array.astype(dtype).astype(_FLOAT32)


def _widened(grad, result):
    """float16/bfloat16 gradients in float32, with the dtype to round back to (None for
    other dtypes): PyTorch's backward kernels round once, at the end."""
    if result._data.dtype not in _REDUCED:
        return grad, result, None
    return grad.float(), result.float(), result.dtype


def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`."""
    input, x, axis = _prepare(input, dim, dtype, "softmax")
    xp = input._device.xp
    values = _shifted(xp, x, axis)
    if values.size:
        xp.exp(values, out=values)
        values /= _sums(xp, values, axis)
    out = make_tensor(values.astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = SoftmaxBackward0()
        node.dim = axis
        node.save_output(out)
        attach(out, node, input)
    return out


class SoftmaxBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        arrays = _first_order(grad, result)
        if arrays is not None:  # y * (g - sum(g * y)), in three passes
            g, y, xp = arrays
            grad_input = g * y
            grad_input = xp.subtract(g, _sums(xp, grad_input, self.dim), out=grad_input)
            grad_input *= y
            return (make_tensor(grad_input, result._device),)
        grad, result, dtype = _widened(grad, result)
        grad_input = result * (grad - (grad * result).sum(self.dim, keepdim=True))
        return (grad_input if dtype is None else grad_input.to(dtype),)


def log_softmax(input, dim, dtype=None):
    """x - log(sum(exp(x))) along `dim`, without forming exp(x) of large values."""
    input, x, axis = _prepare(input, dim, dtype, "log_softmax")
    xp = input._device.xp
    values = _shifted(xp, x, axis)
    if values.size:
        total = _sums(xp, xp.exp(values), axis)
        dtype = input._data.dtype
        if dtype in _REDUCED and axis == x.ndim - 1:
            # PyTorch's last-dim kernel rounds the sum, and its log, to float16/bfloat16
            values -= _rounded(xp.log(_rounded(total, dtype)), dtype)
        else:
            values -= xp.log(total)
    out = make_tensor(values.astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = LogSoftmaxBackward0()
        node.dim = axis
        node.save_output(out)
        attach(out, node, input)
    return out


class LogSoftmaxBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        arrays = _first_order(grad, result)
        if arrays is not None:  # g - exp(y) * sum(g), in three passes
            g, y, xp = arrays
            grad_input = xp.exp(y)
            grad_input *= _sums(xp, g, self.dim)
            grad_input = xp.subtract(g, grad_input, out=grad_input)
            return (make_tensor(grad_input, result._device),)
        grad, result, dtype = _widened(grad, result)
        grad_input = grad - result.exp() * grad.sum(self.dim, keepdim=True)
        return (grad_input if dtype is None else grad_input.to(dtype),)
