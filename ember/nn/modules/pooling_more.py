"""MaxUnpool1d/2d/3d (and, as they come, the other pooling layers beyond pooling.py)."""
from ...ops import unpool
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxUnpoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _unpool_init(module, kernel_size, stride, padding, n):
    def as_tuple(value):
        return (value,) * n if isinstance(value, int) else tuple(value)
    module.kernel_size = as_tuple(kernel_size)
    module.stride = as_tuple(stride if stride is not None else kernel_size)
    module.padding = as_tuple(padding)


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of MaxPool1d (needs its indices)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        _unpool_init(self, kernel_size, stride, padding, 1)

    def forward(self, input, indices, output_size=None):
        return unpool.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                                   output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of MaxPool2d (needs its indices)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        _unpool_init(self, kernel_size, stride, padding, 2)

    def forward(self, input, indices, output_size=None):
        return unpool.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                                   output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of MaxPool3d (needs its indices)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        _unpool_init(self, kernel_size, stride, padding, 3)

    def forward(self, input, indices, output_size=None):
        return unpool.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                                   output_size)
