"""Device objects: where a tensor's memory lives, and which array module serves it.

`device('cpu')` is served by NumPy, `device('cuda:N')` by CuPy. An op asks its
input's device for `xp` and never chooses the array module itself.
"""
import re

from . import _backend, _meta

__all__ = ["device"]

_KNOWN_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_SUPPORTED = ("cpu", "cuda", "meta")
_cache = {}
_ARRAY_MODULES = {"cpu": _backend.numpy, "meta": _meta.xp}  # cuda: CuPy, attached on use
_MISSING = object()  # device() without arguments differs from device(None)


class device:
    """A device: `type` ('cpu' or 'cuda') and an optional `index`, as in PyTorch.

    Instances are interned: `device('cpu') is device('cpu')`, so comparing the
    devices of two tensors is an identity check on the hot path.
    """

    __slots__ = ("type", "index", "xp", "__weakref__")

    def __new__(cls, type=_MISSING, index=None):
        if isinstance(type, device):
            if index is not None:
                raise ValueError("device(): when a device object is given, index must be None")
            return type
        key = (type, index)
        found = _cache.get(key) if index.__class__ is not bool else None
        if found is not None:
            return found
        type_name, idx = _parse(type, index)
        canonical = _cache.get((type_name, idx, True))
        if canonical is None:
            canonical = object.__new__(cls)
            canonical.type = type_name
            canonical.index = idx
            canonical.xp = _ARRAY_MODULES.get(type_name)
            _cache[(type_name, idx, True)] = canonical
        _cache[key] = canonical
        return canonical

    def __enter__(self):
        """`with ember.device('meta'):` makes this the factories' default device."""
        _default_stack.append(_defaults.device)
        _defaults.device = resolve(self)
        return self

    def __exit__(self, *exc_info):
        _defaults.device = _default_stack.pop()
        return None

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


_SIGNATURES = ", but expected one of:\n * (ember.device device)\n{}" \
    " * (str type, int index = -1)\n"
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")


def _parse(spec, index):
    """(type, index) from PyTorch's accepted forms, with its errors for the others."""
    if index is not None and (index.__class__ is bool or not isinstance(index, int)):
        raise TypeError("device(): argument 'index' (position 2) must be int, not "
                        f"{index.__class__.__name__}")
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec < 0:
            raise RuntimeError("Device index must not be negative")
        return "cuda", spec
    if not isinstance(spec, str):
        if spec is _MISSING:
            raise TypeError("device() received an invalid combination of arguments - got ()"
                            + _SIGNATURES.format(""))
        got = spec.__class__.__name__
        raise TypeError(f"device() received an invalid combination of arguments - got ({got})"
                        + _SIGNATURES.format("      didn't match because some of the arguments "
                                             f"have invalid types: (!{got}!)\n"))
    match = _DEVICE_STRING.fullmatch(spec)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{spec}'")
    type_name, idx_text = match.groups()
    if type_name not in _KNOWN_TYPES:
        raise RuntimeError(
            "Expected one of " + ", ".join(_KNOWN_TYPES)
            + f" device type at start of device string: {spec}")
    if idx_text is not None:
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {spec}")
        index = int(idx_text)
    if index is not None and index < 0:
        raise RuntimeError("Device index must not be negative")
    return type_name, index


CPU = device("cpu")
META = device("meta")


class _Defaults:
    """The device factories use when given none (`set_default_device`, `with device`)."""

    __slots__ = ("device",)


_defaults = _Defaults()
_defaults.device = CPU
_default_stack = []


def set_default(spec):
    """Make `spec` (None: the CPU) the device of factories called without `device=`."""
    _defaults.device = CPU if spec is None else resolve(spec)


def get_default():
    return _defaults.device


def resolve(spec):
    """Turn a `device=` argument (None, str, int, device) into a device object."""
    if spec is None:
        return _defaults.device
    dev = spec if type(spec) is device else device(spec)
    if dev.type not in _SUPPORTED:
        raise RuntimeError(f"ember does not support the '{dev.type}' device")
    if dev.type == "cuda":
        if dev.index is None:  # a tensor's device always has an index: the current one
            dev = device("cuda", _attach_cupy(dev).cuda.runtime.getDevice())
        _attach_cupy(dev)
    return dev


def _attach_cupy(dev):
    if dev.xp is None:
        cp = _backend.cupy_module()
        if cp is None or not _backend.cupy_available():
            # PyTorch's CPU build raises this AssertionError word for word; why, as a note
            error = AssertionError("Torch not compiled with CUDA enabled")
            error.add_note("ember: CuPy with a CUDA device is needed for 'cuda' tensors"
                           + (": pip install 'ember-tensor[cuda]'" if cp is None else ""))
            raise error
        dev.xp = cp
    return dev.xp
