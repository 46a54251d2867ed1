"""linear_cross_entropy: a linear projection to class scores followed by cross_entropy.

PyTorch 2.13's reference path (the one its CPU build takes without `options`) projects,
reshapes the scores to (*batch, classes, *out_features) and hands them to cross_entropy,
so its grad_fn is NllLossBackward0 over LogSoftmaxBackward0 over a ViewBackward0; ember
composes the same three doors. A `weight` of shape (C, *out_features, in_features) gives
a K-dimensional loss. `options` selects PyTorch's chunked kernel, whose values are the
same up to rounding; ember always takes the reference path.
"""
import math

from .losses_nll import cross_entropy
from .nn_linear import linear

__all__ = ["linear_cross_entropy"]


def _check(input, linear_weight, linear_bias):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    score_shape = tuple(linear_weight.shape[:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != score_shape:
        raise RuntimeError(f"expected linear_bias shape {score_shape}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(score_shape) > 1 and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {input.shape[-1]}), got unbatched input with shape "
                           f"{tuple(input.shape)}")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy of `input @ linear_weight.T (+ linear_bias)`, the scores reshaped to
    (*batch, C, *out_features); `ignore_index=None` means -100 for class targets."""
    _check(input, linear_weight, linear_bias)
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    score_shape = tuple(linear_weight.shape[:-1])
    logits_shape = batch + score_shape
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    if len(score_shape) > 1:   # K-dim: one flat projection, then the scores' real shape
        linear_weight = linear_weight.reshape(math.prod(score_shape), in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(score_shape))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None
                         else ignore_index, reduction=reduction,
                         label_smoothing=label_smoothing)
