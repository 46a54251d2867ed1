"""The number-level names PyTorch exports beside its tensors: the math constants and the
sym_* helpers.

PyTorch's sym_* functions exist so that code tracing symbolic shapes can take max, min,
sqrt or a conditional of a size without leaving the graph; ember has no symbolic shapes,
so they act on plain Python numbers, with the result types PyTorch gives those.
"""
import builtins
import math
import sys

from ._backend import numpy as _np

__all__ = ["e", "pi", "inf", "nan", "newaxis", "sym_int", "sym_float", "sym_max", "sym_min",
           "sym_not", "sym_sqrt", "sym_sum", "sym_ite"]

e, pi, inf, nan = math.e, math.pi, math.inf, math.nan
newaxis = None


def sym_int(a):
    """int(a), truncating toward zero."""
    return builtins.int(a)


def sym_float(a):
    return builtins.float(a)


_NUMBERS = (_np.integer, _np.floating, builtins.int, builtins.float)
_FLOATS = (_np.floating, builtins.float)


def _class_text(obj):
    """`<class 'ember.Tensor'>` for ember's public classes, Python's repr for others."""
    cls = type(obj)
    if cls.__module__.startswith("ember.") and getattr(
            sys.modules["ember"], cls.__qualname__, None) is cls:
        return f"<class 'ember.{cls.__qualname__}'>"
    return repr(cls)


def _extreme(pick, a, b):
    """pick(a, b) of two real numbers, a float whenever either is one."""
    for value in (a, b):
        if not isinstance(value, _NUMBERS):
            raise AssertionError(f"expected {_NUMBERS}, got {_class_text(value)}")
    result = pick(a, b)
    return builtins.float(result) if isinstance(a, _FLOATS) or isinstance(b, _FLOATS) \
        else result


def sym_max(a, b):
    return _extreme(builtins.max, a, b)


def sym_min(a, b):
    return _extreme(builtins.min, a, b)


def sym_not(a):
    return not a


def sym_sqrt(a):
    return math.sqrt(a)


def sym_sum(*args):
    """sum of the numbers given (as one list or tuple, or one by one), from the int 0."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_ite(b, t, f):
    """t if b else f; b a bool and both branches of one type, as PyTorch asserts."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {_class_text(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {_class_text(t)} vs {_class_text(f)}")
    return t if b else f
