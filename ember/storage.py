"""ember.storage, as torch.storage: the storage classes under the module name PyTorch
prints (`ember.storage.TypedStorage`) and pickles them by."""
from ._storage import StorageBase, TypedStorage, UntypedStorage  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]
