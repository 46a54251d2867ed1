"""Order statistics and running/normalising reductions: quantile, nanquantile,
logcumsumexp and renorm.

quantile is composed as PyTorch composes it (sort, ranks, gather, lerp), so its
gradient flows through those ops and reaches the same elements PyTorch's does;
logcumsumexp and renorm have their own nodes with PyTorch's backward formulas.
"""
import math

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _dtype
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, inplace, wrap, wrap_dim
from .cumulative import scan_accumulate
from ._elementwise import unsupported
from .norms import _norm_backward
from .pointwise_select import where

__all__ = ["quantile", "nanquantile", "logcumsumexp", "renorm"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


# ---------------------------------------------------------------- quantile
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles along dim (of all elements when dim is None); nan propagates."""
    if _autocast.on:
        return _autocast.float32(quantile, input, q, dim, keepdim, interpolation=interpolation)
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring nan (a slice of only nan gives nan)."""
    if _autocast.on:
        return _autocast.float32(nanquantile, input, q, dim, keepdim, interpolation=interpolation)
    return _quantile(input, q, dim, keepdim, interpolation, True, "quantile")  # its text too


def _check_quantile(input, q, interpolation, name):
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    scalar_q = not isinstance(q, Tensor)
    if not scalar_q and q.dim() > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if not scalar_q and q.dtype is not input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    values = [q] if scalar_q else q._data.reshape(-1).tolist()
    for value in values:
        if not 0 <= value <= 1:
            if scalar_q:
                raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {value}")
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return scalar_q


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    scalar_q = _check_quantile(input, q, interpolation, name)
    xp = input._device.xp
    if dim is None:
        values = input.reshape(-1)
        kept_shape = [1] * input.dim() if keepdim else []
    else:
        dim = wrap_dim(dim, input.dim())
        values = input.movedim(dim, -1) if input.dim() else input.reshape(1)
        kept_shape = list(input.shape)
        if keepdim:
            kept_shape[dim] = 1
        elif kept_shape:
            del kept_shape[dim]
    ordered = values.sort(-1).values  # nan sorts last
    last = ordered.shape[-1] - 1
    q_data = xp.asarray([q] if scalar_q else q._data.reshape(-1), input._data.dtype)
    nan = xp.isnan(ordered._data)
    # ranks = q * scale + offset: PyTorch's q * last_index (or q * (non-nan count - 1)),
    # with nan slices pinned; written so a q tensor receives its gradient through lerp.
    if ignore_nan:
        scale = ((~nan).sum(-1, keepdims=True) - 1).astype(q_data.dtype)
        pinned = scale < 0
        offset = xp.zeros_like(scale)
    else:
        pinned = nan.any(-1, keepdims=True)
        scale = xp.full(pinned.shape, last, q_data.dtype)
        offset = xp.full(pinned.shape, last, q_data.dtype)
    ranks = xp.where(pinned, offset, q_data * scale)
    if interpolation == "lower":
        ranks = xp.floor(ranks)
    elif interpolation == "higher":
        ranks = xp.ceil(ranks)
    elif interpolation == "nearest":
        ranks = xp.round(ranks)
    ranks = xp.broadcast_to(ranks, ordered.shape[:-1] + (q_data.size,))
    below = wrap(ranks.astype(_dtype.int64.np_dtype), input._device)
    result = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = wrap(xp.full_like(ranks, 0.5), input._device)
        elif scalar_q:
            weights = wrap(ranks - xp.floor(ranks), input._device)
        else:
            device = input._device
            # where(), not a zero scale: a pinned (nan) slice must pass q no gradient
            weights = where(wrap(pinned, device), wrap(offset, device),
                            q.reshape(-1) * wrap(scale, device)) - wrap(xp.floor(ranks), device)
        above = wrap(xp.ceil(ranks).astype(_dtype.int64.np_dtype), input._device)
        result = result.lerp(ordered.gather(-1, above), weights)
    # PyTorch ends with in-place squeezes (its grad_fn: SqueezeBackward4); so does ember.
    result = result.reshape(kept_shape + [q_data.size])
    if scalar_q:
        return result.squeeze_(-1)
    return result.unsqueeze(0).transpose(0, -1).squeeze_(-1)


# ---------------------------------------------------------------- logcumsumexp
def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along dim, without overflow."""
    data = input._data
    axis = wrap_dim(dim, data.ndim)  # PyTorch wraps the dim before its kernel sees the dtype
    if not _is_floating(data.dtype):
        raise unsupported("logcumsumexp_out_cpu", data)
    xp = input._device.xp
    # in the CPU scan's accumulate type (double for float), rounded once per output
    result = (xp.logaddexp.accumulate(data, axis=axis, dtype=scan_accumulate(data.dtype))
              if data.ndim else data.copy())
    out = wrap(result.astype(data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = LogcumsumexpBackward0()
        node.dim = axis
        node.save(input)
        node.save_output(out)
        attach(out, node, input)
    return out


class LogcumsumexpBackward0(Node):
    __slots__ = ("dim",)

    def backward(self, grad):
        input, result = self.saved_tensors
        if grad.dim() == 0 or grad.numel() == 0:
            return (grad,)
        dim = self.dim
        lowest = _dtype.finfo(grad.dtype).min
        log_abs = grad.abs().log()
        positive = where(grad > 0, log_abs, lowest)
        negative = where(grad < 0, log_abs, lowest)

        def reverse(x):
            return logcumsumexp(x.flip(dim), dim).flip(dim)

        return ((reverse(positive - result) + input).exp()
                - (reverse(negative - result) + input).exp(),)


# ---------------------------------------------------------------- renorm
def renorm(input, p, dim, maxnorm):
    """Scale each slice along dim whose p-norm exceeds maxnorm down to norm maxnorm."""
    data = input._data
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {data.ndim} "
                           f"dimensions")
    if not _is_floating(data.dtype):
        raise unsupported("renorm_out", data)
    dim = wrap_dim(dim, data.ndim)
    xp = input._device.xp
    axes = tuple(i for i in range(data.ndim) if i != dim)
    norm = _norm(xp, data, p, axes)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(data.dtype)
    out = wrap(data * factor, input._device)
    if grad_state.enabled and input._requires_grad:
        node = RenormBackward0()
        node.p, node.axes, node.maxnorm = p, axes, maxnorm
        node.save(input)
        attach(out, node, input)
    return out


def _norm(xp, data, p, axes):
    magnitude = xp.abs(data)
    if p == math.inf:
        return magnitude.max(axis=axes, keepdims=True)
    if p == 2:
        return xp.sqrt((data * data).sum(axis=axes, keepdims=True))
    return (magnitude ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)


class RenormBackward0(Node):
    __slots__ = ("p", "axes", "maxnorm")

    def backward(self, grad):
        (input,) = self.saved_tensors
        norm = input.norm(self.p, self.axes, keepdim=True)
        total = (input * grad).sum(self.axes, keepdim=True)
        pulled = _norm_backward(total, input, self.p, norm, self.axes)
        inverse = (norm + 1e-7).reciprocal()
        scaled = self.maxnorm * inverse * (grad - inverse * pulled)
        return (where(norm > self.maxnorm, scaled, grad),)


def renorm_(input, p, dim, maxnorm):
    return inplace(input, renorm, p, dim, maxnorm)
