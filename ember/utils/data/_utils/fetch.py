"""Fetchers: turn one index (or one list of indices) from the sampler into collated data.

The same fetchers serve the main process (num_workers=0) and the workers, so a
batch is built the same way wherever it is loaded.
"""

_END = object()  # what next() gives back once a dataset's stream is spent


class _DatasetKind:
    """The two kinds of dataset a loader reads: indexed (Map) or a stream (Iterable)."""

    Map, Iterable = 0, 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        fetcher_class = _MapDatasetFetcher if kind == _DatasetKind.Map else _IterableDatasetFetcher
        return fetcher_class(dataset, auto_collation, collate_fn, drop_last)


class _BaseDatasetFetcher:
    """What every fetcher needs: the dataset, whether to batch, and how to collate."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.collate_fn = dataset, collate_fn
        self.auto_collation, self.drop_last = auto_collation, drop_last

    def fetch(self, possibly_batched_index):
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """Pulls from the dataset's iterator: one sample, or as many as the batch holds.

    Raises StopIteration once the stream is spent (or when only a short final
    batch is left and drop_last is set). The sampler's indices are placeholders;
    only their count matters.
    """

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False  # the stream raised StopIteration: every later fetch stops

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        stream = self.dataset_iter
        if not self.auto_collation:
            return self.collate_fn(next(stream))
        batch = []
        for _placeholder in possibly_batched_index:
            sample = next(stream, _END)
            if sample is _END:
                self.ended = True
                break
            batch.append(sample)
        if not batch or (self.drop_last and len(batch) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(batch)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """Indexes the dataset: `__getitems__(batch)` where defined, else one `[i]` per index."""

    def fetch(self, possibly_batched_index):
        dataset = self.dataset
        if not self.auto_collation:
            return self.collate_fn(dataset[possibly_batched_index])
        # A dataset may read a whole batch at once (one query, one disk read); a falsy
        # __getitems__ (e.g. set to None) opts out.
        read_batch = getattr(dataset, "__getitems__", None)
        if read_batch:
            return self.collate_fn(read_batch(possibly_batched_index))
        return self.collate_fn([dataset[index] for index in possibly_batched_index])
