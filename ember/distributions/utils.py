"""Shared helpers of the distributions: parameter broadcasting, probs/logits, lazy attributes.

A distribution keeps whichever of `probs`/`logits` it was given and derives the other on
first use (`lazy_property`), so a user who only ever asks for logits never pays for the
softmax. The conversions clamp probabilities a machine epsilon away from 0 and 1 before
taking logs, as PyTorch does, so that `log(0)` never reaches a gradient.
"""
import math
from functools import update_wrapper
from numbers import Number

from .._dtype import finfo, get_default_dtype
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..ops.creation import tensor
from ..ops.views import broadcast_tensors

__all__ = ["broadcast_all", "clamp_probs", "euler_constant", "lazy_property", "logits_to_probs",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def broadcast_all(*values):
    """Broadcast numbers and tensors to one shape, as tensors.

    Numbers become tensors of the first tensor argument's dtype and device (the default
    dtype when there is none), so `Normal(0., scale_f64)` stays float64.
    """
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "ember.Tensor or objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    if first is None:
        dtype, device = get_default_dtype(), "cpu"
    else:
        dtype, device = first.dtype, first.device
    as_tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype, device=device)
                  for v in values]
    return broadcast_tensors(*as_tensors)


def _standard_normal(shape, dtype, device):
    """N(0, 1) draws of `shape` from the generator's normal_ stream (what rsample scales)."""
    return Tensor.normal_(_empty(shape, dtype, device))


def _empty(shape, dtype, device):
    return tensor(0.0, dtype=dtype, device=device).new_empty(shape)


def _sum_rightmost(value, dim):
    """Sum the rightmost `dim` dimensions (event dimensions folded into one number)."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Sigmoid of binary logits, softmax over the last dimension otherwise."""
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


def clamp_probs(probs):
    """Keep probabilities one machine epsilon inside (0, 1), so their logs stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """log(p) (categorical) or log(p) - log1p(-p) (binary), from clamped probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property:
    """A method computed once per instance, on first access, then stored as an attribute.

    Computed under enable_grad: a parameter derived inside `no_grad` (say, during sampling)
    must still carry its graph when it is later used for log_prob.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: also a property, for introspection."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (with `diag` extra diagonals) of the last two dims, row by row."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    keep = _tril_mask(n, diag, mat.device)
    return mat[..., keep]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of tril_matrix_to_vec: scatter a vector into a lower-triangular matrix."""
    # D is the positive root of D^2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 length = 0.
    # Like PyTorch, only a root that rounds *up* by more than eps is refused.
    length = vec.shape[-1]
    b = 1 + 2 * diag
    root = (math.sqrt(b * b + 8 * length + 4 * abs(diag) * (diag + 1)) - b) / 2
    if round(root) - root > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {length} which cannot be expressed "
                         "as the lower triangular part of a square D x D matrix.")
    n = round(root)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


def _tril_mask(n, diag, device):
    rows = tensor(list(range(n)), device=device)
    return rows.reshape(n, 1) - rows.reshape(1, n) >= -diag
