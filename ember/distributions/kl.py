"""kl_divergence(p, q) and register_kl: KL formulas chosen by the types of p and q.

A formula is registered for a pair of classes and serves every pair of subclasses. When
several registered pairs fit, the most specific one wins: order the candidates
lexicographically by (p's class, q's class) under "is a subclass of", and also by
(q's class, p's class); if the two orders pick different functions the match is
ambiguous, and (as PyTorch does) the first is used with a RuntimeWarning. The choice is
memoised per (type(p), type(q)) and forgotten whenever a new formula is registered.

The closed forms of the pairs among this package's distributions are registered in the
distribution modules' companion `_kl_pairs.py`; this module holds only the machinery
and the Bregman-divergence formula shared by exponential families.
"""
import warnings
from functools import cmp_to_key

from ..autograd.api import grad as _autograd_grad
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import _sum_rightmost

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the function dispatch chose


def register_kl(type_p, type_q):
    """Decorator registering `fun(p, q)` as KL(p || q) for p: type_p, q: type_q."""
    for role, cls in (("type_p", type_p), ("type_q", type_q)):
        # For a non-class, issubclass itself raises PyTorch's TypeError.
        if not isinstance(cls, type) and issubclass(cls, Distribution):
            raise TypeError(f"Expected {role} to be a Distribution subclass but got {cls}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new entry may be more specific than a memoised choice
        return fun

    return decorator


def _compare_specificity(first, second):
    """Order two class tuples: the earliest position where they differ decides.

    A tuple precedes another when, at that position, its class is a subclass of the
    other's; classes unrelated there leave the pair unordered (both compare as larger).
    """
    for mine, theirs in zip(first, second):
        if mine is theirs:
            continue
        return -1 if issubclass(mine, theirs) else 1
    return 0


_by_specificity = cmp_to_key(_compare_specificity)


def _dispatch_kl(type_p, type_q):
    candidates = [(p, q) for p, q in _KL_REGISTRY
                  if issubclass(type_p, p) and issubclass(type_q, q)]
    if not candidates:
        return NotImplemented
    best_by_p = min(candidates, key=_by_specificity)
    best_by_q = min(((q, p) for p, q in candidates), key=_by_specificity)
    chosen = _KL_REGISTRY[best_by_p]
    if chosen is not _KL_REGISTRY[best_by_q[::-1]]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({best_by_p[0].__name__}, {best_by_q[0].__name__})",
                      RuntimeWarning, stacklevel=2)
    return chosen


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape."""
    key = type(p), type(q)
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    formula = _KL_MEMOIZE[key]
    if formula is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return formula(p, q)


@register_kl(ExponentialFamily, ExponentialFamily)
def _bregman(p, q):
    """Bregman divergence of the log-normalizer A between the natural parameters.

    KL(p || q) = A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)>.
    """
    if type(q) is not type(p):
        # PyTorch's text has a run of spaces from a line continuation inside its string.
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot" + " " * 29 +
                                  "be computed using Bregman divergences")
    p_thetas = [theta.detach().requires_grad_() for theta in p._natural_params]
    q_thetas = q._natural_params
    p_normalizer = p._log_normalizer(*p_thetas)
    p_means = _autograd_grad(p_normalizer.sum(), p_thetas, create_graph=True)
    result = q._log_normalizer(*q_thetas) - p_normalizer
    for p_theta, q_theta, mean in zip(p_thetas, q_thetas, p_means):
        result = result - _sum_rightmost((q_theta - p_theta) * mean, len(q.event_shape))
    return result
