"""Top-level functions PyTorch keeps for old code and TorchScript: `fill` (out-of-place
fill_), the deprecated `frobenius_norm`, `nuclear_norm` and `lu`, each a door onto the
modern op with PyTorch's deprecation warning and the node name its own kernel records.
"""
import warnings

from .. import _errors, return_types as _rt
from ..autograd.graph import Node
from ._common import Tensor
from ._elementwise import zeros_like
from . import linalg_lu
from .linalg_lu import lu_factor_ex
from . import tensor_geometry as _tensor_geometry
from .nn_linear import NormBackward1
from .norms import matrix_norm, vector_norm
from .pointwise_select import _filled

__all__ = ["fill", "frobenius_norm", "nuclear_norm", "lu", "lu_solve", "as_strided_"]

_FROBENIUS = ("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It "
              "will be removed in a future PyTorch release. Please use `linalg.vector_norm(A, "
              "2., dim, keepdim)` instead")
_NUCLEAR = ("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will "
            "be removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', "
            "dim, keepdim)` instead")
_LU = ("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
       "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
       "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
       "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
       "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
       "compute_pivots)")
_LU_SOLVE = ("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed "
             "in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
             "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
             "torch.linalg.lu_solve(LU, pivots, B)")
_warned = set()  # PyTorch gives each of these warnings once per process


def _warn_once(message):
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def fill(input, value):
    """A new tensor like `input` holding `value` (a number or a 0-dim tensor)."""
    out = _filled(input, value)
    if out.grad_fn is not None:
        out.grad_fn.__class__ = FillBackward1 if isinstance(value, Tensor) else FillBackward0
    return out


class FillBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return zeros_like(grad), None


class FillBackward1(Node):
    __slots__ = ()

    def backward(self, grad):
        return zeros_like(grad), grad.sum()


def frobenius_norm(input, dim, keepdim=False):
    """The 2-norm over `dim`, recorded as at::norm records it (NormBackward1)."""
    _warn_once(_FROBENIUS)
    # at::frobenius_norm's own checks come before vector_norm's (argcheck10)
    count = 1 if isinstance(dim, int) else len(dim)
    if count > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {count} dimensions instead.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_errors.scalar_type_name(input.dtype)} instead.")
    out = vector_norm(input, 2, dim, keepdim)
    if out.grad_fn is not None:
        out.grad_fn.__class__ = NormBackward1
    return out


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of singular values over `dim` (the first two dims when not given)."""
    if isinstance(dim, bool):  # nuclear_norm(A, keepdim) is PyTorch's other signature
        dim, keepdim = None, dim
    _warn_once(_NUCLEAR)
    # a single int fills both dims, as PyTorch's int[2] parameter does (argcheck10)
    dims = (0, 1) if dim is None else (dim, dim) if isinstance(dim, int) else tuple(dim)
    return matrix_norm(input, "nuc", dims, keepdim)


def lu(A, pivot=True, get_infos=False):
    """linalg.lu_factor_ex under its old name: (LU, pivots) or, with get_infos, (LU,
    pivots, infos); without get_infos a singular factor raises as lu_factor does."""
    _warn_once(_LU)
    LU, pivots, infos = lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return _rt._lu_with_info(LU, pivots, infos) if get_infos else (LU, pivots)



def lu_solve(input, LU_data, LU_pivots):
    """linalg.lu_solve with the right-hand side first, under its old name."""
    _warn_once(_LU_SOLVE)
    return linalg_lu.lu_solve(LU_data, LU_pivots, input)


def as_strided_(input, size, stride, storage_offset=None):
    return _tensor_geometry.as_strided_(input, size, stride, storage_offset)
