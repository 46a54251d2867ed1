"""ember.backends.openmp: ember parallelises through BLAS threads, not OpenMP."""
__all__ = ["is_available"]


def is_available():
    return False
