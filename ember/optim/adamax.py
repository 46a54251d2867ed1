"""Adamax: Adam with the infinity norm in place of the second moment (Kingma & Ba, sec. 7).

The denominator is an exponentially weighted maximum u_t = max(beta2 * u_{t-1},
|g_t| + eps), which needs no bias correction; only the first moment's is applied,
through the step size lr / (1 - beta1 ** t).
"""
from .._tensor import Tensor
from ..ops.creation import zeros_like
from ..ops.joining import cat
from . import _checks, _kernels
from .optimizer import Optimizer, _get_value, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Implements Adamax.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 2e-3).
        betas: coefficients of the running average of the gradient and of the
            exponentially weighted infinity norm.
        eps: added to |g| for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
        capturable: refused on the CPU, as in PyTorch's CPU build.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _checks.check_adam_like(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"foreach": None, "maximize": False, "differentiable": False,
                                "capturable": False}, ("step",))

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
                state["exp_inf"] = zeros_like(p)
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
            lr = _to_scalar(group["lr"])  # a tensor lr rounds the step factors to its dtype
            eps, weight_decay = group["eps"], group["weight_decay"]
            numbers = not (group["differentiable"] or isinstance(lr, Tensor)
                           or isinstance(beta1, Tensor) or isinstance(beta2, Tensor)
                           or isinstance(weight_decay, Tensor) or isinstance(eps, Tensor))
            for param, grad, state in rows:
                if numbers and _kernels.fast(param, grad):
                    _adamax_arrays(param, grad, state, lr, beta1, beta2, eps, weight_decay,
                                   group["maximize"])
                    continue
                _adamax_one(param, grad, state, lr, beta1, beta2, eps,
                            weight_decay, group["maximize"], group["differentiable"])
        return loss


def _adamax_one(param, grad, state, lr, beta1, beta2, eps, weight_decay, maximize,
                differentiable):
    """One parameter's Adamax update, in place on the parameter and its state."""
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    if maximize:
        grad = -grad
    state["step"] += 1
    step = _get_value(state["step"])
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    decayed = exp_inf.mul_(beta2)
    fresh = grad.abs().add_(eps)
    if differentiable:
        # Stacked and reduced with amax so the maximum is recorded in the graph.
        exp_inf.copy_(cat([decayed.unsqueeze(0), fresh.unsqueeze_(0)], 0).amax(0))
    else:
        exp_inf.copy_(decayed.maximum(fresh))
    param.addcdiv_(exp_avg, exp_inf, value=-_get_value(lr / (1 - beta1 ** step)))


def _adamax_arrays(param, grad, state, lr, beta1, beta2, eps, weight_decay, maximize):
    """`_adamax_one` on number hyper-parameters as in-place array kernels: the same ops in
    the same order, each tensor's version counted once per in-place op."""
    xp = param._device.xp
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    p, m, u = param._data, exp_avg._data, exp_inf._data
    tmp = xp.empty_like(p)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    step = _kernels.step_(state["step"])
    _kernels.lerp_(xp, m, g, 1 - beta1, tmp)
    u *= beta2
    fresh = xp.abs(g, out=tmp)
    fresh += eps
    xp.maximum(u, fresh, out=u)
    _kernels.bump(exp_avg, exp_inf, exp_inf)
    _kernels.addcdiv_(xp, p, m, u, -(lr / (1 - beta1 ** step)), tmp)
    _kernels.bump(param)
