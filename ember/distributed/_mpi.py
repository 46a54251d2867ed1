"""The one module that imports mpi4py: MPI's world, its reduce ops, and a polite wait.

Imported only when a process group is made, so `import ember` and
`ember.distributed.is_available()` never start MPI. Blocking MPI calls spin a core
while they wait (measured: 2.3 s of CPU in a 3 s barrier), which starves the other
ranks on a machine with few cores; every wait here polls a nonblocking request with
`Test()` and sleeps briefly between polls once the request has had a short spin.

The slow polls also watch for the two ways a wait can fail, as torch's gloo does: the
group's timeout passing, and a rank leaving the job (see `watch_departures`).
"""
import atexit
import os
import sys
import time

from mpi4py import MPI

__all__ = ["MPI", "world", "wait", "wait_all", "op_for", "abort_on_uncaught", "watch_departures"]

# MPICH moves a message only inside MPI calls, so a wait that sleeps while data is flowing
# stalls the transfer, and a pure Test() spin starves the other processes of a shared
# machine. A wait therefore first polls with sched_yield() between Test()s (the CPU goes to
# any other runnable process; on an idle core it returns in under a microsecond) for as
# long as its bytes should take at a modest 1 GB/s, plus 5 ms; then every 0.5 ms: by then
# it waits for a rank that is still busy. The 5 ms cover a DDP step's end, where one rank
# finishes backward a little before the other. (Sleeping 50 us between polls instead
# really sleeps ~120 us on this kind of machine, timer slack included; a 1 MB all_reduce
# between 2 ranks, several rounds of messages, then took 0.75 ms instead of 0.17.)
# Blocking collectives of at least LARGE bytes first wait politely for every rank to
# arrive (Ibarrier), then let MPI's own Wait drive the transfer at full speed.
_SPIN_SECONDS = 0.005
_SPIN_SECONDS_PER_BYTE = 1e-9
_POLL_SLEEP = 0.0005
_ABORT_GRACE_S = 0.2  # before MPI_Abort, for the traceback to reach the launcher
LARGE = 1 << 20
# A rank that has left may still have finished the collective a peer waits on (its bytes
# already sent): the peer waits this long after the notice before it gives up.
_DEPARTURE_GRACE_S = 0.5
_NOTICE_TAG = 1
_NOTICE_SEND_S = 1.0    # how long an exiting rank tries to hand its notices over

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


def wait(request, nbytes=0, timeout=None, ranks=None):
    """Wait for one request without holding a core busy for the whole wait.

    Raises torch's RuntimeError when `timeout` seconds pass, or when a rank of `ranks`
    (global ranks; None: any) has left the job and the request still has not completed
    after a short grace.
    """
    test = request.Test
    if test():
        return
    clock = time.perf_counter
    begin = clock()
    deadline = begin + _SPIN_SECONDS + nbytes * _SPIN_SECONDS_PER_BYTE
    while clock() < deadline:
        if test():
            return
        os.sched_yield()
    give_up = None if timeout is None else begin + timeout
    left_at = None
    while not test():
        time.sleep(_POLL_SLEEP)
        now = clock()
        if give_up is not None and now > give_up:
            raise RuntimeError(f"Timed out waiting {round(timeout * 1000)}ms for recv "
                               "operation to complete")
        if left_at is None:
            if _departures.gone(ranks):
                left_at = now
        elif now - left_at > _DEPARTURE_GRACE_S:
            raise RuntimeError(_departures.message(ranks))


def wait_all(requests, nbytes=0, timeout=None, ranks=None):
    for request in requests:
        wait(request, nbytes, timeout, ranks)


def run_blocking(comm, start, nbytes, timeout=None, ranks=None):
    """Start a collective and wait for it; large ones meet at a polite barrier first."""
    if nbytes >= LARGE and comm.Get_size() > 1:
        wait(comm.Ibarrier(), 0, timeout, ranks)
        for request in start():
            request.Wait()
        return
    wait_all(start(), nbytes, timeout, ranks)


class _Departures:
    """Notices of ranks that left the job, on a private duplicate of MPI_COMM_WORLD.

    A rank that ends by returning or `sys.exit` (no uncaught exception, so no Abort) sits
    in MPI_Finalize until every rank gets there; a peer waiting on it in a collective
    would wait forever. So at exit each rank sends every other rank a one-integer notice,
    and waits check for one: a peer still waiting on a departed rank raises, as gloo's
    "Connection closed by peer" does, and its excepthook's Abort ends the job.
    """

    def __init__(self):
        self.comm = None
        self.left = []

    def start(self, world):
        if self.comm is not None or world.Get_size() < 2:
            return
        self.comm = world.Dup()
        self.buffer = bytearray(8)
        self._post()
        atexit.register(self.announce)

    def _post(self):
        self.request = self.comm.Irecv(self.buffer, source=MPI.ANY_SOURCE, tag=_NOTICE_TAG)

    def gone(self, ranks):
        """Whether a rank of `ranks` (None: any) has sent its notice."""
        if self.comm is None:
            return False
        while self.request.Test():
            self.left.append(int.from_bytes(self.buffer, "little"))
            self._post()
        return any(ranks is None or r in ranks for r in self.left)

    def message(self, ranks):
        rank = next(r for r in self.left if ranks is None or r in ranks)
        return (f"Connection closed by peer: rank {rank} left the job (it returned or called "
                "sys.exit) while this rank waited for it in a collective. This is typically "
                "caused by a remote worker crashing or skipping a collective. Check the logs "
                "of the remote worker before reporting an error.")

    def announce(self):
        """At exit: tell every other rank that this one has left, then stop listening."""
        comm = self.comm
        if comm is None or MPI.Is_finalized():
            return
        me = comm.Get_rank().to_bytes(8, "little")
        sends = [comm.Isend(me, dest=r, tag=_NOTICE_TAG) for r in range(comm.Get_size())
                 if r != comm.Get_rank()]
        give_up = time.perf_counter() + _NOTICE_SEND_S
        while not all(s.Test() for s in sends) and time.perf_counter() < give_up:
            time.sleep(_POLL_SLEEP)
        self.request.Cancel()
        self.request.Wait()
        self.comm = None


_departures = _Departures()


def watch_departures():
    """Send notices at exit and watch for other ranks' (called once the job has peers)."""
    _departures.start(MPI.COMM_WORLD)


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
