"""ember.nn.parallel: DataParallel (one CPU replica) and the DistributedDataParallel name."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]
