"""LPPool3d and the fractional max pools (nn12)."""
from ...ops import pooling_more as F
from .module import Module
from .pooling import _LPPoolNd

__all__ = ["LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]


class LPPool3d(_LPPoolNd):
    _functional = staticmethod(F.lp_pool3d)


def _as_tuple(value, n):
    if value is None:
        return None
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _FractionalMaxPoolNd(Module):
    """Shared constructor: exactly one of output_size / output_ratio (each ratio in (0, 1))."""
    _n = 2
    _functional = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self._n
        self.kernel_size = _as_tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _as_tuple(output_size, n)
        self.output_ratio = _as_tuple(output_ratio, n)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output "
                             "size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._functional(input, self.kernel_size, self.output_size,
                                      self.output_ratio, self.return_indices,
                                      _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _n = 2
    _functional = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _n = 3
    _functional = staticmethod(F.fractional_max_pool3d)
