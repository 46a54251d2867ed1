"""The hook-based spectral normalisation (torch.nn.utils.spectral_norm, the legacy API).

The parameter moves to `<name>_orig`, two buffers `<name>_u` / `<name>_v` hold the power
iteration's vectors, and a forward pre-hook sets the plain attribute `<name>` to
weight_orig / sigma before every call (refining u and v first while training).
"""
from ... import autograd
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..parameter import Parameter, UninitializedParameter
from ...ops.nn_linear import normalize

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]

_SUFFIXES = ("", "_u", "_v", "_orig")


class SpectralNorm:
    """The forward pre-hook; `_version` is written into state_dict metadata as PyTorch's."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight):
        """Rows along `dim`, everything else flattened into columns."""
        if self.dim != 0:
            rest = [d for d in range(weight.dim()) if d != self.dim]
            weight = weight.permute(self.dim, *rest)
        return weight.reshape(weight.size(0), -1)

    def _stored(self, module, suffix):
        return getattr(module, self.name + suffix)

    def compute_weight(self, module, do_power_iteration):
        original = self._stored(module, "_orig")
        u, v = self._stored(module, "_u"), self._stored(module, "_v")
        matrix = self.reshape_weight_to_matrix(original)
        if do_power_iteration:
            with autograd.no_grad():
                for _step in range(self.n_power_iterations):
                    # v first, then u; both written into the buffers
                    normalize(matrix.t().mv(u), dim=0, eps=self.eps, out=v)
                    normalize(matrix.mv(v), dim=0, eps=self.eps, out=u)
                # copies: autograd saves them, and the buffers change in place next call
                u, v = u.clone(), v.clone()
        sigma = u.dot(matrix.mv(v))
        return original / sigma

    def remove(self, module):
        with autograd.no_grad():
            final = self.compute_weight(module, False)
        for suffix in _SUFFIXES:
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(final.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        if any(isinstance(h, SpectralNorm) and h.name == name
               for h in module._forward_pre_hooks.values()):
            raise RuntimeError(
                f"Cannot register two spectral_norm hooks on the same parameter {name}")
        hook = SpectralNorm(name, n_power_iterations, dim, eps)
        original = module._parameters[name]
        if original is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(original, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with autograd.no_grad():
            rows, columns = hook.reshape_weight_to_matrix(original).shape
            start_u = normalize(original.new_empty(rows).normal_(0, 1), dim=0, eps=eps)
            start_v = normalize(original.new_empty(columns).normal_(0, 1), dim=0, eps=eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", original)
        setattr(module, name, original.data)
        module.register_buffer(name + "_u", start_u)
        module.register_buffer(name + "_v", start_v)
        module.register_forward_pre_hook(hook)
        module._register_state_dict_hook(SpectralNormStateDictHook(hook))
        return hook


class SpectralNormStateDictHook:
    """Records `<name>.version` under local_metadata['spectral_norm']."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        entry = f"{self.fn.name}.version"
        if entry in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {entry}")
        versions[entry] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Normalise module.<name> by its spectral norm before every forward; returns module."""
    if dim is None:
        transposed = isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
        dim = 1 if transposed else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def _pop_hook(hooks, matches):
    for key, hook in hooks.items():
        if matches(hook):
            del hooks[key]
            return hook
    return None


def remove_spectral_norm(module, name="weight"):
    """Fold the normalised weight back into a plain parameter; returns module."""
    hook = _pop_hook(module._forward_pre_hooks,
                     lambda h: isinstance(h, SpectralNorm) and h.name == name)
    if hook is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    hook.remove(module)
    _pop_hook(module._state_dict_hooks,
              lambda h: isinstance(h, SpectralNormStateDictHook) and h.fn.name == name)
    return module
