"""What the activation modules share: the input check, the result's recording, the node
that saves its input, and the dtypes computed in float32."""
from .. import _dtype
from .._dtype import is_floating as _is_floating
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap
from ._elementwise import unsupported

__all__ = []

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype


def _floating(input, kernel):
    """input's array; PyTorch's NotImplementedError when the kernel has no such dtype."""
    try:
        a = input._data
    except AttributeError:
        raise TypeError(f"{kernel.split('_cpu')[0]}(): argument 'input' (position 1) must be "
                        f"Tensor, not {type(input).__name__}") from None
    if not _is_floating(a.dtype) and a.dtype not in _REDUCED:
        raise unsupported(kernel, a)
    return a


def _finish(input, result, node_class, params=None):
    """Wrap the result array and record `node_class` (saving the input) when needed."""
    out = wrap(result, input._device)
    if grad_state.enabled and input._requires_grad:
        node = node_class()
        node.params = params
        node.save(input)
        attach(out, node, input)
    return out


class _SavedInput(Node):
    """A node that saved its input and the op's scalar parameters."""
    __slots__ = ("params",)
