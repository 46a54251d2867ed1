"""The Optimizer base class (PyTorch's torch.optim.Optimizer).

An optimizer holds `param_groups` (a list of dicts: the tensors to update and their
hyper-parameters, every default filled in) and `state` (a per-parameter dict of
buffers such as `momentum_buffer` or `exp_avg`). `state_dict` replaces each parameter
by its index so a checkpoint has PyTorch's exact layout and loads in either library.
Subclasses implement `step`; updates run in place under `no_grad` with ember ops.
"""
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

from .._dtype import float32, float64, get_default_dtype
from .._tensor import Tensor
from .._typename import typename as _typename
from ..autograd.grad_mode import state as grad_state
from ..nn.modules._hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Marks a default the user must give (PyTorch's `torch.optim.optimizer.required`)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _use_grad_for_differentiable(step):
    """Run `step` with grad mode set to the optimizer's `differentiable` default.

    An ordinary step must not record the in-place updates (no_grad); a differentiable
    one records them so the update can be backpropagated through.
    """
    def wrapper(self, *args, **kwargs):
        previous = grad_state.enabled
        grad_state.enabled = self.defaults["differentiable"]
        try:
            return step(self, *args, **kwargs)
        finally:
            grad_state.enabled = previous
    wrapper.__name__, wrapper.__qualname__ = step.__name__, step.__qualname__
    wrapper.__doc__ = step.__doc__
    return wrapper


def _get_value(x):
    """A 0-dim step tensor as a Python number (the non-capturable path works on floats)."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A 1-element tensor hyper-parameter squeezed to 0-dim; numbers pass through."""
    return x.squeeze() if isinstance(x, Tensor) and x.dim() != 0 else x


def _get_scalar_dtype(is_fused=None):
    """dtype of the `step` counters: float32, or float64 under a float64 default dtype."""
    if is_fused:
        return float32
    return float64 if get_default_dtype() is float64 else float32


_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def _check_capturable(param, step, supports_xla=True):
    """PyTorch's refusal to run a capturable step on a device that cannot graph-capture."""
    devices = _CAPTURABLE_DEVICES if supports_xla else _CAPTURABLE_DEVICES[:-1]
    kind = param.device.type
    if not (kind == step.device.type and kind in devices):
        raise AssertionError("If capturable=True, params and state_steps must be on supported "
                             f"devices: {devices}.")


def _check_fused_flags(fused, foreach, differentiable):
    """The flag combinations PyTorch refuses once the groups are built."""
    if not fused:
        return
    conflicts = ((differentiable, "`fused` does not support `differentiable`"),
                 (foreach, "`fused` and `foreach` cannot be `True` together."))
    for conflicting, message in conflicts:
        if conflicting:
            raise RuntimeError(message)


def _check_fused_param(param):
    """`fused=True` needs floating-point parameters (ember treats every device as supported)."""
    if not param.is_floating_point():
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           "of supported devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', "
                           f"'privateuseone'] but {param.dtype} and {param.device.type}")


def register_optimizer_step_pre_hook(hook):
    """Register `hook(optimizer, args, kwargs)` to run before every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register `hook(optimizer, args, kwargs)` to run after every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _hooked_step(step):
    """Wrap a subclass's `step` so the step pre/post hooks run around it, once per call."""
    def wrapper(*args, **kwargs):
        # the hooks see args with the optimizer first, (optimizer,) for opt.step(), as in torch
        self = args[0]
        if self.__dict__.get("_in_step"):  # a subclass's step calling super().step()
            return step(*args, **kwargs)
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        self._in_step = True
        try:
            out = step(*args, **kwargs)
        finally:
            self._in_step = False
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out
    wrapper.__name__, wrapper.__qualname__ = step.__name__, step.__qualname__
    wrapper.__doc__ = step.__doc__
    wrapper.hooked = True
    return wrapper


_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
               "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
               "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


class Optimizer:
    """Base class for all optimizers: parameter groups, per-parameter state, checkpoints.

    Args:
        params: an iterable of tensors, of (name, tensor) pairs, or of dicts defining
            parameter groups (each with a "params" entry and optional per-group options).
        defaults: the default value of every option, used where a group gives none.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        given = list(params)
        if not given:
            raise ValueError("optimizer got an empty parameter list")
        # A plain sequence of tensors (or (name, tensor) pairs) makes a single group.
        groups = given if isinstance(given[0], dict) else [{"params": given}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        # One block per group, its options sorted by name; the tensors are left out.
        blocks = []
        for index, group in enumerate(self.param_groups):
            options = "".join(f"    {key}: {group[key]}\n" for key in sorted(group)
                              if key != "params")
            blocks.append(f"\nParameter Group {index}\n{options}")
        return f"{type(self).__name__} ({''.join(blocks)})"

    # ------------------------------------------------------------ param groups
    def add_param_group(self, param_group):
        """Add a group of parameters (with its own options) to `param_groups`.

        Useful for fine-tuning: unfreeze layers and add them as training goes on.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        # Parameters may come as (name, tensor) pairs; the names travel in the group.
        tensors = [item[1] if isinstance(item, tuple) else item for item in params]
        names = [item[0] for item in params if isinstance(item, tuple)]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        self._check_params(tensors)
        for option, default in self.defaults.items():
            if option in param_group:
                continue
            if default is required:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {option}")
            param_group[option] = default
        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not param_set.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _check_params(self, tensors):
        differentiable = self.defaults.get("differentiable", None)
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not differentiable and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

    # ------------------------------------------------------------ gradients and step
    def zero_grad(self, set_to_none=True):
        """Reset the gradients: drop them (the default, cheaper) or fill them with zeros.

        With `set_to_none=True` a parameter that gets no gradient next time is skipped by
        `step`; with zeros it is stepped with a zero gradient (which still moves it under
        momentum or weight decay).
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        raise NotImplementedError

    def _closure_loss(self, closure):
        """Evaluate the closure with grad enabled (step itself runs under no_grad)."""
        if closure is None:
            return None
        previous = grad_state.enabled
        grad_state.enabled = True
        try:
            return closure()
        finally:
            grad_state.enabled = previous

    # ------------------------------------------------------------ hooks
    def _register(self, hooks, hook, prepend=False):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs) -> None or (args, kwargs)` runs before `step`."""
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs after `step`."""
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer)` runs before `state_dict` builds the dict."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict) -> None or state_dict` post-processes `state_dict`."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict) -> None or state_dict` runs before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer)` runs after `load_state_dict`."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------ checkpoints
    def state_dict(self):
        """The optimizer's state in PyTorch's layout: parameters replaced by their index.

        {'state': {0: {...}, 1: {...}}, 'param_groups': [{'lr': ..., 'params': [0, 1]}]}.
        The state tensors are the live buffers, not copies, exactly as in PyTorch.
        """
        _notify(self._optimizer_state_dict_pre_hooks, self)
        index_of = {}
        start = 0
        param_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index_of.setdefault(id(p), i)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            param_groups.append(packed)
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        return _thread(self._optimizer_state_dict_post_hooks, self,
                       {"state": packed_state, "param_groups": param_groups})

    def load_state_dict(self, state_dict):
        """Load a state from `state_dict()` (ember's or PyTorch's, converted tensor by tensor).

        Groups are matched by position; state tensors are copied and cast to their
        parameter's dtype and device (the `step` counter is kept as saved).
        """
        state_dict = _thread(self._optimizer_load_state_dict_pre_hooks, self, state_dict.copy())
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        saved_param_groups = state_dict["param_groups"]
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, k, saved_param_groups)
            else:
                state[k] = v
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        _notify(self._optimizer_load_state_dict_post_hooks, self)


def _notify(hooks, optimizer):
    """Call hooks that only observe the optimizer."""
    for hook in hooks.values():
        hook(optimizer)


def _thread(hooks, optimizer, value):
    """Pass `value` through hooks that may replace it (returning None keeps it)."""
    for hook in hooks.values():
        replaced = hook(optimizer, value)
        if replaced is not None:
            value = replaced
    return value


def _cast(param, value, param_id, param_groups, key=None):
    """Deep-copy a loaded state value, moving tensors to `param`'s device (and float dtype)."""
    if isinstance(value, Tensor):
        return _cast_tensor(param, value, param_id, param_groups, key)
    if isinstance(value, dict):
        return {k: _cast(param, v, param_id, param_groups, k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return type(value)(_cast(param, v, param_id, param_groups) for v in value)
    return value


def _cast_tensor(param, value, param_id, param_groups, key):
    """PyTorch's policy: `step` stays as saved unless fused/capturable (then float32 on the
    param's device); other tensors take a floating param's dtype."""
    if key == "step":
        owner = next((group for group in param_groups if param_id in group["params"]), {})
        beside_param = owner.get("fused", False) or owner.get("capturable", False)
        return value.to(dtype=float32, device=param.device) if beside_param else value
    # Integer or bool parameters leave the state's dtype alone.
    dtype = param.dtype if param.is_floating_point() else value.dtype
    return value.to(dtype=dtype, device=param.device)
