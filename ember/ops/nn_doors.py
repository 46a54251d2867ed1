"""The torch.* spellings of nn.functional ops: doors with PyTorch's ATen argument lists.

PyTorch exposes many layer functions twice: `F.batch_norm(input, running_mean, ...)` in
nn.functional and `torch.batch_norm(input, weight, bias, running_mean, ...)`, the ATen op
underneath, whose arguments come in another order, whose reductions are the integers
0/1/2 instead of 'none'/'mean'/'sum', and whose grid modes are integers too. Learners meet
the second spelling in older code; each door here maps it onto the one definition in
ember/ops and adds nothing else. Functions whose two spellings agree (conv2d, bilinear,
pixel_shuffle, ...) are exported from their op modules directly.
"""
from .. import _errors
from . import conv as _conv
from . import grid_sample as _grid
from . import losses as _losses
from . import losses_more as _losses_more
from . import nn_activation as _activation
from . import nn_linear as _linear
from . import nn_random as _random
from . import nn_resize as _resize
from . import normalization as _norm
from . import pooling as _pool
from . import pooling_adaptive as _adaptive
from ._loss_common import _reduction_enum

__all__ = ["convolution", "batch_norm", "instance_norm", "layer_norm", "group_norm",
           "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
           "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
           "celu", "selu", "threshold", "rrelu", "embedding", "kl_div", "margin_ranking_loss",
           "hinge_embedding_loss", "triplet_margin_loss", "cosine_embedding_loss",
           "poisson_nll_loss", "binary_cross_entropy_with_logits", "max_pool1d", "max_pool2d",
           "max_pool3d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_max_pool1d",
           "constant_pad_nd", "affine_grid_generator", "grid_sampler", "grid_sampler_2d",
           "grid_sampler_3d"]

_REDUCTION_NAMES = ("none", "mean", "sum")
_INTERPOLATION_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")


def _reduction(reduction):
    """ATen's reduction integer as nn.functional's name (the integer is checked there)."""
    return _REDUCTION_NAMES[reduction] if 0 <= reduction < 3 else reduction


# ---------------------------------------------------------------- convolution, normalization
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """The convolution every convNd / conv_transposeNd is, chosen by weight's rank."""
    spatial = weight.dim() - 2
    if transposed:
        op = (_conv.conv_transpose1d, _conv.conv_transpose2d, _conv.conv_transpose3d)[spatial - 1]
        return op(input, weight, bias, stride, padding, output_padding, groups, dilation)
    op = (_conv.conv1d, _conv.conv2d, _conv.conv3d)[spatial - 1]
    return op(input, weight, bias, stride, padding, dilation, groups)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                            eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return _norm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                               momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    if input.dim() == 0:  # ATen reads input.size(0) and input.size(1) first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.dim() == 1:
        raise IndexError(_errors.dim_out_of_range(1, 1))
    return _norm.group_norm(input, num_groups, weight, bias, eps)


# ---------------------------------------------------------------- dropout, activations
def dropout(input, p, train):
    return _linear.dropout(input, p, train)


def dropout_(input, p, train):
    return _linear.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return _linear.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return _linear.alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    """Whole channels (dim 1 of every sample) zeroed together, for any rank."""
    return _linear._feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    return _linear._feature_dropout(input, p, train, True)


def feature_alpha_dropout(input, p, train):
    return _linear._feature_dropout(input, p, train, False, alpha=True)


def feature_alpha_dropout_(input, p, train):
    return _linear._feature_dropout(input, p, train, True, alpha=True)


def celu(input, alpha=1.0):
    return _activation.celu(input, alpha)


def selu(input):
    return _activation.selu(input)


def threshold(input, threshold, value):
    return _activation.threshold(input, threshold, value)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    return _random.rrelu(input, lower, upper, training)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """ATen's order (weight first); a negative padding_idx means none, as in ATen."""
    return _linear.embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                             scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# ---------------------------------------------------------------- losses (reduction as 0/1/2)
# ATen's schemas say reduction=1 (mean), but torch.*'s Python binding fills an omitted
# reduction with 0: `torch.kl_div(x, y)` is unreduced. The doors follow the binding.
def kl_div(input, target, reduction=0, *, log_target=False):
    """No 'batchmean' at this level, and so no warning about 'mean'."""
    name = _reduction(reduction)
    return _losses._kl_div(input, target, name, _reduction_enum(name), log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _losses_more.margin_ranking_loss(input1, input2, target, margin,
                                            reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _losses_more.hinge_embedding_loss(input, target, margin,
                                             reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=0):
    return _losses_more.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                            reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _losses_more.cosine_embedding_loss(input1, input2, target, margin,
                                              reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _losses_more.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                         reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _losses.binary_cross_entropy_with_logits(input, target, weight,
                                                    reduction=_reduction(reduction),
                                                    pos_weight=pos_weight)


# ---------------------------------------------------------------- pooling, padding, grids
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """ATen spells 'stride defaults to kernel_size' as an empty list."""
    return _pool.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _pool.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    return _pool.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                            return_indices=True)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    # () is the schema's "not given"; a given 0 stays 0 and is refused as PyTorch does
    return _pool.avg_pool1d(input, kernel_size, None if stride == () else stride, padding,
                            ceil_mode, count_include_pad)


def adaptive_max_pool1d(input, output_size):
    """ATen always returns the indices too."""
    return _adaptive.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.dim():  # (PyTorch's text runs the numbers into the words)
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.dim()}dimensions.")
    return _resize.constant_pad_nd(input, tuple(pad), value)  # a Scalar value, not F.pad's float


def affine_grid_generator(theta, size, align_corners):
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    return _grid.affine_grid(theta, size, align_corners)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """Modes as ATen's integers: 0 bilinear, 1 nearest, 2 bicubic; 0 zeros, 1 border,
    2 reflection."""
    return _grid.grid_sample(input, grid, _INTERPOLATION_MODES[interpolation_mode],
                             _PADDING_MODES[padding_mode], align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    _check_grid_sampler_dims(input, grid, 4)
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    _check_grid_sampler_dims(input, grid, 5)
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def _check_grid_sampler_dims(input, grid, dims):
    if input.dim() != dims or grid.dim() != dims:
        raise RuntimeError(f"grid_sampler(): expected {dims}D input and grid with same number of "
                           f"dimensions, but got input with sizes "
                           f"{_errors.shape_list(input.shape)} and grid with sizes "
                           f"{_errors.shape_list(grid.shape)}")
