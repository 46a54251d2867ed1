"""ember.optim.lr_scheduler against PyTorch.

Every schedule is built on identical optimizers in both libraries (one parameter per
param group, each group with its own lr) and stepped side by side, `optimizer.step()`
before `scheduler.step()`. The lrs, momenta and betas are compared with `==`: the
schedules are plain Python float arithmetic in the same order as PyTorch's, so they
agree bit for bit (tensor lrs too, computed in their own dtype by both libraries).
"""
import copy
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember

LRS = (0.1, 0.05, 0.3)


# ---------------------------------------------------------------- building both sides

def _beta_optimizer_class(lib):
    """An optimizer with Adam-style `betas` (and no `momentum`) whose step does nothing."""
    class BetaOptimizer(lib.optim.Optimizer):
        def __init__(self, params, lr=0.1, betas=(0.9, 0.999)):
            super().__init__(params, {"lr": lr, "betas": betas})

        def step(self, closure=None):
            return None
    return BetaOptimizer


def _lr_only_optimizer(lib, params):
    class LrOnly(lib.optim.Optimizer):
        def step(self, closure=None):
            return None
    return LrOnly(params, {"lr": 0.1})


def make_optimizer(lib, kind="sgd", lrs=LRS):
    """One parameter per group, each group with its own lr; `kind` picks the optimizer."""
    params = [lib.nn.Parameter(lib.ones(2) * (i + 1)) for i in range(len(lrs))]
    if kind == "tensor-lr":
        lrs = [lib.tensor(lr) for lr in lrs[:-1]] + [lib.tensor(lrs[-1], dtype=lib.float64)]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, lrs)]
    if kind in ("sgd", "tensor-lr"):
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    if kind == "betas":
        return _beta_optimizer_class(lib)(groups)
    if kind == "adam":
        if not hasattr(ember.optim, "Adam"):
            pytest.skip("ember.optim.Adam not built yet")
        return lib.optim.Adam(groups, lr=0.1)
    raise AssertionError(kind)


def plain(value):
    """A comparable form: Tensors become (dtype name, value); containers recurse."""
    if type(value).__name__ in ("Tensor", "Parameter"):
        return ("tensor", str(value.dtype).split(".")[-1], value.item())
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(item) for item in value)
    return value


def snapshot(scheduler, optimizer):
    groups = [(g["lr"], g.get("momentum"), g.get("betas"), g.get("initial_lr"))
              for g in optimizer.param_groups]
    return plain(scheduler.get_last_lr()), plain(groups)


def trajectory(lib, factory, steps, kind="sgd"):
    """Snapshots after construction and after each step, and every warning raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optimizer = make_optimizer(lib, kind)
        scheduler = factory(lib.optim.lr_scheduler, optimizer)
        record = [snapshot(scheduler, optimizer)]
        for _ in range(steps):
            optimizer.step()
            scheduler.step()
            record.append(snapshot(scheduler, optimizer))
    return record, [(w.category, str(w.message)) for w in caught]


# ---------------------------------------------------------------- the schedule catalog
# (id, factory(lr_scheduler module, optimizer), steps, optimizer kind)

class ScaleByHalf:
    """A callable object: its `__dict__` is what a state_dict keeps of it."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


CASES = [
    ("LambdaLR", lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** e), 12, "sgd"),
    ("LambdaLR-per-group", lambda L, o: L.LambdaLR(
        o, [lambda e: 1 / (e + 1), lambda e: e // 3, lambda e: 0.5]), 9, "sgd"),
    ("MultiplicativeLR", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9), 10, "sgd"),
    ("MultiplicativeLR-per-group", lambda L, o: L.MultiplicativeLR(
        o, (lambda e: 0.9, lambda e: 1 - e / 100, lambda e: 1.01)), 10, "sgd"),
    ("StepLR", lambda L, o: L.StepLR(o, step_size=3, gamma=0.5), 13, "sgd"),
    ("StepLR-default-gamma", lambda L, o: L.StepLR(o, 2), 7, "sgd"),
    ("MultiStepLR", lambda L, o: L.MultiStepLR(o, milestones=[5, 2, 5, 9], gamma=0.3), 12,
     "sgd"),
    ("ConstantLR", lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=4), 8, "sgd"),
    ("ConstantLR-default", lambda L, o: L.ConstantLR(o), 8, "sgd"),
    ("LinearLR", lambda L, o: L.LinearLR(o, start_factor=0.25, end_factor=0.9,
                                         total_iters=6), 10, "sgd"),
    ("LinearLR-default", lambda L, o: L.LinearLR(o), 8, "sgd"),
    ("LinearLR-decay", lambda L, o: L.LinearLR(o, start_factor=1.0, end_factor=0.1,
                                               total_iters=5), 8, "sgd"),
    ("ExponentialLR", lambda L, o: L.ExponentialLR(o, gamma=0.93), 15, "sgd"),
    ("PolynomialLR", lambda L, o: L.PolynomialLR(o, total_iters=7, power=2.0), 10, "sgd"),
    ("PolynomialLR-default", lambda L, o: L.PolynomialLR(o), 8, "sgd"),
    # past T_max the recursive form climbs back up: both of its special branches run
    ("CosineAnnealingLR", lambda L, o: L.CosineAnnealingLR(o, T_max=5, eta_min=0.001), 23,
     "sgd"),
    ("CosineAnnealingLR-default", lambda L, o: L.CosineAnnealingLR(o, T_max=7), 16, "sgd"),
    ("CosineAnnealingWarmRestarts", lambda L, o: L.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.01), 20, "sgd"),
    ("CosineAnnealingWarmRestarts-Tmult1", lambda L, o: L.CosineAnnealingWarmRestarts(
        o, T_0=4), 10, "sgd"),
    ("CyclicLR-triangular", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3), 14, "sgd"),
    ("CyclicLR-triangular2", lambda L, o: L.CyclicLR(
        o, [0.01, 0.02, 0.03], [0.1, 0.2, 0.3], step_size_up=2, step_size_down=4,
        mode="triangular2"), 20, "sgd"),
    ("CyclicLR-exp_range", lambda L, o: L.CyclicLR(
        o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.97,
        base_momentum=[0.7, 0.75, 0.8], max_momentum=0.95), 14, "sgd"),
    ("CyclicLR-scale_fn-iterations", lambda L, o: L.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.5 ** x, scale_mode="iterations"),
     10, "sgd"),
    ("CyclicLR-scale_fn-cycle", lambda L, o: L.CyclicLR(
        o, 0.01, 0.1, step_size_up=2, scale_fn=ScaleByHalf()), 10, "sgd"),
    ("CyclicLR-no-momentum", lambda L, o: L.CyclicLR(
        o, 0.01, 0.1, step_size_up=3, cycle_momentum=False), 10, "sgd"),
    ("CyclicLR-betas", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2), 8, "betas"),
    ("OneCycleLR-cos", lambda L, o: L.OneCycleLR(o, 0.1, total_steps=20), 20, "sgd"),
    ("OneCycleLR-linear", lambda L, o: L.OneCycleLR(
        o, [0.1, 0.2, 0.3], epochs=4, steps_per_epoch=5, anneal_strategy="linear",
        pct_start=0.25), 20, "sgd"),
    ("OneCycleLR-three-phase", lambda L, o: L.OneCycleLR(
        o, 0.1, total_steps=17, three_phase=True, div_factor=10.0, final_div_factor=100.0),
     17, "sgd"),
    ("OneCycleLR-no-momentum", lambda L, o: L.OneCycleLR(
        o, 0.1, total_steps=10, cycle_momentum=False), 10, "sgd"),
    ("OneCycleLR-momentum-lists", lambda L, o: L.OneCycleLR(
        o, 0.1, total_steps=12, base_momentum=[0.8, 0.85, 0.7],
        max_momentum=[0.9, 0.95, 0.99]), 12, "sgd"),
    ("OneCycleLR-betas", lambda L, o: L.OneCycleLR(o, 0.1, total_steps=12), 12, "betas"),
    ("OneCycleLR-adam", lambda L, o: L.OneCycleLR(o, 0.1, total_steps=12,
                                                  three_phase=True), 12, "adam"),
    ("SequentialLR", lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)],
        milestones=[3]), 10, "sgd"),
    ("SequentialLR-three", lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, 0.5, total_iters=2), L.StepLR(o, 2, 0.5),
            L.CosineAnnealingLR(o, T_max=4)], milestones=[2, 6]), 14, "sgd"),
    # PyTorch's own quirks included: the inner chain's first step warns, lrs jump at 4
    ("SequentialLR-nested-chain", lambda L, o: L.SequentialLR(
        o, [L.ChainedScheduler([L.ConstantLR(o, 0.5, 3), L.ExponentialLR(o, 0.9)]),
            L.StepLR(o, 2)], [4]), 9, "sgd"),
    ("ChainedScheduler", lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)]), 8, "sgd"),
    ("ChainedScheduler-optimizer", lambda L, o: L.ChainedScheduler(
        [L.StepLR(o, 3, 0.5), L.MultiStepLR(o, [2, 4]), L.LinearLR(o)], optimizer=o), 10,
     "sgd"),
]
CASE_IDS = [case[0] for case in CASES]

TENSOR_CASES = [case for case in CASES if case[3] == "sgd"]


@pytest.mark.parametrize("name, factory, steps, kind", CASES, ids=CASE_IDS)
def test_schedule_matches_torch(torch, name, factory, steps, kind):
    expected = trajectory(torch, factory, steps, kind)
    assert trajectory(ember, factory, steps, kind) == expected


@pytest.mark.parametrize("name, factory, steps, kind", TENSOR_CASES,
                         ids=[case[0] for case in TENSOR_CASES])
def test_tensor_lrs_match_torch(torch, name, factory, steps, kind):
    expected = trajectory(torch, factory, steps, "tensor-lr")
    assert trajectory(ember, factory, steps, "tensor-lr") == expected


def test_tensor_lr_is_updated_in_place_and_never_aliased():
    optimizer = make_optimizer(ember, "tensor-lr")
    lr = optimizer.param_groups[0]["lr"]
    scheduler = ember.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
    optimizer.step()
    scheduler.step()
    assert optimizer.param_groups[0]["lr"] is lr and lr.item() == np.float32(0.05)
    scheduler.get_last_lr()[0].fill_(7.0)
    optimizer.param_groups[0]["initial_lr"].fill_(3.0)
    assert lr.item() == np.float32(0.05) and scheduler.base_lrs[0].item() == np.float32(0.1)


def test_parameters_follow_the_schedule_like_torch(torch):
    """The scheduled lrs reach the update: parameters after SGD with momentum agree."""
    def train(lib):
        optimizer = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, 0.5, total_steps=6)
        for _ in range(6):
            for group in optimizer.param_groups:
                group["params"][0].grad = lib.full((2,), 0.25)
            optimizer.step()
            scheduler.step()
        return [g["params"][0].detach().numpy() for g in optimizer.param_groups]
    # Within float32 rounding, not bitwise: PyTorch's CPU kernel for `add_(grad, alpha=-lr)`
    # rounds once (a fused multiply-add); the lrs themselves are equal (tests above).
    for got, want in zip(train(ember), train(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)


@given(T_max=st.integers(1, 9), eta_min=st.sampled_from([0.0, 1e-3, 0.02]),
       steps=st.integers(1, 30))
def test_cosine_recursion_matches_torch_exactly(T_max, eta_min, steps):
    torch = pytest.importorskip("torch")
    factory = lambda L, o: L.CosineAnnealingLR(o, T_max=T_max, eta_min=eta_min)  # noqa: E731
    assert trajectory(ember, factory, steps) == trajectory(torch, factory, steps)


# ---------------------------------------------------------------- state, resuming

def _state(lib, factory, steps, kind):
    optimizer = make_optimizer(lib, kind)
    scheduler = factory(lib.optim.lr_scheduler, optimizer)
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
    return optimizer, scheduler


@pytest.mark.parametrize("name, factory, steps, kind", CASES, ids=CASE_IDS)
def test_state_dict_matches_torch(torch, name, factory, steps, kind):
    """Same keys in the same order, same values (a Counter compares as a dict)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _state(ember, factory, steps // 2, kind)[1].state_dict()
        want = _state(torch, factory, steps // 2, kind)[1].state_dict()
    assert plain(got) == plain(want)
    assert list(got) == list(want)
    pickle.dumps(got)


@pytest.mark.parametrize("name, factory, steps, kind", CASES, ids=CASE_IDS)
def test_resume_from_state_dict_mid_schedule(torch, name, factory, steps, kind):
    """Save at half way, rebuild, load, continue: the rest equals torch's unbroken run."""
    half = steps // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = trajectory(torch, factory, steps, kind)[0][half + 1:]
        optimizer, scheduler = _state(ember, factory, half, kind)
        optimizer_state = copy.deepcopy(optimizer.state_dict())
        scheduler_state = copy.deepcopy(scheduler.state_dict())
        saved_keys = list(scheduler_state)
        optimizer = make_optimizer(ember, kind)
        scheduler = factory(ember.optim.lr_scheduler, optimizer)
        optimizer.load_state_dict(optimizer_state)
        scheduler.load_state_dict(scheduler_state)
        if not name.startswith("CyclicLR"):   # torch's CyclicLR pops _scale_fn_custom
            assert list(scheduler_state) == saved_keys   # the caller's dict is left as it was
        got = []
        for _ in range(steps - half):
            optimizer.step()
            scheduler.step()
            got.append(snapshot(scheduler, optimizer))
    assert got == expected


@pytest.mark.parametrize("name, factory, steps, kind",
                         [case for case in CASES if case[3] == "sgd"],
                         ids=[case[0] for case in CASES if case[3] == "sgd"])
def test_torch_state_dict_loads_into_ember(torch, name, factory, steps, kind):
    """A torch scheduler's state (plain Python values) continues identically in ember."""
    half = steps // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = trajectory(torch, factory, steps)[0][half + 1:]
        torch_optimizer, torch_scheduler = _state(torch, factory, half, kind)
        optimizer = make_optimizer(ember)
        scheduler = factory(ember.optim.lr_scheduler, optimizer)
        for group, torch_group in zip(optimizer.param_groups, torch_optimizer.param_groups):
            group.update({k: v for k, v in torch_group.items() if k != "params"})
        scheduler.load_state_dict(torch_scheduler.state_dict())
        got = []
        for _ in range(steps - half):
            optimizer.step()
            scheduler.step()
            got.append(snapshot(scheduler, optimizer))
    assert got == expected


RESUMABLE = {
    "StepLR": lambda L, o, e: L.StepLR(o, 3, 0.5, last_epoch=e),
    "MultiStepLR": lambda L, o, e: L.MultiStepLR(o, [4, 7], last_epoch=e),
    "ConstantLR": lambda L, o, e: L.ConstantLR(o, 0.5, 6, last_epoch=e),
    "LinearLR": lambda L, o, e: L.LinearLR(o, 0.2, 0.9, 8, last_epoch=e),
    "ExponentialLR": lambda L, o, e: L.ExponentialLR(o, 0.9, last_epoch=e),
    "PolynomialLR": lambda L, o, e: L.PolynomialLR(o, 9, 1.5, last_epoch=e),
    "CosineAnnealingLR": lambda L, o, e: L.CosineAnnealingLR(o, 6, 0.01, last_epoch=e),
    "LambdaLR": lambda L, o, e: L.LambdaLR(o, lambda k: 1 / (k + 1), last_epoch=e),
    "MultiplicativeLR": lambda L, o, e: L.MultiplicativeLR(o, lambda k: 0.8, last_epoch=e),
    "CosineAnnealingWarmRestarts": lambda L, o, e: L.CosineAnnealingWarmRestarts(
        o, 2, 2, last_epoch=e),
    "CyclicLR": lambda L, o, e: L.CyclicLR(o, 0.01, 0.1, 2, last_epoch=e),
    "OneCycleLR": lambda L, o, e: L.OneCycleLR(o, 0.1, total_steps=14, last_epoch=e),
}


@pytest.mark.parametrize("name", RESUMABLE)
def test_resume_with_last_epoch(torch, name):
    """A scheduler built with last_epoch >= 0 on groups that carry initial_lr (the path
    PyTorch documents for resuming) steps on exactly like torch's."""
    def run(lib):
        make = RESUMABLE[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optimizer = make_optimizer(lib)
            make(lib.optim.lr_scheduler, optimizer, -1)
            scheduler = make(lib.optim.lr_scheduler, optimizer, 4)
            record = [snapshot(scheduler, optimizer)]
            for _ in range(8):
                optimizer.step()
                scheduler.step()
                record.append(snapshot(scheduler, optimizer))
        return record
    assert run(ember) == run(torch)


def test_lambda_state_dict_keeps_callable_objects_only(torch):
    class Factor:
        def __init__(self):
            self.rate = 0.9

        def __call__(self, epoch):
            return self.rate ** epoch

    def build(lib, fn):
        return lib.optim.lr_scheduler.LambdaLR(make_optimizer(lib), [fn, lambda e: 1.0, fn])
    state = build(ember, Factor()).state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.9}, None, {"rate": 0.9}]
    assert plain(state) == plain(build(torch, Factor()).state_dict())
    fn = Factor()
    restored = build(ember, fn)
    state["lr_lambdas"] = [{"rate": 0.5}, None, None]
    restored.load_state_dict(state)
    assert fn.rate == 0.5 and "lr_lambdas" in state


def test_cyclic_state_dict_drops_the_bound_scale_function(torch):
    for lib in (ember, torch):
        fn = ScaleByHalf()
        scheduler = lib.optim.lr_scheduler.CyclicLR(make_optimizer(lib), 0.01, 0.1,
                                                    mode="exp_range", scale_fn=fn)
        state = scheduler.state_dict()
        assert "_scale_fn_ref" not in state and state["_scale_fn_custom"] == {"base": 0.5}
        state["_scale_fn_custom"] = {"base": 0.25}
        scheduler.load_state_dict(state)
        assert fn.base == 0.25 and scheduler.scale_fn(2) == 0.0625


# ---------------------------------------------------------------- warnings

def _warnings_of(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [(w.category, str(w.message)) for w in caught]


def test_scheduler_step_before_optimizer_step_warns_like_torch(torch):
    def run(lib):
        optimizer = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, 2)
        first = _warnings_of(scheduler.step)
        optimizer.step()
        return first, _warnings_of(scheduler.step)
    first, later = run(ember)
    assert (first, later) == run(torch)
    assert len(first) == 1 and later == []
    assert first[0][1].startswith("Detected call of `lr_scheduler.step()` before "
                                  "`optimizer.step()`.")


def test_order_warning_points_at_the_callers_line():
    optimizer = make_optimizer(ember)
    scheduler = ember.optim.lr_scheduler.ExponentialLR(optimizer, 0.9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scheduler.step()
    assert caught[0].filename == __file__


def test_overridden_optimizer_step_warns_like_torch(torch):
    def run(lib):
        optimizer = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, 2)
        optimizer.step = lambda closure=None: None
        return _warnings_of(scheduler.step)
    assert run(ember) == run(torch) and "has been overridden" in run(ember)[0][1]


def test_two_schedulers_patch_the_optimizer_once(torch):
    optimizer = make_optimizer(ember)
    ember.optim.lr_scheduler.StepLR(optimizer, 2)
    step = optimizer.step
    ember.optim.lr_scheduler.ExponentialLR(optimizer, 0.9)
    assert optimizer.step is step and step._wrapped_by_lr_sched


def test_get_lr_outside_step_warns_like_torch(torch):
    def run(lib):
        scheduler = lib.optim.lr_scheduler.StepLR(make_optimizer(lib), 2)
        return _warnings_of(scheduler.get_lr)
    got = run(ember)
    assert got == run(torch) and got == [
        (UserWarning, "To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.")]


CLOSED_FORMS = {
    "StepLR": lambda L, o: L.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [2, 5, 5]),
    "ConstantLR": lambda L, o: L.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda L, o: L.LinearLR(o, 0.3, 0.8, 6),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.9),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, 6, 2.0),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, 5, 0.01),
    "LambdaLR": lambda L, o: L.LambdaLR(o, lambda e: 1 / (e + 1)),   # no closed form: get_lr
}


@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_deprecated_step_with_epoch_uses_the_closed_form(torch, name):
    def run(lib):
        optimizer = make_optimizer(lib)
        scheduler = CLOSED_FORMS[name](lib.optim.lr_scheduler, optimizer)
        optimizer.step()
        record = []
        for epoch in (5, 2, 9, 3):
            caught = _warnings_of(lambda: scheduler.step(epoch))
            record.append((caught, snapshot(scheduler, optimizer), scheduler.last_epoch))
        return record
    got = run(ember)
    assert got == run(torch)
    assert got[0][0][0][1].startswith("The epoch parameter in `scheduler.step()` was not "
                                      "necessary and is being deprecated")


def test_warm_restarts_take_fractional_and_jumping_epochs_without_warning(torch):
    def run(lib):
        optimizer = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, 2, 3, 0.001)
        record = []
        for epoch in (0.5, 1.25, 2.0, 3.75, 7.5, 8, 30, 1):
            caught = _warnings_of(lambda: scheduler.step(epoch))
            record.append((caught, snapshot(scheduler, optimizer), scheduler.last_epoch,
                           scheduler.T_cur, scheduler.T_i))
        return record
    got = run(ember)
    assert got == run(torch) and all(entry[0] == [] for entry in got)


# ---------------------------------------------------------------- ReduceLROnPlateau

METRICS = [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.49, 0.5, 0.5,
           0.5, 0.5, 0.5, 0.2, 0.3]

PLATEAU_OPTIONS = [
    {"patience": 2},
    {"mode": "max", "threshold_mode": "abs", "threshold": 0.05, "cooldown": 2, "factor": 0.5,
     "patience": 1},
    {"mode": "max", "threshold": 0.1, "patience": 0},
    {"threshold_mode": "abs", "threshold": 0.02, "patience": 1, "cooldown": 1},
    {"min_lr": [0.05, 0.001, 0.2], "factor": 0.3, "patience": 0},
    {"min_lr": 0.004, "factor": 0.5, "patience": 0},
    {"eps": 0.01, "factor": 0.5, "patience": 0},
]


def _plateau_run(lib, options, metric_type=float, kind="sgd"):
    optimizer = make_optimizer(lib, kind)
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)
    record = [snapshot(scheduler, optimizer)]
    for metric in METRICS:
        optimizer.step()
        scheduler.step(metric_type(metric) if metric_type is float else lib.tensor(metric))
        record.append((snapshot(scheduler, optimizer), scheduler.best, scheduler.num_bad_epochs,
                       scheduler.cooldown_counter, scheduler.last_epoch))
    return record, scheduler


@pytest.mark.parametrize("options", PLATEAU_OPTIONS, ids=str)
def test_reduce_lr_on_plateau_matches_torch(torch, options):
    got, scheduler = _plateau_run(ember, options)
    want, torch_scheduler = _plateau_run(torch, options)
    assert got == want
    assert got[-1][0][0] != got[0][0][0]   # the lr really was reduced
    assert list(scheduler.state_dict()) == list(torch_scheduler.state_dict())
    assert plain(scheduler.state_dict()) == plain(torch_scheduler.state_dict())


def test_reduce_lr_on_plateau_fills_tensor_lrs(torch):
    options = {"patience": 1, "factor": 0.5}
    got = _plateau_run(ember, options, kind="tensor-lr")[0]
    assert got == _plateau_run(torch, options, kind="tensor-lr")[0]
    assert got[-1][0][0] != got[0][0][0]


def test_reduce_lr_on_plateau_takes_tensor_metrics(torch):
    assert _plateau_run(ember, {"patience": 1}, "tensor")[0] == \
        _plateau_run(torch, {"patience": 1}, "tensor")[0]


def test_reduce_lr_on_plateau_state_dict_round_trip(torch):
    options = {"mode": "max", "threshold_mode": "abs", "patience": 1, "cooldown": 1}
    want = _plateau_run(torch, options)[0][-1]
    optimizer = make_optimizer(ember)
    scheduler = ember.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)
    for metric in METRICS[:9]:
        scheduler.step(metric)
    state = pickle.loads(pickle.dumps(scheduler.state_dict()))
    optimizer_state = copy.deepcopy(optimizer.state_dict())
    optimizer = make_optimizer(ember)
    scheduler = ember.optim.lr_scheduler.ReduceLROnPlateau(optimizer)   # defaults: min, rel
    optimizer.load_state_dict(optimizer_state)
    scheduler.load_state_dict(state)
    assert scheduler.mode_worse == -float("inf")
    for metric in METRICS[9:]:
        scheduler.step(metric)
    assert (snapshot(scheduler, optimizer), scheduler.best, scheduler.num_bad_epochs,
            scheduler.cooldown_counter, scheduler.last_epoch) == want


def test_reduce_lr_on_plateau_epoch_argument_warns(torch):
    def run(lib):
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib))
        return _warnings_of(lambda: scheduler.step(1.0, 5)), scheduler.last_epoch
    assert run(ember) == run(torch)


def test_reduce_lr_on_plateau_after_a_new_param_group(torch):
    def run(lib, min_lr):
        optimizer = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0,
                                                             min_lr=min_lr)
        optimizer.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 0.2})
        scheduler.step(1.0)
        try:
            scheduler.step(2.0)
        except RuntimeError as error:
            return str(error)
        return snapshot(scheduler, optimizer), scheduler.min_lrs
    for min_lr in (0.001, [0.0, 0.0, 0.0]):
        assert run(ember, min_lr) == run(torch, min_lr)
    assert "differs from when `ReduceLROnPlateau` was initialized (3)" in run(ember, [0] * 3)


# ---------------------------------------------------------------- other behaviour

def test_legacy_alias_and_custom_subclass(torch):
    L = ember.optim.lr_scheduler
    assert issubclass(L._LRScheduler, L.LRScheduler) and L._LRScheduler.__name__ == "_LRScheduler"
    assert sorted(L.__all__) == sorted(torch.optim.lr_scheduler.__all__)

    def run(lib):
        class Warmup(lib.optim.lr_scheduler._LRScheduler):
            def __init__(self, optimizer, warmup, last_epoch=-1):
                self.warmup = warmup
                super().__init__(optimizer, last_epoch)

            def get_lr(self):
                return [base * min(1.0, (self.last_epoch + 1) / self.warmup)
                        for base in self.base_lrs]
        return trajectory(lib, lambda L, o: Warmup(o, 4), 6)
    assert run(ember) == run(torch)


def test_base_get_lr_is_abstract(torch):
    for lib in (ember, torch):
        with pytest.raises(NotImplementedError):
            lib.optim.lr_scheduler.LRScheduler(make_optimizer(lib))


def test_initial_lr_is_recorded_once():
    optimizer = make_optimizer(ember)
    ember.optim.lr_scheduler.StepLR(optimizer, 1, 0.5)
    optimizer.step()
    optimizer.param_groups[0]["lr"] = 0.7
    scheduler = ember.optim.lr_scheduler.ExponentialLR(optimizer, 0.5)
    assert scheduler.base_lrs == list(LRS)
    assert [g["initial_lr"] for g in optimizer.param_groups] == list(LRS)


# ---------------------------------------------------------------- errors, as torch words them

def _other_optimizer(lib, o):
    return lib.optim.lr_scheduler.StepLR(make_optimizer(lib), 2)


ERRORS = {
    "not-an-optimizer": lambda L, o, lib: L.StepLR(object(), 3),
    "plateau-not-an-optimizer": lambda L, o, lib: L.ReduceLROnPlateau([1]),
    "onecycle-not-an-optimizer": lambda L, o, lib: L.OneCycleLR(None, 0.1, 10),
    "missing-initial_lr": lambda L, o, lib: L.StepLR(o, 3, last_epoch=4),
    "lambda-count": lambda L, o, lib: L.LambdaLR(o, [lambda e: 1.0]),
    "multiplicative-count": lambda L, o, lib: L.MultiplicativeLR(o, [lambda e: 1.0] * 4),
    "multiplicative-not-callable": lambda L, o, lib: L.MultiplicativeLR(o, 0.9),
    "constant-factor": lambda L, o, lib: L.ConstantLR(o, factor=1.5),
    "linear-start": lambda L, o, lib: L.LinearLR(o, start_factor=0),
    "linear-end": lambda L, o, lib: L.LinearLR(o, end_factor=1.5),
    "sequential-empty": lambda L, o, lib: L.SequentialLR(o, [], []),
    "sequential-milestones": lambda L, o, lib: L.SequentialLR(
        o, [L.StepLR(o, 2), L.ExponentialLR(o, 0.9)], [1, 2]),
    "sequential-plateau": lambda L, o, lib: L.SequentialLR(
        o, [L.StepLR(o, 2), L.ReduceLROnPlateau(o)], [1]),
    "sequential-no-optimizer": lambda L, o, lib: L.SequentialLR(o, [L.StepLR(o, 2), 3], [1]),
    "sequential-other-optimizer": lambda L, o, lib: L.SequentialLR(
        o, [L.StepLR(o, 2), _other_optimizer(lib, o)], [1]),
    "chained-empty": lambda L, o, lib: L.ChainedScheduler([]),
    "chained-plateau": lambda L, o, lib: L.ChainedScheduler([L.ReduceLROnPlateau(o)]),
    "chained-other-optimizer": lambda L, o, lib: L.ChainedScheduler(
        [L.StepLR(o, 2), _other_optimizer(lib, o)]),
    "cyclic-mode": lambda L, o, lib: L.CyclicLR(o, 0.01, 0.1, mode="sawtooth"),
    "cyclic-lr-count": lambda L, o, lib: L.CyclicLR(o, [0.01, 0.02], 0.1),
    "cyclic-no-momentum": lambda L, o, lib: L.CyclicLR(
        _lr_only_optimizer(lib, [lib.nn.Parameter(lib.ones(1))]), 0.01, 0.1),
    "onecycle-no-steps": lambda L, o, lib: L.OneCycleLR(o, 0.1, epochs=3),
    "onecycle-total-zero": lambda L, o, lib: L.OneCycleLR(o, 0.1, total_steps=0),
    "onecycle-total-float": lambda L, o, lib: L.OneCycleLR(o, 0.1, total_steps=10.0),
    "onecycle-epochs": lambda L, o, lib: L.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    "onecycle-steps-per-epoch": lambda L, o, lib: L.OneCycleLR(
        o, 0.1, epochs=2, steps_per_epoch=-1),
    "onecycle-pct-range": lambda L, o, lib: L.OneCycleLR(o, 0.1, 10, pct_start=1.5),
    "onecycle-pct-int": lambda L, o, lib: L.OneCycleLR(o, 0.1, 10, pct_start=1),
    "onecycle-anneal": lambda L, o, lib: L.OneCycleLR(o, 0.1, 10, anneal_strategy="exp"),
    "onecycle-max-lr-count": lambda L, o, lib: L.OneCycleLR(o, [0.1], 10),
    "onecycle-momentum-count": lambda L, o, lib: L.OneCycleLR(o, 0.1, 10,
                                                              base_momentum=[0.8, 0.8]),
    "onecycle-no-momentum": lambda L, o, lib: L.OneCycleLR(
        _lr_only_optimizer(lib, [lib.nn.Parameter(lib.ones(1))]), 0.1, 10),
    "warm-restarts-T_0": lambda L, o, lib: L.CosineAnnealingWarmRestarts(o, 0),
    "warm-restarts-T_0-float": lambda L, o, lib: L.CosineAnnealingWarmRestarts(o, 2.0),
    "warm-restarts-T_mult": lambda L, o, lib: L.CosineAnnealingWarmRestarts(o, 2, 0),
    "warm-restarts-eta_min": lambda L, o, lib: L.CosineAnnealingWarmRestarts(o, 2, 1, "0"),
    "warm-restarts-negative-epoch": lambda L, o, lib: L.CosineAnnealingWarmRestarts(
        o, 2).step(-1),
    "plateau-factor": lambda L, o, lib: L.ReduceLROnPlateau(o, factor=1.0),
    "plateau-mode": lambda L, o, lib: L.ReduceLROnPlateau(o, mode="median"),
    "plateau-threshold-mode": lambda L, o, lib: L.ReduceLROnPlateau(o, threshold_mode="pct"),
    "plateau-min-lr-count": lambda L, o, lib: L.ReduceLROnPlateau(o, min_lr=[0.0]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch, name):
    def error(lib):
        optimizer = make_optimizer(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                ERRORS[name](lib.optim.lr_scheduler, optimizer, lib)
        return type(info.value), info.value.args
    assert error(ember) == error(torch)


def test_onecycle_stepping_past_the_end(torch):
    def run(lib):
        optimizer = make_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=3)
        for _ in range(3):
            optimizer.step()
            scheduler.step()
        with pytest.raises(ValueError) as info:
            scheduler.step()
        return str(info.value)
    assert run(ember) == run(torch) == ("Tried to step 4 times. The specified number of "
                                        "total steps is 3")


def test_missing_initial_lr_names_the_group(torch):
    def run(lib):
        optimizer = make_optimizer(lib)
        optimizer.param_groups[0]["initial_lr"] = 0.1
        with pytest.raises(KeyError) as info:
            lib.optim.lr_scheduler.ExponentialLR(optimizer, 0.9, last_epoch=3)
        return info.value.args
    got = run(ember)
    assert got == run(torch) and got[0].startswith(
        "param 'initial_lr' is not specified in param_groups[1] when resuming")
