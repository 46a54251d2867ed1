"""Pooling layers: Max/Avg/AdaptiveAvg/AdaptiveMax/LP pools in 1-3 dims (torch.nn's).

Thin modules over F.*pool* (ember/ops/pooling.py), with PyTorch's attributes and reprs.
"""
from ...ops import pooling as F
from .module import Module, _store_options

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d"]


def _single(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class _MaxPoolNd(Module):
    _functional = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        _store_options(self, kernel_size=kernel_size,
                       stride=stride if stride is not None else kernel_size, padding=padding,
                       dilation=dilation, return_indices=return_indices, ceil_mode=ceil_mode)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return type(self)._functional(input, self.kernel_size, self.stride, self.padding,
                                      self.dilation, ceil_mode=self.ceil_mode,
                                      return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    _functional = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _functional = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _functional = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        _store_options(self, kernel_size=_single(kernel_size),
                       stride=_single(stride if stride is not None else kernel_size),
                       padding=_single(padding), ceil_mode=ceil_mode,
                       count_include_pad=count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolNd(Module):
    _functional = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        _store_options(self, kernel_size=kernel_size,
                       stride=stride if stride is not None else kernel_size, padding=padding,
                       ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                       divisor_override=divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        return type(self)._functional(input, self.kernel_size, self.stride, self.padding,
                                      self.ceil_mode, self.count_include_pad,
                                      self.divisor_override)


class AvgPool2d(_AvgPoolNd):
    _functional = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    _functional = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _functional = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return type(self)._functional(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _functional = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _functional = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _functional = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _functional = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return type(self)._functional(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _functional = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _functional = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _functional = staticmethod(F.adaptive_max_pool3d)


class _LPPoolNd(Module):
    _functional = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        _store_options(self, norm_type=norm_type, kernel_size=kernel_size, stride=stride,
                       ceil_mode=ceil_mode)

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return type(self)._functional(input, float(self.norm_type), self.kernel_size,
                                      self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    _functional = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    _functional = staticmethod(F.lp_pool2d)
