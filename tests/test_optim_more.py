"""The rest of torch.optim against PyTorch: NAdam, RAdam, Adamax, ASGD, Rprop, Adafactor,
LBFGS and optim.swa_utils.

As in tests/test_optim.py, both libraries start from the same parameters and get the
same gradient at every step (a fixed function of the current values), so differences
come from the optimizers' arithmetic alone: float64 runs agree to a few ulps, float32
runs to float32 rounding. A small MLP trained on fixed data (forward and backward in each
library) is compared after every step.
"""
import sys

import numpy as np
import pytest

import ember
import test_optim as base
from oracle import assert_raises_alike
from test_tutorial import assert_prints_alike, run_tutorial

CONFIGS = [
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, betas=(0.3, 0.9), momentum_decay=0.01, eps=1e-6)),
    ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.9), weight_decay=0.1,
                   decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.3, 0.8), eps=1e-4)),
    ("Adamax", dict(weight_decay=0.1, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=50, weight_decay=0.1)),
    ("ASGD", dict(t0=0, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.7), step_sizes=(1e-3, 1))),
    ("Rprop", dict(maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=2.0,
                       weight_decay=0.1)),
    ("Adafactor", dict(maximize=True)),
]
NAMES = ["NAdam", "RAdam", "Adamax", "ASGD", "Rprop", "Adafactor"]
STATEFUL = {"NAdam": dict(lr=0.01, weight_decay=0.1), "RAdam": dict(lr=0.01),
            "Adamax": dict(lr=0.01), "ASGD": dict(lr=0.05, t0=2),
            "Rprop": dict(), "Adafactor": dict()}


# ---------------------------------------------------------------- trajectories
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("config", CONFIGS, ids=base._config_id)
def test_trajectory_matches_torch(torch, config, dtype):
    name, kwargs = config
    maximize = kwargs.get("maximize", False)
    results = []
    for lib in (ember, torch):
        params = base._params(lib, dtype)
        opt = getattr(lib.optim, name)(params, **kwargs)
        base._run(opt, lib, params, 100, maximize=maximize)
        results.append(base._numpy(params))
    base._assert_params_close(*results, dtype)


def _mlp(lib, weights):
    model = lib.nn.Sequential(lib.nn.Linear(6, 10), lib.nn.Tanh(), lib.nn.Linear(10, 2))
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w.astype(np.float32)))
    return model


@pytest.mark.parametrize("name", NAMES)
def test_mlp_training_matches_torch_after_every_step(torch, name):
    rng = np.random.RandomState(1)
    x, y = rng.randn(32, 6).astype(np.float32), rng.randn(32, 2).astype(np.float32)
    weights = [rng.randn(10, 6) * 0.4, rng.randn(10) * 0.1, rng.randn(2, 10) * 0.4,
               rng.randn(2) * 0.1]
    runs = []
    for lib in (ember, torch):
        model = _mlp(lib, weights)
        opt = getattr(lib.optim, name)(model.parameters(), **STATEFUL[name])
        history = []
        for _ in range(15):
            opt.zero_grad()
            lib.nn.functional.mse_loss(model(lib.tensor(x)), lib.tensor(y)).backward()
            opt.step()
            history.append(base._numpy(model.parameters()))
        runs.append(history)
    for ours, theirs in zip(*runs):
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_param_groups_with_different_options(torch):
    results = []
    for lib in (ember, torch):
        params = base._params(lib, np.float64)
        opt = lib.optim.NAdam([{"params": params[:2]},
                               {"params": params[2:], "lr": 0.01, "momentum_decay": 0.01}])
        base._run(opt, lib, params, 30)
        results.append(base._numpy(params))
    base._assert_params_close(*results, np.float64)


# ---------------------------------------------------------------- state dicts
def _assert_state_dicts_equal(ours, theirs, rtol=1e-5, atol=1e-7):
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["param_groups"][0]) == list(theirs["param_groups"][0])
    assert list(ours["state"]) == list(theirs["state"])
    for index, state in theirs["state"].items():
        assert list(ours["state"][index]) == list(state)
        for key, value in state.items():
            _assert_values_equal(ours["state"][index][key], value, rtol, atol)


def _assert_values_equal(got, value, rtol, atol):
    if isinstance(value, list):
        assert isinstance(got, list) and len(got) == len(value)
        for a, b in zip(got, value):
            _assert_values_equal(a, b, rtol, atol)
    elif value is None or isinstance(value, (int, float)):
        assert type(got) is type(value)
        np.testing.assert_allclose(got if got is not None else np.nan,
                                   value if value is not None else np.nan, rtol=rtol)
    else:
        assert str(got.dtype) == str(value.dtype).replace("torch", "ember")
        assert tuple(got.shape) == tuple(value.shape)
        np.testing.assert_allclose(got.numpy(), value.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_matches_torch(torch, name):
    dicts = []
    for lib in (ember, torch):
        params = base._params(lib)
        opt = getattr(lib.optim, name)(params, **STATEFUL[name])
        base._run(opt, lib, params, 5)
        dicts.append(opt.state_dict())
    _assert_state_dicts_equal(*dicts)


def test_state_dict_step_is_float64_under_float64_default(torch):
    dtypes = []
    for lib in (ember, torch):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            params = base._params(lib)
            opt = lib.optim.NAdam(params)
            base._run(opt, lib, params, 2)
        finally:
            lib.set_default_dtype(previous)
        state = opt.state_dict()["state"][0]
        dtypes.append([str(state[k].dtype).split(".")[1] for k in ("step", "mu_product")])
    assert dtypes[0] == dtypes[1] == ["float64", "float64"]


@pytest.mark.parametrize("name", NAMES)
def test_load_torch_state_dict_and_continue(torch, name):
    kwargs = STATEFUL[name]
    torch_params = base._params(torch)
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    base._run(torch_opt, torch, torch_params, 20)
    saved = base._to_ember(torch, torch_opt.state_dict())
    params = base._params(ember, start=base._numpy(torch_params))
    opt = getattr(ember.optim, name)(params, **kwargs)
    opt.load_state_dict(saved)
    base._run(torch_opt, torch, torch_params, 20, start=20)
    base._run(opt, ember, params, 20, start=20)
    base._assert_params_close(base._numpy(params), base._numpy(torch_params), np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_torch_loads_ember_state_dict_and_continues(torch, name):
    kwargs = STATEFUL[name]
    params = base._params(ember)
    opt = getattr(ember.optim, name)(params, **kwargs)
    base._run(opt, ember, params, 20)
    torch_params = base._params(torch, start=base._numpy(params))
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    torch_opt.load_state_dict(base._to_torch(torch, opt.state_dict()))
    base._run(torch_opt, torch, torch_params, 20, start=20)
    base._run(opt, ember, params, 20, start=20)
    base._assert_params_close(base._numpy(params), base._numpy(torch_params), np.float32)


def test_load_old_style_number_state(torch):
    """Old checkpoints kept `step` (and NAdam's `mu_product`, ASGD's `eta`, `mu`) as
    numbers; loading turns them into 0-dim tensors as PyTorch does."""
    for name, keys in (("NAdam", ("step", "mu_product")), ("ASGD", ("step", "eta", "mu")),
                       ("Rprop", ("step",)), ("Adafactor", ("step",))):
        states = []
        for lib in (ember, torch):
            params = base._params(lib)
            opt = getattr(lib.optim, name)(params)
            base._run(opt, lib, params, 3)
            saved = opt.state_dict()
            for key in keys:
                saved["state"][0][key] = saved["state"][0][key].item()
            opt.load_state_dict(saved)
            states.append({k: (str(opt.state[params[0]][k].dtype).split(".")[1],
                               opt.state[params[0]][k].item()) for k in keys})
        assert states[0] == states[1]


# ---------------------------------------------------------------- reprs, errors, flags
@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_repr_and_defaults_match_torch(torch, name):
    texts, groups = [], []
    for lib in (ember, torch):
        opt = getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2, 3))])
        texts.append(repr(opt))
        groups.append({k: v for k, v in opt.param_groups[0].items() if k != "params"})
    assert texts[0] == texts[1]
    assert list(groups[0].items()) == list(groups[1].items())


@pytest.mark.parametrize("build", [
    lambda lib: lib.optim.NAdam([lib.ones(2)], lr=-1.0),
    lambda lib: lib.optim.NAdam([lib.ones(2)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.NAdam([lib.ones(2)], eps=-1e-8),
    lambda lib: lib.optim.NAdam([lib.ones(2)], betas=(1.0, 0.999)),
    lambda lib: lib.optim.NAdam([lib.ones(2)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.NAdam([lib.ones(2)], weight_decay=-0.1),
    lambda lib: lib.optim.NAdam([lib.ones(2)], momentum_decay=-0.1),
    lambda lib: lib.optim.RAdam([lib.ones(2)], lr=-0.5),
    lambda lib: lib.optim.RAdam([lib.ones(2)], betas=(0.9, 1.0)),
    lambda lib: lib.optim.RAdam([lib.ones(2)], weight_decay=-1),
    lambda lib: lib.optim.Adamax([lib.ones(2)], eps=-1.0),
    lambda lib: lib.optim.Adamax([lib.ones(2)], betas=(-0.1, 0.9)),
    lambda lib: lib.optim.ASGD([lib.ones(2)], lr=-0.1),
    lambda lib: lib.optim.ASGD([lib.ones(2)], weight_decay=-0.1),
    lambda lib: lib.optim.Rprop([lib.ones(2)], lr=-0.1),
    lambda lib: lib.optim.Rprop([lib.ones(2)], etas=(1.5, 1.2)),
    lambda lib: lib.optim.Rprop([lib.ones(2)], etas=(0.5, 0.9)),
    lambda lib: lib.optim.Adafactor([lib.ones(2)], lr=-1.0),
    lambda lib: lib.optim.Adafactor([lib.ones(2)], beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor([lib.ones(2)], eps=(-1.0, 1e-3)),
    lambda lib: lib.optim.Adafactor([lib.ones(2)], eps=(None, -1e-3)),
    lambda lib: lib.optim.Adafactor([lib.ones(2)], d=0.5),
    lambda lib: lib.optim.Adafactor([lib.ones(2)], weight_decay=-0.5),
    lambda lib: lib.optim.LBFGS([lib.ones(2)], lr=-1.0),
    lambda lib: lib.optim.LBFGS([{"params": [lib.ones(2)]}, {"params": [lib.ones(3)]}]),
    lambda lib: lib.optim.NAdam([]),
])
def test_constructor_errors_like_torch(torch, build):
    assert_raises_alike(lambda: build(torch), lambda: build(ember))


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax", "ASGD", "Rprop"])
def test_capturable_on_cpu_refused_like_torch(torch, name):
    def step(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.ones(3)
        getattr(lib.optim, name)([p], capturable=True).step()
    assert_raises_alike(lambda: step(torch), lambda: step(ember))


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax", "ASGD", "Rprop", "Adafactor"])
def test_foreach_flag_accepted_and_same_result(torch, name):
    results = []
    for lib in (ember, torch):
        params = base._params(lib, np.float64)
        opt = getattr(lib.optim, name)(params, foreach=False)
        base._run(opt, lib, params, 10)
        results.append(base._numpy(params))
    base._assert_params_close(*results, np.float64)


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "ASGD", "Rprop"])
def test_differentiable_step_backpropagates_like_torch(torch, name):
    results = []
    for lib in (ember, torch):
        leaf = lib.tensor(base.START[0].astype(np.float64), requires_grad=True)
        param = leaf.clone()
        opt = getattr(lib.optim, name)([param], differentiable=True)
        for t in range(3):
            param.grad = lib.tensor(base.NOISE[t][0] + 1.0)
            opt.step()
        (param ** 2).sum().backward()
        results.append((param.detach().numpy(), leaf.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


def test_differentiable_adamax_backward_refused_like_torch(torch):
    """PyTorch's Adamax updates its state in place after the step saved it, so a backward
    through several differentiable steps fails; ember fails the same way (the version
    numbers in the message count ember's own in-place writes)."""
    errors = []
    for lib in (ember, torch):
        param = lib.tensor(base.START[0].astype(np.float64), requires_grad=True).clone()
        opt = lib.optim.Adamax([param], differentiable=True)
        for t in range(3):
            param.grad = lib.tensor(base.NOISE[t][0] + 1.0)
            opt.step()
        with pytest.raises(RuntimeError) as error:
            (param ** 2).sum().backward()
        errors.append(str(error.value).split(" is at version")[0])
    assert errors[0] == errors[1].replace("torch.", "ember.")


def test_closure_loss_returned(torch):
    losses = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.RAdam([p])

        def closure():
            opt.zero_grad()
            loss = (p ** 2).sum()
            loss.backward()
            return loss
        losses.append([opt.step(closure).item() for _ in range(3)])
    assert losses[0] == losses[1]


# ---------------------------------------------------------------- LBFGS
_X = np.linspace(-2, 2, 40)
_Y = 1.5 * np.sin(1.3 * _X) + 0.3 * _X


def _lbfgs_fit(lib, steps, dtype=np.float64, state=None, **kwargs):
    """Fit y = a sin(b x) + c x with LBFGS and a closure; the loss returned by each step."""
    x, y = lib.tensor(_X.astype(dtype)), lib.tensor(_Y.astype(dtype))
    w = lib.tensor(np.array([1.0, 1.0, 0.0], dtype=dtype), requires_grad=True)
    opt = lib.optim.LBFGS([w], **kwargs)
    if state is not None:
        opt.load_state_dict(state)

    def closure():
        opt.zero_grad()
        loss = ((w[0] * lib.sin(w[1] * x) + w[2] * x - y) ** 2).mean()
        loss.backward()
        return loss
    losses = [opt.step(closure).item() for _ in range(steps)]
    return losses, w, opt


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("kwargs", [dict(), dict(lr=0.5, max_iter=4, history_size=3),
                                    dict(max_iter=3, max_eval=10, tolerance_change=1e-5)],
                         ids=["defaults", "short-history", "max-eval"])
def test_lbfgs_curve_fit_losses_match_torch_every_step(torch, line_search_fn, kwargs):
    """float64: each step's loss, the parameters and the whole state (curvature history,
    counters, step length) agree to rounding."""
    runs = [_lbfgs_fit(lib, 5, line_search_fn=line_search_fn, **kwargs) for lib in (ember, torch)]
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(runs[0][1].detach().numpy(), runs[1][1].detach().numpy(),
                               rtol=1e-9)
    _assert_state_dicts_equal(runs[0][2].state_dict(), runs[1][2].state_dict(), rtol=1e-7,
                              atol=1e-12)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_float32_first_step_matches_torch(torch, line_search_fn):
    """float32: L-BFGS amplifies rounding over many iterations, so one short step is
    compared (losses to float32 rounding)."""
    runs = [_lbfgs_fit(lib, 2, np.float32, max_iter=3, line_search_fn=line_search_fn)
            for lib in (ember, torch)]
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-5)
    np.testing.assert_allclose(runs[0][1].detach().numpy(), runs[1][1].detach().numpy(),
                               rtol=1e-4)


def test_lbfgs_load_torch_state_dict_and_continue(torch):
    _, w_torch, torch_opt = _lbfgs_fit(torch, 2, max_iter=3, line_search_fn="strong_wolfe")
    saved = torch_opt.state_dict()
    results = []
    for lib in (ember, torch):
        state = base._to_ember(torch, saved) if lib is ember else saved
        x, y = lib.tensor(_X), lib.tensor(_Y)
        w = lib.tensor(w_torch.detach().numpy().copy(), requires_grad=True)
        opt = lib.optim.LBFGS([w], max_iter=3, line_search_fn="strong_wolfe")
        opt.load_state_dict(state)

        def closure():
            opt.zero_grad()
            loss = ((w[0] * lib.sin(w[1] * x) + w[2] * x - y) ** 2).mean()
            loss.backward()
            return loss
        results.append(([opt.step(closure).item() for _ in range(3)], w.detach().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9)


def test_lbfgs_unknown_line_search_and_missing_closure_like_torch(torch):
    def bad_line_search(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.LBFGS([w], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    assert_raises_alike(lambda: bad_line_search(torch), lambda: bad_line_search(ember))


def test_lbfgs_stops_at_an_optimum_like_torch(torch):
    """A zero gradient ends the step at once: one evaluation, no iteration."""
    counters = []
    for lib in (ember, torch):
        w = lib.tensor([0.0, 0.0], requires_grad=True)
        opt = lib.optim.LBFGS([w])

        def closure():
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss
        loss = opt.step(closure)
        state = opt.state[w]
        counters.append((loss.item(), state["func_evals"], state["n_iter"], list(state)))
    assert counters[0] == counters[1]


def test_lbfgs_script_prints_what_torch_prints(torch):
    names = ("torch", "torch.nn")
    saved = {n: sys.modules.get(n) for n in names}
    sys.modules.update({"torch": ember, "torch.nn": ember.nn})
    try:
        got = run_tutorial(ember, "lbfgs_curve.py")
    finally:
        for n, module in saved.items():
            if module is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = module
    expected = run_tutorial(torch, "lbfgs_curve.py").replace("torch.", "ember.")
    assert "step 5: loss" in expected and "strong_wolfe" in expected
    assert_prints_alike(got, expected)


# ---------------------------------------------------------------- swa_utils
def _bn_model(lib, weights):
    model = lib.nn.Sequential(lib.nn.Linear(6, 10), lib.nn.BatchNorm1d(10), lib.nn.Tanh(),
                              lib.nn.Linear(10, 2))
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(lib.tensor(w.astype(np.float32)))
    return model


def _bn_weights(rng):
    return [rng.randn(10, 6) * 0.4, rng.randn(10) * 0.1, 1 + rng.randn(10) * 0.1,
            rng.randn(10) * 0.1, rng.randn(2, 10) * 0.4, rng.randn(2) * 0.1]


def _average_while_training(lib, make_averaged, steps=6):
    """Train with SGD, folding the model into the averaged copy after every step."""
    rng = np.random.RandomState(3)
    weights, batches = _bn_weights(rng), [rng.randn(16, 6).astype(np.float32)
                                          for _ in range(steps)]
    model = _bn_model(lib, weights)
    averaged = make_averaged(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for batch in batches:
        opt.zero_grad()
        model(lib.tensor(batch)).square().mean().backward()
        opt.step()
        averaged.update_parameters(model)
    return averaged


def _swa_state(averaged):
    return {k: v.detach().numpy().copy() for k, v in averaged.state_dict().items()}, \
        {k: str(v.dtype).split(".")[1] for k, v in averaged.state_dict().items()}


@pytest.mark.parametrize("make_averaged", [
    lambda lib, model: lib.optim.swa_utils.AveragedModel(model),
    lambda lib, model: lib.optim.swa_utils.AveragedModel(model, use_buffers=True),
    lambda lib, model: lib.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)),
    lambda lib, model: lib.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True),
    lambda lib, model: lib.optim.swa_utils.AveragedModel(
        model, avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.7)),
    lambda lib, model: lib.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()),
    lambda lib, model: lib.optim.swa_utils.AveragedModel(
        model, avg_fn=lib.optim.swa_utils.get_swa_avg_fn(), use_buffers=True),
], ids=["swa", "swa-buffers", "ema-multi", "ema-multi-buffers", "ema-one", "swa-multi",
        "swa-one-buffers"])
def test_averaged_model_matches_torch(torch, make_averaged):
    ours, theirs = (_average_while_training(lib, make_averaged) for lib in (ember, torch))
    (values, dtypes), (values_t, dtypes_t) = _swa_state(ours), _swa_state(theirs)
    assert list(values) == list(values_t) and dtypes == dtypes_t
    for key in values_t:
        np.testing.assert_allclose(values[key], values_t[key], rtol=1e-5, atol=1e-6)
    assert repr(ours) == repr(theirs)
    x = np.random.RandomState(4).randn(5, 6).astype(np.float32)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours(ember.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_averaged_model_errors_like_torch(torch):
    def both_fns(lib):
        utils = lib.optim.swa_utils
        utils.AveragedModel(lib.nn.Linear(2, 2), avg_fn=utils.get_swa_avg_fn(),
                            multi_avg_fn=utils.get_swa_multi_avg_fn())
    assert_raises_alike(lambda: both_fns(torch), lambda: both_fns(ember))
    for decay in (-0.1, 1.5):
        assert_raises_alike(lambda: torch.optim.swa_utils.get_ema_multi_avg_fn(decay),
                            lambda: ember.optim.swa_utils.get_ema_multi_avg_fn(decay))
        assert_raises_alike(lambda: torch.optim.swa_utils.get_ema_avg_fn(decay),
                            lambda: ember.optim.swa_utils.get_ema_avg_fn(decay))


@pytest.mark.parametrize("loader_kind", ["tensors", "tuples"])
def test_update_bn_matches_torch(torch, loader_kind):
    rng = np.random.RandomState(5)
    weights = _bn_weights(rng)
    data = [(rng.randn(8, 6) * 2 + 1).astype(np.float32) for _ in range(4)]
    results = []
    for lib in (ember, torch):
        model = _bn_model(lib, weights)
        model.eval()
        batches = [lib.tensor(d) for d in data]
        loader = batches if loader_kind == "tensors" else [(b, lib.zeros(8)) for b in batches]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        results.append((bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                        bn.num_batches_tracked.item(), bn.momentum, model.training))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)
    assert results[0][2:] == results[1][2:]


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=0.05, anneal_epochs=3,
                                                            anneal_strategy="linear"),
                                    dict(swa_lr=[0.05, 0.5], anneal_epochs=0),
                                    dict(swa_lr=0.2, anneal_epochs=4)])
def test_swalr_learning_rates_match_torch(torch, kwargs):
    runs = []
    for lib in (ember, torch):
        params = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))]
        opt = lib.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.3}],
                            lr=0.1)
        scheduler = lib.optim.swa_utils.SWALR(opt, **kwargs)
        lrs = [[g["lr"] for g in opt.param_groups]]
        for _ in range(12):
            opt.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr())
        state = scheduler.state_dict()
        runs.append((lrs, sorted(state), state["_anneal_strategy"],
                     [g["swa_lr"] for g in opt.param_groups]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-15)
    assert runs[0][1:] == runs[1][1:]


def test_swalr_state_dict_round_trip():
    opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(2))], lr=0.1)
    scheduler = ember.optim.swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="linear")
    opt.step()
    scheduler.step()
    other = ember.optim.swa_utils.SWALR(opt, swa_lr=0.01)
    other.load_state_dict(scheduler.state_dict())
    assert other.anneal_func is other._linear_anneal


@pytest.mark.parametrize("kwargs", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1),
                                    dict(anneal_epochs=2.5)])
def test_swalr_errors_like_torch(torch, kwargs):
    def build(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
        lib.optim.swa_utils.SWALR(opt, swa_lr=0.01, **kwargs)
    assert_raises_alike(lambda: build(torch), lambda: build(ember))


# ---------------------------------------------------------------- tensor lr, half precision
@pytest.mark.parametrize("name", NAMES)
def test_tensor_lr_matches_torch(torch, name):
    """A 1-element tensor lr: ASGD's eta schedule and Adafactor's step size then round
    through the tensor's float32, as in PyTorch."""
    results = []
    for lib in (ember, torch):
        params = base._params(lib, np.float64)
        opt = getattr(lib.optim, name)(params, lr=lib.tensor(0.01))
        base._run(opt, lib, params, 10)
        results.append(base._numpy(params))
    base._assert_params_close(*results, np.float64)


@pytest.mark.parametrize("name", NAMES)
def test_float16_parameters_match_torch(torch, name):
    results = []
    for lib in (ember, torch):
        params = base._params(lib, np.float16)
        opt = getattr(lib.optim, name)(params)
        base._run(opt, lib, params, 10)
        results.append([p.detach().float().numpy() for p in params])
    for a, b in zip(*results):
        # one float16 ulp near the parameters' magnitude: the half kernels round
        # intermediate results in different places
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-3)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_several_parameters_float32_like_torch(torch, line_search_fn):
    """Parameters are flattened into one vector in order; one without a gradient counts
    as zeros. Losses, counters and the type of the stored step length agree."""
    runs = []
    for lib in (ember, torch):
        rng = np.random.RandomState(0)
        x = lib.tensor(rng.randn(20, 3).astype(np.float32))
        y = lib.tensor(rng.randn(20, 1).astype(np.float32))
        w1 = lib.tensor((rng.randn(3, 5) * 0.5).astype(np.float32), requires_grad=True)
        w2 = lib.tensor((rng.randn(5, 1) * 0.5).astype(np.float32), requires_grad=True)
        unused = lib.tensor(np.ones(2, np.float32), requires_grad=True)
        opt = lib.optim.LBFGS([w1, unused, w2], line_search_fn=line_search_fn, max_iter=5,
                              history_size=3)

        def closure():
            opt.zero_grad()
            loss = ((lib.tanh(x @ w1) @ w2 - y) ** 2).mean()
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(3)]
        state = opt.state[w1]
        runs.append((losses, state["func_evals"], state["n_iter"], type(state["t"]).__name__,
                     unused.detach().numpy().tolist()))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-5)
    assert runs[0][1:] == runs[1][1:]


def test_torch_loads_ember_lbfgs_state_and_continues(torch):
    """The other direction of the LBFGS checkpoint: torch resumes from ember's state."""
    _, w, opt = _lbfgs_fit(ember, 2, max_iter=3, line_search_fn="strong_wolfe")
    saved = base._to_torch(torch, opt.state_dict())
    results = []
    for lib in (ember, torch):
        x, y = lib.tensor(_X), lib.tensor(_Y)
        w_new = lib.tensor(w.detach().numpy().copy(), requires_grad=True)
        resumed = lib.optim.LBFGS([w_new], max_iter=3, line_search_fn="strong_wolfe")
        resumed.load_state_dict(opt.state_dict() if lib is ember else saved)

        def closure():
            resumed.zero_grad()
            loss = ((w_new[0] * lib.sin(w_new[1] * x) + w_new[2] * x - y) ** 2).mean()
            loss.backward()
            return loss
        results.append([resumed.step(closure).item() for _ in range(3)])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9)


def test_averaged_model_state_dict_loads_in_torch(torch):
    averaged = _average_while_training(ember, lambda lib, model:
                                       lib.optim.swa_utils.AveragedModel(model))
    rng = np.random.RandomState(3)
    theirs = torch.optim.swa_utils.AveragedModel(_bn_model(torch, _bn_weights(rng)))
    theirs.load_state_dict(base._to_torch(torch, averaged.state_dict()))
    assert theirs.n_averaged.item() == averaged.n_averaged.item() == 6
    x = np.random.RandomState(4).randn(5, 6).astype(np.float32)
    averaged.eval()
    theirs.eval()
    np.testing.assert_allclose(averaged(ember.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
