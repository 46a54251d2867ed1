"""The remaining fused add-products (addr, addbmm), their in-place forms and those of
addmm/addmv/baddbmm, chain_matmul and dist.

addr and addbmm are ATen primitives with their own nodes (AddrBackward0,
AddbmmBackward0), so they are one NumPy product each here too; the in-place forms
go through `inplace`, which keeps the out-of-place node as PyTorch does
(`x.addmm_(a, b).grad_fn` is AddmmBackward0). chain_matmul and dist are compositions
in PyTorch (a chain of mm, a norm of a difference) and are composed the same way.
"""
from . import _autocast
from .. import _dtype, _errors
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, inplace, make_tensor, sum_to_shape
from .cumulative import _bool_scan_, cumprod
from .linalg import (_add_scaled, _arrays, _product, _scaled, _scalar_name, addmm, addmv,
                     baddbmm, bmm, mm, mv)
from .norms import _norm_backward, vector_norm

# torch.* has addmv_ of the in-place forms; the others are Tensor methods only
__all__ = ["addr", "addbmm", "addmv_", "chain_matmul", "dist"]

_BOOL = _dtype.bool.np_dtype


def _check_integral_factors(dtype, beta, alpha):
    if dtype.kind in "iub":
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                kind = "Boolean" if dtype.kind == "b" else "integral"
                raise RuntimeError(f"For {kind} input tensors, argument {name} must not be a "
                                   "floating point number.")


# ---------------------------------------------------------------- addr
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2), in the three operands' promoted dtype."""
    a, b = _arrays("addr", vec1, vec2, "vec2")
    for name, array in (("vec1", a), ("vec2", b)):
        if array.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {array.ndim}-D")
    dtype = _dtype.promote_types(_dtype.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    np_dtype = dtype.np_dtype
    _check_integral_factors(np_dtype, beta, alpha)
    xp = vec1._device.xp
    product = xp.multiply.outer(a.astype(np_dtype, copy=False), b.astype(np_dtype, copy=False))
    if np_dtype == _BOOL:
        # booleans: (beta and input) or (alpha and outer), as ATen reads the factors
        product = product & bool(alpha)
        if beta:
            c = input._data
            if c.shape != product.shape:
                input.expand(product.shape)  # PyTorch's expand error when it cannot
            product = product | c
        out = make_tensor(product, vec1._device)
    else:
        operand = input if input.dtype is dtype else input.to(dtype)
        out = make_tensor(_add_scaled(operand, product, beta, alpha), vec1._device)
    if grad_state.enabled and (input._requires_grad or vec1._requires_grad
                               or vec2._requires_grad):
        node = AddrBackward0()
        node.beta, node.alpha = beta, alpha
        node.shape, node.dtypes = input._data.shape, (input.dtype, vec1.dtype, vec2.dtype)
        node.save(vec1, vec2)
        attach(out, node, input, vec1, vec2)
    return out


def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    if input._data.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {input._data.ndim}D tensor for input")
    if isinstance(vec1, Tensor) and isinstance(vec2, Tensor) and vec1.dim() == vec2.dim() == 1 \
            and input._data.shape != (vec1._data.shape[0], vec2._data.shape[0]):
        raise RuntimeError(f"size mismatch, input: {_errors.shape_list(input._data.shape)}, v1: "
                           f"{_errors.shape_list(vec1._data.shape)}, v2: "
                           f"{_errors.shape_list(vec2._data.shape)}")
    return inplace(input, addr, vec1, vec2, beta=beta, alpha=alpha)


def _as(grad, dtype):
    return grad if grad.dtype is dtype else grad.to(dtype)


class AddrBackward0(Node):
    __slots__ = ("beta", "alpha", "shape", "dtypes")

    def backward(self, grad):
        vec1, vec2 = self.saved_tensors
        grads = [None, None, None]
        if self.needs_input_grad(0):
            grads[0] = _as(sum_to_shape(_scaled(grad, self.beta), self.shape), self.dtypes[0])
        if self.needs_input_grad(1):
            grads[1] = _as(_scaled(mv(grad, _as(vec2, grad.dtype)), self.alpha), self.dtypes[1])
        if self.needs_input_grad(2):
            grads[2] = _as(_scaled(mv(grad.t(), _as(vec1, grad.dtype)), self.alpha),
                           self.dtypes[2])
        return tuple(grads)


# ---------------------------------------------------------------- addbmm
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]: bmm reduced over the batch."""
    if _autocast.on:
        return _autocast.lower_precision(addbmm, input, batch1, batch2, beta=beta, alpha=alpha)
    a, b = _arrays("addbmm", batch1, batch2, "batch2")
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{a.shape[0]} and {b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} and "
                           f"{b.shape[1]}x{b.shape[2]})")
    for array in (input._data, a):
        if array.dtype != b.dtype:
            raise RuntimeError("self and mat2 must have the same dtype, but got "
                               f"{_scalar_name(array)} and {_scalar_name(b)}")
    if a.dtype == _BOOL:
        raise NotImplementedError(_errors.not_implemented_for("addbmm", _dtype.bool))
    xp = batch1._device.xp
    product = _product(xp, a, b).sum(axis=0, dtype=a.dtype)
    if input._data.ndim == 2 and input._data.shape != product.shape:
        input.expand(product.shape)  # PyTorch's expand error
    blas = a.dtype not in _dtype.COMPUTED_IN_FLOAT32
    out = make_tensor(_add_scaled(input, xp.asarray(product), beta, alpha, blas),
                      batch1._device)
    if grad_state.enabled and (input._requires_grad or batch1._requires_grad
                               or batch2._requires_grad):
        node = AddbmmBackward0()
        node.beta, node.alpha, node.shape = beta, alpha, input._data.shape
        node.save(batch1, batch2)
        attach(out, node, input, batch1, batch2)
    return out


def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    return inplace(input, addbmm, batch1, batch2, beta=beta, alpha=alpha)


class AddbmmBackward0(Node):
    __slots__ = ("beta", "alpha", "shape")

    def backward(self, grad):
        batch1, batch2 = self.saved_tensors
        grads = [None, None, None]
        if self.needs_input_grad(0):
            grads[0] = sum_to_shape(_scaled(grad, self.beta), self.shape)
        if self.needs_input_grad(1) or self.needs_input_grad(2):
            # every batch's product received the same gradient
            batched = grad.unsqueeze(0).expand(batch1.shape[0], *grad.shape)
            if self.needs_input_grad(1):
                grads[1] = _scaled(bmm(batched, batch2.mT), self.alpha)
            if self.needs_input_grad(2):
                grads[2] = _scaled(bmm(batch1.mT, batched), self.alpha)
        return tuple(grads)


# ---------------------------------------------------------------- in-place forms
def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    if isinstance(mat1, Tensor) and isinstance(mat2, Tensor) and mat1.dim() == mat2.dim() == 2 \
            and mat1._data.shape[1] == mat2._data.shape[0]:
        _check_inplace_shape(input, (mat1._data.shape[0], mat2._data.shape[1]))
    return inplace(input, addmm, mat1, mat2, beta=beta, alpha=alpha)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    return inplace(input, addmv, mat, vec, beta=beta, alpha=alpha)


def _check_inplace_shape(input, shape):
    if input._data.shape != shape:
        raise RuntimeError("Bad in-place call: input tensor size "
                           f"{_errors.shape_list(input._data.shape)} and output tensor size "
                           f"{_errors.shape_list(shape)} should match")


def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if isinstance(batch1, Tensor) and isinstance(batch2, Tensor) and \
            batch1.dim() == batch2.dim() == 3 and batch1._data.shape[0] == batch2._data.shape[0] \
            and batch1._data.shape[2] == batch2._data.shape[1] and \
            batch1._data.dtype == batch2._data.dtype == input._data.dtype:
        _check_inplace_shape(input, (batch1._data.shape[0], batch1._data.shape[1],
                                     batch2._data.shape[2]))
    return inplace(input, baddbmm, batch1, batch2, beta=beta, alpha=alpha)


def cumprod_(input, dim, *, dtype=None):
    if dtype is not None and dtype is not input.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype "
                           f"{_errors.cpp_type_name(input.dtype)} and output tensor dtype "
                           f"{_errors.cpp_type_name(dtype)} should match")
    if input.dtype is _dtype.bool and _bool_scan_(input, dim, "cumprod_out_cpu"):
        return input
    return inplace(input, cumprod, dim, dtype=dtype)


# ---------------------------------------------------------------- compositions
def chain_matmul(*matrices, out=None):
    """mm of the matrices left to right (deprecated in PyTorch for linalg.multi_dot)."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    result = matrices[0]
    for m in matrices[1:]:
        result = mm(result, m)
    return result


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), one DistBackward0 node as in PyTorch."""
    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    with no_grad():
        difference = input - other
        if not difference.is_floating_point():
            raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                               f"Got {_errors.scalar_type_name(difference.dtype)} instead.")
        out = vector_norm(difference, p)
    if grad_state.enabled and (input._requires_grad or other._requires_grad):
        node = DistBackward0()
        node.p, node.shapes = p, (input._data.shape, other._data.shape)
        node.save(input, other)
        attach(out, node, input, other)
    return out


class DistBackward0(Node):
    __slots__ = ("p", "shapes")

    def backward(self, grad):
        input, other = self.saved_tensors
        difference = input - other
        # the norm recomputed from the inputs, so that double backward sees its history
        grad_difference = _norm_backward(grad, difference, self.p, vector_norm(difference, self.p),
                                         None)
        if grad_difference is None:
            return None, None
        grad_input = sum_to_shape(grad_difference, self.shapes[0]) \
            if self.needs_input_grad(0) else None
        # negated before the sum over broadcast dims, as PyTorch: a sum of -0.0s is +0.0
        grad_other = sum_to_shape(-grad_difference, self.shapes[1]) \
            if self.needs_input_grad(1) else None
        return grad_input, grad_other
