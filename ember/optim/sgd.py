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
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._need_device_dtype_check_for_fused = True
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _init_group(self, group, params, grads, momentum_buffer_list):
        """Collect the parameters that have a gradient, and their momentum buffers."""
        state = self.state
        with_momentum = group["momentum"] != 0
        for p in group["params"]:
            if p.grad is None:
                continue
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                _check_fused_param(p)
                self._need_device_dtype_check_for_fused = False
            params.append(p)
            grads.append(p.grad)
            if with_momentum:
                momentum_buffer_list.append(state[p].get("momentum_buffer"))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, momentum_buffer_list = [], [], []
            self._init_group(group, params, grads, momentum_buffer_list)
            sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"])
            if group["momentum"] != 0:
                for p, buf in zip(params, momentum_buffer_list):
                    self.state[p]["momentum_buffer"] = buf
        return loss


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
    for i, param in enumerate(params):
        if not isinstance(lr, Tensor) and not isinstance(weight_decay, Tensor) \
                and _kernels.fast(param, d_p_list[i]):
            _sgd_arrays(i, param, d_p_list[i], momentum_buffer_list, weight_decay, momentum,
                        lr, dampening, nesterov, maximize)
        else:
            _sgd_ops(i, param, d_p_list[i], momentum_buffer_list, weight_decay, momentum,
                     lr, dampening, nesterov, maximize)


def _sgd_ops(i, param, grad, momentum_buffer_list, weight_decay, momentum, lr, dampening,
             nesterov, maximize):
    """One parameter's update with ember ops (any dtype, tensor lr, differentiable)."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
            grad = grad.addcmul_(param.clone(), weight_decay)
        else:
            grad = grad.add(param, alpha=_get_value(weight_decay))
    if momentum != 0:
        buf = momentum_buffer_list[i]
        if buf is None:
            buf = grad.detach().clone()
            momentum_buffer_list[i] = buf
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - dampening)
        grad = grad.add(buf, alpha=momentum) if nesterov else buf
    if isinstance(lr, Tensor):
        param.addcmul_(grad, lr, value=-1)
    else:
        param.add_(grad, alpha=-lr)


def _sgd_arrays(i, param, grad, momentum_buffer_list, weight_decay, momentum, lr, dampening,
                nesterov, maximize):
    """The same update as `_sgd_ops`, op for op, as in-place array kernels."""
    xp = param._device.xp
    p = param._data
    tmp = xp.empty_like(p)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    if momentum != 0:
        buf = momentum_buffer_list[i]
        if buf is None:
            b = g.copy()
            momentum_buffer_list[i] = _kernels.new_tensor(b, param)
        else:
            b = buf._data
            b *= momentum
            _kernels.add_(xp, b, g, 1 - dampening, tmp)
            _kernels.bump(buf, buf)
        g = _kernels.add(xp, g, b, momentum) if nesterov else b
    _kernels.add_(xp, p, g, -lr, tmp)
    _kernels.bump(param)
