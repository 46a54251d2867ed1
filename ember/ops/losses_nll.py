"""Classification losses: nll_loss and cross_entropy (class indices or class probabilities).

nll_loss is native in PyTorch (`NllLossBackward0` for 1D/2D inputs, `NllLoss2DBackward0` for
spatial ones; 3D and 5D+ inputs are viewed as 4D, as PyTorch's nll_loss_nd does). Its gradient
is linear in the incoming gradient: a constant one-hot map of -weight[target] (over the total
weight for 'mean'), so double backward through it is exact. cross_entropy is composed exactly as
PyTorch composes it: log_softmax then nll_loss; label smoothing and probability targets add
a few ember ops on top, which is also where their `grad_fn` names come from.
"""
from . import _autocast
from .. import _arguments, _diagnose, _dtype, _errors
from ..autograd.graph import Node
from . import nn_ops
from ._cascade_sum import cascade_sum
from ._common import attach, grad_state, make_tensor
from ._loss_common import MEAN, NONE, SUM, _compute, _not_differentiable, _resolve
from .pointwise_select import where

__all__ = ["nll_loss", "cross_entropy"]

_INT64 = _dtype.int64.np_dtype
_TARGET_DTYPES = (_dtype.int64, _dtype.uint8)


# ---------------------------------------------------------------- nll_loss
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-input[n, target[n]] * weight[target[n]], reduced; `input` holds log-probabilities.

    'mean' divides by the summed weight of the targets that are not `ignore_index`.
    """
    if _autocast.on:
        return _autocast.float32(nll_loss, input, target, weight, size_average, ignore_index,
                                 reduce, reduction)
    reduction = _resolve(size_average, reduce, reduction)
    try:
        return _nll_loss_nd(input, target, weight, reduction, ignore_index)
    except (AttributeError, TypeError):
        _arguments.check("nll_loss_nd", (input, target, weight, 1, ignore_index))
        raise


def _nll_loss_nd(input, target, weight, reduction, ignore_index):
    ndim = input.dim()
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1:
        target_batch = target.shape[0] if target.dim() else 0
        if input.shape[0] != target_batch:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                             f"batch_size ({target_batch}).")
    if ndim <= 2:
        return _nll_loss(input, target, weight, reduction, ignore_index, NllLossBackward0)
    if ndim == 4:
        return _nll_loss(input, target, weight, reduction, ignore_index, NllLoss2DBackward0)
    shape = tuple(input.shape)
    out_size = (shape[0],) + shape[2:]
    if tuple(target.shape[1:]) != shape[2:]:
        raise RuntimeError(f"Expected target size {_errors.shape_list(out_size)}, got "
                           f"{_errors.shape_list(target.shape)}")
    points = 1
    for s in shape[2:]:
        points *= s
    out = _nll_loss(input.reshape(shape[0], shape[1], 1, points),
                    target.reshape(shape[0], 1, points), weight, reduction, ignore_index,
                    NllLoss2DBackward0)
    return out.view(out_size) if reduction == NONE else out


def _check_nll_shapes(input, target, weight):
    """nll_loss_forward's checks, for 1D (C) and 2D (N, C) inputs."""
    ndim, target_ndim = input.dim(), target.dim()
    if target_ndim > 1:
        raise _diagnose.noted(
            RuntimeError("0D or 1D target tensor expected, multi-target not supported"),
            "multi_target", input_shape=input.shape, target_shape=target.shape)
    if ndim == 1 and target_ndim == 1:
        if target.shape[0] != 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
    elif not (ndim == 1 and target_ndim == 0) and input.shape[0] != target.shape[0]:
        raise RuntimeError(f"size mismatch (got input: {_errors.shape_list(input.shape)}, "
                           f"target: {_errors.shape_list(target.shape)})")
    classes = input.shape[-1]
    if weight is not None and (weight.dim() != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           "no classes but got weight tensor of shape: "
                           f"{_errors.shape_list(weight.shape)}")


def _check_nll2d_shapes(input, target, weight):
    """nll_loss2d_forward's checks, for (N, C, H, W) inputs and (N, H, W) targets."""
    if target.dim() != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.dim()}")
    if weight is not None and weight.numel() != input.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    shape, target_shape = tuple(input.shape), tuple(target.shape)
    if (shape[0],) + shape[2:] != target_shape:
        raise RuntimeError(f"size mismatch (got input: {_errors.shape_list(shape)} , target: "
                           f"{_errors.shape_list(target_shape)}")


def _check_nll_dtypes(input, target, weight, kernel):
    if target.dtype not in _TARGET_DTYPES:
        raise _diagnose.noted(RuntimeError("expected target dtype to be Long or Byte, but got "
                                           f"{_errors.scalar_type_name(target.dtype)}"),
                              "target_dtype", dtype=target.dtype)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_errors.scalar_type_name(input.dtype)} but "
                           f"found {_errors.scalar_type_name(weight.dtype)}")


def _nll_loss(input, target, weight, reduction, ignore_index, node_class):
    spatial = node_class is NllLoss2DBackward0
    if spatial:
        _check_nll2d_shapes(input, target, weight)
        _check_nll_dtypes(input, target, weight, "nll_loss2d_forward_out_frame")
    else:
        _check_nll_shapes(input, target, weight)
        _check_nll_dtypes(input, target, weight, "nll_loss_out_frame")
    _not_differentiable("nll_loss2d_forward" if spatial else "nll_loss_forward", "weight",
                        weight)
    xp = input._device.xp
    x = _compute(input._data)
    if x.ndim == 1:   # one sample without a batch dim: handled as a batch of one
        x = x.reshape(1, -1)
    targets = target._data.astype(_INT64).reshape(x.shape[:1] + x.shape[2:])
    valid = targets != ignore_index
    bad = valid & ((targets < 0) | (targets >= x.shape[1]))
    if bad.any():
        raise _diagnose.noted(IndexError(f"Target {int(targets[bad][0])} is out of bounds."),
                              "target_range", target=int(targets[bad][0]), classes=x.shape[1])
    safe = xp.where(valid, targets, 0)
    if weight is None:
        weights = valid.astype(x.dtype)
    else:
        weights = _compute(weight._data)[safe] * valid
    picked = xp.take_along_axis(x, safe[:, None], axis=1)[:, 0]
    losses = -picked * weights
    total_weight = weights.sum()
    if reduction == NONE:   # an ignored target's loss is written as +0.0, not -x * 0
        losses = xp.where(valid, losses, 0)
        result = losses.reshape(target.shape if input.dim() > 1 else ())
    elif input._device.type != "cpu":   # the meta device has no values to order; a GPU
        result = losses.sum() if reduction == SUM else losses.sum() / total_weight  # its own
    else:
        result = _batch_total(xp, picked.reshape(-1), weights.reshape(-1), valid.reshape(-1),
                              weight, reduction, input._data.dtype)
    out = make_tensor(xp.asarray(result).astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.reduction = reduction
        node.targets = safe
        node.valid = valid
        node.weights = weights
        node.total = total_weight if reduction == MEAN else None
        node.shape = tuple(input.shape)
        attach(out, node, input)
    return out


def _batch_total(xp, picked, weights, valid, weight, reduction, dtype):
    """The batch's summed (or weight-averaged) loss as PyTorch's nll_loss kernel adds it:
    a cascade sum in the input's own dtype (so half types round at every step)."""
    terms = (-(picked * weights)).astype(dtype)     # exact products, rounded once
    total = cascade_sum(xp, terms, valid)
    if reduction == SUM:
        return total
    if weight is None:
        return total / dtype.type(int(valid.sum()))
    return total / cascade_sum(xp, weights.astype(dtype), valid)


class NllLossBackward0(Node):
    """d loss / d input: -weight[target] (scaled for 'mean') at each target, times the grad.

    As in PyTorch, only the (non-ignored) targets are written: every other entry is +0.0
    whatever the sign of the incoming gradient."""
    __slots__ = ("reduction", "targets", "valid", "weights", "total", "shape")

    def backward(self, grad):
        xp = grad._device.xp
        targets = self.targets
        data = grad._data
        classes = self.shape[-1] if len(self.shape) == 1 else self.shape[1]
        spread = targets.shape[:1] + (classes,) + targets.shape[1:]
        if not grad_state.enabled:   # no create_graph: scatter the products themselves
            return (make_tensor(self._scattered(xp, data, spread), grad._device),)
        # create_graph: the same arithmetic with ember ops, so grad stays differentiable
        onehot = xp.zeros(spread, data.dtype)
        xp.put_along_axis(onehot, targets[:, None],
                          self.weights[:, None].astype(data.dtype, copy=False), axis=1)
        hit = xp.zeros(spread, bool)
        xp.put_along_axis(hit, targets[:, None], self.valid[:, None], axis=1)
        weights = make_tensor(onehot.reshape(self.shape), grad._device)
        if self.reduction == NONE:
            if len(self.shape) > 1:
                grad = grad.reshape(targets.shape[:1] + (1,) + targets.shape[1:])
            local = -weights * grad
        elif self.total is None:
            local = weights * -grad
        else:
            local = weights * -(grad / make_tensor(xp.asarray(self.total).astype(data.dtype),
                                                   grad._device))
        return (where(make_tensor(hit.reshape(self.shape), grad._device), local, 0.0),)

    def _scattered(self, xp, data, spread):
        """The gradient array in PyTorch's arithmetic, in the gradient's own dtype (half
        types round at each step as there): weight * -(grad / total) for a mean,
        weight * -grad for a sum, -weight * grad per element for 'none'."""
        dtype = data.dtype
        weights = self.weights.astype(dtype, copy=False)
        if self.reduction == NONE:
            values = -weights * data.reshape(self.targets.shape)
        elif self.total is None:
            values = weights * -data
        else:
            values = weights * -(data / xp.asarray(self.total).astype(dtype))
        values = xp.where(self.valid, values, dtype.type(0))
        out = xp.zeros(spread, dtype)
        xp.put_along_axis(out, self.targets[:, None], values[:, None], axis=1)
        return out.reshape(self.shape)


class NllLoss2DBackward0(NllLossBackward0):
    __slots__ = ()


# ---------------------------------------------------------------- cross_entropy
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim (1, or 0 for an unbatched input), then nll_loss.

    A `target` shaped like `input` holds class probabilities instead of class indices.
    `label_smoothing` mixes the target with the uniform distribution over classes.
    """
    if _autocast.on:
        return _autocast.float32(cross_entropy, input, target, weight, size_average, ignore_index,
                                 reduce, reduction, label_smoothing)
    reduction = _resolve(size_average, reduce, reduction)
    try:
        return _cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)
    except (AttributeError, TypeError):
        _arguments.check("cross_entropy_loss",
                         (input, target, weight, 1, ignore_index, label_smoothing))
        raise


def _cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing):
    class_dim = 0 if input.dim() == 1 else 1
    if label_smoothing > 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise _diagnose.noted(RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{_errors.scalar_type_name(target.dtype)}"), "probability_target",
                input_shape=input.shape, target_shape=target.shape, dtype=target.dtype)
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                            class_dim)
    log_probs = nn_ops.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        return _cross_entropy_smoothed(log_probs, target, weight, reduction, ignore_index,
                                       label_smoothing, class_dim)
    return _nll_loss_nd(log_probs, target, weight, reduction, ignore_index)


def _class_weight(weight, ndim, class_dim):
    """`weight` viewed so that it broadcasts along the class dim."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    """-sum over classes of target * log_softmax(input) (* weight)."""
    classes = input.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{classes} classes or no classes but got weight tensor of shape: "
                           f"{_errors.shape_list(weight.shape)}")
    log_probs = nn_ops.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    product = log_probs * target
    if weight is not None:
        product = product * _class_weight(weight, input.dim(), class_dim)
    if reduction == NONE:
        return -product.sum(class_dim)
    if reduction == SUM:
        return -product.sum()
    if input.numel() == 0:
        return -(product.sum() * float("nan"))
    return _div_scalar(-product.sum(), input.numel() // classes)


def _cross_entropy_smoothed(log_probs, target, weight, reduction, ignore_index, label_smoothing,
                            class_dim):
    """(1 - eps) * nll_loss + eps / classes * (the loss against a uniform target)."""
    classes = log_probs.shape[class_dim]
    nll = _nll_loss_nd(log_probs, target, weight, reduction, ignore_index)
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth = -(log_probs * _class_weight(weight, log_probs.dim(), class_dim)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    smooth = smooth.masked_fill(ignore_mask, 0.0)
    if reduction == MEAN:
        if weight is not None:
            kept = target.masked_select(ignore_mask.logical_not()).flatten()
            smooth = smooth.sum() / weight.gather(0, kept).sum()
        else:
            smooth = smooth.sum() / ignore_mask.logical_not().sum()
    elif reduction == SUM:
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _div_scalar(input, divisor):
    """input / divisor for a Python int: PyTorch's Tensor-by-Scalar division (DivBackward1)."""
    out = make_tensor(input._device.xp.asarray(input._data / divisor).astype(
        input._data.dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = DivBackward1()
        node.divisor = divisor
        attach(out, node, input)
    return out


class DivBackward1(Node):
    __slots__ = ("divisor",)

    def backward(self, grad):
        return (grad / self.divisor,)
