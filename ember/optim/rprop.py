"""Rprop: resilient backpropagation (Riedmiller & Braun), full-batch sign-based steps.

Each element keeps its own step size. Where the gradient kept its sign since the last
step, the step grows by etaplus; where it flipped, it shrinks by etaminus and that
element skips this update (its stored gradient is zeroed, so the next step sees no
sign change). Step sizes stay within `step_sizes`; the parameter moves by
-sign(grad) * step_size.
"""
from ..ops.creation import full_like, zeros_like
from . import _checks
from .optimizer import Optimizer, _get_value, _to_scalar, _use_grad_for_differentiable

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Implements the resilient backpropagation algorithm.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: initial step size of every element (default: 1e-2).
        etas: (etaminus, etaplus), the factors that shrink and grow the step sizes.
        step_sizes: the smallest and largest step size allowed.
        capturable: refused on the CPU, as in PyTorch's CPU build.
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _checks.check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
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
                state["prev"] = zeros_like(p)
                state["step_size"] = full_like(p.grad, _get_value(_to_scalar(group["lr"])))
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
            for param, grad, state in rows:
                _rprop_one(param, grad, state, group["etas"], group["step_sizes"],
                           group["maximize"], group["differentiable"])
        return loss


def _rprop_one(param, grad, state, etas, step_sizes, maximize, differentiable):
    """One parameter's Rprop update, in place on the parameter and its state."""
    prev, step_size = state["prev"], state["step_size"]
    etaminus, etaplus = etas
    if maximize:
        grad = -grad
    state["step"] += 1
    agreement = grad.mul(prev.clone() if differentiable else prev).sign()
    factor = (agreement.masked_fill(agreement > 0, etaplus)
              .masked_fill(agreement < 0, etaminus).masked_fill(agreement == 0, 1))
    step_size.mul_(factor).clamp_(step_sizes[0], step_sizes[1])
    # a flipped sign skips this element's update and forgets its gradient
    grad = grad.masked_fill(factor == etaminus, 0)
    # ember's addcmul saves both factors; a copy keeps the recorded step size intact
    # when the next step scales `step_size` in place
    param.addcmul_(grad.sign(), step_size.clone() if differentiable else step_size, value=-1)
    prev.copy_(grad)
