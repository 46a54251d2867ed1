"""Datasets: map-style (`__getitem__`/`__len__`) and iterable-style (`__iter__`).

The combinators (Subset, ConcatDataset, ChainDataset, StackDataset) and
`random_split` follow PyTorch 2.13, including its error types and messages;
`random_split` draws one `randperm` from the given generator, so the same seed
gives PyTorch's split.
"""
import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

from ..._random import default_generator
from ...ops.random import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map from keys to samples: subclasses define `__getitem__` (and usually `__len__`).

    A subclass may also define `__getitems__(indices)` to fetch a whole batch at once;
    the DataLoader then calls it instead of `__getitem__` once per index.
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """A stream of samples: subclasses define `__iter__`.

    With `num_workers > 0` every worker iterates its own copy; use
    `get_worker_info()` in `__iter__` or in `worker_init_fn` to split the work.
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of several tensors sharing their first dimension."""

    def __init__(self, *tensors):
        # tensors[0] is read inside the loop: no tensors at all is an (empty) dataset.
        if any(part.size(0) != tensors[0].size(0) for part in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        # A list comprehension: this runs once per sample, and beats a generator here.
        return tuple([part[index] for part in self.tensors])

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples are tuples (positional datasets) or dicts (keyword datasets) of the
    samples at the same index in each dataset."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or"
                             "``dict``- (via ``kwargs``) like input/output, but both types are "
                             "given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(dataset) for dataset in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        parts = self.datasets
        if isinstance(parts, dict):
            return {key: part[index] for key, part in parts.items()}
        return tuple([part[index] for part in parts])

    def __getitems__(self, indices):
        named = isinstance(self.datasets, dict)
        items = self.datasets.items() if named else enumerate(self.datasets)
        columns = {key: _fetch_many(dataset, indices) for key, dataset in items}
        if named:
            return [{key: column[i] for key, column in columns.items()}
                    for i in range(len(indices))]
        return [tuple(column[i] for column in columns.values()) for i in range(len(indices))]

    def __len__(self):
        return self._length


def _fetch_many(dataset, indices):
    """The samples at `indices`, through `__getitems__` where the dataset has one."""
    if callable(getattr(dataset, "__getitems__", None)):
        items = dataset.__getitems__(indices)
        if len(items) != len(indices):
            raise ValueError("Nested dataset's output size mismatch."
                             f" Expected {len(indices)}, got {len(items)}")
        return items
    return [dataset[index] for index in indices]


class ConcatDataset(Dataset):
    """Several map-style datasets end to end; an index finds its part by bisection."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(part) for part in sequence))

    def __init__(self, datasets):
        parts = self.datasets = list(datasets)
        if not parts:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(part, IterableDataset) for part in parts):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        # cumulative_sizes[i]: one past the last index that part i serves
        self.cumulative_sizes = self.cumsum(parts)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:  # counts from the end, but only once around
            total = len(self)
            if idx < -total:
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += total
        part = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[part - 1] if part else 0
        return self.datasets[part][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Several iterable datasets one after another, chained lazily."""

    def __init__(self, datasets):
        self.datasets = datasets  # kept as given: it may itself be a lazy iterable

    def __iter__(self):
        for dataset in self.datasets:
            _check_iterable(dataset)
            yield from dataset

    def __len__(self):
        total = 0
        for dataset in self.datasets:
            _check_iterable(dataset)
            total += len(dataset)
        return total


def _check_iterable(dataset):
    if not isinstance(dataset, IterableDataset):
        raise AssertionError("ChainDataset only supports IterableDataset")


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        # A subclass overriding only __getitem__ would be bypassed by the
        # DataLoader, which calls __getitems__; PyTorch refuses it up front.
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            name = type(self).__name__
            raise NotImplementedError(
                f"{name} overrides __getitem__ but not __getitems__. When subclassing Subset "
                "and overriding __getitem__, you must also override __getitems__ to ensure "
                "DataLoader works correctly with your custom logic. A simple implementation:"
                "\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        chosen = self.indices
        if isinstance(idx, list):  # a batch of positions: one lookup in the parent
            return self.dataset[[chosen[position] for position in idx]]
        return self.dataset[chosen[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Split `dataset` into non-overlapping Subsets of the given lengths (or fractions).

    Fractions summing to 1 become floor(fraction * len(dataset)) each, and the
    remainder is handed out one by one, round-robin from the first split, as
    PyTorch does. The indices are one `randperm(len(dataset), generator=generator)`.
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]


def _fraction_lengths(total, fractions):
    lengths = []
    for i, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(total * fraction))
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths
