"""PyTorch's CPU summation orders, replayed so that a float sum rounds as PyTorch's does.

`cascade_sum`: the scalar cascade with which the nll_loss kernel adds up a batch.
`tensor_total`: `sum()`/`mean()` of a whole float32/float64 tensor (below).

The nll_loss kernel's cascade:

The kernel walks the batch in order and keeps eight partial sums in the element type.
Every term is added to level 0; after adding the term at index b, level j is added
into level j + 1 and cleared while b is a multiple of 16**(j + 1), so index 0 sends its
term straight to the top. An ignored target adds nothing and flushes nothing. The
result is 0 + level 0 + level 1 + ... + level 7, in that order. (The runs are 16 terms
long at every batch size measured against PyTorch, up to 3,000,000.)

NumPy's pairwise `sum` rounds differently, so a mean loss printed with `.item()`
differed from PyTorch's in the last digits. Here the same additions happen in the same
order: a level's runs are laid out as rows and summed left to right by
`add.accumulate`, one call per level, never a Python loop over the terms.
"""
from .._backend import numpy as _numpy

__all__ = ["cascade_sum", "tensor_total"]

_LEVELS = 8
_POWER = 4
_STEP = 1 << _POWER


def _in_order(xp, rows):
    """Each row of a 2-D array summed left to right (accumulate is sequential)."""
    if not rows.shape[1]:
        return xp.zeros(rows.shape[0], rows.dtype)
    return xp.add.accumulate(rows, axis=1)[:, -1]


def _regular(xp, values):
    """The levels' leftover sums when every term is used: index 0 alone goes to the
    top; after it each level's values fall into runs of exactly 16."""
    leftovers = []
    for level in range(_LEVELS - 1):
        if values.size < _STEP:   # no whole run: this level keeps them all, the rest none
            leftovers.append(_in_order(xp, values.reshape(1, -1))[0])
            leftovers.extend([values.dtype.type(0)] * (_LEVELS - 2 - level))
            return leftovers, values[:0]
        full = values.size - values.size % _STEP
        leftovers.append(_in_order(xp, values[full:].reshape(1, -1))[0])
        values = _in_order(xp, values[:full].reshape(-1, _STEP))
    return leftovers, values


def _runs(xp, values, ends):
    """Sums of the runs of `values` that end where `ends` is True, and the sum of the
    unfinished run after the last end. Rows are padded with zeros, which change no sum
    (the running sums start at +0.0 and adding +0.0 keeps any value)."""
    run = xp.cumsum(ends) - ends
    count = int(run[-1]) + 1 if run.size else 0
    lengths = xp.bincount(run, minlength=count)
    position = xp.arange(values.size) - xp.repeat(xp.cumsum(lengths) - lengths, lengths)
    rows = xp.zeros((count, int(lengths.max()) if count else 0), values.dtype)
    rows[run, position] = values
    sums = _in_order(xp, rows)
    finished = int(ends.sum())
    tail = sums[finished] if finished < count else values.dtype.type(0)
    return sums[:finished], tail


def _irregular(xp, values, index):
    """The same with ignored terms: a run ends only at a used index on a flush point."""
    depth = xp.zeros(index.size, xp.int64)      # how many levels each term flushes
    divisor = _STEP
    for _ in range(_LEVELS - 1):
        depth += (index % divisor) == 0
        divisor <<= _POWER
    leftovers = []
    for level in range(_LEVELS - 1):
        ends = depth > level
        values, tail = _runs(xp, values, ends)
        depth = depth[ends]
        leftovers.append(tail)
    return leftovers, values


def cascade_sum(xp, terms, used):
    """The cascade sum of the 1-D `terms` (in the dtype the kernel adds in) at the
    positions where `used` is True; flush points are the positions' own indices."""
    dtype = terms.dtype
    zero = dtype.type(0)
    if used.all():
        if not terms.size:
            return zero
        leftovers, flushed = _regular(xp, terms[1:])
        first = terms[:1]
    else:
        index = xp.flatnonzero(used)
        if not index.size:
            return zero
        leftovers, flushed = _irregular(xp, terms[index], index)
        # the first used term went to the top only if it sits at index 0
        first = flushed[:0]
    top = _in_order(xp, xp.concatenate((first, flushed)).reshape(1, -1))[0]
    result = zero
    for leftover in leftovers + [top]:
        result = dtype.type(result + leftover)
    return result


# ---------------------------------------------------------------- sum() of a whole tensor
# PyTorch's reduction kernel sums a contiguous run in 256-bit vectors (8 floats or 4
# doubles: on AVX2 and AVX-512 machines alike, as measured): four vector accumulators side
# by side, each a four-level cascade of runs of 16 vectors (more per run past 2**16
# vectors); the vectors left over go into the first accumulator, the four are added in
# order, and a scalar accumulator from 0 takes the elements past the last whole vector,
# then the lanes in order. Runs shorter than a vector are summed as scalars in the same
# four-accumulator pattern. Past 32,768 elements the run is cut into one chunk per thread
# (at most one per 32,768 elements), each summed so, and the chunks' sums added from 0.
# Replayed with one add.accumulate per level, never a Python loop over the elements;
# checked against torch for every length up to 300 and assorted lengths to 10**6.
_LANES = {"f": 8, "d": 4}      # by dtype.char: float32, float64
_ZERO = {char: _numpy.zeros(1, char) for char in _LANES}   # the scalar loop's start
_ADD_REDUCE = _numpy.add.reduce
_GRAIN = 32768
_ACCUMULATORS = 4
_LEVELS_PER_ROW_SUM = 4
_ACCUMULATE_LIMIT = 4096
# Elements up to which the order is replayed: a printed loss, a dataset's mean. Past it
# NumPy's pairwise sum (within a few ulps) keeps large sums fast: the replay costs about
# 20 NumPy calls plus a pass per level, ~10x NumPy's time on a million floats.
REPLAY_LIMIT = 1 << 16


def _ceil_log2(n):
    return 1 if n <= 2 else (n - 1).bit_length()


def _down(xp, stacked):
    """Left-to-right sums down axis 1 of a (groups, length, width) array.

    Two columns or more: one reduce of the C-contiguous array, which adds down a middle
    axis in order (NumPy sums pairwise only along the axis its inner loop runs over,
    and that is the last one here). One column would make axis 1 that inner axis, so
    it takes add.accumulate (sequential by definition) or, when large, one vectorized
    add per position, as accumulate along a middle axis crawls."""
    if stacked.shape[2] >= 2 and xp is _numpy:
        return _ADD_REDUCE(_numpy.ascontiguousarray(stacked), 1)
    if stacked.size <= _ACCUMULATE_LIMIT:
        return xp.add.accumulate(stacked, axis=1)[:, -1]
    total = stacked[:, 0].copy()
    for position in range(1, stacked.shape[1]):
        total += stacked[:, position]
    return total


def _row_cascade(xp, rows):
    """Each column of the (count, width) `rows` summed by the four-level cascade."""
    count, width = rows.shape
    power = max(4, _ceil_log2(count) // _LEVELS_PER_ROW_SUM)
    step = 1 << power
    blocks = count // step
    if not blocks:   # fewer rows than a run: accumulator 0 takes them in order
        return _down(xp, rows[None])[0] if count else xp.zeros(width, rows.dtype)
    zero = xp.zeros(width, rows.dtype)
    rest = rows[blocks * step:]
    first = _down(xp, rest[None])[0] if rest.shape[0] else zero
    values = _down(xp, rows[:blocks * step].reshape(blocks, step, width))
    leftovers = []
    for _ in range(_LEVELS_PER_ROW_SUM - 2):        # levels 1 and 2 flush every `step`
        full = values.shape[0] - values.shape[0] % step
        leftovers.append(_down(xp, values[None, full:])[0] if full < values.shape[0] else zero)
        values = (_down(xp, values[:full].reshape(-1, step, width)) if full
                  else values[:0])
    top = _down(xp, values[None])[0] if values.shape[0] else zero   # level 3 keeps all
    for level in leftovers + [top]:
        first = first + level
    return first


def _run_total(xp, run, lanes):
    """One contiguous run summed as one thread of PyTorch's kernel sums it.

    A reduce down axis 0 of a C-contiguous 2-D array adds its rows in order (NumPy's
    pairwise summation applies along the contiguous axis only), so it stands for a
    sequential column sum wherever one is needed: a few NumPy calls in all for a
    whole tensor of up to 64 vectors, which a printed `loss.item()` sums every step.
    """
    n = run.size
    if n < lanes:                                     # the scalar loop, 4 accumulators
        whole = n - n % _ACCUMULATORS
        partial = _row_cascade(xp, run[:whole].reshape(-1, _ACCUMULATORS))
        pieces = xp.concatenate((partial[:1], run[whole:], partial[1:]))
        return xp.add.accumulate(pieces)[-1]
    vectors = n // lanes
    grouped = vectors - vectors % _ACCUMULATORS
    width = _ACCUMULATORS * lanes
    rows = run[:grouped * lanes].reshape(-1, width)
    if not grouped:
        partial = xp.zeros(width, run.dtype)
    elif grouped < _ACCUMULATORS << _POWER:           # fewer rows than a run: in order
        partial = _ADD_REDUCE(rows, 0)
    else:
        partial = _row_cascade(xp, rows)
    # accumulator 0, then the (at most three) vectors left over, then accumulators 1-3
    if grouped == vectors:
        steps = partial
    else:
        steps = xp.concatenate((partial[:lanes], run[grouped * lanes:vectors * lanes],
                                partial[lanes:]))
    first = _ADD_REDUCE(steps.reshape(-1, lanes), 0)
    scalars = xp.concatenate((_ZERO[run.dtype.char], run[vectors * lanes:], first))
    return xp.add.accumulate(scalars)[-1]


def tensor_total(xp, array, threads):
    """The sum of every element of a float32/float64 `array`, rounded as PyTorch's
    `sum()` rounds it with `threads` threads (a count, or a function giving it), or None where the order is not replayed
    (other dtypes, or a layout PyTorch cannot walk as one run)."""
    lanes = _LANES.get(array.dtype.char)
    if lanes is None or array.size > REPLAY_LIMIT:
        return None
    run = array.reshape(-1) if array.flags.c_contiguous else _dense_run(array)
    if run is None:
        return None
    n = run.size
    if n <= _GRAIN:
        return _run_total(xp, run, lanes)
    if callable(threads):   # asked only here: finding the thread count may load a library
        threads = threads()
    chunks = min(threads, -(-n // _GRAIN))
    if chunks <= 1:
        return _run_total(xp, run, lanes)
    size = -(-n // chunks)
    partials = xp.zeros(max(threads, chunks), array.dtype)   # idle threads add their 0
    for i in range(chunks):
        partials[i] = _run_total(xp, run[i * size:(i + 1) * size], lanes)
    return _run_total(xp, partials, lanes)


def _dense_run(array):
    """The elements of a permuted but gap-free array in memory order (the order
    PyTorch's iterator walks it), or None."""
    order = sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))
    permuted = array.transpose(order)
    return permuted.reshape(-1) if permuted.flags.c_contiguous else None
