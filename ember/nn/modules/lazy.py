"""LazyModuleMixin: modules whose parameter shapes are inferred from their first input.

A lazy layer is its eager class with two extra pieces, the mixin listed first among
its bases:

* `cls_to_become` names the eager class the module turns into once it has shapes;
* its constructor builds the eager layer with placeholder sizes (0) and then puts
  `UninitializedParameter`s where the weights go, and `initialize_parameters(input)`
  reads the missing size off the first input, `materialize`s each placeholder to its
  shape and calls `reset_parameters()` (which the layer skips while sizes are 0).

See LazyLinear (linear.py) and the lazy convolutions (conv.py) for the two in-tree users.

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
from ._state_dict import own_tensors

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
        # Placeholders have no data to detach, so they are saved as the objects they are.
        for name, value in own_tensors(self):
            destination[prefix + name] = value if keep_vars or is_lazy(value) else value.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialise placeholders to the shapes found in the state_dict being loaded."""
        for name, current in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if current is None or key not in state_dict:
                continue
            incoming = state_dict[key]
            if is_lazy(current) and not is_lazy(incoming):
                with no_grad():
                    current.materialize(incoming.shape)

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
        # Initialisation happens once: drop both hooks, and the handles kept for them.
        for handle_name in ("_initialize_hook", "_load_hook"):
            getattr(module, handle_name).remove()
            delattr(module, handle_name)
        eager = module.cls_to_become
        if eager is not None:
            module.__class__ = eager

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")
