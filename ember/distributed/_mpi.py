"""The one module that imports mpi4py: MPI's world, its reduce ops, and a polite wait.

Imported only when a process group is made, so `import ember` and
`ember.distributed.is_available()` never start MPI. Blocking MPI calls spin a core
while they wait (measured: 2.3 s of CPU in a 3 s barrier), which starves the other
ranks on a machine with few cores; every wait here polls a nonblocking request with
`Test()` and sleeps briefly between polls once the request has had a short spin.
"""
import sys
import time

from mpi4py import MPI

__all__ = ["MPI", "world", "wait", "wait_all", "op_for", "abort_on_uncaught"]

# MPICH moves a message only inside MPI calls, so long sleeps while data is flowing stall
# the transfer (measured: 70% of Allreduce's bandwidth on 25 MB with 0.5 ms sleeps), and a
# pure Test() spin was slower still on a shared machine (it starves the peer rank). A wait
# therefore polls every 50 us for as long as its bytes should take at a modest 1 GB/s
# (plus 5 ms), then every 0.5 ms: by then it waits for a rank that is still busy. The 5 ms
# cover a DDP step's end, where one rank finishes backward a little before the other:
# with 0.2 ms there, the 0.5 ms sleeps overshot and a 2-rank MLP step took 7.1 ms instead
# of 5.8 (50 us sleeps cost next to no CPU).
# Blocking collectives of at least LARGE bytes first wait politely for every rank to
# arrive (Ibarrier), then let MPI's own Wait drive the transfer at full speed.
_SPIN_SECONDS = 0.005
_SPIN_SECONDS_PER_BYTE = 1e-9
_SHORT_SLEEP = 0.00005
_POLL_SLEEP = 0.0005
_ABORT_GRACE_S = 0.2  # before MPI_Abort, for the traceback to reach the launcher
LARGE = 1 << 20

_OPS = {"sum": MPI.SUM, "avg": MPI.SUM, "product": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX,
        "band": MPI.BAND, "bor": MPI.BOR, "bxor": MPI.BXOR}


def world():
    """MPI_COMM_WORLD (initialising MPI on first use, as importing mpi4py.MPI does)."""
    return MPI.COMM_WORLD


# Bool tensors reduce logically: MPI defines only the logical ops on its bool type.
_BOOL_OPS = {"sum": MPI.LOR, "max": MPI.LOR, "bor": MPI.LOR, "product": MPI.LAND,
             "min": MPI.LAND, "band": MPI.LAND, "bxor": MPI.LXOR}


def op_for(name, is_bool=False):
    return _BOOL_OPS[name] if is_bool else _OPS[name]


def wait(request, nbytes=0):
    """Wait for one request without holding a core busy for the whole wait."""
    test = request.Test
    if test():
        return
    clock = time.perf_counter
    deadline = clock() + _SPIN_SECONDS + nbytes * _SPIN_SECONDS_PER_BYTE
    while clock() < deadline:
        if test():
            return
        time.sleep(_SHORT_SLEEP)
    while not test():
        time.sleep(_POLL_SLEEP)


def wait_all(requests, nbytes=0):
    for request in requests:
        wait(request, nbytes)


def run_blocking(comm, start, nbytes):
    """Start a collective and wait for it; large ones meet at a polite barrier first."""
    if nbytes >= LARGE and comm.Get_size() > 1:
        wait(comm.Ibarrier())
        for request in start():
            request.Wait()
        return
    wait_all(start(), nbytes)


def test_all(requests):
    return all(request.Test() for request in requests)


def abort_on_uncaught():
    """Make an uncaught exception in this rank end every rank of the job.

    Without this, the failing rank's exit-time MPI_Finalize waits for ranks that wait for
    it, and the job hangs. The traceback is printed first, then MPI_Abort ends the job.
    """
    previous = sys.excepthook

    def hook(kind, value, traceback):
        previous(kind, value, traceback)
        sys.stderr.flush()
        sys.stdout.flush()
        # MPI_Abort tears the job down at once, and Hydra's proxy drops what it has not yet
        # forwarded from this rank's pipes: on a busy machine the traceback was cut after
        # its first line. A moment's grace lets the proxy pass it on.
        time.sleep(_ABORT_GRACE_S)
        MPI.COMM_WORLD.Abort(1)

    if getattr(sys.excepthook, "_ember_abort", False):
        return
    hook._ember_abort = True
    sys.excepthook = hook
