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
    """`true_fn(*operands)` if `pred` else `false_fn(*operands)`."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError("Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
    elif not isinstance(pred, (bool, int, float)):
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not isinstance(operands, (tuple, list)) or not _tensor_leaves(operands):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    branch = true_fn if bool(pred) else false_fn
    return branch(*operands)


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
