"""A fresh install: ember imports and trains with NumPy alone, and optional packages stay optional.

Each check runs in a subprocess whose import system refuses the optional packages (a
`sys.meta_path` finder raising ImportError), as on a machine where they were never
installed; `.ci/run` proves the same with real fresh virtual environments.
"""
import hashlib
import os
import subprocess
import sys
import textwrap

import pytest

import ember

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every package ember may touch but must not need (ml_dtypes is core, yet optional at import).
OPTIONAL = ("ml_dtypes", "scipy", "threadpoolctl", "safetensors", "tqdm", "matplotlib",
            "sklearn", "cupy", "mpi4py", "numba", "llvmlite", "torch")

_BLOCKER = """
import sys

class _Blocked:
    '''Refuse these top-level packages, as if they were not installed.'''
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)

sys.meta_path.insert(0, _Blocked())
"""


def run_python(code, blocked=(), args=()):
    """Run `code` in a fresh interpreter (this checkout's ember) with `blocked` missing."""
    prelude = f"BLOCKED = {tuple(blocked)!r}\n" + _BLOCKER
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def assert_ran(result):
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def without_optionals():
    """One interpreter with every optional package missing: import, compute, train, and
    ask for what needs a missing package; its printed lines, by label."""
    out = assert_ran(run_python("""
        import hashlib
        import io
        import ember
        import numpy as np
        from ember import nn

        x = ember.arange(6.0).reshape(2, 3)
        assert (x @ x.T).tolist() == [[5.0, 14.0], [14.0, 50.0]]
        assert x.sum(dim=0).tolist() == [3.0, 5.0, 7.0] and x[1, ::2].tolist() == [3.0, 5.0]
        assert repr(x.to(ember.float16)) == (
            "tensor([[0., 1., 2.],\\n        [3., 4., 5.]], dtype=ember.float16)")
        assert not ember.cuda.is_available()

        ember.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        optimizer = ember.optim.SGD(model.parameters(), lr=0.05)
        inputs, targets = ember.randn(32, 3), ember.randn(32, 1)
        losses = []
        for _ in range(20):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print("trained:", losses[-1] < losses[0], losses[0], losses[-1])

        buffer = io.BytesIO()
        ember.save(model.state_dict(), buffer)
        buffer.seek(0)
        model.load_state_dict(ember.load(buffer))
        from ember.utils import safetensors  # ember's own reader and writer
        print("safetensors:", safetensors.load(safetensors.save({"w": x}))["w"].tolist())
        third = ember.tensor([1 / 3], dtype=ember.float64)  # bfloat16 checks must not catch it
        print("float64:", third.numpy()[0] == 1 / 3, third.tolist() == [1 / 3],
              np.from_dlpack(third)[0] == 1 / 3)

        # bfloat16 itself still prints, promotes and has finfo; making its arrays cannot work.
        print("bfloat16:", ember.bfloat16, ember.promote_types(ember.bfloat16, ember.float16),
              ember.finfo(ember.bfloat16).eps)
        attempts = {
            "tensor": lambda: ember.tensor([1.0], dtype=ember.bfloat16),
            "zeros": lambda: ember.zeros(2, dtype=ember.bfloat16),
            "to": lambda: x.to(ember.bfloat16),
            "method": lambda: x.bfloat16(),
            "module": lambda: ember.nn.Linear(2, 2).bfloat16(),
            "randn": lambda: ember.randn(2, dtype=ember.bfloat16),
        }
        for name, attempt in attempts.items():
            try:
                attempt()
            except ModuleNotFoundError as error:
                print(f"bfloat16 {name}:", error.name, error)
            else:
                print(f"bfloat16 {name}: no error")
        print("unchanged:", x.dtype, x.tolist()[0])
        try:
            ember.zeros(1, device="cuda")
        except AssertionError as error:
            print("cuda:", error, *error.__notes__)
        ember.manual_seed(5)   # large draws: the compiled kernels' size, through NumPy
        big = ember.randn(1 << 16 | 7), ember.rand(1 << 16), ember.randint(9, (1 << 16,))
        print("large draws:", [hashlib.sha256(t.numpy().tobytes()).hexdigest() for t in big])
        print("loaded:", sorted(name for name in BLOCKED if name in sys.modules))
        """, blocked=OPTIONAL))
    return dict(line.split(": ", 1) for line in out.splitlines())


def test_ember_imports_and_trains_with_every_optional_package_missing(without_optionals):
    assert without_optionals["trained"].startswith("True ")
    assert without_optionals["safetensors"] == "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]"
    assert without_optionals["float64"] == "True True True"
    assert without_optionals["loaded"] == "[]"


def test_large_draws_without_numba_are_the_compiled_kernels_draws(without_optionals):
    """The subprocess drew through NumPy alone; here numba (when installed) compiles them."""
    ember.manual_seed(5)
    big = ember.randn(1 << 16 | 7), ember.rand(1 << 16), ember.randint(9, (1 << 16,))
    digests = [hashlib.sha256(t.numpy().tobytes()).hexdigest() for t in big]
    assert without_optionals["large draws"] == repr(digests)


def test_bfloat16_without_ml_dtypes_says_what_to_install(without_optionals):
    assert without_optionals["bfloat16"] == "ember.bfloat16 ember.float32 0.0078125"
    for name in ("tensor", "zeros", "to", "method", "module", "randn"):
        assert without_optionals[f"bfloat16 {name}"] == (
            "ml_dtypes ember.bfloat16 needs the ml_dtypes package (a core dependency of ember "
            "that is not installed): pip install ml_dtypes"), name
    assert without_optionals["unchanged"] == "ember.float32 [0.0, 1.0, 2.0]"


def test_cuda_without_cupy_names_its_extra(without_optionals):
    assert without_optionals["cuda"] == (
        "Torch not compiled with CUDA enabled ember: CuPy with a CUDA device is needed for "
        "'cuda' tensors: pip install 'ember-tensor[cuda]'")


def test_import_ember_loads_no_optional_package():
    # Nothing blocked, yet nothing optional loads until used; ml_dtypes (core, but slower to
    # import than the rest of ember) loads with the first bfloat16 tensor.
    out = assert_ran(run_python("""
        import ember
        from ember import nn, optim
        from ember.utils.data import DataLoader, TensorDataset
        loss = nn.Linear(2, 1)(ember.ones(3, 2)).sum()
        loss.backward()
        print("loaded:", sorted(name for name in OPTIONAL if name in sys.modules))
        half = ember.ones(2, dtype=ember.bfloat16) / 3
        print("bfloat16:", half, sorted(name for name in OPTIONAL if name in sys.modules))
        """.replace("OPTIONAL", repr(OPTIONAL))))
    assert out.splitlines() == [
        "loaded: []", "bfloat16: tensor([0.3340, 0.3340], dtype=ember.bfloat16) ['ml_dtypes']"]


def test_demo_names_its_extra_when_one_is_missing():
    result = run_python("""
        import runpy
        sys.argv = ["digits", "--epochs", "1"]
        runpy.run_module("ember.examples.digits", run_name="__main__")
        """, blocked=("sklearn", "matplotlib"))
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        "the digits demo needs scikit-learn, matplotlib: pip install 'ember-tensor[demo]' "
        "(or pip install -e '.[demo]' in a checkout)")


def test_pyproject_declares_the_core_and_every_named_extra():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as file:
        project = tomllib.load(file)["project"]
    assert project["dependencies"] == ["numpy>=2.1", "ml_dtypes>=0.4", "scipy>=1.15"]
    extras = project["optional-dependencies"]
    assert {"demo", "cuda", "distributed", "test"} <= set(extras)
    assert {"scikit-learn", "tqdm", "matplotlib"} <= set(extras["demo"]) <= set(extras["test"])
    assert "torch==2.13.0" in extras["test"]
