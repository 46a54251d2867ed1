"""Elementwise ufuncs on every core: a persistent pool of threads over array chunks.

PyTorch runs its elementwise CPU kernels on all intra-op threads; NumPy runs a ufunc
on one. NumPy's ufunc loops release the GIL, so the slices of one large result can
be computed at the same time by plain Python threads, each calling the same ufunc
on its slice with `out=`. Every element is computed by the same loop as in the
serial call, so the result is bit for bit the serial one (reductions are never
split: their summation order would change).

Why threads over NumPy rather than numexpr or numba (bench/bench_parallel.py has the
numbers): numexpr and numba compile their own `exp`/`log`/`tanh`, which differ from
NumPy's SIMD loops in the last bit, and both are extra dependencies; chunking NumPy's
own loops keeps every value, with NumPy alone.

Below `THRESHOLD` elements the hand-off to a worker (a queue put and a wake-up, some
tens of microseconds on a busy machine) costs more than the half of the work it
saves, so small arrays take the serial call. A large call is cut into a few more
jobs than threads, and the caller takes jobs too, so a worker that wakes late (an
oversubscribed machine) leaves its share to the caller instead of stalling it.
`ember.set_num_threads(1)` makes every call serial, and so does an oversubscribed
machine (`LOADED`), where every wait for a worker or for the GIL costs a time slice.
Threads do not survive `fork`: a forked child (a DataLoader worker) drops the parent's
pool and starts its own on first use.
"""
import os
import queue
import threading

from . import _settings
from ._backend import ndarray as _ndarray, numpy as _numpy

__all__ = ["THRESHOLD", "call", "copy", "run", "threads"]

_NUMBERS = {int, float, complex, bool}
# elements of the result. Measured on the quiet 2-core machine (x*y then x.exp(), best
# of 30): 2**18 serial 141 us, pooled 284; 2**20 587/511; 2**21 1807/1118; 10M 11.4/9.5 ms.
# A lone 1M multiply was still slower pooled (275 vs 154 us), hence 2**21.
THRESHOLD = 1 << 21
# Runnable tasks per core above which threads only wait: each hand-off to a worker, and
# each return of the GIL, then waits for a time slice (bench/bench_parallel.py at a load
# of 20 on 2 cores: a pooled 1M-element multiply took 27x the serial one).
LOADED = 1.5
_CORES = os.cpu_count() or 1
PIECE = 1 << 17   # elements per job when a large call is cut into more jobs than threads
# "lock" guards starting workers; "busy" is held by the one caller using them (another
# thread, or a job that itself calls `run`, computes serially instead of waiting).
_pool = {"workers": [], "pid": None, "lock": threading.Lock(), "busy": threading.Lock()}


def threads():
    """How many threads an elementwise call may use: ember.get_num_threads(), or one
    while the machine is oversubscribed (see LOADED)."""
    count = _settings.get_num_threads()
    if count > 1 and _loaded():
        return 1
    return count


def _loaded():
    """Whether the 1-minute load average exceeds LOADED runnable tasks per core."""
    try:
        return os.getloadavg()[0] > LOADED * _CORES
    except (AttributeError, OSError):  # no load average on this platform
        return False


class _Batch:
    """Jobs taken one at a time, in order, by whichever thread asks next: the caller
    and the workers. On a busy machine a worker may wake late; the caller has then
    taken its jobs already, so a call is never much slower than the serial one."""

    __slots__ = ("jobs", "next", "left", "lock", "finished", "error")

    def __init__(self, jobs):
        self.jobs, self.next, self.left = jobs, 0, len(jobs)
        self.lock, self.finished, self.error = threading.Lock(), threading.Event(), None

    def drain(self):
        jobs, lock = self.jobs, self.lock
        while True:
            with lock:
                index = self.next
                if index >= len(jobs):
                    return
                self.next = index + 1
            function, args, kwargs = jobs[index]
            jobs[index] = None   # a finished job holds no views of the caller's arrays
            try:
                function(*args, **kwargs)
            except BaseException as error:  # handed to the caller, which raises it
                if self.error is None:
                    self.error = error
            function = args = kwargs = None
            with lock:
                self.left -= 1
                if self.left == 0:
                    self.finished.set()


def _work(batches):
    """A worker: help with each batch it is handed, until the process ends."""
    while True:
        batches.get().drain()


def _workers(count):
    """The queues of `count` live workers, started (or restarted after fork) here."""
    pool = _pool
    if pool["pid"] != os.getpid() or len(pool["workers"]) < count:
        with pool["lock"]:
            if pool["pid"] != os.getpid():
                pool["workers"], pool["pid"] = [], os.getpid()
            while len(pool["workers"]) < count:
                batches = queue.SimpleQueue()
                threading.Thread(target=_work, args=(batches,), daemon=True,
                                 name=f"ember-elementwise-{len(pool['workers'])}").start()
                pool["workers"].append(batches)
    return pool["workers"]


def _forget_pool():
    """In a forked child: the parent's threads are gone, and its queues and lock may be
    held by them; start afresh."""
    _pool["workers"], _pool["pid"] = [], None
    _pool["lock"], _pool["busy"] = threading.Lock(), threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _split_axis(shape, parts):
    """The first axis long enough to give every thread a slice of its own, else None."""
    for axis, length in enumerate(shape):
        if length >= parts:
            return axis
    return None


def _row_major(array):
    """Whether the array's strides fall from the first axis to the last (broadcast and
    length-1 axes aside): then NumPy's own result is C-contiguous, as the pool's is, so
    the result's strides do not depend on the path taken."""
    previous = None
    for length, stride in zip(array.shape, array.strides):
        if length == 1 or stride == 0:
            continue
        if stride < 0 or previous is not None and stride > previous:
            return False
        previous = stride
    return True


def _slicer(array, out_ndim, axis, start, stop):
    """The part of an operand that feeds rows start:stop of `axis` of the result; a
    number, or an operand broadcast along that axis, feeds every part whole."""
    if array.__class__ is not _ndarray:
        return array
    own = axis - (out_ndim - array.ndim)
    if own < 0 or array.shape[own] == 1:
        return array
    return array[(slice(None),) * own + (slice(start, stop),)]


def call(ufunc, *args):
    """`ufunc(*args)` for NumPy arrays, split over the pool's threads when the result has
    at least THRESHOLD elements; the serial call otherwise."""
    size = 0
    for x in args:
        if x.__class__ is _ndarray and x.size > size:
            size = x.size
    if size < THRESHOLD:
        return ufunc(*args)
    count = threads()
    if count < 2:
        return ufunc(*args)
    return _chunked(ufunc, args, count)


def copy(array):
    """A C-contiguous copy of a NumPy array, bit for bit: from THRESHOLD elements a
    C-contiguous array is copied in slabs on every thread (a gradient that `.grad` must
    own, 40 MB of it in the big elementwise benchmark, 16 -> 11 ms on 2 threads)."""
    if array.size < THRESHOLD or not array.flags.c_contiguous:
        return array.copy()
    count = threads()   # asked only now: finding it may load threadpoolctl
    if count < 2:
        return array.copy()
    out = _numpy.empty_like(array)
    source, target = array.reshape(-1), out.reshape(-1)
    step = max(-(-source.size // (count * 2)), PIECE)
    run([(_numpy.copyto, (target[start:start + step], source[start:start + step]), {})
         for start in range(0, source.size, step)])
    return out


def _chunked(ufunc, args, count):
    """The parallel call: the result is allocated once (dtype from a one-element call, as
    the ufunc resolves it), then each thread fills its slab along one axis."""
    arrays = [x for x in args if x.__class__ is _ndarray]
    if len(arrays) + sum(x.__class__ in _NUMBERS for x in args) != len(args):
        return ufunc(*args)  # an array subclass or another library's array: its own call
    shape = _numpy.broadcast_shapes(*(x.shape for x in arrays))
    axis = _split_axis(shape, count)
    if (axis is None or ufunc.__class__ is not _numpy.ufunc or ufunc.nout != 1
            or not all(map(_row_major, arrays))):
        return ufunc(*args)
    probe = ufunc(*(x[(slice(0, 1),) * x.ndim] if x.__class__ is _ndarray else x
                    for x in args))
    out = _numpy.empty(shape, dtype=probe.dtype)
    length = shape[axis]
    size = out.size
    parts = max(count, min(4 * count, size // PIECE))
    step = -(-length // parts)
    index = (slice(None),) * axis
    jobs = []
    for start in range(0, length, step):
        slabs = tuple(_slicer(x, len(shape), axis, start, start + step) for x in args)
        jobs.append((ufunc, slabs, {"out": out[index + (slice(start, start + step),)]}))
    run(jobs, count - 1)
    return out


def run(jobs, helpers=None):
    """Run `function(*args, **kwargs)` for each job, on this thread and up to `helpers`
    workers (threads() - 1 by default) at once; returns when all are done, raising the
    first error any of them raised. While another caller holds the pool, all run here."""
    if helpers is None:
        helpers = threads() - 1
    helpers = min(helpers, len(jobs) - 1)
    busy = _pool["busy"]
    if helpers < 1 or not busy.acquire(blocking=False):
        for function, args, kwargs in jobs:
            function(*args, **kwargs)
        return
    try:
        batch = _Batch(jobs)
        for worker in _workers(helpers)[:helpers]:
            worker.put(batch)
        batch.drain()
        batch.finished.wait()
    finally:
        busy.release()
    if batch.error is not None:
        raise batch.error
