"""SyncBatchNorm: batch norm whose statistics span every process of a group.

ember runs one process per model here: without an initialised process group there is
nothing to synchronise with, and PyTorch then computes plain batch norm over the local
batch. That is what this layer does, with PyTorch's own input checks. Inside an
initialised group PyTorch refuses CPU input (its cross-process statistics run on GPUs);
ember does the same, and says plainly that it cannot yet synchronise GPU statistics.
"""
from ... import distributed as _distributed
from .batchnorm import _BatchNorm, _LazyNormBase

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm over N-D input (N >= 2) whose statistics would be shared across a group."""

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
        if self.training and _distributed.is_available() and _distributed.is_initialized():
            if input.device.type == "cpu":
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                                 "privateuseone")
            if _distributed.get_world_size(self.process_group) > 1:
                raise NotImplementedError("ember's SyncBatchNorm cannot yet share batch "
                                          "statistics across processes")
        return super().forward(input)

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
