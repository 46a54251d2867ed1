"""nn.Parameter and friends: the Tensor kinds a Module registers by assignment.

`Parameter` is a Tensor subclass marking a tensor as a module parameter: assigning
one to a Module attribute registers it, and it defaults to `requires_grad=True`.
It shares its data's memory and version counter, is always a leaf, and ops on it
return plain Tensors (ember's ops build plain Tensors; PyTorch gets the same
effect by disabling `__torch_function__`).

`Buffer` is PyTorch 2.3's marker: `Buffer(t)` returns a plain Tensor flagged so
that assigning it to a Module attribute registers it as a buffer.

`UninitializedParameter` / `UninitializedBuffer` are the placeholders lazy
modules hold until their first forward tells them their shape (`materialize`).
"""
from collections import OrderedDict

from .._tensor import Tensor
from ..ops.creation import empty as _empty

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]

_new = object.__new__


def _make_subclass(cls, data, requires_grad):
    """A `cls` instance aliasing `data` (same memory and version counter), as a fresh leaf."""
    t = _new(cls)
    t._data = data._data
    t._device = data._device
    t._storage = data._storage
    t._base = None    # a fresh leaf, never a view (as in PyTorch), though memory is shared
    t.grad_fn = None
    t._requires_grad = False
    t._grad = None
    t._output_nr = 0
    t._grad_accumulator = None
    t._extras = data._extras if data.is_inference() else None
    if requires_grad.__class__ is not bool:
        raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, "
                        f"not {type(requires_grad).__name__}")
    if requires_grad and not Tensor.is_floating_point(t):
        # PyTorch's _make_subclass words it differently from requires_grad_().
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t._requires_grad = bool(requires_grad)
    return t


class Parameter(Tensor):
    """A Tensor that a Module registers as its parameter when assigned as an attribute.

    `Parameter(data=None, requires_grad=True)`: `data` defaults to `ember.empty(0)`;
    the parameter shares `data`'s memory. `no_grad` does not change the default
    `requires_grad=True`. Like PyTorch's, instances accept arbitrary attributes.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty(0)
        if not isinstance(data, Tensor):
            data.detach()  # PyTorch's AttributeError for non-tensors ("'list' object has ...")
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        return _make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        # As PyTorch: a fresh parameter with a copy of the values; .grad is not copied.
        found = memo.get(id(self))
        if found is not None:
            return found
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        state = _object_state(self)
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
        return (_rebuild_parameter_with_state,
                (self.data, self.requires_grad, OrderedDict(), state))


def _object_state(obj):
    """The user attributes set on a tensor subclass instance (pickled with it, as PyTorch)."""
    state = getattr(obj, "__dict__", None)
    return dict(state) if state else None


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """Unpickling a Parameter (module-level so any process with ember can load it)."""
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    param.__dict__.update(state)
    return param


# ---------------------------------------------------------------- Buffer
class _BufferMeta(type):
    """`isinstance(t, Buffer)` is true for the plain tensors `Buffer(...)` returns."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            extras = getattr(instance, "_extras", None) if isinstance(instance, Tensor) else None
            return bool(extras and extras.get("is_buffer"))
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a module buffer: `self.running_mean = nn.Buffer(ember.zeros(3))`.

    Returns a plain Tensor (detached, sharing memory) carrying the marker and its
    `persistent` flag, which Module.__setattr__ reads, as PyTorch does.
    """

    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        extras = t._extra_dict()
        extras["is_buffer"] = True
        extras["persistent"] = persistent
        return t


def _buffer_persistent(tensor):
    """The `persistent` flag of a tensor made by `Buffer(...)` (True when unset)."""
    extras = tensor._extras
    return True if not extras else extras.get("persistent", True)


# ---------------------------------------------------------------- uninitialized tensors
_ALLOWED_METHODS = frozenset([
    "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
    "short", "int", "long", "cuda", "cpu", "to", "get_device", "requires_grad_",
    "is_inference", "type", "share_memory_"])  # share_memory_: the mixin's own refusal


def _blocked_methods():
    """Public Tensor methods an uninitialized tensor refuses (properties stay readable)."""
    names = set()
    for name in dir(Tensor):
        if name.startswith("_") or name in _ALLOWED_METHODS:
            continue
        if callable(getattr(Tensor, name, None)) and not isinstance(
                Tensor.__dict__.get(name), property):
            names.add(name)
    return frozenset(names)


_BLOCKED = _blocked_methods()


def _uninitialized_error(cls, name):
    func = f"<method '{name}' of 'ember._C.TensorBase' objects>"
    return ValueError(
        f"Attempted to use an uninitialized parameter in {func}. This error happens when you "
        "are using a `LazyModule` or explicitly manipulating "
        f"`ember.nn.parameter.{cls.__name__}` objects. When using LazyModules Call `forward` "
        "with a dummy batch to initialize the parameters before calling ember functions")


def _refuse(name):
    def method(self, *args, **kwargs):
        raise _uninitialized_error(type(self), name)
    method.__name__ = name
    return method


class UninitializedTensorMixin:
    """What uninitialized parameters and buffers share: no shape until `materialize`.

    Only dtype/device conversions, `size()`, `copy_` and the autograd flags work;
    any other Tensor method raises PyTorch's ValueError. (Ops called as functions,
    e.g. `F.linear(x, p)`, see the empty placeholder data instead.)
    """

    __slots__ = ()

    def __getattribute__(self, name):
        if name in _BLOCKED:
            raise _uninitialized_error(type(self), name)
        return object.__getattribute__(self, name)

    __add__ = __radd__ = __iadd__ = _refuse("add")
    __sub__ = __rsub__ = __isub__ = _refuse("sub")
    __mul__ = __rmul__ = __imul__ = _refuse("mul")
    __truediv__ = __rtruediv__ = __itruediv__ = _refuse("div")
    __matmul__ = __rmatmul__ = _refuse("matmul")
    __pow__ = __rpow__ = _refuse("pow")
    __neg__ = _refuse("neg")
    __getitem__ = _refuse("__getitem__")
    __setitem__ = _refuse("__setitem__")

    def materialize(self, shape, device=None, dtype=None):
        """Give the placeholder real (uninitialised) memory of `shape` and become concrete."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """Whether `param` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet; `materialize(shape)` makes it a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _make_subclass(cls, _empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        found = memo.get(id(self))
        if found is not None:
            return found
        data = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet; `materialize(shape)` makes it a plain Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _make_subclass(cls, _empty(0, device=device, dtype=dtype), requires_grad)
        extras = t._extra_dict()
        extras["is_buffer"] = True
        extras["persistent"] = persistent
        return t

    def __deepcopy__(self, memo):
        found = memo.get(id(self))
        if found is not None:
            return found
        data = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype,
                            _buffer_persistent(self))
        memo[id(self)] = result
        return result

