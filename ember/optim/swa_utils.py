"""Stochastic weight averaging and exponential moving averages of a model's weights.

`AveragedModel` keeps a copy of a model whose parameters (and optionally buffers) are a
running average of the trained model's: equal weights by default (SWA), or any rule
given as `avg_fn` / `multi_avg_fn` (e.g. `get_ema_multi_avg_fn` for an EMA). `SWALR`
anneals each group's lr to a constant `swa_lr`; `update_bn` recomputes BatchNorm
statistics for the averaged weights with one pass over the data. PyTorch's arithmetic:
on the CPU the default average is `avg + (p - avg) / (n + 1)` with `n` a long tensor.
"""
import itertools
import math
from copy import deepcopy

from .._dtype import int64
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..ops.creation import tensor
from .._tensor import Tensor
from ._lr_base import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA over lists of tensors: ema <- decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place equal-weight running average over lists of tensors."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model - p_avg
                if isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An EMA of one tensor, returned (not in place): decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """An equal-weight running average of one tensor, returned (not in place)."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _group_by_device_and_dtype(averaged, current):
    """Pairs of lists per (device, dtype), in order of first appearance (PyTorch's grouping
    so that a `multi_avg_fn` sees tensors it can update together)."""
    groups = {}
    for p_averaged, p_model in zip(averaged, current):
        lists = groups.setdefault((p_averaged.device, p_averaged.dtype), ([], []))
        lists[0].append(p_averaged)
        lists[1].append(p_model)
    return groups


class AveragedModel(Module):
    """A copy of `model` whose weights are the running average of `model`'s weights.

    Args:
        model: the module to average.
        device: where to keep the averaged copy (default: where `model` is).
        avg_fn: `avg_fn(averaged, current, n_averaged) -> new averaged`, one tensor.
        multi_avg_fn: `multi_avg_fn(averaged_list, current_list, n_averaged)`, in place.
        use_buffers: average the buffers too (otherwise they are copied from `model`).
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold `model`'s current weights into the average (the first call copies them)."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        self_detached, model_detached = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            self_detached.append(p_averaged.detach())
            model_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            self._average(self_detached, model_detached)
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1

    def _average(self, self_detached, model_detached):
        if self.multi_avg_fn is not None or self.avg_fn is None:
            groups = _group_by_device_and_dtype(self_detached, model_detached)
            for (device, _), (self_params, model_params) in groups.items():
                n_averaged = self.n_averaged.to(device)
                if self.multi_avg_fn:
                    self.multi_avg_fn(self_params, model_params, n_averaged)
                else:
                    # PyTorch's CPU path: the one-tensor average, copied back.
                    avg_fn = get_swa_avg_fn()
                    for p_averaged, p_model in zip(self_params, model_params, strict=True):
                        p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
        else:
            for p_averaged, p_model in zip(self_detached, model_detached, strict=True):
                n_averaged = self.n_averaged.to(p_averaged.device)
                p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model,
                                                      n_averaged))


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics with one pass over `loader`.

    Each batch is a tensor or a list/tuple whose first element is the input. The
    statistics become a plain cumulative average (momentum None) over the pass.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to `swa_lr` over `anneal_epochs` epochs, then hold it.

    Args:
        optimizer: the wrapped optimizer.
        swa_lr: the target lr, one for all groups or a list with one per group.
        anneal_epochs: epochs of the annealing phase (default: 10).
        anneal_strategy: "cos" or "linear" (default: "cos").
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The lrs of the current epoch, interpolated from each group's current lr."""
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self):
        """Every attribute except the optimizer and the annealing function."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Restore the attributes saved by `state_dict()`."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
