"""Module hooks: removable handles, global hooks and the hooked call path.

`Module.__call__` goes straight to `forward` when no hook is registered; this
module holds the slower path it takes otherwise, written once for all modules.
"""
import warnings
import weakref
from collections import OrderedDict

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import state as grad_state

__all__ = ["RemovableHandle", "register_module_forward_pre_hook", "register_module_forward_hook"]

# Hooks every module runs (PyTorch's `register_module_forward_*_hook`), for debugging.
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


class RemovableHandle:
    """A handle that removes the hook it was returned for (`torch.utils.hooks.RemovableHandle`).

    Hooks live in ordered dicts keyed by the handle's `id`; the handle keeps only
    weak references to those dicts, so it does not keep a dead module alive.
    """

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [] if extra_dict is None else (
            [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict))
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __getstate__(self):
        extras = tuple(ref() for ref in self.extra_dict_ref)
        return (self.hooks_dict_ref(), self.id, extras)

    def __setstate__(self, state):
        hooks, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(OrderedDict() if hooks is None else hooks)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.remove()


def add_hook(registry, hook, prepend=False, flags=()):
    """Put `hook` in `registry` (first if `prepend`) and return its handle.

    `flags` pairs a side table (with_kwargs, always_call) with whether this hook wants
    it; the side tables hold entries only for hooks that asked, and the handle removes
    the hook from all of them.
    """
    flags = tuple(flags)
    handle = RemovableHandle(registry, extra_dict=[table for table, _ in flags])
    registry[handle.id] = hook
    for table, wanted in flags:
        if wanted:
            table[handle.id] = True
    if prepend:
        registry.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook):
    """Run `hook(module, args)` before every module's forward."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Run `hook(module, args, output)` after every module's forward."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_always_called,
                                         _global_forward_hooks_with_kwargs])
    _global_forward_hooks[handle.id] = hook
    # The flag tables hold an entry only for hooks that asked for the behaviour.
    for wanted, flags in ((with_kwargs, _global_forward_hooks_with_kwargs),
                          (always_call, _global_forward_hooks_always_called)):
        if wanted:
            flags[handle.id] = True
    return handle


class WithModule:
    """A load_state_dict pre-hook bound weakly to its module (PyTorch's _WrappedHook)."""

    def __init__(self, hook, module):
        self.hook = hook
        self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)

    def __getstate__(self):
        return {"hook": self.hook, "module": self.module()}

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.module = weakref.ref(state["module"])


def call_with_hooks(module, args, kwargs):
    """`module(*args, **kwargs)` with forward (pre-)hooks and full backward hooks, as PyTorch."""
    called_always = set()
    result = None
    try:
        args, kwargs = _run_pre_hooks(module, args, kwargs)
        backward_hook = None
        if module._backward_hooks or module._backward_pre_hooks:
            backward_hook = _BackwardHook(module, list(module._backward_hooks.values()),
                                          list(module._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
            if (hook_id in module._forward_hooks_always_called
                    or hook_id in _global_forward_hooks_always_called):
                called_always.add(hook_id)
            if (hook_id in module._forward_hooks_with_kwargs
                    or hook_id in _global_forward_hooks_with_kwargs):
                new = hook(module, args, kwargs, result)
            else:
                new = hook(module, args, result)
            if new is not None:
                result = new
        if backward_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=3)
            result = backward_hook.setup_output_hook(result)
        return result
    except Exception:
        _run_always_called_hooks(module, args, kwargs, result, called_always)
        raise


def _run_pre_hooks(module, args, kwargs):
    """Forward pre-hooks, global ones first; each may replace the arguments."""
    for hook_id, hook in (*_global_forward_pre_hooks.items(), *module._forward_pre_hooks.items()):
        if hook_id in module._forward_pre_hooks_with_kwargs:
            new = hook(module, args, kwargs)
            if new is not None:
                if isinstance(new, tuple) and len(new) == 2:
                    args, kwargs = new
                else:
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {new}.")
        else:
            new = hook(module, args)
            if new is not None:
                args = new if isinstance(new, tuple) else (new,)
    return args, kwargs


def _run_always_called_hooks(module, args, kwargs, result, called):
    """After forward raised: the `always_call=True` hooks that have not run yet."""
    for hook_id, hook in _global_forward_hooks.items():
        if hook_id in _global_forward_hooks_always_called and hook_id not in called:
            try:
                new = hook(module, args, result)
                if new is not None:
                    result = new
            except Exception as e:  # noqa: BLE001
                warnings.warn("global module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {str(e)}", stacklevel=3)
    for hook_id, hook in module._forward_hooks.items():
        if hook_id in module._forward_hooks_always_called and hook_id not in called:
            try:
                if hook_id in module._forward_hooks_with_kwargs:
                    new = hook(module, args, kwargs, result)
                else:
                    new = hook(module, args, result)
                if new is not None:
                    result = new
            except Exception as e:  # noqa: BLE001
                warnings.warn("module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {str(e)}", stacklevel=3)


# ---------------------------------------------------------------- full backward hooks
class BackwardHookFunction(Function):
    """Identity on tensors; its backward is where a module's backward hooks run.

    PyTorch wraps a hooked module's inputs and outputs in the same identity
    function (its node prints as `BackwardHookFunctionBackward`). The first
    argument is the `_BackwardHook` state; it gets no gradient.
    """

    @staticmethod
    def forward(ctx, state, is_output, *tensors):
        ctx.state, ctx.is_output = state, is_output
        # As PyTorch: hooks see None (not zeros) for outputs no gradient reached.
        ctx.set_materialize_grads(not is_output)
        outputs = tuple(t.detach() for t in tensors)
        ctx.mark_non_differentiable(*[o for o, t in zip(outputs, tensors)
                                      if not t.requires_grad])
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        if ctx.is_output:
            grads = ctx.state.output_backward(grads)
        else:
            grads = ctx.state.input_backward(grads)
        return (None, None) + tuple(grads)


class _BackwardHook:
    """One hooked call: collects grad_output at the outputs, runs the hooks at the inputs."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = 0
        self.input_index = self.output_index = None

    def _wrap(self, values, is_output):
        """Pass the tensors among `values` through the identity function; (values, positions)."""
        index = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        if not (grad_state.enabled and any(values[i].requires_grad for i in index)):
            return values, None
        wrapped = BackwardHookFunction.apply(self, is_output, *[values[i] for i in index])
        values = list(values)
        for position, tensor in zip(index, wrapped):
            values[position] = tensor
        return tuple(values), index

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        args, self.input_index = self._wrap(args, False)
        return args

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        values = (result,) if single else result
        if not isinstance(values, tuple):
            return result
        self.n_outputs = len(values)
        values, self.output_index = self._wrap(values, True)
        return values[0] if single else values

    @staticmethod
    def _pack(index, grads, size):
        packed = [None] * size
        for position, grad in zip(index, grads):
            packed[position] = grad
        return tuple(packed)

    def output_backward(self, grads):
        """Gradients reaching the module's outputs: run pre-hooks, keep them for the hooks."""
        self.grad_outputs = self._pack(self.output_index, grads, self.n_outputs)
        for hook in self.pre_hooks:
            replaced = hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(replaced)}, but expected "
                                   f"{len(self.grad_outputs)}")
            self.grad_outputs = tuple(replaced)
        grad_outputs = self.grad_outputs
        if self.input_index is None:  # no input needs a gradient: call the hooks now
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(g is None for g in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def input_backward(self, grads):
        """Gradients reaching the module's inputs: the hooks see and may replace them."""
        if self.grad_outputs is None:  # reached without passing the outputs (double backward)
            return grads
        grad_inputs = self._pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            replaced = hook(self.module, grad_inputs, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(grad_inputs):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(replaced)}, but expected {len(grad_inputs)}")
            grad_inputs = tuple(replaced)
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_index)
