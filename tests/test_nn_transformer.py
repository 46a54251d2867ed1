"""nn.Transformer, its encoder/decoder stacks and layers against torch: seeded weights,
state dicts both ways, reprs, outputs and gradients for every option (training-mode
dropout streams included), PyTorch's inference shortcuts' visible results, warnings and
errors; and the char-GPT example printing torch's losses."""
import copy
import importlib.util
import pathlib
import pickle
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error

RNG = np.random.default_rng(0)
SRC = RNG.standard_normal((5, 3, 8)).astype(np.float32)    # (S, N, E)
TGT = RNG.standard_normal((4, 3, 8)).astype(np.float32)    # (T, N, E)
SRC_BF = np.ascontiguousarray(SRC.transpose(1, 0, 2))      # (N, S, E)
TGT_BF = np.ascontiguousarray(TGT.transpose(1, 0, 2))
PAD = np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
PAD_RIGHT = np.ascontiguousarray(PAD[:, ::-1])
MEM_PAD = np.array([[False] * 5, [False, True, False, False, True], [False] * 5])
FLOAT_MASK = RNG.standard_normal((5, 5)).astype(np.float32)
BOOL_MASK = RNG.random((4, 5)) > 0.7
TOL = dict(atol=1e-5, rtol=1e-4)


def _t(lib, array, requires_grad=False):
    return lib.tensor(array).requires_grad_(requires_grad)


def _build(torch, factory, seed=0):
    """factory(lib) under the same seed in both libraries; any warnings silenced."""
    modules = []
    for lib in (torch, ember):
        lib.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            modules.append(factory(lib))
    return modules


def _check_pair(torch, factory, forward, train=True, grad=True, seed=0):
    """Same parameters, repr, outputs (dropout draws included) and gradients."""
    t_mod, e_mod = _build(torch, factory, seed)
    assert repr(e_mod) == repr(t_mod)
    t_state, e_state = t_mod.state_dict(), e_mod.state_dict()
    assert list(e_state) == list(t_state)
    for name in t_state:
        assert_same(e_state[name], t_state[name], atol=0, rtol=0, path=name)
    t_mod.train(train)
    e_mod.train(train)
    outputs = []
    for lib, module in ((torch, t_mod), (ember, e_mod)):
        lib.manual_seed(seed + 1)
        if grad:
            outputs.append(forward(lib, module))
        else:
            with lib.no_grad():
                outputs.append(forward(lib, module))
    t_out, e_out = outputs
    assert_same(e_out, t_out, **TOL)
    if grad:
        t_out.sum().backward()
        e_out.sum().backward()
        for (name, t_p), e_p in zip(t_mod.named_parameters(), e_mod.parameters()):
            if t_p.grad is None:
                assert e_p.grad is None, name
            else:
                assert_same(e_p.grad, t_p.grad, atol=2e-5, rtol=2e-4, path=name)
    return t_out, e_out


def _enc_layer(**kw):
    options = dict(d_model=8, nhead=2, dim_feedforward=16)
    options.update(kw)
    return lambda lib: lib.nn.TransformerEncoderLayer(**options)


def _dec_layer(**kw):
    options = dict(d_model=8, nhead=2, dim_feedforward=16)
    options.update(kw)
    return lambda lib: lib.nn.TransformerDecoderLayer(**options)


def _encode(batch_first=False, **masks):
    def forward(lib, module):
        src = SRC_BF if batch_first else SRC
        return module(_t(lib, src), **{k: _t(lib, v) if isinstance(v, np.ndarray) else v
                                       for k, v in masks.items()})
    return forward


def _decode(batch_first=False, **masks):
    def forward(lib, module):
        src, tgt = (SRC_BF, TGT_BF) if batch_first else (SRC, TGT)
        return module(_t(lib, tgt), _t(lib, src),
                      **{k: _t(lib, v) if isinstance(v, np.ndarray) else v
                         for k, v in masks.items()})
    return forward


def _causal(n, dtype=np.float32):
    mask = np.triu(np.full((n, n), -np.inf, dtype=np.float32), 1)
    return mask if dtype == np.float32 else mask != 0


ENCODER_LAYER_CASES = {
    "defaults": (_enc_layer(), _encode()),
    "batch_first": (_enc_layer(batch_first=True), _encode(True)),
    "norm_first": (_enc_layer(norm_first=True), _encode()),
    "gelu string": (_enc_layer(activation="gelu"), _encode()),
    "relu string": (_enc_layer(activation="relu"), _encode()),
    "callable": (lambda lib: lib.nn.TransformerEncoderLayer(
        8, 2, 16, activation=lib.nn.functional.silu), _encode()),
    "GELU module": (lambda lib: lib.nn.TransformerEncoderLayer(
        8, 2, 16, activation=lib.nn.GELU(approximate="tanh")), _encode()),
    "no bias": (_enc_layer(bias=False), _encode()),
    "eps and no dropout": (_enc_layer(layer_norm_eps=1e-2, dropout=0.0), _encode()),
    "float src_mask": (_enc_layer(), _encode(src_mask=FLOAT_MASK)),
    "bool src_mask, padding": (_enc_layer(), _encode(src_mask=FLOAT_MASK > 1,
                                                     src_key_padding_mask=PAD)),
    "padding": (_enc_layer(batch_first=True), _encode(True, src_key_padding_mask=PAD)),
    "causal hint": (_enc_layer(), _encode(src_mask=_causal(5), is_causal=True)),
    "unbatched": (_enc_layer(), lambda lib, m: m(_t(lib, SRC[:, 0]),
                                                  src_key_padding_mask=_t(lib, PAD[1]))),
    "float64": (lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, dtype=lib.float64),
                lambda lib, m: m(_t(lib, SRC).double())),
}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", ENCODER_LAYER_CASES)
def test_encoder_layer_matches_torch(torch, case, train):
    factory, forward = ENCODER_LAYER_CASES[case]
    _check_pair(torch, factory, forward, train=train)


DECODER_LAYER_CASES = {
    "defaults": (_dec_layer(), _decode()),
    "batch_first": (_dec_layer(batch_first=True), _decode(True)),
    "norm_first gelu": (_dec_layer(norm_first=True, activation="gelu"), _decode()),
    "no bias": (_dec_layer(bias=False), _decode()),
    "masks": (_dec_layer(), _decode(tgt_mask=_causal(4), memory_mask=BOOL_MASK,
                                    tgt_key_padding_mask=PAD[:, :4],
                                    memory_key_padding_mask=MEM_PAD)),
    "causal hints": (_dec_layer(batch_first=True),
                     _decode(True, tgt_mask=_causal(4), tgt_is_causal=True)),
    "memory causal hint": (_dec_layer(), _decode(memory_mask=np.zeros((4, 5), np.float32),
                                                 memory_is_causal=True)),
    "unbatched": (_dec_layer(), lambda lib, m: m(_t(lib, TGT[:, 0]), _t(lib, SRC[:, 0]))),
}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", DECODER_LAYER_CASES)
def test_decoder_layer_matches_torch(torch, case, train):
    factory, forward = DECODER_LAYER_CASES[case]
    _check_pair(torch, factory, forward, train=train)


def _encoder(norm=True, **kw):
    def factory(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(8) if norm else None, **kw)
    return factory


STACK_CASES = {
    "encoder": (_encoder(), _encode(True)),
    "encoder, no norm, causal mask detected": (_encoder(norm=False),
                                               _encode(True, mask=_causal(5))),
    "encoder, padding": (_encoder(), _encode(True, src_key_padding_mask=PAD)),
    "encoder, padding and mask": (_encoder(), _encode(True, mask=FLOAT_MASK,
                                                      src_key_padding_mask=PAD)),
    "encoder, right-aligned padding": (_encoder(), _encode(True,
                                                           src_key_padding_mask=PAD_RIGHT)),
    "encoder, no mask check": (_encoder(mask_check=False),
                               _encode(True, src_key_padding_mask=PAD_RIGHT)),
    "encoder, nested disabled": (_encoder(enable_nested_tensor=False),
                                 _encode(True, src_key_padding_mask=PAD)),
    "decoder": (lambda lib: lib.nn.TransformerDecoder(
        lib.nn.TransformerDecoderLayer(8, 2, 16), 2, lib.nn.LayerNorm(8)),
        _decode(tgt_mask=_causal(4), memory_key_padding_mask=MEM_PAD)),
    "decoder, bool causal mask detected": (lambda lib: lib.nn.TransformerDecoder(
        lib.nn.TransformerDecoderLayer(8, 2, 16, norm_first=True), 3),
        _decode(tgt_mask=_causal(4, bool))),
}


@pytest.mark.parametrize("mode", ["train", "eval", "inference"])
@pytest.mark.parametrize("case", STACK_CASES)
def test_stacks_match_torch(torch, case, mode):
    """In inference mode (eval, no_grad) torch's encoder packs a left-aligned padded batch
    into a nested tensor: padded positions come out as zeros before the final norm."""
    factory, forward = STACK_CASES[case]
    _check_pair(torch, factory, forward, train=mode == "train", grad=mode != "inference")


def _transformer(**kw):
    options = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                   dim_feedforward=16)
    options.update(kw)
    return lambda lib: lib.nn.Transformer(**options)


def _transform(batch_first=False, **masks):
    def forward(lib, module):
        src, tgt = (SRC_BF, TGT_BF) if batch_first else (SRC, TGT)
        return module(_t(lib, src), _t(lib, tgt),
                      **{k: _t(lib, v) if isinstance(v, np.ndarray) else v
                         for k, v in masks.items()})
    return forward


TRANSFORMER_CASES = {
    "defaults": (_transformer(), _transform()),
    "batch_first norm_first gelu": (_transformer(batch_first=True, norm_first=True,
                                                 activation="gelu"), _transform(True)),
    "no bias": (_transformer(bias=False, dropout=0.2), _transform()),
    "masks": (_transformer(), _transform(src_mask=FLOAT_MASK, tgt_mask=_causal(4),
                                         memory_mask=BOOL_MASK, src_key_padding_mask=PAD,
                                         tgt_key_padding_mask=PAD[:, :4],
                                         memory_key_padding_mask=MEM_PAD)),
    "causal flags": (_transformer(batch_first=True),
                     _transform(True, src_mask=_causal(5), src_is_causal=True,
                                tgt_mask=_causal(4), tgt_is_causal=True)),
    "custom encoder and decoder": (lambda lib: lib.nn.Transformer(
        d_model=8, nhead=2, custom_encoder=lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(8, 2, 12), 1),
        custom_decoder=lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 12), 1)),
        _transform()),
    "unbatched": (_transformer(), lambda lib, m: m(_t(lib, SRC[:, 0]), _t(lib, TGT[:, 0]))),
}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("case", TRANSFORMER_CASES)
def test_transformer_matches_torch(torch, case, train):
    factory, forward = TRANSFORMER_CASES[case]
    _check_pair(torch, factory, forward, train=train)


def test_default_transformer_weights_after_seed(torch):
    """The full-size default model: 44M parameters' xavier_uniform_ draws in torch's order."""
    t_mod, e_mod = _build(torch, lambda lib: lib.nn.Transformer(num_encoder_layers=1,
                                                                num_decoder_layers=1), seed=3)
    t_state, e_state = t_mod.state_dict(), e_mod.state_dict()
    assert list(e_state) == list(t_state)
    for name in t_state:
        assert_same(e_state[name], t_state[name], atol=0, rtol=0, path=name)
    assert repr(e_mod) == repr(t_mod)


def test_encoder_layer_inference_kernel_results(torch):
    """torch's fused inference kernel: a query whose keys are all padded gives NaN, and
    the is_causal hint without a mask is ignored (the slow path refuses it)."""
    factory = _enc_layer(batch_first=True)
    pad = PAD.copy()
    pad[0] = True
    t_out, e_out = _check_pair(torch, factory, _encode(True, src_key_padding_mask=pad),
                               train=False, grad=False)
    assert np.isnan(e_out[0].numpy()).all() and not np.isnan(e_out[1:].numpy()).any()
    _check_pair(torch, factory, _encode(True, is_causal=True), train=False, grad=False)
    _check_pair(torch, factory, _encode(True, src_mask=FLOAT_MASK, is_causal=True),
                train=False, grad=False)
    # the encoder stack packs the same batch: the empty sequence comes back as zeros
    t_out, e_out = _check_pair(torch, _encoder(norm=False),
                               _encode(True, src_key_padding_mask=pad), train=False, grad=False)
    assert (e_out[0].numpy() == 0).all()
    assert_same_error(lambda lib: _build(torch, factory)[lib is ember].train()(
        _t(lib, SRC_BF), is_causal=True))


def test_inference_kernel_not_taken_with_hooks_or_odd_heads(torch):
    """With a forward hook (or an odd head count) torch takes the ordinary path: a fully
    padded query row gives finite values there."""
    pad = PAD.copy()
    pad[0] = True
    for factory in (_enc_layer(batch_first=True, nhead=1), _enc_layer(batch_first=True)):
        t_mod, e_mod = _build(torch, factory)
        if factory is not None:
            for module in (t_mod, e_mod):
                module.linear1.register_forward_hook(lambda *args: None)
        results = []
        for lib, module in ((torch, t_mod.eval()), (ember, e_mod.eval())):
            with lib.no_grad():
                results.append(module(_t(lib, SRC_BF), src_key_padding_mask=_t(lib, pad)))
        assert_same(results[1], results[0], **TOL)
        assert not np.isnan(results[1].numpy()).any()


def test_nested_warning_text(torch):
    """The nested-tensor prototype warning torch gives (once) when it packs the batch."""
    from ember.nn.modules import transformer
    t_mod, e_mod = _build(torch, _encoder())
    texts = []
    for lib, module, reset in ((torch, t_mod, None), (ember, e_mod, transformer)):
        if reset is not None:
            reset._nested_warned[0] = False
        with warnings.catch_warnings(record=True) as caught, lib.no_grad():
            warnings.simplefilter("always")
            module.eval()(_t(lib, SRC_BF), src_key_padding_mask=_t(lib, PAD))
            module(_t(lib, SRC_BF), src_key_padding_mask=_t(lib, PAD))
        texts.append([str(w.message) for w in caught if "nested" in str(w.message)])
    if texts[0]:  # torch warns once per process: only comparable if it has not yet
        assert texts[1] == texts[0]
    assert len(texts[1]) == 1 and texts[1][0].startswith("The PyTorch API of nested tensors")


def _layer_variants(lib):
    nn = lib.nn
    eps_mismatch = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    eps_mismatch.norm2.eps = 1e-3
    return [nn.TransformerEncoderLayer(8, 2, 16), nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False),
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=nn.functional.silu),
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=nn.ReLU()),
            eps_mismatch, nn.TransformerEncoderLayer(8, 1, 16, batch_first=True),
            nn.Linear(8, 8)]


@pytest.mark.parametrize("enable", [True, False])
def test_enable_nested_tensor_warnings(torch, enable):
    results = []
    for lib in (torch, ember):
        messages = []
        for layer in _layer_variants(lib):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                encoder = lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=enable)
            messages.append(([(str(w.message), w.category) for w in caught],
                             encoder.use_nested_tensor, encoder.enable_nested_tensor))
        results.append(messages)
    assert results[1] == results[0]


def test_transformer_warns_like_torch(torch):
    for kw in ({}, {"batch_first": True}, {"batch_first": True, "norm_first": True}):
        found = []
        for lib in (torch, ember):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lib.nn.Transformer(8, 2, 1, 1, 16, **kw)
            found.append([(str(w.message), w.category, pathlib.Path(w.filename).name)
                          for w in caught])
        assert found[1] == found[0]


def test_mismatched_mask_types_warn(torch):
    found = []
    for lib, module in zip((torch, ember), _build(torch, _enc_layer())):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module(_t(lib, SRC), src_mask=_t(lib, FLOAT_MASK),
                   src_key_padding_mask=_t(lib, PAD))
        found.append([str(w.message) for w in caught])
    assert found[1] == found[0] and found[0]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda lib: lib.nn.TransformerDecoderLayer(8, 2, activation="swish"),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 3),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 3, 8), lib.zeros(4, 2, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(
        lib.zeros(3, 5, 8), lib.zeros(2, 4, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 3, 8), lib.zeros(4, 3, 6)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 8), lib.zeros(4, 6)),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16)(
        lib.zeros(5, 3, 8), src_key_padding_mask=lib.zeros(3, 5, dtype=lib.int64)),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16)(lib.zeros(5, 3, 8), is_causal=True),
    lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16)(lib.zeros(5, 3, 8),
                                                         lib.zeros(4, 3, 6)),
], ids=["bad activation", "bad activation decoder", "nhead", "batch", "batch first batch",
        "d_model", "unbatched d_model", "int mask", "causal without mask", "memory width"])
def test_errors_match_torch(torch, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(call)


@pytest.mark.parametrize("kw", [{}, {"dtype": "float64"}, {"dtype": "bool"},
                                {"device": "cpu"}])
def test_generate_square_subsequent_mask(torch, kw):
    for n in (0, 1, 4):
        got, expected = (lib.nn.Transformer.generate_square_subsequent_mask(
            n, **{k: getattr(lib, v) if k == "dtype" else v for k, v in kw.items()})
            for lib in (ember, torch))
        assert_same(got, expected, atol=0, rtol=0)


def test_state_dicts_travel_both_ways(torch):
    factory = _transformer(batch_first=True)
    t_mod, e_mod = _build(torch, factory, seed=5)
    ember.manual_seed(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh = factory(ember)
    fresh.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    for (name, a), b in zip(fresh.state_dict().items(), t_mod.state_dict().values()):
        assert_same(a, b, atol=0, rtol=0, path=name)
    torch.manual_seed(7)
    t_fresh = factory(torch)
    t_fresh.load_state_dict({k: torch.tensor(v.numpy()) for k, v in e_mod.state_dict().items()})
    for (name, a), b in zip(e_mod.state_dict().items(), t_fresh.state_dict().values()):
        assert_same(a, b, atol=0, rtol=0, path=name)


def test_layers_are_independent_deep_copies(torch):
    layer = ember.nn.TransformerEncoderLayer(8, 2, 16)
    encoder = ember.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    weights = [m.linear1.weight for m in encoder.layers]
    assert all(w is not layer.linear1.weight for w in weights)
    assert len({id(w) for w in weights}) == 3
    assert all(ember.equal(w, layer.linear1.weight) for w in weights)
    with ember.no_grad():
        weights[0].add_(1)
    assert not ember.equal(weights[0], weights[1])
    t_enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16), 3,
                                        enable_nested_tensor=False)
    assert [n for n, _ in encoder.named_parameters()] == [n for n, _ in t_enc.named_parameters()]
    assert encoder.num_layers == t_enc.num_layers == 3
    assert encoder.mask_check is t_enc.mask_check is True


def test_activation_attributes_and_pickles(torch):
    for activation in ("relu", "gelu", "silu_fn", "gelu_module", "relu_module"):
        flags = []
        for lib in (torch, ember):
            act = {"silu_fn": lib.nn.functional.silu, "gelu_module": lib.nn.GELU(),
                   "relu_module": lib.nn.ReLU()}.get(activation, activation)
            layer = lib.nn.TransformerEncoderLayer(8, 2, 16, activation=act)
            flags.append((layer.activation_relu_or_gelu,
                          getattr(layer.activation, "__name__", type(layer.activation).__name__)))
        assert flags[1] == flags[0]
    layer = ember.nn.TransformerDecoderLayer(8, 2, 16, activation="gelu")
    assert layer.activation is ember.nn.functional.gelu
    state = dict(vars(layer))
    del state["activation"]
    restored = ember.nn.TransformerDecoderLayer.__new__(ember.nn.TransformerDecoderLayer)
    restored.__setstate__(state)
    assert restored.activation is ember.nn.functional.relu
    clone = pickle.loads(pickle.dumps(ember.nn.TransformerEncoderLayer(8, 2, 16)))
    assert clone.activation is ember.nn.functional.relu
    assert copy.deepcopy(clone).norm_first is False


# ---------------------------------------------------------------- the char-GPT example
EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "char_gpt.py"


def test_char_gpt_prints_torchs_losses(torch, capsys):
    spec = importlib.util.spec_from_file_location("example_char_gpt", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    printed = []
    for lib in (torch, ember):
        losses = module.main(lib, steps=20)
        printed.append(capsys.readouterr().out)
        assert len(losses) == 20
        if lib is torch:
            expected = losses
    np.testing.assert_allclose(losses, expected, rtol=2e-5, atol=2e-5)
    assert losses[-1] < losses[0] - 0.5   # it learns
    assert printed[1].count("\n") == printed[0].count("\n")


def test_dropout_of_a_transposed_input_draws_in_memory_order(torch):
    """batch_first layers drop out transposed views: PyTorch fills the mask in the input's
    memory order (empty_like keeps strides), so ember must draw in that order too."""
    outputs = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        x = lib.ones(3, 4, 5).transpose(0, 1)
        outputs.append(lib.nn.functional.dropout(x, 0.5, True))
    assert_same(outputs[1], outputs[0], atol=0, rtol=0)
