"""`ember.layout` and its values: how a tensor's elements are laid out in memory.

ember stores every tensor densely with strides, so `Tensor.layout` is always `strided`;
the sparse values exist so that code comparing against them (`x.layout == torch.sparse_coo`)
and argument checks naming `ember.layout` see the same objects PyTorch shows.
"""

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
           "sparse_bsc", "jagged"]


class layout:
    """One memory layout; compared by identity, printed as `ember.<name>`."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):
        # pickled by name, so a loaded layout is the same object
        return self._name


layout.__module__ = "ember"

strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")
