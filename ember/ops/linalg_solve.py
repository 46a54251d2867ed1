"""Inverses, determinants and linear solves: linalg.inv, det, slogdet, solve, solve_triangular,
cholesky, and the older torch.* spellings (inverse, logdet, triangular_solve, cholesky_solve,
cholesky_inverse).

NumPy's batched LAPACK gufuncs (and SciPy's batched solve_triangular / cho_solve) do the
work; each op keeps PyTorch's node name and its derivatives.yaml formula, written with
ember ops (these very functions), so double backward works.
"""
import contextlib
import warnings as _warnings

import numpy.linalg as _np_linalg
from . import _autocast
from .._backend import scipy_linalg as _scipy_linalg

from .. import _dtype, _errors, return_types as _rt
from ..autograd.graph import Node
from ._common import attach, grad_state, sum_to_shape
from ._linalg_common import (LinAlgError, attach_outputs, batch_prefix, check_matrix,
                             check_same_dtype, getrf_info, new, not_implemented,
                             singular_inverse_error)
from .diagonal import tril, triu
from .linalg import matmul
from .linalg_spectral import svd
from .pointwise_select import where

__all__ = ["inverse", "det", "logdet", "slogdet", "cholesky", "cholesky_solve",
           "cholesky_inverse", "triangular_solve"]

_NP_LINALG_ERROR = _np_linalg.LinAlgError
_HALF_TYPES = (_dtype.float16, _dtype.bfloat16)
_SCIPY_LINALG_ERROR = _np_linalg.LinAlgError  # scipy.linalg raises NumPy's


def _needs(node, index):
    return node.next_functions[index][0] is not None


def _broadcast_batches(xp, a, b, b_trailing):
    """A and B expanded to one batch shape (B keeps its last `b_trailing` dims)."""
    batch = _broadcast_shape(a.shape[:-2], b.shape[:b.ndim - b_trailing])
    return (xp.broadcast_to(a, batch + a.shape[-2:]),
            xp.broadcast_to(b, batch + b.shape[b.ndim - b_trailing:]))


def _broadcast_shape(x, y):
    ndim = max(len(x), len(y))
    x, y = (1,) * (ndim - len(x)) + tuple(x), (1,) * (ndim - len(y)) + tuple(y)
    out = []
    for p, q in zip(x, y):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b "
                               f"({q}) at non-singleton dimension {len(out)}")
        out.append(q if p == 1 else p)
    return tuple(out)


# ---------------------------------------------------------------- inv
@contextlib.contextmanager
def _quietly(xp):
    """No NumPy floating-point warning and no SciPy LinAlgWarning: the error paths below
    factor matrices already known to be singular or non-finite."""
    with _warnings.catch_warnings(), xp.errstate(all="ignore"):
        _warnings.simplefilter("ignore")
        yield


def _lu_solve_arrays(xp, a, b, trans=0, perturb=False):
    """X with AX = B (A^T X = B when trans=1) for a batch holding a singular matrix, by
    LAPACK's getrf and getrs as PyTorch solves it: a zero pivot gives inf and NaN where the
    pseudo-inverse NumPy could offer would give finite numbers that solve nothing. With
    `perturb`, an exactly zero pivot becomes eps first (PyTorch's det backward). Error path
    only: one SciPy call per matrix."""
    a, b = _broadcast_batches(xp, a, b, 2)
    a_flat = a.reshape((-1,) + a.shape[-2:])
    b_flat = b.reshape((-1,) + b.shape[-2:])
    out = xp.empty(b_flat.shape, xp.result_type(a, b))
    eps = xp.finfo(a.dtype).eps
    with _quietly(xp):
        for i, (matrix, rhs) in enumerate(zip(a_flat, b_flat)):
            lu, pivots = _scipy_linalg.lu_factor(matrix, check_finite=False)
            if perturb:
                diagonal = xp.einsum("ii->i", lu)
                diagonal[diagonal == 0] = eps
            out[i] = _scipy_linalg.lu_solve((lu, pivots), rhs, trans=trans, check_finite=False)
    return out.reshape(b.shape)


def inv_ex(A, *, check_errors=False):
    """The inverse of each square matrix of A, with LAPACK's info (0: success)."""
    check_matrix("linalg.inv", A)
    data, xp = A._data, A._device.xp
    try:
        result = _np_linalg.inv(data) if data.size else data.copy()
        info = xp.zeros(data.shape[:-2], dtype="int32")
    except _NP_LINALG_ERROR:
        if check_errors:
            raise singular_inverse_error("linalg.inv", data) from None
        eye = xp.broadcast_to(xp.eye(data.shape[-1], dtype=data.dtype), data.shape)
        result = _lu_solve_arrays(xp, data, eye)
        info = xp.asarray(getrf_info(data), dtype="int32").reshape(data.shape[:-2])
    out = new(result, A)
    if grad_state.enabled and A._requires_grad:
        node = LinalgInvExBackward0()
        node.save_output(out)
        attach(out, node, A)
    return _rt.linalg_inv_ex(out, new(info, A))


class LinalgInvExBackward0(Node):
    __slots__ = ()

    def backward(self, grad, grad_info=None):
        (inverse,) = self.saved_tensors
        inverse_t = inverse.mT
        return (-matmul(inverse_t, matmul(grad, inverse_t)),)


def inv(A):
    """linalg.inv: raises LinAlgError, naming the zero pivot, for a singular matrix."""
    if _autocast.on:
        return _autocast.float32(inv, A)
    return inv_ex(A, check_errors=True)[0]


inverse = inv


# ---------------------------------------------------------------- det / slogdet / logdet
def det(A):
    """The determinant of each square matrix (LU-based, as LAPACK computes it)."""
    check_matrix("linalg.det", A, reduced_kernel="lu_cpu")
    data = A._data
    if data.size == 0:  # the empty product: 1 per matrix, in any floating dtype
        out = new(A._device.xp.ones(data.shape[:-2], data.dtype), A)
    else:
        values = _np_linalg.det(data)
        xp = A._device.xp
        special = ~xp.isfinite(values) | (values == 0)
        if bool(special.any()):
            values = _det_from_lu(xp, data, values, special)
        out = new(values, A)
    if grad_state.enabled and A._requires_grad:
        node = LinalgDetBackward0()
        node.save(A)
        node.save_output(out)
        attach(out, node, A)
    return out


def _det_from_lu(xp, data, values, redo):
    """PyTorch's determinant of the singular or non-finite matrices: the product of U's
    diagonal, each pivot's row swap folded in as a factor -1. NumPy's sign * exp(logdet)
    loses the sign of a zero determinant and turns an inf pivot beside a zero into 0."""
    values = xp.array(values, copy=True)
    with _quietly(xp):
        lu, pivots = _scipy_linalg.lu_factor(data[redo], check_finite=False)
        swapped = pivots != xp.arange(pivots.shape[-1])
        values[redo] = (xp.diagonal(lu, 0, -2, -1) * xp.where(swapped, -1, 1)).prod(-1)
    return values


class LinalgDetBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        A, determinant = self.saved_tensors
        if A.dtype in _HALF_TYPES:  # PyTorch's half-type det backward works in float32
            return (self.backward_float32(A.float(), determinant.float(), grad.float())
                    .to(A.dtype),)
        return (self.backward_float32(A, determinant, grad),)

    @staticmethod
    def backward_float32(A, determinant, grad):
        scale = (grad * determinant).unsqueeze(-1).unsqueeze(-1)
        xp, values = A._device.xp, determinant._data
        if bool(((values != 0) & xp.isfinite(values)).all()):
            return scale * inv(A).mT
        if not grad_state.enabled:
            # PyTorch's first-order formula for every matrix: A^T X = det * grad * I, with
            # an exactly zero pivot of the LU replaced by eps, so that an exactly singular
            # matrix gets zeros and a non-finite one LAPACK's inf/NaN.
            eye = xp.eye(A._data.shape[-1], dtype=values.dtype)
            rhs = scale._data * eye
            return new(_lu_solve_arrays(xp, xp.swapaxes(A._data, -1, -2), rhs, perturb=True), A)
        # PyTorch's singular branch: d det / dA through the SVD, A = U diag(S) Vh, with the
        # product of the other singular values (no division by a zero one).
        U, S, Vh = svd(A)
        alpha = (det(U) * det(Vh)).unsqueeze(-1)
        n = S._data.shape[-1]
        eye = new(A._device.xp.eye(n, dtype=bool), A)
        others = where(eye, 1.0, S.unsqueeze(-2).expand(S.shape + (n,))).prod(-1)
        D = others * alpha * grad.unsqueeze(-1)
        return matmul(U * D.unsqueeze(-2), Vh)


def slogdet(A):
    """(sign, log|det|) of each square matrix: a determinant that cannot overflow."""
    check_matrix("linalg.slogdet", A)
    data, xp = A._data, A._device.xp
    sign, logabsdet = _np_linalg.slogdet(data)
    if data.size and not bool(xp.isfinite(logabsdet).all()):
        sign, logabsdet = _slogdet_from_lu(xp, data, sign, logabsdet)
    outputs = (new(sign, A), new(logabsdet, A))
    if grad_state.enabled and A._requires_grad:
        node = LinalgSlogdetBackward0()
        node.save(A)
        attach_outputs(node, outputs, A)
    return _rt.linalg_slogdet(*outputs)


def _slogdet_from_lu(xp, data, sign, logabsdet):
    """PyTorch's slogdet of the matrices NumPy found singular or non-finite.

    PyTorch multiplies sgn of U's diagonal (sgn(NaN) = 0) and sums log|u_ii|: a NaN pivot
    gives (0, NaN), a zero pivot beside an inf (0, NaN); NumPy keeps a sign of +-1 beside a
    NaN and answers (0, -inf) for any zero pivot. Only these matrices are factored again."""
    sign, logabsdet = xp.array(sign, copy=True), xp.array(logabsdet, copy=True)
    redo = ~xp.isfinite(logabsdet)
    with _quietly(xp):
        lu, pivots = _scipy_linalg.lu_factor(data[redo], check_finite=False)
        diagonal = xp.diagonal(lu, 0, -2, -1)
        swaps = (pivots != xp.arange(pivots.shape[-1])).sum(-1)
        signs = xp.where(xp.isnan(diagonal), 0, xp.sign(diagonal)).prod(-1)
        sign[redo] = xp.where(swaps % 2, -signs, signs)
        logabsdet[redo] = xp.log(xp.abs(diagonal)).sum(-1)
    return sign, logabsdet


class LinalgSlogdetBackward0(Node):
    __slots__ = ()

    def backward(self, grad_sign=None, grad_logabsdet=None):
        if grad_logabsdet is None:
            return (None,)
        (A,) = self.saved_tensors
        # PyTorch solves A^T X = grad * I (not grad * inv(A)^T): for a singular A, the
        # inf/NaN pattern is that solve's, and it carries the upstream's sign.
        eye = new(A._device.xp.eye(A._data.shape[-1], dtype=A._data.dtype), A)
        return (solve_ex(A.mT, grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * eye)[0],)


def logdet(input):
    """log det: nan for a negative determinant, -inf for a singular matrix."""
    check_matrix("logdet", input)
    sign, logabsdet = slogdet(input)
    return where(sign < 0, float("nan"), logabsdet)


# ---------------------------------------------------------------- solve
def solve_ex(A, B, *, left=True, check_errors=False):
    """X with AX = B (XA = B when left=False), broadcasting batches, and LAPACK's info."""
    check_matrix("linalg.solve", A, reduced_kernel="lu_cpu")
    check_same_dtype("linalg.solve", A, B)
    a, b, xp = A._data, B._data, A._device.xp
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    rows = b.shape[-1] if vector else (b.shape[-2] if left else b.shape[-1])
    if rows != a.shape[-1]:
        shown = f"{b.shape[-1]}x1" if vector else f"{b.shape[-2]}x{b.shape[-1]}"
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{equation} ({a.shape[-2]}x{a.shape[-1]} and {shown})")
    if vector:
        b = b[..., None]
    if not left:
        a, b = xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2)
    a, b = _broadcast_batches(xp, a, b, 2)
    info = xp.zeros(A._data.shape[:-2], dtype="int32")
    singular = False
    try:
        result = _np_linalg.solve(a, b) if b.size and a.size else xp.zeros(b.shape, a.dtype)
    except _NP_LINALG_ERROR:
        infos = getrf_info(a)
        if check_errors:
            index = next(i for i, value in enumerate(infos) if value > 0)
            raise LinAlgError(f"ember.linalg.solve: {batch_prefix(a, index)}The solver failed "
                              "because the input matrix is singular.") from None
        info = xp.asarray(infos, dtype="int32").reshape(a.shape[:-2])
        # XA = B as PyTorch solves it: A's own LU, transposed (not the LU of A^T)
        result = _lu_solve_arrays(xp, a, b) if left else \
            _lu_solve_arrays(xp, xp.swapaxes(a, -1, -2), b, trans=1)
        singular = True
    if not left:
        result = xp.swapaxes(result, -1, -2)
    if vector:
        result = result[..., 0]
    out = new(xp.ascontiguousarray(result), A)
    if grad_state.enabled and (A._requires_grad or B._requires_grad):
        node = LinalgSolveExBackward0()
        node.left, node.vector, node.shapes = left, vector, (A._data.shape, B._data.shape)
        node.singular = singular
        node.save(A)
        node.save_output(out)
        attach(out, node, A, B)
    return _rt.linalg_solve_ex(out, new(info, A))


class LinalgSolveExBackward0(Node):
    __slots__ = ("left", "vector", "shapes", "singular")

    def backward(self, grad, grad_info=None):
        A, X = self.saved_tensors   # solve_ex: a singular A gives inf/NaN, never an error
        if self.singular and not grad_state.enabled:
            grad_B = new(self.adjoint_solve(A._device.xp, A._data, grad._data), A)
        else:
            grad_B = solve_ex(A.mT, grad, left=self.left)[0]
        grad_A = None
        if _needs(self, 0):
            if self.vector:
                grad_A = -(grad_B.unsqueeze(-1) * X.unsqueeze(-2))
            elif self.left:
                grad_A = -matmul(grad_B, X.mT)
            else:
                grad_A = -matmul(X.mT, grad_B)
            grad_A = sum_to_shape(grad_A, self.shapes[0])
        grad_B = sum_to_shape(grad_B, self.shapes[1]) if _needs(self, 1) else None
        return grad_A, grad_B


    def adjoint_solve(self, xp, a, g):
        """grad_B for a singular A as PyTorch gets it: getrs with A's own LU, transposed
        (not a fresh LU of A^T), so the inf/NaN pattern is LAPACK's for that solve."""
        if self.vector:
            g = g[..., None]
        if self.left:
            out = _lu_solve_arrays(xp, a, g, trans=1)
        else:
            out = xp.swapaxes(_lu_solve_arrays(xp, a, xp.swapaxes(g, -1, -2)), -1, -2)
        return out[..., 0] if self.vector else out


def solve(A, B, *, left=True):
    """linalg.solve: raises LinAlgError for a singular A."""
    if _autocast.on:
        return _autocast.float32(solve, A, B, left=left)
    return solve_ex(A, B, left=left, check_errors=True)[0]


# ---------------------------------------------------------------- triangular solves
def _triangular_array(xp, a, b, upper, left, unitriangular):
    """SciPy's batched triangular solve of op(A) X = B (or X A = B); inf/nan when singular."""
    if not left:  # X A = B  <=>  A^T X^T = B^T
        a, b, upper = xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2), not upper
    a, b = _broadcast_batches(xp, a, b, 2)
    if not b.size or not a.size:
        result = xp.zeros(b.shape, a.dtype)
    else:
        a = xp.triu(a) if upper else xp.tril(a)
        if unitriangular:
            a = a.copy()
            a[..., range(a.shape[-1]), range(a.shape[-1])] = 1
        try:
            result = _scipy_linalg.solve_triangular(a, b, lower=not upper, check_finite=False)
        except _SCIPY_LINALG_ERROR:  # singular: divide as the substitution would
            with xp.errstate(divide="ignore", invalid="ignore"):
                result = _substitute(xp, a, b, upper)
    return xp.swapaxes(result, -1, -2) if not left else result


def _substitute(xp, a, b, upper):
    """Plain forward/back substitution, for the singular case (inf and nan propagate)."""
    n = a.shape[-1]
    x = xp.zeros(b.shape, a.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:  # n steps over whole batches, only on this rare path
        partial = (a[..., i:i + 1, :] @ x)[..., 0, :]
        x[..., i, :] = (b[..., i, :] - partial) / a[..., i, i:i + 1]
    return x


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with AX = B for triangular A (only its `upper` or lower triangle is read)."""
    if B._data.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    for operand in (A, B):
        if not operand.dtype.is_floating_point:
            raise not_implemented("triangular_solve_cpu", operand.dtype)
    check_matrix("linalg.solve_triangular", A, reduced_kernel="triangular_solve_cpu")
    check_same_dtype("linalg.solve_triangular", A, B)
    a, b = A._data, B._data
    if (b.shape[-2] if left else b.shape[-1]) != a.shape[-1]:
        raise RuntimeError("linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {'AX = B' if left else 'XA = B'} ({a.shape[-2]}x"
                           f"{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    xp = A._device.xp
    out = new(xp.ascontiguousarray(_triangular_array(xp, a, b, upper, left, unitriangular)), A)
    if grad_state.enabled and (A._requires_grad or B._requires_grad):
        node = LinalgSolveTriangularBackward0()
        node.upper, node.left, node.unitriangular = upper, left, unitriangular
        node.shapes = (a.shape, b.shape)
        node.save(A)
        node.save_output(out)
        attach(out, node, A, B)
    return out


class LinalgSolveTriangularBackward0(Node):
    __slots__ = ("upper", "left", "unitriangular", "shapes")

    def backward(self, grad):
        A, X = self.saved_tensors
        grad_B = solve_triangular(A.mT, grad, upper=not self.upper, left=self.left,
                                  unitriangular=self.unitriangular)
        grad_A = None
        if _needs(self, 0):
            grad_A = -matmul(grad_B, X.mT) if self.left else -matmul(X.mT, grad_B)
            unit = int(self.unitriangular)
            grad_A = triu(grad_A, unit) if self.upper else tril(grad_A, -unit)
            grad_A = sum_to_shape(grad_A, self.shapes[0])
        grad_B = sum_to_shape(grad_B, self.shapes[1]) if _needs(self, 1) else None
        return grad_A, grad_B


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """ember.triangular_solve: (solution of op(A) X = input, a copy of A)."""
    if _autocast.on:
        return _autocast.float32(triangular_solve, input, A, upper, transpose, unitriangular)
    for name, value in (("b", input), ("A", A)):
        if value._data.ndim < 2:
            raise RuntimeError(f"ember.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {value._data.ndim} dimensions instead")
    check_matrix("ember.triangular_solve", A, reduced_kernel="triangular_solve_cpu")
    xp = A._device.xp
    a = xp.swapaxes(A._data, -1, -2) if transpose else A._data
    result = _triangular_array(xp, a, input._data, upper != transpose, True, unitriangular)
    batch = result.shape[:-2]
    coefficient = xp.broadcast_to(A._data, batch + A._data.shape[-2:]).copy()
    outputs = (new(xp.ascontiguousarray(result), A), new(coefficient, A))
    if grad_state.enabled and (input._requires_grad or A._requires_grad):
        node = TriangularSolveBackward0()
        node.upper, node.transpose, node.unitriangular = upper, transpose, unitriangular
        node.shapes = (input._data.shape, A._data.shape)
        node.save(A)
        node.save_output(outputs[0])
        attach_outputs(node, outputs, input, A)
    return _rt.triangular_solve(*outputs)


class TriangularSolveBackward0(Node):
    __slots__ = ("upper", "transpose", "unitriangular", "shapes")

    def backward(self, grad_solution=None, grad_coefficient=None):
        A, X = self.saved_tensors
        grad_b = grad_A = None
        if grad_solution is not None:
            grad_b = triangular_solve(grad_solution, A, self.upper, not self.transpose,
                                      self.unitriangular)[0]
            if _needs(self, 1):
                grad_A = -matmul(X, grad_b.mT) if self.transpose else -matmul(grad_b, X.mT)
                unit = int(self.unitriangular)
                grad_A = triu(grad_A, unit) if self.upper else tril(grad_A, -unit)
        if grad_coefficient is not None and _needs(self, 1):
            grad_A = grad_coefficient if grad_A is None else grad_A + grad_coefficient
        grad_b = sum_to_shape(grad_b, self.shapes[0]) if grad_b is not None and \
            _needs(self, 0) else None
        grad_A = sum_to_shape(grad_A, self.shapes[1]) if grad_A is not None else None
        return grad_b, grad_A


# ---------------------------------------------------------------- cholesky
def _potrf_info(data):
    flat = data.reshape((-1,) + data.shape[-2:])
    infos = []
    for matrix in flat:  # error path only: NumPy does not say which minor failed
        potrf = _scipy_linalg.get_lapack_funcs("potrf", (matrix,))
        infos.append(potrf(matrix, lower=True)[1])
    return infos


def _nan_pivots(result, xp):
    """potrf's info per matrix where a computed factor has a NaN on its diagonal (the
    order of the first such minor; 0 for the others), or None when none has."""
    pivots = xp.isnan(xp.diagonal(result, axis1=-2, axis2=-1)) if result.size else None
    if pivots is None or not pivots.any():
        return None
    flat = pivots.reshape(-1, pivots.shape[-1])
    return [int(xp.argmax(row)) + 1 if row.any() else 0 for row in flat]


def cholesky_ex(A, *, upper=False, check_errors=False, _name="linalg.cholesky"):
    """L with A = L L^T (U = L^T when upper), reading A's lower triangle, and LAPACK's info."""
    check_matrix(_name, A, reduced_kernel="cholesky_cpu")
    data, xp = A._data, A._device.xp
    info = xp.zeros(data.shape[:-2], dtype="int32")
    infos = None
    try:
        result = _np_linalg.cholesky(data) if data.size else data.copy()
        infos = _nan_pivots(result, xp)
        if infos is not None:   # LAPACK's potrf stops at a NaN pivot; OpenBLAS's goes on
            raise _NP_LINALG_ERROR
    except _NP_LINALG_ERROR:
        infos = infos if infos is not None else _potrf_info(data)
        index = next(i for i, value in enumerate(infos) if value > 0)
        if check_errors:
            raise LinAlgError(f"{_name}: {batch_prefix(data, index)}The factorization could not "
                              "be completed because the input is not positive-definite (the "
                              f"leading minor of order {infos[index]} is not positive-definite)."
                              ) from None
        info = xp.asarray(infos, dtype="int32").reshape(data.shape[:-2])
        with xp.errstate(invalid="ignore"):
            result = xp.tril(data)
    if upper:
        result = xp.swapaxes(result, -1, -2)
    out = new(xp.ascontiguousarray(result), A)
    if grad_state.enabled and A._requires_grad:
        node = CholeskyBackward0() if _name == "cholesky" else LinalgCholeskyExBackward0()
        node.upper = upper
        node.save_output(out)
        attach(out, node, A)
    return _rt.linalg_cholesky_ex(out, new(info, A))


class LinalgCholeskyExBackward0(Node):
    __slots__ = ("upper",)

    def backward(self, grad, grad_info=None):
        (L,) = self.saved_tensors
        if self.upper:
            L, grad = L.mT, grad.mT
        # PyTorch's cholesky_backward: gA = L^-H Phi(L^H gL) L^-1, symmetrized.
        gA = tril(matmul(L.mT, grad))
        gA = 0.5 * (gA + tril(gA, -1).mT)
        gA = solve_triangular(L.mT, gA, upper=True, left=True)
        return (solve_triangular(L, gA, upper=False, left=False),)


class CholeskyBackward0(LinalgCholeskyExBackward0):
    __slots__ = ()


def cholesky(A, upper=False):
    """linalg.cholesky (keyword `upper`); raises LinAlgError naming the failing minor."""
    if _autocast.on:
        return _autocast.float32(cholesky, A, upper)
    return cholesky_ex(A, upper=upper, check_errors=True)[0]


def torch_cholesky(input, upper=False):
    """torch.cholesky: the deprecated spelling, with its own node name."""
    if input._data.size == 0:  # PyTorch returns before any check
        out = new(input._device.xp.empty_like(input._data), input)
        if grad_state.enabled and input._requires_grad:
            node = CholeskyBackward0()
            node.upper = upper
            node.save_output(out)
            attach(out, node, input)
        return out
    return cholesky_ex(input, upper=upper, check_errors=True, _name="cholesky")[0]


def cholesky_solve(input, input2, upper=False):
    """X with (L L^T) X = input, given the Cholesky factor `input2` of the matrix."""
    if _autocast.on:
        return _autocast.float32(cholesky_solve, input, input2, upper)
    for name, value in (("b", input), ("u", input2)):
        if value._data.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has "
                               f"{value._data.ndim} dimensions instead")
    # PyTorch's order: same dtype, square A, matching rows, then the kernel's dtypes
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_errors.scalar_type_name(input.dtype)} and A of type "
                           f"{_errors.scalar_type_name(input2.dtype)} instead.")
    check_matrix("", input2, square=True, reduced_kernel=None, checks_dtype=False)
    size, rows = input2._data.shape[-1], input._data.shape[-2]
    if rows != size:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{size} by {size} but each b matrix is {rows} by "
                           f"{input._data.shape[-1]}")
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(_errors.not_implemented_for("cholesky_solve_cpu", input.dtype))
    xp = input._device.xp
    factor, b = _broadcast_batches(xp, input2._data, input._data, 2)
    if factor.size and b.size:
        result = _scipy_linalg.cho_solve((factor, not upper), b, check_finite=False)
    else:
        result = xp.zeros(b.shape, factor.dtype)
    out = new(xp.ascontiguousarray(result), input)
    if grad_state.enabled and (input._requires_grad or input2._requires_grad):
        node = CholeskySolveBackward0()
        node.upper, node.shapes = upper, (input._data.shape, input2._data.shape)
        node.save(input2)
        node.save_output(out)
        attach(out, node, input, input2)
    return out


class CholeskySolveBackward0(Node):
    __slots__ = ("upper", "shapes")

    def backward(self, grad):
        factor, X = self.saved_tensors
        grad_b = cholesky_solve(grad, factor, self.upper)
        grad_factor = None
        if _needs(self, 1):
            common = matmul(grad_b, X.mT)
            common = common + common.mT
            grad_factor = -matmul(factor, common) if self.upper else -matmul(common, factor)
            grad_factor = sum_to_shape(grad_factor, self.shapes[1])
        grad_b = sum_to_shape(grad_b, self.shapes[0]) if _needs(self, 0) else None
        return grad_b, grad_factor


def cholesky_inverse(input, upper=False):
    """(L L^T)^-1 from the Cholesky factor L (U^T U when upper)."""
    if _autocast.on:
        return _autocast.float32(cholesky_inverse, input, upper)
    check_matrix("cholesky_inverse", input, reduced_kernel="cholesky_inverse_out_cpu")
    data, xp = input._data, input._device.xp
    _refuse_zero_diagonal(xp, data)
    eye = xp.broadcast_to(xp.eye(data.shape[-1], dtype=data.dtype), data.shape)
    if not data.size:
        result = data.copy()
    elif bool(xp.isfinite(data).all()):
        result = _scipy_linalg.cho_solve((data, not upper), eye, check_finite=False)
    else:
        result = _potri(xp, data, upper)
    out = new(xp.ascontiguousarray(result), input)
    if grad_state.enabled and input._requires_grad:
        node = CholeskyInverseBackward0()
        node.upper = upper
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


def _potri(xp, data, upper):
    """(L L^T)^-1 by LAPACK's potri, one matrix at a time, for a factor holding an inf or a
    NaN: PyTorch calls potri, whose inf/NaN pattern (finite entries beside a NaN pivot)
    two triangular solves do not reproduce. Non-finite path only."""
    flat = data.reshape((-1,) + data.shape[-2:])
    out = xp.empty(flat.shape, data.dtype)
    potri = _scipy_linalg.get_lapack_funcs("potri", (flat[0],))
    n = data.shape[-1]
    rows, cols = xp.arange(n)[:, None], xp.arange(n)[None, :]
    computed = rows <= cols if upper else rows >= cols   # the triangle potri wrote
    with xp.errstate(all="ignore"):
        for i, factor in enumerate(flat):
            half = potri(factor, lower=int(not upper))[0]
            out[i] = xp.where(computed, half, half.T)
    return out.reshape(data.shape)


def _refuse_zero_diagonal(xp, data):
    """LAPACK's potri stops at a factor's first exactly-zero diagonal element (a NaN passes):
    PyTorch raises where solving would give inf."""
    zero = xp.diagonal(data, axis1=-2, axis2=-1) == 0
    if zero.any():
        flat = zero.reshape(-1, zero.shape[-1])
        index = int(flat.any(axis=1).argmax())
        raise LinAlgError(f"cholesky_inverse: {batch_prefix(data, index)}The diagonal element "
                          f"{int(flat[index].argmax()) + 1} is zero, the inversion could not be "
                          "completed because the input matrix is singular.")


class CholeskyInverseBackward0(Node):
    __slots__ = ("upper",)

    def backward(self, grad):
        factor, inverse = self.saved_tensors
        common = matmul(inverse, matmul(grad + grad.mT, inverse))
        return (-matmul(factor, common) if self.upper else -matmul(common, factor),)


def torch_slogdet(input):
    """torch.slogdet: linalg.slogdet under its older return type's name."""
    return _rt.slogdet(*slogdet(input))
