"""PyTorch's scalar cascade summation, as its CPU nll_loss kernel adds up a batch.

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
__all__ = ["cascade_sum"]

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
    for _ in range(_LEVELS - 1):
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
