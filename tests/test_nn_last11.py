"""The last nn names of issue 11 against torch: conv_tbc, nn.grad, linear_cross_entropy,
NLLLoss2d and SyncBatchNorm (which, with no process group, is local batch norm)."""
import warnings

import numpy as np
import pytest

import ember
from tests.oracle import assert_same, assert_same_error, to_lib


def _pair(torch, arrays, requires_grad=True):
    return to_lib(ember, arrays, requires_grad), to_lib(torch, arrays, requires_grad)


@pytest.mark.parametrize("pad", [0, 1, 3, -1])
def test_conv_tbc_values_grads_node(torch, pad):
    rng = np.random.default_rng(pad + 5)
    arrays = (rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 3, 4)),
              rng.standard_normal(4))
    (ex, ew, eb), (tx, tw, tb) = _pair(torch, arrays)
    out_e = ember.nn.functional.conv_tbc(ex, ew, eb, pad)
    out_t = torch.nn.functional.conv_tbc(tx, tw, tb, pad)
    assert_same(out_e, out_t, atol=1e-12)
    assert out_e.grad_fn.name() == out_t.grad_fn.name() == "ConvTbcBackward0"
    grad = rng.standard_normal(tuple(out_t.shape))
    out_e.backward(ember.tensor(grad))
    out_t.backward(torch.tensor(grad))
    for e, t in ((ex, tx), (ew, tw), (eb, tb)):
        assert_same(e.grad, t.grad, atol=1e-12)


def test_conv_tbc_top_level_door(torch):
    """torch.conv_tbc is the same op: ember.conv_tbc answers alike, keyword pad included."""
    arrays = (np.arange(30.0).reshape(5, 2, 3) / 7, np.ones((2, 3, 4)), np.arange(4.0))
    (ex, ew, eb), (tx, tw, tb) = _pair(torch, arrays, requires_grad=False)
    assert_same(ember.conv_tbc(ex, ew, eb, pad=1), torch.conv_tbc(tx, tw, tb, pad=1),
                atol=1e-12)


def test_conv_tbc_gradcheck():
    x, w, b = (ember.randn(*s, dtype=ember.float64, requires_grad=True)
               for s in ((4, 2, 3), (2, 3, 2), (2,)))
    assert ember.autograd.gradcheck(lambda *a: ember.nn.functional.conv_tbc(*a, 1), (x, w, b))
    assert ember.autograd.gradgradcheck(lambda *a: ember.nn.functional.conv_tbc(*a, 1),
                                        (x, w, b))


@pytest.mark.parametrize("case", ["input_dims", "weight_dims", "bias_dims", "channels",
                                  "bias_size", "dtype", "negative", "float_pad",
                                  "none_bias", "bool_pad"])
def test_conv_tbc_errors(torch, case):
    def call(lib):
        x, w, b = lib.ones(5, 2, 3), lib.ones(3, 3, 4), lib.ones(4)
        args = {"input_dims": (x[0], w, b), "weight_dims": (x, w[0], b),
                "bias_dims": (x, w, b[None]), "channels": (x, w[:, :2], b),
                "bias_size": (x, w, b[:2]), "dtype": (x, w.double(), b),
                "negative": (x[:1], w, b, 0), "float_pad": (x, w, b, 1.5),
                "none_bias": (x, w, None), "bool_pad": (x, w, b, True)}[case]
        return lib.nn.functional.conv_tbc(*args)
    assert_same_error(call)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_nn_grad_conv_input_and_weight(torch, dims):
    rng = np.random.default_rng(dims)
    x = rng.standard_normal((2, 4) + (7,) * dims)
    w = rng.standard_normal((6, 2) + (3,) * dims)
    kwargs = {"stride": 2, "padding": 1, "dilation": 1, "groups": 2}
    conv = getattr(torch.nn.functional, f"conv{dims}d")
    out_shape = conv(torch.tensor(x), torch.tensor(w), **kwargs).shape
    g = rng.standard_normal(tuple(out_shape))
    for lib_e, lib_t in ((ember, torch),):
        ge, gt = getattr(lib_e.nn.grad, f"conv{dims}d_input"), getattr(
            lib_t.nn.grad, f"conv{dims}d_input")
        assert_same(ge(x.shape, lib_e.tensor(w), lib_e.tensor(g), **kwargs),
                    gt(x.shape, lib_t.tensor(w), lib_t.tensor(g), **kwargs), atol=1e-12)
        we = getattr(lib_e.nn.functional.grad, f"conv{dims}d_weight")
        wt = getattr(lib_t.nn.functional.grad, f"conv{dims}d_weight")
        assert_same(we(lib_e.tensor(x), w.shape, lib_e.tensor(g), **kwargs),
                    wt(lib_t.tensor(x), w.shape, lib_t.tensor(g), **kwargs), atol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"ignore_index": 1}, {"reduction": "none"},
                                    {"label_smoothing": 0.1, "reduction": "sum"}])
def test_linear_cross_entropy(torch, kwargs):
    rng = np.random.default_rng(0)
    (ex, ew), (tx, tw) = _pair(torch, (rng.standard_normal((4, 3)),
                                       rng.standard_normal((5, 3))))
    target = np.array([0, 1, 4, 2])
    out_e = ember.nn.functional.linear_cross_entropy(ex, ew, ember.tensor(target), **kwargs)
    out_t = torch.nn.functional.linear_cross_entropy(tx, tw, torch.tensor(target), **kwargs)
    assert_same(out_e, out_t, atol=1e-12)
    assert out_e.grad_fn.name() == out_t.grad_fn.name()
    out_e.sum().backward()
    out_t.sum().backward()
    assert_same(ex.grad, tx.grad, atol=1e-12)
    assert_same(ew.grad, tw.grad, atol=1e-12)


@pytest.mark.parametrize("case", ["weight_dim", "in_features", "input_dim"])
def test_linear_cross_entropy_errors(torch, case):
    def call(lib):
        x, w, t = lib.ones(4, 3), lib.ones(5, 3), lib.zeros(4, dtype=lib.int64)
        if case == "input_dim":
            x = lib.ones(2, 4, 3)
        else:
            w = w[0] if case == "weight_dim" else lib.ones(5, 2)
        return lib.nn.functional.linear_cross_entropy(x, w, t)
    assert_same_error(call)


def test_nll_loss_2d(torch):
    rng = np.random.default_rng(1)
    logp = np.log(rng.dirichlet(np.ones(3), size=(2, 4, 4)).transpose(0, 3, 1, 2))
    target = rng.integers(0, 3, (2, 4, 4))
    results = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.NLLLoss2d(ignore_index=2)
        results.append((loss, [(w.category, str(w.message)) for w in caught]))
    (loss_e, warned_e), (loss_t, warned_t) = results
    assert warned_e == warned_t and repr(loss_e) == repr(loss_t)
    assert_same(loss_e(ember.tensor(logp), ember.tensor(target)),
                loss_t(torch.tensor(logp), torch.tensor(target)), atol=1e-12)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_sync_batchnorm_is_local_batchnorm(torch, momentum):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    layers = (ember.nn.SyncBatchNorm(3, momentum=momentum),
              torch.nn.SyncBatchNorm(3, momentum=momentum))
    assert repr(layers[0]) == repr(layers[1])
    (ex,), (tx,) = _pair(torch, (x,))
    out_e, out_t = layers[0](ex), layers[1](tx)
    assert_same(out_e, out_t, atol=1e-6)
    assert out_e.grad_fn.name() == out_t.grad_fn.name()
    out_e.sum().backward()
    out_t.sum().backward()
    assert_same(ex.grad, tx.grad, atol=1e-6)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert_same(getattr(layers[0], name), getattr(layers[1], name), atol=1e-6)
    for layer in layers:
        layer.eval()
    assert_same(layers[0](ember.tensor(x[:, :, 0])), layers[1](torch.tensor(x[:, :, 0])),
                atol=1e-6)


@pytest.mark.parametrize("shape", [(4,), (1, 3)])
def test_sync_batchnorm_errors(torch, shape):
    assert_same_error(lambda lib: lib.nn.SyncBatchNorm(3)(lib.ones(*shape)))


def test_convert_sync_batchnorm(torch):
    converted = []
    for lib in (ember, torch):
        nn = lib.nn
        model = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3).eval(),
                              nn.Sequential(nn.BatchNorm1d(4, affine=False)),
                              nn.InstanceNorm2d(3))
        result = nn.SyncBatchNorm.convert_sync_batchnorm(model)
        assert result[1].weight is model[1].weight
        assert result[1].running_var is model[1].running_var
        converted.append((repr(result), result[1].training, result[2][0].training))
    assert converted[0] == converted[1]


def test_linear_cross_entropy_k_dim_bias_and_probabilities(torch):
    rng = np.random.default_rng(3)
    arrays = (rng.standard_normal((2, 5)), rng.standard_normal((4, 3, 5)),
              rng.standard_normal((4, 3)))
    class_target = rng.integers(0, 4, (2, 3))
    prob_target = rng.dirichlet(np.ones(4), size=(2, 3)).transpose(0, 2, 1)
    for target in (class_target, prob_target):
        (ex, ew, eb), (tx, tw, tb) = _pair(torch, arrays)
        out_e = ember.nn.functional.linear_cross_entropy(ex, ew, ember.tensor(target),
                                                         linear_bias=eb)
        out_t = torch.nn.functional.linear_cross_entropy(tx, tw, torch.tensor(target),
                                                         linear_bias=tb)
        assert_same(out_e, out_t, atol=1e-12)
        out_e.backward()
        out_t.backward()
        for e, t in ((ex, tx), (ew, tw), (eb, tb)):
            assert_same(e.grad, t.grad, atol=1e-12)
        assert _chain(out_e.grad_fn) == _chain(out_t.grad_fn)


def _chain(node):
    """The node names along each node's first edge, down to a leaf."""
    names = []
    while node is not None:
        names.append(node.name().replace("torch::", "ember::"))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


@pytest.mark.parametrize("case", ["bias_shape", "unbatched_k_dim", "probabilities_ignore"])
def test_linear_cross_entropy_more_errors(torch, case):
    def call(lib):
        x, w, t = lib.ones(2, 5), lib.ones(4, 3, 5), lib.zeros(2, 3, dtype=lib.int64)
        kwargs = {}
        if case == "bias_shape":
            kwargs["linear_bias"] = lib.ones(4)
        elif case == "unbatched_k_dim":
            x = lib.ones(5)
        else:
            t, kwargs["ignore_index"] = lib.ones(2, 4, 3), 0
        return lib.nn.functional.linear_cross_entropy(x, w, t, **kwargs)
    assert_same_error(call)


@pytest.mark.parametrize("kwargs", [{}, {"bias": True, "out_features": (2,)},
                                    {"reduction": "sum", "label_smoothing": 0.2,
                                     "ignore_index": 1}])
def test_linear_cross_entropy_loss_module(torch, kwargs):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    shape = (3,) + tuple(kwargs.get("out_features", ()))
    target = rng.integers(0, 5, shape)
    results = []
    for lib in (ember, torch):
        lib.manual_seed(7)
        module = lib.nn.LinearCrossEntropyLoss(4, 5, **kwargs)
        inp = lib.tensor(x, requires_grad=True)
        loss = module(inp, lib.tensor(target))
        loss.backward()
        results.append((module, loss, inp.grad))
    (me, le, ge), (mt, lt, gt) = results
    assert repr(me) == repr(mt)
    assert [n for n, _ in me.named_parameters()] == [n for n, _ in mt.named_parameters()]
    assert_same(me.linear.weight, mt.linear.weight)
    assert_same(le, lt, atol=1e-6)
    assert_same(ge, gt, atol=1e-6)
    assert_same(me.linear.weight.grad, mt.linear.weight.grad, atol=1e-6)


@pytest.mark.parametrize("kwargs", [{"weight": np.ones(3)}, {"label_smoothing": 1.5}])
def test_linear_cross_entropy_loss_module_errors(torch, kwargs):
    def call(lib):
        args = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        return lib.nn.LinearCrossEntropyLoss(4, 5, **args)
    assert_same_error(call)


@pytest.mark.parametrize("which", ["input", "weight"])
def test_nn_grad_results_are_differentiable(torch, which):
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((4, 2, 3, 3))
    g = rng.standard_normal((1, 4, 3, 3))
    probe = rng.standard_normal(x.shape if which == "input" else w.shape)
    grads = []
    for lib in (ember, torch):
        (tx, tw, tg) = to_lib(lib, (x, w, g), requires_grad=True)
        if which == "input":
            result, wrt = lib.nn.grad.conv2d_input(x.shape, tw, tg), (tw, tg)
        else:
            result, wrt = lib.nn.grad.conv2d_weight(tx, w.shape, tg), (tx, tg)
        assert result.requires_grad
        (result * lib.tensor(probe)).sum().backward()
        grads.append([t.grad for t in wrt])
    for e, t in zip(*grads):
        assert_same(e, t, atol=1e-12)


def test_sync_batchnorm_zero_channels(torch):
    assert_same_error(lambda lib: lib.nn.SyncBatchNorm(0)(lib.ones(2, 0, 3)))


def test_sync_batchnorm_in_eval_mode_inside_a_group(torch, monkeypatch):
    # Training inside a group deliberately differs: torch refuses CPU input, ember's MPI
    # engine synchronises it (tests/test_distributed.py compares it with torch's BatchNorm).
    for lib in (ember, torch):
        monkeypatch.setattr(lib.distributed, "is_available", lambda: True)
        monkeypatch.setattr(lib.distributed, "is_initialized", lambda: True)
    for lib in (ember, torch):   # eval mode normalises with the running statistics
        layer = lib.nn.SyncBatchNorm(3).eval()
        assert layer(lib.ones(2, 3)).shape == (2, 3)
