"""One time step of the Elman, LSTM and GRU cells, built from ordinary ops.

These are PyTorch's `rnn_tanh_cell`, `rnn_relu_cell`, `lstm_cell` and `gru_cell`, and
the steps of every recurrent layer PyTorch's CPU build does not fuse (GRU, RNN, and
LSTM in float64 or with projections). They decompose as PyTorch decomposes them, so
a user sees the same grad_fn names (an LSTM cell's h is MulBackward0, a GRU cell's
AddBackward0) and double backward comes for free. Each step takes its input already
multiplied by W_ih (`projected`): the layers compute that product for all steps at once.
"""
from ._common import Tensor
from .linalg import matmul
from .nn_linear import linear
from .pointwise_math import sigmoid, tanh
from .pointwise_select import relu
from .slicing_more import unsafe_chunk

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"]


# ---------------------------------------------------------------- checks
def _check_input(input, w_ih):
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                           f"{w_ih.shape[1]}")


def _check_hidden(input, hx, hidden_size, index):
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{index} batch "
                           f"size {hx.shape[0]}")
    if hx.shape[1] != hidden_size:
        raise RuntimeError(f"hidden{index} has inconsistent hidden_size: got {hx.shape[1]}, "
                           f"expected {hidden_size}")


# ---------------------------------------------------------------- steps
def elman_step(projected, hx, w_hh, b_hh, nonlinearity):
    """h' = act(W_hh h + b_hh + projected)."""
    return nonlinearity(linear(hx, w_hh, b_hh) + projected)


def lstm_step(projected, hx, cx, w_hh, b_hh, w_hr=None):
    """(h', c') of one LSTM step; with w_hr, h' is projected down to w_hr's rows."""
    gates = linear(hx, w_hh, b_hh) + projected
    in_gate, forget_gate, cell_gate, out_gate = unsafe_chunk(gates, 4, 1)
    cy = sigmoid(forget_gate) * cx + sigmoid(in_gate) * tanh(cell_gate)
    hy = sigmoid(out_gate) * tanh(cy)
    if w_hr is not None:
        hy = matmul(hy, w_hr.t())
    return hy, cy


def gru_step(projected, hx, w_hh, b_hh):
    """h' = (1 - z) n + z h, where the reset gate r scales W_hn h + b_hn inside n."""
    input_reset, input_update, input_new = unsafe_chunk(projected, 3, 1)
    hidden_reset, hidden_update, hidden_new = unsafe_chunk(linear(hx, w_hh, b_hh), 3, 1)
    reset = sigmoid(hidden_reset + input_reset)
    update = sigmoid(hidden_update + input_update)
    new = tanh(input_new + hidden_new * reset)
    return (hx - new) * update + new


# ---------------------------------------------------------------- public cells
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with tanh: tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _check_input(input, w_ih)
    _check_hidden(input, hx, w_hh.shape[1], 0)
    return elman_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh, tanh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with relu."""
    _check_input(input, w_ih)
    _check_hidden(input, hx, w_hh.shape[1], 0)
    return elman_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step; hx is the pair (h, c); returns (h', c')."""
    if isinstance(hx, Tensor) or len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_input(input, w_ih)
    _check_hidden(input, hx[0], w_hh.shape[1], 0)
    _check_hidden(input, hx[1], w_hh.shape[1], 1)
    return lstm_step(linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step."""
    _check_input(input, w_ih)
    _check_hidden(input, hx, w_hh.shape[1], 0)
    return gru_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh)
