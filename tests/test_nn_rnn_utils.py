"""nn.utils.rnn against torch: packing and padding of variable-length batches, their values,
gradients (with PyTorch's node names along the whole history), reprs and errors."""
import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, ember_names, to_lib


def rnn(lib):
    return lib.nn.utils.rnn


def history(tensor):
    """The names of the graph behind `tensor`, depth first, as one comparable list."""
    names, stack = [], [(tensor.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        names.append((depth, None if node is None else ember_names(node.name())
                      .replace("torch::", "ember::")))
        if node is not None:
            stack.extend((child, depth + 1) for child, _ in reversed(node.next_functions))
    return names


def same_history(ember_tensor, torch_tensor):
    assert history(ember_tensor) == history(torch_tensor)


def padded_batch(steps, batch, trailing, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal((steps, batch) + trailing).astype(dtype)


def round_trip(lib, array, lengths, batch_first, enforce_sorted, total_length, padding_value,
               lengths_kind):
    x = to_lib(lib, array, requires_grad=True)
    if lengths_kind == "tensor":
        lengths = lib.tensor(lengths)
    elif lengths_kind == "int32":
        lengths = lib.tensor(lengths, dtype=lib.int32)
    packed = rnn(lib).pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    data = packed.data * 2 + 1  # any op on .data: the gradient flows through it
    repacked = rnn(lib).PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                                       packed.unsorted_indices)
    out, out_lengths = rnn(lib).pad_packed_sequence(repacked, batch_first, padding_value,
                                                    total_length)
    weights = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape))
                         .astype(array.dtype))
    (out * weights).sum().backward()
    return packed, out, out_lengths, x.grad


CASES = [  # (steps, batch, trailing, lengths)
    (4, 3, (2,), [4, 2, 1]),
    (5, 3, (), [3, 3, 1]),
    (3, 4, (2, 3), [3, 3, 3, 3]),
    (4, 1, (1,), [2]),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths_kind", ["list", "tensor", "int32"])
def test_pack_then_pad_sorted(torch, case, batch_first, lengths_kind):
    steps, batch, trailing, lengths = case
    array = padded_batch(steps, batch, trailing)
    if batch_first:
        array = np.ascontiguousarray(np.swapaxes(array, 0, 1))
    got = round_trip(ember, array, lengths, batch_first, True, None, 0.0, lengths_kind)
    want = round_trip(torch, array, lengths, batch_first, True, None, 0.0, lengths_kind)
    assert_same(got, want)
    assert type(got[0]).__name__ == "PackedSequence"
    same_history(got[0].data, want[0].data)
    same_history(got[1], want[1])


@pytest.mark.parametrize("lengths", [[2, 4, 1], [3, 3, 1], [1, 2, 2], [4, 4, 4]])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_then_pad_unsorted(torch, lengths, batch_first):
    array = padded_batch(4, 3, (2,), seed=3)
    if batch_first:
        array = np.ascontiguousarray(np.swapaxes(array, 0, 1))
    got = round_trip(ember, array, lengths, batch_first, False, 6, -1.5, "tensor")
    want = round_trip(torch, array, lengths, batch_first, False, 6, -1.5, "tensor")
    assert_same(got, want)
    same_history(got[0].data, want[0].data)
    same_history(got[1], want[1])


def test_pack_padded_lengths_are_cast_to_int64(torch):
    def call(lib):
        x = lib.arange(12.).reshape(4, 3)
        floats = rnn(lib).pack_padded_sequence(x, lib.tensor([4.7, 3.0, 2.2]))
        truncated = rnn(lib).pack_padded_sequence(x, [4.5, 3, 2.9])
        return floats, truncated
    assert_same(call(ember), call(torch))


def test_private_ops_return_structures(torch):
    def call(lib):
        x = lib.arange(24.).reshape(4, 3, 2)
        data, sizes = lib._pack_padded_sequence(x, lib.tensor([4, 2, 1]), False)
        padded, lengths = lib._pad_packed_sequence(data, sizes, True, 7.0, 5)
        bare = lib._pad_packed_sequence(data, sizes, False, 0, 0)
        return data, sizes, padded, lengths, bare
    got, want = call(ember), call(torch)
    assert type(got[4]) is type(want[4]) is tuple
    assert_same(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool"])
def test_pack_unpack_dtypes(torch, dtype):
    def call(lib):
        sequences = [lib.tensor(np.arange(n * 2).reshape(n, 2) % 3).to(getattr(lib, dtype))
                     for n in (2, 4, 1)]
        packed = rnn(lib).pack_sequence(sequences, enforce_sorted=False)
        return packed, rnn(lib).unpack_sequence(packed), rnn(lib).pad_packed_sequence(
            packed, batch_first=True, padding_value=1)
    assert_same(call(ember), call(torch))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("padding_value", [0.0, -2.5, float("nan")])
def test_pad_sequence(torch, batch_first, padding_side, padding_value):
    arrays = [padded_batch(n, 2, (), seed=n) for n in (3, 0, 5, 1)]

    def call(lib):
        sequences = to_lib(lib, arrays, requires_grad=True)
        out = rnn(lib).pad_sequence(sequences, batch_first, padding_value, padding_side)
        weights = lib.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape))
                             .astype(np.float32))
        (lib.nan_to_num(out) * weights).sum().backward()
        return out, [s.grad for s in sequences]
    got, want = call(ember), call(torch)
    assert_same(got, want)
    same_history(got[0], want[0])


def test_pad_sequence_dtypes_and_sequences(torch):
    def call(lib):
        pad = rnn(lib).pad_sequence
        ints = [lib.arange(3), lib.arange(1)]
        flags = [lib.ones(2, dtype=lib.bool), lib.ones(1, dtype=lib.bool)]
        mixed = [lib.ones(3), lib.ones(2, dtype=lib.float64)]
        return (pad(ints, padding_value=1.5), pad(flags, padding_value=0.5),
                pad(mixed, padding_value=True), pad(lib.arange(6.).reshape(3, 2)),
                pad(iter([lib.ones(2), lib.ones(1)])), pad((lib.ones(1, 3), lib.ones(2, 3))),
                pad([lib.ones(2), lib.ones(1)], padding_value=lib.tensor(4.)),
                lib._C._nn.pad_sequence([lib.ones(2), lib.ones(1)], True, 3.0, "left"),
                lib._C._nn.pad_sequence((lib.ones(2, 1), lib.ones(3, 1))))
    assert_same(call(ember), call(torch))


def test_invert_permutation_and_unpad(torch):
    def call(lib):
        utils = rnn(lib)
        padded = lib.arange(24.).reshape(4, 3, 2)
        lengths = lib.tensor([4, 1, 3])
        pieces = utils.unpad_sequence(padded, lengths)
        return (utils.invert_permutation(lib.tensor([2, 0, 3, 1])),
                utils.invert_permutation(None), pieces, padded.shape,
                utils.unpad_sequence(lib.arange(6).reshape(2, 3), lib.tensor([3, 1]),
                                     batch_first=True))
    got, want = call(ember), call(torch)
    assert got[3] == tuple(want[3])  # transposed in place, as PyTorch does
    assert_same(got[:3] + got[4:], want[:3] + want[4:])


def test_unpad_gradient(torch):
    array = padded_batch(4, 3, (2,), seed=5)

    def call(lib):
        x = to_lib(lib, array, requires_grad=True)
        pieces = rnn(lib).unpad_sequence(x.clone() * 1, lib.tensor([4, 1, 3]))
        sum(piece.sum() * (i + 1) for i, piece in enumerate(pieces)).backward()
        return pieces, x.grad
    got, want = call(ember), call(torch)
    assert_same(got, want)
    for mine, theirs in zip(got[0], want[0]):
        same_history(mine, theirs)


def test_packed_sequence_object(torch):
    def call(lib):
        packed = rnn(lib).pack_sequence([lib.tensor([1., 2, 3]), lib.tensor([4., 5])])
        unsorted = rnn(lib).pack_sequence([lib.tensor([4, 5]), lib.tensor([1, 2, 3])],
                                          enforce_sorted=False)
        pair = rnn(lib).PackedSequence((packed.data, packed.batch_sizes))
        indexed = rnn(lib).PackedSequence(packed.data, packed.batch_sizes, lib.tensor([1, 0]))
        return (repr(packed), repr(unsorted), packed._fields, tuple(pair), tuple(indexed),
                packed.is_cuda, packed.is_pinned(), packed.to(lib.float32) is packed,
                packed.cpu() is packed, isinstance(packed, tuple), len(packed),
                tuple(unsorted.double()), tuple(unsorted.float()), tuple(unsorted.long()),
                tuple(unsorted.int()), tuple(unsorted.short()), tuple(unsorted.char()),
                tuple(unsorted.byte()), tuple(packed.half()), tuple(unsorted.to("cpu")),
                tuple(packed.to(lib.float64)), type(packed.double()).__name__,
                packed.to(lib.float64)[0].dtype == lib.float64, packed[1].dtype)
    got, want = call(ember), call(torch)
    assert got[:2] == tuple(ember_names(text) for text in want[:2])
    assert_same(got[2:23], want[2:23])
    assert str(got[23]) == ember_names(str(want[23]))
    assert_same_error(lambda lib: rnn(lib).pack_sequence([lib.ones(2)]).to(lib.float64,
                                                                            copy=True))
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        ember.nn.utils.rnn.PackedSequence(ember.ones(2))


def test_gradcheck_float64():
    utils = ember.nn.utils.rnn
    x = ember.randn(4, 3, 2, dtype=ember.float64, requires_grad=True)

    def round_trip(x):
        packed = utils.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
        return utils.pad_packed_sequence(packed, batch_first=True, total_length=5)[0]

    def padded(a, b):
        return utils.pad_sequence([a, b], padding_side="left")
    a = ember.randn(3, 2, dtype=ember.float64, requires_grad=True)
    b = ember.randn(1, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(round_trip, (x,))
    assert ember.autograd.gradgradcheck(round_trip, (x,))
    assert ember.autograd.gradcheck(padded, (a, b))
    assert ember.autograd.gradgradcheck(padded, (a, b))


ERRORS = [
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), [4, 2, 3]),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), [4, 3, 0]),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), [4, 3, -1]),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), [4, 0, 3], enforce_sorted=False),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), [4, 3]),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), []),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 0), []),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4), [4]),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4), [4], batch_first=True),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(4, 3), lib.tensor([[4, 3, 2]])),
    lambda lib: lib._pack_padded_sequence(lib.ones(4, 3), lib.tensor([4, 3, 2]).int(), False),
    lambda lib: lib._pack_padded_sequence(lib.ones(4, 3), [4, 3, 2], False),
    lambda lib: rnn(lib).pad_packed_sequence(
        rnn(lib).pack_padded_sequence(lib.ones(4, 3), [4, 3, 2]), total_length=3),
    lambda lib: lib._pad_packed_sequence(lib.ones(9), lib.tensor([3, 3, 2, 1]), False, 0, 2),
    lambda lib: lib._pad_packed_sequence(lib.ones(9), lib.tensor([3, 3, 2, 1]).int(), False,
                                         0, 4),
    lambda lib: lib._pad_packed_sequence(lib.ones(9), lib.tensor([3, 3, 2, 1]), False, 0, 4.0),
    lambda lib: lib._pad_packed_sequence(lib.ones(3), lib.tensor([], dtype=lib.int64), False, 0,
                                         0),
    lambda lib: rnn(lib).unpad_sequence(lib.ones(3, 2, requires_grad=True), lib.tensor([3, 1])),
    lambda lib: rnn(lib).pad_sequence([]),
    lambda lib: rnn(lib).pad_sequence(5),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3), lib.ones(2, 2)]),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3, 2), lib.ones(2, 3)]),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3), lib.ones(2)], padding_side="top"),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3), lib.ones(2)], padding_side=None),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3), lib.ones(2)], batch_first=1),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3), lib.ones(2)], padding_value="a"),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3, dtype=lib.int8)], padding_value=300),
    lambda lib: rnn(lib).pad_sequence([lib.tensor(1.), lib.tensor(2.)]),
    lambda lib: rnn(lib).pad_sequence([lib.ones(3), 3]),
    lambda lib: rnn(lib).pack_sequence([lib.ones(2), lib.ones(3)]),
    lambda lib: rnn(lib).invert_permutation(lib.tensor([2, 0, 1]).int()),
    lambda lib: rnn(lib).invert_permutation(lib.tensor([2., 0, 1])),
    lambda lib: rnn(lib).unpad_sequence(lib.ones(3, 2), lib.tensor([3, 1, 1])),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors(torch, call):
    assert_same_error(call)


# ---------------------------------------------------------------- the pieces around them
ONE_HOT = [  # (indices, dtype, kwargs)
    ([0, 2, 1], "int64", {}), ([0, 2, 1], "int64", {"num_classes": 5}),
    ([0, 2, 1], "int64", {"num_classes": 2}), ([0, -1, 1], "int64", {}),
    ([0, -1, 1], "int64", {"num_classes": 3}), ([0, 2, 1], "int32", {}),
    ([0, 2, 1], "float32", {}), ([1, 0], "bool", {}), ([], "int64", {}),
    ([], "int64", {"num_classes": 3}), ([], "int64", {"num_classes": 0}),
    (2, "int64", {}), (2, "int64", {"num_classes": 4}), ([[0, 1], [2, 3]], "int64", {}),
    ([0, 2, 1], "int64", {"num_classes": 0}), ([0, 0], "int64", {"num_classes": -1}),
    ([0, 0], "int64", {"num_classes": -2}), ([0, 2, 1], "int8", {}), ([0, 2, 1], "uint8", {}),
    ([0, 2, 1], "int64", {"num_classes": 3.0}), ([5], "int64", {"num_classes": 5}),
    ([0, 2, 1], "int64", {"num_classes": None}), ([0, 2, 1], "int64", {"num_classes": True}),
]


@pytest.mark.parametrize("indices, dtype, kwargs", ONE_HOT)
def test_one_hot(torch, indices, dtype, kwargs):
    def call(lib):
        return lib.nn.functional.one_hot(lib.tensor(indices, dtype=getattr(lib, dtype)),
                                         **kwargs)
    try:
        want = call(torch)
    except Exception:  # noqa: BLE001 - the error itself is what is compared
        assert_same_error(call)
        return
    assert_same(call(ember), want)


def test_one_hot_argument_names_and_layouts(torch):
    def call(lib):
        one_hot = lib.nn.functional.one_hot
        grid = lib.tensor([[0, 1], [1, 0]]).t()
        return (one_hot(input=lib.tensor([0, 2, 1]), num_classes=3), one_hot(grid),
                one_hot(lib.tensor([0, 2, 1])[::2]), one_hot(lib.tensor([0, 2, 1]).expand(2, 3)))
    assert_same(call(ember), call(torch))
    assert_same_error(lambda lib: lib.nn.functional.one_hot(tensor=lib.tensor([1])))
    assert_same_error(lambda lib: lib.nn.functional.one_hot([0, 1]))


EMBEDDING_RENORM = [  # (max_norm, norm_type, indices, padding_idx, scale_grad_by_freq, dtype)
    (1.0, 2.0, [[0, 1, 1], [4, 2, 0]], None, False, "float32"),
    (1.5, 1.0, [0, 3, 5], None, False, "float32"),
    (0.5, 3.0, [1, 1, 2], 1, False, "float32"),
    (1.0, 2.0, [5, 2, 2], None, True, "float64"),
    (100.0, 2.0, [0, 1], None, False, "float32"),
    (1.0, float("inf"), [0, 1, 4], None, False, "float32"),
    (2.0, 0.0, [0, 3], None, False, "float32"),
    (2.0, -1.0, [0, 3], None, False, "float64"),
]


@pytest.mark.parametrize("case", EMBEDDING_RENORM)
def test_embedding_max_norm(torch, case):
    """Rows used by the lookup are renormalised in place (one version bump, outside the
    graph) before the lookup; the gradient is the plain embedding gradient."""
    max_norm, norm_type, indices, padding_idx, scale, dtype = case
    weight = (np.random.default_rng(0).standard_normal((6, 3)) * 2).astype(dtype)

    def call(lib):
        layer = lib.nn.Embedding(6, 3, padding_idx=padding_idx, max_norm=max_norm,
                                 norm_type=norm_type, scale_grad_by_freq=scale,
                                 _weight=lib.tensor(weight))
        version = layer.weight._version
        out = layer(lib.tensor(indices))
        (out * lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        return (repr(layer).replace("torch.", "ember."), out.grad_fn.name(),
                layer.weight._version - version, out, layer.weight.detach(), layer.weight.grad)
    assert_same(call(ember), call(torch), atol=1e-6, rtol=1e-6)


def test_embedding_max_norm_functional(torch):
    def call(lib):
        table = lib.arange(12.).reshape(4, 3)
        leaf = lib.arange(12.).reshape(4, 3).requires_grad_()
        out = lib.nn.functional.embedding(lib.tensor([0, 3]), table, max_norm=2.0)
        out.sum()  # the renormalised rows are read, not the old ones
        bag = lib.nn.functional.embedding_bag(lib.tensor([[0, 1]]), lib.arange(6.).reshape(3, 2),
                                              max_norm=1.0, mode="sum")
        return out, table, bag, lib.nn.functional.embedding(lib.tensor([1]), leaf, max_norm=1.)
    assert_same(call(ember), call(torch), atol=1e-6, rtol=1e-6)


def test_module_import_paths(torch):
    """Where PyTorch code imports these from, ember has them too."""
    import importlib  # noqa: PLC0415 - module paths given as text
    for path in ("nn.modules.activation", "nn.modules.sparse", "nn.utils.rnn"):
        theirs = importlib.import_module("torch." + path)
        mine = importlib.import_module("ember." + path)
        missing = {name for name in theirs.__all__ if not hasattr(mine, name)}
        assert missing <= {"MultiheadAttention"}, (path, missing)  # attention's own module
    from ember.nn.modules.activation import RReLU  # noqa: PLC0415
    from ember.nn.modules.sparse import EmbeddingBag  # noqa: PLC0415
    assert RReLU is ember.nn.RReLU and EmbeddingBag is ember.nn.EmbeddingBag


def _packed(lib):
    return rnn(lib).pack_sequence([lib.tensor([1., 2, 3]), lib.tensor([4., 5])],
                                  enforce_sorted=False)


PACKED_CALLS = [
    lambda lib: _packed(lib).cuda(),
    lambda lib: _packed(lib).to("cpu", non_blocking=True),
    lambda lib: _packed(lib).to(lib.float64, True),
    lambda lib: _packed(lib).to(lib.float32, copy=True),
    lambda lib: _packed(lib)._replace(data=_packed(lib).data * 2),
    lambda lib: rnn(lib).PackedSequence(*_packed(lib)),
    lambda lib: _packed(lib) == tuple(_packed(lib)),
    lambda lib: rnn(lib).pad_packed_sequence(_packed(lib), padding_value=1.5, total_length=0),
    lambda lib: rnn(lib).pad_packed_sequence(_packed(lib), total_length=-1),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(3, 2, dtype=lib.int64),
                                              lib.tensor([3, 1])),
    lambda lib: rnn(lib).pack_padded_sequence(lib.ones(3, 2), (3, 1)),
    lambda lib: rnn(lib).pack_sequence([lib.ones(2, 0), lib.ones(1, 0)]),
    lambda lib: rnn(lib).unpack_sequence(rnn(lib).pack_sequence(
        [lib.ones(3), lib.ones(1) * 2, lib.ones(3) * 3], enforce_sorted=False)),
]


@pytest.mark.parametrize("call", PACKED_CALLS)
def test_packed_sequence_calls(torch, call):
    try:
        want = repr(call(torch))
    except Exception:  # noqa: BLE001 - the error itself is what is compared
        assert_same_error(call)
        return
    assert repr(call(ember)) == ember_names(want)
