"""Adam (and, through `decoupled_weight_decay`, the AdamW update).

The arithmetic is PyTorch's single-tensor path, op for op: `step` is a float
tensor incremented in place, the bias corrections are computed on Python floats,
`denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)` and the parameter
moves by `addcdiv_(exp_avg, denom, value=-step_size)`. The `capturable` path keeps
the step on the parameter's device and does the scalar math with tensors, as
PyTorch does for graph capture.

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_adam_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_adam_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from ..ops.creation import zeros_like
from ..ops.pointwise import maximum
from ..autograd.grad_mode import state as _grad_state
from . import _checks, _flat, _kernels
from .optimizer import (Optimizer, _check_capturable, _check_fused_flags, _check_fused_param,
                        _get_value, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adam"]


class Adam(Optimizer):
    """Implements the Adam algorithm (Kingma & Ba), optionally AMSGrad.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-3), a float or a 1-element tensor.
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0); decoupled from the gradient when
            `decoupled_weight_decay` is true (the AdamW update).
        amsgrad: use the maximum of past squared-gradient averages.
        maximize: maximize the objective instead of minimizing it.
        foreach, fused: accepted for PyTorch compatibility; ember always runs the
            single-tensor arithmetic.
        capturable: keep `step` on the parameter's device (graph-capture devices only).
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_tensor_lr(lr, foreach, capturable)
        at_least_zero = _checks.AT_LEAST_ZERO
        _checks.refuse_invalid(_checks.lr_row(lr), ("epsilon value", eps, at_least_zero))
        # betas are indexed only once lr and eps have passed, as PyTorch reads them.
        _checks.refuse_invalid(*_checks.beta_rows(betas),
                               ("weight_decay value", weight_decay, at_least_zero))
        betas = _check_betas(betas, foreach, capturable)
        super().__init__(params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
            maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable, fused=fused,
            decoupled_weight_decay=decoupled_weight_decay))
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, _RESTORED_FLAGS, beside=("capturable", "fused"))

    @staticmethod
    def _fill_state(state, param, group):
        """First use: a zero step (on the CPU unless capturable or fused, as PyTorch keeps
        it) and zero moment estimates, plus their running maximum under AMSGrad."""
        fused = group["fused"]
        if fused:
            _check_fused_param(param)
        state["step"] = _checks.new_step(param, group["capturable"] or fused, fused)
        moments = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else \
            ("exp_avg", "exp_avg_sq")
        for key in moments:
            state[key] = zeros_like(param)

    def _gather(self, group):
        """The per-parameter lists `adam` takes, for the parameters that have a gradient."""
        params, grads, states = _checks.gather(self, group, self._fill_state)
        if states and group["differentiable"] and any(s["step"].requires_grad for s in states):
            raise RuntimeError("`requires_grad` is not supported for `step` in "
                               "differentiable mode")
        if states and group["foreach"] and isinstance(group["lr"], Tensor) \
                and not group["capturable"]:
            raise RuntimeError("lr as a Tensor is not supported for capturable=False and "
                               "foreach=True")
        max_sqs = [s["max_exp_avg_sq"] for s in states] if group["amsgrad"] else []
        return (params, grads, [s["exp_avg"] for s in states],
                [s["exp_avg_sq"] for s in states], max_sqs, [s["step"] for s in states])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for index, group in enumerate(self.param_groups):
            if self._flat_step(index, group):
                continue
            beta1, beta2 = group["betas"]
            adam(*self._gather(group), amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2,
                 lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"], capturable=group["capturable"],
                 differentiable=group["differentiable"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


    def _flat_step(self, index, group):
        """The group's step over flat moment buffers (`_flat`), when its layout and
        settings allow; False leaves the step to `adam`."""
        lr, weight_decay = group["lr"], group["weight_decay"]
        beta1, beta2 = map(_to_scalar, group["betas"])
        if (_grad_state.enabled or group["capturable"] or group["differentiable"]
                or group["fused"] or isinstance(lr, Tensor) or isinstance(weight_decay, Tensor)
                or isinstance(beta1, Tensor) or isinstance(beta2, Tensor)):
            return False
        amsgrad = group["amsgrad"]
        params = [p for p in group["params"] if p.grad is not None]
        grads = [p.grad for p in params]
        states = [self.state[p] for p in params]
        layouts = self.__dict__.setdefault("_flat_moments", {})
        flat = layouts.get(index)
        if flat is None or not flat.intact(params, grads, states, amsgrad):
            flat = _flat.new(params, states, amsgrad)
            if flat is None:
                return False
            for param, state in zip(params, states):
                self._fill_state(state, param, group)
            flat.fill(states)
            layouts[index] = flat
        _flat.step(flat, params, grads, states, beta1, beta2, lr, weight_decay, group["eps"],
                   group["maximize"], group["decoupled_weight_decay"], amsgrad)
        return True


# What a checkpoint from an older PyTorch may lack, and the value it then means.
_RESTORED_FLAGS = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                   "differentiable": False, "decoupled_weight_decay": False, "fused": None}


def _check_tensor_lr(lr, foreach, capturable):
    """A tensor learning rate is refused under foreach without capturable."""
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and "
                         "foreach=True")


def _check_betas(betas, foreach, capturable):
    """Betas must be both floats or both 1-element tensors (kept as 0-dim tensors)."""
    if not (isinstance(betas[0], float) and isinstance(betas[1], float)
            or isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                 "capturable=False and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(map(_to_scalar, betas))


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None,
         capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
         has_complex=False, decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr,
         weight_decay, eps, maximize):
    """Functional Adam (`torch.optim.adam.adam`): updates params and state in place."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    numbers = not (capturable or differentiable or isinstance(lr, Tensor)
                   or isinstance(beta1, Tensor) or isinstance(weight_decay, Tensor))
    for i, param in enumerate(params):
        max_exp_avg_sq = max_exp_avg_sqs[i] if amsgrad else None
        if numbers and _kernels.fast(param, grads[i]):
            _adam_arrays(param, grads[i], exp_avgs[i], exp_avg_sqs[i], max_exp_avg_sq,
                         state_steps[i], beta1, beta2, lr, weight_decay, eps, maximize,
                         decoupled_weight_decay)
        else:
            _adam_ops(param, grads[i], exp_avgs[i], exp_avg_sqs[i], max_exp_avg_sq,
                      state_steps[i], beta1, beta2, lr, weight_decay, eps, maximize,
                      capturable, differentiable, decoupled_weight_decay)


def _adam_ops(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_t, beta1, beta2, lr,
              weight_decay, eps, maximize, capturable, differentiable, decoupled_weight_decay):
    """One parameter's update with ember ops (any dtype, tensor hyper-parameters,
    capturable, differentiable)."""
    if maximize:
        grad = -grad
    if capturable:
        _check_capturable(param, step_t)
    step_t += 1
    if weight_decay != 0:
        if decoupled_weight_decay:
            param.mul_(_number(1 - lr * weight_decay))
        elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
            grad = grad.addcmul_(param.clone(), weight_decay)
        else:
            grad = grad.add(param, alpha=_get_value(weight_decay))
    weight1 = 1 - beta1
    if isinstance(weight1, Tensor):
        weight1 = weight1.to(device=param.device, dtype=param.dtype)
    exp_avg.lerp_(grad, weight1)
    if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
        exp_avg_sq.lerp_(grad.square(), 1 - beta2)
    else:
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=_get_value(1 - beta2))
    update = _capturable_update if capturable or differentiable else _update
    update(param, step_t, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1, beta2, lr, eps,
           differentiable)


def _adam_arrays(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_t, beta1, beta2, lr,
                 weight_decay, eps, maximize, decoupled_weight_decay):
    """The same update as `_adam_ops` on number hyper-parameters, as array kernels."""
    xp = param._device.xp
    p, m, v = param._data, exp_avg._data, exp_avg_sq._data
    tmp = xp.empty_like(p)
    g = _kernels.gradient(xp, grad, param, maximize,
                          0 if decoupled_weight_decay else weight_decay)
    step = _kernels.step_(step_t)
    if weight_decay != 0 and decoupled_weight_decay:
        p *= 1 - lr * weight_decay
        _kernels.bump(param)
    _kernels.lerp_(xp, m, g, 1 - beta1, tmp)
    v *= beta2
    _kernels.addcmul_(xp, v, g, g, 1 - beta2, tmp)
    _kernels.bump(exp_avg, exp_avg_sq, exp_avg_sq)
    step_size = lr / (1 - beta1 ** step)
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    if max_exp_avg_sq is not None:
        xp.maximum(max_exp_avg_sq._data, v, out=max_exp_avg_sq._data)
        _kernels.bump(max_exp_avg_sq)
        v = max_exp_avg_sq._data
    denom = xp.sqrt(v)
    denom /= bias_correction2_sqrt
    denom += eps
    _kernels.addcdiv_(xp, p, m, denom, -step_size, tmp)
    _kernels.bump(param)


def _number(x):
    """A 0-dim tensor that does not require grad becomes a Python number for a scalar
    argument (PyTorch converts it to a Scalar); one that requires grad stays a tensor."""
    return x if isinstance(x, Tensor) and x.requires_grad else _get_value(x)


def _update(param, step_t, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1, beta2, lr, eps,
            differentiable):
    """The ordinary step: bias corrections on Python floats, then one addcdiv_."""
    step = _get_value(step_t)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    if max_exp_avg_sq is not None:
        max_exp_avg_sq.copy_(maximum(max_exp_avg_sq, exp_avg_sq))
        denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-_get_value(step_size))


def _capturable_update(param, step_t, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1, beta2, lr,
                       eps, differentiable):
    """The capturable/differentiable step: the scalar math stays in tensors, and the
    step size is folded into the denominator (addcdiv_'s value cannot be a tensor)."""
    step = step_t
    if differentiable and isinstance(beta1, Tensor) and beta1.requires_grad:
        bias_correction1 = 1 - beta1 ** step.clone()
    else:
        bias_correction1 = 1 - beta1 ** step
    if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
        bias_correction2 = 1 - beta2 ** step.clone()
    else:
        bias_correction2 = 1 - beta2 ** step
    step_size_neg = (lr / bias_correction1).neg()
    bias_correction2_sqrt = bias_correction2.sqrt()
    if max_exp_avg_sq is not None:
        previous = max_exp_avg_sq.clone() if differentiable else max_exp_avg_sq
        max_exp_avg_sq.copy_(maximum(previous, exp_avg_sq))
        second = max_exp_avg_sq
    else:
        second = exp_avg_sq
    denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    param.addcdiv_(exp_avg.clone() if differentiable else exp_avg, denom)
