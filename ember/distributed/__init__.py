"""ember.distributed: the import surface of torch.distributed, without an engine yet.

`is_available()` is True only where mpi4py imports (ember's process groups will
run over MPI); no process group can be made yet, so `is_initialized()` is False
and every call that needs the default group raises PyTorch's ValueError.
"""
import importlib.util
import os

__all__ = ["is_available", "is_initialized", "is_mpi_available", "is_nccl_available",
           "is_gloo_available", "is_ucc_available", "is_xccl_available", "is_torchelastic_launched",
           "get_rank", "get_world_size", "get_backend", "init_process_group",
           "destroy_process_group", "barrier", "all_reduce", "broadcast", "all_gather",
           "reduce", "gather", "scatter", "new_group", "ReduceOp", "Backend", "group",
           "GroupMember"]

_NO_DEFAULT_GROUP = ("Default process group has not been initialized, please make sure to call "
                     "init_process_group.")


def is_available():
    """Whether the MPI engine could run (mpi4py installed)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_initialized():
    return False


def is_mpi_available():
    return is_available()


def is_nccl_available():
    return False


def is_gloo_available():
    return False


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def _default_group():
    raise ValueError(_NO_DEFAULT_GROUP)


def get_rank(group=None):
    _default_group()


def get_world_size(group=None):
    _default_group()


def get_backend(group=None):
    _default_group()


def _needs_group(*args, **kwargs):
    _default_group()


barrier = all_reduce = broadcast = all_gather = reduce = gather = scatter = new_group = \
    destroy_process_group = _needs_group


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Not yet: ember's MPI engine is a later step."""
    raise RuntimeError("ember.distributed cannot create process groups yet (the mpi4py engine "
                       "is not written); run the script in a single process")


class ReduceOp:
    SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, PREMUL_SUM = (
        "sum", "avg", "product", "min", "max", "band", "bor", "bxor", "premul_sum")


class Backend(str):
    UNDEFINED, GLOO, NCCL, UCC, MPI = "undefined", "gloo", "nccl", "ucc", "mpi"

    def __new__(cls, name):
        return super().__new__(cls, name.lower())


class group:
    WORLD = None


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100
