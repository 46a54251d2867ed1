"""Forward-mode AD (torch.autograd.forward_ad): dual tensors carry a tangent through ops.

PyTorch gives each op a forward derivative formula. ember has only reverse-mode
formulas, so a dual tensor here is a tensor recorded in the graph, and `unpack_dual`
computes an output's tangent when asked, as J @ tangent by the double-vjp trick
(differentiate the vjp u -> u^T J, which is linear in u, against the tangents).
The tangents equal PyTorch's; what differs is visible only around them: a dual tensor
requires grad and has a grad_fn (PyTorch's does not), and ops run under no_grad do not
carry tangents. One level at a time, as in PyTorch.
"""
import collections

from .. import _tensor
from . import api as _api
from .grad_mode import enable_grad

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_level = [-1]   # the level now open (PyTorch numbers the only one 0), -1 for none
_duals = []     # (dual tensor, primal, tangent) made at the open level


class UnpackedDualTensor(collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """What `unpack_dual` returns: the primal and its tangent (None where there is none)."""


def enter_dual_level():
    """Open the forward-AD level; returns its number."""
    if _level[0] >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level[0] = 0
    return 0


def exit_dual_level(*, level=None):
    """Close the level: every tangent made in it is forgotten."""
    if level is None:
        level = _level[0]
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _level[0]:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _level[0] = -1
    _duals.clear()


def make_dual(tensor, tangent, *, level=None):
    """A tensor equal to `tensor` whose ops' results carry tangents derived from `tangent`."""
    if level is None:
        level = _level[0]
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tensor.shape != tangent.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
    with enable_grad():
        dual = tensor.view_as(tensor) if tensor.requires_grad else \
            tensor.detach().requires_grad_()
    _duals.append((dual, tensor, tangent))
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of `tensor`; the tangent is None where no dual tensor reaches it."""
    if level is None:
        level = _level[0]
    for dual, primal, tangent in _duals:
        if dual is tensor:
            return UnpackedDualTensor(dual.detach() if not primal.requires_grad else dual,
                                      tangent)
    primal = tensor.detach() if _duals and tensor.requires_grad else tensor
    if level < 0 or not _duals or not isinstance(tensor, _tensor.Tensor) \
            or not tensor.requires_grad:
        return UnpackedDualTensor(primal, None)
    return UnpackedDualTensor(primal, _tangent_of(tensor))


def _tangent_of(tensor):
    duals = [d for d, _, _ in _duals]
    with enable_grad():
        probe = tensor.new_zeros(tensor.shape).requires_grad_()
        pulled = _api.grad(tensor, duals, probe, create_graph=True, allow_unused=True)
        pairs = [(g, t) for g, (_, _, t) in zip(pulled, _duals) if g is not None]
        if not pairs:
            return None
        live = [(g, t) for g, t in pairs if g.requires_grad]
        if not live:
            return tensor.new_zeros(tensor.shape)
        tangent = _api.grad([g for g, _ in live], probe, [t.to(g.dtype) for g, t in live],
                            allow_unused=True)[0]
    return tensor.new_zeros(tensor.shape) if tangent is None else tangent.detach()


class dual_level:
    """Context for forward AD: `with dual_level(): ...` opens and closes the level."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
