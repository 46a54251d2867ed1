"""The layer walk of a recurrent network over a packed batch (PyTorch's packed `lstm`, `gru`, ...).

A packed batch (ember/ops/packing.py) is time-major with the sequences sorted longest
first, so at every step the live sequences are a prefix of the batch, `batch_sizes[t]`
rows long, and the sizes never grow. A layer therefore runs the same per-step cells as
the padded walk in `recurrent.py` on a batch that shrinks: the input of all steps is
projected by W_ih in one product and split into the steps' row blocks; the state is cut
to the step's rows by a view (no copy, no Python loop over sequences). The rows cut off
are the final states of the sequences that just ended; they are put back in batch order
when the direction is done. The reverse direction starts from the last step, where only
the longest sequences are alive, and grows its state by each newly live sequence's
initial state. Between layers, dropout acts on the packed rows, as in PyTorch.
"""
from .. import _dtype
from .._backend import one_blas_thread
from ._common import Tensor
from .joining import cat
from .nn_linear import dropout as _dropout, linear
from .slicing import _slice, split

__all__ = ["packed_layers"]

_INT64 = _dtype.int64


def packed_layers(data, batch_sizes, states, weights, num_layers, dropout, train,
                  bidirectional, step):
    """Run every layer and direction over packed `data` (N, I); returns (output, finals).

    `states` holds one initial state (a tensor, or (h, c) for an LSTM) per layer and
    direction; `step(projected_t, state, w) -> (output_t, state)` is one cell step.
    """
    sizes = _batch_sizes(batch_sizes)
    directions = 2 if bidirectional else 1
    if len(states) != num_layers * directions:
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    total = _covered_rows(data, sizes)
    with one_blas_thread():   # per-step products are small (see _backend.one_blas_thread)
        return _walk(data, sizes, total, states, weights, num_layers, dropout, train,
                     directions, step)


def _walk(data, sizes, total, states, weights, num_layers, dropout, train, directions, step):
    """Layers in turn, each direction reading the rows it reads in PyTorch."""
    finals = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            walk = _backward_in_time if direction else _forward_in_time
            rows = _rows(data, 0, total) if direction == 0 else _rows(
                data, data.shape[0] - total, data.shape[0])
            output, final = walk(rows, sizes, states[index], weights[index], step)
            outputs.append(output)
            finals.append(final)
        data = outputs[0] if directions == 1 else cat(outputs, 1)
        if dropout != 0 and train and layer < num_layers - 1:
            data = _dropout(data, dropout, True)
    return data, finals


def _batch_sizes(batch_sizes):
    if batch_sizes.dtype is not _INT64:
        kind = batch_sizes.dtype.tensor_type[:-len("Tensor")]
        raise RuntimeError(f"expected scalar type Long but found {kind}")
    return batch_sizes.tolist()


def _covered_rows(data, sizes):
    """How many rows the batch sizes cover. PyTorch fails at the first step that reads past
    the end, with narrow's message; spare rows it ignores, the forward direction reading
    the first rows and the reverse direction the last."""
    rows, offset = data.shape[0], 0
    for size in sizes:
        if offset + size > rows:
            raise RuntimeError(f"start ({offset}) + length ({size}) exceeds dimension size "
                               f"({rows}).")
        offset += size
    return offset


def _rows(state, start, stop):
    """Rows start:stop of a state (each of h and c for an LSTM), clipped as slicing clips;
    the state itself when that is all of it."""
    if isinstance(state, Tensor):
        length = state.shape[0]
        if start == 0 and stop >= length:
            return state
        stop = min(stop, length)
        return _slice(state, 0, min(start, stop), stop)
    return tuple(_rows(part, start, stop) for part in state)


def _joined(pieces):
    """Concatenate states along the batch (pairwise for an LSTM's (h, c))."""
    if len(pieces) == 1:
        return pieces[0]
    if isinstance(pieces[0], Tensor):
        return cat(pieces, 0)
    return tuple(cat(parts, 0) for parts in zip(*pieces))


def _forward_in_time(data, sizes, state, w, step):
    projected = split(linear(data, w[0], w[2]), sizes, 0)
    outputs, ended = [], []
    live = sizes[0]
    for t, size in enumerate(sizes):
        if size < live:
            ended.append(_rows(state, size, live))
            state = _rows(state, 0, size)
            live = size
        output, state = step(projected[t], state, w)
        outputs.append(output)
    ended.append(state)
    ended.reverse()   # the last cut holds the lowest rows: batch order is reverse cut order
    return cat(outputs, 0), _joined(ended)


def _backward_in_time(data, sizes, initial, w, step):
    projected = split(linear(data, w[0], w[2]), sizes, 0)
    outputs = [None] * len(sizes)
    live = sizes[-1]
    state = _rows(initial, 0, live)
    for t in range(len(sizes) - 1, -1, -1):
        size = sizes[t]
        if size > live:
            state = _joined([state, _rows(initial, live, size)])
            live = size
        outputs[t], state = step(projected[t], state, w)
    return cat(outputs, 0), state
