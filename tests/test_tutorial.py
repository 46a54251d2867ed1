"""A tensor tutorial written for PyTorch runs unchanged on ember and prints the same."""
import contextlib
import io
import pathlib

import pytest

import ember

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def run_tutorial(lib, name="tensor_tutorial.py"):
    script = SCRIPTS / name
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(script.read_text(), str(script), "exec"), {"torch": lib})
    return output.getvalue()


@pytest.mark.parametrize("name", ["tensor_tutorial.py", "builders_guide.py",
                                  "linear_regression_concise.py"])
def test_tutorial_prints_what_torch_prints(torch, name):
    import sys  # noqa: PLC0415 - the scripts do `from torch import nn`
    names = ("torch", "torch.nn", "torch.utils", "torch.utils.data")
    saved = {n: sys.modules.get(n) for n in names}
    sys.modules.update({"torch": ember, "torch.nn": ember.nn, "torch.utils": ember.utils,
                        "torch.utils.data": ember.utils.data})
    try:
        got = run_tutorial(ember, name)
    finally:
        sys.modules.update(saved)
    expected = run_tutorial(torch, name).replace("torch.", "ember.")
    assert got.splitlines() == expected.splitlines()


def test_hand_written_linear_regression_converges():
    ember.manual_seed(0)
    features = ember.linspace(0, 1, 100).reshape(-1, 1)
    labels = 2 * features + 1 + 0.01 * ember.randn_like(features)
    w = ember.zeros((1, 1), requires_grad=True)
    b = ember.zeros(1, requires_grad=True)
    for _ in range(500):
        loss = ((features @ w + b - labels) ** 2).mean()
        loss.backward()
        with ember.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    assert abs(w.item() - 2) < 0.05 and abs(b.item() - 1) < 0.05
    assert loss.item() < 1e-3
