"""ember.backends: the backend flags scripts set at start-up, as PyTorch's CPU build reports them.

cuDNN, cuBLAS and MPS flags are kept and read back but change nothing on the CPU
(nor in PyTorch's CPU build); `cpu.get_cpu_capability()` names the SIMD level
NumPy dispatches to.
"""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum", "flags_frozen",
           "disable_global_flags"]

_flags_frozen = [False]


def disable_global_flags():
    _flags_frozen[0] = True


def flags_frozen():
    return _flags_frozen[0]
