"""Packed sequences: the three ATen ops behind nn.utils.rnn.

A packed batch stores only the valid time steps of variable-length sequences, time-major:
step 0 of every sequence, then step 1 of those that are still running, and so on, with
`batch_sizes[t]` saying how many sequences are alive at step t. Sequences are sorted longest
first, so the live ones at every step are a prefix of the batch.

- `_pack_padded_sequence` is one gather (a boolean mask over (time, batch)) and has its own
  node, PackPaddedSequenceBackward0, whose gradient is the padding op run on the gradient.
- `_pad_packed_sequence` and `pad_sequence` are composites in PyTorch: they fill a tensor
  with the padding value and copy blocks into slices of it. ember composes them the same way
  (`full`, then `narrow(...).copy_`), so their history is the same chain of CopySlices nodes
  PyTorch shows, and gradients and higher-order gradients come from those ops.
"""
from .. import _dtype
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, make_tensor
from .creation import full

__all__ = ["_pack_padded_sequence", "_pad_packed_sequence", "pad_sequence"]

_INT64 = _dtype.int64


def _require_tensor(value, function, name, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def _check_long_vector(tensor):
    """Lengths and batch sizes live on the CPU as 1-D int64 tensors (PyTorch checks both)."""
    if tensor.dim() != 1 or tensor.device.type != "cpu" or tensor.dtype is not _INT64:
        kind = tensor.dtype.tensor_type[:-len("Tensor")]
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{tensor.dim()}D {tensor.device.type} {kind} tensor")


def _pack_padded_sequence(input, lengths, batch_first):
    """(data, batch_sizes) of a padded (T, B, *) batch (B, T, * when batch_first) whose
    sequence lengths are `lengths`, sorted longest first."""
    _require_tensor(input, "_pack_padded_sequence", "input", 1)
    _require_tensor(lengths, "_pack_padded_sequence", "lengths", 2)
    time_major = input.transpose(0, 1) if batch_first else input
    _check_long_vector(lengths)
    batch = time_major.size(1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    counts = lengths._data
    if counts.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{counts.shape[0]} (batch_size={batch})")
    if counts[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if (counts[1:] > counts[:-1]).any():
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    host = lengths._device.xp
    batch_sizes = (counts[None, :] > host.arange(int(counts[0]))[:, None]).sum(1)
    xp = input._device.xp
    steps = time_major.size(0)
    alive = xp.arange(steps)[:, None] < xp.asarray(counts)[None, :]
    # boolean indexing walks (time, batch) in C order: the packed, time-major layout
    data = make_tensor(time_major._data[alive], input._device)
    sizes = make_tensor(batch_sizes.astype(_INT64.np_dtype, copy=False), lengths._device)
    if grad_state.enabled and input._requires_grad:
        node = PackPaddedSequenceBackward0()
        node.batch_sizes = sizes
        node.batch_first = batch_first
        node.steps = steps
        attach(data, node, input)
    return data, sizes


class PackPaddedSequenceBackward0(Node):
    """The gradient of a gather into packed form is the same gradient padded back with
    zeros to the input's length."""
    __slots__ = ("batch_sizes", "batch_first", "steps")

    def backward(self, grad):
        padded = _pad_packed_sequence(grad, self.batch_sizes, self.batch_first, 0.0, self.steps)
        return (padded[0],)


def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """(padded, lengths): the packed rows of `data` put back into a (T, B, *) tensor filled
    with `padding_value`, T being `total_length` when it is positive."""
    _require_tensor(data, "_pad_packed_sequence", "data", 1)
    _require_tensor(batch_sizes, "_pad_packed_sequence", "batch_sizes", 2)
    if not isinstance(total_length, int):
        raise TypeError("_pad_packed_sequence(): argument 'total_length' (position 5) must be "
                        f"int, not {type(total_length).__name__}")
    _check_long_vector(batch_sizes)
    sizes = batch_sizes._data.tolist()
    if not sizes:
        raise RuntimeError("batch_sizes can not be empty")
    longest = len(sizes)
    steps = longest
    if total_length > 0:
        if total_length < longest:
            raise RuntimeError("Expected total_length to be at least the length of the longest "
                               f"sequence in input, but got total_length={total_length} and max "
                               f"sequence length being {longest}")
        steps = total_length
    widest = sizes[0]
    trailing = tuple(data.shape[1:])
    out = full((steps, widest) + trailing, padding_value, dtype=data.dtype, device=data.device)
    offset = start = 0
    # one copy per run of equal batch sizes: a (run, size, *) block of consecutive rows
    for stop in range(1, longest + 1):
        if stop < longest and sizes[stop] == sizes[start]:
            continue
        count = stop - start
        rows = count * sizes[start]
        block = data.narrow(0, offset, rows).view((count, sizes[start]) + trailing)
        out.narrow(0, start, count).narrow(1, 0, sizes[start]).copy_(block)
        offset += rows
        start = stop
    host = batch_sizes._device.xp
    lengths = (batch_sizes._data[None, :] > host.arange(widest)[:, None]).sum(1)
    lengths = make_tensor(lengths.astype(_INT64.np_dtype, copy=False), batch_sizes._device)
    return (out.transpose(0, 1) if batch_first else out), lengths


_SIDES = ("left", "right")


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length tensors (L_i, *) into one (T, B, *) tensor (B, T, * when
    batch_first) padded with `padding_value` on `padding_side`; torch._C._nn.pad_sequence."""
    count = len(sequences)
    if count == 0:
        raise RuntimeError("received an empty list of sequences")
    if not isinstance(padding_side, str):
        raise TypeError("pad_sequence(): argument 'padding_side' (position 4) must be str, not "
                        f"{type(padding_side).__name__}")
    if padding_side not in _SIDES:
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    for position, sequence in enumerate(sequences):
        if not isinstance(sequence, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got "
                            f"{type(sequence).__name__}")
    if batch_first.__class__ is not bool:
        raise TypeError("pad_sequence(): argument 'batch_first' (position 2) must be bool, not "
                        f"{type(batch_first).__name__}")
    if not isinstance(padding_value, (int, float, Tensor)):
        raise TypeError("pad_sequence(): argument 'padding_value' (position 3) must be float, "
                        f"not {type(padding_value).__name__}")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    longest = max([sequence.size(0) for sequence in sequences])
    shape = (count, longest) if batch_first else (longest, count)
    out = full(shape + tuple(first.shape[1:]), float(padding_value), dtype=first.dtype,
               device=first.device)
    left = padding_side == "left"
    for index, sequence in enumerate(sequences):
        length = sequence.size(0)
        start = longest - length if left else 0
        if batch_first:
            out.select(0, index).narrow(0, start, length).copy_(sequence)
        else:
            out.narrow(0, start, length).select(1, index).copy_(sequence)
    return out
