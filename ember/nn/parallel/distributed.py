"""DistributedDataParallel: importable; constructing one needs a process group, which
ember cannot create yet, so it raises PyTorch's error for a missing default group."""
from ... import distributed as _distributed
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, **kwargs):
        super().__init__()
        if process_group and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if process_group is None and device_mesh is None:
            _distributed._default_group()
        raise RuntimeError("ember's DistributedDataParallel has no engine yet")
