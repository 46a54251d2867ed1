"""nn layers (linear, activation, dropout, embedding, flatten) against torch.nn:
reprs, forward and gradients with torch's own weights, default initialisation
after manual_seed, errors, dropout statistics and embedding padding."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.ops import nn_activation
from oracle import assert_same

REPRS = [
    "nn.Identity(54, unused='argument')", "nn.Linear(2, 4)", "nn.Linear(3, 1, bias=False)",
    "nn.Bilinear(2, 3, 4)", "nn.Bilinear(2, 3, 4, bias=False)", "nn.LazyLinear(4)",
    "nn.Flatten()", "nn.Flatten(0, 2)", "nn.Unflatten(1, (2, 5))", "nn.Unflatten(-1, [3, 1])",
    "nn.ReLU()", "nn.ReLU(inplace=True)", "nn.ReLU6()", "nn.ReLU6(True)",
    "nn.LeakyReLU()", "nn.LeakyReLU(0.2, inplace=True)", "nn.ELU()", "nn.ELU(0.5, True)",
    "nn.SELU()", "nn.SELU(inplace=True)", "nn.CELU(2.0)", "nn.GELU()", "nn.GELU('tanh')",
    "nn.SiLU()", "nn.SiLU(True)", "nn.Mish()", "nn.Sigmoid()", "nn.Tanh()", "nn.Hardtanh()",
    "nn.Hardtanh(-2, 3.5, True)", "nn.Hardsigmoid()", "nn.Hardsigmoid(True)",
    "nn.Hardswish(inplace=True)", "nn.Softplus()", "nn.Softplus(2, 10)", "nn.Softsign()",
    "nn.LogSigmoid()", "nn.PReLU()", "nn.PReLU(3, 0.1)", "nn.Softmax()", "nn.Softmax(dim=1)",
    "nn.LogSoftmax(-1)", "nn.Softmin(0)", "nn.Softmax2d()", "nn.GLU()", "nn.GLU(0)",
    "nn.Threshold(0.1, 20)", "nn.Threshold(0.1, 20, True)", "nn.Hardshrink()",
    "nn.Softshrink(0.3)", "nn.Tanhshrink()", "nn.Dropout()", "nn.Dropout(0.2, True)",
    "nn.Dropout1d(0.1)", "nn.Dropout2d()", "nn.Dropout3d(0.3)", "nn.AlphaDropout(0.2)",
    "nn.FeatureAlphaDropout()", "nn.Embedding(10, 3)", "nn.Embedding(10, 3, padding_idx=0)",
    "nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0, "
    "scale_grad_by_freq=True, sparse=True)",
    "nn.Sequential(nn.Flatten(), nn.Linear(4, 2), nn.ReLU(), nn.Dropout(0.1))",
]


@pytest.mark.parametrize("expression", REPRS)
def test_repr_matches_torch(expression, torch):
    expected = repr(eval(expression, {"nn": torch.nn}))
    assert repr(eval(expression, {"nn": nn})) == expected


# ---------------------------------------------------------------- forward with torch's weights
def _copy_parameters(module, torch_module):
    """Give the ember module the torch module's exact parameter values."""
    torch_parameters = dict(torch_module.named_parameters())
    with ember.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(ember.tensor(torch_parameters[name].detach().numpy()))


MODULES = [
    ("Linear(3, 2)", [(4, 3)]), ("Linear(3, 2)", [(2, 4, 3)]), ("Linear(3, 2)", [(3,)]),
    ("Linear(3, 2, bias=False)", [(2, 4, 3)]), ("Bilinear(3, 2, 4)", [(5, 3), (5, 2)]),
    ("PReLU()", [(2, 3, 2)]), ("PReLU(3, 0.1)", [(2, 3, 2)]), ("ReLU()", [(2, 5)]),
    ("ReLU6()", [(3, 4)]), ("LeakyReLU(0.1)", [(3, 4)]), ("ELU()", [(3, 4)]),
    ("SELU()", [(3, 4)]), ("CELU(0.5)", [(3, 4)]), ("GELU()", [(3, 4)]),
    ("GELU('tanh')", [(3, 4)]), ("SiLU()", [(3, 4)]), ("Mish()", [(3, 4)]),
    ("Sigmoid()", [(3, 4)]), ("Tanh()", [(3, 4)]), ("Hardtanh(-0.5, 2)", [(3, 4)]),
    ("Hardsigmoid()", [(3, 4)]), ("Hardswish()", [(3, 4)]), ("Softplus(2)", [(3, 4)]),
    ("Softsign()", [(3, 4)]), ("LogSigmoid()", [(3, 4)]), ("Softmax(1)", [(3, 4)]),
    ("LogSoftmax(0)", [(3, 4)]), ("Softmin(-1)", [(3, 4)]), ("Softmax2d()", [(2, 3, 2, 2)]),
    ("GLU()", [(3, 4)]), ("Threshold(0.5, -2.0)", [(3, 4)]), ("Hardshrink()", [(3, 4)]),
    ("Softshrink()", [(3, 4)]), ("Tanhshrink()", [(3, 4)]), ("Flatten()", [(2, 3, 2)]),
    ("Flatten(0, 1)", [(2, 3, 2)]), ("Unflatten(1, (2, 3))", [(2, 6)]), ("Identity()", [(2,)]),
    ("Dropout()", [(3, 4)]), ("AlphaDropout()", [(3, 4)]), ("Dropout2d()", [(2, 3, 2, 2)]),
]


@pytest.mark.parametrize("expression, shapes", MODULES, ids=[m[0] for m in MODULES])
def test_module_forward_and_grads_match_torch(expression, shapes, torch):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-3, 3, shape) for shape in shapes]
    torch_module = eval("nn." + expression, {"nn": torch.nn}).double()
    module = eval("nn." + expression, {"nn": nn}).double()
    if "Dropout" in expression:   # eval mode: both must be the identity
        torch_module.eval()
        module.eval()
    _copy_parameters(module, torch_module)
    torch_inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    inputs = [ember.tensor(a, requires_grad=True) for a in arrays]
    expected, got = torch_module(*torch_inputs), module(*inputs)
    assert_same(got, expected)
    grad = rng.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(grad))
    got.backward(ember.tensor(grad))
    for e, t in zip(inputs, torch_inputs):
        assert_same(e.grad, t.grad, path="input grad")
    torch_parameters = dict(torch_module.named_parameters())
    for name, parameter in module.named_parameters():
        assert_same(parameter.grad, torch_parameters[name].grad, path=name)


@pytest.mark.parametrize("name", ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "SiLU",
                                  "Mish", "Hardtanh", "Hardsigmoid", "Hardswish"])
def test_inplace_activation_modules_write_into_their_input(name, torch):
    values = np.linspace(-4, 4, 9)
    x = ember.tensor(values)
    out = getattr(nn, name)(inplace=True)(x)
    assert out is x
    expected = getattr(torch.nn, name)()(torch.tensor(values))
    assert_same(x, expected)


@given(batch=st.lists(st.integers(0, 3), min_size=0, max_size=3), bias=st.booleans())
@settings(max_examples=25, deadline=None)
def test_linear_any_batch_shape_matches_torch(batch, bias):
    import torch  # noqa: PLC0415 - the hypothesis test cannot take the fixture
    torch_module = torch.nn.Linear(3, 2, bias=bias).double()
    module = nn.Linear(3, 2, bias=bias).double()
    _copy_parameters(module, torch_module)
    x = np.random.default_rng(len(batch)).standard_normal(tuple(batch) + (3,))
    expected = torch_module(torch.tensor(x))
    got = module(ember.tensor(x))
    assert_same(got, expected)


# ---------------------------------------------------------------- default initialisation
@pytest.mark.parametrize("seed", [0, 1, 7, 1234, 2 ** 31])
def test_linear_default_init_is_torchs_for_the_same_seed(seed, torch):
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    layer, expected = nn.Linear(5, 3), torch.nn.Linear(5, 3)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), expected.weight.detach().numpy())
    np.testing.assert_array_equal(layer.bias.detach().numpy(), expected.bias.detach().numpy())


@pytest.mark.parametrize("expression", ["Linear(7, 4)", "Linear(3, 6, bias=False)",
                                        "Bilinear(3, 2, 4)", "Embedding(6, 3)",
                                        "Embedding(6, 3, padding_idx=2)", "PReLU(3)",
                                        "Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))"])
def test_default_init_sequence_matches_torch(expression, torch):
    ember.manual_seed(42)
    torch.manual_seed(42)
    module = eval("nn." + expression, {"nn": nn})
    expected = eval("nn." + expression, {"nn": torch.nn})
    got = {name: p.detach().numpy() for name, p in module.named_parameters()}
    want = {name: p.detach().numpy() for name, p in expected.named_parameters()}
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    # the generator was advanced by exactly as much as torch's
    np.testing.assert_array_equal(ember.rand(3).numpy(), torch.rand(3).numpy())


def test_lazy_linear_becomes_linear_with_torchs_weights(torch):
    ember.manual_seed(3)
    torch.manual_seed(3)
    layer, expected = nn.LazyLinear(4), torch.nn.LazyLinear(4)
    assert layer.has_uninitialized_params()
    out = layer(ember.ones(2, 5))
    expected(torch.ones(2, 5))
    assert type(layer) is nn.Linear
    assert repr(layer) == repr(expected) == "Linear(in_features=5, out_features=4, bias=True)"
    assert tuple(out.shape) == (2, 4)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), expected.weight.detach().numpy())
    np.testing.assert_array_equal(layer.bias.detach().numpy(), expected.bias.detach().numpy())


def test_parameters_are_leaves_that_require_grad():
    layer = nn.Linear(3, 2)
    assert isinstance(layer.weight, nn.Parameter)
    assert layer.weight.requires_grad and layer.weight.grad_fn is None
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    assert [name for name, _ in nn.Linear(3, 2, bias=False).named_parameters()] == ["weight"]
    assert nn.Linear(3, 2, dtype=ember.float64).weight.dtype is ember.float64


# ---------------------------------------------------------------- errors
def _same_error(torch, make, **kwargs):
    """Both libraries raise the same exception type with the same message."""
    with pytest.raises(Exception) as expected:
        make(torch.nn, torch)
    with pytest.raises(expected.type) as got:
        make(nn, ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


ERRORS = {
    "linear shapes": lambda nn, lib: nn.Linear(2, 4)(lib.ones(16, 3)),
    "linear shapes 3d": lambda nn, lib: nn.Linear(2, 4)(lib.ones(2, 8, 3)),
    "linear shapes no bias": lambda nn, lib: nn.Linear(2, 4, bias=False)(lib.ones(2, 8, 3)),
    "linear 0-d": lambda nn, lib: nn.Linear(2, 4)(lib.tensor(1.0)),
    "linear dtype": lambda nn, lib: nn.Linear(2, 4)(lib.ones(3, 2, dtype=lib.float64)),
    "bilinear batch": lambda nn, lib: nn.Bilinear(2, 3, 4)(lib.ones(5, 2), lib.ones(4, 3)),
    "bilinear batch dim 1": lambda nn, lib: nn.functional.bilinear(
        lib.ones(2, 5, 2), lib.ones(2, 4, 3), lib.ones(4, 2, 3)),
    "bilinear size": lambda nn, lib: nn.Bilinear(2, 3, 4)(lib.ones(5, 3), lib.ones(5, 3)),
    "dropout p": lambda nn, lib: nn.Dropout(1.5),
    "dropout p negative": lambda nn, lib: nn.Dropout2d(-0.5),
    "dropout1d dims": lambda nn, lib: nn.Dropout1d()(lib.ones(2, 3, 4, 5)),
    "hardtanh bounds": lambda nn, lib: nn.Hardtanh(1.0, -1.0),
    "unflatten size": lambda nn, lib: nn.Unflatten(1, 5),
    "unflatten element": lambda nn, lib: nn.Unflatten(1, (2, 2.5)),
    "softmax2d dims": lambda nn, lib: nn.Softmax2d()(lib.ones(2, 3)),
    "embedding padding": lambda nn, lib: nn.Embedding(4, 2, padding_idx=4),
    "embedding padding negative": lambda nn, lib: nn.Embedding(4, 2, padding_idx=-5),
    "embedding index": lambda nn, lib: nn.Embedding(4, 2)(lib.tensor([4])),
    "embedding float index": lambda nn, lib: nn.Embedding(4, 2)(lib.tensor([1.0])),
    "embedding pretrained dims": lambda nn, lib: nn.Embedding.from_pretrained(lib.ones(3)),
    "embedding weight shape": lambda nn, lib: nn.Embedding(3, 2, _weight=lib.ones(2, 2)),
    "prelu channels": lambda nn, lib: nn.PReLU(3)(lib.ones(2, 4)),
    "glu odd": lambda nn, lib: nn.GLU()(lib.ones(2, 3)),
    "gelu approximate": lambda nn, lib: nn.GELU("fast")(lib.ones(2)),
    "one_hot dtype": lambda nn, lib: nn.functional.one_hot(lib.tensor([1.0])),
    "one_hot classes": lambda nn, lib: nn.functional.one_hot(lib.tensor([3]), 3),
    "one_hot negative": lambda nn, lib: nn.functional.one_hot(lib.tensor([-1])),
    "one_hot empty": lambda nn, lib: nn.functional.one_hot(lib.tensor([], dtype=lib.int64)),
    "one_hot empty zero": lambda nn, lib: nn.functional.one_hot(
        lib.tensor([], dtype=lib.int64), 0),
    "cosine int": lambda nn, lib: nn.functional.cosine_similarity(lib.tensor([1]),
                                                                  lib.tensor([2])),
    "leaky_relu int": lambda nn, lib: nn.functional.leaky_relu(lib.tensor([1, 2])),
    "hardtanh bool": lambda nn, lib: nn.functional.hardtanh(lib.tensor([True])),
    "hardtanh unsigned": lambda nn, lib: nn.functional.hardtanh(lib.tensor([1],
                                                                           dtype=lib.uint8)),
    "threshold overflow": lambda nn, lib: nn.functional.threshold(
        lib.tensor([1], dtype=lib.uint8), 0.5, -1.0),
    "celu zero": lambda nn, lib: nn.functional.celu(lib.ones(2), 0.0),
    "prelu dtype": lambda nn, lib: nn.functional.prelu(lib.ones(2, dtype=lib.float64),
                                                       lib.ones(1)),
    "inplace leaf": lambda nn, lib: nn.ReLU(inplace=True)(lib.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case, torch):
    _same_error(torch, ERRORS[case])


def test_failed_inplace_call_leaves_input_unchanged():
    x = ember.tensor([1.0, -2.0])
    leaf = ember.tensor([1.0, -2.0], requires_grad=True)
    version = leaf._version
    with pytest.raises(RuntimeError):
        F.elu(leaf, inplace=True)
    assert leaf._version == version and leaf.tolist() == [1.0, -2.0]
    with pytest.raises(ValueError):
        F.hardtanh(x, 2.0, 1.0, inplace=True)
    assert x.tolist() == [1.0, -2.0]


# ---------------------------------------------------------------- softmax's implicit dim
@pytest.mark.parametrize("ndim, dim", [(0, 0), (1, 0), (2, 1), (3, 0), (4, 1)])
def test_softmax_implicit_dim_warns_and_uses_torchs_choice(ndim, dim):
    x = ember.rand(*([2] * ndim))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax") as record:
        out = nn_activation.softmax(x)
    assert record[0].filename == __file__   # the warning points at the caller
    assert_same_values(out, ember.softmax(x, dim))
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        nn_activation.log_softmax(x)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        nn_activation.softmin(x)


def test_softmax_module_without_dim_warns_at_the_callers_line():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax") as record:
        nn.Softmax()(ember.rand(2, 3))
    assert record[0].filename == __file__


def assert_same_values(a, b):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


# ---------------------------------------------------------------- dropout
def test_dropout_statistics_and_scaling():
    ember.manual_seed(0)
    x = ember.ones(200, 100)
    for p in (0.2, 0.5, 0.9):
        out = F.dropout(x, p)
        values = out.numpy()
        kept = values != 0
        assert abs(1 - kept.mean() - p) < 0.02
        np.testing.assert_allclose(values[kept], 1 / (1 - p), rtol=1e-6)


def test_dropout_eval_mode_and_p0_return_the_input_itself():
    x = ember.rand(3, 4)
    layer = nn.Dropout(0.5).eval()
    assert layer(x) is x
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.5, training=False) is x
    assert F.alpha_dropout(x, 0.5) is x   # alpha_dropout's training defaults to False
    assert nn.Dropout2d().eval()(x) is x


def test_dropout_same_seed_same_mask_and_torchs_mask(torch):
    masks = []
    for _ in range(2):
        ember.manual_seed(11)
        masks.append(F.dropout(ember.ones(6, 7), 0.3).numpy())
    np.testing.assert_array_equal(masks[0], masks[1])
    torch.manual_seed(11)
    np.testing.assert_array_equal(masks[0], torch.nn.functional.dropout(torch.ones(6, 7),
                                                                        0.3).numpy())


def test_dropout_gradient_is_the_mask():
    ember.manual_seed(1)
    x = ember.ones(5, 6, requires_grad=True)
    out = F.dropout(x, 0.4)
    assert out.grad_fn.name() == "MulBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


def test_dropout_inplace_writes_into_the_input():
    ember.manual_seed(2)
    x = ember.ones(4, 5)
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_channel_dropout_zeroes_whole_channels():
    ember.manual_seed(0)
    # (layer, input shape, number of channels: N*C batched, C unbatched)
    for layer, shape, channels in [(nn.Dropout1d(0.5), (8, 6, 5), 48),
                                   (nn.Dropout1d(0.5), (6, 5), 6),
                                   (nn.Dropout2d(0.5), (8, 6, 3, 3), 48),
                                   (nn.Dropout3d(0.5), (4, 6, 2, 2, 2), 24),
                                   (nn.Dropout3d(0.5), (6, 2, 2, 2), 6)]:
        out = layer(ember.ones(*shape)).numpy()
        for channel in out.reshape(channels, -1):
            assert len(set(channel.tolist())) == 1, type(layer).__name__
        assert set(np.unique(out).tolist()) == {0.0, 2.0}


def test_dropout2d_warns_for_3d_inputs_like_torch():
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(ember.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(ember.ones(2, 3))


def test_alpha_dropout_keeps_mean_and_variance():
    ember.manual_seed(0)
    x = ember.randn(400, 250)
    out = nn.AlphaDropout(0.3).train()(x).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    dropped_value = -1.7580993408473766
    a = (dropped_value ** 2 * 0.3 + 1) ** -0.5 / (0.7 ** 0.5)
    assert np.isclose(out, a * dropped_value + (-a * dropped_value * 0.3)).mean() > 0.25


# ---------------------------------------------------------------- embedding
def test_embedding_padding_row_starts_zero_and_gets_no_gradient():
    layer = nn.Embedding(5, 3, padding_idx=2)
    assert layer.weight[2].tolist() == [0.0, 0.0, 0.0]
    out = layer(ember.tensor([[2, 1, 2], [4, 2, 1]]))
    assert out.grad_fn.name() == "EmbeddingBackward0"
    (out * out.detach() + out).sum().backward()
    grad = layer.weight.grad.numpy()
    assert (grad[2] == 0).all() and (grad[0] == 0).all() and (grad[1] != 0).all()


def test_embedding_gradient_accumulates_repeated_indices():
    weight = ember.zeros(4, 2, requires_grad=True)
    F.embedding(ember.tensor([1, 1, 3, 1]), weight).sum().backward()
    assert weight.grad.tolist() == [[0, 0], [3, 3], [0, 0], [1, 1]]


def test_embedding_from_pretrained():
    table = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    layer = nn.Embedding.from_pretrained(table)
    assert not layer.weight.requires_grad
    assert layer(ember.tensor([1])).tolist() == [[3.0, 4.0]]
    assert nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    assert repr(layer) == "Embedding(2, 2)"


def test_embedding_max_norm_renormalises_used_rows_in_place(torch):
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    weight, expected = ember.tensor(table), torch.tensor(table)
    out = F.embedding(ember.tensor([0, 1]), weight, max_norm=1.0)
    want = torch.nn.functional.embedding(torch.tensor([0, 1]), expected, max_norm=1.0)
    assert_same(out, want)
    assert_same(weight, expected)   # row 2 (unused) keeps its norm of 10


def test_one_hot_infers_classes_and_returns_int64(torch):
    for values, classes in [([0, 2, 1], -1), ([[1], [0]], 3), (1, 2), ([], 3)]:
        expected = torch.nn.functional.one_hot(torch.tensor(values, dtype=torch.int64), classes)
        assert_same(F.one_hot(ember.tensor(values, dtype=ember.int64), classes), expected)


# ---------------------------------------------------------------- flatten
def test_flatten_and_unflatten_round_trip_share_memory():
    x = ember.arange(24.0).reshape(2, 3, 4)
    flat = nn.Flatten()(x)
    assert tuple(flat.shape) == (2, 12)
    back = nn.Unflatten(1, (3, 4))(flat)
    assert tuple(back.shape) == (2, 3, 4)
    back[0, 0, 0] = 100.0
    assert x[0, 0, 0].item() == 100.0


# ---------------------------------------------------------------- grad_fn names of linear
@pytest.mark.parametrize("x, bias", [((4, 3), True), ((4, 3), False), ((2, 4, 3), True),
                                     ((2, 4, 3), False), ((3,), True), ((3,), False)])
def test_linear_records_torchs_nodes(x, bias, torch):
    def chain(fn):
        names = []
        while fn is not None:
            names.append(fn.name())
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return [n for n in names if "AccumulateGrad" not in n]
    t_layer, layer = torch.nn.Linear(3, 2, bias=bias), nn.Linear(3, 2, bias=bias)
    expected = chain(t_layer(torch.ones(*x, requires_grad=True)).grad_fn)
    assert chain(layer(ember.ones(*x, requires_grad=True)).grad_fn) == expected


def test_functional_doors_exist():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
                     "sigmoid", "tanh", "hardtanh", "hardsigmoid", "hardswish", "softplus",
                     "softsign", "logsigmoid", "prelu", "softmax", "log_softmax", "softmin",
                     "glu", "threshold", "linear", "bilinear", "dropout", "dropout1d",
                     "dropout2d", "alpha_dropout", "embedding", "one_hot", "normalize",
                     "cosine_similarity", "pairwise_distance"):
            assert callable(getattr(F, name)), name
