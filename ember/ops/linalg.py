"""Matrix products: mm, mv, dot, bmm, matmul, the fused add-products, inner/outer, tensordot.

The primitives (mm, mv, dot, vdot, bmm, addmm, addmv, baddbmm) call `xp.matmul`
on the arrays directly: NumPy hands transposed (column-major) operands to BLAS
without copying them. PyTorch does not promote dtypes here: mixed operands raise
with PyTorch's text. `matmul` decomposes into the primitives exactly as ATen's
`_matmul_impl` does (folding batches into mm/mv, or expanding to bmm), so its
`grad_fn` chain matches PyTorch's. The matrix-structure ops (trace, tril, diag,
...) live in ops/diagonal.py, einsum in ops/einsum.py, norms in ops/norms.py;
all are re-exported here, the family's front door.
"""
from . import _autocast
from .. import _diagnose, _dtype, _errors
from ..autograd.graph import Node
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import Tensor, attach, grad_state, make_tensor, plain, sum_to_shape, wrap, wrap_dim
from .views import _unsafe_view
from .diagonal import diag, diag_embed, trace, tril, tril_, triu, triu_
from .einsum import einsum
from .norms import matrix_norm, norm, vecdot, vector_norm

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm",
           "addmv", "baddbmm", "tensordot", "einsum", "trace", "tril", "triu", "diag",
           "diag_embed"]

# float16/bfloat16 products accumulate in float32 and round once, as PyTorch's CPU kernels do.
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype
_BOOL = _dtype.bool.np_dtype
_PLAIN_PRODUCT = {_dtype.float32.np_dtype, _dtype.float64.np_dtype}  # NumPy's matmul as is


def _product(xp, a, b):
    """`a @ b` on arrays, keeping the operands' dtype."""
    if a.dtype in _REDUCED:
        return xp.matmul(a.astype(_FLOAT32), b.astype(_FLOAT32)).astype(a.dtype)
    return xp.matmul(a, b)


def _arrays(fn, input, other, other_name):
    """The two operands' arrays; TypeError with PyTorch's text for a non-Tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"{fn}(): argument '{other_name}' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    # a meta `input` takes any other operand, as PyTorch's meta kernels do (shapes only)
    if input._device is not other._device and input._device.type != "meta":
        raise _diagnose.noted(RuntimeError(_errors.device_mismatch(input._device, other._device)),
                              "device", first=input._device, second=other._device)
    return input._data, other._data


def _not_implemented(kernel, dtype):
    return NotImplementedError(_errors.not_implemented_for(kernel, _dtype.FROM_NUMPY[dtype]))


def _check_mm_shapes(a, b):
    if a.shape[1] != b.shape[0]:
        raise _diagnose.noted(RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
            f"{b.shape[0]}x{b.shape[1]})"), "matmul", a=a.shape, b=b.shape)


def _scalar_for(dtype, value):
    """beta/alpha as PyTorch applies them: truncated to an integer for integral results."""
    if dtype.kind in "iu" and not isinstance(value, bool):
        return int(value)
    return value


def _scaled(grad, factor):
    """PyTorch's maybe_multiply: skip the multiplication when the factor is 1."""
    return grad if factor == 1 else grad * factor


# ---------------------------------------------------------------- mm / mv / dot / bmm
def mm(input, mat2):
    """Matrix product of two 2-D tensors."""
    if _autocast.on:
        return _autocast.lower_precision(mm, input, mat2)
    a, b = _arrays("mm", input, mat2, "mat2")
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        _check_mm_shapes(a, b)
    dtype = a.dtype
    if dtype != b.dtype:
        raise RuntimeError(_errors.mm_dtype_mismatch(_dtype.FROM_NUMPY[a.dtype],
                                                     _dtype.FROM_NUMPY[b.dtype]))
    device = input._device
    if dtype in _PLAIN_PRODUCT:
        out = make_tensor(device.xp.matmul(a, b), device)
    else:
        if dtype == _BOOL or dtype in _LIMITED:
            raise _not_implemented("addmm_impl_cpu_", dtype)
        out = make_tensor(_product(device.xp, a, b), device)
    if grad_state.enabled and (input._requires_grad or mat2._requires_grad):
        node = MmBackward0()
        node.save(input, mat2)
        attach(out, node, input, mat2)
    return out


class MmBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, mat2 = self.saved_tensors
        if not _autocast.on and plain(grad, input, mat2):
            return _mm_backward_arrays(self, grad, input, mat2)
        grad_input = _mm_mat1_backward(grad, input, mat2) if self.needs_input_grad(0) else None
        grad_mat2 = _mm_mat2_backward(grad, input, mat2) if self.needs_input_grad(1) else None
        return grad_input, grad_mat2


def _mm_backward_arrays(node, grad, mat1, mat2):
    """MmBackward0 on the arrays (nothing recorded): the same products in the same layouts."""
    xp, g, device = grad._device.xp, grad._data, grad._device
    grad_input = grad_mat2 = None
    if node.next_functions[0][0] is not None:
        if _column_major(mat1):
            grad_input = make_tensor(xp.matmul(mat2._data, g.T).T, device)
        else:
            grad_input = make_tensor(xp.matmul(g, mat2._data.T), device)
    if node.next_functions[1][0] is not None:
        if _column_major(mat2):
            grad_mat2 = make_tensor(xp.matmul(g.T, mat1._data).T, device)
        else:
            grad_mat2 = make_tensor(xp.matmul(mat1._data.T, g), device)
    return grad_input, grad_mat2


def _column_major(matrix):
    """True for a transposed contiguous matrix, e.g. the `weight.t()` of nn.Linear."""
    strides, shape, itemsize = matrix._data.strides, matrix._data.shape, matrix._data.itemsize
    return strides[0] == itemsize and strides[1] == itemsize * shape[0]


def _mm_mat1_backward(grad, mat1, mat2):
    """grad @ mat2.T, laid out like mat1 (as PyTorch does) so the leaf's grad stays contiguous."""
    if _column_major(mat1):
        return mm(mat2, grad.t()).t()
    return mm(grad, mat2.t())


def _mm_mat2_backward(grad, mat1, mat2):
    """mat1.T @ grad, laid out like mat2."""
    if _column_major(mat2):
        return mm(grad.t(), mat1).t()
    return mm(mat1.t(), grad)


def _check_addmv(self_array, a, b):
    """addmv's checks (mv runs them with an implicit `self` of the matrix's row count)."""
    self_ndim = 1 if self_array is None else self_array.ndim
    if self_ndim > 1 or a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self_ndim}, {a.ndim}, "
                           f"{b.ndim}")
    self_size = a.shape[0] if self_array is None else self_array.size
    if a.shape[1] != b.shape[0] or self_size not in (1, a.shape[0]):
        raise _diagnose.noted(RuntimeError(
            f"size mismatch, got input ({self_size}), mat ({a.shape[0]}x{a.shape[1]}), vec "
            f"({b.shape[0]})"), "matmul", a=a.shape, b=b.shape, operation="mv",
            names=("mat", "vec"))
    self_dtype = b.dtype if self_array is None else self_array.dtype
    if not self_dtype == a.dtype == b.dtype:
        names = [_errors.scalar_type_name(_dtype.FROM_NUMPY[d]) for d in (self_dtype, a.dtype,
                                                                          b.dtype)]
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{names[0]}, {names[1]}, and {names[2]}")
    if a.dtype == _BOOL or a.dtype in _LIMITED:
        raise _not_implemented("addmv_impl_cpu", a.dtype)


def mv(input, vec):
    """Matrix-vector product."""
    a, b = _arrays("mv", input, vec, "vec")
    _check_addmv(None, a, b)
    device = input._device
    out = make_tensor(_product(device.xp, a, b), device)
    if grad_state.enabled and (input._requires_grad or vec._requires_grad):
        node = MvBackward0()
        node.save(input, vec)
        attach(out, node, input, vec)
    return out


class MvBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, vec = self.saved_tensors
        grad_input = outer(grad, vec) if self.needs_input_grad(0) else None
        grad_vec = mv(input.t(), grad) if self.needs_input_grad(1) else None
        return grad_input, grad_vec


def _dot(input, other, fn, node_type):
    a, b = _arrays(fn, input, other, "tensor" if fn == "dot" else "other")
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise _diagnose.noted(RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] "
            f"to have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
            "elements respectively"), "matmul", a=a.shape, b=b.shape, operation=fn,
            names=("input", "other"))
    if a.dtype != b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{_errors.scalar_type_name(_dtype.FROM_NUMPY[a.dtype])} and "
                           f"{_errors.scalar_type_name(_dtype.FROM_NUMPY[b.dtype])}")
    if a.dtype == _BOOL or a.dtype in _LIMITED:
        raise _not_implemented("dot", a.dtype)
    out = wrap(_product(input._device.xp, a, b), input._device)
    if grad_state.enabled and (input._requires_grad or other._requires_grad):
        node = node_type()
        node.save(input, other)
        attach(out, node, input, other)
    return out


def dot(input, tensor):
    """Inner product of two 1-D tensors of the same dtype."""
    return _dot(input, tensor, "dot", DotBackward0)


class DotBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, other = self.saved_tensors
        grad_input = grad * other if self.needs_input_grad(0) else None
        grad_other = grad * input if self.needs_input_grad(1) else None
        return grad_input, grad_other


def vdot(input, other):
    """dot with the first argument conjugated (the same as dot for real tensors)."""
    return _dot(input, other, "vdot", VdotBackward0)


class VdotBackward0(DotBackward0):
    __slots__ = ()


def _check_bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise _diagnose.noted(RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."),
            "matmul", a=a.shape, b=b.shape, operation="bmm", names=("batch1", "batch2"))
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(b)}")
    if a.dtype == _BOOL or a.dtype in _LIMITED:
        raise _not_implemented("bmm", a.dtype)


def _scalar_name(array):
    return _errors.scalar_type_name(_dtype.FROM_NUMPY[array.dtype])


def bmm(input, mat2):
    """Batched matrix product of two 3-D tensors with the same batch size."""
    if _autocast.on:
        return _autocast.lower_precision(bmm, input, mat2)
    a, b = _arrays("bmm", input, mat2, "mat2")
    _check_bmm(a, b)
    device = input._device
    out = make_tensor(_product(device.xp, a, b), device)
    if grad_state.enabled and (input._requires_grad or mat2._requires_grad):
        node = BmmBackward0()
        node.save(input, mat2)
        attach(out, node, input, mat2)
    return out


class BmmBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        input, mat2 = self.saved_tensors
        grad_input = bmm(grad, mat2.mT) if self.needs_input_grad(0) else None
        grad_mat2 = bmm(input.mT, grad) if self.needs_input_grad(1) else None
        return grad_input, grad_mat2


# ---------------------------------------------------------------- matmul
def matmul(input, other):
    """The `@` operator: dot, mv, mm or a broadcast batched product, by the operands' ranks."""
    if _autocast.on:
        return _autocast.lower_precision(matmul, input, other)
    a, b = _arrays("matmul", input, other, "other")
    dim1, dim2 = a.ndim, b.ndim
    if dim1 == 2 and dim2 == 2:
        return mm(input, other)  # through the module name, so the profiler sees aten::mm
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{dim1}D and {dim2}D")
    if dim1 == 1 and dim2 == 1:
        return dot(input, other)
    if dim1 == 2 and dim2 == 1:
        return mv(input, other)
    if dim1 == 1 and dim2 == 2:
        return mm(input.unsqueeze(0), other).squeeze_(0)
    if dim1 == 3 and dim2 == 3:
        # ATen drops a batch of one from an operand that requires grad, so that its
        # gradient comes from one mm instead of a broadcast bmm summed afterwards.
        if b.shape[0] == 1 and a.shape[0] != 1 and other._requires_grad:
            return matmul(input, other.squeeze(0))
        if a.shape[0] == 1 and b.shape[0] != 1 and input._requires_grad:
            return matmul(input.squeeze(0), other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _should_fold(input, other):
    """ATen's `should_fold`: can the larger operand's batch fold into mm/mv rows?"""
    input_larger = input._data.ndim >= other._data.ndim
    larger, smaller = (input, other) if input_larger else (other, input)
    if not (larger._data.ndim >= 3 and smaller._data.ndim <= 2):
        return False
    if smaller._requires_grad:
        # Folding keeps the smaller operand's gradient a single mm, without a large
        # broadcast intermediate.
        return True
    if input._data.ndim == 2:
        return False
    if larger._data.size == 0:
        return True
    shape, strides = list(larger._data.shape), list(larger.stride())
    if not input_larger:  # ATen folds other.mT: its last two dims swapped
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded_matmul(input, other):
    """One mm (or mv) over the larger operand's batch folded into rows."""
    transpose = other._data.ndim > input._data.ndim
    t1 = other.mT if transpose else input
    if not transpose:
        t2 = other
    else:
        t2 = input.t() if input._data.ndim == 2 else input
    sizes = t1._data.shape
    output_shape = sizes[:-1]
    folded_rows = 1
    for size in output_shape:
        folded_rows *= size
    folded = t1.reshape(folded_rows, sizes[-1])
    if t2._data.ndim == 2:
        output = _unsafe_view(mm(folded, t2), output_shape + (t2._data.shape[1],))
        return output.mT.contiguous() if transpose else output
    return _unsafe_view(mv(folded, t2), output_shape)


def _batched_matmul(input, other):
    """Expand both operands to the broadcast batch, flatten it, and bmm."""
    a, b = input._data, other._data
    dim1, dim2 = a.ndim, b.ndim
    n = a.shape[-2] if dim1 > 1 else 1
    m1 = a.shape[-1]
    m2 = b.shape[-2] if dim2 > 1 else b.shape[0]
    p = b.shape[-1] if dim2 > 1 else 1
    batch = _broadcast_batch(a.shape[:max(dim1 - 2, 0)], b.shape[:max(dim2 - 2, 0)])
    count = 1
    for size in batch:
        count *= size
    t1 = input.expand(batch + (n, m1)).reshape(count, n, m1)
    vector_rhs = dim2 == 1
    if vector_rhs:
        t2 = other.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        t2 = other.expand(batch + (m2, p)).reshape(count, m2, p)
    output_shape = batch + ((n,) if dim1 > 1 else ()) + ((p,) if dim2 > 1 else ())
    output = bmm(t1, t2)
    if vector_rhs:
        output = output.squeeze(-1)
    return _unsafe_view(output, output_shape)


def _broadcast_batch(shape_a, shape_b):
    message = _errors.broadcast_mismatch(shape_a, shape_b)
    if message:
        raise RuntimeError(message)
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    return tuple(y if x == 1 else x for x, y in zip(a, b))


# ---------------------------------------------------------------- addmm / addmv / baddbmm
def _check_addmm(c, a, b):
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    if a.dtype != b.dtype:
        raise _diagnose.noted(RuntimeError("mat1 and mat2 must have the same dtype, but got "
                                           f"{_scalar_name(a)} and {_scalar_name(b)}"),
                              "dtype", input_dtype=a.dtype, parameter_dtype=b.dtype)
    if c.dtype != b.dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{_scalar_name(c)} and {_scalar_name(b)}")
    _check_mm_shapes(a, b)
    if a.dtype == _BOOL or a.dtype in _LIMITED:
        raise _not_implemented("addmm_impl_cpu_", a.dtype)


def _add_scaled(input, product, beta, alpha, blas=False):
    """beta * input + alpha * product, where `product` is a fresh array (updated in place).

    Raises PyTorch's expand error when `input` does not broadcast to the product. With
    `blas` (float32/float64 addmm, addmv, addbmm: PyTorch's gemm/gemv calls), alpha == 0
    ignores the product entirely, as BLAS never reads the matrices then: their nan and inf
    do not propagate (addr, baddbmm and the half types multiply, and do propagate them).
    """
    c = input._data
    if c.dtype != product.dtype:  # a float16/bfloat16 input joins a float32 product
        c = c.astype(product.dtype)
    if c.shape != product.shape and not _broadcastable(c.shape, product.shape):
        input.expand(product.shape)  # raises with PyTorch's text
    if beta == 1 and alpha == 1:
        product += c
        return product
    dtype = product.dtype
    beta, alpha = _scalar_for(dtype, beta), _scalar_for(dtype, alpha)
    if alpha != 1:
        if alpha == 0 and blas:
            product[...] = c * beta if beta != 0 else 0
            return product
        product *= alpha
    if beta != 0:  # beta == 0 ignores input entirely: its nan and inf do not propagate
        product += c * beta if beta != 1 else c
    return product


def _add_product(xp, input, a, b, beta, alpha, blas=False):
    """beta * input + alpha * (a @ b) on arrays. float16/bfloat16 round once, after the
    sum: PyTorch's CPU kernels keep the whole fused expression in float32, so bias + product
    in nn.Linear is not rounded twice."""
    if a.dtype in _REDUCED:
        wide = xp.matmul(a.astype(_FLOAT32), b.astype(_FLOAT32))
        # PyTorch's float16/bfloat16 kernels scale the product (0 * nan is nan): no BLAS
        return _add_scaled(input, wide, beta, alpha).astype(a.dtype)
    return _add_scaled(input, xp.matmul(a, b), beta, alpha, blas)


def _broadcastable(shape, target):
    """Whether `shape` expands to `target` (trailing dims equal or 1)."""
    if len(shape) > len(target):
        return False
    for size, goal in zip(reversed(shape), reversed(target)):
        if size != 1 and size != goal:
            return False
    return True


def _record_add_product(out, node_type, beta, alpha, input, first, second):
    node = node_type()
    node.beta, node.alpha = beta, alpha
    node.shape = input._data.shape
    node.save(first, second)
    return attach(out, node, input, first, second)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2): what nn.Linear computes."""
    if _autocast.on:
        return _autocast.lower_precision(addmm, input, mat1, mat2, beta=beta, alpha=alpha)
    a, b = _arrays("addmm", mat1, mat2, "mat2")
    if not isinstance(input, Tensor):
        raise TypeError(f"addmm(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    _check_addmm(input._data, a, b)
    device = mat1._device
    out = make_tensor(_add_product(device.xp, input, a, b, beta, alpha, blas=True), device)
    if grad_state.enabled and (input._requires_grad or mat1._requires_grad
                               or mat2._requires_grad):
        _record_add_product(out, AddmmBackward0, beta, alpha, input, mat1, mat2)
    return out


class AddmmBackward0(Node):
    __slots__ = ("beta", "alpha", "shape")

    def backward(self, grad):
        mat1, mat2 = self.saved_tensors
        grad_input = sum_to_shape(_scaled(grad, self.beta), self.shape) if self.needs_input_grad(0) \
            else None
        grad_mat1 = _scaled(_mm_mat1_backward(grad, mat1, mat2), self.alpha) if self.needs_input_grad(1) \
            else None
        grad_mat2 = _scaled(_mm_mat2_backward(grad, mat1, mat2), self.alpha) if self.needs_input_grad(2) \
            else None
        return grad_input, grad_mat1, grad_mat2


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    a, b = _arrays("addmv", mat, vec, "vec")
    if not isinstance(input, Tensor):
        raise TypeError(f"addmv(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    _check_addmv(input._data, a, b)
    device = mat._device
    out = make_tensor(_add_product(device.xp, input, a, b, beta, alpha, blas=True), device)
    if grad_state.enabled and (input._requires_grad or mat._requires_grad
                               or vec._requires_grad):
        _record_add_product(out, AddmvBackward0, beta, alpha, input, mat, vec)
    return out


class AddmvBackward0(Node):
    __slots__ = ("beta", "alpha", "shape")

    def backward(self, grad):
        mat, vec = self.saved_tensors
        grad_input = sum_to_shape(_scaled(grad, self.beta), self.shape) if self.needs_input_grad(0) \
            else None
        grad_mat = _scaled(outer(grad, vec), self.alpha) if self.needs_input_grad(1) else None
        grad_vec = _scaled(mv(mat.t(), grad), self.alpha) if self.needs_input_grad(2) else None
        return grad_input, grad_mat, grad_vec


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    if _autocast.on:
        return _autocast.lower_precision(baddbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    a, b = _arrays("baddbmm", batch1, batch2, "batch2")
    if not isinstance(input, Tensor):
        raise TypeError(f"baddbmm(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    # PyTorch broadcasts input to the product's shape before any other check
    input.expand(batch1.size(0), batch1.size(1), batch2.size(2))
    c = input._data
    if c.dtype != a.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp_name(c)}, "
                           f"batch1: {_cpp_name(a)}, batch2: {_cpp_name(b)}")
    _check_bmm(a, b)
    device = batch1._device
    out = make_tensor(_add_product(device.xp, input, a, b, beta, alpha), device)
    if grad_state.enabled and (input._requires_grad or batch1._requires_grad
                               or batch2._requires_grad):
        _record_add_product(out, BaddbmmBackward0, beta, alpha, input, batch1, batch2)
    return out


def _cpp_name(array):
    return _errors.cpp_type_name(_dtype.FROM_NUMPY[array.dtype])


class BaddbmmBackward0(Node):
    __slots__ = ("beta", "alpha", "shape")

    def backward(self, grad):
        batch1, batch2 = self.saved_tensors
        grad_input = sum_to_shape(_scaled(grad, self.beta), self.shape) if self.needs_input_grad(0) \
            else None
        grad_batch1 = _scaled(bmm(grad, batch2.mT), self.alpha) if self.needs_input_grad(1) else None
        grad_batch2 = _scaled(bmm(batch1.mT, grad), self.alpha) if self.needs_input_grad(2) else None
        return grad_input, grad_batch1, grad_batch2


# ---------------------------------------------------------------- outer / inner / tensordot
def outer(input, vec2):
    """Outer product of two 1-D tensors; PyTorch computes it as a broadcast multiply."""
    for name, value in (("self", input), ("vec2", vec2)):
        if not isinstance(value, Tensor):
            raise TypeError(f"outer(): argument '{'input' if name == 'self' else name}' "
                            f"(position {1 if name == 'self' else 2}) must be Tensor, not "
                            f"{type(value).__name__}")
        if value._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got "
                               f"{value._data.ndim}-D")
    return input.reshape(input._data.shape[0], 1) * vec2


ger = outer


def inner(input, other):
    """Sum of products over the last dimension; a 0-dim operand multiplies instead."""
    if _autocast.on:
        return _autocast.lower_precision(inner, input, other)
    a, b = _arrays("inner", input, other, "other")
    if a.ndim == 0 or b.ndim == 0:
        return input * other
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {_errors.shape_list(a.shape)} and "
                           f"{_errors.shape_list(b.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def tensordot(a, b, dims=2, out=None):
    """Contract `dims` of `a` with `dims` of `b`: permute both, fold to matrices, mm, unfold."""
    if _autocast.on:  # not on PyTorch's lists: its inner mm keeps the operands' dtype
        return _autocast.unlisted(tensordot, a, b, dims, out)
    if out is not None:
        raise NotImplementedError("tensordot(): out= is not supported")
    x, y = _arrays("tensordot", a, b, "other")
    dims_a, dims_b = _tensordot_dims(dims, x.ndim, y.ndim)
    if x.dtype != y.dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2 = a, b
    contracted = 1
    for k, (da, db) in enumerate(zip(dims_a, dims_b)):
        size_a, size_b = x.shape[da], y.shape[db]
        if size_b == 1:  # a broadcast dimension can be summed right away
            t1 = t1.sum(da, keepdim=True, dtype=t1.dtype)
        elif size_a == 1:
            t2 = t2.sum(db, keepdim=True, dtype=t2.dtype)
        elif size_a != size_b:
            shown_a, shown_b = _given_dims(dims)
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{size_a} in dim {shown_a[k]} and second has size {size_b} in "
                               f"dim {shown_b[k]}")
        else:
            contracted *= size_a
    keep_a = [i for i in range(x.ndim) if i not in dims_a]
    keep_b = [i for i in range(y.ndim) if i not in dims_b]
    rows = cols = 1
    for i in keep_a:
        rows *= x.shape[i]
    for i in keep_b:
        cols *= y.shape[i]
    result_shape = tuple(x.shape[i] for i in keep_a) + tuple(y.shape[i] for i in keep_b)
    t1 = t1.permute(keep_a + list(dims_a)).reshape(rows, contracted)
    t2 = t2.permute(list(dims_b) + keep_b).reshape(contracted, cols)
    return mm(t1, t2).reshape(result_shape)


def _given_dims(dims):
    """The dims as PyTorch names them in messages: unwrapped, and -n..-1 for an int on `a`."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        return list(range(-dims, 0)), list(range(dims))
    return list(dims[0]), list(dims[1])


def _tensordot_dims(dims, ndim_a, ndim_b):
    """`dims` as two lists of wrapped dimensions."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > ndim_a or dims > ndim_b:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(ndim_a - dims, ndim_a)), list(range(dims))
    dims_a, dims_b = dims
    for name, value in (("dims_self", dims_a), ("dims_other", dims_b)):
        if isinstance(value, int):
            raise TypeError(f"tensordot(): argument '{name}' (position "
                            f"{3 if name == 'dims_self' else 4}) must be tuple of ints, not int")
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    return [wrap_dim(d, ndim_a) for d in dims_a], [wrap_dim(d, ndim_b) for d in dims_b]
