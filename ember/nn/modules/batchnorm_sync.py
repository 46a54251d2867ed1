"""SyncBatchNorm: batch norm whose statistics span every process of a group.

In training, inside an initialised group of more than one process, each rank computes
its batch's per-channel mean, biased variance and element count; one all-gather shares
them, and every rank combines them into the statistics of the whole global batch (the
parallel-variance formula, as torch does after its all-gather). The gather is an autograd
Function whose backward all-reduces the gradient, so each rank's gradient accounts for
how its inputs moved every rank's statistics. Running statistics use the unbiased global
variance. Otherwise — one process, no group, or eval — this is plain batch norm.

One difference from torch: torch refuses CPU input inside a group (its kernels are GPU
ones); ember's MPI engine synchronises CPU tensors, so CPU input is accepted.
"""
from ... import distributed as _distributed
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...ops import creation
from ...ops.joining import cat
from .batchnorm import _BatchNorm, _LazyNormBase

__all__ = ["SyncBatchNorm"]


class _GatherStats(Function):
    """All-gather each rank's statistics row; backward sums every rank's gradient for it."""

    @staticmethod
    def forward(ctx, stats, group):
        ctx.group = group
        size = _distributed.get_world_size(group)
        gathered = creation.zeros((size,) + tuple(stats.shape), dtype=stats.dtype)
        _distributed.all_gather_into_tensor(gathered, stats.contiguous(), group=group)
        return gathered

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous().clone()
        _distributed.all_reduce(grad, group=ctx.group)
        return grad[_distributed.get_rank(ctx.group)], None


class SyncBatchNorm(_BatchNorm):
    """Batch norm over N-D input (N >= 2) whose statistics are shared across a group."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if (self.training and _distributed.is_initialized()
                and _distributed.get_world_size(self.process_group) > 1):
            return self._synchronised(input)
        return super().forward(input)

    def _synchronised(self, input):
        """Batch norm with the statistics of every rank's batch together."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        dims = [0] + list(range(2, input.dim()))
        count = input.numel() // input.size(1)
        mean = input.mean(dims)
        var = input.var(dims, correction=0)
        # One row per rank, [mean (C), biased var (C), count (C)], for a single all-gather.
        stats = cat([mean, var, mean.detach().new_full(mean.shape, float(count))])
        gathered = _GatherStats.apply(stats, self.process_group)
        channels = input.size(1)
        means, variances = gathered[:, :channels], gathered[:, channels:2 * channels]
        counts = gathered[:, 2 * channels:].detach()
        total = counts.sum(0)
        global_mean = (means * counts).sum(0) / total
        global_var = ((variances + (means - global_mean) ** 2) * counts).sum(0) / total
        if self.track_running_stats and self.running_mean is not None:
            with no_grad():
                n = float(total[0])
                unbiased = global_var * (n / max(n - 1.0, 1.0))
                self.running_mean.mul_(1 - factor).add_(global_mean.to(self.running_mean.dtype)
                                                        * factor)
                self.running_var.mul_(1 - factor).add_(unbiased.to(self.running_var.dtype)
                                                       * factor)
        shape = [1, channels] + [1] * (input.dim() - 2)
        out = (input - global_mean.view(shape)) * (global_var.view(shape) + self.eps).rsqrt()
        if self.weight is not None:
            out = out * self.weight.view(shape)
        if self.bias is not None:
            out = out + self.bias.view(shape)
        return out

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Swap every BatchNorm*d layer in `module` for a SyncBatchNorm sharing its
        parameters and buffers (the same tensors, not copies); returns the new root."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _LazyNormBase):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group,
                            bias=module.bias is not None if module.affine else True)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted

