"""`torch.typename`, defined once: error messages in nn and optim name objects with it."""
from ._tensor import Tensor

# Where a name can come from, most specific first: a class or function names itself,
# anything else is named by its class.
_OWN_NAME_ATTRS = ("__qualname__", "__name__")


def typename(obj):
    """'ember.FloatTensor' for a tensor, else the object's qualified name (builtins bare).

    PyTorch prints it in TypeErrors ("cannot assign 'int' object to parameter ..."), so
    nn.Module and optim.Optimizer share this one copy of its rules.
    """
    if isinstance(obj, Tensor):
        return obj.type()
    owner, name = _module_and_name(obj)
    return name if owner in ("", "builtins") else f"{owner}.{name}"


def _module_and_name(obj):
    """(module, name) of `obj` itself when it carries a name, else of its class."""
    for attr in _OWN_NAME_ATTRS:
        if hasattr(obj, attr):
            return getattr(obj, "__module__", "") or "", getattr(obj, attr)
    cls = obj.__class__
    return cls.__module__ or "", cls.__qualname__
