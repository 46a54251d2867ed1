"""Functions PyTorch removed in 1.9 but keeps as names that only raise: `eig`, `lstsq`,
`solve`, `symeig` and `matrix_rank`. Old code calling them gets PyTorch's RuntimeError with
its migration text (which names the `ember.linalg` replacement), whatever it passes.
"""

__all__ = ["eig", "lstsq", "solve", "symeig", "matrix_rank"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_EIG = (_REMOVED + " `ember.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = ember.eig(A) should be "
        "replaced with:\nL_complex = ember.linalg.eigvals(A)\n\nand\n\nL, V = ember.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = ember.linalg.eig(A)")
_LSTSQ = (_REMOVED + " `ember.lstsq` is deprecated in favor of `ember.linalg.lstsq`.\n"
          "`ember.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
          "in the returned tuple (although it returns other information about the problem).\n\n"
          "To get the QR decomposition consider using `ember.linalg.qr`.\n\nThe returned "
          "solution in `ember.lstsq` stored the residuals of the solution in the last m - n "
          "columns of the returned value whenever m > n. In ember.linalg.lstsq, the residuals "
          "are in the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
          "solution, as in\nX, _ = ember.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
          "with:\nX = ember.linalg.lstsq(A, B).solution")
_SOLVE = (_REMOVED + " `ember.solve` is deprecated in favor of `ember.linalg.solve`. "
          "`ember.linalg.solve` has its arguments reversed and does not return the LU "
          "factorization.\n\nTo get the LU factorization see `ember.lu`, which can be used with "
          "`ember.lu_solve` or `ember.lu_unpack`.\nX = ember.solve(B, A).solution should be "
          "replaced with:\nX = ember.linalg.solve(A, B)")
_SYMEIG = (_REMOVED + " The default behavior has changed from using the upper triangular "
           "portion of the matrix by default to using the lower triangular portion.\n\nL, _ = "
           "ember.symeig(A, upper=upper) should be replaced with:\nL = ember.linalg.eigvalsh(A, "
           "UPLO='U' if upper else 'L')\n\nand\n\nL, V = ember.symeig(A, eigenvectors=True) "
           "should be replaced with:\nL, V = ember.linalg.eigh(A, UPLO='U' if upper else 'L')")
_MATRIX_RANK = (_REMOVED + "\nPlease use the `ember.linalg.matrix_rank` function instead. The "
                "parameter 'symmetric' was renamed in `ember.linalg.matrix_rank()` to "
                "'hermitian'.")


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed: raises PyTorch's pointer to `linalg.eig` / `linalg.eigvals`."""
    raise RuntimeError(_EIG)


def lstsq(input, A, *, out=None):
    """Removed: raises PyTorch's pointer to `linalg.lstsq` (arguments reversed)."""
    raise RuntimeError(_LSTSQ)


def solve(input, A, *, out=None):
    """Removed: raises PyTorch's pointer to `linalg.solve` (arguments reversed)."""
    raise RuntimeError(_SOLVE)


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed: raises PyTorch's pointer to `linalg.eigh` / `linalg.eigvalsh`."""
    raise RuntimeError(_SYMEIG)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed: raises PyTorch's pointer to `linalg.matrix_rank`."""
    raise RuntimeError(_MATRIX_RANK)
