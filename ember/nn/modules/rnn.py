"""Recurrent layers: RNN, LSTM, GRU and their one-step cells (PyTorch's torch.nn.modules.rnn).

Parameters are registered with PyTorch's names in PyTorch's order (weight_ih_l0,
weight_hh_l0, bias_ih_l0, bias_hh_l0, weight_hr_l0, then the `_reverse` direction,
then the next layer) and all drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
in that order, so a seed gives PyTorch's weights and state dicts interchange. The
arithmetic lives in ember/ops/recurrent*.py; these classes check arguments with
PyTorch's messages, add and remove the batch dim of unbatched inputs, and supply
zero initial states. A PackedSequence goes through the ops' packed forms: initial
states given in the caller's batch order are permuted into the packed (sorted) order
first and the final states back after, as PyTorch does.
"""
import math
import numbers
import warnings

from ...ops.creation import empty, zeros
from ...ops.recurrent import gru, lstm, rnn_relu, rnn_tanh
from ...ops.recurrent_cells import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_CELL_STEPS = {"tanh": rnn_tanh_cell, "relu": rnn_relu_cell}


def _is_packed(input):
    # duck-typed: ember.nn.utils.rnn.PackedSequence is a namedtuple with batch_sizes
    return hasattr(input, "batch_sizes") and hasattr(input, "data")


def _check_options(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                   proj_size):
    """PyTorch's constructor checks, in its order, with its messages."""
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable "
                         "projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """The stack of layers and directions shared by RNN, LSTM and GRU."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        vars(self).update(mode=mode, input_size=input_size, hidden_size=hidden_size,
                          num_layers=num_layers, bias=bias, batch_first=batch_first,
                          dropout=float(dropout), bidirectional=bidirectional,
                          proj_size=proj_size)
        _check_options(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                       proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        state_size = proj_size if proj_size > 0 else hidden_size
        factory = {"device": device, "dtype": dtype}
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else state_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, state_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = [name + suffix for name, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, **factory)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The weights in the order the functional entry points take them (read fresh)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """PyTorch packs weights into one buffer for cuDNN; on the CPU there is nothing to do."""

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in order."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for parameter in self.parameters():
            init.uniform_(parameter, -bound, bound)

    def check_input(self, input, batch_sizes):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        batch = self._batch(input, batch_sizes)
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        defaults = (("proj_size", 0), ("num_layers", 1), ("bias", True), ("batch_first", False),
                    ("dropout", 0), ("bidirectional", False))
        for name, default in defaults:
            value = getattr(self, name)
            if value != default or (isinstance(default, bool) and value is not default):
                text += f", {name}={value}"
        return text

    def _batched(self, input, hx, name):
        """Add the batch dim to an unbatched input; returns (input, hx, batched, batch_dim)."""
        if not 2 <= input.dim() <= 3:
            noun = " tensor" if name == "RNN" else ""   # PyTorch's two wordings
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{noun} "
                             f"instead")
        batch_dim = int(not self.batch_first)
        if input.dim() == 3:
            if hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            return input, hx, True, batch_dim
        if hx is not None:
            if hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.dim()}-D tensor")
            hx = hx.unsqueeze(1)
        return input.unsqueeze(batch_dim), hx, False, batch_dim

    def _batch(self, input, batch_sizes):
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def _zeros(self, input, size, batch_sizes=None):
        batch = self._batch(input, batch_sizes)
        directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * directions, batch, size, dtype=input.dtype,
                     device=input.device)

    def _single_state_forward(self, input, hx, function, name):
        """RNN and GRU: one hidden state tensor."""
        if _is_packed(input):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros(data, self.hidden_size, batch_sizes)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(data, hx, batch_sizes)
            output, hidden = function(data, batch_sizes, hx, self._flat_weights, self.bias,
                                      self.num_layers, self.dropout, self.training,
                                      self.bidirectional)
            return (type(input)(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        input, hx, batched, batch_dim = self._batched(input, hx, name)
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        output, hidden = function(input, hx, self._flat_weights, self.bias, self.num_layers,
                                  self.dropout, self.training, self.bidirectional,
                                  self.batch_first)
        if not batched:
            output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman network: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        args = list(args)
        # nonlinearity sits fourth among the positional arguments, before bias
        self.nonlinearity = args.pop(3) if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or "
                             f"'relu'.")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        function = rnn_tanh if self.mode == "RNN_TANH" else rnn_relu
        return self._single_state_forward(input, hx, function, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit network."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._single_state_forward(input, hx, gru, "GRU")


class LSTM(RNNBase):
    """Long short-term memory network; with proj_size, h is projected by weight_hr."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        batch = self._batch(input, batch_sizes)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._packed_forward(input, hx)
        if not 2 <= input.dim() <= 3:
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        batch_dim = int(not self.batch_first)
        if not batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, size), self._zeros(input, self.hidden_size))
        else:
            rank = 3 if batched else 2
            if hx[0].dim() != rank or hx[1].dim() != rank:
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {rank}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, h_n, c_n = lstm(input, hx, self._flat_weights, self.bias, self.num_layers,
                                self.dropout, self.training, self.bidirectional,
                                self.batch_first)
        if not batched:
            return output.squeeze(batch_dim), (h_n.squeeze(1), c_n.squeeze(1))
        return output, (h_n, c_n)

    def _packed_forward(self, input, hx):
        """PyTorch checks no sizes here: a wrong state fails inside the op, as there."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        if hx is None:
            size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(data, size, batch_sizes),
                  self._zeros(data, self.hidden_size, batch_sizes))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        output, h_n, c_n = lstm(data, batch_sizes, hx, self._flat_weights, self.bias,
                                self.num_layers, self.dropout, self.training,
                                self.bidirectional)
        return (type(input)(output, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden((h_n, c_n), unsorted_indices))


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
    """weight_ih (chunks*hidden, input), weight_hh (chunks*hidden, hidden) and their biases."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        vars(self).update(input_size=input_size, hidden_size=hidden_size, bias=bias)
        factory = {"device": device, "dtype": dtype}
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(empty((rows, input_size), **factory))
        self.weight_hh = Parameter(empty((rows, hidden_size), **factory))
        if bias:
            self.bias_ih = Parameter(empty(rows, **factory))
            self.bias_hh = Parameter(empty(rows, **factory))
        else:
            for name in ("bias_ih", "bias_hh"):
                self.register_parameter(name, None)
        self.reset_parameters()

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        options = vars(self)
        if options.get("bias", True) is not True:
            text += f", bias={options['bias']}"
        if options.get("nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={options['nonlinearity']}"
        return text

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for parameter in self.parameters():
            init.uniform_(parameter, -bound, bound)

    def _batched(self, input, hx, name):
        """Check ranks and add the batch dim to unbatched input and hidden state."""
        if not 1 <= input.dim() <= 2:
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and not 1 <= hx.dim() <= 2:
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    """One Elman step: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, hx, "RNNCell")
        step = _CELL_STEPS.get(self.nonlinearity)
        if step is None:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        result = step(input, hx, *self._weights())
        return result if batched else result.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: (h, c) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if not 1 <= input.dim() <= 2:
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        if hx is not None:
            for index, value in enumerate(hx):
                if not 1 <= value.dim() <= 2:
                    raise ValueError(f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            state = zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                          device=input.device)
            hx = (state, state)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        hy, cy = lstm_cell(input, hx, *self._weights())
        return (hy, cy) if batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._batched(input, hx, "GRUCell")
        result = gru_cell(input, hx, *self._weights())
        return result if batched else result.squeeze(0)
