"""Adafactor (Shazeer & Stern): Adam-like steps with a factored second moment.

For a matrix (or a batch of them, the last two dimensions) the second moment is kept
as a row vector and a column vector of mean squared gradients, and estimated as their
outer product divided by the rows' mean: memory O(n + m) instead of O(n m). Tensors of
fewer than two dimensions keep a full `variance`. There is no first moment. The step
is relative to the parameter's RMS (at least eps2) times min(lr, 1/sqrt(t)), and the
update is clipped so its RMS is at most `d`. beta2 follows 1 - t ** beta2_decay.
"""
from .._dtype import finfo
from .._tensor import Tensor
from ..autograd.grad_mode import state as grad_state
from ..ops.creation import zeros_like
from . import _checks
from .optimizer import Optimizer, _get_value, _to_scalar

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Implements Adafactor.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: the ceiling of the relative step size (default: 1e-2).
        beta2_decay: the exponent of beta2's schedule, <= 0 (default: -0.8).
        eps: (eps1, eps2): the floor of the second-moment estimate (None: the machine
            epsilon of the parameter's dtype) and of the parameter's RMS.
        d: clipping threshold on the update's RMS (default: 1.0).
        weight_decay: decoupled weight decay coefficient (default: 0.0).
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _checks.first_failure((
            (lr >= 0.0, f"Learning rate should be >= 0 but is: {lr}"),
            (beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
            (eps[0] is None or eps[0] >= 0.0, f"epsilon1 should be >= 0 but is: {eps[0]}"),
            (eps[1] >= 0.0, f"epsilon2 should be >= 0 but is: {eps[1]}"),
            (d >= 1.0, f"Clipping threshold d should be >= 1 but is: {d}"),
            (weight_decay >= 0.0, f"weight_decay should be >= 0 but is: {weight_decay}"),
        ))
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"foreach": None, "maximize": False}, ("step",))

    def _init_group(self, group):
        """The parameters that have a gradient, with their state (created on first use)."""
        rows = []
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _checks.new_step(p, False)
                if p.grad.dim() > 1:
                    shape = list(p.grad.shape)
                    state["row_var"] = p.grad.new_zeros(shape[:-1] + [1])
                    state["col_var"] = p.grad.new_zeros(shape[:-2] + [1, shape[-1]])
                else:
                    state["variance"] = zeros_like(p.grad)
            rows.append((p, p.grad, state))
        return rows

    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        previous = grad_state.enabled
        grad_state.enabled = False
        try:
            for group in self.param_groups:
                eps1, eps2 = group["eps"]
                lr = _to_scalar(group["lr"])  # a tensor lr makes the step size a tensor
                for param, grad, state in self._init_group(group):
                    _adafactor_one(param, grad, state, lr, group["beta2_decay"], eps1, eps2,
                                   group["d"], group["weight_decay"], group["maximize"])
        finally:
            grad_state.enabled = previous
        return loss


def _adafactor_one(param, grad, state, lr, beta2_decay, eps1, eps2, d, weight_decay, maximize):
    """One parameter's Adafactor update, in place on the parameter and its state."""
    if eps1 is None:
        eps1 = finfo(param.dtype).eps
    if maximize:
        grad = -grad
    state["step"] += 1
    step = _get_value(state["step"])
    weight = step ** beta2_decay  # 1 - beta2_t
    relative_step = min(lr, 1 / step ** 0.5)
    alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * relative_step
    if weight_decay != 0:
        param.mul_(1 - lr * weight_decay)
    if grad.dim() > 1:
        row_var, col_var = state["row_var"], state["col_var"]
        row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), weight)
        col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), weight)
        estimate = row_var @ col_var
        estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    else:
        state["variance"].lerp_(grad * grad, weight)
        estimate = state["variance"].clone()
    update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
    update.mul_(grad)
    clip = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
    param.add_(update, alpha=_get_value(-alpha / clip))
