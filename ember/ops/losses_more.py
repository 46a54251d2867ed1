"""The margin, embedding and likelihood losses of nn.functional beyond losses.py.

PyTorch composes most of them from other ops (cosine_embedding_loss, hinge_embedding_loss,
margin_ranking_loss, triplet_margin_loss, poisson_nll_loss in ATen; gaussian_nll_loss,
multilabel_soft_margin_loss, triplet_margin_with_distance_loss in Python): ember composes them
the same way, so values, gradients and grad_fn names follow. Three have native kernels with
their own nodes (soft_margin_loss, multi_margin_loss, multilabel_margin_loss): their forward
runs in NumPy and their backward is written with ember ops.
"""
import math

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _dtype, _errors
from ..autograd.grad_mode import no_grad
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, wrap
from ._loss_common import (MEAN, _compute, _legacy_reduction, _not_differentiable,
                           _reduce, _reduce_array, _reduction_enum, _resolve)
from .nn_activation import logsigmoid
from .nn_linear import pairwise_distance
from .pointwise_select import where

__all__ = ["soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "multilabel_soft_margin_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "poisson_nll_loss", "gaussian_nll_loss"]

_EPSILON = 1e-12   # ATen's EPSILON in cosine_embedding_loss





# ---------------------------------------------------------------- soft margin (native)
_NEGATE_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead.")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), reduced."""
    if _autocast.on:
        return _autocast.float32(soft_margin_loss, input, target, size_average, reduce, reduction)
    reduction = _resolve(size_average, reduce, reduction)
    if _errors.broadcast_mismatch(tuple(input.shape), tuple(target.shape)):
        raise RuntimeError(_errors.broadcast_mismatch(tuple(input.shape), tuple(target.shape)))
    if input.dtype is _dtype.bool:   # PyTorch negates the input first
        raise RuntimeError(_NEGATE_BOOL)
    if not input.dtype.is_floating_point:
        raise RuntimeError(_errors.cannot_cast(_dtype.float32, input.dtype))
    _not_differentiable("soft_margin_loss", "target", target)
    xp = input._device.xp
    x, t = _compute(input._data), _compute(target._data)
    loss = xp.log1p(xp.exp(-x * t))
    if loss.shape != x.shape:   # PyTorch writes into an output shaped like `input`
        raise RuntimeError(_errors.inplace_broadcast(x.shape, loss.shape))
    out = wrap(_reduce_array(xp, loss, reduction).astype(input._data.dtype, copy=False),
               input._device)
    if grad_state.enabled and input._requires_grad:
        node = SoftMarginLossBackward0()
        node.reduction, node.count = reduction, loss.size
        node.save(input, target)
        attach(out, node, input)
    return out


class SoftMarginLossBackward0(Node):
    __slots__ = ("reduction", "count")

    def backward(self, grad):
        input, target = self.saved_tensors
        # PyTorch's order, -norm * target * z / (1 + z) with z = exp(-target * input):
        # where z overflows to inf the gradient is inf / inf = nan, not a sigmoid's -target
        z = (-target * input).exp()
        norm = 1.0 / self.count if self.reduction == MEAN else 1.0
        return (target * z * -norm / (1 + z) * grad,)


# ---------------------------------------------------------------- multi-class margins (native)
def _check_class_input(input, target, what):
    """multi_margin / multilabel_margin: (C) or (N, C) input, a Long target."""
    shape = tuple(input.shape)
    if input.dim() > 2 or (input.dim() and shape[-1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {_errors.shape_list(shape)}")
    if target.dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found "
                           f"{_errors.scalar_type_name(target.dtype)}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p * weight[y], divided by C."""
    if _autocast.on:
        return _autocast.float32(multi_margin_loss, input, target, p, margin, weight, size_average,
                                 reduce, reduction)
    reduction = _resolve(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_class_input(input, target, "multi_margin_loss")
    classes = input.shape[-1] if input.dim() else 1
    batch = input.shape[0] if input.dim() == 2 else 1
    if target.numel() != batch or (input.dim() == 2 and target.dim() != 1):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{batch}], but got {_errors.shape_list(target.shape)}. Input has "
                           f"shape {_errors.shape_list(input.shape)}.")
    if weight is not None and (weight.numel() != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{_errors.shape_list(weight.shape)}")
    if not _is_floating(input._data.dtype) or input._data.dtype in _dtype.COMPUTED_IN_FLOAT32:
        raise NotImplementedError(_errors.not_implemented_for("multi_margin_loss_cpu_kernel",
                                                              input.dtype))
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_errors.scalar_type_name(input.dtype)} but "
                           f"found {_errors.scalar_type_name(weight.dtype)}")
    xp = input._device.xp
    y = target._data.reshape(batch)
    if y.size and (y.min() < 0 or y.max() >= classes):
        raise RuntimeError("target out of range")
    x = _compute(input._data).reshape(batch, classes)
    rows = xp.arange(batch)
    z = margin - x[rows, y][:, None] + x
    z[rows, y] = 0
    z = xp.where(z > 0, z, 0)   # PyTorch adds only margins z > 0: a nan one is left out
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _compute(weight._data)[y][:, None]
    loss = z.sum(1) / classes
    if input.dim() < 2 and reduction == 0:
        loss = loss.reshape(target.shape)
    out = wrap(_reduce_array(xp, loss, reduction).astype(input._data.dtype, copy=False),
               input._device)
    if grad_state.enabled and input._requires_grad:
        node = MultiMarginLossBackward0()
        node.reduction, node.p, node.margin = reduction, p, margin
        node.save(input, target, weight)
        attach(out, node, input)
    return out


class MultiMarginLossBackward0(Node):
    __slots__ = ("reduction", "p", "margin")

    def backward(self, grad):
        input, target, weight = self.saved_tensors
        classes = input.shape[-1]
        x = input.reshape(-1, classes)
        y = target.reshape(-1, 1)
        xp = input._device.xp
        other = wrap(xp.arange(classes)[None, :] != target._data.reshape(-1, 1), input._device)
        z = self.margin - x.gather(1, y) + x
        # PyTorch's kernel: g = 1 / (N * C) for a mean, else 1 / C; each margin z > 0
        # gets g (p = 1) or 2 * g * z, every other class exactly 0 (a nan or inf margin
        # never meets a 0 * inf); the target gets 0 minus their sum (+0.0 when none)
        g = 1.0 / (x.shape[0] * classes) if self.reduction == MEAN else 1.0 / classes
        slope = x.new_full((), g) if self.p == 1 else 2 * g * z
        if weight is not None:
            slope = slope * weight[target.reshape(-1)].reshape(-1, 1)
        slope = where((z > 0) & other, slope, 0.0)
        per_class = where(other, slope, 0.0 - slope.sum(1, keepdim=True))
        if self.reduction == 0:
            grad = grad.reshape(-1, 1)
        return ((per_class * grad).reshape(input.shape),)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])), divided by C.

    Each row of `target` lists class indices, ended by the first -1."""
    if _autocast.on:
        return _autocast.float32(multilabel_margin_loss, input, target, size_average, reduce,
                                 reduction)
    reduction = _resolve(size_average, reduce, reduction)
    _check_class_input(input, target, "multilabel_margin_loss")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {_errors.shape_list(target.shape)} for "
                           f"input of size: {_errors.shape_list(input.shape)}")
    if input._data.dtype in _dtype.COMPUTED_IN_FLOAT32:
        raise NotImplementedError(_errors.not_implemented_for(
            "multilabel_margin_loss_forward_out_frame", input.dtype))
    xp = input._device.xp
    classes = input.shape[-1] if input.dim() else 1
    t = target._data.reshape(-1, classes)
    valid = xp.cumprod(t != -1, axis=1).astype(bool)
    if ((t < -1) | (t >= classes))[valid | (t < -1)].any():
        raise RuntimeError("argument #2 'target' is out of range")
    pairs = _target_pairs(xp, t, valid, classes)
    x = _compute(input._data).reshape(-1, classes)
    z = 1 - x[xp.arange(x.shape[0])[:, None], xp.where(valid, t, 0)][:, :, None] + x[:, None, :]
    # only listed (target, non-target) pairs with z > 0 add up, as in PyTorch's loop: an
    # inf or nan input outside them (or a nan margin) is never multiplied by 0
    loss = xp.where((z > 0) & pairs, z, 0).sum((1, 2)) / classes
    if input.dim() < 2 and reduction == 0:
        loss = loss.reshape(())
    out = wrap(_reduce_array(xp, loss, reduction).astype(input._data.dtype, copy=False),
               input._device)
    if grad_state.enabled and input._requires_grad:
        node = MultilabelMarginLossBackward0()
        node.reduction = reduction
        node.save(input, target)
        attach(out, node, input)
    return out


def _target_pairs(xp, t, valid, classes):
    """(N, C, C) mask: [n, k, i] where t[n, k] is a listed target and class i is not one."""
    is_target = xp.zeros(t.shape, bool)
    rows = xp.broadcast_to(xp.arange(t.shape[0])[:, None], t.shape)
    is_target[rows[valid], t[valid]] = True
    return valid[:, :, None] & ~is_target[:, None, :]


class MultilabelMarginLossBackward0(Node):
    __slots__ = ("reduction",)

    def backward(self, grad):
        input, target = self.saved_tensors
        xp = input._device.xp
        classes = input.shape[-1]
        x = input._data.reshape(-1, classes)
        t = target._data.reshape(-1, classes)
        valid = xp.cumprod(t != -1, axis=1).astype(bool)
        index = xp.where(valid, t, 0)
        z = 1 - x[xp.arange(x.shape[0])[:, None], index][:, :, None] + x[:, None, :]
        active = ((z > 0) & _target_pairs(xp, t, valid, classes)).astype(x.dtype) / classes
        slope = active.sum(1)
        xp.add.at(slope, (xp.broadcast_to(xp.arange(x.shape[0])[:, None], index.shape), index),
                  -active.sum(2))
        if self.reduction == MEAN:
            grad = grad / x.shape[0]
        if self.reduction == 0:
            grad = grad.reshape(-1, 1)
        return ((wrap(slope, input._device) * grad).reshape(input.shape),)


# ---------------------------------------------------------------- composite losses
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Per-class binary logistic loss, averaged over the classes (PyTorch's Python recipe)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim)
    if input.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    loss = loss / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not valid")


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """x where target is 1, max(0, margin - x) where target is -1 (ATen's composition)."""
    if _autocast.on:
        return _autocast.float32(hinge_embedding_loss, input, target, margin, size_average, reduce,
                                 reduction)
    reduction = _resolve(size_average, reduce, reduction)
    zeros = input.new_zeros(input.shape)
    # ATen's `margin - self` is empty_like(self).fill_(margin).sub_(self): self's dtype
    margin_clamp = (input.new_full(input.shape, margin) - input).clamp_min(0)
    output = (margin_clamp.where(target != 1, zeros) + input.where(target != -1, zeros))
    return _reduce(output, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    if _autocast.on:
        return _autocast.float32(margin_ranking_loss, input1, input2, target, margin, size_average,
                                 reduce, reduction)
    reduction = _resolve(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()!r}, input2: "
                           f"{input2.size()!r}, target: {target.size()!r} ")
    difference = input1 - input2   # evaluated first, as PyTorch's kernel does
    return _reduce((-target * difference + margin).clamp_min(0), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    if _autocast.on:
        return _autocast.float32(cosine_embedding_loss, input1, input2, target, margin,
                                 size_average, reduce, reduction)
    reduction = _resolve(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != dim + 1 or input2.dim() != dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found "
                           f"inputs with sizes {_errors.shape_list(input1.shape)} and "
                           f"{_errors.shape_list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    magnitude1 = (input1 * input1).sum(dim) + _EPSILON
    magnitude2 = (input2 * input2).sum(dim) + _EPSILON
    cos = prod_sum / (magnitude1 * magnitude2).sqrt()
    zeros = cos.new_zeros(cos.shape)
    positive = (1 - cos).where(target == 1, zeros)
    negative = (cos - margin).clamp_min(0).where(target == -1, zeros)
    return _reduce(positive + negative, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance."""
    if _autocast.on:
        return _autocast.float32(triplet_margin_loss, anchor, positive, negative, margin, p, eps,
                                 swap, size_average, reduce, reduction)
    reduction = _resolve(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = distance_negative.minimum(pairwise_distance(positive, negative, p,
                                                                        eps))
    return _reduce((margin + distance_positive - distance_negative).clamp_min(0), reduction)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, and "
                           f"negative {n}D inputs")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    distance_positive = distance_function(anchor, positive)
    distance_negative = distance_function(anchor, negative)
    if swap:
        distance_negative = distance_negative.minimum(distance_function(positive, negative))
    loss = (margin + distance_positive - distance_negative).clamp_min(0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (log_input), else input - target * log(input + eps)."""
    if _autocast.on:
        return _autocast.float32(poisson_nll_loss, input, target, log_input, full, size_average,
                                 eps, reduce, reduction)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(target, Tensor):   # PyTorch's op takes no number as a target
        raise TypeError("poisson_nll_loss(): argument 'target' (position 2) must be Tensor, "
                        f"not {type(target).__name__}")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, _reduction_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(var) + (input - target) ** 2 / var), var clamped at eps (PyTorch's Python)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(input.shape)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
