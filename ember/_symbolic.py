"""The number-level names PyTorch exports beside its tensors: the math constants and the
sym_* helpers.

PyTorch's sym_* functions exist so that code tracing symbolic shapes can take max, min,
sqrt or a conditional of a size without leaving the graph; ember has no symbolic shapes,
so they act on plain Python numbers, with the result types PyTorch gives those.
"""
import builtins
import math

__all__ = ["e", "pi", "inf", "nan", "newaxis", "sym_int", "sym_float", "sym_max", "sym_min",
           "sym_not", "sym_sqrt", "sym_sum", "sym_ite"]

e, pi, inf, nan = math.e, math.pi, math.inf, math.nan
newaxis = None


def sym_int(a):
    """int(a), truncating toward zero."""
    return builtins.int(a)


def sym_float(a):
    return builtins.float(a)


def sym_max(a, b):
    """max(a, b), a float whenever either is one."""
    result = builtins.max(a, b)
    return builtins.float(result) if isinstance(a, float) or isinstance(b, float) else result


def sym_min(a, b):
    result = builtins.min(a, b)
    return builtins.float(result) if isinstance(a, float) or isinstance(b, float) else result


def sym_not(a):
    return not a


def sym_sqrt(a):
    return math.sqrt(a)


def sym_sum(args):
    """sum(args), starting from the int 0."""
    return builtins.sum(args)


def sym_ite(b, t, f):
    """t if b else f; both branches must be of one type, as PyTorch asserts."""
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f
