"""Device objects: where a tensor's memory lives, and which array module serves it.

`device('cpu')` is served by NumPy, `device('cuda:N')` by CuPy. An op asks its
input's device for `xp` and never chooses the array module itself.
"""
from . import _backend

__all__ = ["device"]

_KNOWN_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_SUPPORTED = ("cpu", "cuda")
_cache = {}


class device:
    """A device: `type` ('cpu' or 'cuda') and an optional `index`, as in PyTorch.

    Instances are interned: `device('cpu') is device('cpu')`, so comparing the
    devices of two tensors is an identity check on the hot path.
    """

    __slots__ = ("type", "index", "xp", "__weakref__")

    def __new__(cls, type_or_string, index=None):
        if isinstance(type_or_string, device):
            if index is not None:
                raise ValueError("device(): when a device object is given, index must be None")
            return type_or_string
        key = (type_or_string, index)
        found = _cache.get(key)
        if found is not None:
            return found
        dtype_name, idx = _parse(type_or_string, index)
        canonical = _cache.get((dtype_name, idx, True))
        if canonical is None:
            canonical = object.__new__(cls)
            canonical.type = dtype_name
            canonical.index = idx
            canonical.xp = _backend.numpy if dtype_name == "cpu" else None
            _cache[(dtype_name, idx, True)] = canonical
        _cache[key] = canonical
        return canonical

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


def _parse(spec, index):
    if isinstance(spec, int) and not isinstance(spec, bool):
        return "cuda", spec
    if not isinstance(spec, str):
        raise TypeError(f"device() received an invalid combination of arguments - got ({type(spec).__name__})")
    type_name, _, idx_text = spec.partition(":")
    if type_name not in _KNOWN_TYPES:
        raise RuntimeError(
            "Expected one of " + ", ".join(_KNOWN_TYPES)
            + f" device type at start of device string: {spec}")
    if idx_text:
        if not idx_text.isdigit() or (len(idx_text) > 1 and idx_text[0] == "0"):
            raise RuntimeError(f"Invalid device string: '{spec}'")
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {spec}")
        index = int(idx_text)
    if index is not None and index < 0:
        raise RuntimeError("Device index must not be negative")
    if type_name == "cpu" and index not in (None, 0):
        raise RuntimeError(f"CPU device index must be -1 or zero, got {index}")
    return type_name, index


CPU = device("cpu")


def resolve(spec):
    """Turn a `device=` argument (None, str, int, device) into a device object."""
    if spec is None:
        return CPU
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
            raise RuntimeError("Torch not compiled with CUDA enabled".replace("Torch", "ember")
                               + " (CuPy with a CUDA device is needed for 'cuda' tensors"
                               + (": pip install 'ember-tensor[cuda]')" if cp is None else ")"))
        dev.xp = cp
    return dev.xp
