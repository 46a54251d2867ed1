"""DataParallel without GPUs: the wrapped module runs as it is, as in PyTorch.

PyTorch's DataParallel replicates the module over CUDA devices; with none it
keeps `device_ids = []` and its forward simply calls the module. The wrapper
still registers the module as `module`, so state dicts carry the `module.` prefix.
"""
from ...cuda import _init as _cuda_init
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Run `module` over several GPUs' batch slices; with none, run it as it is."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not _cuda_init.is_available():
            self.module = module
            self.device_ids = []
            return
        raise NotImplementedError("ember's DataParallel does not split batches over GPUs yet; "
                                  "wrap the module only on machines without CUDA")

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional form, which needs a GPU (in PyTorch too)."""
    if not _cuda_init.is_available():
        raise RuntimeError("device type could not be determined")
    raise NotImplementedError("ember's data_parallel does not split batches over GPUs yet")
