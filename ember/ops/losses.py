"""Loss functions of nn.functional, with PyTorch's reductions, warnings and messages.

Where PyTorch has a native kernel with its own node (mse_loss, smooth_l1_loss, huber_loss,
binary_cross_entropy[_with_logits]), the forward runs in NumPy (half precision in float32) and
the node's backward is written with ember ops, so double backward works. Where PyTorch composes
a loss from other ops (l1_loss, kl_div, the weighted variants), ember composes it the same way,
which also gives the same `grad_fn`. The classification losses (nll_loss, cross_entropy) live
in `losses_nll.py` and are re-exported here.
"""
import warnings

from . import _autocast
from .. import _arguments, _dtype, _errors
from ..autograd.graph import Node
from . import losses_nll, views
from .pointwise import _BOOL_SUB_BOTH
from ._common import attach, grad_state, make_tensor
from ._loss_common import (MEAN, SUM, _REDUCED, _compute, _legacy_reduction,  # noqa: F401
                           _not_differentiable, _reduce, _reduce_array, _reduction_enum, _resolve)
from .losses_nll import *  # noqa: F401,F403 - re-exported: nn.functional reaches every loss here

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div"]


# ---------------------------------------------------------------- reductions


def _norm(reduction, count, scale):
    """The factor PyTorch's pointwise-loss backward kernels multiply by before the grad:
    scale / numel for 'mean' (a double, rounded to the tensor's dtype), else scale."""
    return scale / count if reduction == MEAN and count else scale


def _warn_size(input, target):
    # target.size() first, as PyTorch's Python does: a non-tensor fails with its AttributeError
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()!r}) that is different to the input "
                      f"size ({input.size()!r}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def _broadcast(input, target):
    """torch.broadcast_tensors(input, target), leaving equal shapes untouched."""
    if input.shape == target.shape:
        return input, target
    mismatch = _errors.broadcast_mismatch(input.shape, target.shape)
    if mismatch:  # named from the right, as PyTorch's broadcast does
        raise RuntimeError(mismatch)
    return views.broadcast_tensors(input, target)


def _float_operands(input, target, kernel, dtype=None):
    """input and target in the loss's dtype (promoted unless given), as PyTorch computes it."""
    if dtype is None:
        dtype = _dtype.promote_types(input.dtype, target.dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(_errors.not_implemented_for(kernel, dtype))
    if input.dtype is not dtype:
        input = input.to(dtype)
    if target.dtype is not dtype:
        target = target.to(dtype)
    return input, target


def _weighted(loss, weight, reduction, mean_by_weight):
    """The composite path PyTorch's regression losses take when given a `weight`."""
    if weight.shape != loss.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum() if mean_by_weight else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


# ---------------------------------------------------------------- regression losses
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error: (input - target) ** 2, reduced."""
    if _autocast.on:
        return _autocast.float32(mse_loss, input, target, size_average, reduce, reduction, weight)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    input, target = _broadcast(input, target)
    if weight is not None:
        return _weighted((input - target).pow(2), weight, reduction, True)
    reduction = _reduction_enum(reduction)
    input, target = _float_operands(input, target, "mse_cpu")
    diff = _compute(input._data) - _compute(target._data)
    return _pointwise_loss(input, target, diff * diff, reduction, MseLossBackward0)


def _pointwise_loss(input, target, loss, reduction, node_class, **attributes):
    """Reduce a NumPy loss array and record `node_class` (saving input and target)."""
    xp = input._device.xp
    out = make_tensor(_reduce_array(xp, loss, reduction).astype(input._data.dtype, copy=False),
                      input._device)
    if grad_state.enabled and (input._requires_grad or target._requires_grad):
        node = node_class()
        node.reduction = reduction
        for name, value in attributes.items():
            setattr(node, name, value)
        node.save(input, target)
        attach(out, node, input, target)
    return out


def _input_and_target_grads(node, input, target, grad_of):
    """(grad_of(input - target), grad_of(target - input)), skipping the ones not needed:
    PyTorch computes the target's gradient by the same backward with the two swapped, so
    where they are equal it is +0.0 times the gradient, not the negated input gradient."""
    first = grad_of(input - target) if node.needs_input_grad(0) else None
    second = grad_of(target - input) if node.needs_input_grad(1) else None
    return first, second


class MseLossBackward0(Node):
    __slots__ = ("reduction",)

    def backward(self, grad):
        input, target = self.saved_tensors   # norm * (input - target) * grad, in that order
        norm = _norm(self.reduction, input.numel(), 2.0)
        return _input_and_target_grads(self, input, target,
                                       lambda difference: difference * norm * grad)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error, composed as PyTorch does: abs(input - target), reduced."""
    if _autocast.on:
        return _autocast.float32(l1_loss, input, target, size_average, reduce, reduction, weight)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    input, target = _broadcast(input, target)
    if weight is not None:
        return _weighted((input - target).abs(), weight, reduction, True)
    return _reduce((input - target).abs(), _reduction_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 * d**2 / beta where |d| < beta, else |d| - 0.5 * beta (d = input - target)."""
    if _autocast.on:
        return _autocast.float32(smooth_l1_loss, input, target, size_average, reduce, reduction,
                                 beta)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    input, target = _broadcast(input, target)
    if beta == 0.0:
        return _reduce((input - target).abs(), _reduction_enum(reduction))
    reduction = _reduction_enum(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = _float_operands(input, target, "smooth_l1_cpu")
    xp = input._device.xp
    distance = xp.abs(_compute(input._data) - _compute(target._data))
    loss = xp.where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta)
    return _pointwise_loss(input, target, loss, reduction, SmoothL1LossBackward0, beta=beta)


class SmoothL1LossBackward0(Node):
    __slots__ = ("reduction", "beta")

    def backward(self, grad):
        input, target = self.saved_tensors   # PyTorch's vectorized kernel: slope * norm * grad
        norm, beta = _norm(self.reduction, input.numel(), 1.0), self.beta
        return _input_and_target_grads(
            self, input, target,
            lambda difference: (difference / beta).clamp(-1.0, 1.0) * norm * grad)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 * d**2 where |d| < delta, else delta * (|d| - 0.5 * delta) (d = input - target)."""
    if _autocast.on:
        return _autocast.float32(huber_loss, input, target, reduction, delta, weight)
    _warn_size(input, target)
    input, target = _broadcast(input, target)
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        return _weighted(huber_loss(input, target, "none", delta), weight, reduction, False)
    reduction = _reduction_enum(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    dtype = input.dtype
    if not dtype.is_floating_point:   # the loss is computed into a tensor like `input`
        result = _dtype.promote_types(dtype, target.dtype)
        if not _dtype.can_cast(result, dtype):
            raise RuntimeError(_errors.cannot_cast(result, dtype))
        raise NotImplementedError(_errors.not_implemented_for("huber_cpu", result))
    input, target = _float_operands(input, target, "huber_cpu", dtype)
    xp = input._device.xp
    distance = xp.abs(_compute(input._data) - _compute(target._data))
    loss = xp.where(distance < delta, 0.5 * distance * distance,
                    delta * (distance - 0.5 * delta))
    return _pointwise_loss(input, target, loss, reduction, HuberLossBackward0, delta=delta)


class HuberLossBackward0(Node):
    __slots__ = ("reduction", "delta")

    def backward(self, grad):
        input, target = self.saved_tensors   # slope * norm * grad, as PyTorch rounds it
        norm, delta = _norm(self.reduction, input.numel(), 1.0), self.delta
        return _input_and_target_grads(
            self, input, target,
            lambda difference: difference.clamp(-delta, delta) * norm * grad)


# ---------------------------------------------------------------- binary cross entropy
# the floor of x (1 - x) in the gradient: PyTorch's 1e-12 is a C float, so this is
# float32's nearest value, 9.99999996e-13, in every dtype
_BCE_EPSILON = 9.999999960041972e-13
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-weight * (target * log(input) + (1 - target) * log(1 - input)), logs clamped at -100."""
    if _autocast.on:
        return _autocast.float32(binary_cross_entropy, input, target, weight, size_average, reduce,
                                 reduction)
    reduction = _resolve(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()!r}) that is different to the "
                         f"input size ({input.size()!r}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None and weight.shape != target.shape:
        weight = weight.expand(_broadcast_weight_shape(target, weight))
    dtype = input.dtype
    if not dtype.is_floating_point:
        raise NotImplementedError(_errors.not_implemented_for("binary_cross_entropy", dtype))
    for other in (target, weight):
        if other is not None and other.dtype is not dtype:
            raise RuntimeError(f"Found dtype {_errors.scalar_type_name(other.dtype)} but expected "
                               f"{_errors.scalar_type_name(dtype)}")
    _not_differentiable("binary_cross_entropy", "weight", weight)
    xp = input._device.xp
    x, t = _compute(input._data), _compute(target._data)
    if not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not ((t >= 0) & (t <= 1)).all():
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = (t - 1) * xp.maximum(xp.log1p(-x), -100.0) - t * xp.maximum(xp.log(x), -100.0)
    if weight is not None:
        loss = loss * _compute(weight._data)
    out = make_tensor(_reduce_array(xp, loss, reduction).astype(input._data.dtype, copy=False),
                      input._device)
    if grad_state.enabled and (input._requires_grad or target._requires_grad):
        node = BinaryCrossEntropyBackward0()
        node.reduction = reduction
        node.save(input, target, weight)
        attach(out, node, input, target)
    return out


def _broadcast_weight_shape(target, weight):
    """torch.broadcast_shapes(target, weight), which must keep the target's shape."""
    shape, wshape = tuple(target.shape), tuple(weight.shape)
    for i in range(1, len(wshape) + 1):
        size = wshape[-i]
        if size != 1 and (i > len(shape) or shape[-i] != size):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at -{i}! "
                               f"Mismatching argument at index 1 had {weight.size()!r}; but "
                               "expected shape should be broadcastable to "
                               f"{_errors.shape_list(shape)}")
    return shape


class BinaryCrossEntropyBackward0(Node):
    __slots__ = ("reduction",)

    def backward(self, grad):
        input, target, weight = self.saved_tensors
        grad_input = grad_target = None
        if self.needs_input_grad(0):   # grad (x - y) / max((1 - x) x, eps), weighted, averaged
            grad_input = _weighted_mean_grad(
                grad * (input - target) / ((1 - input) * input).clamp(min=_BCE_EPSILON),
                weight, self.reduction, input.numel())
        if self.needs_input_grad(1):   # -logit(x) * grad: infinite where x is 0 or 1
            grad_target = _weighted_mean_grad(-input.logit() * grad, weight, self.reduction,
                                              input.numel())
        return grad_input, grad_target


def _weighted_mean_grad(grad_term, weight, reduction, count):
    """A loss gradient finished as PyTorch's backward kernels finish it: the pointwise term
    (already times the incoming grad), then times the weight, then divided by the count
    for 'mean'; each step rounds in turn."""
    if weight is not None:
        grad_term = grad_term * weight
    return grad_term / count if reduction == MEAN else grad_term


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits.

    loss = (1 - target) * input - (1 + (pos_weight - 1) * target) * log_sigmoid(input),
    where log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)) never overflows.
    """
    if _autocast.on:
        return _autocast.float32(binary_cross_entropy_with_logits, input, target, weight,
                                 size_average, reduce, reduction,
                                 pos_weight)
    reduction = _resolve(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()!r}) must be the same as input size "
                         f"({input.size()!r})")
    # PyTorch takes log_sigmoid(input) first, then computes in place into `1 - target`
    if not input.dtype.is_floating_point:
        raise NotImplementedError(_errors.not_implemented_for("log_sigmoid_cpu", input.dtype))
    dtype = target.dtype
    if dtype is _dtype.bool:
        raise RuntimeError(_BOOL_SUB_BOTH)
    if not dtype.is_floating_point:
        raise RuntimeError(_errors.cannot_cast(
            _dtype.promote_types(input.dtype, _dtype.float32), dtype))
    if input.dtype is not dtype:
        input = input.to(dtype)
    _not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    _not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    xp = input._device.xp
    x, t = _compute(input._data), _compute(target._data)
    # a half type is rounded after every step, as each of PyTorch's ops writes one
    rounded = _rounding(dtype.np_dtype)
    log_sigmoid = rounded(xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x))))
    if pos_weight is not None:
        if _errors.broadcast_mismatch(tuple(pos_weight.shape), tuple(target.shape)):
            raise RuntimeError(_errors.broadcast_mismatch(tuple(pos_weight.shape),
                                                          tuple(target.shape)))
        log_weight = rounded(rounded(rounded(_compute(pos_weight._data) - 1) * t) + 1)
        log_sigmoid = rounded(_in_place_product(log_sigmoid, log_weight, pos_weight, target))
    loss = rounded(rounded(rounded(1 - t) * x) - log_sigmoid)
    if weight is not None:
        loss = rounded(_in_place_product(loss, _compute(weight._data), weight, target))
    out = make_tensor(_reduce_array(xp, loss, reduction).astype(dtype.np_dtype, copy=False),
                      input._device)
    if grad_state.enabled and (input._requires_grad or target._requires_grad):
        node = BinaryCrossEntropyWithLogitsBackward0()
        node.reduction = reduction
        node.save(input, target, weight, pos_weight)
        attach(out, node, input, target)
    return out


def _rounding(np_dtype):
    """A function rounding float32 intermediates to `np_dtype` where that is a half type
    (PyTorch computes each op in float and stores it in the tensor's dtype), else identity."""
    if np_dtype not in _REDUCED:
        return _same
    return lambda array: array.astype(np_dtype).astype(array.dtype)


def _same(array):
    return array


def _in_place_product(array, factor, factor_tensor, like):
    """array * factor where PyTorch multiplies in place: the shape may not grow."""
    shape = tuple(like.shape)
    try:
        product = array * factor
    except ValueError:
        message = _errors.broadcast_mismatch(tuple(factor_tensor.shape), shape)
        raise RuntimeError(message) from None
    if product.shape != array.shape:
        raise RuntimeError(_errors.inplace_broadcast(array.shape, product.shape))
    return product


def _log_sigmoid(x):
    """log(sigmoid(x)) with ember ops, stable for large |x|."""
    return x.clamp(max=0.0) - (-x.abs()).exp().log1p()


class BinaryCrossEntropyWithLogitsBackward0(Node):
    __slots__ = ("reduction",)

    def backward(self, grad):
        input, target, weight, pos_weight = self.saved_tensors
        grad_input = grad_target = None
        count = input.numel()
        if self.needs_input_grad(0):
            if pos_weight is None:
                term = input.sigmoid() - target
            else:
                scaled_target = pos_weight * target
                term = (scaled_target + 1 - target) * input.sigmoid() - scaled_target
            grad_input = _weighted_mean_grad(term * grad, weight, self.reduction, count)
        if self.needs_input_grad(1):
            if pos_weight is None:
                term = -input
            else:
                term = _log_sigmoid(-input) - _log_sigmoid(input) * pos_weight
            grad_target = _weighted_mean_grad(term * grad, weight, self.reduction, count)
        return grad_input, grad_target


# ---------------------------------------------------------------- kl_div
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence target * (log(target) - input), `input` given as log-probabilities.

    Composed from ember ops as PyTorch composes it; 'batchmean' divides the sum by the batch size.
    """
    if _autocast.on:
        return _autocast.float32(kl_div, input, target, size_average, reduce, reduction,
                                 log_target)
    if size_average is not None or reduce is not None:
        enum = _reduction_enum(_legacy_reduction(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    try:
        return _kl_div(input, target, reduction, enum, log_target)
    except (AttributeError, TypeError):
        _arguments.check("kl_div", (input, target, enum), {"log_target": log_target})
        raise


def _kl_div(input, target, reduction, enum, log_target):
    if not input.dtype.is_floating_point or not target.dtype.is_floating_point:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        output = target.exp() * (target - input)
    else:
        output = target.xlogy(target) - target * input
    reduced = _reduce(output, enum)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


__all__ += losses_nll.__all__
