"""NAdam: Adam with Nesterov momentum (Dozat), optionally with decoupled weight decay.

PyTorch's single-tensor arithmetic, op for op: the momentum schedule
mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay)) is computed on Python floats,
and its running product `mu_product` is kept, like `step`, as a 0-dim tensor in the
state so that checkpoints have PyTorch's layout.
"""
from .._tensor import Tensor
from ..ops.creation import ones, tensor, zeros, zeros_like
from .optimizer import (_CAPTURABLE_DEVICES, Optimizer, _get_scalar_dtype, _get_value,
                        _to_scalar, _use_grad_for_differentiable)
from .rmsprop import _tensor_steps

__all__ = ["NAdam"]


def _check_adam_like(lr, eps, betas, weight_decay):
    """The argument checks NAdam, RAdam and Adamax share, with PyTorch's messages."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _new_step(group, p, value=0.0):
    """A fresh 0-dim counter: on the parameter's device when capturable, else on the CPU."""
    if group["capturable"]:
        make = zeros if value == 0.0 else ones
        return make((), dtype=_get_scalar_dtype(), device=p.device)
    return tensor(value, dtype=_get_scalar_dtype())


def _check_capturable_on(param, tensors, names):
    """PyTorch's refusal of a capturable step on a device that cannot graph-capture, naming
    the state tensors this optimizer checks."""
    devices = _CAPTURABLE_DEVICES
    kind = param.device.type
    if not (all(t.device.type == kind for t in tensors) and kind in devices):
        raise AssertionError(f"If capturable=True, {names} must be on supported devices: "
                             f"{devices}.")


def _check_state_steps(state_steps):
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")


class NAdam(Optimizer):
    """Implements NAdam (Adam with Nesterov momentum).

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 2e-3).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        momentum_decay: how fast the Nesterov momentum warms up (default: 4e-3).
        decoupled_weight_decay: decay the parameter directly, as AdamW does (NAdamW).
        foreach, capturable: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_like(lr, eps, betas, weight_decay)
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
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            _tensor_steps(self.state, group)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["mu_product"], Tensor):
                    p_state["mu_product"] = tensor(
                        p_state["mu_product"], dtype=_get_scalar_dtype(),
                        device=p.device if group["capturable"] else None)

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, mu_products,
                    state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(group, p)
                state["mu_product"] = _new_step(group, p, 1.0)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            mu_products.append(state["mu_product"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps = \
                [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, mu_products,
                             state_steps)
            beta1, beta2 = group["betas"]
            nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps,
                  beta1=beta1, beta2=beta2, lr=group["lr"],
                  weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
                  eps=group["eps"], maximize=group["maximize"],
                  decoupled_weight_decay=group["decoupled_weight_decay"],
                  capturable=group["capturable"], differentiable=group["differentiable"])
        return loss


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps,
          decoupled_weight_decay=False, foreach=None, capturable=False, differentiable=False,
          has_complex=False, maximize=False, *, beta1, beta2, lr, weight_decay,
          momentum_decay, eps):
    """Functional NAdam (`torch.optim.nadam.nadam`): updates params and state in place."""
    _check_state_steps(state_steps)
    if not all(isinstance(t, Tensor) for t in mu_products):
        raise RuntimeError("API has changed, `mu_products` argument must contain a list of "
                           "singleton tensors")
    lr = _get_value(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, mu_product, step_t = (exp_avgs[i], exp_avg_sqs[i],
                                                  mu_products[i], state_steps[i])
        if capturable:
            _check_capturable_on(param, (mu_product, step_t),
                                 "params, mu_products and state_steps")
        step_t += 1
        step = _get_value(step_t)
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        if differentiable:
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
            exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
            param.addcdiv_(grad, denom)
            param.addcdiv_(exp_avg, denom)
        else:
            mu_product_next = _get_value(mu_product) * mu_next
            denom.add_(eps)
            param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - _get_value(mu_product))))
            param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
