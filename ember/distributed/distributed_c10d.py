"""Process groups for ember.distributed: making them, asking about them, work handles.

One engine runs underneath: MPI (mpi4py, imported in `_mpi` when the first group is
made). The backend names scripts pass — "gloo", "nccl", "mpi" — all select it; the name
is remembered so `get_backend()` answers what torch would for the same call. The rank and
world size come from `init_process_group`'s arguments, torchrun's variables (RANK,
WORLD_SIZE, as `python -m ember.distributed.run` sets them) or, under a plain `mpiexec`,
from MPI itself; they must agree with the MPI job the process belongs to.
"""
import datetime
import enum
import importlib
import os
import warnings

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "destroy_process_group",
           "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
           "get_rank", "get_world_size", "group", "init_process_group", "is_initialized",
           "new_group"]

NO_DEFAULT_GROUP = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")

# Variables a launcher sets for one rank, in the order torchrun reports them missing.
_ENV_RENDEZVOUS = "Error initializing torch.distributed using env:// rendezvous: "
# What MPI launchers export: MPICH/Hydra and Intel MPI (PMI_*), Open MPI (OMPI_*).
_MPI_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK")
_MPI_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")


class _RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self):
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self):
        return f"RedOpType.{self.name}"


_RedOpType.__name__ = _RedOpType.__qualname__ = "RedOpType"


class ReduceOp:
    """The reductions of all_reduce, reduce and reduce_scatter (`ReduceOp.SUM`, ...)."""
    RedOpType = _RedOpType
    SUM, AVG, PRODUCT, MIN, MAX = (_RedOpType.SUM, _RedOpType.AVG, _RedOpType.PRODUCT,
                                   _RedOpType.MIN, _RedOpType.MAX)
    BAND, BOR, BXOR, PREMUL_SUM = (_RedOpType.BAND, _RedOpType.BOR, _RedOpType.BXOR,
                                   _RedOpType.PREMUL_SUM)

    def __init__(self, op):
        self.op = op


class Backend(str):
    """A backend's name, lower-cased, as torch's Backend("GLOO") == "gloo"."""
    UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL = "undefined", "gloo", "nccl", "ucc", "mpi", "xccl"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        return super().__new__(cls, name.lower())


class ProcessGroup:
    """A set of ranks that run collectives together: an MPI communicator and its ranks.

    `ranks` are global ranks in group-rank order; `comm` is None in processes outside
    the group (torch's non-member handle, whose rank() and size() are -1). A wait longer
    than `timeout` seconds raises, and leaves the group `broken`: its pending MPI
    operation can no longer be matched, so later calls raise at once, as gloo's do.
    """

    def __init__(self, comm, ranks, backend, timeout=None):
        self._comm = comm
        self._ranks = list(ranks)
        self._backend = backend
        self._group_rank = comm.Get_rank() if comm is not None else -1
        self._timeout = _seconds(timeout)
        self._broken = None

    def wait(self, requests, nbytes=0):
        """Wait for this group's requests, within its timeout, watching for departures."""
        try:
            _engine().wait_all(requests, nbytes, self._timeout, self._ranks)
        except RuntimeError as e:
            self._broken = (_PAIR_CLOSED if str(e).startswith("Timed out") else str(e))
            raise

    def start_sum(self, array):
        """Start summing a float32/float64 array in place across the group (a request)."""
        engine = _engine()
        return self._comm.Iallreduce(engine.MPI.IN_PLACE, array, engine.MPI.SUM)

    def run(self, start, nbytes):
        """Start a collective (`start()` returns its requests) and wait for it."""
        try:
            _engine().run_blocking(self._comm, start, nbytes, self._timeout, self._ranks)
        except RuntimeError as e:
            self._broken = (_PAIR_CLOSED if str(e).startswith("Timed out") else str(e))
            raise

    def rank(self):
        return self._group_rank

    def size(self):
        return len(self._ranks) if self._comm is not None else -1

    def name(self):
        return self._backend


class Work:
    """A started collective: `wait()` finishes it (and writes its results), as torch's Work."""

    def __init__(self, pg, requests, finish=None, source=None, nbytes=0):
        self._pg = pg
        self._requests = requests
        self._nbytes = nbytes
        self._finish = finish
        self._done = False
        self._source = source

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._finish()

    def wait(self, timeout=None):
        self._pg.wait(self._requests, self._nbytes)
        self._complete()
        return True

    def is_completed(self):
        if not self._done and _engine().test_all(self._requests):
            self._complete()
        return self._done

    def is_success(self):
        return self.is_completed()

    def exception(self):
        return None

    def source_rank(self):
        return self._source() if callable(self._source) else self._source

    def synchronize(self):
        self.wait()


class group:
    WORLD = None


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


_state = {"default": None, "mpi": None}
# torch's default_pg_timeout for gloo: 30 minutes.
_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)
# What gloo raises for every call on a group after one of its waits timed out.
_PAIR_CLOSED = "Application timeout caused pair closure"


def _seconds(timeout):
    if timeout is None:
        timeout = _DEFAULT_TIMEOUT
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _engine():
    """ember.distributed._mpi, imported on first need: only then does MPI start."""
    if _state["mpi"] is None:
        _state["mpi"] = importlib.import_module("ember.distributed._mpi")
    return _state["mpi"]


def is_initialized():
    return _state["default"] is not None


def default_group():
    pg = _state["default"]
    if pg is None:
        raise ValueError(NO_DEFAULT_GROUP)
    return pg


def resolve(group_):
    return default_group() if group_ is None else group_


def _env_int(names):
    for name in names:
        value = os.environ.get(name)
        if value is not None:
            return int(value)
    return None


def _rank_and_size(rank, world_size):
    """RANK/WORLD_SIZE from the arguments, torchrun's variables, or the MPI launcher's."""
    in_mpi_job = _env_int(_MPI_RANK_VARS) is not None
    if rank is None or rank < 0:
        rank = _env_int(("RANK",) + _MPI_RANK_VARS)
        if rank is None:
            raise ValueError(_ENV_RENDEZVOUS + "environment variable RANK expected, but not set")
    if world_size is None or world_size < 0:
        world_size = _env_int(("WORLD_SIZE",) + _MPI_SIZE_VARS)
        if world_size is None:
            raise ValueError(_ENV_RENDEZVOUS + "environment variable WORLD_SIZE expected, but "
                             "not set")
    return rank, world_size, in_mpi_job


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the default group: every process of the MPI job, in MPI's rank order.

    `store` and `init_method` are accepted for unchanged scripts; MPI's own launcher has
    already connected the processes, so there is no rendezvous. `timeout` bounds each wait
    of the group's collectives (torch's 30 minutes by default).
    """
    if _state["default"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    rank, world_size, _ = _rank_and_size(rank, world_size)
    engine = _engine()
    comm = engine.world()
    if comm.Get_size() != world_size or comm.Get_rank() != rank:
        raise RuntimeError(
            f"ember.distributed: this process is rank {comm.Get_rank()} of an MPI job of "
            f"{comm.Get_size()}, but was asked to be rank {rank} of {world_size}; start the "
            "ranks with `python -m ember.distributed.run --nproc-per-node N script.py` or "
            "`mpiexec -n N python script.py`")
    if world_size > 1:
        engine.abort_on_uncaught()
        engine.watch_departures()
    name = Backend(backend) if backend is not None else Backend.UNDEFINED
    pg = ProcessGroup(comm.Dup(), range(world_size), name, timeout)
    _state["default"] = pg
    group.WORLD = GroupMember.WORLD = pg


def destroy_process_group(group=None):
    """Forget a group (the default one and every other when `group` is None)."""
    pg = default_group() if group is None else group
    if pg._comm is not None:
        pg._comm.Free()
        pg._comm = None
    if group is None or group is _state["default"]:
        _state["default"] = None
        globals()["group"].WORLD = GroupMember.WORLD = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of some ranks; every rank of the default group must call it, as in torch."""
    parent = default_group()
    ranks = sorted(ranks) if ranks else list(range(parent.size()))
    for r in ranks:
        if not 0 <= r < parent.size():
            raise ValueError(f"The new group's rank should be within the world_size set by "
                             f"init_process_group, but got rank {r} with world_size "
                             f"{parent.size()}")
    mpi_group = parent._comm.Get_group().Incl(ranks)
    comm = parent._comm.Create(mpi_group)
    mpi_group.Free()
    if comm == _engine().MPI.COMM_NULL:
        comm = None
    return ProcessGroup(comm, ranks, Backend(backend) if backend else parent._backend, timeout)


def get_rank(group=None):
    """This process's rank in `group` (-1 outside it, as torch)."""
    pg = resolve(group)
    return pg.rank()


def get_world_size(group=None):
    pg = resolve(group)
    return pg.size()


def get_backend(group=None):
    return str(resolve(group)._backend)


def get_process_group_ranks(group):
    return list(resolve(group)._ranks)


def get_global_rank(group, group_rank):
    pg = resolve(group)
    if not 0 <= group_rank < len(pg._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank):
    pg = resolve(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def group_rank_of(pg, global_rank, what):
    """A global src/dst rank as a rank in `pg`, with torch's error for an outsider."""
    if global_rank in pg._ranks:
        return pg._ranks.index(global_rank)
    raise ValueError(f"Global rank {global_rank} is not part of group {pg}")


def is_member(pg, op_name):
    """False (with torch's warning) where this process is outside `pg`; raises on a group
    broken by a timeout or a departed rank."""
    if pg._broken is not None:
        raise RuntimeError(pg._broken)
    if pg._comm is None:
        warnings.warn(f"Running {op_name} on global rank {get_rank()} which does not belong "
                      "to the given group.", stacklevel=3)
        return False
    return True
