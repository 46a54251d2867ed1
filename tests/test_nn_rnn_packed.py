"""PackedSequence through nn.RNN / LSTM / GRU and the packed functional forms, against torch.

Each case builds the same seeded layer in both libraries, packs one padded batch
(sorted or not), runs the layer, pads the output back and takes a loss over the
output and every final state; the padded output, lengths, final states (which must be
each sequence's own last step, in the caller's batch order), the packed structure, the
gradients of the input, the initial states and every parameter, and the grad_fn
names must then agree. float64 gradcheck covers the shrinking and growing batch of
both directions on tiny sizes.
"""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error

TOL = {"float32": dict(atol=5e-6, rtol=5e-5), "float64": dict(atol=1e-12, rtol=1e-10)}
INPUT, HIDDEN, BATCH, STEPS = 2, 4, 3, 5
LENGTHS = {True: [5, 3, 2], False: [3, 5, 2]}   # enforce_sorted -> lengths


pytestmark = pytest.mark.usefixtures("torch_on_one_thread")


def array(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


def layer(lib, name, dtype="float32", **options):
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return getattr(lib.nn, name)(INPUT, HIDDEN, **options).to(getattr(lib, dtype))


def initial_states(lib, name, dtype, options):
    count = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    size = options.get("proj_size", 0) or HIDDEN
    kind = getattr(lib, dtype)
    h = lib.tensor(array(2, count, BATCH, size), dtype=kind, requires_grad=True)
    if name != "LSTM":
        return h
    return h, lib.tensor(array(3, count, BATCH, HIDDEN), dtype=kind, requires_grad=True)


def run(lib, name, options, enforce_sorted, dtype, given_states, batch_first=False):
    module = layer(lib, name, dtype, **options)
    padded = array(1, STEPS, BATCH, INPUT)
    if batch_first:
        padded = padded.swapaxes(0, 1)
    x = lib.tensor(padded, dtype=getattr(lib, dtype), requires_grad=True)
    utils = lib.nn.utils.rnn
    packed = utils.pack_padded_sequence(x, lib.tensor(LENGTHS[enforce_sorted]),
                                        batch_first=batch_first, enforce_sorted=enforce_sorted)
    hx = initial_states(lib, name, dtype, options) if given_states else None
    output, final = module(packed, hx)
    out, lengths = utils.pad_packed_sequence(output, batch_first=batch_first)
    finals = final if isinstance(final, tuple) else (final,)
    loss = (out * out).sum() + sum((f * f).sum() * 0.5 + f.sum() for f in finals)
    loss.backward()
    leaves = [x] + ([] if hx is None else list(hx if isinstance(hx, tuple) else (hx,)))
    names = [output.data.grad_fn.name()] + [f.grad_fn.name() for f in finals]
    structure = (output.batch_sizes, output.sorted_indices, output.unsorted_indices)
    return (out, lengths, finals, structure, [leaf.grad for leaf in leaves],
            [p.grad for p in module.parameters()], names, type(output).__name__)


CONFIGS = [("RNN", {}), ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
           ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
           ("LSTM", {}), ("LSTM", {"proj_size": 3}),
           ("LSTM", {"num_layers": 2, "bidirectional": True}),
           ("LSTM", {"num_layers": 2, "proj_size": 2, "bias": False})]


@pytest.mark.parametrize("name,options", CONFIGS, ids=lambda v: str(v))
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("given_states", [False, True])
def test_layers_match_torch(torch, name, options, enforce_sorted, given_states):
    for dtype in ("float32", "float64"):
        got = run(ember, name, options, enforce_sorted, dtype, given_states)
        want = run(torch, name, options, enforce_sorted, dtype, given_states)
        assert_same(got[:6], want[:6], **TOL[dtype])
        assert got[6:] == want[6:]


@pytest.mark.parametrize("name", ["GRU", "LSTM"])
def test_batch_first_only_moves_the_padding(torch, name):
    """batch_first changes how the padded tensor is read; the packed data are the same."""
    options = {"bidirectional": True}
    got = run(ember, name, options, False, "float64", True, batch_first=True)
    want = run(torch, name, options, False, "float64", True, batch_first=True)
    assert_same(got[:6], want[:6], **TOL["float64"])
    lib_first = layer(ember, name, "float64", batch_first=True, **options)
    lib_plain = layer(ember, name, "float64", **options)
    packed = ember.nn.utils.rnn.pack_sequence(
        [ember.tensor(array(seed, length, INPUT)) for seed, length in enumerate((2, 4, 1))],
        enforce_sorted=False)
    first, plain = lib_first(packed), lib_plain(packed)
    pairs = [(first[0].data, plain[0].data)] + list(zip(*[
        r[1] if isinstance(r[1], tuple) else (r[1],) for r in (first, plain)]))
    assert all(ember.equal(a, b) for a, b in pairs)


def test_dropout_between_layers_draws_as_torch(torch):
    """In training, dropout acts on the packed rows of every layer but the last."""
    def go(lib):
        module = layer(lib, "LSTM", "float32", num_layers=3, dropout=0.5)
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            lib.tensor(array(1, STEPS, BATCH, INPUT), dtype=lib.float32),
            lib.tensor([3, 5, 2]), enforce_sorted=False)
        lib.manual_seed(7)
        output, (h, c) = module(packed)
        output.data.sum().backward()
        return output.data, h, c, module.weight_ih_l0.grad
    assert_same(go(ember), go(torch), **TOL["float32"])


def test_extra_rows_past_the_batch_sizes(torch):
    """PyTorch reads the first rows forward in time and the last rows backward."""
    def go(lib):
        module = layer(lib, "GRU", "float64", bidirectional=True)
        data = lib.tensor(array(4, 9, INPUT), requires_grad=True)
        sizes = lib.tensor([3, 2, 1, 1])
        output, h = module(lib.nn.utils.rnn.PackedSequence(data, sizes))
        (output.data.sum() + h.sum()).backward()
        return output.data, h, data.grad
    assert_same(go(ember), go(torch), **TOL["float64"])


# ---------------------------------------------------------------- functional forms
def _functional(lib, name, dtype):
    """torch.rnn_tanh / rnn_relu / gru / lstm with batch_sizes, both directions, 2 layers."""
    kind = getattr(lib, dtype)
    module = layer(lib, "RNN" if name.startswith("rnn") else name.upper(), dtype, num_layers=2,
                   bidirectional=True)
    packed = lib.nn.utils.rnn.pack_sequence(
        [lib.tensor(array(seed, length, INPUT), dtype=kind) for seed, length in
         enumerate((4, 4, 2, 1))])
    h = lib.tensor(array(5, 4, 4, HIDDEN), dtype=kind, requires_grad=True)
    hx = (h, h * 2) if name == "lstm" else h
    result = getattr(lib, name)(packed.data, packed.batch_sizes, hx, module._flat_weights,
                                True, 2, 0.0, False, True)
    sum(r.sum() for r in result).backward()
    return result, h.grad, [r.grad_fn.name() for r in result]


@pytest.mark.parametrize("name", ["rnn_tanh", "rnn_relu", "gru", "lstm"])
def test_functional_packed_forms(torch, name):
    for dtype in ("float32", "float64"):
        got, want = _functional(ember, name, dtype), _functional(torch, name, dtype)
        assert_same(got[:2], want[:2], **TOL[dtype])
        assert got[2] == want[2]


# ---------------------------------------------------------------- gradcheck
def _leaf(seed, *shape):
    return ember.tensor(array(seed, *shape), requires_grad=True)


@pytest.mark.parametrize("name", ["rnn_tanh", "gru", "lstm", "lstm_proj"])
def test_packed_gradcheck(name):
    """float64 gradients of data, states and weights through a shrinking batch, both ways."""
    sizes = ember.tensor([3, 2, 2, 1])
    data = _leaf(0, 8, 2)
    gates = {"rnn_tanh": 1, "gru": 3}.get(name, 4)
    state = 2 if name == "lstm_proj" else 3
    weights = []
    for seed in (1, 2):   # forward and reverse direction of one layer
        weights += [_leaf(seed, gates * 3, 2), _leaf(seed + 10, gates * 3, state),
                    _leaf(seed + 20, gates * 3), _leaf(seed + 30, gates * 3)]
        if name == "lstm_proj":
            weights.append(_leaf(seed + 40, 2, 3))
    states = [_leaf(50, 2, 3, state)] + ([_leaf(51, 2, 3, 3)] if name.startswith("lstm")
                                         else [])

    def function(data, *rest):
        hx = rest[:len(states)]
        params = list(rest[len(states):])
        if name.startswith("lstm"):
            return ember.lstm(data, sizes, hx, params, True, 1, 0.0, False, True)
        return getattr(ember, name)(data, sizes, hx[0], params, True, 1, 0.0, False, True)
    assert ember.autograd.gradcheck(function, (data, *states, *weights))


# ---------------------------------------------------------------- errors
def _packed_input(lib, data=None):
    base = lib.nn.utils.rnn.pack_padded_sequence(
        lib.zeros(4, 3, INPUT), lib.tensor([2, 4, 1]), enforce_sorted=False)
    if data is None:
        return base
    return lib.nn.utils.rnn.PackedSequence(data, *base[1:])


ERRORS = {
    "lstm state batch": lambda lib: layer(lib, "LSTM")(
        _packed_input(lib), (lib.zeros(1, 2, HIDDEN), lib.zeros(1, 2, HIDDEN))),
    "lstm state size": lambda lib: layer(lib, "LSTM")(
        _packed_input(lib), (lib.zeros(1, 3, 5), lib.zeros(1, 3, HIDDEN))),
    "lstm state count": lambda lib: layer(lib, "LSTM", num_layers=2)(
        _packed_input(lib), (lib.zeros(1, 3, HIDDEN), lib.zeros(1, 3, HIDDEN))),
    "lstm 2-D state": lambda lib: layer(lib, "LSTM")(
        _packed_input(lib), (lib.zeros(3, HIDDEN), lib.zeros(3, HIDDEN))),
    "lstm input size": lambda lib: layer(lib, "LSTM")(_packed_input(lib, lib.zeros(7, 3))),
    "lstm 3-D data": lambda lib: layer(lib, "LSTM")(_packed_input(lib, lib.zeros(7, 2, 1))),
    "lstm dtype": lambda lib: layer(lib, "LSTM")(
        _packed_input(lib, lib.zeros(7, INPUT, dtype=lib.float64))),
    "lstm short data": lambda lib: layer(lib, "LSTM")(_packed_input(lib, lib.zeros(6, INPUT))),
    "gru state batch": lambda lib: layer(lib, "GRU")(_packed_input(lib), lib.zeros(1, 2, HIDDEN)),
    "gru state size": lambda lib: layer(lib, "GRU")(_packed_input(lib), lib.zeros(1, 3, 5)),
    "gru 2-D state": lambda lib: layer(lib, "GRU")(_packed_input(lib), lib.zeros(3, HIDDEN)),
    "rnn layers": lambda lib: layer(lib, "RNN")(_packed_input(lib), lib.zeros(2, 3, HIDDEN)),
    "gru input size": lambda lib: layer(lib, "GRU")(_packed_input(lib, lib.zeros(7, 3))),
    "gru 3-D data": lambda lib: layer(lib, "GRU")(_packed_input(lib, lib.zeros(7, 2, 1))),
    "gru dtype": lambda lib: layer(lib, "GRU")(
        _packed_input(lib, lib.zeros(7, INPUT, dtype=lib.float64))),
    "rnn short data": lambda lib: layer(lib, "RNN")(_packed_input(lib, lib.zeros(5, INPUT))),
    "lstm one state": lambda lib: lib.lstm(
        lib.zeros(4, INPUT), lib.tensor([2, 2]), (lib.zeros(1, 2, HIDDEN),),
        layer(lib, "LSTM")._flat_weights, True, 1, 0.0, False, False),
    "functional state count": lambda lib: lib.gru(
        lib.zeros(4, INPUT), lib.tensor([2, 2]), lib.zeros(3, 2, HIDDEN),
        layer(lib, "GRU", num_layers=2)._flat_weights, True, 2, 0.0, False, False),
    "functional state batch": lambda lib: lib.gru(
        lib.zeros(4, INPUT), lib.tensor([2, 2]), lib.zeros(1, 3, HIDDEN),
        layer(lib, "GRU")._flat_weights, True, 1, 0.0, False, False),
    "float batch sizes": lambda lib: lib.rnn_tanh(
        lib.zeros(4, INPUT), lib.tensor([2., 2.]), lib.zeros(1, 2, HIDDEN),
        layer(lib, "RNN")._flat_weights, True, 1, 0.0, False, False),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(torch, case):
    assert_same_error(ERRORS[case])


def test_packed_gradgradcheck():
    """Double backward through the shrinking and growing batch (the steps are plain ops)."""
    sizes = ember.tensor([2, 1, 1])
    weights = [_leaf(seed, 6, 2) for seed in (1, 2, 3, 4)]   # (w_ih, w_hh) per direction

    def function(data, hx, *params):
        return ember.gru(data, sizes, hx, list(params), False, 1, 0.0, False, True)
    args = (_leaf(0, 4, 2), _leaf(5, 2, 2, 2), *weights)
    assert ember.autograd.gradgradcheck(function, args)


def test_projected_lstm_does_not_warn_when_packed(torch):
    """PyTorch warns that oneDNN cannot take projections only on its padded path."""
    def go(lib):
        module = layer(lib, "LSTM", proj_size=2)
        packed = lib.nn.utils.rnn.pack_sequence([lib.ones(3, INPUT), lib.ones(2, INPUT)])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module(packed)
        return [str(w.message) for w in caught]
    assert go(ember) == go(torch) == []
