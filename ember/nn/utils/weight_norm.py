"""The hook-based weight normalisation (torch.nn.utils.weight_norm, deprecated in PyTorch).

The weight is split into a magnitude `weight_g` and a direction `weight_v`, and a
forward pre-hook rebuilds weight = v * (g / ||v||) before every call, the norm
taken over every dim but `dim` (over all of them for dim=None). PyTorch fuses the
rebuild into one node (WeightNormInterfaceBackward0); ember writes it with
ordinary ops, so values and gradients agree while the weight's grad_fn is MulBackward0.
"""
import warnings

from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 - PyTorch's parameter name
    """The `pow`-norm of v over every dim but `dim`, shaped to broadcast against v."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.shape[0],) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, dim=1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.shape[-1],)
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, dim=0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that rebuilds `name` from `name_g` and `name_v`."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def _pieces(self):
        """The two parameter names the weight is split into: (magnitude, direction)."""
        return self.name + "_g", self.name + "_v"

    def compute_weight(self, module):
        magnitude, direction = (getattr(module, piece) for piece in self._pieces())
        return _weight_norm(direction, magnitude, self.dim)

    @staticmethod
    def apply(module, name, dim):
        if _find_hook(module, name) is not None:
            raise RuntimeError(
                f"Cannot register two weight_norm hooks on the same parameter {name}")
        hook = WeightNorm(name, dim)
        original = getattr(module, name)
        # A lazy weight has no values yet to split into magnitude and direction.
        if isinstance(original, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying weight normalization")
        module._parameters.pop(name)
        split = (norm_except_dim(original, 2, hook.dim).data, original.data)
        for piece, value in zip(hook._pieces(), split):
            module.register_parameter(piece, Parameter(value))
        hook(module, None)
        module.register_forward_pre_hook(hook)
        return hook

    def remove(self, module):
        merged = self.compute_weight(module)
        delattr(module, self.name)
        for piece in self._pieces():
            module._parameters.pop(piece)
        setattr(module, self.name, Parameter(merged.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def _find_hook(module, name):
    """(key, hook) of the WeightNorm pre-hook on `name`, or None."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            return key, hook
    return None


def weight_norm(module, name="weight", dim=0):
    """Reparametrise module.<name> as magnitude and direction; returns the module."""
    warnings.warn("`ember.nn.utils.weight_norm` is deprecated in favor of "
                  "`ember.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Fold the magnitude and direction back into one parameter."""
    found = _find_hook(module, name)
    if found is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    key, hook = found
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module
