"""ember.optim optimizers against PyTorch.

Both libraries start from the same parameters and, at every step, receive the same
gradient: a fixed function of the parameter's current values computed in NumPy (a
quadratic bowl, slightly warped, plus fixed per-step noise). Any difference at the
end therefore comes from the optimizers' arithmetic alone: float32 runs must agree to
float32 rounding after 200 steps, float64 runs to a few ulps.

Each update exists twice in ember: as array kernels (the hot path) and as ember ops
(differentiable, tensor hyper-parameters, other dtypes). The `path` fixture runs
every trajectory through both.
"""
import copy
import warnings

import numpy as np
import pytest

import ember
from ember.optim import _kernels
from oracle import assert_raises_alike

STEPS = 200
SHAPES = [(5, 4), (4,), (3, 5), ()]
_rng = np.random.RandomState(0)
START = [np.asarray(_rng.randn(*s)) for s in SHAPES]
TARGET = [np.asarray(_rng.randn(*s)) for s in SHAPES]
NOISE = [[np.asarray(_rng.randn(*s) * 0.1) for s in SHAPES] for _ in range(STEPS)]

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.5)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, weight_decay=0.05, nesterov=True)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True,
                  maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.9))),  # lerp weight >= 0.5: the other formula
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(centered=True)),
    ("RMSprop", dict(lr=0.005, momentum=0.9)),
    ("RMSprop", dict(lr=0.005, alpha=0.9, eps=1e-6, centered=True, momentum=0.5,
                     weight_decay=0.1)),
    ("RMSprop", dict(maximize=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.001, alpha=0.4, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-8)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5)),
    ("Adadelta", dict(weight_decay=0.1)),
    ("Adadelta", dict(maximize=True)),
]
NAMES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"]
STATEFUL = {"SGD": dict(lr=0.05, momentum=0.9), "Adam": dict(lr=0.01, amsgrad=True),
            "AdamW": dict(lr=0.01), "RMSprop": dict(centered=True, momentum=0.5),
            "Adagrad": dict(lr=0.1), "Adadelta": dict()}


def _config_id(config):
    name, kwargs = config
    return name + "-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


@pytest.fixture(params=["kernels", "ops"])
def path(request, monkeypatch):
    """Run the array-kernel hot path, or force every update through ember ops."""
    if request.param == "ops":
        monkeypatch.setattr(_kernels, "fast", lambda param, grad: False)
    return request.param


# ---------------------------------------------------------------- building both sides
def _params(lib, dtype=np.float32, start=START):
    return [lib.nn.Parameter(lib.tensor(s.astype(dtype))) for s in start]


def _set_grads(lib, params, t, maximize=False):
    """The same gradient in both libraries: a function of the current values."""
    sign = -1.0 if maximize else 1.0
    for i, p in enumerate(params):
        x = p.detach().numpy().astype(np.float64)
        g = sign * (x - TARGET[i]) * (1 + 0.1 * np.sin(x)) + NOISE[t % STEPS][i]
        p.grad = lib.tensor(g.astype(p.detach().numpy().dtype))


def _run(opt, lib, params, steps, start=0, maximize=False):
    for t in range(start, start + steps):
        _set_grads(lib, params, t, maximize)
        opt.step()


def _numpy(params):
    return [p.detach().numpy().copy() for p in params]


def _assert_params_close(ours, theirs, dtype):
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-13)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _to_torch(torch, value):
    """An ember state dict (or any nesting) with each tensor converted to torch."""
    if isinstance(value, ember.Tensor):
        return torch.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_torch(torch, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(torch, v) for v in value)
    return value


def _to_ember(torch, value):
    """A torch state dict (or any nesting) with each tensor converted to ember."""
    if isinstance(value, torch.Tensor):
        return ember.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_ember(torch, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_ember(torch, v) for v in value)
    return value


# ---------------------------------------------------------------- trajectories
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_trajectory_matches_torch(torch, path, config, dtype):
    name, kwargs = config
    maximize = kwargs.get("maximize", False)
    results = []
    for lib in (ember, torch):
        params = _params(lib, dtype)
        _run(getattr(lib.optim, name)(params, **kwargs), lib, params, STEPS, maximize=maximize)
        results.append(_numpy(params))
    _assert_params_close(*results, dtype)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("Adam", dict(lr=0.01)),
                                         ("RMSprop", dict(lr=0.003, momentum=0.5))])
def test_mlp_training_matches_torch(torch, name, kwargs):
    """A small MLP trained on fixed data, forward and backward in each library."""
    rng = np.random.RandomState(1)
    x, y = rng.randn(32, 6).astype(np.float32), rng.randn(32, 2).astype(np.float32)
    weights = [rng.randn(10, 6) * 0.4, rng.randn(10) * 0.1, rng.randn(2, 10) * 0.4,
               rng.randn(2) * 0.1]
    results = []
    for lib in (ember, torch):
        model = lib.nn.Sequential(lib.nn.Linear(6, 10), lib.nn.Tanh(), lib.nn.Linear(10, 2))
        with lib.no_grad():
            for p, w in zip(model.parameters(), weights):
                p.copy_(lib.tensor(w.astype(np.float32)))
        opt = getattr(lib.optim, name)(model.parameters(), **kwargs)
        inputs, targets = lib.tensor(x), lib.tensor(y)
        for _ in range(STEPS):
            opt.zero_grad()
            lib.nn.functional.mse_loss(model(inputs), targets).backward()
            opt.step()
        results.append(_numpy(model.parameters()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_tensor_lr_matches_torch(torch, name):
    kwargs = dict(STATEFUL[name])
    results = []
    for lib in (ember, torch):
        params = _params(lib)
        opt = getattr(lib.optim, name)(params, **dict(kwargs, lr=lib.tensor(0.01)))
        _run(opt, lib, params, 50)
        results.append(_numpy(params))
    _assert_params_close(*results, np.float32)


def test_tensor_betas_match_torch(torch):
    results = []
    for lib in (ember, torch):
        params = _params(lib)
        betas = (lib.tensor(0.8), lib.tensor(0.95))
        _run(lib.optim.Adam(params, lr=0.01, betas=betas), lib, params, 50)
        results.append(_numpy(params))
    _assert_params_close(*results, np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_with_different_lrs(torch, path, name):
    kwargs = STATEFUL[name]
    results = []
    for lib in (ember, torch):
        params = _params(lib)
        groups = [{"params": params[:2]}, {"params": params[2:], "lr": 0.003}]
        _run(getattr(lib.optim, name)(groups, **kwargs), lib, params, 50)
        results.append(_numpy(params))
    _assert_params_close(*results, np.float32)


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop", "Adadelta"])
def test_float16_parameters_match_torch(torch, name):
    """Half precision runs the ember-op path (each op rounds to float16 as torch's does)."""
    results = []
    for lib in (ember, torch):
        params = _params(lib, np.float16)
        _run(getattr(lib.optim, name)(params, **STATEFUL[name]), lib, params, 20)
        results.append(_numpy(params))
    for a, b in zip(*results):
        # measured: at most 3.9e-3 apart after 20 steps (a few float16 ulps)
        np.testing.assert_allclose(a.astype(np.float32), b.astype(np.float32), rtol=0,
                                   atol=8e-3)


def test_parameters_without_grad_are_skipped(torch):
    for lib in (ember, torch):
        params = _params(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        params[0].grad = lib.ones(5, 4)
        opt.step()
        assert len(opt.state) == 1 and params[0] in opt.state
        np.testing.assert_array_equal(params[1].detach().numpy(), START[1].astype(np.float32))


def test_version_counters_match_torch(torch):
    versions = []
    for lib in (ember, torch):
        params = _params(lib)
        opt = lib.optim.Adam(params, lr=0.1, amsgrad=True, weight_decay=0.1,
                             decoupled_weight_decay=True)
        _run(opt, lib, params, 2)
        state = opt.state[params[0]]
        versions.append([params[0]._version] + [state[k]._version for k in sorted(state)])
    assert versions[0] == versions[1]


# ---------------------------------------------------------------- differentiable / capturable
@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("Adam", dict(lr=0.1)), ("RMSprop", dict()),
                                         ("Adagrad", dict()), ("Adadelta", dict())])
def test_differentiable_step_backpropagates_like_torch(torch, name, kwargs):
    results = []
    for lib in (ember, torch):
        leaf = lib.tensor(START[0].astype(np.float64), requires_grad=True)
        param = leaf.clone()
        opt = getattr(lib.optim, name)([param], differentiable=True, **kwargs)
        for t in range(3):
            param.grad = lib.tensor(NOISE[t][0] + 1.0)
            opt.step()
        (param ** 2).sum().backward()
        results.append((param.detach().numpy(), leaf.grad.numpy(), type(param.grad_fn).__name__))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][2] == results[1][2]


def test_differentiable_leaf_parameter_refused_like_torch(torch):
    def step(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.ones(3)
        lib.optim.SGD([p], lr=0.1, differentiable=True).step()
    assert_raises_alike(lambda: step(torch), lambda: step(ember))


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta"])
def test_capturable_on_cpu_refused_like_torch(torch, name):
    def step(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.ones(3)
        getattr(lib.optim, name)([p], capturable=True).step()
    assert_raises_alike(lambda: step(torch), lambda: step(ember))


@pytest.mark.parametrize("amsgrad", [False, True])
def test_capturable_arithmetic_matches_torch(torch, monkeypatch, amsgrad):
    """Pretend the CPU can graph-capture, in both libraries, to pin the capturable path.

    Its bias corrections are float32 tensors (the step's dtype) in both libraries, so
    even float64 parameters agree only to float32 rounding of those scalars."""
    import torch.optim.adam as torch_adam
    import ember.optim.adam as ember_adam
    monkeypatch.setattr(torch_adam, "_get_capturable_supported_devices", lambda: ["cpu"])
    monkeypatch.setattr(ember_adam, "_check_capturable", lambda param, step: None)
    results = []
    for lib in (ember, torch):
        params = _params(lib, np.float64)
        opt = lib.optim.Adam(params, lr=0.01, amsgrad=amsgrad, capturable=True)
        _run(opt, lib, params, 50)
        results.append(_numpy(params))
    _assert_params_close(*results, np.float32)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_flags_accepted(torch, name):
    """ember accepts the flags and runs the single-tensor arithmetic."""
    for flags in (dict(fused=True), dict(foreach=True), dict(foreach=False)):
        results = []
        for lib in (ember, torch):
            params = _params(lib)
            _run(getattr(lib.optim, name)(params, **STATEFUL[name], **flags), lib, params, 20)
            results.append(_numpy(params))
        _assert_params_close(*results, np.float32)


# ---------------------------------------------------------------- state dicts
@pytest.mark.parametrize("name", NAMES)
def test_state_dict_matches_torch(torch, name):
    dicts = []
    for lib in (ember, torch):
        params = _params(lib)
        opt = getattr(lib.optim, name)(params, **STATEFUL[name])
        _run(opt, lib, params, 5)
        dicts.append(opt.state_dict())
    ours, theirs = dicts
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["param_groups"][0]) == list(theirs["param_groups"][0])
    assert list(ours["state"]) == list(theirs["state"])
    for index, state in theirs["state"].items():
        assert list(ours["state"][index]) == list(state)
        for key, value in state.items():
            got = ours["state"][index][key]
            assert str(got.dtype) == str(value.dtype).replace("torch", "ember")
            assert tuple(got.shape) == tuple(value.shape)
            np.testing.assert_allclose(got.numpy(), value.numpy(), rtol=1e-5, atol=1e-7)


def test_state_dict_step_is_float64_under_float64_default(torch):
    for lib in (ember, torch):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            p = lib.nn.Parameter(lib.ones(2))
            p.grad = lib.ones(2)
            opt = lib.optim.Adam([p])
            opt.step()
            assert str(opt.state[p]["step"].dtype).endswith("float64")
        finally:
            lib.set_default_dtype(previous)


def test_state_dict_with_named_parameters_matches_torch(torch):
    dicts = []
    for lib in (ember, torch):
        params = _params(lib)
        named = [(f"w{i}", p) for i, p in enumerate(params)]
        opt = lib.optim.SGD([{"params": named[:2]}, {"params": named[2:], "lr": 0.5}],
                            lr=0.1, momentum=0.9)
        _run(opt, lib, params, 2)
        dicts.append(opt.state_dict())
    assert dicts[0]["param_groups"] == dicts[1]["param_groups"]
    assert dicts[0]["param_groups"][0]["param_names"] == ["w0", "w1"]


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_round_trip_continues_identically(path, name):
    kwargs = STATEFUL[name]
    params = _params(ember)
    opt = getattr(ember.optim, name)(params, **kwargs)
    _run(opt, ember, params, 100)
    saved = copy.deepcopy(opt.state_dict())
    resumed_params = _params(ember, start=_numpy(params))
    _run(opt, ember, params, 100, start=100)

    resumed = getattr(ember.optim, name)(resumed_params, **kwargs)
    resumed.load_state_dict(saved)
    _run(resumed, ember, resumed_params, 100, start=100)
    for a, b in zip(_numpy(params), _numpy(resumed_params)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", NAMES)
def test_load_torch_state_dict_and_continue(torch, name):
    kwargs = STATEFUL[name]
    torch_params = _params(torch)
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    _run(torch_opt, torch, torch_params, 100)
    saved = _to_ember(torch, torch_opt.state_dict())
    params = _params(ember, start=_numpy(torch_params))
    opt = getattr(ember.optim, name)(params, **kwargs)
    opt.load_state_dict(saved)
    assert str(opt.state[params[0]][next(iter(opt.state[params[0]]))].dtype) == "ember.float32"
    _run(torch_opt, torch, torch_params, 100, start=100)
    _run(opt, ember, params, 100, start=100)
    _assert_params_close(_numpy(params), _numpy(torch_params), np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_torch_loads_ember_state_dict_and_continues(torch, name):
    kwargs = STATEFUL[name]
    params = _params(ember)
    opt = getattr(ember.optim, name)(params, **kwargs)
    _run(opt, ember, params, 100)
    torch_params = _params(torch, start=_numpy(params))
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    torch_opt.load_state_dict(_to_torch(torch, opt.state_dict()))
    _run(opt, ember, params, 100, start=100)
    _run(torch_opt, torch, torch_params, 100, start=100)
    _assert_params_close(_numpy(params), _numpy(torch_params), np.float32)


def test_load_state_dict_casts_state_to_parameter_dtype(torch):
    for lib in (ember, torch):
        source = _params(lib)
        opt = lib.optim.Adam(source)
        _run(opt, lib, source, 1)
        target = _params(lib, np.float64)
        fresh = lib.optim.Adam(target)
        fresh.load_state_dict(opt.state_dict())
        state = fresh.state[target[0]]
        assert str(state["exp_avg"].dtype).endswith("float64")
        assert str(state["step"].dtype).endswith("float32")  # the step keeps its saved dtype


def test_load_state_dict_shares_unchanged_tensors_like_torch(torch):
    """PyTorch does not copy state tensors that need no cast; ember does the same."""
    for lib in (ember, torch):
        params = _params(lib)
        opt = lib.optim.SGD(params, lr=0.1, momentum=0.9)
        _run(opt, lib, params, 1)
        fresh = lib.optim.SGD(_params(lib), lr=0.1, momentum=0.9)
        fresh.load_state_dict(opt.state_dict())
        new_buffer = fresh.state[fresh.param_groups[0]["params"][0]]["momentum_buffer"]
        assert new_buffer is opt.state[params[0]]["momentum_buffer"]


def test_load_state_dict_restores_hyper_parameters():
    params = _params(ember)
    opt = ember.optim.SGD(params, lr=0.1)
    saved = opt.state_dict()
    saved["param_groups"][0]["lr"] = 0.5
    fresh = ember.optim.SGD(params, lr=0.1)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == 0.5
    assert fresh.param_groups[0]["params"][0] is params[0]


def test_load_old_style_integer_step(torch):
    """Old checkpoints stored `step` as a number; both libraries turn it into a tensor."""
    for lib in (ember, torch):
        params = _params(lib)
        opt = lib.optim.Adam(params)
        _run(opt, lib, params, 1)
        saved = opt.state_dict()
        for state in saved["state"].values():
            state["step"] = 1
        fresh = lib.optim.Adam(params)
        fresh.load_state_dict(saved)
        step = fresh.state[params[0]]["step"]
        assert isinstance(step, lib.Tensor) and step.item() == 1.0


def test_load_state_dict_errors_like_torch(torch):
    def load(lib, change):
        params = _params(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        saved = opt.state_dict()
        change(saved)
        lib.optim.SGD(params, lr=0.1).load_state_dict(saved)

    def extra_group(saved):
        saved["param_groups"].append(dict(saved["param_groups"][0], params=[]))

    def short_group(saved):
        saved["param_groups"][0]["params"].pop()

    for change in (extra_group, short_group):
        assert_raises_alike(lambda: load(torch, change), lambda: load(ember, change))


# ---------------------------------------------------------------- groups, zero_grad, closure
def test_param_groups_fill_every_default_in_torch_order(torch):
    for name in NAMES:
        groups = []
        for lib in (ember, torch):
            params = _params(lib)
            opt = getattr(lib.optim, name)([{"params": params[:1], "lr": 0.5},
                                            {"params": params[1:]}])
            groups.append([{k: v for k, v in g.items() if k != "params"}
                           for g in opt.param_groups])
            groups[-1].append([list(g) for g in opt.param_groups])
        assert groups[0] == groups[1], name


def test_add_param_group(torch):
    results = []
    for lib in (ember, torch):
        params = _params(lib)
        opt = lib.optim.SGD(params[:2], lr=0.1, momentum=0.9)
        _run(opt, lib, params[:2], 3)
        opt.add_param_group({"params": params[2:], "lr": 0.01})
        assert opt.param_groups[1]["momentum"] == 0.9
        _run(opt, lib, params, 3, start=3)
        results.append(_numpy(params))
    _assert_params_close(*results, np.float32)


def test_add_param_group_errors_like_torch(torch):
    def duplicate(lib):
        params = _params(lib)
        lib.optim.SGD(params, lr=0.1).add_param_group({"params": params[:1]})

    def not_a_dict(lib):
        lib.optim.SGD(_params(lib), lr=0.1).add_param_group(_params(lib))

    def a_set(lib):
        lib.optim.SGD(_params(lib), lr=0.1).add_param_group({"params": set(_params(lib))})

    def mixed_names(lib):
        params = _params(lib)
        lib.optim.SGD(params[:1], lr=0.1).add_param_group({"params": [("w", params[1])]})

    for build in (duplicate, not_a_dict, a_set, mixed_names):
        assert_raises_alike(lambda: build(torch), lambda: build(ember))


@pytest.mark.parametrize("build", [
    lambda lib: lib.optim.SGD(lib.ones(3), lr=0.1),
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD([1, 2], lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(2)], lr=-0.1),
    lambda lib: lib.optim.SGD([lib.ones(2)], momentum=-0.5),
    lambda lib: lib.optim.SGD([lib.ones(2)], weight_decay=-1),
    lambda lib: lib.optim.SGD([lib.ones(2)], nesterov=True),
    lambda lib: lib.optim.SGD([lib.ones(2)], momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([lib.ones(2)], lr=lib.ones(2)),
    lambda lib: lib.optim.SGD([lib.ones(2)], fused=True, foreach=True),
    lambda lib: lib.optim.SGD([lib.ones(2)], fused=True, differentiable=True),
    lambda lib: lib.optim.Adam([lib.ones(2)], lr=-1.0),
    lambda lib: lib.optim.Adam([lib.ones(2)], eps=-1.0),
    lambda lib: lib.optim.Adam([lib.ones(2)], betas=(1.0, 0.999)),
    lambda lib: lib.optim.Adam([lib.ones(2)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.Adam([lib.ones(2)], betas=(0.9, 1)),
    lambda lib: lib.optim.Adam([lib.ones(2)], weight_decay=-0.1),
    lambda lib: lib.optim.Adam([lib.ones(2)], lr=lib.tensor(0.1), foreach=True),
    lambda lib: lib.optim.Adam([lib.ones(2)], betas=(lib.ones(2), lib.ones(2))),
    lambda lib: lib.optim.AdamW([lib.ones(2)], weight_decay=-0.1),
    lambda lib: lib.optim.RMSprop([lib.ones(2)], alpha=-0.1),
    lambda lib: lib.optim.RMSprop([lib.ones(2)], momentum=-0.1),
    lambda lib: lib.optim.RMSprop([lib.ones(2)], eps=-0.1),
    lambda lib: lib.optim.Adagrad([lib.ones(2)], lr_decay=-0.1),
    lambda lib: lib.optim.Adagrad([lib.ones(2)], initial_accumulator_value=-0.1),
    lambda lib: lib.optim.Adagrad([lib.ones(2)], eps=-0.1),
    lambda lib: lib.optim.Adadelta([lib.ones(2)], rho=1.5),
    lambda lib: lib.optim.Adadelta([lib.ones(2)], lr=-1),
    lambda lib: lib.optim.Adadelta([lib.ones(2)], weight_decay=-1),
])
def test_constructor_errors_like_torch(torch, build):
    assert_raises_alike(lambda: build(torch), lambda: build(ember))


def test_fused_requires_floating_point_params_like_torch(torch):
    def step(lib):
        p = lib.ones(2, dtype=lib.int64)
        p.grad = lib.ones(2, dtype=lib.int64)
        lib.optim.SGD([p], lr=0.1, fused=True).step()
    assert_raises_alike(lambda: step(torch), lambda: step(ember))


def test_duplicate_parameters_warn_like_torch(torch):
    messages = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.ones(2))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([p, p], lr=0.1)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(torch, set_to_none):
    for lib in (ember, torch):
        params = _params(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        _set_grads(lib, params[:3], 0)
        grad = params[0].grad
        opt.zero_grad(set_to_none=set_to_none)
        assert params[3].grad is None
        if set_to_none:
            assert all(p.grad is None for p in params)
        else:
            assert params[0].grad is grad  # zeroed in place
            assert all(float(p.grad.abs().sum()) == 0 for p in params[:3])


def test_zero_grad_detaches_a_grad_with_history():
    p = ember.nn.Parameter(ember.ones(2))
    x = ember.ones(2, requires_grad=True)
    p.grad = x * 2
    ember.optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad.grad_fn is None and not p.grad.requires_grad
    assert p.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name", NAMES)
def test_closure_is_evaluated_with_grad_and_its_loss_returned(torch, name):
    results = []
    for lib in (ember, torch):
        params = _params(lib)
        opt = getattr(lib.optim, name)(params, **STATEFUL[name])
        targets = [lib.tensor(t.astype(np.float32)) for t in TARGET]

        def closure():
            opt.zero_grad()
            loss = sum(((p - t) ** 2).sum() for p, t in zip(params, targets))
            loss.backward()
            return loss
        with lib.no_grad():
            losses = [float(opt.step(closure)) for _ in range(20)]
        results.append((losses, _numpy(params)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    _assert_params_close(results[0][1], results[1][1], np.float32)


def test_step_without_closure_returns_none():
    params = _params(ember)
    _set_grads(ember, params, 0)
    assert ember.optim.Adam(params).step() is None


def test_step_leaves_grad_mode_unchanged():
    params = _params(ember)
    _set_grads(ember, params, 0)
    ember.optim.SGD(params, lr=0.1).step()
    assert ember.is_grad_enabled()
    assert all(p.grad_fn is None and p.is_leaf for p in params)


# ---------------------------------------------------------------- printing and hooks
@pytest.mark.parametrize("name", NAMES)
def test_repr_matches_torch(torch, name):
    reprs = []
    for lib in (ember, torch):
        params = _params(lib)
        opt = getattr(lib.optim, name)([{"params": params[:2]},
                                        {"params": params[2:], "lr": 0.5}], **STATEFUL[name])
        reprs.append(repr(opt))
    assert reprs[0] == reprs[1]


def test_repr_exact_text():
    opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=0.1)
    assert repr(opt) == ("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
                         "    foreach: None\n    fused: None\n    lr: 0.1\n    maximize: False\n"
                         "    momentum: 0\n    nesterov: False\n    weight_decay: 0\n)")


def test_step_hooks():
    params = _params(ember)
    _set_grads(ember, params, 0)
    opt = ember.optim.SGD(params, lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(
        ("post", [a is o for a in args])))
    global_pre = ember.optim.optimizer.register_optimizer_step_pre_hook(
        lambda o, args, kwargs: calls.append(("global",)))
    opt.step()
    assert calls == [("global",), ("pre", True), ("post", [True])]   # torch: args == (opt,)
    for handle in (pre, post, global_pre):
        handle.remove()
    opt.step()
    assert len(calls) == 3


def test_step_pre_hook_bad_return_raises():
    params = _params(ember)
    opt = ember.optim.SGD(params, lr=0.1)
    opt.register_step_pre_hook(lambda o, args, kwargs: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt.step()


def test_state_dict_and_load_hooks():
    params = _params(ember)
    opt = ember.optim.SGD(params, lr=0.1)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    saved = opt.state_dict()
    assert seen == ["pre"] and saved["extra"] == 1

    def change_lr(o, sd):
        sd["param_groups"] = [dict(sd["param_groups"][0], lr=0.7)]
    opt.register_load_state_dict_pre_hook(change_lr)
    opt.register_load_state_dict_post_hook(lambda o: seen.append("loaded"))
    opt.load_state_dict(saved)
    assert opt.param_groups[0]["lr"] == 0.7 and seen == ["pre", "loaded"]


def test_subclass_calling_super_step_runs_hooks_once():
    class Counting(ember.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    params = _params(ember)
    _set_grads(ember, params, 0)
    opt = Counting(params, lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(1))
    opt.step()
    assert calls == [1]


def test_custom_optimizer_on_the_base_class():
    class Plain(ember.optim.Optimizer):
        def __init__(self, params, lr=ember.optim.optimizer.required):
            super().__init__(params, {"lr": lr})

        @ember.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    p.add_(p.grad, alpha=-group["lr"])

    p = ember.nn.Parameter(ember.ones(2))
    with pytest.raises(ValueError, match="didn't specify a value of required optimization "
                                         "parameter lr"):
        Plain([p])
    opt = Plain([p], lr=0.5)
    p.grad = ember.ones(2)
    opt.step()
    assert p.tolist() == [0.5, 0.5]
    assert repr(ember.optim.optimizer.required) == "<required parameter>"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", ["add_", "lerp_small", "lerp_large", "addcmul_", "addcdiv_"])
def test_kernels_agree_with_torch_ops(torch, op, dtype):
    """Each array kernel against the PyTorch op it stands for, on positive data (no
    cancellation), to one rounding of the tensor's precision."""
    rng = np.random.RandomState(3)
    x, y, z = (rng.rand(7, 5).astype(dtype) + 0.5 for _ in range(3))
    calls = {"add_": (lambda t, u, v: t.add_(u, alpha=0.3),
                      lambda a, b, c, tmp: _kernels.add_(np, a, b, 0.3, tmp)),
             "lerp_small": (lambda t, u, v: t.lerp_(u, 0.1),
                            lambda a, b, c, tmp: _kernels.lerp_(np, a, b, 0.1, tmp)),
             "lerp_large": (lambda t, u, v: t.lerp_(u, 0.7),
                            lambda a, b, c, tmp: _kernels.lerp_(np, a, b, 0.7, tmp)),
             "addcmul_": (lambda t, u, v: t.addcmul_(u, v, value=0.3),
                          lambda a, b, c, tmp: _kernels.addcmul_(np, a, b, c, 0.3, tmp)),
             "addcdiv_": (lambda t, u, v: t.addcdiv_(u, v, value=-0.3),
                          lambda a, b, c, tmp: _kernels.addcdiv_(np, a, b, c, -0.3, tmp))}
    torch_op, kernel = calls[op]
    expected = torch_op(torch.tensor(x), torch.tensor(y), torch.tensor(z)).numpy()
    got = x.copy()
    kernel(got, y, z, np.empty_like(x))
    np.testing.assert_allclose(got, expected, rtol=2 * np.finfo(dtype).eps, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_lerp_kernel_reaches_its_end_points_exactly(dtype):
    """PyTorch's two-sided formula makes weight 0 give the start and weight 1 the end."""
    rng = np.random.RandomState(4)
    start, end = rng.randn(50).astype(dtype) * 1e3, rng.randn(50).astype(dtype) * 1e-3
    for weight, expected in ((0.0, start), (1.0, end)):
        got = start.copy()
        _kernels.lerp_(np, got, end, weight, np.empty_like(got))
        np.testing.assert_array_equal(got, expected)
