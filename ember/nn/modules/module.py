"""nn.Module: the base class of every layer and model, with PyTorch's exact behaviour.

A Module keeps its state in three ordered dicts filled by `__setattr__`:
`_parameters` (Parameters), `_buffers` (tensors registered with `register_buffer`
or assigned as `nn.Buffer`) and `_modules` (child Modules). Everything else
(iterators, state_dict, dtype/device conversion, train/eval, repr) walks those
dicts, so a model is a tree whose names are its attribute paths.

Calling a module runs its forward pre-hooks, `forward`, then its forward hooks;
without hooks, `__call__` is a single check and the call to `forward`.
"""
from collections import OrderedDict

from ... import _diagnose
from ..._tensor import Tensor
from ..._meta import NO_DATA as _META_NO_DATA
from ..._typename import typename
from ...autograd.grad_mode import no_grad
from ...ops.conversion import _parse_to
from ..parameter import Buffer, Parameter, _buffer_persistent
from . import _hooks, _state_dict
from ._hooks import RemovableHandle
from ._state_dict import _IncompatibleKeys  # noqa: F401 - PyTorch's home for it

__all__ = ["Module"]

# Hook registries created empty by Module.__init__ after the backward ones (same order).
_LATER_HOOK_DICTS = ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
                     "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks")


def _addindent(text, spaces):
    """Indent every line but the first (how a child's repr nests in its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    rest = [(spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


def _forward_unimplemented(self, *input):
    """The default forward: every subclass must define its own."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')



def _store_options(module, **options):
    """Keep a layer's constructor options as plain attributes, in one step.

    Options are hyper-parameters (sizes, flags, numbers), never tensors or modules, so
    they skip Module.__setattr__'s registry checks; extra_repr and pickles read them.
    """
    vars(module).update(options)

class Module:
    """Base class for all neural network modules; subclass it and define `forward`.

    Assigning a Parameter, a Module or an `nn.Buffer` to an attribute registers it;
    `register_buffer` adds state that is not a parameter (running statistics).
    """

    dump_patches = False
    _version = 1  # stored in state_dict metadata, for backward-compatible loading
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        # Written straight into __dict__: our __setattr__ needs these to exist already.
        vars(self).update(training=True, _parameters={}, _buffers={},
                          _non_persistent_buffers_set=set(),
                          _backward_pre_hooks=OrderedDict(), _backward_hooks=OrderedDict(),
                          _is_full_backward_hook=None)
        vars(self).update((name, OrderedDict()) for name in _LATER_HOOK_DICTS)
        vars(self)["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ================================================================ registration
    def _check_new_member(self, kind, name, registry):
        """PyTorch's checks, in its order, on a name about to go into `registry`."""
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        for bad, complaint in (("." in name, 'can\'t contain "."'),
                               (name == "", 'can\'t be empty string ""')):
            if bad:
                raise KeyError(f"{kind} name {complaint}")
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (saved in state_dict if persistent)."""
        self._check_new_member("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(ember Tensor or None required)")
        self._buffers[name] = tensor
        skipped = self._non_persistent_buffers_set
        if persistent:
            skipped.discard(name)
        else:
            skipped.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (or None, a declared but absent parameter such as a missing bias)."""
        self._check_new_member("parameter", name, "_parameters")
        # None declares a slot (a layer without bias); anything else must be a leaf Parameter.
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{typename(param)}' object to parameter "
                                f"'{name}' (ember.nn.Parameter or None required)")
            if param.grad_fn:
                raise ValueError(
                    f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                    f"must be created explicitly. To express '{name}' as a function of another "
                    "Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module, reachable as the attribute `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path `target` ('' is self)."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless strict, add) the submodule at the dotted path `target`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        atoms = target.split(".")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            if not isinstance(getattr(parent, atoms[-1]), Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def _owner_and_name(self, target):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        return module, name

    def get_parameter(self, target):
        """The parameter at the dotted path `target`."""
        module, name = self._owner_and_name(target)
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path `target`."""
        module, name = self._owner_and_name(target)
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    def get_extra_state(self):
        """Extra picklable state for state_dict; override together with `set_extra_state`."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        """Restore what `get_extra_state` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    # ================================================================ attribute protocol
    def __getattr__(self, name):
        # Only reached when normal lookup fails: parameters, buffers and children.
        state = self.__dict__
        if "_parameters" in state:
            parameters = state["_parameters"]
            if name in parameters:
                return parameters[name]
        if "_buffers" in state:
            buffers = state["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in state:
            modules = state["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        state = self.__dict__
        params = state.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, state, self._buffers, self._modules,
                         self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(ember.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = state.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(name, state, self._parameters, self._buffers,
                         self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(ember.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = state.get("_buffers")
        if buffers is not None and name in buffers or isinstance(value, Buffer):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(ember.nn.Buffer, ember.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = _buffer_persistent(value)
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)   # a no-op unless a buffer
                return
        super().__delattr__(name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())

    def __getstate__(self):
        # torch.compile's cached wrapper is never pickled; ember has none, but a loaded
        # PyTorch-era attribute of that name is dropped all the same.
        return {key: value for key, value in vars(self).items()
                if key != "_compiled_call_impl"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Pickles from older versions may lack some bookkeeping: give it its empty value.
        missing = [name for name in _LATER_HOOK_DICTS + ("_backward_pre_hooks",)
                   if name not in self.__dict__]
        vars(self).update((name, OrderedDict()) for name in missing)
        vars(self).setdefault("_non_persistent_buffers_set", set())
        vars(self).setdefault("_is_full_backward_hook", None)

    # ================================================================ calling
    def __call__(self, *args, **kwargs):
        try:  # free when nothing raises (zero-cost try); the except names the failing layer
            if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                    or self._backward_pre_hooks or _global_forward_hooks
                    or _global_forward_pre_hooks):
                return self.forward(*args, **kwargs)
            return _hooks.call_with_hooks(self, args, kwargs)
        except Exception as error:
            _diagnose.in_module(error, self, args)
            raise

    _call_impl = __call__

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Run `hook(module, args)` (or `hook(module, args, kwargs)`) before forward.

        The hook may return replacement args (a single value is wrapped in a tuple),
        or with `with_kwargs=True` a tuple `(args, kwargs)`.
        """
        flags = ((self._forward_pre_hooks_with_kwargs, with_kwargs),)
        return _hooks.add_hook(self._forward_pre_hooks, hook, prepend, flags)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Run `hook(module, args, output)` after forward; a non-None return replaces output.

        With `always_call=True` the hook also runs when forward raises.
        """
        flags = ((self._forward_hooks_with_kwargs, with_kwargs),
                 (self._forward_hooks_always_called, always_call))
        return _hooks.add_hook(self._forward_hooks, hook, prepend, flags)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Run `hook(module, grad_output)` when gradients reach the module's outputs.

        It may return a replacement tuple for `grad_output`.
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """Run `hook(module, grad_input, grad_output)` when the inputs' gradients are known.

        `grad_input` holds one entry per positional input (None for non-tensors and
        inputs that need no gradient); the hook may return a replacement tuple.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    # ================================================================ iterators
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield module_prefix + ("." if module_prefix else "") + name, value

    def parameters(self, recurse=True):
        """The parameters of this module (and, with recurse, of its descendants), once each."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """`(dotted name, parameter)` pairs, in registration order, depth first."""
        yield from self._named_members(lambda module: module._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """`(dotted name, buffer)` pairs, persistent or not."""
        yield from self._named_members(lambda module: module._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """The immediate children, each module once."""
        seen = set()
        for name, child in self._modules.items():
            if child is None or child in seen:
                continue
            seen.add(child)
            yield name, child

    def modules(self, remove_duplicate=True):
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """`(dotted name, module)` for self and every descendant, pre-order."""
        seen = set() if memo is None else memo
        if self in seen:
            return
        if remove_duplicate:
            seen.add(self)
        yield prefix, self
        dot = "." if prefix else ""
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(seen, f"{prefix}{dot}{name}", remove_duplicate)

    # ================================================================ modes and grads
    def train(self, mode=True):
        """Set training mode (Dropout, BatchNorm...) here and in every descendant."""
        if type(mode) is not bool:
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        # Each child's own train() runs, so subclasses that override it see the switch.
        for _, child in self.named_children():
            child.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's grad: to None (default) or to zeros in place."""
        for param in self.parameters():
            grad = param.grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn):
        """Call `fn` on every descendant (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ================================================================ conversion
    def _apply(self, fn, recurse=True):
        """Convert parameters and buffers with `fn`, keeping each Parameter object.

        As PyTorch (without swap_tensors): `param.data = fn(param)`, so optimizers
        holding the parameter see the converted values; grads are converted too.
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param.data = param_applied
            grad = param._grad
            if grad is not None:
                with no_grad():
                    grad.data = fn(grad)
        buffers = self._buffers
        for key, buf in buffers.items():
            if buf is not None:
                buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers (integer tensors keep their dtype)."""
        dtype, device, _ = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        memory_format = kwargs.get("memory_format")

        def convert(t):
            # a memory format applies to the 4-d and 5-d tensors only, as in PyTorch
            options = {"memory_format": memory_format} if (
                memory_format is not None and t.dim() in (4, 5)) else {}
            try:
                return t.to(device=device, dtype=dtype if t.is_floating_point() else None,
                            **options)
            except NotImplementedError as error:
                if str(error) == _META_NO_DATA:  # PyTorch's Module.to says what to use instead
                    raise NotImplementedError(
                        f"{error} Please use ember.nn.Module.to_empty() instead of "
                        "ember.nn.Module.to() when moving module from meta to a different "
                        "device.") from None
                raise
        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        """Cast every parameter and buffer (integers included) to `dst_type`."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse=True):
        """Move to `device` with uninitialised memory (values are not copied)."""
        from ...ops.creation import empty_like  # noqa: PLC0415 - rare
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    # ================================================================ state dict
    def register_state_dict_pre_hook(self, hook):
        """Run `hook(module, prefix, keep_vars)` before this module's state_dict is built."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """Run `hook(module, state_dict, prefix, local_metadata)` after; it must return None."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """Run `hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected,
        error_msgs)` before this module loads its part of a state_dict."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (_hooks.WithModule(hook, self) if with_module
                                                      else hook)
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """Run `hook(module, incompatible_keys)` after load_state_dict visited this module."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own parameters and persistent buffers (not its children's)."""
        _state_dict.save_own(self, destination, prefix, keep_vars,
                             type(self).get_extra_state is not Module.get_extra_state)

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict `{dotted name: tensor}` of parameters and persistent buffers.

        The tensors are detached aliases sharing memory with the module's (or the
        Parameters themselves with `keep_vars=True`).
        """
        return _state_dict.state_dict(self, args, destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own entries from `state_dict`, collecting PyTorch's messages."""
        _state_dict.load_own(self, state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs,
                             type(self).set_extra_state is not Module.set_extra_state)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from `state_dict` in place (or assign them).

        Returns `_IncompatibleKeys(missing_keys, unexpected_keys)`; with `strict`
        any mismatch raises PyTorch's "Error(s) in loading state_dict" RuntimeError.
        """
        return _state_dict.load_state_dict(self, state_dict, strict, assign)

    # ================================================================ printing
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The text inside this module's parentheses in its repr (one or more lines)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _remove_from(name, *dicts_or_sets):
    for container in dicts_or_sets:
        if name in container:
            if isinstance(container, dict):
                del container[name]
            else:
                container.discard(name)


# The global-hook registries (shared dicts, so registering a hook is seen here).
_global_forward_pre_hooks = _hooks._global_forward_pre_hooks
_global_forward_hooks = _hooks._global_forward_hooks
register_module_forward_pre_hook = _hooks.register_module_forward_pre_hook
register_module_forward_hook = _hooks.register_module_forward_hook
