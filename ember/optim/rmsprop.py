"""RMSprop: divide the gradient by a running root-mean-square of recent gradients.

PyTorch's single-tensor arithmetic, op for op (eps is added after the square root;
the centered variant subtracts the squared running mean of the gradient first).

Each update is written twice, with the same arithmetic in the same order: with ember
ops (`_rmsprop_ops`: autograd, tensor hyper-parameters, any dtype) and as in-place array
kernels (`_rmsprop_arrays`, the hot path; see `_kernels`).
"""
from .._tensor import Tensor
from ..ops.creation import tensor, zeros, zeros_like
from . import _kernels
from .optimizer import (Optimizer, _check_capturable, _get_scalar_dtype, _get_value,
                        _to_scalar, _use_grad_for_differentiable)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Implements RMSprop (Hinton), optionally centered and with momentum.

    Args:
        params: parameters, (name, parameter) pairs or parameter-group dicts.
        lr: learning rate (default: 1e-2).
        alpha: smoothing constant of the squared-gradient average (default: 0.99).
        eps: added to the denominator for numerical stability (default: 1e-8).
        weight_decay: L2 penalty (default: 0).
        momentum: momentum factor (default: 0).
        centered: normalize by an estimate of the gradient's variance.
        capturable, foreach: accepted for PyTorch compatibility.
        maximize: maximize the objective instead of minimizing it.
        differentiable: record the update in the autograd graph.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            _tensor_steps(self.state, group)

    def _init_group(self, group, params, grads, square_avgs, momentum_buffer_list, grad_avgs,
                    state_steps):
        """Collect the parameters that have a gradient; create their state on first use."""
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = (zeros((), dtype=_get_scalar_dtype(), device=p.device)
                                 if group["capturable"] else zeros((), dtype=_get_scalar_dtype()))
                state["square_avg"] = zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; returns the closure's loss if one is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps = \
                [], [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, momentum_buffer_list,
                             grad_avgs, state_steps)
            rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
                    lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                    weight_decay=group["weight_decay"], momentum=group["momentum"],
                    centered=group["centered"], maximize=group["maximize"],
                    differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def _tensor_steps(state, group, device_when_capturable=True):
    """Old checkpoints stored `step` as a number; PyTorch turns it into a tensor on load."""
    for p in group["params"]:
        p_state = state.get(p, [])
        if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
            step_val = float(p_state["step"])
            p_state["step"] = (
                tensor(step_val, dtype=_get_scalar_dtype(), device=p.device)
                if group["capturable"] and device_when_capturable
                else tensor(step_val, dtype=_get_scalar_dtype()))


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
            foreach=None, maximize=False, differentiable=False, capturable=False,
            has_complex=False, *, lr, alpha, eps, weight_decay, momentum, centered):
    """Functional RMSprop (`torch.optim.rmsprop.rmsprop`): updates params and state in place."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of "
                           "singleton tensors")
    lr = _get_value(_to_scalar(lr))
    for i, param in enumerate(params):
        if capturable:
            _check_capturable(param, state_steps[i])
        grad_avg = grad_avgs[i] if centered else None
        buf = momentum_buffer_list[i] if momentum > 0 else None
        fast = not differentiable and _kernels.fast(param, grads[i])
        update = _rmsprop_arrays if fast else _rmsprop_ops
        update(param, grads[i], square_avgs[i], grad_avg, buf, state_steps[i], lr, alpha, eps,
               weight_decay, momentum, maximize, differentiable)


def _rmsprop_ops(param, grad, square_avg, grad_avg, buf, step, lr, alpha, eps, weight_decay,
                 momentum, maximize, differentiable):
    """One parameter's update with ember ops (any dtype, differentiable)."""
    if maximize:
        grad = -grad
    step += 1
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if grad_avg is not None:
        grad_avg.lerp_(grad, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg = avg.add(eps) if differentiable else avg.add_(eps)
    if buf is not None:
        buf.mul_(momentum).addcdiv_(grad, avg)
        param.add_(buf, alpha=-lr)
    else:
        param.addcdiv_(grad, avg, value=-lr)


def _rmsprop_arrays(param, grad, square_avg, grad_avg, buf, step, lr, alpha, eps,
                    weight_decay, momentum, maximize, differentiable):
    """The same update as `_rmsprop_ops`, op for op, as array kernels."""
    xp = param._device.xp
    p, sq = param._data, square_avg._data
    tmp = xp.empty_like(p)
    g = _kernels.gradient(xp, grad, param, maximize, weight_decay)
    _kernels.step_(step)
    sq *= alpha
    _kernels.addcmul_(xp, sq, g, g, 1 - alpha, tmp)
    _kernels.bump(square_avg, square_avg)
    if grad_avg is not None:
        _kernels.lerp_(xp, grad_avg._data, g, 1 - alpha, tmp)
        _kernels.bump(grad_avg)
        avg = xp.multiply(grad_avg._data, -1)
        avg *= grad_avg._data
        avg += sq  # square_avg.addcmul(grad_avg, grad_avg, value=-1)
        xp.sqrt(avg, out=avg)
    else:
        avg = xp.sqrt(sq)
    avg += eps
    if buf is not None:
        b = buf._data
        b *= momentum
        _kernels.addcdiv_(xp, b, g, avg, 1, tmp)
        _kernels.bump(buf, buf)
        _kernels.add_(xp, p, b, -lr, tmp)
    else:
        _kernels.addcdiv_(xp, p, g, avg, -lr, tmp)
    _kernels.bump(param)
