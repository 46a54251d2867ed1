"""Shared fixtures: the torch oracle, hypothesis settings and strategies."""
import os

import numpy as np
import pytest
from hypothesis import settings, strategies as st

import ember

settings.register_profile("ember", deadline=None, max_examples=40, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ember"))


@pytest.fixture
def torch():
    """The PyTorch oracle; tests that use it skip where torch is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    """Each device ember can run on here; cuda skips without a GPU."""
    if request.param == "cuda" and not ember.cuda.is_available():
        pytest.skip("no CUDA device")
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(scope="module")
def torch_on_one_thread():
    """PyTorch limited to one thread for a module of tiny layers.

    On a busy machine its thread pool spins instead of computing; tests that compare
    small recurrent layers use this (`pytestmark = pytest.mark.usefixtures(...)`).
    """
    try:
        import torch  # noqa: PLC0415 - optional: tests in the module may run without it
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ---------------------------------------------------------------- hypothesis strategies
def shapes(min_dims=0, max_dims=4, min_side=0, max_side=4):
    """Tensor shapes, including 0-dim and empty ones."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


@st.composite
def broadcastable_pairs(draw, max_dims=4, max_side=4):
    """Two shapes that broadcast together (each dim equal, or one of them 1, or missing)."""
    result = draw(shapes(0, max_dims, 1, max_side))
    a, b = [], []
    for size in result:
        choice = draw(st.integers(0, 2))
        a.append(1 if choice == 1 else size)
        b.append(1 if choice == 2 else size)
    drop_a = draw(st.integers(0, len(a)))
    drop_b = draw(st.integers(0, len(b)))
    return tuple(a[drop_a:]), tuple(b[drop_b:])
