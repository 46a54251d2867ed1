"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky).

PyTorch's single-tensor arithmetic, op for op. Besides the parameter's running average
`ax`, each parameter keeps its own step size `eta` and averaging weight `mu` as 0-dim
tensors (PyTorch's state layout), recomputed on Python floats after every step:
eta = lr / (1 + lambd * lr * step) ** alpha, mu = 1 / max(1, step - t0).
"""
from .._tensor import Tensor
from ..ops.creation import ones, tensor, zeros, zeros_like
from .nadam import _check_capturable_on, _check_state_steps
from .optimizer import (Optimizer, _get_scalar_dtype, _get_value, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Implements averaged stochastic gradient descent.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-2).
        lambd: decay term (default: 1e-4).
        alpha: power for the eta update (default: 0.75).
        t0: the step at which averaging starts (default: 1e6).
        weight_decay: L2 penalty (default: 0).
        foreach, capturable: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) == 0:
                    continue
                for key in ("step", "eta", "mu"):
                    if not isinstance(p_state[key], Tensor):
                        value = float(p_state[key]) if key == "step" else p_state[key]
                        p_state[key] = tensor(value, dtype=_get_scalar_dtype(),
                                              device=p.device)

    def _init_group(self, group, params, grads, mus, axs, etas, state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = zeros((), device=p.device, dtype=_get_scalar_dtype())
                state["eta"] = tensor(_get_value(_to_scalar(group["lr"])), device=p.device,
                                      dtype=_get_scalar_dtype())
                state["mu"] = ones((), device=p.device, dtype=_get_scalar_dtype())
                state["ax"] = zeros_like(p)
            mus.append(state["mu"])
            axs.append(state["ax"])
            etas.append(state["eta"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, mus, axs, etas, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, mus, axs, etas, state_steps)
            asgd(params, grads, axs, mus, etas, state_steps, lambd=group["lambd"],
                 lr=group["lr"], t0=group["t0"], alpha=group["alpha"],
                 weight_decay=group["weight_decay"], maximize=group["maximize"],
                 differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def asgd(params, grads, axs, mus, etas, state_steps, foreach=None, maximize=False,
         differentiable=False, capturable=False, has_complex=False, *, lambd, lr, t0, alpha,
         weight_decay):
    """Functional ASGD (`torch.optim.asgd.asgd`): updates params and state in place."""
    _check_state_steps(state_steps)
    lr = _get_value(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        if capturable:
            _check_capturable_on(param, (mu, eta, step_t),
                                 "params, mus, etas, and state_steps")
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        eta_value = _get_value(eta)
        param.mul_(1 - lambd * eta_value)  # decay term
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = _get_value(step_t)
        eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
        mu.fill_(1 / max(1, step - t0))
