"""optim._lr_cyclic: schedules that cycle the lr (and the momentum) within bounds.

CyclicLR, OneCycleLR and CosineAnnealingWarmRestarts recompute the lr from their bounds
at every step (they are not chainable), and the first two move the optimizer's momentum
(or Adam's beta1) opposite to the lr. Re-exported by lr_scheduler.py.
"""
import math
import types
from functools import partial

from ._lr_base import (LRScheduler, _check_cycle_momentum, _check_optimizer,
                       _enable_get_lr_call, _format_param,
                       _set_momentum, _update_param_group_val, _warn_get_lr_called_within_step)

__all__ = ["CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts"]


class CyclicLR(LRScheduler):
    """Cycle the lr between `base_lr` and `max_lr` (Smith's cyclical learning rates).

    Each cycle rises for `step_size_up` steps and falls for `step_size_down`; the
    amplitude is scaled by the `mode` policy or a custom `scale_fn`.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        fresh = last_epoch == -1
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if fresh:  # a new schedule starts every group at its lower bound
            for group, lr in zip(groups, base_lrs, strict=True):
                _update_param_group_val(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        rise = float(step_size_up)
        fall = rise if step_size_down is None else float(step_size_down)
        self.total_size = rise + fall
        self.step_ratio = rise / self.total_size
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom, self.scale_mode = scale_fn, scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_cycle_momentum(optimizer)
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if fresh:
                _momentum_at_top(groups, self.use_beta1, self.base_momentums,
                                 self.max_momentums)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        """Pick the built-in scale policy; it fixes `scale_mode` as PyTorch does. Kept out
        of the state dict (a bound method) and rebuilt on load."""
        if self._scale_fn_custom is not None:
            return
        if self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"
        elif self.mode in ("triangular", "triangular2"):
            self._scale_fn_ref = getattr(self, f"_{self.mode}_scale_fn")
            self.scale_mode = "cycle"

    def scale_fn(self, x):
        """The amplitude scale at cycle (or iteration) `x`."""
        custom = self._scale_fn_custom
        return (self._scale_fn_ref if custom is None else custom)(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))  # the amplitude halves each cycle

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        """The lrs at batch `last_epoch`; also sets the cycled momentum as a side effect."""
        _warn_get_lr_called_within_step(self)
        progress = self.last_epoch / self.total_size
        cycle = math.floor(1 + progress)
        x = 1.0 + progress - cycle  # position within the current cycle, in [0, 1)
        ratio = self.step_ratio
        height = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        # scale_fn is called once per value, as PyTorch does: a stateful one sees the same calls
        lrs = [low + (high - low) * height * self.scale_fn(at)
               for low, high in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            momentums = [high - (high - low) * height * self.scale_fn(at)
                         for low, high in zip(self.base_momentums, self.max_momentums,
                                              strict=True)]
            for group, momentum in zip(self.optimizer.param_groups, momentums, strict=True):
                _set_momentum(group, self.use_beta1, momentum)
        return lrs

    def state_dict(self):
        """Attributes as the base class, minus the bound scale function (not picklable);
        a custom `scale_fn` keeps its `__dict__` if it is a callable object."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        custom = state.pop("_scale_fn_custom")
        savable = custom is not None and not isinstance(custom, types.FunctionType)
        state["_scale_fn_custom"] = custom.__dict__.copy() if savable else None
        return state

    def load_state_dict(self, state_dict):
        saved_attributes = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if saved_attributes is not None:
            self._scale_fn_custom.__dict__.update(saved_attributes)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial lr to `eta_min`, restarting every T_i epochs (SGDR).

    The first period is `T_0`; each restart multiplies it by `T_mult`. `step(epoch)` may take
    a fractional epoch (to anneal within an epoch) and gives no deprecation warning.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not (T_0 > 0 and isinstance(T_0, int)):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not (T_mult >= 1 and isinstance(T_mult, int)):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = self.T_i = T_0  # T_i: the current period
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch  # epochs since the last restart
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        phase = math.pi * self.T_cur / self.T_i
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(phase)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or jump to `epoch` (which may be fractional)."""
        if epoch is None and self.last_epoch >= 0:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:  # a restart: the period grows by T_mult
                self.T_cur, self.T_i = self.T_cur % self.T_i, self.T_i * self.T_mult
        else:
            epoch = 0 if epoch is None else epoch  # the constructor's step starts at 0
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._jump_to(epoch)
        self.last_epoch = math.floor(epoch)
        with _enable_get_lr_call(self):
            lrs = self.get_lr()
        self._write_lrs(lrs)

    def _jump_to(self, epoch):
        """Set T_cur and T_i for an arbitrary epoch: the restart it falls after is found by
        summing the geometric series of periods."""
        first, growth = self.T_0, self.T_mult
        if epoch < first:
            self.T_i, self.T_cur = first, epoch
        elif growth == 1:
            self.T_cur = epoch % first
        else:
            restarts = int(math.log((epoch / first * (growth - 1) + 1), growth))
            self.T_cur = epoch - first * (growth ** restarts - 1) / (growth - 1)
            self.T_i = first * growth ** restarts


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to `max_lr`, then anneal far below the initial lr.

    Two phases by default (fastai's), three with `three_phase=True` (the paper's); the
    momentum (or beta1) moves opposite to the lr. Step it once per batch.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _one_cycle_phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(self.optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            self.use_beta1 = _check_cycle_momentum(self.optimizer)
            highs = _format_param("max_momentum", optimizer, max_momentum)
            lows = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                _momentum_at_top(optimizer.param_groups, self.use_beta1, lows, highs)
        super().__init__(optimizer, last_epoch)

    # The annealing curves by name; the name (not the bound method) is what a checkpoint holds.
    _ANNEALERS = {"cos": "_annealing_cos", "linear": "_annealing_linear"}

    def _anneal_func(self, *args, **kwargs):
        if not hasattr(self, "_anneal_func_type"):
            return self.anneal_func(*args, **kwargs)   # schedulers pickled by old PyTorch
        method = self._ANNEALERS.get(self._anneal_func_type)
        if method is None:
            raise ValueError(f"Unknown _anneal_func_type: {self._anneal_func_type}")
        return getattr(self, method)(*args, **kwargs)

    @staticmethod
    def _annealing_cos(start, end, pct):
        """Half a cosine from `start` (pct 0.0) down or up to `end` (pct 1.0)."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        """A straight line from `start` (pct 0.0) to `end` (pct 1.0)."""
        return start + (end - start) * pct

    def get_lr(self):
        """The lrs at batch `last_epoch`; also sets the annealed momentum as a side effect."""
        _warn_get_lr_called_within_step(self)
        now = self.last_epoch
        if now > self.total_steps:
            raise ValueError(f"Tried to step {now} times. The specified number of total "
                             f"steps is {self.total_steps}")
        # The phase `now` falls in (the last one takes any overshoot), and how far into it.
        phases = self._schedule_phases
        begin = 0.0
        for phase in phases[:-1]:
            if now <= phase["end_step"]:
                break
            begin = phase["end_step"]
        else:
            phase = phases[-1]
        pct = (now - begin) / (phase["end_step"] - begin)
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, self._anneal_func(
                    group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
        return lrs


def _momentum_at_top(groups, use_beta1, lows, highs):
    """A fresh cyclic schedule starts the momentum at its top, opposite to the lr, and
    records both bounds in each group (where `get_lr` reads them)."""
    for group, low, high in zip(groups, lows, highs, strict=True):
        _set_momentum(group, use_beta1, high)
        group.update(max_momentum=high, base_momentum=low)


def _total_steps(total_steps, epochs, steps_per_epoch):
    """OneCycleLR's cycle length: `total_steps`, or else `epochs * steps_per_epoch`."""
    if total_steps is not None:
        if not (total_steps > 0 and isinstance(total_steps, int)):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not (isinstance(epochs, int) and epochs > 0):
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not (isinstance(steps_per_epoch, int) and steps_per_epoch > 0):
            raise ValueError(
                f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


def _one_cycle_phases(pct_start, total_steps, three_phase):
    """The phases of a 1cycle schedule: where each ends and which group keys it runs between."""
    warmup = _phase(float(pct_start * total_steps) - 1, "initial_lr", "max_lr",
                    "max_momentum", "base_momentum")
    if three_phase:
        return [warmup,
                _phase(float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
    return [warmup,
            _phase(total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
