"""`ember.memory_format` and its values: the order a dense tensor's dims take in memory.

A channels-last tensor keeps its logical NCHW shape while its memory runs N, H, W, C:
a view over a permuted dense copy, so its strides are (H*W*C, 1, W*C, C). Everything
here works on (shape, strides) in elements, so ops and the Tensor ask it the same way;
the formats are compared by identity, and `legacy_contiguous_format` is the same object
as `contiguous_format`, as in PyTorch.
"""
from ._backend import allocate as _allocate, as_strided as _as_strided

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "legacy_contiguous_format"]


class memory_format:
    """One memory format; printed as `ember.<name>`, pickled by name."""
    __slots__ = ("_name", "rank")

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'ember.memory_format' instances")

    @classmethod
    def _make(cls, name, rank):
        made = object.__new__(cls)
        made._name, made.rank = name, rank
        return made

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):
        return self._name


memory_format.__module__ = "ember"

contiguous_format = memory_format._make("contiguous_format", None)
channels_last = memory_format._make("channels_last", 4)
channels_last_3d = memory_format._make("channels_last_3d", 5)
preserve_format = memory_format._make("preserve_format", None)
legacy_contiguous_format = contiguous_format

# the order of dims from innermost (stride 1) outward, per channels-last rank
_INNER_FIRST = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}
# NumPy's transpose taking a C-ordered (N, spatial..., C) block to the NC... shape
_FROM_LAST = {4: (0, 3, 1, 2), 5: (0, 4, 1, 2, 3)}


def check(value, function):
    """PyTorch's argument-parser TypeError when `value` is not a memory format (or None)."""
    if value is not None and value.__class__ is not memory_format:
        name = value.__class__.__name__
        raise TypeError(f"{function}(): argument 'memory_format' must be ember.memory_format, "
                        f"not {name}")


def check_rank(ndim, fmt):
    """The RuntimeError for a channels-last format on a tensor of the wrong rank."""
    if fmt.rank is not None and ndim != fmt.rank:
        raise RuntimeError(f"required rank {fmt.rank} tensor to use {fmt._name} format")


def is_contiguous(shape, strides, fmt):
    """Whether a tensor of `shape`/`strides` (elements) is dense in `fmt`'s order.

    Size-1 dims may have any stride, and a tensor of the wrong rank is simply not
    channels-last (PyTorch answers False rather than raising).
    """
    if fmt is channels_last or fmt is channels_last_3d:
        if len(shape) != fmt.rank:
            return False
        order = _INNER_FIRST[fmt.rank]
    else:
        if 0 in shape:
            return True
        order = range(len(shape) - 1, -1, -1)
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def strides_for(shape, fmt):
    """PyTorch's channels-last strides (elements), plain products even with a zero size."""
    order = _INNER_FIRST[fmt.rank]
    strides = [0] * len(shape)
    expected = 1
    for d in order:
        strides[d] = expected
        expected *= shape[d]
    return strides


def empty(xp, shape, np_dtype, fmt):
    """An uninitialised array of `shape` laid out in channels-last `fmt`."""
    if 0 in shape:
        itemsize = xp.dtype(np_dtype).itemsize
        return _as_strided(xp.empty(0, dtype=np_dtype), tuple(shape),
                           [s * itemsize for s in strides_for(shape, fmt)])
    order = _FROM_LAST[fmt.rank]
    last = [shape[0], *shape[2:], shape[1]]
    return _allocate(xp.empty, last, np_dtype).transpose(order)


def suggest(shape, strides):
    """The format a tensor's strides look like (PyTorch's suggest_memory_format): walking
    dims from the channel outward, strides never shrink and C is not tied with N."""
    rank = len(shape)
    if rank not in _INNER_FIRST or strides[1] == 0:
        return contiguous_format
    smallest = 0
    for d in _INNER_FIRST[rank]:
        if shape[d] == 0 or strides[d] < smallest or d == 0 and smallest == strides[1]:
            return contiguous_format
        smallest = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return channels_last if rank == 4 else channels_last_3d
