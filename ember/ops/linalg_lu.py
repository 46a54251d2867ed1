"""LU factorizations: linalg.lu_factor(_ex), lu, lu_solve and torch.lu_unpack.

SciPy's batched getrf (`scipy.linalg.lu_factor`, `scipy.linalg.lu`) and getrs
(`lu_solve`) do the work. Pivots are LAPACK's, 1-based int32 as PyTorch returns them.
The backward passes are PyTorch's linalg_lu_backward for square matrices; lu_solve's
gradient flows to LU through A = P L U.
"""
import math as _math
import warnings as _warnings

from .._backend import scipy_linalg as _scipy_linalg

from .. import return_types as _rt
from ..autograd.graph import Node
from ._common import attach, grad_state, sum_to_shape
from ._linalg_common import (LinAlgError, batch_prefix, check_matrix, new,
                             not_implemented)
from .diagonal import tril, triu
from .linalg import matmul
from .linalg_solve import solve_triangular

__all__ = ["lu_unpack"]



def _check_lu(A):
    """PyTorch checks the rank, then lets the kernel refuse a dtype: an empty batch never
    reaches the kernel, so it is factored (trivially) whatever its dtype."""
    if A._data.ndim < 2:
        raise RuntimeError(f"ember.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A._data.shape)} instead")
    if A._data.size and (not A.dtype.is_floating_point or A.dtype.itemsize < 4):
        raise not_implemented("lu_cpu", A.dtype)


def _getrf(xp, data):
    """(LU, 1-based pivots, info) of a batch; info > 0 names the first zero of U's diagonal."""
    m, n = data.shape[-2:]
    k = min(m, n)
    if data.size == 0:
        pivots = xp.broadcast_to(xp.arange(1, k + 1, dtype="int32"), data.shape[:-2] + (k,))
        return data.copy(), pivots.copy(), xp.zeros(data.shape[:-2], "int32")
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore", _scipy_linalg.LinAlgWarning)
        lu, pivots = _scipy_linalg.lu_factor(data, check_finite=False)
    zero = xp.diagonal(lu, 0, -2, -1) == 0
    info = xp.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0).astype("int32")
    return lu, (pivots + 1).astype("int32"), info


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """A = P L U packed into one matrix (L below the diagonal, U on and above), pivots, info."""
    _check_lu(A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    xp = A._device.xp
    lu, pivots, info = _getrf(xp, A._data)
    if check_errors and bool((info > 0).any()):
        index = int((info.reshape(-1) > 0).argmax())
        raise LinAlgError(f"ember.linalg.lu_factor_ex: {batch_prefix(A._data, index)}U["
                          f"{int(info.reshape(-1)[index])},{int(info.reshape(-1)[index])}] is "
                          "zero and using it on lu_solve would result in a division by zero.")
    outputs = (new(lu, A), new(pivots, A), new(info, A))
    if grad_state.enabled and A._requires_grad:
        node = LinalgLuFactorExBackward0()
        node.save(outputs[1])
        node.save_output(outputs[0])
        attach(outputs[0], node, A)
    return _rt.linalg_lu_factor_ex(*outputs)


class LinalgLuFactorExBackward0(Node):
    __slots__ = ()

    def backward(self, grad, *unused):
        pivots, LU = self.saved_tensors
        P, L, U = lu_unpack(LU, pivots)
        return (_lu_backward(tril(grad, -1), triu(grad), P, L, U),)


def lu_factor(A, *, pivot=True):
    """linalg.lu_factor: raises when U has an exact zero on its diagonal."""
    _check_lu(A)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    flat = info._data.reshape(-1)
    if bool((flat > 0).any()):
        index = int((flat > 0).argmax())
        position = int(flat[index])
        raise RuntimeError(f"ember.linalg.lu_factor: {batch_prefix(A._data, index)}U[{position},"
                           f"{position}] is zero and using it on lu_solve would result in a "
                           "division by zero. If you still want to perform the factorization, "
                           "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
                           "pivot)")
    return _rt.linalg_lu_factor(LU, pivots)


def _lu_backward(gL, gU, P, L, U):
    """PyTorch's linalg_lu_backward, square case: gA = P L^-T (tril_-1(L^T gL) + triu(gU U^T))
    U^-T."""
    m, n = L.shape[-2], U.shape[-1]
    if m != n:
        raise NotImplementedError("ember: the LU backward is implemented for square matrices "
                                  "only")
    gR = None
    if gL is not None:
        gR = tril(matmul(L.mT, gL), -1)
    if gU is not None:
        part = triu(matmul(gU, U.mT))
        gR = part if gR is None else gR + part
    gA = solve_triangular(L.mT, gR, upper=True, left=True, unitriangular=True)
    gA = solve_triangular(U.mT, gA, upper=False, left=False)
    return matmul(P, gA)


# ---------------------------------------------------------------- lu / lu_unpack
def lu(A, *, pivot=True):
    """A = P L U with a permutation P, unit lower-triangular L and upper-triangular U."""
    _check_lu(A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    xp = A._device.xp
    lu_data, pivots, _ = _getrf(xp, A._data)
    outputs = tuple(new(array, A) for array in _unpack_arrays(xp, lu_data, pivots))
    P, L, U = outputs
    if grad_state.enabled and A._requires_grad:
        node = LinalgLuBackward0()  # P is a constant: only L and U have a gradient
        node.save(P)
        node.save_output(L, 1)
        node.save_output(U, 2)
        attach(L, node, A)
        U.grad_fn, U._requires_grad = node, True
        L._output_nr, U._output_nr = 1, 2
    return _rt.linalg_lu(*outputs)


class LinalgLuBackward0(Node):
    __slots__ = ()

    def backward(self, grad_P=None, grad_L=None, grad_U=None):
        P, L, U = self.saved_tensors
        if grad_L is None and grad_U is None:
            return (None,)
        return (_lu_backward(grad_L, grad_U, P, L, U),)


def _permutation(xp, pivots, m):
    """The row order P^T applies, from LAPACK's sequence of swaps (row i <-> pivots[i] - 1)."""
    batch = pivots.shape[:-1]
    order = xp.broadcast_to(xp.arange(m), batch + (m,)).copy()
    flat = order.reshape(_math.prod(batch), m)  # explicit sizes: an empty batch or m = 0
    swaps = (pivots.reshape(flat.shape[0], pivots.shape[-1]) - 1).astype("int64")
    rows = xp.arange(flat.shape[0])
    for i in range(swaps.shape[-1]):  # k sequential swaps, each over the whole batch
        j = swaps[:, i]
        first, second = flat[rows, i].copy(), flat[rows, j].copy()
        flat[rows, i], flat[rows, j] = second, first
    return flat.reshape(batch + (m,))


def _unpack_arrays(xp, data, pivots):
    m, n = data.shape[-2:]
    k = min(m, n)
    order = _permutation(xp, pivots, m)
    P = xp.swapaxes(xp.eye(m, dtype=data.dtype)[order], -1, -2)
    L = xp.tril(data[..., :, :k], -1)
    diagonal = xp.arange(k)
    L[..., diagonal, diagonal] = 1   # set, not added: a -0.0 multiplier below stays -0.0
    U = xp.triu(data[..., :k, :])
    return xp.ascontiguousarray(P), L, U


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from lu_factor's packed LU and pivots."""
    data, xp = LU_data._data, LU_data._device.xp
    P, L, U = _unpack_arrays(xp, data, LU_pivots._data)
    empty = xp.zeros((0,), data.dtype)
    P = new(P if unpack_pivots else empty, LU_data)
    if not unpack_data:
        return _rt.lu_unpack(P, new(empty, LU_data), new(empty, LU_data))
    L, U = new(L, LU_data), new(U, LU_data)
    if grad_state.enabled and LU_data._requires_grad:
        node = LuUnpackBackward0()
        node.shape = data.shape
        attach(L, node, LU_data)
        U.grad_fn, U._requires_grad = node, True
        L._output_nr, U._output_nr = 1, 2
    return _rt.lu_unpack(P, L, U)


class LuUnpackBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad_P=None, grad_L=None, grad_U=None):
        m, n = self.shape[-2:]
        parts = []
        if grad_L is not None:
            parts.append(_pad(tril(grad_L, -1), m, n))
        if grad_U is not None:
            parts.append(_pad(triu(grad_U), m, n))
        if not parts:
            return (None,)
        return (parts[0] if len(parts) == 1 else parts[0] + parts[1],)


def _pad(grad, m, n):
    """Place an (m, k) or (k, n) gradient into the (m, n) packed LU shape."""
    rows, cols = grad.shape[-2], grad.shape[-1]
    if (rows, cols) == (m, n):
        return grad
    full = grad.new_zeros(tuple(grad.shape[:-2]) + (m, n))
    full[..., :rows, :cols] = grad
    return full


# ---------------------------------------------------------------- lu_solve
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with AX = B (A^T X = B when adjoint; XA = B when not left) from lu_factor's output."""
    check_matrix("linalg.lu_solve", LU)
    xp = LU._device.xp
    lu_data, piv, b = LU._data, pivots._data - 1, B._data
    if b.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    trans = int(adjoint != (not left))  # X A = B is A^T X^T = B^T
    if not left:
        b = xp.swapaxes(b, -1, -2)
    result = _scipy_linalg.lu_solve((lu_data, piv), b, trans=trans, check_finite=False) \
        if b.size and lu_data.size else xp.zeros(b.shape, lu_data.dtype)
    if not left:
        result = xp.swapaxes(result, -1, -2)
    out = new(xp.ascontiguousarray(result), LU)
    if grad_state.enabled and (LU._requires_grad or B._requires_grad):
        node = LinalgLuSolveBackward0()
        node.left, node.adjoint, node.shapes = left, adjoint, (LU._data.shape, B._data.shape)
        node.save(LU, pivots)
        node.save_output(out)
        attach(out, node, LU, B)
    return out


class LinalgLuSolveBackward0(Node):
    __slots__ = ("left", "adjoint", "shapes")

    def backward(self, grad):
        LU, pivots, X = self.saved_tensors
        grad_B = lu_solve(LU, pivots, grad, left=self.left, adjoint=not self.adjoint)
        grad_LU = None
        if self.next_functions[0][0] is not None:
            # The gradient of the matrix A = P L U, then through the unpacking.
            if self.left:
                grad_A = -matmul(X, grad_B.mT) if self.adjoint else -matmul(grad_B, X.mT)
            else:
                grad_A = -matmul(grad_B.mT, X) if self.adjoint else -matmul(X.mT, grad_B)
            P, L, U = lu_unpack(LU.detach(), pivots)
            grad_PA = matmul(P.mT, grad_A)
            grad_LU = tril(matmul(grad_PA, U.mT), -1) + triu(matmul(L.mT, grad_PA))
            grad_LU = sum_to_shape(grad_LU, self.shapes[0])
        grad_B = sum_to_shape(grad_B, self.shapes[1]) if self.next_functions[1][0] is not None \
            else None
        return grad_LU, grad_B
