"""Gradient clipping: clip_grad_norm_, clip_grad_value_ and their two halves.

PyTorch's arithmetic, step for step: one norm per gradient (grouped by device
and dtype, in order of first appearance), the norm of those norms, then every
gradient times min(max_norm / (total + 1e-6), 1). On the CPU PyTorch takes its
foreach path, which computes the same per-tensor norms, so `foreach` only
changes which errors are possible.
"""
import functools
import types
import warnings

from ... import linalg
from ..._tensor import Tensor
from ...autograd import no_grad
from ...ops.creation import tensor
from ...ops.joining import stack
from ...ops.pointwise_select import clamp

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]

_FOREACH_DEVICES = ("cpu", "cuda")


def _no_grad(function):
    @functools.wraps(function)
    def without_grad(*args, **kwargs):
        with no_grad():
            return function(*args, **kwargs)
    return without_grad


def _grouped(tensors):
    """Tensors by (device, dtype), groups in order of first appearance."""
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _check_foreach(foreach, device):
    if foreach and device.type not in _FOREACH_DEVICES:
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on "
                           f"{device.type} tensors")


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the tensors' norms, as if they were one vector."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for (device, _), group in _grouped(tensors).items():
        _check_foreach(foreach, device)
        norms.extend(linalg.vector_norm(t, norm_type) for t in group)
    total_norm = linalg.vector_norm(stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by min(max_norm / (total_norm + 1e-6), 1), in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef_clamped = clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for (device, _), group in _grouped(grads).items():
        _check_foreach(foreach, device)
        coefficient = clip_coef_clamped.to(device)
        for grad in group:
            grad.mul_(coefficient)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the parameters' gradients to a total norm of at most max_norm; returns the norm."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`ember.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`ember.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient to [-clip_value, clip_value], in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _), group in _grouped(grads).items():
        _check_foreach(foreach, device)
        for grad in group:
            grad.clamp_(min=-clip_value, max=clip_value)
