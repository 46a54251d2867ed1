"""The iterators a DataLoader returns: one in the main process, one over worker processes.

Multi-process loading, as in PyTorch: the main process sends (task, indices) to
the workers round-robin through one index queue each, keeping at most
`prefetch_factor * num_workers` tasks in flight; workers answer on a shared
result queue; answers arriving out of order wait in `_task_info` until their
turn, so batches come out in sampler order. Every wait on the result queue is
bounded: a dead worker raises "DataLoader worker (pid(s) ...) exited
unexpectedly", a `timeout` raises "DataLoader timed out after ... seconds", and an
exception in a worker is re-raised in the main process with the worker's
traceback. Workers stop when the iterator is exhausted (unless persistent), is
garbage-collected, or the main process dies.
"""
import itertools
import multiprocessing
import pickle
import queue
import signal
import sys
import warnings
from multiprocessing import connection

from ... import cuda
from ..._dtype import int64
from ...ops.creation import empty
from . import _utils
from ._utils import ExceptionWrapper
from ._utils.fetch import _DatasetKind
from ._utils.worker import _IterableDatasetStopIteration, _ResumeIteration, _worker_loop


# (iterator attribute, loader attribute): copied once, so that editing the loader
# (num_workers is not frozen) cannot change an epoch already running.
_LOADER_SNAPSHOT = (
    ("_dataset", "dataset"), ("_dataset_kind", "_dataset_kind"),
    ("_IterableDataset_len_called", "_IterableDataset_len_called"),
    ("_auto_collation", "_auto_collation"), ("_drop_last", "drop_last"),
    ("_index_sampler", "_index_sampler"), ("_num_workers", "num_workers"),
    ("_timeout", "timeout"), ("_collate_fn", "collate_fn"),
    ("_persistent_workers", "persistent_workers"),
)


class _BaseDataLoaderIter:
    """What both iterators share: the loader's settings, the sampler, the yield count."""

    def __init__(self, loader):
        for mine, source in _LOADER_SNAPSHOT:
            setattr(self, mine, getattr(loader, source))
        self._pin_memory = False  # nothing to pin into: ember tensors have no pinned memory
        _warn_pin_memory(loader)
        self._sampler_iter = iter(self._index_sampler)
        # Drawn even without workers, as PyTorch does: it advances the generator.
        self._base_seed = int(empty((), dtype=int64).random_(generator=loader.generator).item())
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        """Rewind for a new epoch (persistent workers): a fresh pass over the sampler."""
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._num_yielded = 0
        self._sampler_iter = iter(self._index_sampler)

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warnings.warn(self._overrun_message(), stacklevel=2)
        return data

    def _overrun_message(self):
        message = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
        if self._num_workers > 0:
            message += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                        "IterableDataset for examples.")
        return message

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


def _exit_status_message(pid, exitcode):
    """PyTorch's words for a worker that died of a signal (negative exit code) or exited."""
    if exitcode < 0:
        return f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(-exitcode)}. "
    return (f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {exitcode}. "
            "Details are lost due to multiprocessing. Rerunning with num_workers=0 may give "
            "better error trace.")


def _warn_pin_memory(loader):
    if loader.pin_memory and loader.pin_memory_device:
        warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as "
                      f"the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                      stacklevel=3)
    if loader.pin_memory and not cuda.is_available():
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                      "device pinned memory won't be used.", stacklevel=3)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        # Either call may raise StopIteration: the sampler or the stream is spent.
        return self._dataset_fetcher.fetch(next(self._sampler_iter))


_PICKLE_ADVICE = (
    "Got pickle error when attempting to start a worker Process. This might be because the "
    "worker Process arguments are not picklable. Python 3.14+ changed the multiprocessing start "
    "method in non-Mac POSIX platforms to 'forkserver', which requires the worker Process "
    "arguments to be picklable. You can also try multiprocessing.set_start_method('fork').")


def _default_context():
    """fork on Linux (workers inherit the dataset without pickling), else the default."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Iterates once over the dataset (or once per epoch, with persistent workers)."""

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or _default_context()
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = context.Queue()
        self._data_queue = self._worker_result_queue
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues = []
        self._workers = []
        self._workers_status = [True] * self._num_workers  # for a shutdown before _reset
        for worker_id in range(self._num_workers):
            self._start_worker(context, worker_id)
        self._reset(loader, first_iter=True)

    def _start_worker(self, context, worker_id):
        index_queue = context.Queue()
        index_queue.cancel_join_thread()  # never block exit on tasks no worker will read
        worker = context.Process(
            target=_worker_loop,
            args=(self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                  self._workers_done_event, self._auto_collation, self._collate_fn,
                  self._drop_last, self._base_seed, self._worker_init_fn, worker_id,
                  self._num_workers, self._persistent_workers))
        worker.daemon = True
        try:
            worker.start()
        except (TypeError, AttributeError, pickle.PicklingError):
            warnings.warn(_PICKLE_ADVICE, stacklevel=4)
            raise
        self._index_queues.append(index_queue)
        self._workers.append(worker)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to send
        self._rcvd_idx = 0  # the next task to return
        # task -> (worker_id,) while outstanding, (worker_id, data) once arrived early
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            self._resume_workers()
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _resume_workers(self):
        """Start a new epoch on persistent workers and wait until each has acknowledged."""
        for index_queue in self._index_queues:
            index_queue.put(_ResumeIteration())
        pending = self._num_workers
        while pending > 0:
            task, _ = self._get_data()
            if isinstance(task, _ResumeIteration):
                pending -= 1

    def _try_get_data(self, timeout=None):
        """(True, message), or (False, None) when nothing arrived within `timeout` while
        every worker is still alive.

        The wait covers the result queue and every active worker's process sentinel,
        so a worker that dies (killed, crashed, `os._exit`) is noticed at once, as
        PyTorch's SIGCHLD handler notices it, without a signal handler or polling.
        """
        try:  # a result already waiting: the cheapest read, no wait set to build
            return True, self._data_queue.get(block=False)
        except queue.Empty:
            pass
        if timeout is None:
            timeout = _utils.MP_STATUS_CHECK_INTERVAL
        reader = self._data_queue._reader
        waiting_on = [reader]
        waiting_on += [worker.sentinel for worker_id, worker in enumerate(self._workers)
                       if self._workers_status[worker_id]]
        ready = connection.wait(waiting_on, timeout)
        if reader in ready:
            try:
                return True, self._data_queue.get(timeout=timeout)
            except queue.Empty:
                pass
        self._raise_for_dead_workers(queue.Empty())
        return False, None

    def _raise_for_dead_workers(self, cause):
        """PyTorch's error for active workers that are gone; the first one's exit status
        (its signal or exit code) is the cause, as PyTorch's SIGCHLD handler words it."""
        failed = [(worker_id, worker) for worker_id, worker in enumerate(self._workers)
                  if self._workers_status[worker_id] and not worker.is_alive()]
        if not failed:
            return
        for worker_id, _ in failed:
            self._mark_worker_as_unavailable(worker_id)
        pids = ", ".join(str(worker.pid) for _, worker in failed)
        first = failed[0][1]
        if first.exitcode:
            cause = RuntimeError(_exit_status_message(first.pid, first.exitcode))
        raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from cause

    def _get_data(self):
        """The next message from the workers; with a `timeout`, one bounded wait only.

        Without one, waits in MP_STATUS_CHECK_INTERVAL slices, checking the workers are
        alive between slices.
        """
        limit = self._timeout if self._timeout > 0 else None
        while True:
            arrived, message = self._try_get_data(limit)
            if arrived:
                return message
            if limit is not None:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self):
        while True:
            if not self._advance_to_pending_task():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            parked = self._task_info[self._rcvd_idx]
            if len(parked) == 2:  # it arrived early and has waited for its turn
                return self._hand_out(self._rcvd_idx, parked[1])
            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks "
                                     "when fetching next data")
            task, answer = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(answer, _IterableDatasetStopIteration):
                self._retire_worker(answer.worker_id)
            elif task == self._rcvd_idx or not self._in_order:
                return self._hand_out(task, answer)
            else:
                self._task_info[task] += (answer,)  # park it until its turn

    def _hand_out(self, task, answer):
        """Close `task` and return its answer; the turn moves on if it was `task`'s."""
        worker_id = self._task_info.pop(task)[0]
        if task == self._rcvd_idx:
            self._rcvd_idx += 1
        return self._process_data(answer, worker_id)

    def _advance_to_pending_task(self):
        """Skip tasks that will never be answered (their worker's stream ended); False when
        no task is left."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info.get(self._rcvd_idx)
            if info:
                if len(info) == 2 or self._workers_status[info[0]]:
                    return True
                del self._task_info[self._rcvd_idx]
            self._rcvd_idx += 1
        return False

    def _retire_worker(self, worker_id):
        """An iterable dataset's copy in this worker is spent: send it no more tasks."""
        if self._persistent_workers:
            self._workers_status[worker_id] = False
        else:
            self._mark_worker_as_unavailable(worker_id)
        self._try_put_index()

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        worker_id = self._next_active_worker(max_tasks)
        if worker_id is None:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _next_active_worker(self, max_tasks):
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id] and (
                    self._in_order or self._workers_num_tasks[worker_id]
                    < max_tasks // sum(self._workers_status)):
                return worker_id
        return None

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()  # refill the pipeline before handing this batch over
        if not isinstance(data, ExceptionWrapper):
            return data
        data.reraise()

    def _mark_worker_as_unavailable(self, worker_id):
        """Tell one worker to stop (None on its queue) and send it nothing more."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        """Stop every worker: done event, a None to each, a bounded join, then terminate."""
        if _utils is None or _utils.python_exit_status is not False or self._shutdown:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id)
            for worker in self._workers:
                worker.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
        finally:
            for worker in self._workers:
                if worker.is_alive():
                    worker.terminate()
                    worker.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        if hasattr(self, "_workers"):
            self._shutdown_workers()
