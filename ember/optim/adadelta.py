"""Adadelta: step sizes from running averages of squared gradients and squared updates.

PyTorch's single-tensor arithmetic, op for op; `lr` (default 1.0) scales the
self-normalized update.

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_adadelta_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_adadelta_arrays`, the hot path; see `_kernels`).
"""
from ..ops.creation import zeros_like
from . import _checks, _kernels
from .optimizer import (Optimizer, _check_capturable, _get_value, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Implements Adadelta (Zeiler).

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: coefficient that scales the update (default: 1.0).
        rho: coefficient of the running averages (default: 0.9).
        eps: added inside the square roots for numerical stability (default: 1e-6).
        weight_decay: L2 penalty (default: 0).
        foreach, capturable: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _checks.refuse_invalid(_checks.lr_row(lr), ("rho value", rho, _checks.FRACTION),
                               ("epsilon value", eps, _checks.AT_LEAST_ZERO),
                               ("weight_decay value", weight_decay, _checks.AT_LEAST_ZERO))
        super().__init__(params, dict(
            lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
            capturable=capturable, foreach=foreach, differentiable=differentiable))

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"foreach": None, "maximize": False, "differentiable": False,
                               "capturable": False})

    @staticmethod
    def _fill_state(state, param, group):
        """First use: a zero step and zero running averages of squared gradients and
        squared updates."""
        state["step"] = _checks.new_step(param, group["capturable"])
        state["square_avg"] = zeros_like(param)
        state["acc_delta"] = zeros_like(param)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, states = _checks.gather(self, group, self._fill_state)
            adadelta(params, grads, [s["square_avg"] for s in states],
                     [s["acc_delta"] for s in states], [s["step"] for s in states],
                     lr=group["lr"], rho=group["rho"], eps=group["eps"],
                     weight_decay=group["weight_decay"], maximize=group["maximize"],
                     differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False,
             foreach=None, differentiable=False, has_complex=False, *, lr, rho, eps,
             weight_decay, maximize):
    """Functional Adadelta (`torch.optim.adadelta.adadelta`): updates params and state."""
    if capturable:
        for p, step in zip(params, state_steps):
            _check_capturable(p, step, supports_xla=False)
    lr = _get_value(_to_scalar(lr))
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas,
                                                        state_steps):
        fast = not differentiable and _kernels.fast(param, grad)
        update = _adadelta_arrays if fast else _adadelta_ops
        update(param, grad, square_avg, acc_delta, step, lr, rho, eps, weight_decay, maximize,
               differentiable)


def _adadelta_ops(param, grad, square_avg, acc_delta, step, lr, rho, eps, weight_decay,
                  maximize, differentiable):
    """One parameter's update with ember ops (any dtype, differentiable)."""
    step += 1
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
    rms_grad = square_avg.add(eps).sqrt_()
    # The update is rms(previous updates) / rms(gradients) * gradient; a differentiable
    # step must not write in place into a tensor the graph still needs.
    update = acc_delta.add(eps).sqrt_()
    if differentiable:
        update = update.clone()
    update.div_(rms_grad).mul_(grad)
    acc_delta.mul_(rho).addcmul_(update, update, value=1 - rho)
    param.add_(update, alpha=-lr)


def _adadelta_arrays(param, grad, square_avg, acc_delta, step, lr, rho, eps, weight_decay,
                     maximize, differentiable):
    """The same update as `_adadelta_ops`, op for op, as array kernels."""
    xp = param._device.xp
    p, sq, acc = param._data, square_avg._data, acc_delta._data
    tmp = xp.empty_like(p)
    _kernels.step_(step)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    sq *= rho
    _kernels.addcmul_(xp, sq, g, g, 1 - rho, tmp)
    std = xp.add(sq, eps)
    xp.sqrt(std, out=std)
    delta = xp.add(acc, eps)
    xp.sqrt(delta, out=delta)
    delta /= std
    delta *= g
    acc *= rho
    _kernels.addcmul_(xp, acc, delta, delta, 1 - rho, tmp)
    _kernels.add_(xp, p, delta, -lr, tmp)
    _kernels.bump(square_avg, square_avg, acc_delta, acc_delta, param)
