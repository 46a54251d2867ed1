"""DataLoader: batches from a dataset, in the main process or in worker processes.

The loader validates its options as PyTorch does (same errors, same text), builds
the default samplers (SequentialSampler, RandomSampler with the loader's
generator, BatchSampler), and hands iteration to `_iterators`. Every iterator
draws one 64-bit base seed from the loader's generator before the first sample,
as PyTorch does, so the RNG stream (and hence the shuffling order) matches
PyTorch's step for step.
"""
import math
import multiprocessing
import os
import warnings

from . import _utils
from ._iterators import _MultiProcessingDataLoaderIter, _SingleProcessDataLoaderIter
from ._utils.fetch import _DatasetKind
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info

# Attributes that fix what an iterator yields; changing them mid-life is refused.
_FROZEN_ATTRIBUTES = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                      "persistent_workers")


class _InfiniteConstantSampler(Sampler):
    """None forever: the sampler of an iterable dataset, whose stream decides the end."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over `dataset` in batches, with optional shuffling and worker processes.

    With `num_workers > 0`, each worker is a separate process holding a copy of
    the dataset; batches come back in sampler order. `persistent_workers` keeps
    the workers between epochs. `pin_memory` is accepted; without an accelerator
    it does nothing (with PyTorch's warning).
    """

    _frozen = False  # set once __init__ is done; guards _FROZEN_ATTRIBUTES

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        prefetch_factor = _check_worker_options(num_workers, timeout, prefetch_factor,
                                                persistent_workers)
        # num_workers before multiprocessing_context: the context's setter reads it.
        for name, value in (("dataset", dataset), ("num_workers", num_workers),
                            ("prefetch_factor", prefetch_factor), ("pin_memory", pin_memory),
                            ("pin_memory_device", pin_memory_device), ("timeout", timeout),
                            ("worker_init_fn", worker_init_fn),
                            ("multiprocessing_context", multiprocessing_context),
                            ("in_order", in_order)):
            setattr(self, name, value)

        iterable = isinstance(dataset, IterableDataset)
        self._dataset_kind = _DatasetKind.Iterable if iterable else _DatasetKind.Map
        if iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        batch_size, drop_last = _check_batching_options(shuffle, sampler, batch_sampler,
                                                        batch_size, drop_last)
        sampler = sampler if sampler is not None else self._default_sampler(shuffle, generator)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        for name, value in (("batch_size", batch_size), ("drop_last", drop_last),
                            ("sampler", sampler), ("batch_sampler", batch_sampler),
                            ("generator", generator)):
            setattr(self, name, value)
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        self.persistent_workers = persistent_workers
        self._frozen = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def _auto_collation(self):
        """Batching is on exactly when there is a batch sampler to hand out index lists."""
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What the iterator draws from: the batch sampler when batching, else the sampler."""
        return self.sampler if self.batch_sampler is None else self.batch_sampler

    def _default_sampler(self, shuffle, generator):
        """None forever for a stream; else the dataset's indices, shuffled or in order."""
        if self._dataset_kind == _DatasetKind.Iterable:
            return _InfiniteConstantSampler()
        return (RandomSampler(self.dataset, generator=generator) if shuffle
                else SequentialSampler(self.dataset))

    @property
    def multiprocessing_context(self):
        """The context the workers start in; None leaves the choice to the iterator."""
        return self._mp_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        self._mp_context = _resolve_context(context, self.num_workers)

    def __setattr__(self, attr, val):
        if self._frozen and attr in _FROZEN_ATTRIBUTES:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    def _get_iterator(self):
        if self.num_workers > 0:
            self.check_worker_number_rationality()
            return _MultiProcessingDataLoaderIter(self)
        return _SingleProcessDataLoaderIter(self)

    def __iter__(self):
        """A fresh iterator per epoch, except that persistent workers live in one iterator
        for the loader's whole life, rewound at each new epoch instead of rebuilt."""
        if not self.persistent_workers or self.num_workers <= 0:
            return self._get_iterator()
        kept = self._iterator
        if kept is None:
            kept = self._iterator = self._get_iterator()
        else:
            kept._reset(self)
        return kept

    def __len__(self):
        if self._dataset_kind != _DatasetKind.Iterable:
            return len(self._index_sampler)
        # Remembered so the iterator can warn if the dataset yields more than it claimed.
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last else math.ceil(
                length / self.batch_size)
        return length

    def check_worker_number_rationality(self):
        """Warn, as PyTorch does, when asking for more workers than usable CPUs."""
        if not self.num_workers:
            return
        # The affinity mask is what this process may really use; cpu_count ignores cpusets.
        has_affinity = hasattr(os, "sched_getaffinity")
        usable = len(os.sched_getaffinity(0)) if has_affinity else os.cpu_count()
        if usable is None or self.num_workers > usable:
            warnings.warn(_worker_count_message(usable, self.num_workers, has_affinity),
                          stacklevel=2)


def _resolve_context(context, num_workers):
    """A start-method name becomes its context; anything but None or a context is refused."""
    if context is None:
        return None
    if num_workers <= 0:
        raise ValueError("multiprocessing_context can only be used with multi-process "
                         f"loading (num_workers > 0), but got num_workers={num_workers}")
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError("multiprocessing_context option should specify a valid start "
                             f"method in {methods!r}, but got multiprocessing_context="
                             f"{context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or "
                        "a string specifying the start method, but got "
                        f"multiprocessing_context={context}")
    return context


def _worker_option_rules(num_workers, timeout, prefetch_factor, persistent_workers):
    """(broken?, message) per multiprocessing option, in the order PyTorch checks them.

    A generator, so each rule is evaluated only once the ones before it have passed.
    """
    yield num_workers < 0, ("num_workers option should be non-negative; use num_workers=0 "
                            "to disable multiprocessing.")
    yield timeout < 0, "timeout option should be non-negative"
    yield num_workers == 0 and prefetch_factor is not None, (
        "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
        "to enable multiprocessing, otherwise set prefetch_factor to None.")
    yield prefetch_factor is not None and prefetch_factor < 0, (
        "prefetch_factor option should be non-negative")
    yield persistent_workers and num_workers == 0, (
        "persistent_workers option needs num_workers > 0")


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    """Validate the multiprocessing options; returns the effective prefetch_factor."""
    for broken, message in _worker_option_rules(num_workers, timeout, prefetch_factor,
                                                persistent_workers):
        if broken:
            raise ValueError(message)
    # Two batches in flight per worker unless told otherwise.
    return 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor


def _check_iterable_options(shuffle, sampler, batch_sampler):
    """An iterable dataset decides its own order: no shuffle, sampler or batch_sampler."""
    for name, value, given in (("shuffle", shuffle, shuffle not in {False, None}),
                               ("sampler", sampler, sampler is not None),
                               ("batch_sampler", batch_sampler, batch_sampler is not None)):
        if given:
            raise ValueError("DataLoader with IterableDataset: expected unspecified "
                             f"{name} option, but got {name}={value}")


def _check_batching_options(shuffle, sampler, batch_sampler, batch_size, drop_last):
    """Refuse contradictory sampling options; returns the effective (batch_size, drop_last).

    A batch_sampler decides batch size and dropping itself, so it leaves batch_size
    None and drop_last False on the loader, as PyTorch records them.
    """
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is None:
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        return batch_size, drop_last
    if batch_size != 1 or shuffle or sampler is not None or drop_last:
        raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                         "shuffle, sampler, and drop_last")
    return None, False


def _worker_count_message(suggested, created, cpuset_checked):
    if suggested is None:
        advice = ("DataLoader is not able to compute a suggested max number of worker in "
                  "current system.")
    else:
        note = "" if cpuset_checked else " (`cpuset` is not taken into account)"
        advice = (f"Our suggested max number of worker in current system is {suggested}{note}, "
                  "which is smaller than what this DataLoader is going to create.")
    return (f"This DataLoader will create {created} worker processes in total. {advice} "
            "Please be aware that excessive worker creation might get DataLoader running slow "
            "or even freeze, lower the worker number to avoid potential slowness/freeze if "
            "necessary.")
