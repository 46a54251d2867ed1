"""The elementwise thread pool (ember/_parallel.py) and Adam's flat moments (optim/_flat.py).

Splitting an elementwise ufunc or a copy over threads must not change a single bit, nor
the result's dtype or strides; reductions are never split. The pool is forced to three
threads here (an uneven split) whatever the machine has.
"""
import copy
import multiprocessing
import os

import numpy as np
import pytest

import ember
from ember import _parallel, _settings
from ember.optim import _flat

BIG = _parallel.THRESHOLD + 7   # odd, so the slabs are uneven


@pytest.fixture
def three_threads(monkeypatch):
    """Three threads, and the pool from 2**18 elements (the matrix cases' size) on."""
    monkeypatch.setattr(_parallel, "threads", lambda: 3)
    monkeypatch.setattr(_parallel, "THRESHOLD", 1 << 18)


@pytest.fixture
def counted(monkeypatch):
    """How many times the pool ran jobs in parallel."""
    calls = []
    original = _parallel._Batch
    monkeypatch.setattr(_parallel, "_Batch", lambda jobs: (calls.append(len(jobs)),
                                                          original(jobs))[1])
    return calls


def _operands(rng):
    """(ufunc, args) cases: odd sizes, non-contiguous, broadcast, numbers, int division."""
    a = rng.standard_normal(BIG).astype(np.float32)
    b = rng.standard_normal(BIG).astype(np.float32)
    m = rng.standard_normal((1033, 1031)).astype(np.float32)
    row = rng.standard_normal(1031).astype(np.float32)
    col = rng.standard_normal((1033, 1)).astype(np.float32)
    ints = rng.integers(-1000, 1000, BIG)
    wide = rng.standard_normal((3, 2 * BIG))
    return [(np.multiply, (a, b)), (np.add, (a, 2.5)), (np.subtract, (a, b)),
            (np.true_divide, (a, b)), (np.exp, (a,)), (np.tanh, (a,)),
            (np.multiply, (m, row)), (np.add, (col, m)), (np.exp, (m[:, ::2],)),
            (np.multiply, (m[::3][:344], m[1::3])),
            (np.true_divide, (ints, 7)), (np.add, (ints, ints)),
            (np.sqrt, (np.abs(wide[:, ::2]),)), (np.multiply, (np.broadcast_to(a[:1], (BIG,)), b))]


def test_chunked_equals_serial(rng, three_threads, counted):
    for ufunc, args in _operands(rng):
        expected = ufunc(*args)
        got = _parallel.call(ufunc, *args)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.strides == expected.strides
        np.testing.assert_array_equal(got, expected)
        assert np.array_equal(got.view(np.uint8), expected.view(np.uint8))  # nan bits too
    assert len(counted) == len(_operands(rng)) and min(counted) >= 3


def test_small_or_column_major_stays_serial(rng, three_threads, counted):
    a = rng.standard_normal(_parallel.THRESHOLD - 1).astype(np.float32)   # (2**18 here)
    np.testing.assert_array_equal(_parallel.call(np.exp, a), np.exp(a))
    m = rng.standard_normal((1031, 517)).astype(np.float32).T   # NumPy keeps F order
    got = _parallel.call(np.add, m, 1.0)
    assert got.strides == (m + 1.0).strides
    assert counted == []


def test_errors_reach_the_caller(three_threads):
    a = np.ones(BIG, dtype=np.float32)
    with pytest.raises(ValueError):
        _parallel.call(np.add, a, np.ones(BIG + 1, dtype=np.float32))

    def fail(index):
        if index == 2:
            raise KeyError(index)
    with pytest.raises(KeyError):
        _parallel.run([(fail, (i,), {}) for i in range(3)])
    # the pool still works afterwards
    np.testing.assert_array_equal(_parallel.call(np.add, a, a), a + a)


def test_set_num_threads_one_is_serial(rng, counted, monkeypatch):
    monkeypatch.setattr(_parallel, "LOADED", float("inf"))   # however busy the machine
    before = ember.get_num_threads()
    a = ember.tensor(rng.standard_normal(BIG).astype(np.float32))
    try:
        ember.set_num_threads(1)
        serial = (a * a + 1).exp()
        assert counted == []
        ember.set_num_threads(3)
        parallel = (a * a + 1).exp()
        assert counted
    finally:
        ember.set_num_threads(before)
    assert np.array_equal(serial.numpy(), parallel.numpy())


def test_oversubscribed_machine_is_serial(rng, counted, monkeypatch):
    monkeypatch.setattr(_parallel, "LOADED", -1.0)
    monkeypatch.setattr(_settings, "get_num_threads", lambda: 3)
    assert _parallel.threads() == 1
    a = rng.standard_normal(BIG).astype(np.float32)
    np.testing.assert_array_equal(_parallel.call(np.exp, a), np.exp(a))
    assert counted == []


def test_ops_and_backward_match_serial(rng, three_threads, monkeypatch):
    """ember's elementwise ops and their gradients, pooled and serial, bit for bit."""
    data = [rng.standard_normal(BIG).astype(np.float32) * 0.1 for _ in range(3)]

    def run():
        a, b, c = (ember.tensor(x, requires_grad=True) for x in data)
        out = ((a * b + c) / (b - 3)).exp().sigmoid() * 0.5
        out = ember.sub(ember.add(out, a, alpha=0.3), c, alpha=1.7).tanh()
        out.sum().backward()
        return [out.detach().numpy()] + [t.grad.numpy() for t in (a, b, c)]

    pooled = run()
    monkeypatch.setattr(_parallel, "threads", lambda: 1)
    for x, y in zip(pooled, run()):
        assert np.array_equal(x, y)


def test_exact_ops_match_torch(torch, rng, three_threads):
    """Products, sums and quotients are correctly rounded in both libraries."""
    x = rng.standard_normal((700, 401)).astype(np.float32)
    y = rng.standard_normal(401).astype(np.float32)
    for op in ("mul", "add", "sub", "div"):
        got = getattr(ember, op)(ember.tensor(x), ember.tensor(y))
        want = getattr(torch, op)(torch.tensor(x), torch.tensor(y))
        assert got.stride() == want.stride()
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def _child(queue):
    a = np.arange(BIG, dtype=np.float32)
    got = _parallel.call(np.multiply, a, 0.5)
    queue.put((bool(np.array_equal(got, a * 0.5)), _parallel._pool["pid"] == os.getpid()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_pool_is_rebuilt_after_fork(three_threads):
    a = np.ones(BIG, dtype=np.float32)
    _parallel.call(np.add, a, a)   # the parent's workers exist before the fork
    assert _parallel._pool["workers"]
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    result = queue.get(timeout=60)
    child.join(60)
    assert result == (True, True)
    assert child.exitcode == 0


# ---------------------------------------------------------------- Adam's flat moments
SHAPES = [(300, 250), (7,), (130, 257), (1,), (40, 33)]   # blocks span several params


def _adam_run(name, kwargs, flat, steps=6, reload_at=None):
    rng = np.random.default_rng(0)
    params = [ember.nn.Parameter(ember.tensor(rng.standard_normal(s).astype(np.float32)))
              for s in SHAPES]
    opt = getattr(ember.optim, name)(params, **kwargs)
    if not flat:
        opt._flat_step = lambda index, group: False
    for i in range(steps):
        for p in params:
            p.grad = ember.tensor(rng.standard_normal(p.shape).astype(np.float32))
        if i == reload_at:
            opt.load_state_dict(copy.deepcopy(opt.state_dict()))   # fresh tensors
        opt.step()
    state = [{k: v.numpy().copy() for k, v in opt.state[p].items()} for p in params]
    return ([p.detach().numpy().copy() for p in params], state,
            [p._version for p in params],
            [[v._version for v in opt.state[p].values()] for p in params], opt)


@pytest.mark.parametrize("name,kwargs", [
    ("Adam", {}), ("AdamW", {}), ("Adam", dict(amsgrad=True, maximize=True)),
    ("Adam", dict(weight_decay=0.1, lr=0.01)), ("AdamW", dict(amsgrad=True, lr=0.1))])
def test_flat_adam_matches_per_parameter(name, kwargs, three_threads, monkeypatch):
    monkeypatch.setattr(_flat, "PARALLEL", 1)
    monkeypatch.setattr(_flat, "BLOCK", 4099)
    *flat, opt = _adam_run(name, kwargs, True)
    assert opt._flat_moments    # the flat path ran
    *plain, _ = _adam_run(name, kwargs, False)
    for got, want in zip(flat[0], plain[0]):
        assert np.array_equal(got, want)
    for got, want in zip(flat[1], plain[1]):
        assert got.keys() == want.keys()
        for key in got:
            assert np.array_equal(got[key], want[key]), key
    assert flat[2:] == plain[2:]


def test_flat_adam_falls_back_after_load_state_dict(three_threads, monkeypatch):
    monkeypatch.setattr(_flat, "BLOCK", 4099)
    calls = []
    original = _flat.step
    monkeypatch.setattr(_flat, "step", lambda *a: (calls.append(1), original(*a)))
    *flat, _ = _adam_run("Adam", {}, True, reload_at=3)
    assert len(calls) == 3   # steps 0-2 flat; the loaded state is per-parameter
    *plain, _ = _adam_run("Adam", {}, False, reload_at=3)
    for got, want in zip(flat[0], plain[0]):
        assert np.array_equal(got, want)


def test_flat_adam_matches_torch(torch, monkeypatch):
    """The same trajectory as torch's AdamW to rounding (1-2 ulp on ~4% of elements)."""
    monkeypatch.setattr(_flat, "BLOCK", 4099)
    rng = np.random.default_rng(1)
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(5)]
    results = []
    for lib in (ember, torch):
        params = [lib.nn.Parameter(lib.tensor(v)) for v in values]
        opt = lib.optim.AdamW(params, lr=0.01)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = lib.tensor(g)
            opt.step()
        if lib is ember:
            assert opt._flat_moments    # the flat path ran
        results.append([p.detach().numpy() for p in params])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=0, atol=5e-7)   # measured 2.4e-7


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_, np.complex64])
def test_copy_is_bit_for_bit_and_owns_its_memory(rng, three_threads, counted, dtype):
    """A large C-contiguous array is copied in slabs on the pool; NaN payloads and -0.0
    survive, and the copy shares no memory with the source."""
    source = (rng.standard_normal((BIG // 3, 3)) * 10).astype(dtype)
    flat = source.reshape(-1)
    if dtype in (np.float32, np.float64):
        flat[:4] = [np.nan, -0.0, np.inf, -np.inf]
        flat.view(np.uint32 if dtype == np.float32 else np.uint64)[4] |= 0x7F800001  # payload
    copied = _parallel.copy(source)
    assert counted and copied.flags.c_contiguous and copied.shape == source.shape
    assert not np.shares_memory(copied, source)
    assert copied.tobytes() == source.tobytes()


def test_copy_of_small_or_strided_arrays_is_numpys(rng, three_threads, counted):
    small = rng.standard_normal(1000)
    strided = rng.standard_normal((1033, 1031))[:, ::2]
    for array in (small, strided):
        copied = _parallel.copy(array)
        assert copied.flags.c_contiguous and np.array_equal(copied, array)
    assert not counted


def test_a_shared_large_gradient_is_copied_on_the_pool(rng, three_threads, monkeypatch):
    """c.grad takes a copy of the gradient it shares with a*b's node, as PyTorch's
    AccumulateGrad clones a gradient others still hold: made by the pool's copy."""
    copies = []
    original = _parallel.copy
    monkeypatch.setattr(_parallel, "copy",
                        lambda array: copies.append(array.size) or original(array))
    a, b, c = (ember.tensor(rng.standard_normal(BIG).astype(np.float32), requires_grad=True)
               for _ in range(3))
    (a * b + c).sum().backward()
    assert copies == [BIG]
    assert np.array_equal(c.grad.numpy(), np.ones(BIG, np.float32))
    assert not np.shares_memory(c.grad.numpy(), a.grad.numpy())
