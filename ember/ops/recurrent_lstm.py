"""One LSTM layer over a whole sequence as one graph node (PyTorch's CPU `mkldnn_rnn_layer`).

Why one node: built from per-step ops, a 35-step two-layer LSTM records some seven
hundred small nodes and spends its time in Python bookkeeping. Here the input
projection of every step is one matrix product, each step is one matrix product
plus a few in-place array operations, and the backward through time runs on the
saved gate activations with one matrix product per step; the weight gradients are
then one product each over all steps. Under create_graph=True the same backward
runs in recorded ops instead, so double backward works as in PyTorch. PyTorch's CPU build takes this path
(oneDNN) for float32 LSTMs without projections, and its node is
MkldnnRnnLayerBackward0 with outputs (output, h_n, c_n); ember names its node alike.
"""
from .._backend import one_blas_thread
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap
from .creation import zeros_like
from .joining import cat, stack
from .linalg import matmul
from .nn_linear import linear
from .pointwise_math import sigmoid, tanh
from .slicing_more import unsafe_chunk

__all__ = ["mkldnn_rnn_layer"]

def mkldnn_rnn_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """One direction of one LSTM layer: input (T, B, I), hx and cx (B, H) -> (output, h_n, c_n).

    Gates are ordered (input, forget, cell, output) along the 4H rows of the weights, as
    in PyTorch. `reverse` walks the sequence from its last step to its first.
    """
    xp = input._device.xp
    steps, batch = input.shape[0], input.shape[1]
    hidden = w_hh.shape[1]
    x = input._data
    # sigmoid(v) = tanh(v / 2) / 2 + 1/2: halving the sigmoid gates' rows (exact in binary
    # floating point) lets one tanh serve all four gates, with no exp to overflow
    scale = xp.full((4 * hidden, 1), 0.5, dtype=x.dtype)
    scale[2 * hidden:3 * hidden] = 1
    gates = xp.matmul(x.reshape(steps * batch, x.shape[2]), (w_ih._data * scale).T)
    if b_ih is not None:
        gates += (b_ih._data + b_hh._data) * scale[:, 0]
    gates = gates.reshape(steps, batch, 4 * hidden)
    w_hh_t = (w_hh._data * scale).T
    output = xp.empty((steps, batch, hidden), dtype=gates.dtype)
    cells = xp.empty((steps, batch, hidden), dtype=gates.dtype)
    tanh_cells = xp.empty((steps, batch, hidden), dtype=gates.dtype)
    h, c = hx._data, cx._data
    tanh, multiply, add = xp.tanh, xp.multiply, xp.add
    sigmoids = (slice(0, 2 * hidden), slice(3 * hidden, 4 * hidden))
    with one_blas_thread():
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            g = gates[t]
            g += xp.matmul(h, w_hh_t)
            tanh(g, out=g)
            for part in sigmoids:
                multiply(g[:, part], 0.5, out=g[:, part])
                add(g[:, part], 0.5, out=g[:, part])
            c_new = cells[t]
            multiply(g[:, hidden:2 * hidden], c, out=c_new)
            c_new += g[:, :hidden] * g[:, 2 * hidden:3 * hidden]
            tanh(c_new, out=tanh_cells[t])
            multiply(g[:, 3 * hidden:], tanh_cells[t], out=output[t])
            h, c = output[t], c_new
    device = input._device
    out, hy, cy = wrap(output, device), wrap(h.copy(), device), wrap(c.copy(), device)
    if grad_state.enabled and (input._requires_grad or w_ih._requires_grad
                               or w_hh._requires_grad or hx._requires_grad
                               or cx._requires_grad
                               or (b_ih is not None and (b_ih._requires_grad
                                                         or b_hh._requires_grad))):
        node = MkldnnRnnLayerBackward0()
        node.gates, node.cells, node.tanh_cells, node.reverse = gates, cells, tanh_cells, reverse
        node.save(input, w_ih, w_hh, hx, cx, b_ih, b_hh)
        node.save_output(out, 0)
        attach(out, node, input, w_ih, w_hh, b_ih, b_hh, hx, cx)
        for index, result in ((1, hy), (2, cy)):
            result.grad_fn, result._requires_grad, result._output_nr = node, True, index
    return out, hy, cy


def _previous(states, first, reverse, xp):
    """The state each step started from, in time order: `first` before the first step taken."""
    if reverse:
        return xp.concatenate((states[1:], first[None]))
    return xp.concatenate((first[None], states[:-1]))


class MkldnnRnnLayerBackward0(Node):
    """Backward through time over the saved activations; one matrix product per step."""

    __slots__ = ("gates", "cells", "tanh_cells", "reverse")

    def release(self):
        super().release()
        self.gates = self.cells = self.tanh_cells = None

    def backward(self, grad_output=None, grad_hy=None, grad_cy=None):
        input, w_ih, w_hh, hx, cx, b_ih, b_hh, output = self.saved_tensors
        if grad_state.enabled:   # create_graph=True: the same algebra, recorded
            return _recorded_backward(self, (grad_output, grad_hy, grad_cy),
                                      (input, w_ih, w_hh, hx, cx, b_ih, b_hh))
        xp = input._device.xp
        gates, cells, tanh_cells = self.gates, self.cells, self.tanh_cells
        steps, batch, hidden = cells.shape
        size = (batch, hidden)
        i, f = gates[..., :hidden], gates[..., hidden:2 * hidden]
        g, o = gates[..., 2 * hidden:3 * hidden], gates[..., 3 * hidden:]
        previous_cells = _previous(cells, cx._data, self.reverse, xp)
        # d(pre-activation) = (dc, dc, dc, dh) * factors, the factors known for every step now
        factors = xp.empty_like(gates)
        factors[..., :hidden] = g * i * (1 - i)
        factors[..., hidden:2 * hidden] = previous_cells * f * (1 - f)
        factors[..., 2 * hidden:3 * hidden] = i * (1 - g * g)
        factors[..., 3 * hidden:] = tanh_cells * o * (1 - o)
        through_tanh = o * (1 - tanh_cells * tanh_cells)   # dc += dh * through_tanh
        factors4 = factors.reshape(steps, batch, 4, hidden)
        dgates = xp.empty_like(gates)
        dgates4 = dgates.reshape(steps, batch, 4, hidden)
        dh = xp.zeros(size, gates.dtype) if grad_hy is None else grad_hy._data.copy()
        dc = xp.zeros(size, gates.dtype) if grad_cy is None else grad_cy._data.copy()
        go = None if grad_output is None else grad_output._data
        w = w_hh._data
        multiply = xp.multiply
        with one_blas_thread():
            for t in (range(steps) if self.reverse else range(steps - 1, -1, -1)):
                if go is not None:
                    dh += go[t]
                dc += dh * through_tanh[t]
                multiply(factors4[t, :, :3], dc[:, None, :], out=dgates4[t, :, :3])
                multiply(factors4[t, :, 3], dh, out=dgates4[t, :, 3])
                dc *= f[t]
                dh = xp.matmul(dgates[t], w)
        return self._gradients(dgates, dh, dc, input, w_ih, hx, output)

    def _gradients(self, dgates, dh, dc, input, w_ih, hx, output):
        """Input, weight and bias gradients: one matrix product each over all steps."""
        xp = input._device.xp
        device = input._device
        steps, batch, width = dgates.shape
        flat = dgates.reshape(steps * batch, width)
        grads = [None] * 7
        if self.needs_input_grad(0):
            grads[0] = wrap(xp.matmul(flat, w_ih._data).reshape(input.shape), device)
        if self.needs_input_grad(1):
            x = input._data.reshape(steps * batch, input.shape[2])
            grads[1] = wrap(xp.matmul(flat.T, x), device)
        if self.needs_input_grad(2):
            previous = _previous(output._data, hx._data, self.reverse, xp)
            grads[2] = wrap(xp.matmul(flat.T, previous.reshape(steps * batch, -1)), device)
        if self.needs_input_grad(3) or self.needs_input_grad(4):
            bias = flat.sum(0)
            grads[3], grads[4] = wrap(bias, device), wrap(bias.copy(), device)
        if self.needs_input_grad(5):
            grads[5] = wrap(dh, device)
        if self.needs_input_grad(6):
            grads[6] = wrap(dc, device)
        return tuple(grads)


def _recorded_backward(node, grads, saved):
    """The backward through time in ember ops, for create_graph=True (double backward).

    The saved activations are plain arrays, outside any graph, so the forward is run
    again with recorded ops first; the gradients then depend on the inputs as they must.
    """
    input, w_ih, w_hh, hx, cx, b_ih, b_hh = saved
    grad_output, grad_hy, grad_cy = grads
    steps = input.shape[0]
    order = range(steps - 1, -1, -1) if node.reverse else range(steps)
    projected = linear(input, w_ih, b_ih)
    if b_hh is not None:
        projected = projected + b_hh
    h, c, cache = hx, cx, [None] * steps
    for t in order:
        i, f, g, o = unsafe_chunk(projected[t] + matmul(h, w_hh.t()), 4, 1)
        i, f, g, o = sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
        c_new = f * c + i * g
        tanh_c = tanh(c_new)
        cache[t] = (i, f, g, o, c, tanh_c, h)
        h, c = o * tanh_c, c_new
    dh = zeros_like(h) if grad_hy is None else grad_hy
    dc = zeros_like(c) if grad_cy is None else grad_cy
    dgates = [None] * steps
    for t in reversed(order):
        i, f, g, o, c_prev, tanh_c, _ = cache[t]
        if grad_output is not None:
            dh = dh + grad_output[t]
        dc = dc + dh * o * (1 - tanh_c * tanh_c)
        dgates[t] = cat([dc * g * i * (1 - i), dc * c_prev * f * (1 - f),
                         dc * i * (1 - g * g), dh * tanh_c * o * (1 - o)], 1)
        dc = dc * f
        dh = matmul(dgates[t], w_hh)
    flat = stack(dgates).flatten(0, 1)
    previous = stack([entry[6] for entry in cache]).flatten(0, 1)
    bias = flat.sum(0)
    return (matmul(flat, w_ih).view(input.shape), matmul(flat.t(), input.flatten(0, 1)),
            matmul(flat.t(), previous), bias, bias, dh, dc)
