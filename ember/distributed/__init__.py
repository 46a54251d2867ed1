"""ember.distributed: torch.distributed's process groups and collectives, over MPI.

`import ember` never starts MPI: mpi4py is imported (and MPI initialised) by
`init_process_group`, so `is_available()` only asks whether mpi4py is installed
(`pip install 'ember-tensor[distributed]'` brings it and the mpich runtime). Every
backend name ("mpi", "gloo", "nccl") runs on the same MPI engine for CPU tensors.
Start the ranks with `python -m ember.distributed.run --nproc-per-node N script.py`
(torchrun's flags) or `mpiexec -n N python script.py`.
"""
import importlib.util
import os

from .collectives import (all_gather, all_gather_into_tensor, all_reduce, all_to_all,
                          all_to_all_single, barrier, broadcast, gather, reduce, reduce_scatter,
                          reduce_scatter_tensor, scatter)
from .distributed_c10d import (Backend, GroupMember, ProcessGroup, ReduceOp, Work,
                               destroy_process_group, get_backend, get_global_rank,
                               get_group_rank, get_process_group_ranks, get_rank, get_world_size,
                               group, init_process_group, is_initialized, new_group)
from .p2p import (all_gather_object, broadcast_object_list, gather_object, irecv, isend, recv,
                  scatter_object_list, send)

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
           "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all",
           "all_to_all_single", "barrier", "broadcast", "broadcast_object_list",
           "destroy_process_group", "gather", "gather_object", "get_backend", "get_global_rank",
           "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
           "init_process_group", "irecv", "is_available", "is_gloo_available",
           "is_initialized", "is_mpi_available", "is_nccl_available",
           "is_torchelastic_launched", "is_ucc_available", "is_xccl_available", "isend",
           "new_group", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter",
           "scatter_object_list", "send"]


def is_available():
    """Whether ember.distributed can run: mpi4py is installed (MPI is not started here)."""
    try:
        return importlib.util.find_spec("mpi4py") is not None
    except (ImportError, ValueError):    # a blocked or half-installed mpi4py
        return False


def is_mpi_available():
    return is_available()


def is_gloo_available():
    """torch's CPU backend; here "gloo" is a name for the MPI engine, so: when MPI is."""
    return is_available()


def is_nccl_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_torchelastic_launched():
    """True under a launcher that sets TORCHELASTIC_RUN_ID (torchrun, ember's launcher)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None
