"""PyTorch's CPU order for a float sum along some dims, replayed (`dim_total`).

`x.sum(0)`, `x.mean(1)`, a bias gradient summed over the batch: NumPy adds along the
contiguous axis pairwise, PyTorch with its own cascade, so results differed in the last
bit. PyTorch's sum kernel (SumKernel.cpp, cascade_sum) sees the tensor through a
TensorIterator, which puts the reduced dims first (fastest), then the kept ones, each
group by stride, and merges neighbours that are one run in memory. The kernel is then
called on the first two dims, once per index of the rest, and adds each value it
computes into the zeroed output. In those two dims:

- reduced and contiguous (at least a vector long): each row as `sum()` adds a run
  (vectors in four interleaved accumulators, then the tail, then the lanes, from 0);
- a contiguous kept dim after the reduced one, at least a vector wide: columns in
  groups of four vectors by the cascade alone, the columns past the last group each
  by the four-accumulator row sum; fewer columns than a vector: groups of four
  columns by the cascade, the rest by the row sum;
- otherwise rows (or columns) by the four-accumulator row sum.

With several threads and 32,768 elements or more, the kept dim the work is split over
is cut into ranges of whole 128-byte columns; the kernel then sees each range as the
whole row, so the column groups start again in each range.
Each value is therefore the same sequence of float additions as in PyTorch; here each
stage is one or a few NumPy calls over all rows or columns at once.
"""
import math

from .. import _settings
from .._backend import numpy as _numpy
from ._cascade_sum import REPLAY_LIMIT, _LANES, _down, _row_cascade, tensor_total

__all__ = ["dim_total", "float_sum"]

_GRAIN = 32768        # at::internal::GRAIN_SIZE: smaller reductions run on one thread
_ACCUMULATORS = 4
_ADD_REDUCE = _numpy.add.reduce


def _in_order(xp, steps):
    """The sequential sums down axis 0 of a (steps, width) array (the cascade's `_down`)."""
    return _down(xp, steps[None])[0]


def _accumulator_sum(xp, rows):
    """Each column of (count, width) as PyTorch's `row_sum` adds it: every fourth row
    into one of four accumulators (by the cascade), the rows left over into the first,
    then the other three into it."""
    count, width = rows.shape
    blocks = count // _ACCUMULATORS
    partial = _row_cascade(xp, xp.ascontiguousarray(
        rows[:blocks * _ACCUMULATORS]).reshape(blocks, _ACCUMULATORS * width))
    partial = partial.reshape(_ACCUMULATORS, width)
    steps = xp.concatenate((partial[:1], rows[blocks * _ACCUMULATORS:], partial[1:]))
    return _in_order(xp, steps)


def _row_totals(xp, rows, lanes):
    """Each row of a (count, length) array with length >= lanes, as `vectorized_inner_sum`
    adds it: its vectors by `row_sum`, then from 0 the tail and the lanes."""
    count, length = rows.shape
    vectors = length // lanes
    by_vector = rows[:, :vectors * lanes].reshape(count, vectors, lanes).transpose(1, 0, 2)
    lane_sums = _accumulator_sum(xp, by_vector.reshape(vectors, count * lanes))
    scalars = xp.concatenate((xp.zeros((count, 1), rows.dtype), rows[:, vectors * lanes:],
                              lane_sums.reshape(count, lanes)), axis=1)
    return _in_order(xp, scalars.T)


def _iterator_dims(array, axes):
    """TensorIterator's dims for a sum of `array` over `axes`: (size, stride in elements,
    reduced), fastest first. The result is allocated first (contiguous, in axis order),
    so the kept dims follow it, last axis fastest; the reduced ones, where it has stride
    0, go first, by the input's strides. Size-1 dims drop out; neighbours merge where
    the input's strides allow (the result's always do). None for a zero or negative
    stride (a broadcast or flipped view), which the replay leaves to NumPy."""
    shape = array.shape
    strides = [stride // array.itemsize for stride in array.strides]
    present = [axis for axis in range(len(shape)) if shape[axis] != 1]
    if any(strides[axis] <= 0 for axis in present):
        return None
    reduced = sorted((axis for axis in present if axis in axes), key=strides.__getitem__)
    kept = [axis for axis in reversed(present) if axis not in axes]
    dims = []
    for axis in reduced + kept:
        size, stride, is_reduced = shape[axis], strides[axis], axis in axes
        if dims and dims[-1][2] == is_reduced and dims[-1][0] * dims[-1][1] == stride:
            dims[-1] = (dims[-1][0] * size, dims[-1][1], is_reduced)
        else:
            dims.append((size, stride, is_reduced))
    return dims


def _split_over_columns(dims, numel, threads):
    """Whether the threads split the work over dim 1 in 128-byte columns: PyTorch's
    parallel_dim_reduction with find_split_dim (the outermost kept dim with at least a
    thread per index, else the largest), when that dim is contiguous."""
    if numel < _GRAIN or threads <= 1:
        return False
    best = len(dims) - 1
    for index in range(len(dims) - 1, -1, -1):
        if dims[index][2]:
            break
        if dims[index][0] >= threads:
            best = index
            break
        if dims[index][0] > dims[best][0]:
            best = index
    return best == 1 and dims[1][1] == 1


def _split_columns(columns, threads, multiple):
    """at::parallel_for(0, columns, 1) over `threads`, each range rounded to `multiple`."""
    workers = min(threads, columns)
    chunk = -(-columns // workers)
    ranges = []
    for worker in range(workers):
        begin = worker * chunk
        if begin >= columns:
            break
        end = min(columns, begin + chunk)
        begin -= begin % multiple
        if end != columns:
            end -= end % multiple
        if begin != end:
            ranges.append((begin, end))
    return ranges


def dim_total(xp, array, axes, threads):
    """The sum of a float32/float64 NumPy `array` over `axes` (a tuple), with the reduced
    dims dropped, rounded as PyTorch's CPU `sum(dims)` rounds it with `threads` threads
    (a count, or a function giving it); None where the order is not replayed."""
    lanes = _LANES.get(array.dtype.char)
    if lanes is None or not array.size or array.size > REPLAY_LIMIT:
        return None
    shape = array.shape
    kept_shape = tuple(size for axis, size in enumerate(shape) if axis not in axes)
    if math.prod(kept_shape) == 1:
        total = tensor_total(xp, array, threads)
        if total is not None:
            return total.reshape(kept_shape)
        if array.size >= _GRAIN:   # the threads would split a strided walk: not replayed
            return None
    dims = _iterator_dims(array, axes)
    if not dims:
        return None
    if not dims[0][2]:           # only dims of size 1 are reduced: 0 + x
        return (array + array.dtype.type(0)).reshape(kept_shape)
    size0, stride0, _ = dims[0]
    # a one-dim walk is a single column (the kernel's second stride is then 0)
    size1, stride1, _ = dims[1] if len(dims) > 1 else (1, 0, True)
    # the iterator's dims as the axes of a view, slowest first
    view = _numpy.lib.stride_tricks.as_strided(
        array, tuple(size for size, _, _ in reversed(dims)),
        tuple(stride * array.itemsize for _, stride, _ in reversed(dims)), writeable=False)
    vector_rows = stride0 == 1 and size0 >= lanes
    if vector_rows or not (stride1 == 1 and size1 >= lanes) and stride0 < stride1:
        # rows along dim 0 (the kernel's inner sums): a value per index of dims 1, 2, ...
        rows = view.reshape(-1, size0)
        values = _row_totals(xp, rows, lanes) if vector_rows else _accumulator_sum(xp, rows.T)
    else:
        # columns along dim 1, kept, each summed down dim 0 (outer sums): the same
        if callable(threads):
            threads = threads() if array.size >= _GRAIN else 1
        ranges = [(0, size1)]
        if _split_over_columns(dims, array.size, threads):
            split = _split_columns(size1, threads, 128 // array.itemsize)
            # Every range but the last is whole 128-byte columns, a multiple of the group,
            # so the groups fall as in one range unless the last is narrower than a vector.
            last = split[-1][0]
            if last and size1 - last < lanes:
                ranges = [(0, last), (last, size1)]
        blocks = view.reshape(-1, size1, size0).transpose(2, 0, 1)   # (dim 0, rest, dim 1)
        pieces = [_column_totals(xp, blocks[:, :, begin:end], lanes, stride1 == 1)
                  for begin, end in ranges]
        values = pieces[0] if len(pieces) == 1 else xp.concatenate(pieces, axis=1)
    values = values.reshape(view.shape[:-1])
    value_dims = dims[1:]
    # every value is added, in iteration order, into its output (zeroed first)
    reduced_axes = [len(value_dims) - 1 - i for i, d in enumerate(value_dims) if d[2]]
    kept_axes = [len(value_dims) - 1 - i for i, d in enumerate(value_dims) if not d[2]]
    reduced_axes.sort()
    kept_axes.sort()
    steps = values.transpose(reduced_axes + kept_axes).reshape(
        (-1, math.prod(kept_shape)))
    steps = xp.concatenate((xp.zeros((1, steps.shape[1]), array.dtype), steps))
    return _in_order(xp, steps).reshape(kept_shape)


def _column_totals(xp, blocks, lanes, contiguous):
    """The columns of (rows, blocks, columns) summed down axis 0 as `vectorized_outer_sum`
    (for contiguous columns at least a vector wide; else `scalar_outer_sum`) sums each
    block's: whole groups of columns by the cascade, the columns past them by `row_sum`.
    Returns (blocks, columns)."""
    rows, outer, columns = blocks.shape
    group = _ACCUMULATORS * lanes if contiguous and columns >= lanes else _ACCUMULATORS
    grouped = columns - columns % group
    pieces = []
    if grouped:
        head = xp.ascontiguousarray(blocks[:, :, :grouped]).reshape(rows, -1)
        pieces.append(_row_cascade(xp, head).reshape(outer, grouped))
    if grouped < columns:
        tail = xp.ascontiguousarray(blocks[:, :, grouped:]).reshape(rows, -1)
        pieces.append(_accumulator_sum(xp, tail).reshape(outer, columns - grouped))
    return pieces[0] if len(pieces) == 1 else xp.concatenate(pieces, axis=1)


def float_sum(array, axes, keepdim):
    """A NumPy array summed over `axes` (None: all), in PyTorch's order for float32 and
    float64 up to REPLAY_LIMIT elements, else by NumPy's add.reduce (within a few ulps).
    Called from ember's modules, so NumPy's overflow warnings stay filtered."""
    shape = array.shape
    reduced = array.size
    if axes is not None:
        reduced = 1
        for axis in axes:
            reduced *= shape[axis]
    total = None
    if reduced == array.size and reduced:   # one output (a loss): kept lean
        total = tensor_total(_numpy, array, _settings.get_num_threads)
        if total is not None and axes is not None and len(axes) < array.ndim and not keepdim:
            total = total.reshape(tuple(size for axis, size in enumerate(shape)
                                        if axis not in axes))
    if total is None:
        total = dim_total(_numpy, array, tuple(range(array.ndim)) if axes is None else axes,
                          _settings.get_num_threads)
    if total is None:
        return _ADD_REDUCE(array, axes, None, None, keepdim)
    if keepdim:
        return total.reshape(tuple(1 if axes is None or axis in axes else size
                                   for axis, size in enumerate(shape)))
    return total
