"""embedding_bag: sums, means or maxima of embedding rows over bags, without materialising
the per-index embeddings as a (N, D) tensor in the graph.

Bags are given by `offsets` into a 1-D index tensor (or are the rows of a 2-D one). One node,
EmbeddingBagBackward0, as PyTorch's: its gradient scatters each bag's gradient back to the
rows it read (scaled by the per-sample weight, or 1/count for 'mean'; only to the row that
won for 'max'), written with ember ops so it is recorded under create_graph.
"""
from .. import _dtype
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor
from .nn_linear import _embedding_renorm_

__all__ = ["embedding_bag", "torch_embedding_bag"]

_MODES = ("sum", "mean", "max")


def _check_arguments(input, offsets, mode, per_sample_weights, scale_grad_by_freq, sparse):
    ndim = input.dim()
    if ndim not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {ndim}")
    if ndim == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                         "mini-batch of fixed length sequences. However, found offsets of type "
                         f"{_type_text(offsets)}")
    if ndim == 1 and (offsets is None or offsets.dim() != 1):
        suffix = " but got None" if offsets is None else ""
        raise ValueError(f"offsets has to be a 1D Tensor{suffix}")
    if mode not in _MODES:
        raise ValueError(f"mode has to be one of {', '.join(_MODES[:2])} or max")
    if mode == "max":
        refused = ("scaling the gradient by the frequency" if scale_grad_by_freq else
                   "sparse weights" if sparse else None)
        if refused:
            raise ValueError(f"max mode does not support {refused}")
    weighted = per_sample_weights is not None
    if weighted and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
            "on GitHub.")
    if weighted and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if input._data.dtype.kind not in "iu" or input._data.dtype.itemsize < 4:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"ember.{input.dtype.tensor_type} instead (while checking arguments "
                           "for embedding_bag)")


def _type_text(value):
    return "<class 'ember.Tensor'>" if hasattr(value, "_data") else str(type(value))


def _bag_layout(xp, input, offsets, include_last_offset):
    """(flat indices, bag id per index, number of bags)."""
    if input.dim() == 2:
        rows, length = input.shape
        bags = xp.repeat(xp.arange(rows), length)
        return input._data.reshape(-1), bags, rows
    indices = input._data
    starts = offsets._data.astype(xp.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(starts[0])}\n"
                           "[ ember.LongTensor{} ]")
    count = starts.size - 1 if include_last_offset else starts.size
    positions = xp.arange(indices.size)
    if count <= 0:  # offsets=[0] with include_last_offset: no bags, every index dropped
        return indices, xp.full(indices.size, -1, xp.int64), 0
    bags = xp.searchsorted(starts[:count], positions, side="right") - 1
    # PyTorch's last bag runs to the end of the input whatever the last offset says
    return indices, bags, max(count, 0)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Reduce the embedding rows named in each bag by `mode` ('sum', 'mean' or 'max')."""
    return _embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                          sparse, per_sample_weights, include_last_offset, padding_idx)[0]


def _embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                   sparse, per_sample_weights, include_last_offset, padding_idx):
    """The bag reduction and its layout: (result, bag per index, bag sizes, max winners)."""
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    _check_arguments(input, offsets, mode, per_sample_weights, scale_grad_by_freq, sparse)
    xp = weight._device.xp
    rows, width = weight.shape
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError("padding_idx must be within the number of embeddings, "
                               f"-{rows} through {rows - 1}, but got {padding_idx}")
        padding_idx %= rows
    indices, bags, count = _bag_layout(xp, input, offsets, include_last_offset)
    for position, index in enumerate(indices.tolist()):
        if not 0 <= index < rows:
            raise RuntimeError(f"Index {position} of input takes value {index} which is not in "
                               f"the valid range [0, {rows})")
    if max_norm is not None:
        _embedding_renorm_(weight, indices, max_norm, norm_type)
    kept = bags >= 0
    if padding_idx is not None:
        kept &= indices != padding_idx
    kept_indices, kept_bags = indices[kept], bags[kept]
    values = weight._data[kept_indices]
    if per_sample_weights is not None:
        values = values * per_sample_weights._data.reshape(-1)[kept][:, None]
    sizes = xp.bincount(kept_bags, minlength=count)[:count]
    winners = None
    if mode == "max":
        out, winners = _bag_max(xp, values, kept_indices, kept_bags, count, width)
    else:
        out = xp.zeros((count, width), weight._data.dtype)
        xp.add.at(out, kept_bags, values)
        if mode == "mean":
            out = out / xp.maximum(sizes, 1)[:, None].astype(out.dtype)
    result = make_tensor(out.astype(weight._data.dtype, copy=False), weight._device)
    weights_need = per_sample_weights is not None and per_sample_weights._requires_grad
    if grad_state.enabled and (weight._requires_grad or weights_need):
        node = EmbeddingBagBackward0()
        node.layout = (kept, kept_indices, kept_bags, sizes, winners, mode, rows,
                       scale_grad_by_freq, indices)
        node.save(weight, per_sample_weights)
        attach(result, node, weight, per_sample_weights)
    return result, bags, sizes, winners


def torch_embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                        sparse=False, per_sample_weights=None, include_last_offset=False,
                        padding_idx=None):
    """ember.embedding_bag, ATen's form: mode as an integer (0 sum, 1 mean, 2 max) and four
    results, (output, offset2bag, bag_size, max_indices), filled as PyTorch's CPU kernel
    fills them: 'sum' leaves bag_size and max_indices zero, and leaves offset2bag empty on
    its fast path (float32 / float16 / bfloat16 rows, no padding_idx); 'mean' repeats
    bag_size as max_indices; 'max' gives the winning row per bag and column (0 if empty)."""
    name = _MODES[mode]
    result, bags, sizes, winners = _embedding_bag(
        indices, weight, offsets, None, 2, scale_grad_by_freq, name, sparse, per_sample_weights,
        include_last_offset, padding_idx)
    xp = weight._device.xp
    index_type = xp.result_type(indices._data.dtype, offsets._data.dtype)
    count = result.shape[0]
    fast = (name == "sum" and padding_idx is None and weight._data.strides[1] ==
            weight._data.itemsize and weight.dtype in (_dtype.float32, _dtype.float16,
                                                       _dtype.bfloat16))
    offset2bag = xp.zeros(0, index_type) if fast else bags.astype(index_type)
    if name == "sum":   # one entry per offset, even the closing one of include_last_offset
        bag_size = xp.zeros(offsets._data.size, index_type)
        max_indices = bag_size.copy()
    else:
        bag_size = sizes.astype(index_type)
        max_indices = (bag_size.copy() if name == "mean" else
                       xp.maximum(winners, 0).astype(index_type))
    device = weight._device
    return (result, make_tensor(offset2bag, device), make_tensor(bag_size, device),
            make_tensor(max_indices, device))


def _bag_max(xp, values, kept_indices, kept_bags, count, width):
    """Per bag and column: the largest value and the row it came from (first on ties)."""
    out = xp.full((count, width), -xp.inf, values.dtype)
    xp.maximum.at(out, kept_bags, values)
    is_best = values == out[kept_bags]
    order = xp.arange(values.shape[0])[:, None]
    first = xp.full((count, width), values.shape[0], xp.int64)
    xp.minimum.at(first, kept_bags, xp.where(is_best, order, values.shape[0]))
    empty = first == values.shape[0]
    rows = xp.where(empty, -1, kept_indices[xp.minimum(first, max(values.shape[0] - 1, 0))]
                    if values.shape[0] else -1)
    return xp.where(empty, 0, out), rows


def _frequency_scale(xp, indices, rows):
    """Per weight row, the factor PyTorch's CPU backward applies under scale_grad_by_freq.

    PyTorch walks the distinct indices in sorted order and divides the k-th one's gradient
    by the count of the k-th *sorted index* (not of the row itself): row r with count c gets
    1/c only when the sorted list agrees there. Measured against torch 2.13 and matched.
    """
    counts = xp.bincount(indices, minlength=rows)
    distinct = xp.unique(indices)
    factor = xp.ones(rows)
    factor[distinct] = 1.0 / counts[xp.sort(indices)[:distinct.size]]
    return factor


class EmbeddingBagBackward0(Node):
    __slots__ = ("layout",)

    def backward(self, grad):
        weight, per_sample_weights = self.saved_tensors
        (kept, kept_indices, kept_bags, sizes, winners, mode, rows, scale_grad_by_freq,
         indices) = self.layout
        device = grad._device
        xp = device.xp
        width = grad.shape[1]
        grad_weight = grad_samples = None
        if mode == "max":
            if self.needs_input_grad(0):
                chosen = winners.reshape(-1)
                columns = xp.tile(xp.arange(width), winners.shape[0])
                used = chosen >= 0
                target = make_tensor(chosen[used] * width + columns[used], device)
                picked = grad.reshape(-1)[make_tensor(xp.nonzero(used)[0], device)]
                grad_weight = grad.new_zeros((rows * width,)).index_add(0, target, picked)
                grad_weight = grad_weight.reshape(rows, width)
            return grad_weight, None
        bag_ids = make_tensor(kept_bags, device)
        per_index = grad.index_select(0, bag_ids)
        if self.needs_input_grad(0):
            scale = None
            if mode == "mean":
                scale = 1.0 / xp.maximum(sizes, 1)[kept_bags]
            if scale_grad_by_freq:
                frequency = _frequency_scale(xp, indices, rows)[kept_indices]
                scale = frequency if scale is None else scale * frequency
            contribution = per_index
            if scale is not None:
                contribution = contribution * make_tensor(
                    scale.astype(grad._data.dtype)[:, None], device)
            if per_sample_weights is not None:
                samples = per_sample_weights.reshape(-1)[make_tensor(xp.nonzero(kept)[0],
                                                                     device)]
                contribution = contribution * samples.unsqueeze(1)
            grad_weight = grad.new_zeros((rows, width)).index_add(
                0, make_tensor(kept_indices, device), contribution)
        if self.needs_input_grad(1):
            picked = weight.index_select(0, make_tensor(kept_indices, device))
            flat = grad.new_zeros((kept.size,))
            flat[make_tensor(xp.nonzero(kept)[0], device)] = (per_index * picked).sum(1)
            grad_samples = flat.reshape(per_sample_weights.shape)
        return grad_weight, grad_samples
