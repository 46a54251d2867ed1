"""Adamax: Adam's variant on the infinity norm (Kingma & Ba).

PyTorch's single-tensor arithmetic, op for op: `exp_inf` is the running maximum of
beta2 * exp_inf and |grad| + eps, so no square root is taken.
"""
from ..ops.creation import zeros_like
from ..ops.joining import cat
from .nadam import _check_adam_like, _check_capturable_on, _check_state_steps, _new_step
from .optimizer import Optimizer, _get_value, _to_scalar, _use_grad_for_differentiable
from .rmsprop import _tensor_steps

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Implements Adamax.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 2e-3).
        betas: coefficients of the running average of the gradient and of the norm.
        eps: added to the norm for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        foreach, capturable: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            _tensor_steps(self.state, group)

    def _init_group(self, group, params, grads, exp_avgs, exp_infs, state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(group, p)
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_infs.append(state["exp_inf"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_infs, state_steps)
            beta1, beta2 = group["betas"]
            adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"],
                   beta1=beta1, beta2=beta2, lr=group["lr"],
                   weight_decay=group["weight_decay"], maximize=group["maximize"],
                   differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False,
           differentiable=False, capturable=False, has_complex=False, *, eps, beta1, beta2, lr,
           weight_decay):
    """Functional Adamax (`torch.optim.adamax.adamax`): updates params and state in place."""
    _check_state_steps(state_steps)
    lr = _get_value(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        if capturable:
            _check_capturable_on(param, (step_t,), "params and state_steps")
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            exp_inf.mul_(beta2)
            exp_inf.copy_(exp_inf.maximum(grad.abs().add_(eps)))
        else:
            norm_buf = cat([exp_inf.mul_(beta2).unsqueeze(0),
                            grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(norm_buf.amax(0, keepdim=False))
        bias_correction = 1 - beta1 ** _get_value(step_t)
        clr = lr / bias_correction
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
