"""Loss modules and functions against torch: values and gradients for every option, reprs,
the legacy size_average/reduce flags, warnings and error messages."""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same


def _same_error(torch, build):
    """`build(lib)` raises the same exception type and text in torch and ember."""
    with pytest.raises(Exception) as expected:
        build(torch)
    with pytest.raises(type(expected.value)) as got:
        build(ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


def _warnings_of(build, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build(lib)
    return [str(w.message).replace("torch.", "ember.") for w in caught]


RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((5, 4)).astype(np.float32)
CLASSES = np.array([0, 3, 1, -100, 3])
WEIGHT = np.array([0.5, 2.0, 1.0, 3.0], dtype=np.float32)
PROBS = RNG.dirichlet(np.ones(4), size=5).astype(np.float32)
SPATIAL = RNG.standard_normal((2, 4, 3, 2)).astype(np.float32)
SPATIAL_CLASSES = RNG.integers(0, 4, size=(2, 3, 2))
X = RNG.standard_normal((3, 4)).astype(np.float32)
Y = RNG.standard_normal((3, 4)).astype(np.float32)
P = RNG.uniform(0.02, 0.98, size=(3, 4)).astype(np.float32)
Q = RNG.uniform(0.0, 1.0, size=(3, 4)).astype(np.float32)

# (module expression, input, target): the expression is evaluated with `nn` = lib.nn and
# `t` = a function making a lib tensor, so one line builds the loss in both libraries.
CASES = [
    ("nn.CrossEntropyLoss()", LOGITS, CLASSES),
    ("nn.CrossEntropyLoss(reduction='sum')", LOGITS, CLASSES),
    ("nn.CrossEntropyLoss(reduction='none')", LOGITS, CLASSES),
    ("nn.CrossEntropyLoss(weight=t(WEIGHT))", LOGITS, CLASSES),
    ("nn.CrossEntropyLoss(weight=t(WEIGHT), ignore_index=3)", LOGITS, np.abs(CLASSES) % 4),
    ("nn.CrossEntropyLoss(label_smoothing=0.25)", LOGITS, CLASSES),
    ("nn.CrossEntropyLoss(weight=t(WEIGHT), label_smoothing=0.1, reduction='sum')", LOGITS,
     CLASSES),
    ("nn.CrossEntropyLoss()", LOGITS, PROBS),
    ("nn.CrossEntropyLoss(weight=t(WEIGHT), label_smoothing=0.2)", LOGITS, PROBS),
    ("nn.CrossEntropyLoss(reduction='none', weight=t(WEIGHT))", SPATIAL, SPATIAL_CLASSES),
    ("nn.CrossEntropyLoss()", SPATIAL, SPATIAL_CLASSES),
    ("nn.NLLLoss()", LOGITS, CLASSES),
    ("nn.NLLLoss(weight=t(WEIGHT), reduction='none')", LOGITS, CLASSES),
    ("nn.NLLLoss(weight=t(WEIGHT))", SPATIAL, SPATIAL_CLASSES),
    ("nn.MSELoss()", X, Y),
    ("nn.MSELoss(reduction='sum')", X, Y),
    ("nn.L1Loss(reduction='none')", X, Y),
    ("nn.L1Loss()", X, Y),
    ("nn.SmoothL1Loss(beta=0.5)", X, Y),
    ("nn.SmoothL1Loss(reduction='none')", X, Y),
    ("nn.HuberLoss(delta=0.3)", X, Y),
    ("nn.HuberLoss(reduction='sum', delta=2)", X, Y),
    ("nn.BCELoss()", P, Q),
    ("nn.BCELoss(weight=t(WEIGHT), reduction='sum')", P, Q),
    ("nn.BCEWithLogitsLoss()", X, Q),
    ("nn.BCEWithLogitsLoss(pos_weight=t(WEIGHT), weight=t(WEIGHT[:1]), reduction='none')", X, Q),
    ("nn.KLDivLoss(reduction='batchmean')", X, Q),
    ("nn.KLDivLoss(reduction='sum', log_target=True)", X, Y),
]


def _build(lib, expression):
    def t(array):
        return lib.tensor(array)
    return eval(expression, {"nn": lib.nn, "t": t, "WEIGHT": WEIGHT})


@pytest.mark.parametrize("expression, input, target", CASES,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_loss_modules_match_torch(torch, expression, input, target):
    results = []
    for lib in (ember, torch):
        loss = _build(lib, expression)
        x = lib.tensor(input, requires_grad=True)
        y = lib.tensor(target)
        if y.is_floating_point():
            y.requires_grad_()
        out = loss(x, y)
        out.backward(lib.ones_like(out))
        results.append((loss, x, y, out))
    (e_loss, e_x, e_y, e_out), (t_loss, t_x, t_y, t_out) = results
    assert repr(e_loss) == repr(t_loss)
    assert_same(e_out, t_out, atol=1e-5, rtol=1e-5)
    assert e_out.grad_fn.name() == type(t_out.grad_fn).__name__
    assert_same(e_x.grad, t_x.grad, atol=1e-6, rtol=1e-5)
    if t_y.grad is not None:
        assert_same(e_y.grad, t_y.grad, atol=1e-6, rtol=1e-5)
    assert list(e_loss.state_dict()) == list(t_loss.state_dict())


def test_weighted_mean_divides_by_the_weights_of_kept_targets():
    logits = ember.tensor(LOGITS)
    loss = ember.nn.functional.cross_entropy(logits, ember.tensor(CLASSES),
                                             weight=ember.tensor(WEIGHT))
    log_probs = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
    kept = CLASSES != -100
    picked = -log_probs[np.arange(5)[kept], CLASSES[kept]] * WEIGHT[CLASSES[kept]]
    np.testing.assert_allclose(loss.item(), picked.sum() / WEIGHT[CLASSES[kept]].sum(),
                               rtol=1e-5)


def test_cross_entropy_grad_fn_per_target_kind(torch):
    x = np.random.default_rng(1).standard_normal((3, 4, 2))
    cases = [((x, RNG.integers(0, 4, (3, 2))), {"reduction": "none"}),
             ((x[..., 0], PROBS[:3].astype(np.float64)), {"reduction": "mean"}),
             ((x[..., 0], PROBS[:3].astype(np.float64)), {"reduction": "none"}),
             ((x[..., 0], CLASSES[:3]), {"label_smoothing": 0.1})]
    for (input, target), kwargs in cases:
        names = []
        for lib in (ember, torch):
            out = lib.nn.functional.cross_entropy(lib.tensor(input, requires_grad=True),
                                                  lib.tensor(target), **kwargs)
            names.append(out.grad_fn.name() if lib is ember else type(out.grad_fn).__name__)
        assert names[0] == names[1], kwargs


def test_cross_entropy_double_backward_matches_torch(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor(LOGITS.astype(np.float64), requires_grad=True)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(CLASSES), label_smoothing=0.1)
        (grad,) = lib.autograd.grad(loss, x, create_graph=True)
        results.append(lib.autograd.grad((grad ** 2).sum(), x)[0])
    assert_same(results[0], results[1], atol=1e-10)


@pytest.mark.parametrize("size_average, reduce", [(False, None), (None, False), (True, True),
                                                  (False, True)])
def test_legacy_flags_map_to_reduction_with_torchs_warning(torch, size_average, reduce):
    def build(lib):
        return lib.nn.MSELoss(size_average=size_average, reduce=reduce)
    assert build(ember).reduction == build(torch).reduction
    assert _warnings_of(build, ember) == _warnings_of(build, torch)

    def call(lib):
        return lib.nn.functional.nll_loss(lib.tensor(LOGITS), lib.tensor(CLASSES),
                                          size_average=size_average, reduce=reduce)
    assert_same(call(ember), call(torch))
    assert _warnings_of(call, ember) == _warnings_of(call, torch)


WARNINGS = {
    "mse size": lambda lib: lib.nn.functional.mse_loss(lib.zeros(3), lib.zeros(2, 3)),
    "l1 size": lambda lib: lib.nn.functional.l1_loss(lib.zeros(2, 1), lib.zeros(2, 3)),
    "huber size": lambda lib: lib.nn.functional.huber_loss(lib.zeros(2, 3), lib.zeros(3)),
    "smooth l1 size": lambda lib: lib.nn.MSELoss()(lib.zeros(3, 1), lib.zeros(3)),
    "kl mean": lambda lib: lib.nn.functional.kl_div(lib.zeros(3), lib.ones(3)),
    "elementwise_mean": lambda lib: lib.nn.functional.mse_loss(
        lib.zeros(3), lib.zeros(3), reduction="elementwise_mean"),
}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_warnings_match_torch(torch, name):
    expected = _warnings_of(WARNINGS[name], torch)
    assert expected and _warnings_of(WARNINGS[name], ember) == expected


def _ce(lib, input, target, **kwargs):
    return lib.nn.functional.cross_entropy(lib.tensor(input), lib.tensor(target), **kwargs)


def _nll(lib, input, target, **kwargs):
    return lib.nn.functional.nll_loss(lib.tensor(input), lib.tensor(target), **kwargs)


ERRORS = {
    "batch size": lambda lib: _ce(lib, LOGITS[:3], CLASSES[:2]),
    "out of bounds": lambda lib: _ce(lib, LOGITS, np.array([0, 5, 1, 1, 1])),
    "negative target": lambda lib: _nll(lib, LOGITS, np.array([0, -1, 1, 1, 1])),
    "out of bounds with smoothing": lambda lib: _ce(lib, LOGITS, np.array([0, 1, 9, 1, 1]),
                                                    label_smoothing=0.1),
    "out of bounds spatial": lambda lib: _ce(lib, SPATIAL, SPATIAL_CLASSES + 2),
    "int32 target": lambda lib: _nll(lib, LOGITS, CLASSES.astype(np.int32)),
    "float target of other shape": lambda lib: _nll(lib, LOGITS, CLASSES.astype(np.float32)),
    "integer input": lambda lib: _nll(lib, CLASSES.reshape(5, 1), np.zeros(5, np.int64)),
    "weight size": lambda lib: _ce(lib, LOGITS, CLASSES, weight=lib.ones(3)),
    "weight size spatial": lambda lib: _nll(lib, SPATIAL, SPATIAL_CLASSES, weight=lib.ones(3)),
    "weight dtype": lambda lib: _nll(lib, LOGITS.astype(np.float64), CLASSES,
                                     weight=lib.ones(4)),
    "weight requires grad": lambda lib: _ce(lib, LOGITS, CLASSES,
                                            weight=lib.ones(4, requires_grad=True)),
    "multi-target": lambda lib: _nll(lib, LOGITS, np.zeros((5, 1), np.int64)),
    "0-dim input": lambda lib: _nll(lib, np.float32(1.0), np.int64(0)),
    "unbatched with two targets": lambda lib: _nll(lib, LOGITS[0], np.array([1, 2])),
    "3d target size": lambda lib: _ce(lib, SPATIAL[..., 0], np.zeros((2, 4), np.int64)),
    "4d target size": lambda lib: _ce(lib, SPATIAL, np.zeros((2, 3, 3), np.int64)),
    "4d target dims": lambda lib: _ce(lib, SPATIAL, np.zeros((2, 3), np.int64)),
    "label smoothing": lambda lib: _ce(lib, LOGITS, CLASSES, label_smoothing=1.5),
    "probabilities as integers": lambda lib: _ce(lib, LOGITS, PROBS.astype(np.int64)),
    "probabilities with ignore_index": lambda lib: _ce(lib, LOGITS, PROBS, ignore_index=0),
    "probabilities weight size": lambda lib: _ce(lib, LOGITS, PROBS, weight=lib.ones(2)),
    "bad reduction": lambda lib: _ce(lib, LOGITS, CLASSES, reduction="avg"),
    "bad reduction mse": lambda lib: lib.nn.MSELoss(reduction="batchmean")(lib.zeros(2),
                                                                            lib.zeros(2)),
    "mse integers": lambda lib: lib.nn.functional.mse_loss(lib.ones(2, dtype=lib.int64),
                                                           lib.ones(2, dtype=lib.int64)),
    "mse broadcast": lambda lib: lib.nn.functional.mse_loss(lib.zeros(3), lib.zeros(4)),
    "mse weight size": lambda lib: lib.nn.functional.mse_loss(lib.zeros(3), lib.zeros(3),
                                                              weight=lib.ones(2)),
    "l1 integers": lambda lib: lib.nn.functional.l1_loss(lib.ones(2, dtype=lib.int64),
                                                         lib.ones(2, dtype=lib.int64)),
    "smooth l1 beta": lambda lib: lib.nn.functional.smooth_l1_loss(lib.zeros(2), lib.zeros(2),
                                                                   beta=-1.0),
    "huber delta": lambda lib: lib.nn.HuberLoss(delta=0.0)(lib.zeros(2), lib.zeros(2)),
    "huber delta type": lambda lib: lib.nn.HuberLoss(delta="1"),
    "huber integer input": lambda lib: lib.nn.functional.huber_loss(
        lib.ones(2, dtype=lib.int64), lib.ones(2)),
    "bce range": lambda lib: lib.nn.BCELoss()(lib.tensor([0.5, 1.5]), lib.tensor([1.0, 0.0])),
    "bce size": lambda lib: lib.nn.BCELoss()(lib.zeros(3), lib.zeros(3, 1)),
    "bce dtype": lambda lib: lib.nn.BCELoss()(lib.zeros(3), lib.zeros(3, dtype=lib.float64)),
    "bce integer target": lambda lib: lib.nn.BCELoss()(lib.zeros(3), lib.zeros(3, dtype=lib.long)),
    "bce integers": lambda lib: lib.nn.BCELoss()(lib.zeros(3, dtype=lib.long),
                                                 lib.zeros(3, dtype=lib.long)),
    "bce weight shape": lambda lib: lib.nn.BCELoss(weight=lib.ones(2))(lib.zeros(2, 3),
                                                                       lib.zeros(2, 3)),
    "bce weight requires grad": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.zeros(3), lib.zeros(3), weight=lib.ones(3, requires_grad=True)),
    "bce logits size": lambda lib: lib.nn.BCEWithLogitsLoss()(lib.zeros(3), lib.zeros(3, 1)),
    "bce logits integer target": lambda lib: lib.nn.BCEWithLogitsLoss()(
        lib.zeros(3), lib.zeros(3, dtype=lib.long)),
    "bce logits pos_weight shape": lambda lib: lib.nn.BCEWithLogitsLoss(
        pos_weight=lib.ones(2))(lib.zeros(2, 3), lib.zeros(2, 3)),
    "bce logits pos_weight grad": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.zeros(3), lib.zeros(3), pos_weight=lib.ones(3, requires_grad=True)),
    "kl integers": lambda lib: lib.nn.functional.kl_div(lib.ones(2, dtype=lib.long),
                                                        lib.ones(2, dtype=lib.long)),
    "kl bad reduction": lambda lib: lib.nn.KLDivLoss(reduction="avg")(lib.zeros(2),
                                                                      lib.zeros(2)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_error(torch, ERRORS[name])


EDGE_CASES = {
    "all ignored": lambda lib: _ce(lib, LOGITS, np.full(5, -100)),
    "all ignored with smoothing": lambda lib: _ce(lib, LOGITS, np.full(5, -100),
                                                  label_smoothing=0.3),
    "zero class weights": lambda lib: _ce(lib, LOGITS, np.array([1, 1, 1, 1, 1]),
                                          weight=lib.tensor([1.0, 0.0, 1.0, 1.0])),
    "empty batch": lambda lib: _ce(lib, LOGITS[:0], CLASSES[:0]),
    "empty batch none": lambda lib: _ce(lib, LOGITS[:0], CLASSES[:0], reduction="none"),
    "empty probabilities": lambda lib: _ce(lib, LOGITS[:0], PROBS[:0]),
    "unbatched single target": lambda lib: _nll(lib, LOGITS[0], np.array([2]),
                                                reduction="none"),
    "byte targets": lambda lib: _nll(lib, LOGITS, np.array([0, 3, 1, 1, 2], np.uint8)),
    "bce log clamp": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.0, 1.0, 0.0]), lib.tensor([1.0, 0.0, 0.0]), reduction="none"),
    "bce logits extreme": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.tensor([-200.0, 200.0, 0.0]), lib.tensor([1.0, 0.0, 0.5]), reduction="none"),
    "mse empty mean": lambda lib: lib.nn.functional.mse_loss(lib.zeros(0), lib.zeros(0)),
    "mse mixed dtypes": lambda lib: lib.nn.functional.mse_loss(
        lib.ones(3), lib.zeros(3, dtype=lib.float64)),
    "mse integer target": lambda lib: lib.nn.functional.mse_loss(
        lib.ones(3), lib.zeros(3, dtype=lib.int64)),
    "huber keeps the input dtype": lambda lib: lib.nn.functional.huber_loss(
        lib.ones(3), lib.zeros(3, dtype=lib.float64)),
    "bce logits takes the target dtype": lambda lib: lib.nn.functional.
    binary_cross_entropy_with_logits(lib.ones(3, dtype=lib.float64), lib.zeros(3)),
    "kl batchmean 0-dim": lambda lib: lib.nn.functional.kl_div(lib.tensor(-1.0),
                                                               lib.tensor(0.5),
                                                               reduction="batchmean"),
    "half cross entropy": lambda lib: _ce(lib, LOGITS.astype(np.float16), CLASSES),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases_match_torch(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(EDGE_CASES[name](ember), EDGE_CASES[name](torch), atol=1e-3)


def test_ignored_targets_get_no_gradient(torch):
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(LOGITS, requires_grad=True)
        lib.nn.functional.nll_loss(x, lib.tensor(np.full(5, -100))).backward()
        grads.append(x.grad)
    assert_same(grads[0], grads[1])
    assert not grads[0].any()


def test_no_graph_is_recorded_without_grad():
    x = ember.tensor(LOGITS, requires_grad=True)
    with ember.no_grad():
        loss = ember.nn.functional.cross_entropy(x, ember.tensor(CLASSES))
    assert loss.grad_fn is None and not loss.requires_grad
    assert ember.nn.functional.mse_loss(ember.tensor(X), ember.tensor(Y)).grad_fn is None
