"""svd_lowrank and pca_lowrank: randomized low-rank SVD (Halko, Martinsson and Tropp,
2009, algorithms 4.4 and 5.1).

A Gaussian test matrix (drawn with `randn` from the global generator, shape
(columns, q), as PyTorch draws it, so seeded results agree) is pushed through A and
re-orthonormalised by QR `niter` times in each direction (subspace iteration); the
SVD of the small projection then gives the leading factors. Everything is ember ops
(matmul, linalg.qr, linalg.svd), so gradients flow through the usual nodes. `M`, when
given, is subtracted implicitly: (A - M) is never formed, only its products.
"""
from .. import _arguments, _dtype, _signatures
from .linalg_decomp import qr as linalg_qr
from .linalg_spectral import svd as linalg_svd
from .random import randn

__all__ = ["svd_lowrank", "pca_lowrank"]


class _Shifted:
    """The operator A - M (M optional), applied through products only."""

    __slots__ = ("a", "m")

    def __init__(self, a, m):
        self.a, self.m = a, m

    def times(self, x):
        product = self.a.matmul(x)
        return product if self.m is None else product - self.m.matmul(x)

    def adjoint_times(self, x):
        product = self.a.mH.matmul(x)
        return product if self.m is None else product - self.m.mH.matmul(x)

    def left_times(self, x):
        """x @ (A - M)."""
        product = x.matmul(self.a)
        return product if self.m is None else product - x.matmul(self.m)


def _orthonormal(x):
    return linalg_qr(x).Q


def _range_basis(op, columns, q, niter, dtype, device):
    """An orthonormal basis (rows x q) approximating the range of `op`."""
    try:
        sketch = randn(columns, q, dtype=dtype, device=device)
    except Exception as error:  # a q that is no size: randn's parser words it
        refusal = _arguments.explain_with("randn", _signatures.FUNCTIONS["randn"],
                                          (columns, q), {"dtype": dtype, "device": device})
        raise (refusal or error) from None
    basis = _orthonormal(op.times(sketch))
    for _ in range(niter):
        basis = _orthonormal(op.adjoint_times(basis))
        basis = _orthonormal(op.times(basis))
    return basis


def _svd_lowrank(A, q, niter, M):
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    rows, columns = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = rows < columns  # work on the tall side: A^H's range, then swap the factors
    op = _Shifted(A.mH, None if M is None else M.mH) if wide else _Shifted(A, M)
    dtype = A.dtype if A.dtype.is_floating_point else _dtype.float32
    basis = _range_basis(op, rows if wide else columns, q, niter, dtype, A.device)
    small_u, sigma, small_vh = linalg_svd(op.left_times(basis.mH), full_matrices=False)
    left, right = basis.matmul(small_u), small_vh.mH
    return (right, sigma, left) if wide else (left, sigma, right)


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~ U diag(S) V^H, of rank q (batched over leading dims)."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """svd_lowrank of A with each column's mean removed (when `center`): V's columns are
    the principal directions, S**2 / (rows - 1) the variances they carry."""
    rows, columns = A.shape[-2:]
    smallest = min(rows, columns)
    if q is None:
        q = min(6, smallest)
    elif not (q >= 0 and q <= smallest):  # in this order: a str q fails on '>='
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={smallest}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A, q, niter, None)
