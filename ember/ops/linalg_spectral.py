"""Spectral decompositions: linalg.svd, svdvals, eigh, eigvalsh (and eig/eigvals, refused).

NumPy's batched LAPACK drivers (gesdd, syevd) compute them; the backward passes are
PyTorch's svd_backward and linalg_eig_backward (hermitian case), written with ember ops so
that double backward works. The singular/eigen vectors have a sign freedom, so only
gauge-invariant functions of them have meaningful gradients, as in PyTorch.
"""
import numpy.linalg as _np_linalg

from .._backend import scipy_linalg as _scipy_linalg
from . import _autocast
from .. import _errors, return_types as _rt
from ..autograd.graph import Node
from ._common import Tensor, grad_state
from ._linalg_common import (LinAlgError, attach_outputs, batch_prefix, check_matrix, new,
                             not_implemented)
from .diagonal import diag_embed

__all__ = ["svd"]


def _mm(a, b):
    """a @ b (through the operator: this module sits below ops/linalg.py, which imports
    norms.py, which needs svdvals)."""
    return a @ b


# ---------------------------------------------------------------- svd
def _svd_arrays(A, full_matrices, compute_uv):
    data, xp = A._data, A._device.xp
    m, n = data.shape[-2:]
    k = min(m, n)
    if data.size == 0:  # LAPACK is not called on empty matrices; PyTorch returns identities
        batch = data.shape[:-2]
        s = xp.zeros(batch + (k,), data.dtype)
        if not compute_uv:
            return None, s, None
        rows, cols = (m, n) if full_matrices else (k, k)
        u = xp.broadcast_to(xp.eye(m, rows if full_matrices else k, dtype=data.dtype),
                            batch + (m, rows if full_matrices else k)).copy()
        vh = xp.broadcast_to(xp.eye(cols if full_matrices else k, n, dtype=data.dtype),
                             batch + (cols if full_matrices else k, n)).copy()
        return u, s, vh
    data, infinite = _finite_for_lapack(data, xp)
    if not compute_uv:
        return None, _nan_where(_np_linalg.svd(data, compute_uv=False), infinite), None
    u, s, vh = _np_linalg.svd(data, full_matrices=full_matrices)
    return _nan_where(u, infinite), _nan_where(s, infinite), _nan_where(vh, infinite)


def _finite_for_lapack(data, xp):
    """The matrices LAPACK may see, and a mask of the batch's matrices that held an inf.

    OpenBLAS's gesdd never returns on some matrices holding an inf (the program hangs),
    and reports NaN as a bare 'SVD did not converge'. PyTorch (MKL) always refuses a NaN,
    with the error raised here, and for an inf mostly returns NaN factors: those matrices
    are replaced by zeros for LAPACK and their factors filled with NaN afterwards."""
    flat = data.reshape(data.shape[:-2] + (-1,))
    if xp.isfinite(flat).all():
        return data, None
    nan = xp.isnan(flat).any(axis=-1)
    if nan.any():
        index = int(xp.flatnonzero(nan.reshape(-1))[0]) if data.ndim > 2 else 0
        raise LinAlgError(f"linalg.svd: {batch_prefix(data, index)}The algorithm failed to "
                          "converge because the input matrix contained non-finite values.")
    infinite = ~xp.isfinite(flat).all(axis=-1)
    return xp.where(infinite[..., None, None], 0, data), infinite


def _nan_where(factor, infinite):
    """`factor` with the matrices (or vectors) of the masked batch elements set to NaN."""
    if infinite is None:
        return factor
    factor = factor.copy()
    factor[infinite] = float("nan")
    return factor


def _check_svd(A):
    check_matrix("linalg.svd", A, square=False, reduced_kernel="linalg_svd_cpu")


def svd(A, full_matrices=True, *, driver=None):
    """A = U diag(S) Vh, singular values in descending order."""
    if _autocast.on:
        return _autocast.float32(svd, A, full_matrices, driver=driver)
    _check_svd(A)
    u, s, vh = _svd_arrays(A, full_matrices, True)
    outputs = (new(u, A), new(s, A), new(vh, A))
    if grad_state.enabled and A._requires_grad:
        node = LinalgSvdBackward0()
        node.full_matrices = full_matrices
        node.save_output(outputs[0], 0)
        node.save_output(outputs[2], 2)
        node.save_output(outputs[1], 1)
        attach_outputs(node, outputs, A)
    return _rt.linalg_svd(*outputs)


def svdvals(A, *, driver=None):
    """The singular values alone (the vectors are computed only when a gradient needs them)."""
    if _autocast.on:
        return _autocast.float32(svdvals, A, driver=driver)
    _check_svd(A)
    if grad_state.enabled and A._requires_grad:  # the gradient needs the vectors too
        return svd(A, full_matrices=False)[1]
    return new(_svd_arrays(A, False, False)[1], A)


class LinalgSvdBackward0(Node):
    __slots__ = ("full_matrices",)

    def backward(self, grad_U=None, grad_S=None, grad_Vh=None):
        U, Vh, S = self.saved_tensors
        return (_svd_backward(grad_U, grad_S, grad_Vh, U, S, Vh, self.full_matrices),)


def _svd_backward(gU, gS, gVh, U, S, Vh, full_matrices):
    """PyTorch's svd_backward (FunctionsManual.cpp), real case."""
    if gS is None and gU is None and gVh is None:
        return None
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    if full_matrices:
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = gU[..., :k] if gU is not None else None
        gVh = gVh[..., :k, :] if gVh is not None else None
    if gU is None and gVh is None:
        return _mm(U * gS.unsqueeze(-2), Vh)
    V = Vh.mT
    gV = gVh.mT if gVh is not None else None
    S_row, S_col = S.unsqueeze(-2), S.unsqueeze(-1)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    # the diagonal of E is 0 (NaN when S^2 overflows): set it to 1, never add 1 to it
    E = E.masked_fill(new(E._device.xp.eye(k, dtype=bool), E), 1.0)
    if gU is not None:
        UhgU = _mm(U.mT, gU)
        UhgU = UhgU - UhgU.mT
    if gV is not None:
        VhgV = _mm(V.mT, gV)
        VhgV = VhgV - VhgV.mT
    if gU is not None and gV is not None:
        gA = (UhgU * S_row + S_col * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * S_row
    else:
        gA = S_col * (VhgV / E)
    if gS is not None:
        gA = gA + diag_embed(gS)
    if m > k and gU is not None:
        gA = _mm(U, gA)
        gUSinv = gU / S_row
        gA = gA + gUSinv - _mm(U, _mm(U.mT, gUSinv))
        return _mm(gA, Vh)
    if n > k and gV is not None:
        gA = _mm(gA, Vh)
        gVSinv = gV / S_row
        gA = gA + (gVSinv - _mm(V, _mm(V.mT, gVSinv))).mT
        return _mm(U, gA)
    return _mm(U, _mm(gA, Vh)) if m >= n else _mm(_mm(U, gA), Vh)


# ---------------------------------------------------------------- eigh
def _check_eigh(A, UPLO):
    check_matrix("linalg.eigh", A, reduced_kernel="linalg_eigh_cpu")
    if not A.dtype.is_floating_point:
        raise not_implemented("linalg_eigh_cpu", A.dtype)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _eigh_arrays(A, UPLO):
    data = A._data
    if data.size == 0:
        xp = A._device.xp
        return xp.zeros(data.shape[:-1], data.dtype), data.copy()
    try:
        return _np_linalg.eigh(data, UPLO=UPLO.upper())
    except _np_linalg.LinAlgError:
        raise _eigh_error(data, UPLO, True) from None


def _eigh_error(data, UPLO, vectors):
    """PyTorch's text for syevd's failure (a NaN, mostly), naming the batch element and
    LAPACK's info, in place of NumPy's bare 'Eigenvalues did not converge'. Error path
    only: syevd runs again, one matrix at a time, to find which one failed and its info
    (the reference LAPACK's count, which MKL's can differ from by one)."""
    flat = data.reshape((-1,) + data.shape[-2:])
    for index, matrix in enumerate(flat):
        syevd = _scipy_linalg.get_lapack_funcs("syevd", (matrix,))
        info = syevd(matrix, compute_v=int(vectors), lower=int(UPLO.upper() == "L"))[-1]
        if info > 0:
            return LinAlgError(f"linalg.eigh: {batch_prefix(data, index)}The algorithm failed "
                               "to converge because the input matrix is ill-conditioned or has "
                               f"too many repeated eigenvalues (error code: {info}).")
    return LinAlgError("linalg.eigh: The algorithm failed to converge because the input "
                       "matrix is ill-conditioned or has too many repeated eigenvalues.")


def _check_eigh_floating(name, A):
    if A._data.ndim >= 2 and not A.dtype.is_floating_point:
        raise not_implemented("linalg_eigh_cpu", A.dtype)


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices."""
    if _autocast.on:
        return _autocast.float32(eigh, A, UPLO)
    _check_eigh_floating("linalg.eigh", A)
    _check_eigh(A, UPLO)
    values, vectors = _eigh_arrays(A, UPLO)
    outputs = (new(values, A), new(vectors, A))
    if grad_state.enabled and A._requires_grad:
        node = LinalgEighBackward0()
        node.save_output(outputs[0], 0)
        node.save_output(outputs[1], 1)
        attach_outputs(node, outputs, A)
    return _rt.linalg_eigh(*outputs)


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of symmetric matrices, ascending."""
    if _autocast.on:
        return _autocast.float32(eigvalsh, A, UPLO)
    _check_eigh_floating("linalg.eigvalsh", A)
    _check_eigh(A, UPLO)
    if grad_state.enabled and A._requires_grad:  # the gradient needs the vectors too
        return eigh(A, UPLO)[0]
    if not A._data.size:
        return new(_eigh_arrays(A, UPLO)[0], A)
    try:
        return new(_np_linalg.eigvalsh(A._data, UPLO=UPLO.upper()), A)
    except _np_linalg.LinAlgError:
        raise _eigh_error(A._data, UPLO, False) from None


class LinalgEighBackward0(Node):
    __slots__ = ()

    def backward(self, grad_values=None, grad_vectors=None):
        L, V = self.saved_tensors
        if grad_vectors is None:
            if grad_values is None:
                return (None,)
            return (_mm(V * grad_values.unsqueeze(-2), V.mT),)
        # PyTorch's linalg_eig_backward, hermitian case.
        VhgV = _mm(V.mT, grad_vectors)
        VhgV = 0.5 * (VhgV - VhgV.mT)
        n = L.shape[-1]
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        E = E.masked_fill(new(E._device.xp.eye(n, dtype=bool), E), 1.0)  # inf - inf: not 1
        gA = VhgV / E
        if grad_values is not None:
            gA = gA + diag_embed(grad_values)
        return (_mm(V, _mm(gA, V.mT)),)


# ---------------------------------------------------------------- eig (complex results)
def _refuse_complex(name, A):
    if isinstance(A, Tensor) and not A.dtype.is_floating_point:  # PyTorch's own wording
        raise RuntimeError(f"Unknown Complex ScalarType for {_errors.scalar_type_name(A.dtype)}")
    check_matrix(name, A)
    raise NotImplementedError(f"{name}: the eigenvalues and eigenvectors of a general matrix "
                              "are complex, and ember has no complex dtypes; for a symmetric "
                              "matrix use linalg.eigh / linalg.eigvalsh")


def eig(A):
    """Refused: torch returns complex tensors, which ember cannot represent."""
    _refuse_complex("linalg.eig", A)


def eigvals(A):
    """Refused: torch returns complex tensors, which ember cannot represent."""
    _refuse_complex("linalg.eigvals", A)
