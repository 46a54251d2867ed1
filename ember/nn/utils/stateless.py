"""functional_call: run a module with some parameters and buffers swapped for given tensors.

The swap writes straight into the owning module's `_parameters` / `_buffers`
(a plain tensor may stand in for a Parameter, as in PyTorch) and is undone when
the call returns or raises. With tie_weights, a parameter shared under two names
is replaced under both.
"""
import contextlib
import warnings

__all__ = ["functional_call"]


def _owner(module, dotted):
    *path, name = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, name


def _swap(module, dotted, value):
    """Put `value` at `dotted`; return how to undo it."""
    owner, name = _owner(module, dotted)
    for table in (owner._parameters, owner._buffers):
        if name in table:
            previous = table[name]
            table[name] = value
            return lambda: table.__setitem__(name, previous)
    if hasattr(owner, name):
        previous = getattr(owner, name)
        object.__setattr__(owner, name, value)
        return lambda: object.__setattr__(owner, name, previous)
    object.__setattr__(owner, name, value)
    return lambda: object.__delattr__(owner, name)


def _tied_names(module, given):
    """Each given name's other names (same tensor under several names), when not given too."""
    names_of = {}
    for name, tensor in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names_of.setdefault(id(tensor), []).append(name)
    extra = {}
    for names in names_of.values():
        chosen = [n for n in names if n in given]
        if chosen:
            for name in names:
                if name not in given:
                    extra[name] = given[chosen[0]]
    return extra


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {n for n, _ in
                                                                module.named_buffers()}
        missing = sorted(expected - parameters_and_buffers.keys())
        unexpected = sorted(parameters_and_buffers.keys() - expected)
        messages = []
        if unexpected:
            messages.append("Unexpected key(s): {}.".format(
                ", ".join(map(repr, unexpected))))
        if missing:
            messages.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
        if messages:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(messages)))
    swaps = dict(parameters_and_buffers)
    if tie_weights:
        swaps.update(_tied_names(module, parameters_and_buffers))
    undo = []
    try:
        for name, value in swaps.items():
            undo.append(_swap(module, name, value))
        yield
    finally:
        for restore in reversed(undo):
            restore()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named parameters and buffers replaced for the call."""
    warnings.warn("`ember.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`ember.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    parameters_and_buffers.keys()   # a dict only: anything else fails here, as in PyTorch
    # A lone positional argument may be passed bare; None means "no arguments".
    positional = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*positional, **(kwargs or {}))
