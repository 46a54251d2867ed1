"""ember.linalg: the `torch.linalg` namespace; the ops themselves live in ember/ops/."""
from .ops._linalg_common import LinAlgError
from .ops.linalg import matmul
from .ops.linalg_decomp import lstsq, matrix_rank, pinv, qr
from .ops.linalg_functions import cond, cross, diagonal, matrix_exp, matrix_power, multi_dot
from .ops.linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve
from .ops.linalg_solve import (cholesky, cholesky_ex, det, inv, inv_ex, slogdet, solve, solve_ex,
                               solve_triangular)
from .ops.linalg_spectral import eig, eigh, eigvals, eigvalsh, svd, svdvals
from .ops.householder import householder_product
from .ops.norms import matrix_norm, norm, vecdot, vector_norm

from .ops import _out

__all__ = ["LinAlgError", "matmul", "matrix_norm", "norm", "vecdot", "vector_norm", "cholesky",
           "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matrix_exp", "matrix_power", "matrix_rank", "multi_dot", "pinv", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals"]

_out.wire_linalg(globals())  # out= as PyTorch takes it
del _out
