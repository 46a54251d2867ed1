"""ember.amp.GradScaler and autocast against torch.amp on the CPU: scaling, unscaling with
inf/NaN checks, skipped steps, growth and backoff, state dicts, argument errors."""
import numpy as np
import pytest

import ember
from oracle import assert_same
from test_surface_oracle import assert_same_outcome

WEIGHT = np.array([[0.5, -0.25, 1.0], [0.75, 0.125, -0.5]], np.float32)
BIAS = np.array([0.1, -0.2], np.float32)


def _train(lib, enabled=True, poison=(2, 5), clip=False, **scaler_args):
    """A few SGD steps under a CPU GradScaler; gradients poisoned (inf, nan) at some steps."""
    layer = lib.nn.Linear(3, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(WEIGHT))
        layer.bias.copy_(lib.tensor(BIAS))
    optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", enabled=enabled, **scaler_args)
    x = lib.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]])
    history = []
    for step in range(7):
        optimizer.zero_grad()
        loss = layer(x).pow(2).mean()
        scaled = scaler.scale(loss)
        scaled.backward()
        if step in poison:
            layer.weight.grad[0, 0] = float("inf") if step == poison[0] else float("nan")
        if clip:
            scaler.unscale_(optimizer)
            lib.nn.utils.clip_grad_norm_(layer.parameters(), 0.5)
        scaler.step(optimizer)
        scaler.update()
        history.append((scaled.detach(), layer.weight.detach().clone(), scaler.get_scale(),
                        scaler.state_dict(), scaler._get_growth_tracker()))
    return history


@pytest.mark.parametrize("settings", [
    dict(), dict(growth_interval=2), dict(growth_interval=1, growth_factor=3.0,
                                          backoff_factor=0.25, init_scale=8.0),
    dict(enabled=False), dict(clip=True, growth_interval=2), dict(poison=())])
def test_grad_scaler_training_matches_torch(torch, settings):
    got, expected = _train(ember, **settings), _train(torch, **settings)
    for (g_loss, g_w, g_scale, g_state, g_tracker), (e_loss, e_w, e_scale, e_state, e_tracker) \
            in zip(got, expected):
        assert_same([g_loss, g_w], [e_loss, e_w], atol=0, rtol=1e-6)
        assert (g_scale, g_state, g_tracker) == (e_scale, e_state, e_tracker)


SCALER_CALLS = [
    "lib.amp.GradScaler('cpu', growth_factor=1.0)", "lib.amp.GradScaler('cpu', backoff_factor=1.0)",
    "lib.amp.GradScaler('cpu').state_dict()", "lib.amp.GradScaler('cpu').scale(lib.ones(2))",
    "lib.amp.GradScaler('cpu').scale([lib.ones(2), (lib.ones(1),)])",
    "lib.amp.GradScaler('cpu').scale(3)", "lib.amp.GradScaler('cpu').scale([3])",
    "lib.amp.GradScaler('cpu').update()", "lib.amp.GradScaler('cpu').get_scale()",
    "lib.amp.GradScaler('cpu').load_state_dict({})", "lib.amp.GradScaler('cpu').is_enabled()",
    "lib.amp.GradScaler().is_enabled()", "lib.amp.GradScaler('cpu', enabled=False).scale(3)",
    "lib.amp.GradScaler('cpu', enabled=False).get_scale()",
    "lib.cuda.amp.GradScaler().state_dict()",
    "lib.amp.GradScaler('cpu').step(lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1))",
    "lib.amp.GradScaler('cpu').unscale_(lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1))",
]


@pytest.mark.parametrize("call", SCALER_CALLS)
def test_grad_scaler_call_matches_torch(torch, call):
    assert_same_outcome(torch, lambda lib: eval(call))


def test_unscale_twice_and_after_step_fail_as_in_torch(torch):
    def run(lib, second):
        p = lib.nn.Parameter(lib.ones(2))
        optimizer = lib.optim.SGD([p], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(p.sum()).backward()
        scaler.unscale_(optimizer)
        if second == "step":
            scaler.step(optimizer)
            scaler.step(optimizer)
        elif second == "after":
            scaler.step(optimizer)
            scaler.unscale_(optimizer)
        else:
            scaler.unscale_(optimizer)
    for second in ("unscale", "step", "after"):
        assert_same_outcome(torch, lambda lib: run(lib, second))


def test_load_state_dict_round_trip(torch):
    def run(lib):
        scaler = lib.amp.GradScaler("cpu", init_scale=4.0)
        scaler.load_state_dict({"scale": 32.0, "growth_factor": 4.0, "backoff_factor": 0.125,
                                "growth_interval": 3, "_growth_tracker": 2})
        return scaler.state_dict(), scaler.scale(lib.ones(1)).item()
    assert run(ember) == run(torch)


AUTOCAST_CALLS = [
    "lib.autocast('cpu', dtype=lib.float32)._enabled", "lib.autocast('foo')", "lib.autocast(0)",
    "lib.autocast('cuda')._enabled", "lib.autocast('cpu')(3)", "lib.autocast('cpu').fast_dtype",
    "lib.amp.is_autocast_available('cpu')", "lib.amp.is_autocast_available('meta')",
    "lib.get_autocast_dtype('cpu')", "lib.get_autocast_dtype('cuda')",
    "lib.is_autocast_enabled()", "lib.is_autocast_enabled('cpu')",
    "lib.amp.autocast('cpu', dtype=lib.float16).fast_dtype",
    "lib.cuda.amp.autocast()._enabled",
]


@pytest.mark.parametrize("call", AUTOCAST_CALLS)
def test_autocast_call_matches_torch(torch, call):
    assert_same_outcome(torch, lambda lib: eval(call))


def test_autocast_state_inside_and_outside_and_as_decorator(torch):
    def run(lib):
        seen = []
        with lib.autocast("cpu", dtype=lib.bfloat16):
            seen.append((lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")))
            with lib.autocast("cpu", enabled=False):
                seen.append(lib.is_autocast_enabled("cpu"))
            seen.append(lib.is_autocast_enabled("cpu"))
        seen.append(lib.is_autocast_enabled("cpu"))

        @lib.autocast("cpu", dtype=lib.float16)
        def inside():
            return lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")
        seen += [inside(), lib.get_autocast_dtype("cpu")]
        return str(seen)
    assert run(ember) == run(torch).replace("torch.", "ember.")


def test_disabled_scaler_passes_everything_through():
    p = ember.nn.Parameter(ember.ones(2))
    optimizer = ember.optim.SGD([p], lr=0.5)
    scaler = ember.amp.GradScaler("cpu", enabled=False)
    loss = p.sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    assert p.tolist() == [0.5, 0.5] and scaler.state_dict() == {}
