"""Adadelta: step sizes from running averages of squared gradients and squared updates.

PyTorch's single-tensor arithmetic, op for op; `lr` (default 1.0) scales the
self-normalized update.

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_adadelta_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_adadelta_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from ..ops.creation import zeros, zeros_like
from . import _kernels
from .optimizer import (Optimizer, _check_capturable, _get_scalar_dtype, _get_value,
                        _to_scalar, _use_grad_for_differentiable)
from .rmsprop import _tensor_steps

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
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            _tensor_steps(self.state, group)

    def _init_group(self, group, params, grads, square_avgs, acc_deltas, state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = (zeros((), dtype=_get_scalar_dtype(), device=p.device)
                                 if group["capturable"] else zeros((), dtype=_get_scalar_dtype()))
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, acc_deltas, state_steps)
            adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"],
                     rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"],
                     maximize=group["maximize"], differentiable=group["differentiable"],
                     capturable=group["capturable"])
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
    std = square_avg.add(eps).sqrt_()
    delta = acc_delta.add(eps).sqrt_()
    if differentiable:
        delta = delta.clone()
    delta.div_(std).mul_(grad)
    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    param.add_(delta, alpha=-lr)


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
