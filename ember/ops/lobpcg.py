"""lobpcg: a few extreme eigenpairs of a symmetric (generalized) eigenproblem, by
Knyazev's locally optimal block preconditioned conjugate gradient method.

Each step does a Rayleigh-Ritz projection on the span of the current vectors X, the
(preconditioned) residuals W and the last update P; the basis is B-orthonormalised
through the eigen-decomposition of its Gram matrix (SVQB), dropping directions that
have become dependent, so the small problem stays well conditioned. Iteration stops
when PyTorch's backward-stable test holds for the k wanted pairs,
||r_j|| / (||x_j|| (||A|| + |e_j| ||B||)) < tol, or after `niter` steps. Like
PyTorch, the start block is drawn with `randn` (rows, n) from the global generator
when X is not given, and batches are solved one matrix at a time.

The gradient (A only, B = I, as PyTorch) is the symmetric-eigenproblem formula on
the full eigenbasis of A, with the returned pairs' gradients placed at their
eigenvalues (and their vectors' signs), which is what PyTorch's LOBPCG backward
computes; the result carries PyTorch's `LOBPCGAutogradFunctionBackward` node.
"""
from .. import _dtype
from .._backend import numpy as _np
from ..autograd.graph import Node
from ._common import grad_state, make_tensor
from ._linalg_common import attach_outputs
from .random import randn

__all__ = ["lobpcg"]

_EPS = {"float32": 1.2e-07, "float64": 2.23e-16}


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """(eigenvalues (..., k), eigenvectors (..., rows, k)): the k largest (or smallest)
    of A x = e B x, for symmetric A and positive definite B."""
    # PyTorch symmetrises before its autograd Function sees anything, and only then checks
    recording = grad_state.enabled and (A.requires_grad or (B is not None and B.requires_grad))
    if recording:
        A = (A + A.mT) / 2
        B = None if B is None else (B + B.mT) / 2
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {_size_text(A.shape)}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {_size_text(A.shape)} vs "
                             f"{_size_text(B.shape)}")
    dtype = A.dtype if A.dtype.is_floating_point else _dtype.float32
    tol = _EPS[dtype.name] ** 0.5 if tol is None else tol
    rows = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if rows < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows "
                         f"(={rows}) is smaller than 3 x the number of requested eigenpairs "
                         f"(={n})")
    niter = 1000 if niter is None else niter
    largest = True if largest is None else largest
    if ortho_fparams and "tol" in ortho_fparams and method in (None, "ortho"):
        tol = ortho_fparams["tol"]
    batch = tuple(A.shape[:-2])
    xp = A._device.xp
    count = int(_np.prod(batch)) if batch else 1
    a = A._data.reshape((count, rows, rows)).astype(dtype.np_dtype, copy=False)
    b = None if B is None else B._data.reshape((count, rows, rows))
    starts = None if X is None else X._data.reshape((count, rows, n))
    values = xp.empty((count, k), dtype.np_dtype)
    vectors = xp.empty((count, rows, k), dtype.np_dtype)
    precondition = None if iK is None else iK._data
    for i in range(count):
        start = (randn(rows, n, dtype=dtype, device=A.device)._data if starts is None
                 else starts[i])
        e, x = _solve(xp, a[i], None if b is None else b[i], start.astype(a.dtype),
                      precondition, k, niter, tol, largest)
        values[i], vectors[i] = e, x
    outputs = (make_tensor(values.reshape(batch + (k,)), A._device),
               make_tensor(vectors.reshape(batch + (rows, k)), A._device))
    if recording:
        node = LOBPCGAutogradFunctionBackward()
        node.largest, node.has_b = largest, B is not None
        node.save(A)
        node.save_output(outputs[0], 0)
        node.save_output(outputs[1], 1)
        attach_outputs(node, outputs, A)
    return outputs


def _size_text(shape):
    return f"ember.Size([{', '.join(str(s) for s in shape)}])"


def _b_orthonormal(xp, basis, b, drop):
    """SVQB: basis V diag(1/sqrt(lambda)) from the Gram matrix's eigenpairs, keeping only
    directions whose lambda exceeds `drop` times the largest."""
    bbasis = basis if b is None else b @ basis
    gram = basis.T @ bbasis
    scale = xp.sqrt(xp.abs(xp.diagonal(gram)))
    scale[scale == 0] = 1
    gram = gram / scale[:, None] / scale[None, :]
    lam, vec = xp.linalg.eigh(gram)
    keep = lam > drop * lam.max()
    transform = (vec[:, keep] / xp.sqrt(lam[keep])) / scale[:, None]
    return basis @ transform, bbasis @ transform


def _solve(xp, a, b, x, precondition, k, niter, tol, largest):
    """The LOBPCG iteration for one matrix: (k eigenvalues, rows x k eigenvectors)."""
    width = x.shape[1]
    drop = 10 * _EPS.get(a.dtype.name, 2.23e-16)
    a_norm = xp.linalg.norm(a, 2)
    b_norm = 1.0 if b is None else xp.linalg.norm(b, 2)
    basis, bbasis = _b_orthonormal(xp, x, b, drop)
    previous = None
    for step in range(niter + 1):
        small = basis.T @ (a @ basis)
        lam, vec = xp.linalg.eigh((small + small.T) / 2)
        order = xp.argsort(-lam if largest else lam, kind="stable")[:width]
        e, coefficients = lam[order], vec[:, order]
        new_x, new_bx = basis @ coefficients, bbasis @ coefficients
        residual = a @ new_x - new_bx * e
        error = xp.linalg.norm(residual, axis=0) / (
            xp.linalg.norm(new_x, axis=0) * (a_norm + xp.abs(e) * b_norm))
        converged = error < tol
        done = int(xp.argmin(converged)) if not converged.all() else width
        if done >= k or step == niter:
            return e[:k], new_x[:, :k]
        search = residual if precondition is None else precondition @ residual
        blocks = [new_x, search]
        if previous is not None:
            update = new_x - previous @ (previous.T @ new_bx)
            blocks.append(update)
        previous = new_x
        basis, bbasis = _b_orthonormal(xp, xp.concatenate(blocks, axis=1), b, drop)
    return e[:k], new_x[:, :k]


class LOBPCGAutogradFunctionBackward(Node):
    """The symmetric-eigenproblem gradient, computed on A's full eigenbasis."""

    __slots__ = ("largest", "has_b")

    def backward(self, grad_values=None, grad_vectors=None):
        if self.has_b:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A, values, vectors = self.saved_tensors
        xp = A._device.xp
        a = A._data
        batch = a.shape[:-2]
        rows, k = vectors.shape[-2], vectors.shape[-1]
        lam, full = xp.linalg.eigh(a)  # ascending
        chosen = xp.arange(rows - 1, rows - 1 - k, -1) if self.largest else xp.arange(k)
        grad_lam = xp.zeros(batch + (rows,), a.dtype)
        grad_full = xp.zeros(batch + (rows, rows), a.dtype)
        if grad_values is not None:
            grad_lam[..., chosen] = grad_values._data
        if grad_vectors is not None:
            signs = xp.sign((full[..., chosen] * vectors._data).sum(axis=-2, keepdims=True))
            grad_full[..., chosen] = grad_vectors._data * signs
        gap = lam[..., None, :] - lam[..., :, None]
        gap = gap + xp.eye(rows, dtype=a.dtype)
        projected = full.swapaxes(-1, -2) @ grad_full
        middle = 0.5 * (projected - projected.swapaxes(-1, -2)) / gap
        middle = middle + grad_lam[..., None, :] * xp.eye(rows, dtype=a.dtype)
        return (make_tensor(full @ middle @ full.swapaxes(-1, -2), A._device),)
