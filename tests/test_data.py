"""ember.utils.data against torch.utils.data: datasets, samplers, collation, DataLoader, workers.

Randomness is compared draw for draw: ember's generator is bit-identical to
PyTorch's, so the same seed must give the same split, shuffle and sample order.
Every test that starts worker processes runs under `guard`, which fails it after a
time limit instead of letting the suite hang, and checks that no worker outlives it.
"""
import collections
import ctypes
import doctest
import faulthandler
import gc
import multiprocessing
import os
import random
import re
import signal
import time
import warnings

import numpy as np
import pytest

import ember
import ember.utils.data as data
from ember.utils.data._utils import collate as collate_module

SEEDS = [0, 1, 7, 2024]
Point = collections.namedtuple("Point", ["x", "y"])


def lib_data(lib):
    """`torch.utils.data` or `ember.utils.data`, for code written once for both."""
    return lib.utils.data


def normalized(value):
    """A library-neutral picture of a batch: tensors become (dtype, shape, values)."""
    if hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "tolist") \
            and not isinstance(value, np.ndarray):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, {key: normalized(v) for key, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [normalized(v) for v in value])
    return (type(value).__name__, value)


def raised(function):
    """(type name, message) of what `function()` raises."""
    with pytest.raises(Exception) as info:
        function()
    return type(info.value).__name__, str(info.value)


class Squares:
    """A plain map-style dataset (no base class), as DataLoader accepts."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return index * index


def make_range_iterable(lib, start, end, shard=False):
    """An IterableDataset of range(start, end); `shard` splits it across workers."""
    base = lib_data(lib).IterableDataset

    class RangeStream(base):
        def __iter__(self):
            info = lib_data(lib).get_worker_info()
            if not shard or info is None:
                return iter(range(start, end))
            per_worker = -(-(end - start) // info.num_workers)
            first = start + info.id * per_worker
            return iter(range(first, min(first + per_worker, end)))

        def __len__(self):
            return end - start

    return RangeStream()


# ------------------------------------------------------------------------------ datasets
def test_tensor_dataset(torch):
    for lib in (ember, torch):
        dataset = lib_data(lib).TensorDataset(lib.arange(6.).reshape(3, 2), lib.arange(3))
        assert len(dataset) == 3
        x, y = dataset[1]
        assert x.tolist() == [2.0, 3.0] and y.item() == 1
    expected = raised(lambda: torch.utils.data.TensorDataset(torch.ones(2), torch.ones(3)))
    assert raised(lambda: data.TensorDataset(ember.ones(2), ember.ones(3))) == expected
    assert expected == ("AssertionError", "Size mismatch between tensors")


def test_dataset_base_and_add(torch):
    expected = raised(lambda: torch.utils.data.Dataset()[0])
    assert raised(lambda: data.Dataset()[0]) == expected
    joined = data.TensorDataset(ember.arange(3)) + data.TensorDataset(ember.arange(3, 5))
    assert isinstance(joined, data.ConcatDataset)
    assert [joined[i][0].item() for i in range(len(joined))] == [0, 1, 2, 3, 4]
    chained = make_range_iterable(ember, 0, 2) + make_range_iterable(ember, 5, 7)
    assert isinstance(chained, data.ChainDataset)
    assert list(chained) == [0, 1, 5, 6] and len(chained) == 4


def test_concat_dataset(torch):
    parts = [[0, 1, 2], [], [3], [4, 5]]
    ours, theirs = data.ConcatDataset(parts), torch.utils.data.ConcatDataset(parts)
    assert ours.cumulative_sizes == theirs.cumulative_sizes and len(ours) == len(theirs)
    for index in range(-len(ours), len(ours)):
        assert ours[index] == theirs[index]
    for bad in (lambda d: d[-7], lambda d: d[6]):
        assert raised(lambda: bad(ours)) == raised(lambda: bad(theirs))
    for make in (lambda lib: lib_data(lib).ConcatDataset([]),
                 lambda lib: lib_data(lib).ConcatDataset([[1], make_range_iterable(lib, 0, 1)])):
        assert raised(lambda: make(ember)) == raised(lambda: make(torch))
    with pytest.warns(FutureWarning, match="renamed to `cumulative_sizes`"):
        assert ours.cummulative_sizes == [3, 3, 4, 6]


def test_chain_dataset_rejects_map_style(torch):
    for lib in (ember, torch):
        chained = lib_data(lib).ChainDataset([make_range_iterable(lib, 0, 2), [9]])
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(chained)
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            len(chained)


def test_subset(torch):
    base = data.TensorDataset(ember.arange(10) * 10)
    subset = data.Subset(base, [7, 2, 5])
    assert len(subset) == 3 and subset[0][0].item() == 70
    assert [s[0].item() for s in subset.__getitems__([2, 0])] == [50, 70]
    plain = data.Subset(ListLike(range(10, 20)), [3, 4])
    assert plain[[1, 0]] == [14, 13] and plain.__getitems__([1]) == [14]

    def only_getitem(lib):
        class Only(lib_data(lib).Subset):
            def __getitem__(self, idx):
                return idx
        return raised(lambda: Only([1], [0]))
    assert only_getitem(ember) == only_getitem(torch)
    assert only_getitem(ember)[0] == "NotImplementedError"


class ListLike(list):
    """A list indexable by a list of indices, like a dataset that supports fancy keys."""

    def __getitem__(self, index):
        if isinstance(index, list):
            return [list.__getitem__(self, i) for i in index]
        return list.__getitem__(self, index)


def test_stack_dataset(torch):
    for lib in (ember, torch):
        d = lib_data(lib)
        as_tuple = d.StackDataset([1, 2, 3], "abc")
        as_dict = d.StackDataset(n=[1, 2, 3], s="abc")
        assert as_tuple[1] == (2, "b") and as_dict[2] == {"n": 3, "s": "c"}
        assert as_tuple.__getitems__([0, 2]) == [(1, "a"), (3, "c")]
        assert as_dict.__getitems__([1]) == [{"n": 2, "s": "b"}]
        assert len(as_tuple) == 3
    for make in (lambda d: d.StackDataset([1], n=[1]), lambda d: d.StackDataset(),
                 lambda d: d.StackDataset([1], [1, 2])):
        assert raised(lambda: make(data)) == raised(lambda: make(torch.utils.data))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lengths", [[3, 7], [0, 10], [0.3, 0.3, 0.4], [0.5, 0.5],
                                     [0.33, 0.33, 0.34], [0.1] * 10, [1 / 3] * 3])
def test_random_split_matches_torch(torch, seed, lengths):
    expected = [list(s.indices) for s in torch.utils.data.random_split(
        range(10), lengths, generator=torch.Generator().manual_seed(seed))]
    got = [list(s.indices) for s in data.random_split(
        range(10), lengths, generator=ember.Generator().manual_seed(seed))]
    assert got == expected
    torch.manual_seed(seed)
    ember.manual_seed(seed)
    assert [s.indices for s in data.random_split(range(10), lengths)] == \
        [s.indices for s in torch.utils.data.random_split(range(10), lengths)]
    assert ember.rand(2).tolist() == torch.rand(2).tolist()  # the default generator advanced alike


def test_random_split_fraction_rounding_and_errors(torch):
    splits = data.random_split(range(7), [0.5, 0.25, 0.25], generator=ember.Generator())
    assert [len(s) for s in splits] == [4, 2, 1]  # floors 3, 1, 1 plus the remainder round-robin
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        data.random_split(range(3), [0.9, 0.05, 0.05], generator=ember.Generator())
    for lengths in ([3, 3], [1.5, -0.5], [0.5, 0.6]):
        assert raised(lambda: data.random_split(range(5), lengths)) == \
            raised(lambda: torch.utils.data.random_split(range(5), lengths))
    assert raised(lambda: data.random_split(range(5), [1.5, -0.5]))[1] == \
        "Fraction at index 0 is not between 0 and 1"


# ------------------------------------------------------------------------------ samplers
def sampler_orders(lib, seed, make, passes=2):
    """Indices from `passes` iterations of the sampler `make(lib_data, generator)`."""
    lib.manual_seed(seed)
    sampler = make(lib_data(lib), lib.Generator().manual_seed(seed + 100))
    return [list(sampler) for _ in range(passes)] + [lib.rand(1).tolist()]


SAMPLERS = {
    "sequential": lambda d, g: d.SequentialSampler(range(5)),
    "random": lambda d, g: d.RandomSampler(range(11)),
    "random_generator": lambda d, g: d.RandomSampler(range(11), generator=g),
    "random_more_samples": lambda d, g: d.RandomSampler(range(5), num_samples=13),
    "random_fewer_samples": lambda d, g: d.RandomSampler(range(9), num_samples=4, generator=g),
    "replacement": lambda d, g: d.RandomSampler(range(6), replacement=True),
    "replacement_chunks": lambda d, g: d.RandomSampler(range(50), True, 75, generator=g),
    "subset_random": lambda d, g: d.SubsetRandomSampler([10, 20, 30, 40, 50]),
    "subset_random_generator": lambda d, g: d.SubsetRandomSampler((3, 1, 4, 1, 5), g),
    "weighted": lambda d, g: d.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 40),
    "weighted_no_replacement": lambda d, g: d.WeightedRandomSampler(
        [0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False, generator=g),
    "batch": lambda d, g: d.BatchSampler(d.RandomSampler(range(10), generator=g), 3, False),
    "batch_drop_last": lambda d, g: d.BatchSampler(d.RandomSampler(range(10)), 3, True),
    "batch_of_list": lambda d, g: d.BatchSampler([4, 3, 2, 1, 0], 2, False),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_sampler_order_matches_torch(torch, name, seed):
    make = SAMPLERS[name]
    assert sampler_orders(ember, seed, make) == sampler_orders(torch, seed, make)
    assert len(make(data, None)) == len(make(torch.utils.data, None))


def test_sampler_base_and_lengths():
    with pytest.raises(NotImplementedError):
        iter(data.Sampler())
    assert len(data.BatchSampler(range(10), 3, False)) == 4
    assert len(data.BatchSampler(range(10), 3, True)) == 3
    assert list(data.BatchSampler(range(6), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert list(data.BatchSampler(range(7), 3, False))[-1] == [6]


@pytest.mark.parametrize("make", [
    lambda d: d.RandomSampler(range(3), replacement=1),
    lambda d: d.RandomSampler(range(3), num_samples=0),
    lambda d: d.RandomSampler([], num_samples=None),
    lambda d: d.RandomSampler(range(3), num_samples=2.0),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], True),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=0),
    lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
    lambda d: d.BatchSampler(range(3), 0, False),
    lambda d: d.BatchSampler(range(3), True, False),
    lambda d: d.BatchSampler(range(3), 2, None),
])
def test_sampler_errors_match_torch(torch, make):
    assert raised(lambda: make(data)) == raised(lambda: make(torch.utils.data))


# ------------------------------------------------------------------------------ collation
def collate_cases(lib):
    """Batches covering each leaf type and container default_collate knows."""
    t = lib.tensor
    return {
        "ints": [0, 1, 2],
        "floats": [0.5, 1.0],
        "bools": [True, False],
        "strings": ["a", "bc"],
        "bytes": [b"a", b"b"],
        "tensors": [t([1, 2]), t([3, 4])],
        "float16_tensors": [t([1.5], dtype=lib.float16), t([2.5], dtype=lib.float16)],
        "scalar_tensors": [t(True), t(False)],
        "numpy_arrays": [np.arange(3, dtype=np.int16), np.ones(3, dtype=np.int16)],
        "numpy_scalars": [np.float32(1.5), np.float32(2.5)],
        "numpy_ints": [np.int64(3), np.int64(4)],
        "tuples": [(0, 1.5, "x"), (2, 3.5, "y")],
        "lists": [[0, [1, 2]], [3, [4, 5]]],
        "dicts": [{"a": 1, "b": {"c": t([1.0])}}, {"a": 2, "b": {"c": t([2.0])}}],
        "ordered_dicts": [collections.OrderedDict(z=1, y=2.0)] * 2,
        "namedtuples": [Point(1, t([0.5])), Point(2, t([1.5]))],
        "nested": [{"p": Point((1, 2), [np.float64(1)]), "s": "u"},
                   {"p": Point((3, 4), [np.float64(2)]), "s": "v"}],
    }


@pytest.mark.parametrize("name", sorted(collate_cases(ember)))
def test_default_collate_matches_torch(torch, name):
    ours = data.default_collate(collate_cases(ember)[name])
    theirs = torch.utils.data.default_collate(collate_cases(torch)[name])
    assert normalized(ours) == normalized(theirs)


@pytest.mark.parametrize("name", sorted(collate_cases(ember)))
def test_default_convert_matches_torch(torch, name):
    pairs = zip(collate_cases(ember)[name], collate_cases(torch)[name])
    for ours, theirs in pairs:
        assert normalized(data.default_convert(ours)) == \
            normalized(torch.utils.data.default_convert(theirs))


def test_collate_docstring_example():
    result = doctest.testmod(collate_module)
    assert result.attempted > 0 and result.failed == 0


def test_default_collate_keeps_namedtuple_and_shares_nothing():
    batch = data.default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(batch) is Point and batch.x.dtype is ember.int64 and batch.y.dtype is ember.float64
    first = ember.tensor([1.0])
    stacked = data.default_collate([first, ember.tensor([2.0])])
    stacked[0, 0] = 9.0
    assert first.item() == 1.0


class Opaque:
    pass


@pytest.mark.parametrize("make", [
    lambda lib: [[1, 2], [3]],
    lambda lib: [Opaque(), Opaque()],
    lambda lib: [np.array(["a"]), np.array(["b"])],
    lambda lib: [lib.ones(2), lib.ones(3)],
    lambda lib: [{"a": [1, 2]}, {"a": [1]}],
])
def test_default_collate_errors_match_torch(torch, make):
    assert raised(lambda: data.default_collate(make(ember))) == \
        raised(lambda: torch.utils.data.default_collate(make(torch)))


def test_default_convert_leaves_strings_and_objects():
    strings = np.array(["a", "b"])
    assert data.default_convert(strings) is strings
    assert data.default_convert("abc") == "abc"
    converted = data.default_convert((np.arange(2), 3))
    assert isinstance(converted, list) and converted[0].tolist() == [0, 1] and converted[1] == 3


# ------------------------------------------------------------------------------ DataLoader
def loader_batches(lib, seed, dataset, epochs=2, use_generator=False, **kwargs):
    """normalized batches of `epochs` passes, then one draw to compare the RNG state after."""
    lib.manual_seed(seed)
    if use_generator:
        kwargs["generator"] = lib.Generator().manual_seed(seed + 1)
    loader = lib_data(lib).DataLoader(dataset(lib), **kwargs)
    batches = [normalized(list(loader)) for _ in range(epochs)]
    return batches + [len(loader), lib.rand(1).tolist()]


def tensor_pairs(lib):
    return lib_data(lib).TensorDataset(lib.arange(22.).reshape(11, 2), lib.arange(11) % 3)


LOADER_CASES = {
    "default": {},
    "batch4": dict(batch_size=4),
    "shuffle": dict(batch_size=4, shuffle=True),
    "shuffle_generator": dict(batch_size=3, shuffle=True, use_generator=True),
    "shuffle_drop_last": dict(batch_size=4, shuffle=True, drop_last=True),
    "drop_last": dict(batch_size=5, drop_last=True),
    "no_batching": dict(batch_size=None),
    "no_batching_shuffle": dict(batch_size=None, shuffle=True),
    "sampler": dict(batch_size=2, sampler=[10, 0, 5, 5]),
    "batch_sampler": dict(batch_sampler=[[3, 1], [0], [2, 4, 6]]),
    "collate_fn": dict(batch_size=3, collate_fn=lambda batch: len(batch)),
    "weighted": dict(batch_size=4, sampler="weighted"),
}


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("name", sorted(LOADER_CASES))
def test_dataloader_matches_torch(torch, name, seed):
    def run(lib):
        kwargs = dict(LOADER_CASES[name])
        if kwargs.get("sampler") == "weighted":
            kwargs["sampler"] = lib_data(lib).WeightedRandomSampler([1.0] * 11, 9)
        return loader_batches(lib, seed, tensor_pairs, **kwargs)
    assert run(ember) == run(torch)


def test_dataloader_plain_dataset_and_getitems(torch):
    class Batched(data.Dataset):
        calls = []

        def __len__(self):
            return 5

        def __getitem__(self, index):
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [float(i) for i in indices]

    batches = [b.tolist() for b in data.DataLoader(Batched(), batch_size=2)]
    assert batches == [[0.0, 1.0], [2.0, 3.0], [4.0]] and Batched.calls[-1] == [4]
    assert [b.tolist() for b in data.DataLoader(Squares(5), batch_size=2)] == \
        [b.tolist() for b in torch.utils.data.DataLoader(Squares(5), batch_size=2)]


@pytest.mark.parametrize("kwargs", [
    dict(batch_size=2), dict(batch_size=3, drop_last=True), dict(batch_size=None),
    dict(batch_size=4, collate_fn=lambda b: sum(b)),
])
def test_dataloader_iterable_dataset_matches_torch(torch, kwargs):
    def run(lib):
        loader = lib_data(lib).DataLoader(make_range_iterable(lib, 3, 10), **kwargs)
        return [normalized(b) for b in loader], len(loader)
    assert run(ember) == run(torch)


def test_iterable_length_overrun_warns(torch):
    class Liar(data.IterableDataset):
        def __iter__(self):
            return iter(range(4))

        def __len__(self):
            return 2

    loader = data.DataLoader(Liar(), batch_size=None)
    assert len(loader) == 2
    with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing len"):
        assert [int(x) for x in loader] == [0, 1, 2, 3]


LOADER_ERRORS = [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(num_workers=1, prefetch_factor=-1), dict(persistent_workers=True),
    dict(shuffle=True, sampler=[0, 1]), dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_sampler=[[0]], sampler=[0]), dict(batch_size=None, drop_last=True),
    dict(multiprocessing_context="fork"), dict(num_workers=1, multiprocessing_context="nope"),
    dict(num_workers=1, multiprocessing_context=3), dict(batch_size=0),
    dict(batch_size=2, drop_last="yes"),
]


@pytest.mark.parametrize("kwargs", LOADER_ERRORS)
def test_dataloader_argument_errors_match_torch(torch, kwargs):
    assert raised(lambda: data.DataLoader(range(4), **kwargs)) == \
        raised(lambda: torch.utils.data.DataLoader(range(4), **kwargs))


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]),
                                    dict(batch_sampler=[[0]])])
def test_dataloader_iterable_argument_errors_match_torch(torch, kwargs):
    assert raised(lambda: data.DataLoader(make_range_iterable(ember, 0, 2), **kwargs)) == \
        raised(lambda: torch.utils.data.DataLoader(make_range_iterable(torch, 0, 2), **kwargs))


def test_dataloader_frozen_attributes_and_pickling(torch):
    loader, reference = data.DataLoader(range(4)), torch.utils.data.DataLoader(range(4))
    for attribute in ("batch_size", "sampler", "dataset", "drop_last"):
        assert raised(lambda: setattr(loader, attribute, 1)) == \
            raised(lambda: setattr(reference, attribute, 1))
    loader.num_workers = 0  # not frozen
    import pickle
    assert raised(lambda: pickle.dumps(iter(loader))) == \
        raised(lambda: pickle.dumps(iter(reference)))


def test_dataloader_warnings_match_torch(torch):
    def warning_texts(lib, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loader = lib_data(lib).DataLoader(range(3), **kwargs)
            if kwargs.get("num_workers", 0) == 0:
                iter(loader)
        return [str(w.message) for w in caught]
    for kwargs in (dict(num_workers=100000), dict(pin_memory=True),
                   dict(pin_memory=True, pin_memory_device="cuda")):
        assert warning_texts(ember, **kwargs) == warning_texts(torch, **kwargs)
        assert warning_texts(ember, **kwargs)


def test_pin_memory_is_a_no_op():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batches = list(data.DataLoader(tensor_pairs(ember), batch_size=4, pin_memory=True))
    assert batches[0][0].tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]


# ------------------------------------------------------------------------------ workers
TIME_LIMIT = 30


@pytest.fixture
def guard():
    """Fail a worker test after TIME_LIMIT seconds, and check it left no worker running."""
    before = set(multiprocessing.active_children())

    def expire(signum, frame):
        raise TimeoutError(f"worker test ran past {TIME_LIMIT} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TIME_LIMIT)
    try:
        yield
        gc.collect()
        deadline = time.monotonic() + 10
        while set(multiprocessing.active_children()) - before and time.monotonic() < deadline:
            time.sleep(0.02)
        leftover = set(multiprocessing.active_children()) - before
        for worker in leftover:  # don't let one failure spill into the next tests
            worker.terminate()
        assert not leftover, "a worker outlived its test"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def worker_view(lib):
    """A dataset whose samples say which worker made them and with what seeds."""
    d = lib_data(lib)

    class Seeds(d.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, index):
            info = d.get_worker_info()
            return [index, info.id, info.num_workers, info.seed, lib.initial_seed(),
                    random.random(), float(np.random.random()), lib.rand(1).item()]

    return Seeds()


@pytest.mark.parametrize("kwargs", [dict(batch_size=4, shuffle=True), dict(batch_size=None),
                                    dict(batch_size=3, drop_last=True, shuffle=True)])
def test_two_workers_give_the_batches_of_zero_workers(guard, kwargs):
    ours = loader_batches(ember, 5, tensor_pairs, num_workers=2, timeout=20, **kwargs)
    assert ours == loader_batches(ember, 5, tensor_pairs, **kwargs)


def test_worker_seeds_match_torch_workers(guard, torch):
    def run(lib):
        lib.manual_seed(11)
        loader = lib_data(lib).DataLoader(worker_view(lib), batch_size=None, num_workers=2,
                                          timeout=20)
        return [normalized(batch) for batch in loader] + [lib.rand(1).tolist()]
    ours = run(ember)
    assert ours == run(torch)
    assert {sample[1][1][1] for sample in ours[:-1]} == {0, 1}  # both workers served


def test_worker_seeds_from_loader_generator(guard, torch):
    def seeds(lib):
        generator = lib.Generator().manual_seed(3)
        loader = lib_data(lib).DataLoader(worker_view(lib), batch_size=2, num_workers=3,
                                          generator=generator, timeout=20)
        return [batch[3].tolist() + batch[4].tolist() for batch in loader]
    assert seeds(ember) == seeds(torch)


def test_get_worker_info_and_worker_init_fn(guard):
    assert data.get_worker_info() is None

    def init(worker_id):
        info = data.get_worker_info()
        info.dataset.offset = 100 * (worker_id + 1)
        assert info.id == worker_id and info.num_workers == 2

    class Offset(data.Dataset):
        offset = 0

        def __len__(self):
            return 4

        def __getitem__(self, index):
            return index + self.offset

    loader = data.DataLoader(Offset(), batch_size=None, num_workers=2, worker_init_fn=init,
                             timeout=20)
    assert [int(x) for x in loader] == [100, 201, 102, 203]
    info = data._utils.worker.WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    assert repr(info).startswith("WorkerInfo(id=0, num_workers=1, seed=3")


def test_iterable_dataset_with_workers_matches_torch(guard, torch):
    def run(lib, shard, **kwargs):
        loader = lib_data(lib).DataLoader(make_range_iterable(lib, 3, 8, shard), num_workers=2,
                                          timeout=20, **kwargs)
        return [normalized(b) for b in loader]
    for shard, kwargs in ((True, {}), (False, dict(batch_size=None)),
                          (True, dict(batch_size=2))):
        assert run(ember, shard, **kwargs) == run(torch, shard, **kwargs)


class Faulty(data.Dataset):
    def __init__(self, error, at=2):
        self.error, self.at = error, at

    def __len__(self):
        return 6

    def __getitem__(self, index):
        if index == self.at:
            raise self.error
        return index


@pytest.mark.parametrize("error", [ValueError("bad sample 2"), KeyError("missing"),
                                   ZeroDivisionError("zero")])
def test_worker_exception_is_reraised_with_its_traceback(guard, error):
    iterator = iter(data.DataLoader(Faulty(error), batch_size=None, num_workers=2, timeout=20))
    assert [int(next(iterator)) for _ in range(2)] == [0, 1]
    with pytest.raises(type(error)) as info:
        next(iterator)
    message = str(info.value)
    assert message.startswith(f"Caught {type(error).__name__} in DataLoader worker process 0.\n"
                              "Original Traceback (most recent call last):\n")
    assert "in __getitem__" in message and str(error.args[0]) in message
    assert [int(x) for x in iterator] == [3, 4, 5]  # later batches still come, as in PyTorch
    workers = iterator._workers
    del iterator, info
    assert not any(worker.is_alive() for worker in workers)


def test_worker_init_exception_surfaces(guard):
    def init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    loader = data.DataLoader(range(4), num_workers=1, worker_init_fn=init, timeout=20)
    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 0"):
        list(loader)


def _dying_dataset(lib, how):
    """Six samples; the worker fetching sample 3 dies as `how` says."""

    class Dies(lib_data(lib).Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, index):
            if index == 3:
                if how == "SIGKILL":
                    os.kill(os.getpid(), signal.SIGKILL)
                elif how == "segfault":
                    faulthandler.disable()  # no traceback dump in the test's output
                    ctypes.string_at(0)
                else:
                    os._exit(int(how.split()[-1]))
            return index

    return Dies()


def _death_in_workers(lib, how):
    """(seconds until the error, its message, its cause's message) with pids as 'N'."""
    loader = lib_data(lib).DataLoader(_dying_dataset(lib, how), batch_size=2, num_workers=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError) as info:
        list(loader)
    elapsed = time.monotonic() - start
    outcome = (elapsed, re.sub(r"\d{2,}", "N", str(info.value)),
               re.sub(r"pid \d+", "pid N", str(info.value.__cause__)))
    # Break the frame <-> traceback cycle, so the iterator is freed (and stops its
    # workers) now rather than by the cyclic collector after the queues it needs.
    del info
    return outcome


@pytest.mark.parametrize("how", ["SIGKILL", "exit code 3", "segfault"])
def test_a_dying_worker_is_noticed_at_once_with_torchs_message(guard, torch, how):
    """PyTorch's SIGCHLD handler notices a dead worker within a fraction of a second;
    ember waits on the workers' process sentinels beside the result queue."""
    elapsed, message, cause = _death_in_workers(ember, how)
    assert elapsed < 2.0  # the status check interval is 5 s: this is not a poll
    assert message == "DataLoader worker (pid(s) N) exited unexpectedly"
    assert (message, cause) == _death_in_workers(torch, how)[1:]


def test_a_worker_exiting_cleanly_mid_epoch_is_noticed(guard):
    elapsed, message, cause = _death_in_workers(ember, "exit code 0")
    assert elapsed < 2.0 and message == "DataLoader worker (pid(s) N) exited unexpectedly"


def test_worker_exception_type_and_text_match_torch(guard, torch):
    """'Caught ValueError in DataLoader worker process N.' then the worker's traceback."""
    texts = []
    for lib in (torch, ember):
        iterator = iter(lib_data(lib).DataLoader(Faulty(ValueError("bad sample 2")),
                                                 batch_size=None, num_workers=1))
        with pytest.raises(ValueError) as info:
            list(iterator)
        lines = str(info.value).splitlines()
        texts.append((type(info.value), lines[:2], lines[-1]))
        del info
        iterator._shutdown_workers()  # torch's iterator lingers in a traceback cycle
    assert texts[0] == texts[1]


def test_timeout_raises(guard):
    class Slow(data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, index):
            time.sleep(1)
            return index

    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        list(data.DataLoader(Slow(), num_workers=1, timeout=0.2))


def test_workers_stop_when_iterator_is_dropped(guard):
    iterator = iter(data.DataLoader(Squares(50), batch_size=2, num_workers=2, timeout=20))
    assert next(iterator).tolist() == [0, 1]
    workers = iterator._workers
    assert all(worker.is_alive() for worker in workers)
    del iterator
    assert not any(worker.is_alive() for worker in workers)


def test_workers_stop_after_a_full_pass(guard):
    iterator = iter(data.DataLoader(Squares(5), batch_size=2, num_workers=2, timeout=20))
    assert [b.tolist() for b in iterator] == [[0, 1], [4, 9], [16]]
    assert not any(worker.is_alive() for worker in iterator._workers)


def test_persistent_workers(guard, torch):
    class Pids(data.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, index):
            return [index, os.getpid()]

    ember.manual_seed(4)
    loader = data.DataLoader(Pids(), batch_size=None, shuffle=True, num_workers=2,
                             persistent_workers=True, timeout=20)
    first, second = list(loader), list(loader)
    workers = loader._iterator._workers
    assert all(worker.is_alive() for worker in workers)
    del loader  # the loader owns the iterator, whose collection stops the workers
    assert not any(worker.is_alive() for worker in workers)
    assert {int(p) for _, p in first} == {int(p) for _, p in second}  # the same two workers
    assert len({int(p) for _, p in first}) == 2
    # PyTorch draws the workers' base seed once, then one sampler seed per epoch.
    torch.manual_seed(4)
    torch.empty((), dtype=torch.int64).random_()
    sampler = torch.utils.data.RandomSampler(range(5))
    assert [[int(i) for i, _ in epoch] for epoch in (first, second)] == \
        [list(sampler), list(sampler)]


def test_persistent_workers_restart_after_a_partial_epoch(guard):
    loader = data.DataLoader(Squares(8), batch_size=2, num_workers=2, persistent_workers=True,
                             timeout=20)
    partial = iter(loader)
    try:
        assert next(partial).tolist() == [0, 1]
        assert [b.tolist() for b in loader] == [[0, 1], [4, 9], [16, 25], [36, 49]]
    finally:
        loader._iterator._shutdown_workers()


def test_out_of_order_and_prefetch(guard):
    loader = data.DataLoader(Squares(9), batch_size=2, num_workers=2, in_order=False,
                             prefetch_factor=1, timeout=20)
    assert sorted(x for batch in loader for x in batch.tolist()) == [i * i for i in range(9)]


def test_spawn_context(guard):
    """A spawned worker gets everything by pickling: the dataset, queues, collate_fn."""
    loader = data.DataLoader(range(5), batch_size=2, num_workers=1, timeout=20,
                             multiprocessing_context="spawn")
    assert isinstance(loader.multiprocessing_context, multiprocessing.context.SpawnContext)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4]]


def test_large_normal_draw_in_forked_worker(guard, monkeypatch):
    monkeypatch.setattr(data._utils, "MP_STATUS_CHECK_INTERVAL", 0.1)  # a short final join
    ember.randn(300000)  # starts the float32 normal kernel's thread pool in this process

    class Normals(data.Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, index):
            return ember.randn(300000).shape[0]

    iterator = iter(data.DataLoader(Normals(), batch_size=None, num_workers=1, timeout=2))
    try:
        assert next(iterator) == 300000
    finally:
        iterator._shutdown_workers()


def test_unpicklable_dataset_with_spawn_warns_and_raises(guard, torch):
    def attempt(lib):
        loader = lib_data(lib).DataLoader(make_range_iterable(lib, 0, 3), num_workers=1,
                                          multiprocessing_context="spawn")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            error = raised(lambda: iter(loader))
        return error[0], [str(w.message) for w in caught]
    ours = attempt(ember)
    assert ours == attempt(torch) and ours[0] == "AttributeError"
