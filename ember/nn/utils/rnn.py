"""nn.utils.rnn: batches of variable-length sequences, padded or packed.

A recurrent layer should not spend steps on padding, so a batch is handed to it packed
(`PackedSequence`): the valid steps only, time-major, with the number of live sequences per
step. The padding and packing themselves are the ops in ember/ops/packing.py; this module
adds the sorting that lets unsorted batches be packed (and restored to their order), and
the conversions between lists of tensors, padded tensors and packed sequences.
"""
from collections import namedtuple
from collections.abc import Iterable

from ... import _dtype
from ..._tensor import Tensor
from ...ops.creation import empty_like, tensor
from ...ops.interop import as_tensor
from ...ops.ranges import arange
from ...ops.sorting import sort
from ...ops.packing import _pack_padded_sequence, _pad_packed_sequence, pad_sequence as _pad

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

_BATCH_SIZES_ON_CPU = (
    "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
    "manually. They should be instantiated by functions like pack_sequence and "
    "pack_padded_sequences in nn.utils.rnn. "
    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")

PackedSequence_ = namedtuple("PackedSequence_",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _maybe(tensor, function):
    return None if tensor is None else function(tensor)


class PackedSequence(PackedSequence_):
    """The packed rows of a batch of sequences (`data`), how many sequences are alive at each
    step (`batch_sizes`, a CPU int64 tensor), and the permutation that sorted the batch by
    length (`sorted_indices`) with its inverse (`unsorted_indices`), or None when the batch
    came sorted. A tuple, so it unpacks and indexes as PyTorch's does."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # the (data, batch_sizes) pair the packing op returns
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(_BATCH_SIZES_ON_CPU)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _maybe(self.sorted_indices, lambda t: t.pin_memory()),
                          _maybe(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """Convert `data` as Tensor.to would; the index tensors follow it to its device, and
        `batch_sizes` stays on the CPU. Returns self when `data` is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        if "copy" in kwargs:  # PyTorch's argument parser for the index tensors refuses it
            raise RuntimeError(".to() does not accept copy argument")
        non_blocking = kwargs.get("non_blocking", False)
        if not non_blocking:
            non_blocking = any(arg is True for arg in args if isinstance(arg, bool))

        def follow(tensor):
            return tensor.to(data.device, non_blocking=non_blocking)
        return type(self)(data, self.batch_sizes, _maybe(self.sorted_indices, follow),
                          _maybe(self.unsorted_indices, follow))

    def cuda(self, *args, **kwargs):
        target = tensor((), dtype=self.data.dtype, device=self.data.device)
        if target.to(*args, **kwargs).is_cuda:
            return self.to(*args, **kwargs)
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs):
        target = tensor((), dtype=self.data.dtype, device=self.data.device)
        if target.to(*args, **kwargs).device.type == "cpu":
            return self.to(*args, **kwargs)
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=_dtype.float64)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def half(self):
        return self.to(dtype=_dtype.float16)

    def long(self):
        return self.to(dtype=_dtype.int64)

    def int(self):
        return self.to(dtype=_dtype.int32)

    def short(self):
        return self.to(dtype=_dtype.int16)

    def char(self):
        return self.to(dtype=_dtype.int8)

    def byte(self):
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The permutation q with q[p[i]] = i, or None for None: where each sorted position
    came from, turned into where each original position went."""
    if permutation is None:
        return None
    positions = arange(permutation.numel(), device=permutation.device)
    return empty_like(permutation).scatter_(0, permutation, positions)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) batch (B, T, * when batch_first) of sequences of the given
    lengths; unsorted batches are sorted by length first unless enforce_sorted asks them
    to come sorted."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=_dtype.int64)
    else:
        lengths = as_tensor(lengths, dtype=_dtype.int64, device="cpu")
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """(padded, lengths): a packed batch back as a padded tensor, in the batch's original
    order, at least `total_length` steps long when given."""
    longest = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < longest:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {longest}")
        longest = total_length
    padded, lengths = _pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                           padding_value, longest)
    order = sequence.unsorted_indices
    if order is None:
        return padded, lengths
    return padded.index_select(0 if batch_first else 1, order), lengths[order.cpu()]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Pad a list of (L_i, *) tensors to the longest into one (T, B, *) tensor (B, T, * when
    batch_first)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    return _pad(tuple(sequences), batch_first, padding_value, padding_side)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences inside a padded tensor, each cut to its length. Like PyTorch,
    a time-major input is transposed in place on the way."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = arange(padded_sequences.shape[1], device=lengths.device)
    return [sequence[steps < length]
            for sequence, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of (L_i, *) tensors: pad them, then pack the padded batch."""
    lengths = as_tensor([sequence.size(0) for sequence in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences inside a packed batch, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
