"""Adagrad: per-coordinate learning rates from the running sum of squared gradients.

Unlike the other optimizers, PyTorch creates Adagrad's state (`step` and `sum`)
eagerly in the constructor, so a fresh Adagrad already has a full state dict.

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_adagrad_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_adagrad_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from ..ops.creation import full_like
from . import _checks, _kernels
from .optimizer import (Optimizer, _check_fused_flags, _check_fused_param, _get_value,
                        _to_scalar, _use_grad_for_differentiable)

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
        at_least_zero = _checks.AT_LEAST_ZERO
        _checks.refuse_invalid(
            _checks.lr_row(lr),
            ("lr_decay value", lr_decay, at_least_zero),
            ("weight_decay value", weight_decay, at_least_zero),
            ("initial_accumulator_value value", initial_accumulator_value, at_least_zero),
            ("epsilon value", eps, at_least_zero))
        super().__init__(params, dict(
            lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value, foreach=foreach,
            maximize=maximize, differentiable=differentiable, fused=fused))
        _check_fused_flags(fused, foreach, differentiable)
        if fused:
            self._need_device_dtype_check_for_fused = True
        for group in self.param_groups:
            start = group["initial_accumulator_value"]
            for p in group["params"]:
                self._fill_state(self.state[p], p, group["fused"], start)

    @staticmethod
    def _fill_state(state, param, fused, start):
        """A parameter's Adagrad state: a zero `step` counter (beside the parameter, in
        float32, when fused) and squared-gradient sums starting at `start`."""
        state["step"] = _checks.new_step(param, fused, fused)
        state["sum"] = full_like(param, start)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, {"foreach": None, "maximize": False, "differentiable": False,
                               "fused": None}, beside=("fused",))

    def share_memory(self):
        """Kept for PyTorch compatibility: ember tensors live in one process already."""

    def _gather(self, group):
        """The group's parameters that received a gradient, with their sums and steps."""
        live = [p for p in group["params"] if p.grad is not None]
        fused = group["fused"]
        if live and fused and getattr(self, "_need_device_dtype_check_for_fused", True):
            _check_fused_param(live[0])
            self._need_device_dtype_check_for_fused = False
        states = [self.state[p] for p in live]
        for p, state in zip(live, states):
            if not state:
                # The state was dropped (e.g. a parameter added later); PyTorch takes the
                # accumulator's start from the optimizer's defaults here.
                if fused:
                    _check_fused_param(p)
                self._fill_state(state, p, fused, self.defaults["initial_accumulator_value"])
        return (live, [p.grad for p in live], [state["sum"] for state in states],
                [state["step"] for state in states])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            adagrad(*self._gather(group), lr=group["lr"], weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"],
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
