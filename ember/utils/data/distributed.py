"""DistributedSampler: each rank reads its own share of a dataset, the same order as torch.

Every rank shuffles the whole index list identically (a Generator seeded with
seed + epoch, then randperm, which matches torch's CPU stream), pads it by repeating its
head until it divides evenly (or cuts the tail with drop_last), then takes every
num_replicas-th index starting at its rank. Call set_epoch(e) each epoch for a new order.
"""
import math

from ... import distributed as _distributed
from ..._random import Generator
from ...ops.random import randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _group_value(getter):
    """The default group's world size or rank, for a caller who left it out."""
    if not _distributed.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return getattr(_distributed, getter)()


def _share(size, replicas, drop_last):
    """Indices per rank: rounded up (padding), or down when the ragged tail is dropped."""
    if drop_last:
        return size // replicas
    return -(-size // replicas)


class DistributedSampler(Sampler):
    """Restricts loading to this rank's share of `dataset` (see the module docstring)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            num_replicas = _group_value("get_world_size")
        if rank is None:
            rank = _group_value("get_rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.seed, self.shuffle = dataset, seed, shuffle
        self.num_replicas, self.rank, self.drop_last = num_replicas, rank, drop_last
        self.epoch = 0
        self.num_samples = _share(len(dataset), num_replicas, drop_last)
        self.total_size = num_replicas * self.num_samples

    def __iter__(self):
        size = len(self.dataset)
        if self.shuffle:
            generator = Generator()
            generator.manual_seed(self.seed + self.epoch)
            order = randperm(size, generator=generator).tolist()
        else:
            order = list(range(size))
        if self.drop_last:
            order = order[:self.total_size]
        else:
            missing = self.total_size - len(order)
            if missing > 0:
                repeats = math.ceil(missing / len(order))
                order += (order * repeats)[:missing]
        return iter(order[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use `epoch` in the shuffle's seed, so each epoch has a different order."""
        self.epoch = epoch
