"""`ember.cond` and `ember.while_loop`: data-dependent control flow as functions.

PyTorch offers these so that a compiler can capture both branches of an `if` or the
body of a loop; ember runs eagerly, so each is the plain Python statement after
PyTorch's argument checks: `cond` calls the branch the predicate picks, `while_loop`
runs the body until the condition turns false.
"""
from ._tensor import Tensor

__all__ = ["cond", "while_loop"]


def _tensor_leaves(value):
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return all(_tensor_leaves(item) for item in value)
    if isinstance(value, dict):
        return all(_tensor_leaves(item) for item in value.values())
    return False


def cond(pred, true_fn, false_fn, operands=()):
    """`true_fn(*operands)` if `pred` else `false_fn(*operands)`.

    A Python constant picks its branch with no checks at all; a tensor predicate gets
    PyTorch's checks first (one element, callable branches, tensor-only operands).
    """
    if not isinstance(pred, (bool, int, float)):
        _check_cond(pred, true_fn, false_fn, operands)
    branch = true_fn if bool(pred) else false_fn
    return branch(*operands)


def _check_cond(pred, true_fn, false_fn, operands):
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not _tensor_leaves(operands):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")


def while_loop(cond_fn, body_fn, carried_inputs):
    """Apply `body_fn` to the carried values while `cond_fn` of them holds; the final
    carried values."""
    if not (callable(cond_fn) and callable(body_fn)):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    carried, last = tuple(carried_inputs), None
    while bool(cond_fn(*carried)):
        last = body_fn(*carried)
        carried = tuple(last) if isinstance(last, (tuple, list)) else (last,)
    # a body returning one bare tensor gives that tensor back, as PyTorch's does
    return last if last is not None and not isinstance(last, (tuple, list)) else carried
