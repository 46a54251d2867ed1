"""ember.functional: the names PyTorch keeps in `torch.functional`, as re-exports.

Code written against PyTorch sometimes imports from the module path
(`from torch.functional import einsum`); every name here is the op defined once
in its family module under ember/ops, so both spellings run the same code.
"""
from .ops.combinatorics import block_diag, cartesian_prod
from .ops.differences import cdist
from .ops.einsum import einsum
from .ops.linalg import tensordot
from .ops.ranges import meshgrid
from .ops.reduction import norm
from .ops.searching import unique_consecutive
from .ops.slicing import split
from .ops.sorting import unique
from .ops.views import atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "broadcast_tensors", "cartesian_prod", "cdist", "einsum", "meshgrid", "norm",
           "split", "tensordot", "unique", "unique_consecutive"]

# PyTorch's wrong-type errors for these Python-level functions, as ember.einsum gets them
from . import _arguments_python  # noqa: E402
_arguments_python.wire(globals(), _arguments_python.STEPS)
