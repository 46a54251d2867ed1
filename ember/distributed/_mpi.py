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

# A request that finishes within this many polls never sleeps: a small collective costs
# microseconds, and MPICH only progresses messages inside MPI calls, so a large transfer
# also wants to be polled often at first. After that the waiter sleeps between polls.
_SPIN_POLLS = 2000
_POLL_SLEEP = 0.0005

_OPS = {"sum": MPI.SUM, "avg": MPI.SUM, "product": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX,
        "band": MPI.BAND, "bor": MPI.BOR, "bxor": MPI.BXOR}


def world():
    """MPI_COMM_WORLD (initialising MPI on first use, as importing mpi4py.MPI does)."""
    return MPI.COMM_WORLD


def op_for(name):
    return _OPS[name]


def wait(request):
    """Wait for one request without holding a core busy for the whole wait."""
    test = request.Test
    for _ in range(_SPIN_POLLS):
        if test():
            return
    while not test():
        time.sleep(_POLL_SLEEP)


def wait_all(requests):
    for request in requests:
        wait(request)


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
        MPI.COMM_WORLD.Abort(1)

    if getattr(sys.excepthook, "_ember_abort", False):
        return
    hook._ember_abort = True
    sys.excepthook = hook
