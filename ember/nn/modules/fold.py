"""Fold, Unfold, PixelShuffle, PixelUnshuffle, ChannelShuffle, CosineSimilarity,
PairwiseDistance: parameter-free modules that store their options and call the op
(PyTorch's fold.py, pixelshuffle.py, channelshuffle.py and distance.py, in one file since
each is a few lines)."""
from ...ops import nn_linear, unfold as _unfold
from .module import Module, _store_options

__all__ = ["Fold", "Unfold", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
           "CosineSimilarity", "PairwiseDistance"]


class Fold(Module):
    """Sum sliding-block columns back into an image (the adjoint of Unfold)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        _store_options(self, output_size=output_size, kernel_size=kernel_size, dilation=dilation,
                       padding=padding, stride=stride)

    def forward(self, input):
        return _unfold.fold(input, self.output_size, self.kernel_size, self.dilation,
                            self.padding, self.stride)

    def extra_repr(self):
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
                "padding={padding}, stride={stride}".format(**self.__dict__))


class Unfold(Module):
    """Every sliding block of an image as a column."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        _store_options(self, kernel_size=kernel_size, dilation=dilation, padding=padding,
                       stride=stride)

    def forward(self, input):
        return _unfold.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}".format(**self.__dict__))


class PixelShuffle(Module):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return _unfold.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return _unfold.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of `groups` groups."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return _unfold.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class PairwiseDistance(Module):
    """p-norm of x1 - x2 + eps over the last dim (the norm degree is stored as `norm`)."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        _store_options(self, norm=p, eps=eps, keepdim=keepdim)

    def forward(self, x1, x2):
        return nn_linear.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine of the angle between x1 and x2 along `dim`."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return nn_linear.cosine_similarity(x1, x2, self.dim, self.eps)
