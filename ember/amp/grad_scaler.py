"""GradScaler: dynamic loss scaling with PyTorch's arithmetic, checks and messages.

One training iteration, per optimizer, moves through three stages:

    READY --unscale_()--> UNSCALED --step()--> STEPPED --update()--> READY (all optimizers)

`scale(loss)` multiplies by the current scale (a float32 0-dim tensor, created on
the first call on the output's device). `unscale_` multiplies every gradient by
the float32 reciprocal of the scale (computed through float64, as PyTorch does)
and records, per device, whether any gradient held an inf or NaN. `step` skips
the optimizer's step when one did. `update` backs the scale off after such a
step, or grows it after `growth_interval` clean steps in a row, all in float32.
Disabled, each method passes its argument through.
"""
import warnings
from enum import Enum

from .. import _dtype
from .._tensor import Tensor
from ..autograd import no_grad
from ..cuda import _init as _cuda_init
from ..ops.creation import full
from ..ops.pointwise_logic import isfinite

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    """Where an optimizer stands in the current iteration."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


class _Iteration:
    """One optimizer's progress this iteration: its stage and its inf flags per device."""
    __slots__ = ("stage", "found_inf")

    def __init__(self):
        self.stage = OptState.READY
        self.found_inf = {}


_NOT_SCALED_YET = ("This may indicate your script did not use scaler.scale(loss or outputs) "
                   "earlier in the iteration.")


class GradScaler:
    """Scale the loss up, the gradients back down, and skip steps whose gradients overflowed."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda" and not _cuda_init.is_available():
            warnings.warn("ember.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if not self._enabled:
            return
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        # Plain numbers until the first scale() creates the tensors on a device.
        self._init_scale = init_scale
        self._init_growth_tracker = 0
        self._scale = None
        self._growth_tracker = None
        self._iterations = {}

    # ------------------------------------------------------------ helpers
    def _iteration(self, optimizer):
        record = self._iterations.get(id(optimizer))
        if record is None:
            record = self._iterations[id(optimizer)] = _Iteration()
        return record

    def _require_scale(self, action):
        """The scale and growth-tracker tensors; AssertionError before the first scale()."""
        for name, held in (("_scale", self._scale), ("_growth_tracker", self._growth_tracker)):
            if held is None:
                raise AssertionError(f"Attempted {action} but {name} is None.  "
                                     + _NOT_SCALED_YET)
        return self._scale, self._growth_tracker

    def _create_state_tensors(self, device):
        self._scale = full((), self._init_scale, dtype=_dtype.float32, device=device)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtype.int32,
                                    device=device)

    def _scaled(self, value):
        if isinstance(value, Tensor):
            if self._scale is None:
                self._create_state_tensors(value.device)
            return value * self._scale.to(device=value.device)
        if isinstance(value, (list, tuple)):
            return type(value)(self._scaled(item) for item in value)
        if hasattr(value, "__iter__"):
            return map(self._scaled, value)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    # ------------------------------------------------------------ the iteration
    def scale(self, outputs):
        """outputs times the current scale (a tensor, or tensors nested in lists and tuples)."""
        return self._scaled(outputs) if self._enabled else outputs

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale, once per step (for clipping between)."""
        if not self._enabled:
            return
        scale, _ = self._require_scale("unscale_")
        record = self._iteration(optimizer)
        if record.stage is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if record.stage is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = scale.double().reciprocal().float()
        record.found_inf = self._unscale_gradients(optimizer, inverse)
        record.stage = OptState.UNSCALED

    def _unscale_gradients(self, optimizer, inverse):
        """Multiply each gradient by inverse; per device, a float32 flag: 1.0 if any was inf/NaN."""
        gradients = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(
                        f"expected param to be ember.Tensor, got {type(param).__name__}")
                if param.grad is None:
                    continue
                if param.grad.dtype is _dtype.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                gradients.append(param.grad)
        flags = {}
        with no_grad():
            for grad in gradients:
                device = grad.device
                if device not in flags:
                    flags[device] = full((), 0.0, dtype=_dtype.float32, device=device)
                if not bool(isfinite(grad).all()):
                    flags[device].fill_(1.0)
                grad.mul_(inverse.to(device))
        return flags  # empty without gradients: step() then refuses, as PyTorch's does

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done), then optimizer.step() only if no gradient was inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_scale("step")
        record = self._iteration(optimizer)
        if record.stage is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if record.stage is OptState.READY:
            self.unscale_(optimizer)
        if not record.found_inf:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        overflowed = any(flag.item() for flag in record.found_inf.values())
        result = None if overflowed else optimizer.step(*args, **kwargs)
        record.stage = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Back off or grow the scale after this iteration's steps (or set it to new_scale)."""
        if not self._enabled:
            return
        scale, tracker = self._require_scale("update")
        if new_scale is None:
            flags = [flag for record in self._iterations.values()
                     for flag in record.found_inf.values()]
            if not flags:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._adjust(scale, tracker, any(flag.item() for flag in flags))
        elif isinstance(new_scale, float):
            scale.fill_(new_scale)
        else:
            if (new_scale.device.type != self._device or new_scale.numel() != 1
                    or new_scale.requires_grad is True):
                raise AssertionError(
                    "new_scale should be a float or a 1-element ember.cuda.FloatTensor or "
                    "ember.FloatTensor with requires_grad=False.")
            scale.copy_(new_scale)
        self._iterations = {}

    def _adjust(self, scale, tracker, overflowed):
        """The growth/backoff rule on the float32 scale and the int32 count of clean steps."""
        if overflowed:
            scale.mul_(self._backoff_factor)
            tracker.fill_(0)
            return
        clean_steps = tracker.item() + 1
        if clean_steps < self._growth_interval:
            tracker.fill_(clean_steps)
            return
        grown = scale * self._growth_factor
        if bool(isfinite(grown)):  # a scale that would overflow stays where it is
            scale.copy_(grown)
        tracker.fill_(0)

    # ------------------------------------------------------------ settings and state
    def get_scale(self):
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_scale = state_dict["scale"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)

    def __getstate__(self):
        """Pickled between iterations only; the tensors travel as plain numbers."""
        state = dict(self.__dict__)
        if not self._enabled:
            return state
        if self._iterations:
            raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                 "of an iteration, or at the end after scaler.update().")
        state.update(_init_scale=self.get_scale(),
                     _init_growth_tracker=self._get_growth_tracker(),
                     _scale=None, _growth_tracker=None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
