"""LazyModuleMixin: modules whose parameter shapes are inferred from their first input.

How a lazy layer is written (as PyTorch's LazyLinear)::

    class LazyLinear(LazyModuleMixin, Linear):
        cls_to_become = Linear          # what the module turns into once initialised

        def __init__(self, out_features, bias=True, device=None, dtype=None):
            super().__init__(0, 0, False)   # build Linear with placeholder sizes, no init
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.out_features = out_features
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)

        def reset_parameters(self):
            if not self.has_uninitialized_params() and self.in_features != 0:
                super().reset_parameters()

        def initialize_parameters(self, input):
            if self.has_uninitialized_params():
                with ember.no_grad():
                    self.in_features = input.shape[-1]
                    self.weight.materialize((self.out_features, self.in_features))
                    if self.bias is not None:
                        self.bias.materialize((self.out_features,))
                    self.reset_parameters()

The mixin registers a forward pre-hook: the first call runs
`initialize_parameters(*args, **kwargs)`, checks nothing is left uninitialised,
removes its hooks and sets `__class__ = cls_to_become`, so after one forward
`LazyLinear(4)` *is* a `Linear(in_features=3, out_features=4, bias=True)`.
`reset_parameters` is called by `initialize_parameters` (after materialising),
so the random stream is consumed exactly as PyTorch's. Loading a state_dict into
a lazy module materialises its placeholders to the checkpoint's shapes first.
The mixin must come first among the bases (its `__init__` runs the layer's).
"""
import itertools

from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixin for modules that infer their parameters' shapes on the first forward."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Placeholders go in as they are (they cannot be detached).
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialise placeholders to the shapes found in the state_dict being loaded."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialise the placeholders from the first input, then reset_parameters()."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any parameter or buffer is still a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                      self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialise once, then become `cls_to_become`."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")
