"""Small top-level questions PyTorch answers about its build and about objects: is an
object a storage, is a tensor distributed (never, here), was the library built with the
C++11 ABI or Vulkan (ember has no C++ build: it answers as PyTorch's CPU wheel does)."""
from ._storage import TypedStorage, UntypedStorage

__all__ = ["is_storage", "is_distributed", "compiled_with_cxx11_abi", "is_vulkan_available",
           "has_lapack", "has_mkl", "has_openmp", "has_spectral", "set_flush_denormal",
           "init_num_threads"]

# What the CPU wheel was built with; ember's counterparts are there too: LAPACK through
# NumPy/SciPy, FFTs through NumPy, threads through the BLAS pool.
has_lapack = True
has_mkl = True
has_openmp = True
has_spectral = True


def is_storage(obj):
    """True for the storages `untyped_storage()` and `storage()` give."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def is_distributed(input):
    """False for every tensor; a non-tensor is refused (through its door) as PyTorch's
    parser refuses it."""
    if not hasattr(input, "is_distributed"):
        raise TypeError("expected a Tensor")
    return False


def compiled_with_cxx11_abi():
    return True


def is_vulkan_available():
    return False


def set_flush_denormal(mode):
    """Whether flushing subnormal floats to zero could be switched: False, as on a CPU
    without the instruction for it, because NumPy offers no switch (values are unchanged)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def init_num_threads(*args, **kwargs):
    """Nothing to set up: the BLAS thread pool starts on its own."""
    if args or kwargs:
        keywords = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        given = "; ".join(part for part in (", ".join(repr(a) for a in args),
                                            keywords and "kwargs: " + keywords) if part)
        raise TypeError("init_num_threads(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. () -> None\n\nInvoked with: "
                        f"{given}")
