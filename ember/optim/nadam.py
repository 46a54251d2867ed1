"""NAdam: Adam with Nesterov momentum (Dozat), with the momentum schedule of its paper.

The momentum coefficient warms up as mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * psi)),
psi being `momentum_decay`; the running product of the mu_t is kept in the state
(`mu_product`, a 0-dim tensor of the scalar dtype, so it rounds as PyTorch's does).
The parameter moves twice per step: along the current gradient, weighted by
(1 - mu_t) / (1 - prod mu), and along the first moment, weighted by
mu_{t+1} / (1 - prod mu up to t+1), both divided by the bias-corrected RMS.
"""
from ..ops.creation import ones, zeros_like
from . import _checks
from .optimizer import Optimizer, _get_scalar_dtype, _get_value, _to_scalar
from .optimizer import _use_grad_for_differentiable

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Implements NAdam, optionally with decoupled weight decay (NAdamW).

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 2e-3).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        momentum_decay: psi in the momentum warm-up schedule (default: 4e-3).
        decoupled_weight_decay: decay the parameter directly, as AdamW does.
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        capturable: refused on the CPU, as in PyTorch's CPU build.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _checks.check_adam_like(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"maximize": False, "foreach": None, "capturable": False,
                                "differentiable": False, "decoupled_weight_decay": False}, ("step", "mu_product"))

    def _init_group(self, group):
        """The parameters that have a gradient, with their state (created on first use)."""
        rows = []
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _checks.new_step(p, group["capturable"])
                state["mu_product"] = ones((), dtype=_get_scalar_dtype(),
                                           device=p.device if group["capturable"] else None)
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
                _checks.capturable_refused(
                    [r[0] for r in rows], "params, mu_products and state_steps",
                    [r[2]["step"] for r in rows], [r[2]["mu_product"] for r in rows])
            beta1, beta2 = group["betas"]
            lr = _to_scalar(group["lr"])  # a tensor lr rounds the step factors to its dtype
            for param, grad, state in rows:
                _nadam_one(param, grad, state, lr, beta1, beta2, group["eps"],
                           group["weight_decay"], group["momentum_decay"],
                           group["decoupled_weight_decay"], group["maximize"],
                           group["differentiable"])
        return loss


def _nadam_one(param, grad, state, lr, beta1, beta2, eps, weight_decay, momentum_decay,
               decoupled, maximize, differentiable):
    """One parameter's NAdam update, in place on the parameter and its state."""
    exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
    if maximize:
        grad = -grad
    state["step"] += 1
    step = _get_value(state["step"])
    if weight_decay != 0:
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    mu_product *= mu
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    rms = exp_avg_sq.div(1 - beta2 ** step).sqrt()
    rms = rms.add(eps) if differentiable else rms.add_(eps)
    if differentiable:
        # PyTorch keeps these factors as tensors here (so they are recorded), which
        # rounds them through `mu_product`'s scalar dtype.
        product_next = mu_product * mu_next
        param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), rms)
        param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - product_next)), rms)
        return
    product = _get_value(mu_product)
    param.addcdiv_(grad, rms, value=_get_value(-lr * (1.0 - mu) / (1.0 - product)))
    param.addcdiv_(exp_avg, rms,
                   value=_get_value(-lr * mu_next / (1.0 - product * mu_next)))
