"""ember.nn.parallel: DataParallel (one CPU replica) and DistributedDataParallel (over MPI)."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]
