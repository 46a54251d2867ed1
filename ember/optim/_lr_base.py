"""optim._lr_base: the LRScheduler base class and the helpers every schedule shares.

Split from lr_scheduler.py (which re-exports all of it) to keep modules small; the
cyclic schedules in _lr_cyclic.py build on it too.
"""
import warnings
from functools import wraps
from weakref import ref

from .._tensor import Tensor
from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_ORDER_URL = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


# --- helpers: lrs may be floats or 1-element Tensors; Tensors are copied, never aliased ---

def _copy(value):
    return value.clone() if isinstance(value, Tensor) else value


def _format_param(name, optimizer, param):
    """One value per param group: a scalar is repeated, a list must match the groups."""
    groups = len(optimizer.param_groups)
    values = param if isinstance(param, (list, tuple)) else [param] * groups
    if len(values) != groups:
        raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                         f"{name} has {len(values)} values, param_groups has {groups}.")
    return [_copy(value) for value in values]


def _param_groups_val_list(optimizer, key):
    """`group[key]` of every group, Tensors cloned so callers cannot corrupt the optimizer."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def _update_param_group_val(param_group, key, value):
    """Set `param_group[key]`; a Tensor entry is filled in place so it keeps its identity."""
    held = param_group[key]
    if not isinstance(held, Tensor):
        param_group[key] = value
        return
    held.fill_(value.squeeze() if isinstance(value, Tensor) and value.dim() != 0 else value)


def _set_momentum(group, use_beta1, momentum):
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _check_cycle_momentum(optimizer):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in optimizer.defaults


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _mark_optimizer_steps(optimizer):
    """Wrap `optimizer.step` once so a scheduler can tell whether it ran before `step()`.

    The wrapper holds the optimizer weakly (as PyTorch's does), so it creates no cycle.
    """
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    optimizer_ref = ref(optimizer)
    func = optimizer.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        opt = optimizer_ref()
        opt._opt_called = True
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


class _Flagged:
    """Holds one boolean attribute of a scheduler true for the length of a `with` block."""

    __slots__ = ("owner", "attribute")

    def __init__(self, owner, attribute):
        self.owner, self.attribute = owner, attribute

    def __enter__(self):
        setattr(self.owner, self.attribute, True)
        return self

    def __exit__(self, *exc_info):
        setattr(self.owner, self.attribute, False)


def _enable_get_lr_call(scheduler):
    """Marks `get_lr()` calls made by `step()`, which therefore do not warn."""
    return _Flagged(scheduler, "_get_lr_called_within_step")


def _initial_mode(scheduler):
    """Marks the constructor's step, which must not move a resumed schedule forward."""
    return _Flagged(scheduler, "_is_initial")


def _warn_get_lr_called_within_step(scheduler):
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, "
                      "please use `get_last_lr()`.", UserWarning, stacklevel=2)


# --- the base class ---

class LRScheduler:
    """Base of all schedulers: subclasses define `get_lr()`, the lrs of the next epoch.

    Constructing a scheduler records `initial_lr` in every group and takes a first step
    (to epoch 0), which overwrites the groups' lrs.
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run "
                        "(not recommended)")
        self.base_lrs = _param_groups_val_list(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Reset the step count and take the constructor's step."""
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def state_dict(self):
        """Every attribute except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore the attributes saved by `state_dict()`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lrs set by the latest step (copies: changing them changes nothing)."""
        return self._last_lr

    def get_lr(self):
        """The lrs of the current `last_epoch`; called by `step()`, not by users."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch (call it after `optimizer.step()`); `epoch` is deprecated."""
        if self._step_count == 1:
            self._warn_if_out_of_order()
        self._step_count = self._step_count + 1
        if epoch is not None:  # the closed form is used; PyTorch asks users to stop
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _warn_if_out_of_order(self):
        """The first real step checks that `optimizer.step()` ran first (and was not
        replaced after the scheduler wrapped it)."""
        if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
            message = ("Seems like `optimizer.step()` has been overridden after learning rate "
                       "scheduler initialization. Please, make sure to call `optimizer.step()` "
                       f"before `lr_scheduler.step()`. See more details at {_ORDER_URL}")
        elif not getattr(self.optimizer, "_opt_called", False):
            message = ("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                       "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                       "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                       "will result in PyTorch skipping the first value of the learning rate "
                       f"schedule. See more details at {_ORDER_URL}")
        else:
            return
        # stacklevel 3: the user's `scheduler.step()` call, past `step` itself.
        warnings.warn(message, UserWarning, stacklevel=3)

    def _current_lrs(self):
        """The groups' lrs as they are (copies): a chainable schedule's answer on an epoch
        where it changes nothing."""
        return _param_groups_val_list(self.optimizer, "lr")

    def _scaled_lrs(self, factor):
        """Every group's current lr times `factor`: the chainable update."""
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _update_lr(self, epoch=None):
        """Compute the lrs of the next (or the given) epoch and write them to the groups."""
        # An explicit epoch jumps there, through the closed form where a schedule has one.
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        compute = self.get_lr if epoch is None else getattr(self, "_get_closed_form_lr",
                                                            self.get_lr)
        with _enable_get_lr_call(self):
            values = compute()
        self._write_lrs(values)

    def _write_lrs(self, values):
        """Set each group's lr (tensor lrs in place) and remember copies as the last lrs."""
        groups = self.optimizer.param_groups
        for group, lr in zip(groups, values, strict=True):
            _update_param_group_val(group, "lr", lr)
        self._last_lr = [_copy(group["lr"]) for group in groups]


class _LRScheduler(LRScheduler):
    """The pre-1.14 name, kept as a subclass so its `__name__` stays `_LRScheduler`."""
