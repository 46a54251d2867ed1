"""Samplers: iterables of dataset indices (or of lists of indices, for BatchSampler).

The random samplers make exactly PyTorch's draws (same calls, same sizes, same
order) on ember's generator, which is bit-identical to PyTorch's, so a seed
gives PyTorch's order.
"""
import itertools
from typing import Generic, TypeVar

from ..._dtype import double, int64
from ..._random import Generator
from ...ops.creation import empty
from ...ops.interop import as_tensor
from ...ops.random import multinomial, randint, randperm

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: subclasses define `__iter__` and, ideally, `__len__`."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A shuffled order (a fresh permutation per pass), or `num_samples` draws with
    replacement.

    Without a generator each pass seeds a private generator from one 64-bit draw
    of the default generator, as PyTorch does, so `manual_seed` fixes the order.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.generator = data_source, generator
        self.replacement, self._num_samples = replacement, num_samples
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        count = self.num_samples  # the dataset's length when num_samples is None
        if not isinstance(count, int) or count <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={count}")

    @property
    def num_samples(self):
        """How many indices one pass yields: as asked, else one per sample of the dataset."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        size = len(self.data_source)
        generator = self.generator if self.generator is not None else _private_generator()
        if self.replacement:
            # Drawn 32 at a time: PyTorch's chunking decides which draws land where.
            whole, rest = divmod(self.num_samples, 32)
            for count in [32] * whole + [rest]:
                yield from randint(high=size, size=(count,), dtype=int64,
                                   generator=generator).tolist()
        else:
            # One fresh permutation per full pass over the data, then part of one more.
            whole, rest = divmod(self.num_samples, size)
            for keep in [size] * whole + [rest]:
                yield from randperm(size, generator=generator).tolist()[:keep]

    def __len__(self):
        return self.num_samples


def _private_generator():
    """A generator seeded by one 64-bit draw of the default one, as PyTorch seeds it."""
    generator = Generator()
    generator.manual_seed(int(empty((), dtype=int64).random_().item()))
    return generator


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (one permutation per pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights, self.generator = weights_tensor, generator
        self.num_samples, self.replacement = num_samples, replacement

    def __iter__(self):
        draws = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from iter(draws.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size`; `drop_last` drops
    a short final list."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while len(batch) == self.batch_size or (batch and not self.drop_last):
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self):
        whole, rest = divmod(len(self.sampler), self.batch_size)
        return whole + (1 if rest and not self.drop_last else 0)
