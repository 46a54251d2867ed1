"""optim.swa_utils: weight averaging (SWA, Izmailov et al.; EMA) and its helpers.

`AveragedModel` holds a deep copy of a model whose parameters (and, with
`use_buffers`, buffers) are folded towards the live model's after each
`update_parameters` call: an equal-weight running mean by default (SWA), or any rule
given as `avg_fn(averaged, current, n)` per tensor or `multi_avg_fn(averaged_list,
current_list, n)` per device and dtype group. `SWALR` anneals each group's lr to its
`swa_lr` and holds it there; `update_bn` recomputes BatchNorm statistics for the
averaged weights with one pass over the data (cumulative averages, momentum None).
"""
import math
from copy import deepcopy
from itertools import chain

from .._dtype import long
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..ops.creation import tensor
from ._lr_base import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """A `multi_avg_fn` for an exponential moving average: avg <- lerp(avg, current, 1 - decay)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            for averaged, current in zip(ema_param_list, current_param_list):
                averaged.lerp_(current, 1 - decay)
        else:
            # integer buffers: blend in floating point, then cast back on copy
            for averaged, current in zip(ema_param_list, current_param_list):
                averaged.copy_(averaged * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """A `multi_avg_fn` for the equal-weight running mean over the n models seen so far."""
    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            weight = 1 / (num_averaged + 1)
            for averaged, current in zip(averaged_param_list, current_param_list):
                averaged.lerp_(current, weight)
            return
        for averaged, current in zip(averaged_param_list, current_param_list):
            difference = current - averaged
            if hasattr(num_averaged, "dim"):
                averaged.addcdiv_(difference, num_averaged + 1)
            else:
                averaged.add_(difference, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An `avg_fn` for an exponential moving average, one tensor at a time."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """An `avg_fn` for the equal-weight running mean, one tensor at a time."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A running average of a model's weights, itself a Module that runs the averaged copy.

    Args:
        model: the model to average (deep-copied; the copy is `self.module`).
        device: where to keep the averaged copy (default: where the model is).
        avg_fn: `avg_fn(averaged, current, n_averaged)` returning the new average of one
            tensor (default: the equal-weight mean).
        multi_avg_fn: the same, updating lists of tensors in place.
        use_buffers: average the buffers too (else they are copied from the model).
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model):
        if self.use_buffers:
            return (chain(self.module.parameters(), self.module.buffers()),
                    chain(model.parameters(), model.buffers()))
        return self.parameters(), model.parameters()

    def update_parameters(self, model):
        """Fold `model`'s current weights into the average (the first call copies them)."""
        ours, theirs = self._averaged_tensors(model)
        pairs = []
        for averaged, current in zip(ours, theirs):
            averaged = averaged.detach()
            current = current.detach().to(averaged.device)
            pairs.append((averaged, current))
            if self.n_averaged == 0:
                averaged.copy_(current)
        if self.n_averaged > 0:
            self._fold(pairs)
        if not self.use_buffers:
            # the buffers follow the live model (update_bn recomputes BatchNorm's later)
            for mine, source in zip(self.module.buffers(), model.buffers()):
                mine.detach().copy_(source.detach().to(mine.device))
        self.n_averaged += 1

    def _fold(self, pairs):
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for averaged, current in pairs:
                count = self.n_averaged.to(averaged.device)
                averaged.copy_(self.avg_fn(averaged, current, count))
            return
        groups = {}
        for averaged, current in pairs:
            lists = groups.setdefault((averaged.device, averaged.dtype), ([], []))
            lists[0].append(averaged)
            lists[1].append(current)
        for (device, _), (averaged_list, current_list) in groups.items():
            count = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged_list, current_list, count)
            else:
                # ember has no fused multi-tensor kernels: the per-tensor mean on every device
                swa = get_swa_avg_fn()
                for averaged, current in zip(averaged_list, current_list):
                    averaged.copy_(swa(averaged, current, count))


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute every BatchNorm's running statistics with one pass over `loader`.

    The averaged weights never produced the running means and variances they inherited,
    so they are reset and re-estimated as cumulative averages (momentum None). A batch
    that is a list or tuple contributes its first element.
    """
    norms = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    if not norms:
        return
    saved_momenta = [m.momentum for m in norms]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
    was_training = model.training
    model.train()
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        model(batch if device is None else batch.to(device))
    for norm, momentum in zip(norms, saved_momenta):
        norm.momentum = momentum
    model.train(was_training)


def _linear(t):
    return t


def _cosine(t):
    return (1 - math.cos(math.pi * t)) / 2


def _unmix(lr, swa_lr, weight):
    """The lr that mixing with `swa_lr` at `weight` turned into `lr` (swa_lr itself
    when the weight was 1)."""
    return swa_lr if weight == 1 else (lr - weight * swa_lr) / (1 - weight)


class SWALR(LRScheduler):
    """Anneal each group's lr from its current value to `swa_lr` over `anneal_epochs`
    epochs (cosine or linear), then hold it at `swa_lr`.

    Args:
        optimizer: the wrapped optimizer.
        swa_lr: the target lr, one for all groups or one per group.
        anneal_epochs: epochs of the annealing phase (default: 10).
        anneal_strategy: "cos" (default) or "linear".
        last_epoch: the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for value, group in zip(_format_param("swa_lr", optimizer, swa_lr),
                                optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    _linear_anneal = staticmethod(_linear)
    _cosine_anneal = staticmethod(_cosine)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def get_lr(self):
        """Recover the pre-annealing lr from the current one (so an lr changed by hand
        is respected), then mix in swa_lr by the annealing weight of this epoch."""
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        before = self.anneal_func(max(0, min(1, (step - 1) / span)))
        now = self.anneal_func(max(0, min(1, step / span)))
        groups = self.optimizer.param_groups
        starts = [_unmix(g["lr"], g["swa_lr"], before) for g in groups]
        return [g["swa_lr"] * now + lr * (1 - now) for g, lr in zip(groups, starts)]

    def state_dict(self):
        """Every attribute except the optimizer and the annealing function (a method is
        restored from `_anneal_strategy` on load)."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
