"""SGD: stochastic gradient descent with optional momentum, dampening and Nesterov.

The update is PyTorch's single-tensor one, op for op, so trajectories agree with
torch to float rounding. Note PyTorch's conventions: the momentum buffer starts as
the first gradient (no dampening on step 1), and lr multiplies the buffer, not the
gradient going into it.

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_sgd_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_sgd_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from . import _kernels
from . import _checks
from .optimizer import (Optimizer, _check_fused_flags, _check_fused_param, _get_value,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["SGD"]


class SGD(Optimizer):
    """Implements stochastic gradient descent (optionally with momentum).

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-3).
        momentum: momentum factor (default: 0).
        dampening: dampening for momentum (default: 0).
        weight_decay: L2 penalty added to the gradient (default: 0).
        nesterov: enables Nesterov momentum (needs momentum > 0 and zero dampening).
        maximize: maximize the objective instead of minimizing it.
        foreach, fused: accepted for PyTorch compatibility; ember always runs the
            single-tensor arithmetic.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        _checks.refuse_invalid(_checks.lr_row(lr, _checks.NOT_NEGATIVE),
                               ("momentum value", momentum, _checks.NOT_NEGATIVE),
                               ("weight_decay value", weight_decay, _checks.NOT_NEGATIVE))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(
            lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
            nesterov=nesterov, maximize=maximize, foreach=foreach,
            differentiable=differentiable, fused=fused))
        if fused:
            # Checked once, on the first parameter `step` meets (as PyTorch does).
            self._need_device_dtype_check_for_fused = True
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        _checks.restore(self, _RESTORED_FLAGS, counters=())

    def _live(self, group):
        """The group's parameters that received a gradient, fused-checking the first."""
        live = [p for p in group["params"] if p.grad is not None]
        if live and group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
            _check_fused_param(live[0])
            self._need_device_dtype_check_for_fused = False
        return live

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        state = self.state
        for group in self.param_groups:
            live = self._live(group)
            keeps_buffer = group["momentum"] != 0
            buffers = [state[p].get("momentum_buffer") for p in live] if keeps_buffer else []
            sgd(live, [p.grad for p in live], buffers, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"])
            # `sgd` fills in the buffers it had to create; keep them for the next step.
            for p, buffer in zip(live, buffers):
                state[p]["momentum_buffer"] = buffer
        return loss


# What a checkpoint from an older PyTorch may lack, and the value it then means.
_RESTORED_FLAGS = {"nesterov": False, "maximize": False, "foreach": None,
                   "differentiable": False, "fused": False}


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None, fused=None,
        grad_scale=None, found_inf=None, *, weight_decay, momentum, lr, dampening, nesterov,
        maximize):
    """Functional SGD (`torch.optim.sgd.sgd`): updates `params` in place.

    New momentum buffers are stored back into `momentum_buffer_list`.
    """
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)
    if isinstance(lr, Tensor) and not lr.requires_grad:
        lr = _get_value(lr)
    # The array kernels take plain-number hyper-parameters; tensors go through ops.
    plain_numbers = not isinstance(lr, Tensor) and not isinstance(weight_decay, Tensor)
    keeps_buffer = momentum != 0
    for i, (param, grad) in enumerate(zip(params, d_p_list)):
        update = _sgd_arrays if plain_numbers and _kernels.fast(param, grad) else _sgd_ops
        buffer = momentum_buffer_list[i] if keeps_buffer else None
        buffer = update(param, grad, buffer, weight_decay, momentum, lr, dampening, nesterov,
                        maximize)
        if keeps_buffer:
            momentum_buffer_list[i] = buffer


def _sgd_ops(param, grad, buffer, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """One parameter's update with ember ops (any dtype, tensor lr, differentiable);
    returns the momentum buffer (created from the first gradient when `buffer` is None)."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
            # A differentiable weight decay must stay in the graph: multiply, not alpha=.
            grad = grad.addcmul_(param.clone(), weight_decay)
        else:
            grad = grad.add(param, alpha=_get_value(weight_decay))
    if momentum != 0:
        if buffer is None:
            buffer = grad.detach().clone()
        else:
            buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
        grad = grad.add(buffer, alpha=momentum) if nesterov else buffer
    if isinstance(lr, Tensor):
        param.addcmul_(grad, lr, value=-1)
    else:
        param.add_(grad, alpha=-lr)
    return buffer


def _sgd_arrays(param, grad, buffer, weight_decay, momentum, lr, dampening, nesterov,
                maximize):
    """The same update as `_sgd_ops`, op for op, as in-place array kernels."""
    xp = param._device.xp
    p = param._data
    tmp = xp.empty_like(p)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    if momentum != 0:
        if buffer is None:
            b = g.copy()
            buffer = _kernels.new_tensor(b, param)
        else:
            b = buffer._data
            b *= momentum
            _kernels.add_(xp, b, g, 1 - dampening, tmp)
            _kernels.bump(buffer, buffer)
        g = _kernels.add(xp, g, b, momentum) if nesterov else b
    _kernels.add_(xp, p, g, -lr, tmp)
    _kernels.bump(param)
    return buffer
