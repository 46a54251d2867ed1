"""QR, least squares and the functions of matrices built on the decompositions: linalg.qr,
lstsq, pinv, matrix_rank, matrix_power, matrix_exp, multi_dot, cond, cross, diagonal, and
the older torch.svd / torch.qr / torch.pinverse spellings.

Each op is PyTorch's: the same node names (LinalgQrBackward0, LinalgPinvBackward0, ...) and
the same decomposition where PyTorch composes other ops (matrix_power is repeated mm,
multi_dot a chain of mm in the cheapest order, cond a ratio of singular values).
"""
import numpy.linalg as _np_linalg

from . import _autocast
from .. import _dtype, _errors, return_types as _rt
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, sum_to_shape
from ._linalg_common import attach_outputs, check_matrix, check_floating, new
from .diagonal import tril
from .joining import cat
from .linalg import matmul
from .linalg_solve import solve_triangular
from .linalg_spectral import _eigh_arrays, _svd_arrays, svd, svdvals

__all__ = ["pinverse"]

_QR_MODES = ("reduced", "complete", "r")
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _needs(node, index):
    return node.next_functions[index][0] is not None


# ---------------------------------------------------------------- qr
def qr(A, mode="reduced"):
    """A = QR with orthonormal Q and upper-triangular R (Householder, LAPACK's signs)."""
    if _autocast.on:
        return _autocast.float32(qr, A, mode)
    if mode not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    check_matrix("linalg.qr", A, square=False, reduced_kernel="geqrf_cpu")
    data, xp = A._data, A._device.xp
    m, n = data.shape[-2:]
    if data.size == 0:
        k = m if mode == "complete" else min(m, n)
        q = xp.broadcast_to(xp.eye(m, k, dtype=data.dtype), data.shape[:-2] + (m, k)).copy()
        r = xp.zeros(data.shape[:-2] + (k, n), data.dtype)
    else:
        q, r = _np_linalg.qr(data, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = xp.zeros((0,), data.dtype)
    outputs = (new(q, A), new(r, A))
    if grad_state.enabled and A._requires_grad:
        node = LinalgQrBackward0()
        node.mode = mode
        node.save_output(outputs[0], 0)
        node.save_output(outputs[1], 1)
        attach_outputs(node, outputs, A)
    return _rt.linalg_qr(*outputs)


class LinalgQrBackward0(Node):
    __slots__ = ("mode",)

    def backward(self, grad_Q=None, grad_R=None):
        Q, R = self.saved_tensors
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        if grad_Q is None:
            grad_Q = Q.new_zeros(Q.shape)
        if grad_R is None:
            grad_R = R.new_zeros(R.shape)
        if m >= n:
            return (_qr_backward_tall(grad_Q, grad_R, Q, R),)
        # A = [X | Y] with X = Q U square: Y's part only moves gQ.
        U, V = R[..., :m], R[..., m:]
        grad_U, grad_V = grad_R[..., :m], grad_R[..., m:]
        Y = matmul(Q, V)
        grad_X = _qr_backward_tall(grad_Q + matmul(Y, grad_V.mT), grad_U, Q, U)
        return (cat([grad_X, matmul(Q, grad_V)], -1),)


def _qr_backward_tall(gQ, gR, Q, R):
    """gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (m >= n)."""
    M = matmul(R, gR.mT) - matmul(gQ.mT, Q)
    lower = tril(M, -1)
    copyltu = lower + lower.mT + M.diagonal(0, -2, -1).diag_embed()
    gA = gQ + matmul(Q, copyltu)
    return solve_triangular(R.mT, gA, upper=False, left=False)


def torch_qr(input, some=True):
    """torch.qr: mode 'reduced' when some, else 'complete'."""
    return _rt.qr(*qr(input, "reduced" if some else "complete"))


def torch_svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with V, not Vh; zeros for U and V without compute_uv."""
    if input._data.ndim < 2:
        raise RuntimeError("linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input._data.ndim} dimensions instead")
    if not compute_uv:
        S = svdvals(input)
        m, n = input._data.shape[-2:]
        xp = input._device.xp
        batch = input._data.shape[:-2]
        return _rt.svd(new(xp.zeros(batch + (m, m), input._data.dtype), input), S,
                       new(xp.zeros(batch + (n, n), input._data.dtype), input))
    U, S, Vh = svd(input, full_matrices=not some)
    return _rt.svd(U, S, Vh.mT)


# ---------------------------------------------------------------- pinv / matrix_rank
def _tolerance(xp, S, atol, rtol, shape):
    """max(atol, rtol * largest |S|) per matrix, with PyTorch's defaults: rtol is
    eps * max(m, n) unless a positive atol is given alone."""
    if rtol is None:
        rtol = xp.finfo(S.dtype).eps * max(shape[-2:]) if (atol is None or _is_zero(atol)) \
            else 0.0
    atol = 0.0 if atol is None else atol
    largest = xp.abs(S).max(axis=-1, keepdims=True) if S.shape[-1] else \
        xp.zeros(S.shape[:-1] + (1,), S.dtype)
    atol = atol._data[..., None] if isinstance(atol, Tensor) else atol
    rtol = rtol._data[..., None] if isinstance(rtol, Tensor) else rtol
    return xp.maximum(atol, rtol * largest)


def _is_zero(value):
    return (not isinstance(value, Tensor)) and value == 0


def _pinv_array(A, atol, rtol, hermitian):
    xp = A._device.xp
    if hermitian:
        values, vectors = _eigh_arrays(A, "L")
        keep = xp.abs(values) > _tolerance(xp, values, atol, rtol, A._data.shape)
        inverse = xp.where(keep, 1 / xp.where(keep, values, 1), 0)
        return (vectors * inverse[..., None, :]) @ xp.swapaxes(vectors, -1, -2)
    u, s, vh = _svd_arrays(A, False, True)
    keep = s > _tolerance(xp, s, atol, rtol, A._data.shape)
    inverse = xp.where(keep, 1 / xp.where(keep, s, 1), 0)
    return xp.swapaxes(vh, -1, -2) @ (inverse[..., :, None] * xp.swapaxes(u, -1, -2))


def pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None):
    """The Moore-Penrose pseudo-inverse through the SVD (eigh when hermitian)."""
    if (not isinstance(A, Tensor) or A._data.ndim < 2 or not A.dtype.is_floating_point
            or A._data.dtype in _dtype.COMPUTED_IN_FLOAT32):
        shape = list(A._data.shape) if isinstance(A, Tensor) else []
        name = _errors.scalar_type_name(A.dtype) if isinstance(A, Tensor) else "?"
        raise RuntimeError(f"linalg.pinv({name}{{{shape}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    check_floating("linalg.pinv", A, "linalg_svd_cpu")
    if rcond is not None:
        rtol = rcond
    xp = A._device.xp
    out = new(xp.ascontiguousarray(_pinv_array(A, atol, rtol, hermitian)), A)
    if grad_state.enabled and A._requires_grad:
        node = LinalgPinvBackward0()
        node.save(A)
        node.save_output(out)
        attach(out, node, A)
    return out


class LinalgPinvBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        A, pinvA = self.saved_tensors
        return (_pinv_backward(grad, pinvA, A),)


def _pinv_backward(grad, pinvA, A):
    """PyTorch's pinv_backward, arranged so its products are of the smaller size."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mT, grad.mT
    if m <= n:
        K = matmul(gradh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        return (-matmul(pinvA, K).mT + KpinvAh - matmul(matmul(A, pinvA), KpinvAh)
                + matmul(matmul(pinvAh, pinvA), gradh - matmul(K, A)))
    K = matmul(pinvA, gradh)
    pinvAhK = matmul(pinvAh, K)
    return (-matmul(K, pinvA).mT + matmul(matmul(gradh - matmul(A, K), pinvA), pinvAh)
            + pinvAhK - matmul(matmul(pinvAhK, pinvA), A))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with a relative tolerance `rcond`."""
    if _autocast.on:
        return _autocast.float32(pinverse, input, rcond)
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """The number of singular values (|eigenvalues| when hermitian) above the tolerance."""
    if _autocast.on:
        return _autocast.float32(matrix_rank, A, atol=atol, rtol=rtol, hermitian=hermitian,
                                 tol=tol)
    # PyTorch's overloads: with a float rtol (or tol) half types reach the SVD's kernel check
    reduced = A._data.dtype in _dtype.COMPUTED_IN_FLOAT32
    if not A.dtype.is_floating_point or reduced and tol is None and rtol is None:
        raise RuntimeError("This function doesn't handle types other than float and double")
    check_matrix("linalg.matrix_rank", A, square=hermitian,
                 reduced_kernel="linalg_eigh_cpu" if hermitian else "linalg_svd_cpu")
    if tol is not None:
        atol, rtol = tol, 0.0
    xp = A._device.xp
    S = _eigh_arrays(A, "L")[0] if hermitian else _svd_arrays(A, False, False)[1]
    count = (xp.abs(S) > _tolerance(xp, S, atol, rtol, A._data.shape)).sum(axis=-1)
    return new(xp.asarray(count, dtype="int64"), A)


# ---------------------------------------------------------------- lstsq
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of AX = B, with residuals/rank/singular values by driver."""
    if _autocast.on:
        return _autocast.float32(lstsq, A, B, rcond, driver=driver)
    if not (A.dtype.is_floating_point and B.dtype.is_floating_point):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError("ember.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    check_matrix("ember.linalg.lstsq", A, square=False, reduced_kernel="linalg_lstsq")
    a, b, xp = A._data, B._data, A._device.xp
    if a.ndim < b.ndim or a.ndim - b.ndim > 1:
        raise RuntimeError("ember.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = b.ndim == a.ndim - 1
    if (b.shape[-1] if vector else b.shape[-2]) != a.shape[-2]:
        raise RuntimeError("ember.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    m, n = a.shape[-2:]
    b_matrix = b[..., None] if vector else b
    solution = _pinv_array(A, None, rcond, False) @ b_matrix
    S = _svd_arrays(A, False, False)[1]
    empty = xp.zeros((0,), a.dtype)
    rank = xp.zeros((0,), "int64")
    if driver != "gels":
        rtol = xp.finfo(a.dtype).eps * max(m, n) if rcond is None else rcond
        rank = xp.asarray((S > _tolerance(xp, S, None, rtol, a.shape)).sum(axis=-1), "int64")
    residuals = empty
    if driver != "gelsy" and m > n and (driver == "gels" or bool((rank == n).all())):
        diff = a @ solution - b_matrix
        residuals = (diff * diff).sum(axis=-2)
        if vector:
            residuals = residuals[..., 0]
    singular = S if driver in ("gelsd", "gelss") else empty
    if vector:
        solution = solution[..., 0]
    out = new(xp.ascontiguousarray(solution), A)
    if grad_state.enabled and (A._requires_grad or B._requires_grad):
        node = LinalgLstsqBackward0()
        node.vector, node.shapes = vector, (a.shape, b.shape)
        node.save(A, B)
        attach(out, node, A, B)
    return _rt.linalg_lstsq(out, new(residuals, A), new(rank, A), new(singular, A))


class LinalgLstsqBackward0(Node):
    __slots__ = ("vector", "shapes")

    def backward(self, grad, *unused):
        A, B = self.saved_tensors
        if self.vector:
            grad, B = grad.unsqueeze(-1), B.unsqueeze(-1)
        pinvA = pinv(A)
        grad_A = grad_B = None
        if _needs(self, 0):
            grad_A = sum_to_shape(_pinv_backward(matmul(grad, B.mT), pinvA, A), self.shapes[0])
        if _needs(self, 1):
            grad_B = matmul(pinvA.mT, grad)
            grad_B = sum_to_shape(grad_B.squeeze(-1) if self.vector else grad_B, self.shapes[1])
        return grad_A, grad_B
