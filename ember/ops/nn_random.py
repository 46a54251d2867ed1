"""The nn.functional ops that draw random numbers: gumbel_softmax and rrelu.

Both draw PyTorch's CPU stream exactly, so after manual_seed they give torch's numbers:
gumbel_softmax composes exponential_ / log / softmax as PyTorch's Python does (and so
records its nodes); rrelu has its own node (RreluWithNoiseBackward0) and draws one double
uniform per non-positive element, in memory order, as PyTorch's rrelu_with_noise kernel.
"""
import warnings

from .._dtype import is_floating as _is_floating
from .. import _errors, _random
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap
from ._common import inplace as _inplace
from .creation import empty_like, zeros_like

__all__ = ["gumbel_softmax", "rrelu", "rrelu_"]


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel noise) / tau); `hard` returns one-hot samples with soft grads."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x where x > 0, else x * a with a ~ U(lower, upper) (training) or (lower + upper) / 2."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if inplace:
        return _inplace(input, _rrelu, lower, upper, training, RreluWithNoiseBackward1)
    return _rrelu(input, lower, upper, training, RreluWithNoiseBackward0)


def _rrelu(input, lower, upper, training, node_class):
    data = input._data
    if not _is_floating(data.dtype):  # out of training PyTorch's kernel is leaky_relu's
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))
    xp = input._device.xp
    negative = data <= 0
    if training:
        noise = xp.ones(data.shape, data.dtype)
        count = int(negative.sum())
        if count:
            draws = _random.resolve(None)._draw_uniform((count,), xp.dtype("float64"),
                                                        lower, upper)
            # memory order of the input: the kernel walks its contiguous elements
            noise[negative] = draws.astype(data.dtype)
    else:
        noise = xp.where(negative, data.dtype.type((lower + upper) / 2), data.dtype.type(1))
    result = wrap((data * noise).astype(data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.noise = wrap(noise, input._device)
        attach(result, node, input)
    return result


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, inplace=True)


class RreluWithNoiseBackward0(Node):
    __slots__ = ("noise",)

    def backward(self, grad):
        return (grad * self.noise,)


class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """The in-place variant's node (PyTorch names it apart)."""
    __slots__ = ()
