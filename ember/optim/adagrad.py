"""Adagrad: per-coordinate learning rates from the running sum of squared gradients.

Unlike the other optimizers, PyTorch creates Adagrad's state (`step` and `sum`)
eagerly in the constructor, so a fresh Adagrad already has a full state dict.

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_adagrad_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_adagrad_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from ..ops.creation import full_like, tensor, zeros
from . import _kernels
from .optimizer import (Optimizer, _check_fused_flags, _check_fused_param, _get_scalar_dtype,
                        _get_value, _to_scalar, _use_grad_for_differentiable)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Implements Adagrad (Duchi et al.).

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-2).
        lr_decay: learning-rate decay: step t uses lr / (1 + (t - 1) * lr_decay).
        weight_decay: L2 penalty (default: 0).
        initial_accumulator_value: starting value of the squared-gradient sums.
        eps: added to the denominator for numerical stability (default: 1e-10).
        foreach, fused: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)
        if fused:
            self._need_device_dtype_check_for_fused = True
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group["fused"],
                                 group["initial_accumulator_value"])

    @staticmethod
    def _init_state(state, p, fused, initial_accumulator_value):
        state["step"] = (zeros((), dtype=_get_scalar_dtype(is_fused=fused), device=p.device)
                         if fused else tensor(0.0, dtype=_get_scalar_dtype()))
        state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    step_val = float(p_state["step"])
                    p_state["step"] = (
                        tensor(step_val, dtype=_get_scalar_dtype(is_fused=fused),
                               device=p.device) if group["fused"]
                        else tensor(step_val, dtype=_get_scalar_dtype()))

    def share_memory(self):
        """Kept for PyTorch compatibility: ember tensors live in one process already."""

    def _init_group(self, group, params, grads, state_sums, state_steps):
        """Collect the parameters that have a gradient (and their state)."""
        for p in group["params"]:
            if p.grad is None:
                continue
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                _check_fused_param(p)
                self._need_device_dtype_check_for_fused = False
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                # The state was dropped (e.g. a parameter added later); PyTorch takes the
                # accumulator's start from the optimizer's defaults here.
                if group["fused"]:
                    _check_fused_param(p)
                self._init_state(state, p, group["fused"],
                                 self.defaults["initial_accumulator_value"])
            state_sums.append(state["sum"])
            state_steps.append(state["step"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            self._init_group(group, params, grads, state_sums, state_steps)
            adagrad(params, grads, state_sums, state_steps, lr=group["lr"],
                    weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                    eps=group["eps"], maximize=group["maximize"],
                    differentiable=group["differentiable"])
        return loss


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None,
            found_inf=None, has_sparse_grad=False, foreach=None, differentiable=False,
            has_complex=False, *, lr, weight_decay, lr_decay, eps, maximize):
    """Functional Adagrad (`torch.optim.adagrad.adagrad`): updates params and sums in place."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        fast = not differentiable and not isinstance(lr, Tensor) and _kernels.fast(param, grad)
        update = _adagrad_arrays if fast else _adagrad_ops
        update(param, grad, state_sum, step_t, lr, weight_decay, lr_decay, eps, maximize,
               differentiable)


def _adagrad_ops(param, grad, state_sum, step_t, lr, weight_decay, lr_decay, eps, maximize,
                 differentiable):
    """One parameter's update with ember ops (any dtype, tensor lr, differentiable)."""
    step_t += 1
    step = _get_value(step_t)
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    clr = _get_value(lr / (1 + (step - 1) * lr_decay))
    state_sum.addcmul_(grad, grad, value=1)
    std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
    param.addcdiv_(grad, std, value=-clr)


def _adagrad_arrays(param, grad, state_sum, step_t, lr, weight_decay, lr_decay, eps, maximize,
                    differentiable):
    """The same update as `_adagrad_ops`, op for op, as array kernels."""
    xp = param._device.xp
    p, total = param._data, state_sum._data
    tmp = xp.empty_like(p)
    step = _kernels.step_(step_t)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    clr = lr / (1 + (step - 1) * lr_decay)
    _kernels.addcmul_(xp, total, g, g, 1, tmp)
    _kernels.bump(state_sum)
    std = xp.sqrt(total)
    std += eps
    _kernels.addcdiv_(xp, p, g, std, -clr, tmp)
    _kernels.bump(param)
