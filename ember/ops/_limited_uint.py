"""PyTorch's refusals for its 'limited support' unsigned dtypes (uint16, uint32, uint64).

PyTorch's CPU build stores, copies, casts, sums and compares these for equality, but many
of its kernels are compiled without them and raise `"add_stub" not implemented for
'UInt16'`. NumPy would happily compute, so the ops PyTorch refuses ask here first: one
dict lookup on the array's dtype, and the refusal text built only when raising.
"""
from .. import _dtype, _errors

__all__ = ["LIMITED", "refusal"]

LIMITED = {d.np_dtype: d for d in _dtype.LIMITED_UNSIGNED}


def refusal(kernel, np_dtype):
    """The NotImplementedError PyTorch's kernel `kernel` raises for this dtype."""
    return NotImplementedError(_errors.not_implemented_for(kernel, LIMITED[np_dtype]))
