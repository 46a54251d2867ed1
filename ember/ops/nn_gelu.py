"""gelu, exactly (erf) or with PyTorch's tanh approximation, and its gradient.

float32 goes through `_erf.gelu_parts` (Abramowitz & Stegun's erf with the normal
density the backward reuses) or, from `_compiled.MIN_SIZE` elements with numba
installed, through the compiled kernels of `_compiled.activation_kernels`, which do the
same operations in one pass; other dtypes through `_erf.erf` and ember ops.
"""
import math

from .. import _backend, _compiled
from . import _erf
from ._activation_base import _FLOAT32, _REDUCED, _SavedInput, _finish, _floating
from ._common import grad_state, wrap
from ._elementwise import upcast

__all__ = ["gelu"]

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_BETA = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715


def gelu(input, *, approximate="none"):
    """x * Phi(x), exactly (erf) or with PyTorch's tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    a = _floating(input, "GeluKernelImpl")
    xp = input._device.xp
    if approximate == "none" and a.dtype not in _REDUCED:
        density = None
        parts = _compiled_gelu(a) if a.dtype == _FLOAT32 else None
        if parts is not None:
            result, one_plus, density = parts
        else:
            if a.dtype == _FLOAT32 and a.ndim:
                one_plus, density = _erf.gelu_parts(xp, a)
            else:
                one_plus = _erf.erf(xp, a * _SQRT_HALF)
                one_plus += 1
            result = one_plus * a  # x * 0.5 * (1 + erf) (the 0.5 is exact in any order)
            result *= 0.5
        out = _finish(input, result, GeluBackward0, approximate)
        if out.grad_fn is not None:  # the backward's cdf (and density), without a second pass
            out.grad_fn.one_plus, out.grad_fn.density = one_plus, density
        return out
    if approximate == "none":
        def forward(x):
            return x * 0.5 * (1 + _erf.erf(xp, x * _SQRT_HALF))
    else:
        kernels = _gelu_kernels(a)
        if kernels is not None:   # the formula below in one compiled pass
            result = xp.empty(a.shape, _FLOAT32)
            _compiled.split_run(kernels.gelu_tanh_forward, [a.reshape(-1), result.reshape(-1)])
            return _finish(input, result, GeluBackward0, approximate)

        def forward(x):
            return 0.5 * x * (1 + xp.tanh(_GELU_BETA * (x + _GELU_KAPPA * x * x * x)))
    return _finish(input, upcast(forward, a), GeluBackward0, approximate)


def _gelu_kernels(*arrays):
    """The compiled gelu kernels when every array is a large C-contiguous NumPy float32
    array of one shape and numba is installed; else None (the NumPy formulas run)."""
    first = arrays[0]
    if first.size < _compiled.MIN_SIZE:
        return None
    for array in arrays:
        if (array.__class__ is not _backend.ndarray or array.dtype != _FLOAT32
                or array.shape != first.shape or not array.flags.c_contiguous):
            return None
    return _compiled.load("activation_kernels")


def _compiled_gelu(a):
    """gelu(a), 1 + erf(a / sqrt 2) and the normal density at a, in one compiled pass
    (`_compiled.activation_kernels`: gelu_parts' arithmetic), or None."""
    kernels = _gelu_kernels(a)
    if kernels is None:
        return None
    parts = [_backend.numpy.empty(a.shape, _FLOAT32) for _ in range(3)]
    _compiled.split_run(kernels.gelu_forward, [x.reshape(-1) for x in [a] + parts])
    return parts


class GeluBackward0(_SavedInput):
    __slots__ = ("one_plus", "density")

    def release(self):
        super().release()
        self.one_plus = self.density = None

    def backward(self, grad):
        (x,) = self.saved_tensors
        one_plus = getattr(self, "one_plus", None)
        if one_plus is not None and not grad_state.enabled:  # first order: on arrays
            a, xp = x._data, x._device.xp
            density = self.density
            kernels = None if density is None else _gelu_kernels(a, grad._data, one_plus,
                                                                   density)
            if kernels is not None:   # grad * (x * density + 0.5 * one_plus), one pass
                slope = xp.empty(a.shape, _FLOAT32)
                _compiled.split_run(kernels.gelu_backward, [
                    y.reshape(-1) for y in (a, one_plus, density, grad._data, slope)])
                return (wrap(slope, x._device),)
            if density is None:
                density = xp.asarray(a * a)  # (0-d: still an array)
                density *= -0.5
                xp.exp(density, out=density)
                density *= _INV_SQRT_2PI
            slope = xp.asarray(a * density)  # grad * (cdf + x * pdf), in place
            slope += 0.5 * one_plus
            slope *= grad._data
            return (wrap(slope, x._device),)
        if self.params == "tanh" and not grad_state.enabled:
            kernels = _gelu_kernels(x._data, grad._data)
            if kernels is not None:   # the tanh formula below in one compiled pass
                grad_input = x._device.xp.empty(x._data.shape, _FLOAT32)
                _compiled.split_run(kernels.gelu_tanh_backward, [
                    y.reshape(-1) for y in (x._data, grad._data, grad_input)])
                return (wrap(grad_input, x._device),)
        dtype = x.dtype if x._data.dtype in _REDUCED else None
        if dtype is not None:  # PyTorch's kernel works in float32 and rounds once
            x, grad = x.float(), grad.float()
        if self.params == "none":
            cdf = 0.5 * (1 + (x * _SQRT_HALF).erf())
            pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
            grad_input = grad * (cdf + x * pdf)
        else:
            x_sq = x * x
            inner_tanh = ((x + x_sq * x * _GELU_KAPPA) * _GELU_BETA).tanh()
            left = 0.5 * (1 + inner_tanh)
            right = (0.5 * x * (1 - inner_tanh * inner_tanh) * _GELU_BETA
                     * (1 + 3 * _GELU_KAPPA * x_sq))
            grad_input = grad * (left + right)
        return (grad_input if dtype is None else grad_input.to(dtype),)
