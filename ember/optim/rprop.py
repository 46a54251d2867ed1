"""Rprop: resilient backpropagation (Riedmiller & Braun).

PyTorch's single-tensor arithmetic, op for op: only the sign of the gradient is used.
Each element's step size grows by etaplus while the gradient keeps its sign and shrinks
by etaminus when it flips (that element then skips one update), clamped to step_sizes.
"""
from .._tensor import Tensor
from ..ops.creation import full_like, zeros_like
from .nadam import _check_capturable_on, _check_state_steps, _new_step
from .optimizer import Optimizer, _get_value, _to_scalar, _use_grad_for_differentiable
from .rmsprop import _tensor_steps

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Implements the resilient backpropagation algorithm.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: the initial step size (default: 1e-2).
        etas: (etaminus, etaplus), the factors that shrink and grow a step size.
        step_sizes: (min, max) bounds of the step sizes (default: (1e-6, 50)).
        foreach, capturable: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
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

    def _init_group(self, group, params, grads, prevs, step_sizes, state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(group, p)
                state["prev"] = zeros_like(p)
                state["step_size"] = full_like(p.grad, _get_value(_to_scalar(group["lr"])))
            prevs.append(state["prev"])
            step_sizes.append(state["step_size"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, prevs, step_sizes, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, prevs, step_sizes, state_steps)
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            rprop(params, grads, prevs, step_sizes, state_steps, step_size_min=step_size_min,
                  step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus,
                  maximize=group["maximize"], differentiable=group["differentiable"],
                  capturable=group["capturable"])
        return loss


def rprop(params, grads, prevs, step_sizes, state_steps, foreach=None, capturable=False,
          maximize=False, differentiable=False, has_complex=False, *, step_size_min,
          step_size_max, etaminus, etaplus):
    """Functional Rprop (`torch.optim.rprop.rprop`): updates params and state in place."""
    _check_state_steps(state_steps)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        prev, step_size, step = prevs[i], step_sizes[i], state_steps[i]
        if capturable:
            _check_capturable_on(param, (step,), "params and state_steps")
        step += 1
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        # The sign becomes each element's factor: grow where it held, shrink where it flipped.
        sign.masked_fill_(sign.gt(0), etaplus)
        sign.masked_fill_(sign.lt(0), etaminus)
        sign.masked_fill_(sign.eq(0), 1)
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad.masked_fill_(sign.eq(etaminus), 0)
        # PyTorch's addcmul saves an operand only when the other needs a gradient; ember's
        # saves both, so a differentiable step hands it a copy of the state it will update.
        param.addcmul_(grad.sign(), step_size.clone() if differentiable else step_size,
                       value=-1)
        prev.copy_(grad)
