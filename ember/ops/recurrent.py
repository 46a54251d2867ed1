"""Multi-layer recurrent networks over a sequence: PyTorch's `rnn_tanh`, `rnn_relu`, `lstm`, `gru`.

Each takes the flat weight list of nn.RNN/LSTM/GRU (per layer and direction: w_ih,
w_hh, then b_ih, b_hh when `has_biases`, then w_hr for a projected LSTM) and walks
the layers as PyTorch's CPU build does: batch_first transposes in and out, the two
directions of a layer are concatenated on the feature dim, `F.dropout` is applied to
every layer's output but the last in training mode (same draws for the same seed),
and the final states are stacked (StackBackward0). A float32 LSTM without
projections runs each layer as one fused node (`recurrent_lstm`), as PyTorch runs it
through oneDNN; every other layer is unrolled into per-step ops (`recurrent_cells`)
after one matrix product that projects the input of all steps.

Each entry point also takes PyTorch's packed form, (data, batch_sizes, hx, params,
has_biases, num_layers, dropout, train, bidirectional), told apart by its third (for
`lstm` its second) argument being a tensor; `recurrent_packed` walks those layers on
a batch that shrinks step by step. PyTorch runs packed LSTMs unfused, and so does ember.
"""
import warnings

from .. import _dtype
from ._common import Tensor
from .dims import transpose, transpose_
from .joining import cat, stack
from .nn_linear import dropout as _dropout, linear
from .pointwise_math import tanh
from .pointwise_select import relu
from .queries import is_warn_always_enabled
from .recurrent_cells import elman_step, gru_step, lstm_step
from .recurrent_lstm import mkldnn_rnn_layer
from .recurrent_packed import packed_layers

__all__ = ["rnn_tanh", "rnn_relu", "lstm", "gru"]

_FLOAT32 = _dtype.float32
_projection_warned = []   # PyTorch warns once per process (TORCH_WARN_ONCE)


# ---------------------------------------------------------------- public entry points
def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """Elman network with tanh over a (T, B, I) input (B first with batch_first): (output, h_n)."""
    if isinstance(params, Tensor):   # packed: (data, batch_sizes, hx, params, ...)
        return _packed(_tanh_step, input, hx, params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)
    return _elman(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                  batch_first, _tanh_step)


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """Elman network with relu: (output, h_n)."""
    if isinstance(params, Tensor):
        return _packed(_relu_step, input, hx, params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)
    return _elman(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                  batch_first, _relu_step)


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
        batch_first):
    """GRU network: (output, h_n)."""
    if isinstance(params, Tensor):
        return _packed(_gru_step, input, hx, params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)
    weights = _group(params, has_biases, False)
    _check_sequence(input, batch_first)
    output, finals = _layers(input, hx.unbind(0), weights, num_layers, dropout, train,
                             bidirectional, batch_first, _unrolled(_gru_step), transpose_)
    return output, stack(finals, 0)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):
    """LSTM network; hx is (h_0, c_0); returns (output, h_n, c_n)."""
    if isinstance(hx, Tensor):   # packed: (data, batch_sizes, (h_0, c_0), params, ...)
        return _packed_lstm(input, hx, params, has_biases, num_layers, dropout, train,
                            bidirectional, batch_first)
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    h0, c0 = hx
    projections = h0.shape[2] != c0.shape[2]
    weights = _group(params, has_biases, projections, True)
    _check_sequence(input, batch_first)
    run = _unrolled(_lstm_step)
    if input.dtype == _FLOAT32 and input._device.type == "cpu" and input.numel() != 0:
        # PyTorch's oneDNN conditions; it warns when only the projection stops it
        if not projections:
            if h0.dtype != input.dtype or c0.dtype != input.dtype:
                raise RuntimeError("get_mkldnn_dtype: unsupported data type")   # PyTorch's text
            run = _fused_lstm_layer
        elif is_warn_always_enabled() or not _projection_warned:
            _projection_warned[:] = [True]
            warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                          "implementation.", UserWarning, stacklevel=2)
    output, finals = _layers(input, list(zip(h0.unbind(0), c0.unbind(0))), weights, num_layers,
                             dropout, train, bidirectional, batch_first, run)
    return (output, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0))


# ---------------------------------------------------------------- packed batches
# The packed form's arguments arrive one place later than the names they are bound to
# above (batch_sizes as `hx`, ..., bidirectional as `batch_first`); these take them in order.
def _packed(step, data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
            bidirectional):
    """RNN or GRU over a packed batch: (output rows, h_n)."""
    weights = _group(params, has_biases, False)
    output, finals = packed_layers(data, batch_sizes, hx.unbind(0), weights, num_layers,
                                   dropout, train, bidirectional, step)
    return output, stack(finals, 0)


def _packed_lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
                 bidirectional):
    """LSTM over a packed batch: (output rows, h_n, c_n)."""
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    h0, c0 = hx
    # PyTorch's packed path words a parameter-count mismatch as its RNNs do
    weights = _group(params, has_biases, h0.size(2) != c0.size(2))
    output, finals = packed_layers(data, batch_sizes, list(zip(h0.unbind(0), c0.unbind(0))),
                                   weights, num_layers, dropout, train, bidirectional,
                                   _lstm_step)
    return output, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)


# ---------------------------------------------------------------- the layer walk
def _elman(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
           batch_first, step):
    weights = _group(params, has_biases, False)
    _check_sequence(input, batch_first)
    output, finals = _layers(input, hx.unbind(0), weights, num_layers, dropout, train,
                             bidirectional, batch_first, _unrolled(step), transpose_)
    return output, stack(finals, 0)


def _check_sequence(input, batch_first):
    if input.shape[1 if batch_first else 0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")


def _group(params, has_biases, projections, lstm=False):
    """The flat weight list cut into (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction."""
    params = list(params)
    stride = (4 if has_biases else 2) + (1 if projections else 0)
    if len(params) % stride:
        if lstm:   # PyTorch's two wordings
            raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by "
                               f"stride {stride}")
        raise RuntimeError("got an incorrect number of RNN parameters")
    groups = []
    for start in range(0, len(params), stride):
        w = params[start:start + stride]
        biases = (w[2], w[3]) if has_biases else (None, None)
        groups.append((w[0], w[1]) + biases + ((w[-1],) if projections else (None,)))
    return groups


def _layers(input, states, weights, num_layers, dropout, train, bidirectional, batch_first,
            run_layer, transpose_back=None):
    """Walk layers and directions; `run_layer(input, state, weights, reverse)` does one.

    Returns the last layer's output and every final state, layer-major then direction.
    batch_first outputs are turned back by `transpose_back` (PyTorch's GRU and RNN turn
    theirs in place: TransposeBackward1; its LSTM does not).
    """
    if batch_first:
        input = input.transpose(0, 1)
    directions = 2 if bidirectional else 1
    finals = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            output, final = run_layer(input, states[index], weights[index], direction == 1)
            outputs.append(output)
            finals.append(final)
        input = outputs[0] if directions == 1 else cat(outputs, 2)
        if dropout != 0 and train and layer < num_layers - 1:
            input = _dropout(input, dropout, True)
    if batch_first:
        input = (transpose_back or transpose)(input, 0, 1)
    return input, finals


def _unrolled(step):
    """A layer runner that unrolls `step(projected_t, state, weights) -> (output_t, state)`.

    The input of every step is projected by W_ih in one product first.
    """
    def run(input, state, w, reverse):
        projected = linear(input, w[0], w[2]).unbind(0)
        steps = len(projected)
        outputs = [None] * steps
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            outputs[t], state = step(projected[t], state, w)
        return stack(outputs, 0), state
    return run


def _lstm_step(projected, state, w):
    hy, cy = lstm_step(projected, state[0], state[1], w[1], w[3], w[4])
    return hy, (hy, cy)


def _tanh_step(projected, state, w):
    hy = elman_step(projected, state, w[1], w[3], tanh)
    return hy, hy


def _relu_step(projected, state, w):
    hy = elman_step(projected, state, w[1], w[3], relu)
    return hy, hy


def _gru_step(projected, state, w):
    hy = gru_step(projected, state, w[1], w[3])
    return hy, hy


def _fused_lstm_layer(input, state, w, reverse):
    output, hy, cy = mkldnn_rnn_layer(input, w[0], w[1], w[2], w[3], state[0], state[1], reverse)
    return output, (hy, cy)
