"""conv_tbc: a 1-D convolution over (time, batch, channel) inputs, with its own node.

PyTorch records one `ConvTbcBackward0` rather than a permute/conv1d chain, so the op is
its own primitive here: the forward sums one matmul per kernel tap (kernel widths are
small), and the backward is written with ember ops so double backward works.
"""
from .. import _arguments, _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, wrap
from .creation import zeros
from .einsum import einsum
from .joining import stack
from .nn_resize import constant_pad_nd

__all__ = ["conv_tbc"]

_SIGNATURE = ("(Tensor input, Tensor weight, Tensor bias, int pad = 0)",)


def _padded_time(array, pad, xp):
    """The input with `pad` zero steps at both ends of time (a negative pad crops)."""
    if pad >= 0:
        return xp.pad(array, ((pad, pad), (0, 0), (0, 0)))
    return array[-pad:array.shape[0] + pad]


def conv_tbc(input, weight, bias, pad=0):
    """out[t, b, o] = bias[o] + sum_k sum_c input_padded[t + k, b, c] * weight[k, c, o]."""
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)
            and isinstance(bias, Tensor) and pad.__class__ is int):
        # conv_tbc is not in the generated signature table (ember lacked it then), so its
        # one parser signature is given here, and parsed only on this refusing path
        error = _arguments.explain_with("conv_tbc", _SIGNATURE, (input, weight, bias, pad), {})
        if error is not None:
            raise error
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_errors.scalar_type_name(input.dtype)} and "
                           f"{_errors.scalar_type_name(weight.dtype)}")
    xp = input._device.xp
    kernel = weight.shape[0]
    steps = input.shape[0] + 2 * pad - kernel + 1
    if steps < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: "
                           f"[{steps}, {input.shape[1]}, {weight.shape[2]}]")
    padded = _padded_time(input._data, pad, xp)
    w = weight._data
    result = xp.broadcast_to(bias._data, (steps, input.shape[1], weight.shape[2])).copy()
    for k in range(kernel):
        result += xp.matmul(padded[k:k + steps], w[k])
    out = wrap(result.astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and (input._requires_grad or weight._requires_grad
                               or bias._requires_grad):
        node = ConvTbcBackward0()
        node.pad = pad
        node.save(input, weight)
        attach(out, node, input, weight, bias)
    return out


class ConvTbcBackward0(Node):
    __slots__ = ("pad",)

    def backward(self, grad):
        input, weight = self.saved_tensors
        pad, kernel, steps = self.pad, weight.shape[0], grad.shape[0]
        grads = [None, None, None]
        if self.needs_input_grad(0):
            # the padded input's gradient is a full correlation with the flipped kernel;
            # padding by -pad then crops it back (or restores zeros for cropped steps)
            flipped = weight.flip(0).transpose(1, 2)
            no_bias = zeros(weight.shape[1], dtype=grad.dtype, device=grad.device)
            padded_grad = conv_tbc(grad, flipped, no_bias, kernel - 1)
            grads[0] = constant_pad_nd(padded_grad, (0, 0, 0, 0, -pad, -pad))
        if self.needs_input_grad(1):
            padded = constant_pad_nd(input, (0, 0, 0, 0, pad, pad))
            grads[1] = stack([einsum("tbc,tbo->co", padded[k:k + steps], grad)
                              for k in range(kernel)])
        if self.needs_input_grad(2):
            grads[2] = grad.sum((0, 1))
        return tuple(grads)
