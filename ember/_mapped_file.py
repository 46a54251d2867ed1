"""from_file: a CPU tensor whose memory is a mapping of a file.

NumPy's `memmap` does the mapping. `shared=True` maps the file read-write, so writes
to the tensor reach the file (and a missing file is created at the needed size);
otherwise the mapping is private copy-on-write, as PyTorch's: the tensor can be
written, the file never is.
"""
import os

from . import _dtype
from ._backend import numpy as np
from ._device import CPU
from ._tensor import make_tensor

__all__ = ["from_file"]


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """`size` elements of `dtype` read from the start of `filename` (no copy)."""
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    np_dtype = np.dtype(dtype.np_dtype)
    name = os.fspath(filename)
    if size == 0:
        array = np.empty((0,), dtype=np_dtype)
    else:
        array = _mapped(name, bool(shared), size, np_dtype)
    out = make_tensor(array, CPU)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _mapped(name, shared, size, np_dtype):
    """A 1-dim array over the file's first `size` elements, with PyTorch's refusals."""
    nbytes = size * np_dtype.itemsize
    if nbytes < 0:
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{name}>: Cannot "
                           "allocate memory (12)")
    if not os.path.exists(name):
        if not shared:
            raise RuntimeError(f"unable to open file <{name}> in read-only mode: No such file "
                               "or directory (2)")
        with open(name, "wb") as handle:
            handle.truncate(nbytes)
    length = os.path.getsize(name)
    if length < nbytes:
        if not shared:
            raise RuntimeError(f"file <{name}> size <{length}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        with open(name, "r+b") as handle:
            handle.truncate(nbytes)
    mapping = np.memmap(name, dtype=np_dtype, mode="r+" if shared else "c", shape=(size,))
    return mapping.view(np.ndarray)
