"""Neural-net ops: softmax and log_softmax along one dimension.

Both subtract the maximum along `dim` before exponentiating, so large inputs do
not overflow; float16/bfloat16 are computed in float32 and rounded once, forward and
backward. The backward formulas are written in ember ops, so double backward works.
Large float32 tensors along their last dim, with numba installed, go through
`_compiled.softmax_kernels` instead: a row at a time, PyTorch's own kernels replayed.
"""
from .._dtype import is_floating as _is_floating
from .. import _backend, _compiled, _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor, wrap_dim
from ._row_sums import row_sums

__all__ = ["softmax", "log_softmax"]

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype
# floats per SIMD register in the PyTorch kernels the compiled ones replay (their sums
# keep one partial sum per register lane)
_LANES = 16 if _backend.cpu_capability() == "AVX512" else 8


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


def _row_kernels(x, axis):
    """`_compiled.softmax_kernels` when they apply to the array x along `axis` (float32
    NumPy, the last axis, at least `_compiled.MIN_SIZE` elements), else None."""
    if (axis is None or axis != x.ndim - 1 or x.dtype != _FLOAT32
            or x.size < _compiled.MIN_SIZE or x.__class__ is not _backend.ndarray):
        return None
    return _compiled.load("softmax_kernels")


def _by_rows(kernel, *arrays, flags=()):
    """A new array: `kernel` over the rows of the equally shaped float32 `arrays`
    (made contiguous, as PyTorch's kernels make them), shared out to the threads;
    `flags` follow the row length and lane count."""
    arrays = [a if a.flags.c_contiguous else _backend.numpy.ascontiguousarray(a)
              for a in arrays]
    out = _backend.numpy.empty(arrays[0].shape, _FLOAT32)
    size = out.shape[-1]
    _compiled.split_run(kernel, [a.reshape(-1) for a in arrays] + [out.reshape(-1)],
                        size, _LANES, *flags, granule=size)
    return out


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
    kernels = _row_kernels(input._data, axis)
    if kernels is not None:
        values = _by_rows(kernels.softmax_forward, x, flags=(False,))
    else:
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
            kernels = _row_kernels(y, self.dim) if g.dtype == _FLOAT32 else None
            if kernels is not None:
                return (make_tensor(_by_rows(kernels.softmax_backward, g, y),
                                    result._device),)
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
    kernels = _row_kernels(input._data, axis)
    if kernels is not None:
        values = _by_rows(kernels.log_softmax_forward, x)
    else:
        values = _log_softmax_values(input._device.xp, x, axis, input._data.dtype)
    out = make_tensor(values.astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = LogSoftmaxBackward0()
        node.dim = axis
        node.save_output(out)
        attach(out, node, input)
    return out


def _log_softmax_values(xp, x, axis, dtype):
    """log_softmax of the (float32 or float64) array x along `axis`, in NumPy passes;
    `dtype` is the input's, whose rounding the float16/bfloat16 kernel applies."""
    values = _shifted(xp, x, axis)
    if values.size:
        total = _sums(xp, xp.exp(values), axis)
        if dtype in _REDUCED and axis == x.ndim - 1:
            # PyTorch's last-dim kernel rounds the sum, and its log, to float16/bfloat16
            values -= _rounded(xp.log(_rounded(total, dtype)), dtype)
        else:
            values -= xp.log(total)
    return values


class LogSoftmaxBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        arrays = _first_order(grad, result)
        if arrays is not None:  # g - exp(y) * sum(g), in three passes
            g, y, xp = arrays
            kernels = _row_kernels(y, self.dim) if g.dtype == _FLOAT32 else None
            if kernels is not None:
                return (make_tensor(_by_rows(kernels.log_softmax_backward, g, y),
                                    result._device),)
            grad_input = xp.exp(y)
            grad_input *= _sums(xp, g, self.dim)
            grad_input = xp.subtract(g, grad_input, out=grad_input)
            return (make_tensor(grad_input, result._device),)
        grad, result, dtype = _widened(grad, result)
        grad_input = grad - result.exp() * grad.sum(self.dim, keepdim=True)
        return (grad_input if dtype is None else grad_input.to(dtype),)
