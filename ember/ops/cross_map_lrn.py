"""CrossMapLRN2d's op: response normalisation across channels, PyTorch's legacy (Lua torch)
formulation, whose autograd node is a Python Function named CrossMapLRN2dBackward.

Both passes are running sums over channels. PyTorch's forward starts subtracting the squares
that leave the window one channel late, so channel 0's square stays in every later window;
its backward sums the ratios over a window shifted by (size - 1) // 2 + 1. Neither is the
textbook formula. ember keeps the running sums in the same order (a loop over channels,
each step vectorised over batch and pixels), so values, rounding and infinities match.
"""
from ..autograd.graph import Node
from ._common import attach, grad_state, make_tensor

__all__ = ["cross_map_lrn2d"]


def _forward_scale(xp, x, size, alpha, k):
    channels = x.shape[1]
    reach = int((size - 1) / 2 + 1)
    squares = x * x
    scale = xp.empty_like(x)
    scale[:, 0] = squares[:, :min(reach, channels)].sum(axis=1)
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c + reach - 1 < channels:
            scale[:, c] += squares[:, c + reach - 1]
        if c > reach:
            scale[:, c] -= squares[:, c - reach]
    return scale * (alpha / size) + k


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    """x / (k + alpha / size * sum of x^2 over neighbouring channels) ** beta (4-D input)."""
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    xp = input._device.xp
    x = input._data
    scale = _forward_scale(xp, x, size, alpha, k).astype(x.dtype, copy=False)
    out = make_tensor(scale ** -beta * x, input._device)
    if grad_state.enabled and input._requires_grad:
        node = CrossMapLRN2dBackward()
        node.arguments = (size, alpha, beta)
        node.scale = scale
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class CrossMapLRN2dBackward(Node):
    __slots__ = ("arguments", "scale")

    def backward(self, grad):
        input, output = self.saved_tensors
        size, alpha, beta = self.arguments
        xp = input._device.xp
        scale = self.scale
        g, x, y = grad._data, input._data, output._data
        channels = x.shape[1]
        shift = int(size - (size - 1) / 2)
        padded = xp.zeros((x.shape[0], channels + size - 1) + x.shape[2:], x.dtype)
        padded[:, shift:shift + channels] = g * y / scale
        result = scale ** -beta * g
        running = padded[:, :size - 1].sum(axis=1)
        factor = 2 * alpha * beta / size
        for c in range(channels):
            running += padded[:, c + size - 1]
            result[:, c] -= factor * x[:, c] * running
            running -= padded[:, c]
        return (make_tensor(result.astype(x.dtype, copy=False), input._device),)
