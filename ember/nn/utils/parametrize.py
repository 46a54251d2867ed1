"""Parametrizations: a module attribute computed from hidden tensors on every read.

`register_parametrization(module, "weight", P)` moves the weight into
`module.parametrizations.weight.original` (or `original0`, `original1`, ... when P's
`right_inverse` splits it) and makes `module.weight` a property that evaluates P on every
access, so gradients flow to the originals. The property lives on a per-module subclass
named `Parametrized<Class>`, as PyTorch does, so other instances of the class are untouched
and state_dict keys read `parametrizations.weight.original` exactly as PyTorch writes them.
"""
import contextlib
from collections.abc import Sequence

from ... import autograd
from ..._tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["ParametrizationList", "register_parametrization", "remove_parametrizations",
           "is_parametrized", "cached", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

# Caching: while `cached()` is active, each parametrized tensor is computed once per module.
_cache_depth = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Compute each parametrized tensor once inside the block (e.g. one RNN step loop)."""
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if _cache_depth == 0:
            _cache = {}


def _store(module, name, tensor):
    """Register `tensor` as a parameter if it is one, else as a buffer."""
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _inverted(parametrizations, value, required):
    """`value` passed back through each parametrization's right_inverse, last one first."""
    for parametrization in reversed(parametrizations):
        inverse = getattr(parametrization, "right_inverse", None)
        if inverse is not None:
            try:
                value = inverse(value)
            except NotImplementedError:
                if required:
                    raise
        elif required:
            raise RuntimeError(f"parametrization {type(parametrization).__name__} does not "
                               "implement right_inverse.")
    return value


class ParametrizationList(ModuleList):
    """The chain of parametrizations on one tensor, holding the original tensor(s)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with autograd.no_grad():
            new = _inverted(self, original, required=False)
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            # the original object keeps its identity (optimizers may hold it): new values in
            original.data = new.detach()
            _store(self, "original", original)
        else:
            self._store_pieces(new, original)
        if not unsafe:
            self._check_output(shape, dtype)

    def _store_pieces(self, pieces, original):
        for i, piece in enumerate(pieces):
            if not isinstance(piece, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 "(list, tuple...). Got element "
                                 f"{i} of the sequence with type {type(piece).__name__}.")
            if isinstance(original, Parameter):
                piece = Parameter(piece, original.requires_grad)
            piece.requires_grad_(original.requires_grad)
            _store(self, f"original{i}", piece)

    def _check_output(self, shape, dtype):
        value = self()
        if not isinstance(value, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
        what = ("Registering a parametrization may not change the {} of the tensor, unless "
                "`unsafe` flag is enabled.\nunparametrized {}: {}\nparametrized {}: {}")
        if value.dtype != dtype:
            raise ValueError(what.format("dtype", "dtype", dtype, "dtype", value.dtype))
        if value.shape != shape:
            raise ValueError(what.format("shape", "shape", shape, "shape", value.shape))

    def right_inverse(self, value):
        """Assigning to the parametrized attribute: invert the chain into the originals."""
        with autograd.no_grad():
            value = _inverted(self, value, required=True)
            if self.is_tensor:
                self._assign_one(value)
            else:
                self._assign_many(value)

    def _assign_one(self, value):
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
        if value.dtype != self.original.dtype:
            raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                             f"while `original` has dtype {self.original.dtype}")
        self.original.data = value.detach()

    def _assign_many(self, values):
        if not isinstance(values, Sequence):
            raise ValueError("'right_inverse' must return a sequence of tensors. "
                             f"Got {type(values).__name__}.")
        if len(values) != self.ntensors:
            raise ValueError("'right_inverse' must return a sequence of tensors of length "
                             f"{self.ntensors}. Got a sequence of length {len(values)}.")
        for i, value in enumerate(values):
            target = getattr(self, f"original{i}")
            if not isinstance(value, Tensor):
                raise ValueError("'right_inverse' must return a sequence of tensors or "
                                 f"reference-type opaques. Got element {i} of type "
                                 f"{type(value).__name__}.")
            if value.dtype != target.dtype:
                raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                 f"{value.dtype} while `original{i}` has dtype {target.dtype}")
            target.data = value.detach()

    def forward(self):
        if self.is_tensor:
            value = self[0](self.original)
        else:
            value = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for parametrization in list(self)[1:]:
            value = parametrization(value)
        return value


def _refuse_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _give_own_class(module):
    """Swap the module's class for a fresh subclass that can carry properties."""
    base = module.__class__
    module.__class__ = type(f"Parametrized{base.__name__}", (base,),
                            {"__getstate__": _refuse_pickle})


def _add_property(module, tensor_name):
    """`module.<tensor_name>` reads through the chain and writes through its right_inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def read(self):
        chain = self.parametrizations[tensor_name]
        if not _cache_depth:
            return chain()
        key = (id(self), tensor_name)
        value = _cache.get(key)
        if value is None:
            value = _cache[key] = chain()
        return value

    def write(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(read, write))


def _check_added(module, tensor_name, parametrization):
    """The checks on stacking one more parametrization onto an already parametrized tensor."""
    current = getattr(module, tensor_name)
    value = parametrization(current)
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    head = ("Registering a parametrization may not change the {0} of the tensor, unless the "
            "`unsafe` flag is enabled.\nmodule.{1}.{0}: {2}\nparametrization(module.{1}).{0}: {3}")
    for attribute in ("dtype", "shape"):
        if getattr(value, attribute) != getattr(current, attribute):
            raise ValueError(head.format(attribute, tensor_name, getattr(current, attribute),
                                         getattr(value, attribute)))
    inverse = getattr(parametrization, "right_inverse", None)
    if inverse is None:
        return
    try:
        back = inverse(value)
    except NotImplementedError:
        return
    if not isinstance(back, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(back).__name__}")
    tail = ("The tensor returned by parametrization.right_inverse must have the same {0} as "
            "module.{1}, unless the `unsafe` flag is enabled.\nmodule.{1}.{0}: {2}\n"
            "returned {0}: {3}")
    for attribute in ("dtype", "shape"):
        if getattr(back, attribute) != getattr(current, attribute):
            raise ValueError(tail.format(attribute, tensor_name, getattr(current, attribute),
                                         getattr(back, attribute)))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` the output of `parametrization` on a hidden original."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_added(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        chain = ParametrizationList([parametrization], getattr(module, tensor_name),
                                    unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _give_own_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has any parametrization (or one on `tensor_name`)."""
    chains = getattr(module, "parametrizations", None)
    if not isinstance(chains, ModuleDict):
        return False
    return len(chains) > 0 if tensor_name is None else tensor_name in chains


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrization: keep its current value (default) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with autograd.no_grad():
                original.data = getattr(module, tensor_name).detach()
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = (Parameter(value.detach(), value.requires_grad) if value.requires_grad
                    else value.detach())
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _store(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before parametrizations swapped it."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of `from_module` onto `to_module`."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        chain = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in chain:
            register_parametrization(to_module, name, parametrization)
        with autograd.no_grad():
            target = to_module.parametrizations[name]
            if chain.is_tensor:
                target.original.data = chain.original.detach().clone()
            else:
                for i in range(chain.ntensors):
                    getattr(target, f"original{i}").data = \
                        getattr(chain, f"original{i}").detach().clone()
    return to_module
