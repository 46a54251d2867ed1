"""Padding layers: Zero/Constant/Reflection/Replication/Circular pads in 1-3 dims.

Each stores `padding` as the full F.pad tuple (last dim first), as torch.nn does,
and calls F.pad (ember/ops/nn_resize.py).
"""
from ...ops.nn_resize import pad as _pad
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


def _full_padding(padding, n):
    """An int pads every side; a tuple must list both sides of each dim."""
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    return tuple(padding)


class _ConstantPadNd(Module):
    _n = 1

    def __init__(self, padding, value):
        super().__init__()
        self.padding = _full_padding(padding, self._n)
        self.value = value

    def forward(self, input):
        return _pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _ModePadNd(Module):
    _n = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _full_padding(padding, self._n)

    def forward(self, input):
        if self._mode == "circular":  # torch.nn's circular pads check the rank themselves
            _circular_rank(input.dim(), self._n)
        return _pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


def _circular_rank(got, n):
    if got not in (n + 1, n + 2):
        raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {got}D input)")


class ReflectionPad1d(_ModePadNd):
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    _n, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    _n, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    _n, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    _n, _mode = 3, "replicate"


class CircularPad1d(_ModePadNd):
    _n, _mode = 1, "circular"


class CircularPad2d(_ModePadNd):
    _n, _mode = 2, "circular"


class CircularPad3d(_ModePadNd):
    _n, _mode = 3, "circular"
