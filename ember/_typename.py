"""`torch.typename`, defined once: error messages in nn and optim name objects with it."""
from ._tensor import Tensor


def typename(obj):
    """'ember.FloatTensor' for a tensor, else the object's qualified name (builtins bare).

    PyTorch prints it in TypeErrors ("cannot assign 'int' object to parameter ..."), so
    nn.Module and optim.Optimizer share this one copy of its rules.
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
