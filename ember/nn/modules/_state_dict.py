"""state_dict and load_state_dict: a module tree's tensors by dotted name, and back.

`Module.state_dict` / `load_state_dict` are doors into these functions; what a
single module saves or loads stays in its overridable `_save_to_state_dict` /
`_load_from_state_dict` methods (lazy modules override them), which these call.
"""
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, is_lazy

EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns; prints as PyTorch's when every key matched."""

    __slots__ = ()

    def __repr__(self):
        if self.missing_keys or self.unexpected_keys:
            return super().__repr__()
        return "<All keys matched successfully>"

    __str__ = __repr__


# state_dict(destination, prefix, keep_vars) may still come positionally (deprecated); each
# positional value is taken only where the keyword was left at its default.
_POSITIONAL_DEFAULTS = (("destination", None), ("prefix", ""), ("keep_vars", False))


def own_tensors(module):
    """(name, tensor) for `module`'s parameters and persistent buffers that are set."""
    skipped = module._non_persistent_buffers_set
    buffers = ((name, b) for name, b in module._buffers.items() if name not in skipped)
    for name, value in itertools.chain(module._parameters.items(), buffers):
        if value is not None:
            yield name, value


def save_own(module, destination, prefix, keep_vars, extra_state):
    """Put `module`'s own parameters and persistent buffers (not its children's)."""
    # Two flat loops rather than own_tensors(): state_dict is called per module per save,
    # and the generator chain measured ~20% slower on a small model.
    for name, value in module._parameters.items():
        if value is not None:
            destination[prefix + name] = value if keep_vars else value.detach()
    skipped = module._non_persistent_buffers_set
    for name, value in module._buffers.items():
        if value is not None and name not in skipped:
            destination[prefix + name] = value if keep_vars else value.detach()
    if extra_state:
        destination[prefix + EXTRA_STATE_KEY_SUFFIX] = module.get_extra_state()


def _metadata_dict():
    """A fresh destination: an OrderedDict carrying `_metadata` (module path -> version)."""
    fresh = OrderedDict()
    fresh._metadata = OrderedDict()
    return fresh


def state_dict(module, args, destination, prefix, keep_vars):
    """`module.state_dict(...)`: an OrderedDict with `_metadata` (each module's version)."""
    if args:
        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to "
            "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module"
            ".state_dict for details.", FutureWarning, stacklevel=3)
        given = {"destination": destination, "prefix": prefix, "keep_vars": keep_vars}
        for (name, default), value in zip(_POSITIONAL_DEFAULTS, args):
            current = given[name]
            # Identity-like test: keep_vars=0 is not "left at False".
            if type(current) is type(default) and current == default:
                given[name] = value
        destination, prefix, keep_vars = given.values()
    if destination is None:
        destination = _metadata_dict()
    local_metadata = {"version": module._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in module._state_dict_pre_hooks.values():
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=destination, prefix=f"{prefix}{name}.",
                             keep_vars=keep_vars)
    for hook in module._state_dict_hooks.values():
        replaced = hook(module, destination, prefix, local_metadata)
        if replaced is None:
            continue
        # Hooks from the public register_state_dict_post_hook may only mutate in place.
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("state_dict post-hook must return None")
        destination = replaced
    return destination


def load_own(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs, extra_state):
    """Copy `module`'s own entries from `state_dict`, collecting PyTorch's messages."""
    for hook in module._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    local_state = dict(own_tensors(module))
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            _load_one(module, name, key, param, state_dict[key], assign, error_msgs)
        elif strict:
            missing_keys.append(key)
    extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
    extra_given = extra_key in state_dict
    if extra_state and extra_given:
        module.set_extra_state(state_dict[extra_key])
    elif strict and extra_state != extra_given:
        # Expected but absent is missing; present but not expected is unexpected.
        (missing_keys if extra_state else unexpected_keys).append(extra_key)
    if not strict:
        return
    for key in state_dict:
        if key == extra_key or not key.startswith(prefix):
            continue
        head, dotted, _ = key[len(prefix):].partition(".")
        # A dotted key belongs to a child; a plain one must be this module's own tensor.
        if head not in (module._modules if dotted else local_state):
            unexpected_keys.append(key)


def load_state_dict(module, state_dict, strict, assign):
    """`module.load_state_dict(...)`: load every module, then report as PyTorch."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys, unexpected_keys, error_msgs = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata
    _load_tree(module, state_dict, "", metadata, assign, missing_keys, unexpected_keys,
               error_msgs)
    if strict:
        # Inserted at the front, so PyTorch's order results: missing, unexpected, then the rest.
        for label, keys in (("Unexpected", unexpected_keys), ("Missing", missing_keys)):
            if keys:
                quoted = ", ".join(f'"{key}"' for key in keys)
                error_msgs.insert(0, f"{label} key(s) in state_dict: {quoted}. ")
    if error_msgs:
        details = "\n\t".join(error_msgs)
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           f"{details}")
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def _load_tree(module, state_dict, prefix, metadata, assign, missing_keys, unexpected_keys,
               error_msgs):
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, missing_keys,
                                 unexpected_keys, error_msgs)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}
            _load_tree(child, child_state, child_prefix, metadata, assign, missing_keys,
                       unexpected_keys, error_msgs)
    incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, incompatible) is not None:
            raise AssertionError(
                "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                "expected to return new values, if incompatible_keys need to be modified, "
                "it should be done inplace.")


def _load_one(module, name, key, param, input_param, assign, error_msgs):
    """Load one entry of a state_dict into `param` (copy under no_grad, or assign)."""
    if not isinstance(input_param, Tensor):
        error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor '
                          "or Tensor-like object from checkpoint but received "
                          f"{type(input_param)}")
        return
    lazy = is_lazy(param)
    if not lazy and param.dim() == 0 and input_param.dim() == 1 and len(input_param) == 1:
        input_param = input_param[0]  # checkpoints from before 0-dim tensors stored shape [1]
    if not lazy and input_param.shape != param.shape:
        error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                          f"{input_param.shape} from checkpoint, the shape in current model is "
                          f"{param.shape}.")
        return
    try:
        with no_grad():
            if assign:
                if isinstance(param, Parameter):
                    if not isinstance(input_param, Parameter):
                        input_param = Parameter(input_param, requires_grad=param.requires_grad)
                    else:
                        input_param.requires_grad_(param.requires_grad)
                setattr(module, name, input_param)
            else:
                if param.is_meta and not input_param.is_meta:
                    warnings.warn(f"for {key}: copying from a non-meta parameter in the "
                                  "checkpoint to a meta parameter in the current model, which "
                                  "is a no-op. (Did you mean to pass `assign=True` to assign "
                                  "items in the state dictionary to their corresponding key in "
                                  "the module instead of copying them in place?)", UserWarning,
                                  stacklevel=2)
                param.copy_(input_param)
    except Exception as ex:  # noqa: BLE001 - reported with the other errors, as PyTorch
        error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the '
                          f"model are {param.size()} and whose dimensions in the checkpoint are "
                          f"{input_param.size()}, an exception occurred : {ex.args}.")
