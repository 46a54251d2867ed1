"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

They hold their members in the Module's own registries (children are named
'0', '1', ... or by their keys), so iteration, state_dict keys and reprs all
follow from Module; these classes add the list and dict protocols.
"""
import operator
import warnings
from collections import OrderedDict
from collections import abc as container_abcs
from itertools import chain, groupby, islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, typename

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict"]


def _addindent(text, spaces):
    # The containers' variant: unlike Module's, it indents blank lines too (as PyTorch).
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join((spaces * " ") + line for line in lines)


def _abs_index(container, idx):
    """A position in range as a non-negative int (IndexError as PyTorch otherwise)."""
    idx = operator.index(idx)
    size = len(container)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


def _add_numbered(container, modules, start):
    """Register `modules` as children named str(start), str(start + 1), ..."""
    for number, child in enumerate(modules, start):
        container.add_module(str(number), child)


def _renumber(container):
    """After a deletion the survivors are named '0', '1', ... again (even named ones)."""
    container._modules = OrderedDict(zip(map(str, range(len(container._modules))),
                                         container._modules.values()))


def _open_slot(container, index, module):
    """Move children index.. one number up, then put `module` at `index`."""
    registry = container._modules
    for position in reversed(range(index, len(registry))):
        registry[str(position + 1)] = registry[str(position)]
    registry[str(index)] = module


def _require_sequential(other):
    if not isinstance(other, Sequential):
        raise ValueError("add operator supports only objects of Sequential class, but "
                         f"{str(type(other))} is given.")


def _key_value_pairs(owner, pairs):
    """(key, value) from an iterable of 2-item iterables, with PyTorch's per-element errors."""
    for position, pair in enumerate(pairs):
        where = f"{owner} update sequence element #{position}"
        if not isinstance(pair, container_abcs.Iterable):
            raise TypeError(f"{where} should be Iterable; is{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{where} has length {len(pair)}; 2 is required")
        yield pair[0], pair[1]


class Container(Module):
    """Deprecated: children given as keyword arguments (use Module instead)."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented "
                      "in `nn.Module`. Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for name, child in kwargs.items():
            self.add_module(name, child)


class Sequential(Module):
    """Modules applied one after the other: `Sequential(a, b)(x) == b(a(x))`.

    Built from modules (named '0', '1', ...) or from one OrderedDict of named ones.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, child in args[0].items():
                self.add_module(name, child)
        else:
            _add_numbered(self, args, 0)

    def _key_at(self, idx):
        return next(islice(self._modules.keys(), _abs_index(self, idx), None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __add__(self, other):
        _require_sequential(other)
        combined = Sequential()
        _add_numbered(combined, chain(self, other), 0)
        return combined

    def __iadd__(self, other):
        _require_sequential(other)
        _add_numbered(self, other, len(self))
        return self

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        self._check_factor(other)
        combined = Sequential()
        _add_numbered(combined, list(self) * other, 0)
        return combined

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        size = len(self)
        originals = [self._modules[str(i)] for i in range(size)]
        _add_numbered(self, originals * (other - 1), size)
        return self

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        _open_slot(self, index + size if index < 0 else index, module)
        return self

    def extend(self, sequential):
        _add_numbered(self, sequential, len(self))
        return self


class ModuleList(Module):
    """A list of modules, registered (so their parameters are found) but not called in order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(self, idx))]

    def __setitem__(self, idx, module):
        setattr(self, str(_abs_index(self, idx)), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(self, idx)))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        _add_numbered(combined, chain(self, other), 0)
        return combined

    def __repr__(self):
        """As PyTorch: runs of identical children collapse to `(0-2): 3 x Linear(...)`."""
        if not self._modules:
            return self._get_name() + "()"
        lines, start = [], 0
        for text, run in groupby(repr(child) for child in self):
            count = len(list(run))
            span = str(start) if count == 1 else f"{start}-{start + count - 1}"
            times = "" if count == 1 else f"{count} x "
            lines.append(_addindent(f"({span}): {times}{text}", 2))
            start += count
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index, module):
        _open_slot(self, index, module)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def extend(self, modules):
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        _add_numbered(self, modules, len(self))
        return self


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add from a mapping (in its order) or an iterable of (key, module) pairs."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(modules).__name__)
        pairs = (modules.items() if isinstance(modules, (ModuleDict, container_abcs.Mapping))
                 else _key_value_pairs("ModuleDict", modules))
        for key, module in pairs:
            self[key] = module


def _describe(name, value, dtype_text):
    """One line of a ParameterList/ParameterDict repr."""
    if not isinstance(value, Tensor):
        return "  (" + str(name) + "): Object of type: " + type(value).__name__
    size = "x".join(str(s) for s in value.size())
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"  ({name}): {kind} containing: [{dtype_text(value)} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters (tensors are wrapped in Parameter), registered as '0', '1', ..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_abs_index(self, idx)))

    def __setitem__(self, idx, param):
        idx = _abs_index(self, idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        new_index = len(self)
        self._size += 1
        self[new_index] = value
        return self

    def extend(self, values):
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_describe(k, p, lambda t: str(t.dtype)) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (tensors are wrapped in Parameter), keyed by strings."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key):
        return key in self._keys

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in self._keys.copy():
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key, _ = self._keys.popitem()
        self._keys[key] = None
        value = self[key]
        del self[key]
        return key, value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add from an OrderedDict/ParameterDict (in order), a plain mapping (sorted by key,
        as PyTorch) or an iterable of (key, value) pairs."""
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, container_abcs.Mapping):
            pairs = sorted(parameters.items())   # a plain dict's order is not trusted
        else:
            pairs = _key_value_pairs("ParameterDict", parameters)
        for key, parameter in pairs:
            self[key] = parameter

    def extra_repr(self):
        return "\n".join(_describe(k, p, typename) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        combined = self.copy()
        combined.update(other)
        return combined

    def __ror__(self, other):
        combined = other.copy()
        combined.update(self)
        return combined

    def __ior__(self, other):
        self.update(other)
        return self
