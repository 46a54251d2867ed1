"""linear_cross_entropy: a linear projection to class scores followed by cross_entropy.

PyTorch 2.13's CPU build composes it from the two ops (its grad_fn is cross_entropy's
NllLossBackward0 over LogSoftmaxBackward0), so ember composes the same two doors.
"""
from .losses_nll import cross_entropy
from .nn_linear import linear

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...); an
    `ignore_index` of None ignores nothing but PyTorch's default -100."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    logits = linear(input, linear_weight, linear_bias)
    return cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None
                         else ignore_index, reduction=reduction,
                         label_smoothing=label_smoothing)
