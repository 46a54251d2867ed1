"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky).

The parameter follows SGD with a decaying step eta_t = lr / (1 + lambd * lr * t) ** alpha
(and a shrink by 1 - lambd * eta_t), while `ax` keeps the running average of the
iterates, which starts at step `t0` (mu_t = 1 / max(1, t - t0)); before that `ax`
just copies the parameter. `eta` and `mu` live in the state as 0-dim tensors of the
scalar dtype, so the step uses eta rounded as PyTorch's does.
"""
from .._tensor import Tensor
from ..ops.creation import ones, tensor, zeros_like
from . import _checks
from .optimizer import (Optimizer, _get_scalar_dtype, _get_value, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Implements averaged stochastic gradient descent.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-2).
        lambd: decay term (default: 1e-4).
        alpha: power of the eta schedule (default: 0.75).
        t0: the step at which averaging starts (default: 1e6).
        weight_decay: L2 penalty (default: 0).
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
        capturable: refused on the CPU, as in PyTorch's CPU build.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _checks.check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"foreach": None, "maximize": False, "differentiable": False,
                                "capturable": False}, ("step", "eta", "mu"))

    def _init_group(self, group):
        """The parameters that have a gradient, with their state (created on first use)."""
        rows = []
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                device = p.device if group["capturable"] else None
                state["step"] = _checks.new_step(p, group["capturable"])
                state["eta"] = tensor(_get_value(_to_scalar(group["lr"])),
                                      dtype=_get_scalar_dtype(), device=device)
                state["mu"] = ones((), dtype=_get_scalar_dtype(), device=device)
                state["ax"] = zeros_like(p)
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
                    [r[0] for r in rows], "params, mus, etas, and state_steps",
                    [r[2]["mu"] for r in rows], [r[2]["eta"] for r in rows],
                    [r[2]["step"] for r in rows])
            lr = _to_scalar(group["lr"])  # a tensor lr keeps eta's schedule in its dtype
            for param, grad, state in rows:
                _asgd_one(param, grad, state, lr, group["lambd"], group["alpha"], group["t0"],
                          group["weight_decay"], group["maximize"])
        return loss


def _asgd_one(param, grad, state, lr, lambd, alpha, t0, weight_decay, maximize):
    """One parameter's ASGD update, in place on the parameter and its state."""
    eta, mu, ax = state["eta"], state["mu"], state["ax"]
    if maximize:
        grad = -grad
    state["step"] += 1
    step = _get_value(state["step"])
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    eta_now = _get_value(eta)
    param.mul_(1 - lambd * eta_now)
    param.add_(grad, alpha=-eta_now)
    if _get_value(mu) != 1:
        ax.add_(param.sub(ax).mul_(mu))
    else:
        ax.copy_(param)
    new_eta = lr / ((1 + lambd * lr * step) ** alpha)
    eta.copy_(new_eta if isinstance(new_eta, Tensor) else tensor(new_eta))
    mu.copy_(tensor(1 / max(1, step - t0)))
