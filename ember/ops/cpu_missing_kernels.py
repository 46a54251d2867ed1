"""The SyncBatchNorm kernels and native_norm: names PyTorch exports whose CPU build has
no kernel.

SyncBatchNorm's statistics kernels (batch_norm_stats, *_gather_stats*, batch_norm_elemt,
batch_norm_backward_*) and native_norm are registered for CUDA (and sparse) only, so on
a CPU tensor PyTorch's dispatcher refuses them with NotImplementedError; ember refuses
them the same way, with the dispatcher's text up to its list of registered backends
(the per-backend registration lines after it name PyTorch's build paths). The one kernel
of the family that has a CPU implementation, batch_norm_update_stats, is computed.
"""
from .. import _errors
from ._common import attach, grad_state, make_tensor
from ._elementwise import NotImplementedBackward
from .normalization import _compute_array, _statistics

__all__ = ["batch_norm_stats", "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
           "batch_norm_elemt", "batch_norm_backward_reduce", "batch_norm_backward_elemt",
           "batch_norm_update_stats", "native_norm"]

_BACKENDS = (
    "Meta, {sparse}BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, "
    "Conjugate, Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, "
    "AutogradCUDA, AutogradHIP, AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, "
    "AutogradHPU, AutogradVE, AutogradLazy, AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, "
    "AutogradPrivateUse2, AutogradPrivateUse3, AutogradMeta, AutogradNestedTensor, Tracer, "
    "AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA, "
    "FuncTorchBatched, BatchedNestedTensor, FuncTorchVmapMode, Batched, VmapMode, "
    "FuncTorchGradWrapper, PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, "
    "PythonDispatcher")


def _no_cpu_kernel(op, sparse=False):
    """The dispatcher's refusal of a CPU tensor for an operator with no CPU kernel."""
    backends = _BACKENDS.format(sparse="SparseCPU, " if sparse else "")
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'CPU' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build). If you are a Facebook "
        "employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for "
        f"possible resolutions. 'aten::{op}' is only available for these backends: "
        f"[{backends}].\n\n")


def batch_norm_stats(input, eps):
    raise _no_cpu_kernel("batch_norm_stats")


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    raise _no_cpu_kernel("batch_norm_gather_stats")


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    raise _no_cpu_kernel("batch_norm_gather_stats_with_counts")


def batch_norm_elemt(input, weight, bias, mean, invstd, eps, *, out=None):
    raise _no_cpu_kernel("batch_norm_elemt")


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g,
                               bias_g):
    raise _no_cpu_kernel("batch_norm_backward_reduce")


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu,
                              count):
    raise _no_cpu_kernel("batch_norm_backward_elemt")


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """Registered for sparse tensors only; both overloads refuse a dense CPU tensor."""
    raise _no_cpu_kernel("native_norm" if dim is None else "native_norm.ScalarOpt_dim_dtype",
                         sparse=True)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(batch mean, biased batch variance) per channel, and the running statistics moved
    toward them in place (the running variance takes the unbiased estimate)."""
    x = _compute_array(input, "batch_norm_update_stats_cpu")
    if input.dim() < 2:  # the kernel reads input.size(1), the channels
        raise IndexError("Dimension specified as 1 but tensor has no dimensions" if input.dim() == 0
                         else "Dimension out of range (expected to be in range of [-1, 0], but "
                         "got 1)")
    if input.numel() == 0:
        raise RuntimeError("input tensor must have at least one element, but got input_sizes = "
                           f"{_errors.shape_list(input.shape)}")
    axes = (0,) + tuple(range(2, x.ndim))
    _, mean, var = _statistics(x, axes)
    mean, var = mean.reshape(-1), var.reshape(-1)
    count = x.size // max(mean.size, 1)
    xp = input._device.xp
    # validate both running tensors, then write: a refused call changes neither
    for name, running in (("running_mean", running_mean), ("running_var", running_var)):
        if running is not None and running._data.ndim != 1:
            raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has "
                               f"{running._data.ndim}")
        if running is not None and running._data.shape != mean.shape:
            # PyTorch's kernel writes past the end here (heap corruption); F.batch_norm's words
            raise RuntimeError(f"{name} should contain {mean.size} elements not "
                               f"{running._data.size}")
    if running_mean is not None:
        update = (1 - momentum) * running_mean._data + momentum * mean
        xp.copyto(running_mean._data, update, casting="unsafe")
        running_mean._storage.version += 1
    if running_var is not None:
        unbiased = var * count / (count - 1) if count > 1 else xp.full_like(var, xp.nan)
        update = (1 - momentum) * running_var._data + momentum * unbiased
        xp.copyto(running_var._data, update, casting="unsafe")
        running_var._storage.version += 1
    dtype = input._data.dtype
    outs = (make_tensor(mean.astype(dtype), input._device),
            make_tensor(var.astype(dtype), input._device))
    if grad_state.enabled and input._requires_grad:
        for out in outs:
            attach(out, NotImplementedBackward("batch_norm_update_stats"), input)
    return outs
