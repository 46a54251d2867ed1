"""The torch.* function forms of Tensor queries and copies (torch.numel(x), torch.clone(x),
torch.is_nonzero(x), ...), sum_to_size, and the CPU build's memory queries.

Each is a door into the Tensor method or op that already defines it; the few new
definitions (is_nonzero, is_same_size, is_signed, sum_to_size) are queries or
compositions PyTorch itself writes in terms of other ops.
"""
from ..autograd import grad_mode as _grad_mode
from ._common import Tensor

__all__ = ["is_tensor", "numel", "is_floating_point", "is_complex", "is_nonzero",
           "is_same_size", "is_signed", "is_inference", "clone", "detach", "detach_",
           "get_device", "is_anomaly_enabled", "set_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_warn_always", "is_warn_always_enabled"]

_warn_always = [False]


def is_tensor(obj):
    """True for an ember Tensor (and its subclasses, such as Parameter)."""
    return isinstance(obj, Tensor)


def _require(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def numel(input):
    _require(input, "numel")
    return input.numel()


def is_floating_point(input):
    _require(input, "is_floating_point")
    return input.is_floating_point()


def is_complex(input):
    _require(input, "is_complex")
    return input.is_complex()


def is_inference(input):
    _require(input, "is_inference")
    return input.is_inference()


def is_nonzero(input):
    """bool() of a one-element tensor, refusing any other size with PyTorch's text."""
    _require(input, "is_nonzero")
    size = input._data.size
    if size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(-1)[0])


def is_same_size(input, other):
    _require(input, "is_same_size")
    return input._data.shape == other._data.shape


def is_signed(input):
    """Whether the dtype holds negative numbers (floats and signed integers).

    Asked of ember's dtype, not the array's: bfloat16's NumPy dtype (ml_dtypes) has kind 'V'.
    """
    _require(input, "is_signed")
    return input.dtype.is_signed


def clone(input, *, memory_format=None):
    _require(input, "clone")
    return input.clone(memory_format=memory_format)


def detach(input):
    _require(input, "detach")
    return input.detach()


def detach_(input):
    _require(input, "detach_")
    return input.detach_()


def get_device(input):
    """-1 for a CPU tensor, the CUDA ordinal otherwise (Tensor.get_device)."""
    _require(input, "get_device")
    return input.get_device()


def sum_to_size(input, *size):
    """Sum the dims that `size` broadcasts to (input must be expandable from `size`)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = input._data.shape
    if not _expandable(size, shape):
        raise RuntimeError(f"size {{{_shape_text(size)}}} is not expandable to size "
                           f"{{{_shape_text(shape)}}}.")
    if not size:  # an empty target means 'sum everything', even for a 0-dim input
        return input.sum()
    if tuple(size) == shape:
        return input
    leading = len(shape) - len(size)
    dims = tuple(range(leading)) + tuple(leading + i for i, s in enumerate(size)
                                         if s == 1 and shape[leading + i] != 1)
    result = input.sum(dims, keepdim=True)
    return result.view(size) if leading else result


def _expandable(size, shape):
    if len(size) > len(shape):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(size), reversed(shape)))


def _shape_text(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


# ---------------------------------------------------------------- process-wide flags
def is_anomaly_enabled():
    return _grad_mode.anomaly.enabled


def set_anomaly_enabled(enabled, check_nan=True):
    _grad_mode.anomaly.enabled = bool(enabled)
    _grad_mode.anomaly.check_nan = bool(check_nan)


def is_anomaly_check_nan_enabled():
    return _grad_mode.anomaly.check_nan


def set_warn_always(b):
    """PyTorch's flag for warnings that normally fire once; ember records it."""
    if not isinstance(b, bool):
        kind = type(b)
        name = kind.__name__ if kind.__module__ == "builtins" or isinstance(b, Tensor) else \
            f"{kind.__module__}.{kind.__name__}"
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {name}")
    _warn_always[0] = b


def is_warn_always_enabled():
    return _warn_always[0]

