"""nn.RNN / LSTM / GRU, their cells and the functional entry points, against torch.

Both libraries build each layer after manual_seed(0) and must hold bit-identical
weights; outputs, final states, every gradient (input, initial states, parameters)
and the grad_fn names a user sees are then compared. float32 LSTMs take ember's
fused whole-layer node (PyTorch's oneDNN path); float64 and projected LSTMs, GRUs
and RNNs are unrolled into per-step ops, which float64 gradcheck covers.
"""
import contextlib
import importlib.util
import io
import pathlib
import warnings

import numpy as np
import pytest

import ember
from ember.ops.recurrent_lstm import mkldnn_rnn_layer
from oracle import assert_same, assert_same_error

LAYERS = {"RNN": lambda lib: lib.nn.RNN, "LSTM": lambda lib: lib.nn.LSTM,
          "GRU": lambda lib: lib.nn.GRU}
CELLS = {"RNNCell": lambda lib: lib.nn.RNNCell, "LSTMCell": lambda lib: lib.nn.LSTMCell,
         "GRUCell": lambda lib: lib.nn.GRUCell}
TOL = {"float32": dict(atol=2e-6, rtol=2e-5), "float64": dict(atol=1e-12, rtol=1e-10)}
SEQ, BATCH, INPUT, HIDDEN = 5, 3, 3, 4


pytestmark = pytest.mark.usefixtures("torch_on_one_thread")


def build(lib, make, *args, dtype="float32", **kwargs):
    lib.manual_seed(0)
    return make(lib)(*args, **kwargs).to(getattr(lib, dtype))


def pair(torch, make, *args, dtype="float32", **kwargs):
    """The same layer in both libraries; the seeded draws must give identical weights."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        modules = [build(lib, make, *args, dtype=dtype, **kwargs) for lib in (ember, torch)]
    named = [list(m.named_parameters()) for m in modules]
    assert [n for n, _ in named[0]] == [n for n, _ in named[1]]
    for (name, e), (_, t) in zip(*named):
        assert np.array_equal(e.detach().numpy(), t.detach().numpy()), name
    return modules


def inputs(lib, shape, dtype, seed):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)


def run_and_compare(modules, states_shape, dtype, batched, with_hx, lstm, batch_first=False):
    """Forward, a weighted sum of every output, backward; compare all values and grads."""
    shape = (BATCH, SEQ, INPUT) if batch_first else (SEQ, BATCH, INPUT)
    if not batched:
        shape = (SEQ, INPUT)
        states_shape = states_shape[:1] + states_shape[2:]
    results = []
    for lib, module in zip((ember, torch_module()), modules):
        x = inputs(lib, shape, dtype, 1)
        leaves = [x]
        hx = None
        if with_hx:
            hx = inputs(lib, states_shape, dtype, 2)
            leaves.append(hx)
            if lstm:
                cell_shape = states_shape[:-1] + (module.hidden_size,)
                hx = (hx, inputs(lib, cell_shape, dtype, 3))
                leaves.append(hx[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            output, state = module(x, hx)
        finals = state if lstm else (state,)
        loss = output.sum() + sum((k + 2) * (f * f).sum() for k, f in enumerate(finals))
        loss.backward()
        grads = [leaf.grad for leaf in leaves] + [p.grad for p in module.parameters()]
        names = [output.grad_fn.name()] + [f.grad_fn.name() for f in finals]
        results.append((output, finals, grads, names))
    (e_out, e_fin, e_grads, e_names), (t_out, t_fin, t_grads, t_names) = results
    assert e_names == t_names
    assert_same(e_out, t_out, **TOL[dtype])
    assert_same(list(e_fin), list(t_fin), **TOL[dtype])
    assert_same(e_grads, t_grads, **TOL[dtype], path="grads")


def torch_module():
    import torch  # noqa: PLC0415 - reached only from tests that take the torch fixture
    return torch


OPTIONS = [{}, {"num_layers": 2}, {"bidirectional": True}, {"batch_first": True},
           {"bias": False}, {"num_layers": 2, "bidirectional": True, "batch_first": True}]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN", "RNN_relu"])
def test_layers_match_torch(torch, mode, options, dtype):
    kwargs = dict(options)
    if mode == "RNN_relu":
        mode, kwargs["nonlinearity"] = "RNN", "relu"
    modules = pair(torch, LAYERS[mode], INPUT, HIDDEN, dtype=dtype, **kwargs)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    for batched, with_hx in ((True, False), (True, True), (False, True), (False, False)):
        run_and_compare(modules, (layers, BATCH, HIDDEN), dtype, batched, with_hx,
                        mode == "LSTM", kwargs.get("batch_first", False))
        for module in modules:
            module.zero_grad()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", [{}, {"num_layers": 2, "bidirectional": True},
                                     {"bias": False, "batch_first": True}])
def test_lstm_with_projections_matches_torch(torch, options, dtype):
    modules = pair(torch, LAYERS["LSTM"], INPUT, HIDDEN, proj_size=2, dtype=dtype, **options)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    for batched, with_hx in ((True, True), (False, False)):
        run_and_compare(modules, (layers, BATCH, 2), dtype, batched, with_hx, True,
                        options.get("batch_first", False))


def test_projection_warning_as_torch(torch):
    """PyTorch warns once per process (every time under set_warn_always(True))."""
    messages = []
    for lib in (ember, torch):
        module = build(lib, LAYERS["LSTM"], INPUT, HIDDEN, proj_size=2)
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module(lib.zeros(SEQ, BATCH, INPUT))
                module(lib.zeros(SEQ, BATCH, INPUT))
                module.double()(lib.zeros(SEQ, BATCH, INPUT, dtype=lib.float64))  # no oneDNN
        finally:
            lib.set_warn_always(False)
        messages.append([str(w.message).split(" (Triggered")[0] for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 2


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_dropout_between_layers_draws_torch_masks(torch, mode):
    results = []
    for lib in (ember, torch):
        module = build(lib, LAYERS[mode], INPUT, HIDDEN, num_layers=3, dropout=0.5,
                       bidirectional=True)
        x = inputs(lib, (SEQ, BATCH, INPUT), "float32", 1)
        lib.manual_seed(7)
        output, _ = module(x)
        output.sum().backward()
        module.eval()
        evaluated, _ = module(x)
        results.append((output, x.grad, evaluated))
    assert_same(results[0], results[1], **TOL["float32"])
    assert not ember.allclose(results[0][0], results[0][2])   # dropout did act in training


def test_dropout_warning_and_constructor_errors(torch):
    texts = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.GRU(3, 4, dropout=0.2)
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] and len(texts[0]) == 1
    for call in (lambda lib: lib.nn.LSTM(3, 4, dropout=2),
                 lambda lib: lib.nn.LSTM(3, 4, dropout=True),
                 lambda lib: lib.nn.LSTM(3, 4.0),
                 lambda lib: lib.nn.LSTM("3", 4),
                 lambda lib: lib.nn.LSTM(0, 4),
                 lambda lib: lib.nn.LSTM(3, 0),
                 lambda lib: lib.nn.LSTM(3, 4, num_layers=0),
                 lambda lib: lib.nn.LSTM(3, 4, bias=1),
                 lambda lib: lib.nn.LSTM(3, 4, batch_first=None),
                 lambda lib: lib.nn.LSTM(3, 4, proj_size=-1),
                 lambda lib: lib.nn.LSTM(3, 4, proj_size=4),
                 lambda lib: lib.nn.GRU(3, 4, proj_size=2),
                 lambda lib: lib.nn.RNN(3, 4, proj_size=2),
                 lambda lib: lib.nn.RNN(3, 4, nonlinearity="sigmoid"),
                 lambda lib: lib.nn.RNN(3, 4, 1, "gelu"),
                 lambda lib: lib.nn.modules.rnn.RNNBase("XYZ", 3, 4)):
        assert_same_error(call)


FORWARD_ERRORS = [
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, BATCH, INPUT, dtype=lib.float64)),
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, BATCH, INPUT + 1)),
    lambda lib, m: m["LSTM"](lib.zeros(2, SEQ, BATCH, INPUT)),
    lambda lib, m: m["LSTM"](lib.zeros(INPUT)),
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, BATCH, INPUT),
                             (lib.zeros(1, BATCH, HIDDEN), lib.zeros(1, BATCH + 1, HIDDEN))),
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, BATCH, INPUT),
                             (lib.zeros(2, BATCH, HIDDEN), lib.zeros(1, BATCH, HIDDEN))),
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, BATCH, INPUT),
                             (lib.zeros(BATCH, HIDDEN), lib.zeros(BATCH, HIDDEN))),
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, INPUT),
                             (lib.zeros(1, 1, HIDDEN), lib.zeros(1, HIDDEN))),
    lambda lib, m: m["LSTM"](lib.zeros(0, BATCH, INPUT)),
    lambda lib, m: m["LSTM"](lib.zeros(SEQ, BATCH, INPUT),
                             (lib.zeros(1, BATCH, HIDDEN, dtype=lib.float64),
                              lib.zeros(1, BATCH, HIDDEN))),
    lambda lib, m: m["LSTM"].double()(lib.zeros(SEQ, BATCH, INPUT, dtype=lib.float64),
                                      (lib.zeros(1, BATCH, HIDDEN),
                                       lib.zeros(1, BATCH, HIDDEN, dtype=lib.float64))),
    lambda lib, m: m["GRU"](lib.zeros(SEQ, BATCH, INPUT), lib.zeros(1, BATCH, HIDDEN + 1)),
    lambda lib, m: m["GRU"](lib.zeros(SEQ, BATCH, INPUT), lib.zeros(BATCH, HIDDEN)),
    lambda lib, m: m["GRU"](lib.zeros(SEQ, INPUT), lib.zeros(1, 1, HIDDEN)),
    lambda lib, m: m["GRU"](lib.zeros(1, 2, SEQ, INPUT)),
    lambda lib, m: m["GRU"](lib.zeros(0, BATCH, INPUT)),
    lambda lib, m: m["RNN"](lib.zeros(SEQ, BATCH, INPUT, dtype=lib.int32)),
    lambda lib, m: m["RNN"](lib.zeros(INPUT)),
    lambda lib, m: m["RNN"](lib.zeros(SEQ, BATCH, INPUT), lib.zeros(2, BATCH, HIDDEN)),
]


@pytest.mark.parametrize("index", range(len(FORWARD_ERRORS)))
def test_forward_errors_as_torch(torch, index):
    def call(lib):
        modules = {name: build(lib, make, INPUT, HIDDEN) for name, make in LAYERS.items()}
        return FORWARD_ERRORS[index](lib, modules)
    assert_same_error(call)


def test_empty_batch_as_torch(torch):
    results = []
    for lib in (ember, torch):
        module = build(lib, LAYERS["LSTM"], INPUT, HIDDEN)
        output, (h, c) = module(lib.zeros(SEQ, 0, INPUT))
        results.append((output, h, c))
    assert_same(results[0], results[1])


# ---------------------------------------------------------------- cells
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                         ("RNNCell", {"bias": False}), ("LSTMCell", {}),
                                         ("LSTMCell", {"bias": False}), ("GRUCell", {}),
                                         ("GRUCell", {"bias": False})])
def test_cells_match_torch(torch, name, kwargs, dtype):
    modules = pair(torch, CELLS[name], INPUT, HIDDEN, dtype=dtype, **kwargs)
    lstm = name == "LSTMCell"
    for batched in (True, False):
        for with_hx in (True, False):
            results = []
            for lib, module in zip((ember, torch), modules):
                module.zero_grad()
                x = inputs(lib, (BATCH, INPUT) if batched else (INPUT,), dtype, 1)
                state_shape = (BATCH, HIDDEN) if batched else (HIDDEN,)
                leaves, hx = [x], None
                if with_hx:
                    hx = inputs(lib, state_shape, dtype, 2)
                    leaves.append(hx)
                    if lstm:
                        hx = (hx, inputs(lib, state_shape, dtype, 3))
                        leaves.append(hx[1])
                out = module(x, hx)
                outs = out if lstm else (out,)
                sum((k + 1) * (o * o).sum() for k, o in enumerate(outs)).backward()
                grads = [leaf.grad for leaf in leaves] + [p.grad for p in module.parameters()]
                results.append((list(outs), grads, [o.grad_fn.name() for o in outs]))
            assert results[0][2] == results[1][2]
            assert_same(results[0][:2], results[1][:2], **TOL[dtype])


CELL_ERRORS = [
    lambda lib, c: c["LSTMCell"](lib.zeros(BATCH, INPUT + 1)),
    lambda lib, c: c["LSTMCell"](lib.zeros(BATCH, INPUT),
                                 (lib.zeros(BATCH + 1, HIDDEN), lib.zeros(BATCH, HIDDEN))),
    lambda lib, c: c["LSTMCell"](lib.zeros(BATCH, INPUT),
                                 (lib.zeros(BATCH, HIDDEN), lib.zeros(BATCH, HIDDEN + 1))),
    lambda lib, c: c["LSTMCell"](lib.zeros(1, BATCH, INPUT)),
    lambda lib, c: c["LSTMCell"](lib.zeros(BATCH, INPUT),
                                 (lib.zeros(1, BATCH, HIDDEN), lib.zeros(BATCH, HIDDEN))),
    lambda lib, c: c["GRUCell"](lib.zeros(BATCH, INPUT), lib.zeros(BATCH + 1, HIDDEN)),
    lambda lib, c: c["GRUCell"](lib.zeros(INPUT), lib.zeros(BATCH, HIDDEN)),
    lambda lib, c: c["GRUCell"](lib.zeros(BATCH, INPUT), lib.zeros(1, BATCH, HIDDEN)),
    lambda lib, c: c["RNNCell"](lib.zeros(1, 1, INPUT)),
    lambda lib, c: c["RNNCell"](lib.zeros(BATCH, INPUT), lib.zeros(BATCH, HIDDEN + 1)),
]


@pytest.mark.parametrize("index", range(len(CELL_ERRORS)))
def test_cell_errors_as_torch(torch, index):
    def call(lib):
        cells = {name: build(lib, make, INPUT, HIDDEN) for name, make in CELLS.items()}
        return CELL_ERRORS[index](lib, cells)
    assert_same_error(call)


# ---------------------------------------------------------------- functional entry points
def test_functional_entry_points_match_torch(torch):
    results = []
    for lib in (ember, torch):
        lstm = build(lib, LAYERS["LSTM"], INPUT, HIDDEN, num_layers=2, bidirectional=True)
        gru = build(lib, LAYERS["GRU"], INPUT, HIDDEN, num_layers=2)
        rnn = build(lib, LAYERS["RNN"], INPUT, HIDDEN, bias=False)
        x = inputs(lib, (BATCH, SEQ, INPUT), "float32", 1)
        h4 = inputs(lib, (4, BATCH, HIDDEN), "float32", 2)
        h2, h1 = h4[:2], h4[:1]
        outs = list(lib.lstm(x, (h4, h4 * 2), lstm._flat_weights, True, 2, 0.0, False, True,
                             True))
        outs += list(lib.gru(x, h2, gru._flat_weights, True, 2, 0.0, True, False, True))
        outs += list(lib.rnn_tanh(x.transpose(0, 1), h1, rnn._flat_weights, False, 1, 0.0,
                                  True, False, False))
        outs += list(lib.rnn_relu(x.transpose(0, 1), h1, rnn._flat_weights, False, 1, 0.0,
                                  True, False, False))
        cell = build(lib, CELLS["LSTMCell"], INPUT, HIDDEN)
        x0, s = x[:, 0], h4[0]
        outs += list(lib.lstm_cell(x0, (s, s), *cell.parameters()))
        weights = list(build(lib, CELLS["GRUCell"], INPUT, HIDDEN).parameters())
        outs.append(lib.gru_cell(x0, s, *weights))
        weights = list(build(lib, CELLS["RNNCell"], INPUT, HIDDEN).parameters())
        outs.append(lib.rnn_tanh_cell(x0, s, *weights))
        outs.append(lib.rnn_relu_cell(x0, s, weights[0], weights[1]))
        sum((k + 1) * o.sum() for k, o in enumerate(outs)).backward()
        results.append((outs, [x.grad, h4.grad], [o.grad_fn.name() for o in outs]))
    assert results[0][2] == results[1][2]
    assert_same(results[0][:2], results[1][:2], **TOL["float32"])
    for call in (lambda lib: lib.lstm_cell(lib.zeros(2, 3), [lib.zeros(2, 4)],
                                           lib.zeros(16, 3), lib.zeros(16, 4)),
                 lambda lib: lib.lstm(lib.zeros(5, 2, 3), [lib.zeros(1, 2, 4)],
                                      [lib.zeros(16, 3), lib.zeros(16, 4)], False, 1, 0.0,
                                      False, False, False),
                 lambda lib: lib.gru(lib.zeros(5, 2, 3), lib.zeros(1, 2, 4),
                                     [lib.zeros(12, 3), lib.zeros(12, 4), lib.zeros(12)], True,
                                     1, 0.0, False, False, False)):
        assert_same_error(call)


# ---------------------------------------------------------------- module surface
REPRS = ["nn.LSTM(3, 4)", "nn.LSTM(3, 4, proj_size=2, num_layers=2, bias=False, "
         "batch_first=True, dropout=0.5, bidirectional=True)", "nn.GRU(3, 4, 2)",
         "nn.RNN(3, 4, nonlinearity='relu', dropout=0.0)", "nn.RNN(3, 4, 2, 'relu', False)",
         "nn.RNNCell(3, 4, nonlinearity='relu', bias=False)", "nn.LSTMCell(3, 4)",
         "nn.GRUCell(3, 4, False)", "nn.Sequential(nn.LSTM(3, 4), nn.GRUCell(3, 4))"]


def test_reprs_names_and_state_dicts_as_torch(torch):
    for source in REPRS:
        texts = []
        for lib in (ember, torch):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                texts.append(repr(eval(source, {"nn": lib.nn})))
        assert texts[0] == texts[1], source
    for kwargs in ({"num_layers": 2, "bidirectional": True}, {"proj_size": 2, "bias": False}):
        e, t = pair(torch, LAYERS["LSTM"], INPUT, HIDDEN, **kwargs)
        assert e._flat_weights_names == t._flat_weights_names
        assert e._all_weights == t._all_weights
        assert [[tuple(w.shape) for w in ws] for ws in e.all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in t.all_weights]
        assert [w.shape for w in e._flat_weights] == [w.shape for w in t._flat_weights]
        assert e.flatten_parameters() is None and t.flatten_parameters() is None
        # state dicts interchange both ways
        e_state, t_state = e.state_dict(), t.state_dict()
        assert list(e_state) == list(t_state)
        ember.manual_seed(5)
        other = LAYERS["LSTM"](ember)(INPUT, HIDDEN, **kwargs)
        other.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_state.items()})
        torch.manual_seed(5)
        back = LAYERS["LSTM"](torch)(INPUT, HIDDEN, **kwargs)
        back.load_state_dict({k: torch.tensor(v.numpy()) for k, v in other.state_dict().items()})
        assert all(torch.equal(a, b) for a, b in zip(back.parameters(), t.parameters()))
    from ember.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, \
        RNNCellBase
    assert issubclass(LSTM, RNNBase) and issubclass(GRU, RNNBase) and issubclass(RNN, RNNBase)
    assert all(issubclass(c, RNNCellBase) for c in (RNNCell, LSTMCell, GRUCell))
    assert LSTM is ember.nn.LSTM and RNNCellBase is ember.nn.RNNCellBase


# ---------------------------------------------------------------- gradcheck
@pytest.mark.parametrize("reverse", [False, True])
def test_fused_lstm_layer_gradcheck(reverse):
    rng = np.random.default_rng(0)
    def leaf(*shape):
        return ember.tensor(rng.standard_normal(shape), dtype=ember.float64, requires_grad=True)
    args = (leaf(4, 2, 3), leaf(8, 3), leaf(8, 2), leaf(8), leaf(8), leaf(2, 2), leaf(2, 2))
    assert ember.autograd.gradcheck(
        lambda *a: mkldnn_rnn_layer(*a, reverse), args)
    output = mkldnn_rnn_layer(*args, reverse)[0]
    assert output.grad_fn.name() == "MkldnnRnnLayerBackward0"
    assert ember.autograd.gradgradcheck(lambda *a: mkldnn_rnn_layer(*a, reverse), args)


UNROLLED = {"LSTM": lambda x, h, c, *w: ember.lstm(x, (h, c), w, True, 2, 0.0, False, True,
                                                      False)[0],
            "GRU": lambda x, h, c, *w: ember.gru(x, h, w, True, 2, 0.0, False, True, False)[0],
            "RNN": lambda x, h, c, *w: ember.rnn_tanh(x, h, w, True, 2, 0.0, False, True,
                                                      False)[0]}


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_unrolled_layers_gradcheck(mode):
    ember.manual_seed(0)
    extra = {"proj_size": 1} if mode == "LSTM" else {}
    module = LAYERS[mode](ember)(2, 2, num_layers=2, bidirectional=True, **extra).double()
    weights = [p.detach().clone().requires_grad_() for p in module.parameters()]
    x = ember.randn(2, 1, 2, dtype=ember.float64, requires_grad=True)
    h = ember.randn(4, 1, 1 if extra else 2, dtype=ember.float64, requires_grad=True)
    c = ember.randn(4, 1, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(UNROLLED[mode], (x, h, c, *weights))
    # second order through the per-step ops, for the states and input only
    assert ember.autograd.gradgradcheck(lambda x, h, c: UNROLLED[mode](x, h, c, *weights),
                                        (x, h, c))


# ---------------------------------------------------------------- the example program
def test_word_language_model_example_prints_torch_losses(torch):
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "word_language_model.py"
    spec = importlib.util.spec_from_file_location("word_language_model", path)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    printed = []
    for lib in (ember, torch):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            program.main(lib)
        printed.append([float(line.split()[3]) for line in output.getvalue().splitlines()])
    assert len(printed[0]) == 20
    np.testing.assert_allclose(printed[0], printed[1], rtol=2e-5, atol=0)
    assert printed[0][-1] < printed[0][0] - 0.4     # it learns


def test_fused_lstm_double_backward_matches_torch(torch):
    results = []
    for lib in (ember, torch):
        module = build(lib, LAYERS["LSTM"], INPUT, HIDDEN, num_layers=2, bidirectional=True)
        x = inputs(lib, (SEQ, BATCH, INPUT), "float32", 1)
        output, (h, c) = module(x)
        (grad,) = lib.autograd.grad((output * output).sum() + c.sum(), x, create_graph=True)
        (grad * grad).sum().backward()
        results.append([output.grad_fn.name(), grad] + [p.grad for p in module.parameters()])
    assert results[0][0] == results[1][0] == "CatBackward0"
    assert_same(results[0][1:], results[1][1:], atol=1e-5, rtol=1e-4)
