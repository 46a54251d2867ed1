"""ember.backends.opt_einsum: contraction-order search for einsum.

PyTorch uses the opt_einsum package when installed; ember's einsum runs through
NumPy's, which orders contractions itself, so no package is loaded here.
"""
__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy"]

enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
