"""Window functions for spectral analysis: hann, hamming, blackman, bartlett, kaiser.

Each is computed as PyTorch computes it: an arange in the requested dtype, then the
same sequence of in-place steps, each rounded to that dtype with its number rounded
to the dtype first, so float16 windows keep PyTorch's asymmetries. cos is correctly
rounded here; PyTorch's vectorised float32 cos is sometimes 1 ulp away.
"""
import math

from .._backend import scipy_special as _sc

from .. import _dtype
from .._device import resolve as _resolve_device
from ._data import _float_or, finish

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]

_FLOAT64 = _dtype.float64.np_dtype


def _options(name, window_length, dtype, device):
    dtype = _float_or(dtype)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: "
                           f"TensorOptions(dtype={_C_NAMES.get(dtype, dtype)}, device=cpu, "
                           f"layout=Strided (default), requires_grad=false (default), "
                           f"pinned_memory=false, memory_format=(nullopt))")
    return dtype.np_dtype, _resolve_device(device)


_C_NAMES = {_dtype.int64: "long int", _dtype.int32: "int", _dtype.int16: "short int",
            _dtype.int8: "signed char", _dtype.uint8: "unsigned char", _dtype.bool: "bool"}


def _mul(array, scalar):
    """One of PyTorch's in-place steps: the number is first rounded to the array's dtype."""
    return array * array.dtype.type(scalar)


def _add(array, scalar):
    return array + array.dtype.type(scalar)


def _cos(xp, array):
    """cos correctly rounded to the array's dtype (PyTorch's kernels are; NumPy's float32
    SIMD cos is not always)."""
    return xp.cos(array.astype(_FLOAT64)).astype(array.dtype)


def _window(name, window_length, periodic, dtype, device, requires_grad, body):
    np_dtype, dev = _options(name, window_length, dtype, device)
    xp = dev.xp
    if window_length == 0:
        return finish(xp.empty((0,), np_dtype), dev, requires_grad)
    if window_length == 1:
        return finish(xp.ones((1,), np_dtype), dev, requires_grad)
    length = window_length + 1 if periodic else window_length
    window = body(xp, xp.arange(length, dtype=np_dtype), length)
    if periodic:
        window = window[:-1]
    return finish(xp.ascontiguousarray(window), dev, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """alpha - beta * cos(2 pi n / (N - 1)); periodic drops the last of N + 1 points."""
    def body(xp, n, length):
        n = _mul(n, math.pi * 2.0 / (length - 1))
        n = _cos(xp, n)
        return _add(_mul(n, -beta), alpha)
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   body)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window: hamming_window with alpha = beta = 0.5."""
    def body(xp, n, length):
        n = _mul(n, math.pi * 2.0 / (length - 1))
        n = _cos(xp, n)
        return _add(_mul(n, -0.5), 0.5)
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, body)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    def body(xp, n, length):
        n = _mul(n, math.pi / (length - 1))
        four = _mul(_cos(xp, _mul(n, 4)), 0.08)
        two = _mul(_cos(xp, _mul(n, 2)), 0.5)
        return _add(four - two, 0.42)
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   body)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangular window, rising to 1 at the centre."""
    def body(xp, n, length):
        n = _mul(n, 2.0 / (length - 1))
        half = ((length - 1) >> 1) + 1
        n[half:] = _add(_mul(n[half:], -1), 2)
        return n
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   body)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """i0(beta sqrt(1 - ((n - a) / a)**2)) / i0(beta), a = (N - 1) / 2."""
    def body(xp, n, length):
        def kernel(a):  # PyTorch's kernel works in float32 for half types
            a = a.astype(_dtype.promote_types(_dtype.FROM_NUMPY[a.dtype], _dtype.float32).np_dtype)
            alpha = a.dtype.type((length - 1) / 2.0)
            beta_ = a.dtype.type(beta)
            inner = xp.sqrt(xp.abs(1 - ((a - alpha) / alpha) ** 2))
            return (_sc.i0(beta_ * inner) / _sc.i0(beta_)).astype(a.dtype)
        return kernel(n).astype(n.dtype)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   body)
