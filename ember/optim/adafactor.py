"""Adafactor: Adam-like steps with factored second moments (Shazeer & Stern).

PyTorch's single-tensor arithmetic, op for op. For a parameter of two or more
dimensions only a row and a column average of the squared gradient are kept (their
outer product, normalized, estimates the full second moment), so the state costs
O(rows + columns) instead of O(rows * columns). The step is relative to the parameter's
RMS and clipped by `d`; the decay rate beta2_t = 1 - step ** beta2_decay grows with time.
"""
from .._dtype import finfo
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad as _no_grad
from ..ops.creation import tensor, zeros_like
from .nadam import _check_state_steps
from .optimizer import Optimizer, _get_scalar_dtype, _to_scalar

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Implements Adafactor.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: the relative step size cap (default: 1e-2).
        beta2_decay: exponent of the second-moment decay schedule (default: -0.8).
        eps: (eps1, eps2): the floor of the second moment (None: the dtype's eps) and of
            the parameter's RMS (default: (None, 1e-3)).
        d: clipping threshold of the update's RMS (default: 1.0).
        weight_decay: decoupled weight decay coefficient (default: 0.0).
        foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]), dtype=_get_scalar_dtype())

    def _init_group(self, group, params, grads, row_vars, col_vars, variances, state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=_get_scalar_dtype())
                if p.grad.dim() > 1:
                    row_shape = list(p.grad.shape)
                    row_shape[-1] = 1
                    state["row_var"] = p.grad.new_zeros(row_shape)
                    col_shape = list(p.grad.shape)
                    col_shape[-2] = 1
                    state["col_var"] = p.grad.new_zeros(col_shape)
                else:
                    state["variance"] = zeros_like(p.grad)
            row_vars.append(state.get("row_var", None))
            col_vars.append(state.get("col_var", None))
            variances.append(state.get("variance", None))
            state_steps.append(state["step"])

    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        with _no_grad():
            for group in self.param_groups:
                params, grads, row_vars, col_vars, variances, state_steps = \
                    [], [], [], [], [], []
                eps1, eps2 = group["eps"]
                self._init_group(group, params, grads, row_vars, col_vars, variances,
                                 state_steps)
                adafactor(params, grads, row_vars, col_vars, variances, state_steps,
                          d=group["d"], lr=group["lr"], beta2_decay=group["beta2_decay"],
                          weight_decay=group["weight_decay"], eps1=eps1, eps2=eps2,
                          foreach=group["foreach"], maximize=group["maximize"],
                          grad_scale=getattr(self, "grad_scale", None),
                          found_inf=getattr(self, "found_inf", None))
        return loss


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach=None,
              grad_scale=None, found_inf=None, has_complex=False, *, d, lr, beta2_decay,
              weight_decay, eps1, eps2, maximize):
    """Functional Adafactor (`torch.optim._adafactor.adafactor`): updates params in place."""
    _check_state_steps(state_steps)
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Grad scaling should occur outside of optimizer.step()")
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        step_t, row_var, col_var, variance = (state_steps[i], row_vars[i], col_vars[i],
                                              variances[i])
        if eps1 is None:
            eps1 = finfo(param.dtype).eps
        step_t += 1
        step_float = step_t.item()
        one_minus_beta2_t = step_float ** beta2_decay
        rho_t = min(lr, 1 / (step_float ** 0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
            row_var.lerp_(row_mean, one_minus_beta2_t)
            col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
            col_var.lerp_(col_mean, one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            grad_squared = grad * grad
            variance.lerp_(grad_squared, one_minus_beta2_t)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=-alpha / denom)
