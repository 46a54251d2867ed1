"""Differences, integrals and second moments along a dim: diff, trapezoid, trapz,
cumulative_trapezoid, cov, corrcoef, and pairwise distances (cdist).

All but cdist are compositions of ember ops in the order PyTorch composes them (its
grad_fn names the last: SubBackward0 for diff, MulBackward1/DivBackward1 for
trapezoid, SqueezeBackward0 for cov, ClampBackward1 for corrcoef), so gradients,
dtypes and rounding follow from the ops. cdist has its own node, CdistBackward0.
"""
import math
import warnings

from . import _autocast
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._scalar_ops import div_scalar, mul_scalar
from ._common import any_requires_grad, attach, sum_to_shape, wrap, wrap_dim
from .creation import empty_like, zeros_like
from .joining import cat
from .pointwise_select import where

__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid", "cov", "corrcoef", "cdist"]


# ---------------------------------------------------------------- diff
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (logical_xor for bool, as PyTorch)."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0 and prepend is None and append is None:
        return _copy(input)     # PyTorch checks no dim then
    dim = wrap_dim(dim, input.dim())
    pieces = [t for t in (prepend, input, append) if t is not None]
    for t in pieces:
        if t.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
    if n == 0:
        return _copy(input)     # prepend and append are checked, then left out, as in PyTorch
    result = cat(pieces, dim) if len(pieces) > 1 else input
    length = result.shape[dim] - 1
    is_bool = result.dtype is _dtype.bool
    for _ in range(min(n, result.shape[dim])):
        later, earlier = result.narrow(dim, 1, length), result.narrow(dim, 0, length)
        result = later.logical_xor(earlier) if is_bool else later - earlier
        length -= 1
    return result


def _copy(input):
    """A copy recorded as PyTorch's n=0 diff records it (CopyBackwards)."""
    return empty_like(input).copy_(input)


# ---------------------------------------------------------------- trapezoid rules
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along dim: spacing dx (default 1) or sample points x."""
    dim = _wrap_dim(dim, y)
    if y.shape[dim] == 0:  # no samples: zeros, as NumPy
        shape = list(y.shape)
        del shape[dim]
        return y.new_zeros(shape)
    if x is not None:
        if dx is not None:
            raise TypeError("trapezoid() received an invalid combination of arguments")
        _no_bool("trapezoid", y, x)
        left, right = _halves(y, dim)
        return div_scalar((_spacing(y, x, dim, "trapezoid") * (left + right)).sum(dim), 2.0)
    _no_bool("trapezoid", y)
    dx = 1 if dx is None else dx
    return mul_scalar(y.sum(dim) - mul_scalar(y.select(dim, 0) + y.select(dim, -1), 0.5), dx)


def _wrap_dim(dim, y):
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, y.dim())


def _no_bool(name, y, x=None):
    if x is None:
        if y.dtype is _dtype.bool:
            raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not "
                               f"supported")
    elif y.dtype is _dtype.bool or x.dtype is _dtype.bool:
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           f"supported")


def _halves(t, dim):
    """t.slice(dim, 0, -1) and t.slice(dim, 1), as PyTorch slices (empty stays empty)."""
    before = (slice(None),) * dim
    return t[before + (slice(0, -1),)], t[before + (slice(1, None),)]


def trapz(y, x=None, *, dx=None, dim=-1):
    """The older name of trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


def _spacing(y, x, dim, name):
    """x's differences along dim, x viewed to broadcast against y as PyTorch views it."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.view(shape)
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    left, right = _halves(x, dim)
    return right - left


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid-rule integral along dim (one fewer element than y)."""
    if y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, y.dim())
    if x is not None:
        _no_bool("cumulative_trapezoid", y, x)
        spacing = _spacing(y, x, dim, "cumulative_trapezoid")
        left, right = _halves(y, dim)
        return div_scalar((spacing * (left + right)).cumsum(dim), 2.0)
    _no_bool("cumulative_trapezoid", y)
    dx = 1 if dx is None else dx
    left, right = _halves(y, dim)
    return mul_scalar(left + right, dx / 2.0).cumsum(dim)


# ---------------------------------------------------------------- second moments
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows of input (variables x observations)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    data = input.view(1, -1) if input.dim() < 2 else input
    observations = data.shape[1]
    weights = None
    if fweights is not None:
        _check_weights(fweights, "fweights", observations, fweights.dtype.is_floating_point
                       or fweights.dtype is _dtype.bool, "integral")
        weights = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", observations, not aweights.dtype.is_floating_point,
                       "floating point")
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        total = wrap(input._device.xp.asarray(observations, _dtype.int64.np_dtype),
                     input._device)
    else:
        total = weights.sum()
        if not bool(total._data != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    average = (data if weights is None else data * weights).sum(1) / total
    if weights is not None and correction != 0 and aweights is not None:
        norm = total - correction * (weights * aweights).sum() / total
    else:
        norm = total - correction
    if bool(norm._data <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    data = data - average.unsqueeze(1)
    product = data.mm((data if weights is None else data * weights).t())  # real dtypes only: conj is the identity
    return product.true_divide(norm).squeeze()


def _check_weights(weights, name, observations, wrong_dtype, wanted):
    if weights.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {weights.dim()} dimensions")
    if wrong_dtype:
        raise RuntimeError(f"cov(): expected {name} to have {wanted} dtype but got {name} "
                           f"with {_dtype_name(weights)} dtype")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {weights.numel()} != "
                           f"{observations}")
    if observations and bool(weights._data.min() < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def _dtype_name(t):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}[str(t.dtype).split(".")[-1]]


def corrcoef(input):
    """Pearson correlation coefficients of the rows of input, clipped to [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clip(-1, 1)


# ---------------------------------------------------------------- pairwise distances
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 and each row of x2 (batched)."""
    if _autocast.on:
        return _autocast.float32(cdist, x1, x2, p, compute_mode)
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_dtype_name(t)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in (None, "use_mm_for_euclid_dist_if_necessary",
                            "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    xp = x1._device.xp
    a, b = x1._data, x2._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_dtype_name(x1)} but found "
                           f"{_dtype_name(x2)}")
    if a.dtype in _dtype.COMPUTED_IN_FLOAT32 and a.size and b.size:
        raise NotImplementedError(_errors.not_implemented_for("cdist", x1.dtype))
    difference = xp.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        # min(ceil(|d|), 1) counts a nonzero difference and keeps a NaN, as PyTorch's count
        result = xp.minimum(xp.ceil(difference), 1).sum(-1)
    elif p == math.inf:
        # PyTorch's running max(agg, d) passes over a NaN difference: fmax does the same
        result = xp.fmax.reduce(difference, axis=-1, initial=0)
    elif p == 1:
        result = difference.sum(-1)
    elif p == 2:
        result = xp.sqrt((difference * difference).sum(-1))
    else:
        result = (difference ** p).sum(-1) ** (1.0 / p)
    out = wrap(xp.ascontiguousarray(result.astype(a.dtype, copy=False)), x1._device)
    if any_requires_grad(x1, x2):
        node = CdistBackward0()
        node.p = float(p)
        node.save(x1, x2)
        node.save_output(out)
        attach(out, node, x1, x2)
    return out


class CdistBackward0(Node):
    __slots__ = ("p",)

    def backward(self, grad):
        x1, x2, result = self.saved_tensors
        grad_x1 = grad_x2 = None
        if self.needs_input_grad(0):
            share = distance_gradient(x1.unsqueeze(-2) - x2.unsqueeze(-3), result.unsqueeze(-1),
                                 grad.unsqueeze(-1), self.p)
            grad_x1 = _batch_sum(share.sum(-2), x1.shape)
        if self.needs_input_grad(1):
            # x2's gradient is x1's formula with the roles swapped (x2 - x1, not -(x1 - x2)),
            # as PyTorch computes it: the sign of an exact zero follows from that
            share = distance_gradient(x2.unsqueeze(-3) - x1.unsqueeze(-2), result.unsqueeze(-1),
                                 grad.unsqueeze(-1), self.p)
            grad_x2 = _batch_sum(share.sum(-3), x2.shape)
        return grad_x1, grad_x2


def distance_gradient(difference, distance, grad, p):
    """One pair's contribution to the gradient of its first row, in PyTorch's formula per p
    (its distance kernels' backward, shared by cdist and pdist).

    PyTorch's distance kernels take sign(d) as clamp(ceil(d), 0, 1) + clamp(floor(d), -1, 0),
    which keeps a NaN (torch.sign's 0 would hide it); a zero distance gives a zero
    gradient for p > 1 and, below p = 1, so does a zero difference."""
    if p == 0:
        return zeros_like(difference)     # zero even where d is inf or NaN
    if p == math.inf:
        sign = _sign_keeping_nan(difference)
        # 1 - min(1, ceil(| |d| - dist |)) marks the coordinates where |d| reaches the max
        is_max = 1 - ((difference.abs() - distance).abs().ceil().clamp(max=1))
        return grad * sign * is_max
    if p == 1:
        return grad * _sign_keeping_nan(difference)
    if p == 2:
        ratio = grad * difference / distance
    elif p < 2:
        ratio = (_sign_keeping_nan(difference) * difference.abs().pow(p - 1) * grad
                 / distance.pow(p - 1))
        if p < 1:
            ratio = where(difference == 0, 0.0, ratio)
    else:
        ratio = difference * difference.abs().pow(p - 2) * grad / distance.pow(p - 1)
    return where(distance == 0, 0.0, ratio)


def _sign_keeping_nan(t):
    """sign(t), NaN where t is NaN (PyTorch's distance kernels' sign; torch.sign gives 0)."""
    return where(t.isnan(), t, t.sign())


def _batch_sum(grad, shape):
    """Sum broadcast batch dims of a gradient back to an input's shape."""
    return sum_to_shape(grad, tuple(shape))
