"""Small top-level questions PyTorch answers about its build and about objects: is an
object a storage, is a tensor distributed (never, here), was the library built with the
C++11 ABI or Vulkan (ember has no C++ build: it answers as PyTorch's CPU wheel does)."""
from ._storage import TypedStorage, UntypedStorage

__all__ = ["is_storage", "is_distributed", "compiled_with_cxx11_abi", "is_vulkan_available"]


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
