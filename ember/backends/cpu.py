"""ember.backends.cpu: the SIMD level ember's arithmetic (NumPy) dispatches to."""
from .._backend import cpu_capability

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """'AVX512', 'AVX2' or 'DEFAULT', by PyTorch's rule, from the features NumPy detected."""
    return cpu_capability()
