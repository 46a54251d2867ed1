"""Fold an eval-mode BatchNorm into the convolution or linear layer before it."""
import copy

from ...ops.creation import ones_like, zeros_like
from ...ops.pointwise_math import rsqrt
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check_eval_pair(layer, bn):
    """Fusing bakes BatchNorm's running statistics in: both layers must be in eval mode."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _bn_statistics(bn):
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    return bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` computing conv followed by `bn` (both in eval mode)."""
    _check_eval_pair(conv, bn)
    fused = copy.deepcopy(conv)
    statistics = _bn_statistics(bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, *statistics,
                                                    transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """w * gamma / sqrt(var + eps) per output channel; (b - mean) * that + beta."""
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = rsqrt(bn_rv + bn_eps)
    rest = [1] * (len(conv_w.shape) - 2)
    shape = [1, -1] + rest if transpose else [-1, 1] + rest
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` computing linear followed by `bn` (both in eval mode)."""
    _check_eval_pair(linear, bn)
    fused = copy.deepcopy(linear)
    # A one-feature BatchNorm broadcasts over every output feature.
    if bn.num_features not in (linear.out_features, 1):
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    statistics = _bn_statistics(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, *statistics)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
