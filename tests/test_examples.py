"""The digits demo and the scripts in examples/ run, learn, and are reproducible."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest

import ember

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

from ember.examples import digits  # noqa: E402 - only once the demo's extras are known present

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load_example(name):
    """Import examples/<name>.py as a module (the folder is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_digits_writes_plot_and_a_checkpoint_that_reloads(tmp_path):
    result = digits.main(["--epochs", "1", "--out", str(tmp_path)])
    plot, checkpoint = pathlib.Path(result["plot"]), pathlib.Path(result["checkpoint"])
    assert plot.parent == checkpoint.parent == tmp_path
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    model = result["model"].eval()
    reloaded = digits.make_model()
    reloaded.load_state_dict(ember.load(checkpoint))
    reloaded.eval()
    images = digits.load_digits_dataset().tensors[0][:64]
    with ember.no_grad():
        assert ember.equal(reloaded(images), model(images))
    # the BatchNorm running statistics travel too, not just the parameters
    assert set(ember.load(checkpoint)) == set(model.state_dict())


def test_digits_default_settings_reach_97_percent(tmp_path, capsys):
    result = digits.main(["--out", str(tmp_path)])
    assert result["test_accuracy"] >= 0.97
    assert len(result["history"]["test_acc"]) == 10
    printed = capsys.readouterr().out
    assert f"test accuracy: {result['test_accuracy']:.4f}" in printed
    assert "elapsed:" in printed


def test_digits_same_seed_same_run_other_seed_other_run(tmp_path):
    first = digits.main(["--epochs", "1", "--out", str(tmp_path / "a")])["history"]
    second = digits.main(["--epochs", "1", "--out", str(tmp_path / "b")])["history"]
    other = digits.main(["--epochs", "1", "--seed", "1", "--out", str(tmp_path / "c")])["history"]
    assert first == second
    assert other["train_loss"] != first["train_loss"]


def test_digits_command_line():
    done = subprocess.run([sys.executable, "-m", "ember.examples.digits", "--help"],
                          capture_output=True, text=True, check=True)
    for option in ("--epochs", "--device", "--seed", "--out", "--batch-size", "--lr"):
        assert option in done.stdout


def test_digits_refuses_cuda_when_absent(tmp_path):
    if ember.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(SystemExit, match="CUDA is not available"):
        digits.main(["--device", "cuda", "--out", str(tmp_path)])


def test_tensor_tutorial(capsys):
    by_hand, with_nn = load_example("tensor_tutorial").main(steps=100)
    for w, b in (by_hand, with_nn):
        assert w == pytest.approx(3.0, abs=0.05) and b == pytest.approx(-1.0, abs=0.05)
    printed = capsys.readouterr().out
    assert "dy/dx = 8.0" in printed and "a[0, 0] = 100.0" in printed


def test_softmax_regression():
    assert load_example("softmax_regression").main(steps=60) > 0.85


def test_mlp_dropout():
    assert load_example("mlp_dropout").main(epochs=2) > 0.85


def test_lenet():
    assert load_example("lenet").main(epochs=1, limit=400) > 0.3


def test_custom_function():
    gradients_ok, loss = load_example("custom_function").main(steps=200)
    assert gradients_ok is True
    assert loss < 0.01


def test_custom_function_backward_is_used():
    """A wrong hand-written backward must be caught by the gradcheck the example relies on."""
    module = load_example("custom_function")

    class WrongSwish(module.Swish):
        @staticmethod
        def backward(ctx, grad_output):
            x, s = ctx.saved_tensors
            return grad_output * s  # forgets the x * s * (1 - s) term

    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert module.Swish.apply(x).grad_fn is not None
    with pytest.raises(ember.autograd.GradcheckError):
        ember.autograd.gradcheck(WrongSwish.apply, (x,))


def test_digits_checkpoint_loads_in_pytorch(torch, tmp_path):
    """The checkpoint is PyTorch's format: torch.load reads it into the same network in torch."""
    result = digits.main(["--epochs", "1", "--out", str(tmp_path)])
    nn = torch.nn
    twin = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(128, 10),
    )
    twin.load_state_dict(torch.load(result["checkpoint"]))
    twin.eval()
    images = digits.load_digits_dataset().tensors[0][:64]
    with ember.no_grad():
        expected = result["model"].eval()(images).numpy()
    with torch.no_grad():
        got = twin(torch.from_numpy(images.numpy())).numpy()
    assert abs(got - expected).max() < 1e-4
