"""RMSprop: divide the gradient by a running root-mean-square of recent gradients.

PyTorch's single-tensor arithmetic, op for op (eps is added after the square root;
the centered variant subtracts the squared running mean of the gradient first).

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_rmsprop_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_rmsprop_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from ..ops.creation import zeros_like
from . import _checks, _kernels
from .optimizer import (Optimizer, _check_capturable, _get_value,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Implements RMSprop (Hinton), optionally centered and with momentum.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-2).
        alpha: smoothing constant of the squared-gradient average (default: 0.99).
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        momentum: momentum factor (default: 0).
        centered: normalize by an estimate of the gradient's variance.
        capturable, foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        at_least_zero = _checks.AT_LEAST_ZERO
        _checks.refuse_invalid(_checks.lr_row(lr), ("epsilon value", eps, at_least_zero),
                               ("momentum value", momentum, at_least_zero),
                               ("weight_decay value", weight_decay, at_least_zero),
                               ("alpha value", alpha, at_least_zero))
        super().__init__(params, dict(
            lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
            weight_decay=weight_decay, capturable=capturable, foreach=foreach,
            maximize=maximize, differentiable=differentiable))

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"momentum": 0, "centered": False, "foreach": None,
                               "maximize": False, "differentiable": False,
                               "capturable": False})

    @staticmethod
    def _fill_state(state, param, group):
        """First use: a zero step, the squared-gradient average, and the momentum buffer
        and gradient average only when the group uses them."""
        state["step"] = _checks.new_step(param, group["capturable"])
        state["square_avg"] = zeros_like(param)
        extras = (("momentum_buffer", group["momentum"] > 0), ("grad_avg", group["centered"]))
        for key, used in extras:
            if used:
                state[key] = zeros_like(param)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, states = _checks.gather(self, group, self._fill_state)
            # Lists of unused state stay empty, as PyTorch passes them.
            buffers = [s["momentum_buffer"] for s in states] if group["momentum"] > 0 else []
            grad_avgs = [s["grad_avg"] for s in states] if group["centered"] else []
            rmsprop(params, grads, [s["square_avg"] for s in states], grad_avgs, buffers,
                    [s["step"] for s in states], lr=group["lr"], alpha=group["alpha"],
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum=group["momentum"], centered=group["centered"],
                    maximize=group["maximize"], differentiable=group["differentiable"],
                    capturable=group["capturable"])
        return loss


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
            foreach=None, maximize=False, differentiable=False, capturable=False,
            has_complex=False, *, lr, alpha, eps, weight_decay, momentum, centered):
    """Functional RMSprop (`torch.optim.rmsprop.rmsprop`): updates params and state in place."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    lr = _get_value(_to_scalar(lr))
    for i, param in enumerate(params):
        if capturable:
            _check_capturable(param, state_steps[i])
        grad_avg = grad_avgs[i] if centered else None
        buf = momentum_buffer_list[i] if momentum > 0 else None
        fast = not differentiable and _kernels.fast(param, grads[i])
        update = _rmsprop_arrays if fast else _rmsprop_ops
        update(param, grads[i], square_avgs[i], grad_avg, buf, state_steps[i], lr, alpha, eps,
               weight_decay, momentum, maximize, differentiable)


def _rmsprop_ops(param, grad, square_avg, grad_avg, buf, step, lr, alpha, eps, weight_decay,
                 momentum, maximize, differentiable):
    """One parameter's update with ember ops (any dtype, differentiable)."""
    if maximize:
        grad = -grad
    step += 1
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if grad_avg is not None:
        grad_avg.lerp_(grad, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(eps) if differentiable else avg.add_(eps)
    if buf is not None:
        buf.mul_(momentum).addcdiv_(grad, avg)
        param.add_(buf, alpha=-lr)
    else:
        param.addcdiv_(grad, avg, value=-lr)


def _rmsprop_arrays(param, grad, square_avg, grad_avg, buf, step, lr, alpha, eps,
                    weight_decay, momentum, maximize, differentiable):
    """The same update as `_rmsprop_ops`, op for op, as array kernels."""
    xp = param._device.xp
    p, sq = param._data, square_avg._data
    tmp = xp.empty_like(p)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    _kernels.step_(step)
    sq *= alpha
    _kernels.addcmul_(xp, sq, g, g, 1 - alpha, tmp)
    _kernels.bump(square_avg, square_avg)
    if grad_avg is not None:
        _kernels.lerp_(xp, grad_avg._data, g, 1 - alpha, tmp)
        _kernels.bump(grad_avg)
        avg = xp.multiply(grad_avg._data, -1)
        avg *= grad_avg._data
        avg += sq  # square_avg.addcmul(grad_avg, grad_avg, value=-1)
        xp.sqrt(avg, out=avg)
    else:
        avg = xp.sqrt(sq)
    avg += eps
    if buf is not None:
        b = buf._data
        b *= momentum
        _kernels.addcdiv_(xp, b, g, avg, 1, tmp)
        _kernels.bump(buf, buf)
        _kernels.add_(xp, p, b, -lr, tmp)
    else:
        _kernels.addcdiv_(xp, p, g, avg, -lr, tmp)
    _kernels.bump(param)
