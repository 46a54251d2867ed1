"""Parameters to one flat vector and back (for line searches and second-order methods)."""
from ..._tensor import Tensor
from ..._tensor_types import typename
from ...ops.joining import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (a view of none: a new tensor)."""
    device = None
    pieces = []
    for param in parameters:
        device = _check_param_device(param, device)
        pieces.append(param.view(-1))
    return cat(pieces)


def vector_to_parameters(vec, parameters):
    """Point each parameter's data at its slice of `vec` (so they share its memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count


def _check_param_device(param, old_param_device):
    """The first parameter's GPU index (-1 for the CPU); a mismatch later is a TypeError."""
    here = param.get_device() if param.device.type == "cuda" else -1
    if old_param_device is None:
        return here
    if here != old_param_device:
        raise TypeError("Found two parameters on different devices, "
                        "this is currently not supported.")
    return old_param_device
