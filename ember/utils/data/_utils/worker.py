"""The worker side of multi-process loading: seeding, the fetch loop, `get_worker_info`.

A worker seeds Python's `random` and ember's default generator with
`base_seed + worker_id` (base_seed is one 64-bit draw from the loader's
generator in the main process) and NumPy's global generator with PyTorch's
SeedSequence-style mix of the two, so a worker sees the same seeds as a PyTorch
worker would. It then answers (task index, indices) messages with (task index,
data) until it receives None, the main process dies, or the done event is set.
"""
import os
import queue
import random
from dataclasses import dataclass

from ...._backend import numpy as np
from ...._random import manual_seed
from . import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper
from .fetch import _DatasetKind

__all__ = ["WorkerInfo", "get_worker_info"]

_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What a worker knows about itself: its id, the worker count, its seed and its
    own copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """The WorkerInfo of the current DataLoader worker; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's notice that its copy of an iterable dataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Tells a persistent worker that a new epoch begins (fresh fetcher)."""

    seed: int = None


class ManagerWatchdog:
    """Notices when the main process has died (the worker is re-parented)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_MASK32 = 0xFFFFFFFF


def _hash32(value, multiplier_state):
    """One step of NumPy SeedSequence's hashmix, with its evolving multiplier."""
    value = (value ^ multiplier_state[0]) & _MASK32
    multiplier_state[0] = (multiplier_state[0] * 0x931E8875) & _MASK32
    value = (value * multiplier_state[0]) & _MASK32
    return (value ^ (value >> 16)) & _MASK32


def _mix32(x, y):
    result = ((0xCA01F9DD * x) - (0x4973F715 * y)) & _MASK32
    return (result ^ (result >> 16)) & _MASK32


def _generate_state(base_seed, worker_id):
    """The four 32-bit words PyTorch seeds NumPy with in a worker (a SeedSequence of
    [worker_id, base_seed low, base_seed high, 0], computed without NumPy)."""
    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    multiplier = [0x43B0D7E5]
    pool = [_hash32(word, multiplier) for word in entropy]
    for source in range(4):
        for target in range(4):
            if source != target:
                pool[target] = _mix32(pool[target], _hash32(pool[source], multiplier))
    multiplier = [0x8B51F9DD]
    state = []
    for word in pool:
        word = (word ^ multiplier[0]) & _MASK32
        multiplier[0] = (multiplier[0] * 0x58F38DED) & _MASK32
        word = (word * multiplier[0]) & _MASK32
        state.append((word ^ (word >> 16)) & _MASK32)
    return state


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers):
    """Serve fetch requests from `index_queue` until told to stop."""
    global _worker_info
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        fetcher, init_exception = _start(dataset_kind, dataset, auto_collation, collate_fn,
                                         drop_last, init_fn, worker_id)
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                message = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(message, _ResumeIteration):
                data_queue.put((message, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if message is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # drain what was sent before the stop; the answer is not wanted
            task, index = message
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                data, iteration_end = _fetch(fetcher, index, dataset_kind, worker_id)
            data_queue.put((task, data))
            del data, task, index, message  # free the batch before blocking again
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        # The main process has stopped reading: don't block exit flushing the pipe.
        data_queue.cancel_join_thread()
        data_queue.close()


def _start(dataset_kind, dataset, auto_collation, collate_fn, drop_last, init_fn, worker_id):
    """Run worker_init_fn and build the fetcher; an exception is kept to answer the first
    request with, as PyTorch does."""
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                              collate_fn, drop_last)
        return fetcher, None
    except Exception:
        return None, ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")


def _fetch(fetcher, index, dataset_kind, worker_id):
    """(data, iteration_end): the batch, an ExceptionWrapper, or the end-of-stream notice."""
    try:
        return fetcher.fetch(index), False
    except StopIteration:
        if dataset_kind == _DatasetKind.Iterable:
            return _IterableDatasetStopIteration(worker_id), True
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False
    except Exception:
        return ExceptionWrapper(where=f"in DataLoader worker process {worker_id}"), False
