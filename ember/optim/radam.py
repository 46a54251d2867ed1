"""RAdam: Adam with the variance of its adaptive learning rate rectified (Liu et al.).

Early on the second-moment estimate rests on too few gradients for its square root to
be trusted. The length of the approximated simple moving average, rho_t, measures
that: while rho_t <= 5 the step is plain bias-corrected momentum (SGD with momentum);
after, the adaptive step is scaled by the rectification term r_t, computed on Python
floats as PyTorch's non-capturable path does.
"""
import math

from ..ops.creation import zeros_like
from . import _checks
from .optimizer import Optimizer, _get_value, _to_scalar, _use_grad_for_differentiable

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Implements RAdam, optionally with decoupled weight decay.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-3).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        decoupled_weight_decay: decay the parameter directly, as AdamW does.
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        capturable: refused on the CPU, as in PyTorch's CPU build.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _checks.check_adam_like(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"foreach": None, "maximize": False, "differentiable": False,
                                "decoupled_weight_decay": False, "capturable": False}, ("step",))

    def _init_group(self, group):
        """The parameters that have a gradient, with their state (created on first use)."""
        rows = []
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _checks.new_step(p, group["capturable"])
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            rows.append((p, p.grad, state))
        return rows

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            rows = self._init_group(group)
            if group["capturable"]:
                _checks.capturable_refused([r[0] for r in rows], "params and state_steps",
                                           [r[2]["step"] for r in rows])
            beta1, beta2 = group["betas"]
            lr = _get_value(_to_scalar(group["lr"]))
            for param, grad, state in rows:
                _radam_one(param, grad, state, lr, beta1, beta2, group["eps"],
                           group["weight_decay"], group["decoupled_weight_decay"],
                           group["maximize"], group["differentiable"])
        return loss


def _radam_one(param, grad, state, lr, beta1, beta2, eps, weight_decay, decoupled, maximize,
               differentiable):
    """One parameter's RAdam update, in place on the parameter and its state."""
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    if maximize:
        grad = -grad
    state["step"] += 1
    step = _get_value(state["step"])
    if weight_decay != 0:
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    correction1 = 1 - beta1 ** step
    correction2 = 1 - beta2 ** step
    momentum = exp_avg / correction1
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / correction2
    if rho_t <= 5.0:
        param.add_(momentum * lr, alpha=-1.0)
        return
    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                     / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    root = exp_avg_sq.sqrt()
    root = root.add(eps) if differentiable else root.add_(eps)
    adaptive_lr = math.sqrt(correction2) / root
    param.add_(momentum * lr * adaptive_lr * rect, alpha=-1.0)
