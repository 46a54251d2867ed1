"""EmbeddingBag: an embedding table whose lookups are reduced per bag (sum, mean or max)."""
from ...autograd.grad_mode import no_grad
from ...ops.creation import empty
from ...ops.embedding_bag import embedding_bag
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["EmbeddingBag"]


class EmbeddingBag(Module):
    """`num_embeddings` vectors of size `embedding_dim` (N(0, 1)), reduced over each bag."""

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type",
                     "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                     "padding_idx"]

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertionError("padding_idx must be within num_embeddings")
        self.padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        shape = (num_embeddings, embedding_dim)
        if _weight is not None and tuple(_weight.shape) != shape:
            raise AssertionError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
        fresh = _weight is None
        self.weight = Parameter(empty(shape, device=device, dtype=dtype) if fresh else _weight)
        if fresh:
            self.reset_parameters()

    def reset_parameters(self):
        """N(0, 1) rows; the padding row (if any) starts at zero."""
        init.normal_(self.weight)
        row = self.padding_idx
        if row is not None:
            with no_grad():
                self.weight[row].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        shown = [("max_norm", self.max_norm, self.max_norm is not None),
                 ("norm_type", self.norm_type, self.norm_type != 2),
                 ("scale_grad_by_freq", self.scale_grad_by_freq, self.scale_grad_by_freq),
                 ("mode", repr(self.mode), True),
                 ("padding_idx", self.padding_idx, self.padding_idx is not None)]
        return ", ".join([f"{self.num_embeddings}, {self.embedding_dim}"]
                         + [f"{name}={value}" for name, value, show in shown if show])

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An EmbeddingBag over the given 2-D table (frozen unless freeze=False)."""
        if embeddings.dim() == 2:
            rows, columns = embeddings.shape
        else:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        bag = cls(rows, columns, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
