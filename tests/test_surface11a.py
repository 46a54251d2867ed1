"""Issue 11's module-and-constant surface against torch: memory formats, ember.random,
ember.cpu / accelerator / get_device_module, Stream/Event, testing, compiler, version,
hub, multiprocessing and the small top-level names scripts stop on."""
import pickle
import warnings

import numpy as np
import pytest

import ember
import oracle
from oracle import assert_same, assert_same_error


def _both(torch):
    return (torch, ember)


# ================================================================ memory formats
_FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
            "legacy_contiguous_format")


def test_memory_format_objects(torch):
    for name in _FORMATS:
        value = getattr(ember, name)
        assert repr(value) == oracle.ember_names(repr(getattr(torch, name)))
        assert str(value) == oracle.ember_names(str(getattr(torch, name)))
        assert isinstance(value, ember.memory_format)
        assert pickle.loads(pickle.dumps(value)) is value
    assert ember.legacy_contiguous_format is ember.contiguous_format
    assert (torch.legacy_contiguous_format is torch.contiguous_format)
    assert ember.memory_format.__name__ == torch.memory_format.__name__
    assert_same_error(lambda lib: lib.memory_format())


_SHAPES_4D = [(2, 3, 4, 5), (0, 3, 4, 5), (2, 0, 4, 5), (2, 3, 0, 5), (1, 1, 1, 1),
              (2, 3, 1, 5), (2, 1, 4, 5), (2, 3, 1, 1)]


@pytest.mark.parametrize("shape", _SHAPES_4D)
def test_channels_last_strides_and_questions(torch, shape):
    got = {}
    for lib in _both(torch):
        x = lib.arange(float(np.prod(shape))).reshape(shape)
        y = x.contiguous(memory_format=lib.channels_last)
        e = lib.empty(shape, memory_format=lib.channels_last)
        got[lib.__name__] = (y.stride(), y.is_contiguous(),
                           y.is_contiguous(memory_format=lib.channels_last),
                           x.is_contiguous(memory_format=lib.channels_last),
                           x.is_contiguous(memory_format=lib.preserve_format),
                           y.contiguous(memory_format=lib.channels_last) is y,
                           e.stride(), lib.zeros_like(x, memory_format=lib.channels_last).stride(),
                           x.clone(memory_format=lib.channels_last).stride(),
                           y.clone().stride(), lib.empty_like(y).stride(),
                           y.to(memory_format=lib.contiguous_format).stride(),
                           y.to(memory_format=lib.channels_last) is y,
                           x.to(memory_format=lib.contiguous_format) is x,
                           x.float(memory_format=lib.channels_last).stride(),
                           x.double(memory_format=lib.channels_last).stride(),
                           x.to(lib.float64, memory_format=lib.channels_last).stride(),
                           lib.randn_like(x, memory_format=lib.channels_last).stride(),
                           lib.ones_like(x, memory_format=lib.channels_last).stride(),
                           lib.full_like(x, 2.0, memory_format=lib.channels_last).stride())
        assert_same(y, torch.arange(float(np.prod(shape))).reshape(shape)) if lib is ember \
            else None
    assert got["ember"] == got["torch"]


def test_channels_last_views_and_3d(torch):
    got = {}
    for lib in _both(torch):
        x = lib.arange(120.).reshape(2, 3, 4, 5)
        y = x.contiguous(memory_format=lib.channels_last)
        a = y[:, :, ::2]
        t = x.transpose(0, 1)
        z = lib.arange(720.).reshape(2, 3, 4, 5, 6)
        z3 = z.contiguous(memory_format=lib.channels_last_3d)
        got[lib.__name__] = (a.stride(), a.clone().stride(), lib.empty_like(a).stride(),
                           a.contiguous().stride(), t.to(lib.float64).stride(),
                           t.to(lib.float64, memory_format=lib.contiguous_format).stride(),
                           t.float(memory_format=lib.contiguous_format) is t,
                           lib.empty_like(t, memory_format=lib.contiguous_format).stride(),
                           x.contiguous(memory_format=lib.preserve_format) is x,
                           z3.stride(), z3.is_contiguous(memory_format=lib.channels_last_3d),
                           z.is_contiguous(memory_format=lib.channels_last_3d),
                           z3.clone().stride(), x.cpu(memory_format=lib.channels_last).stride(),
                           lib.clone(x, memory_format=lib.channels_last).stride(),
                           lib.randn(2, 3).is_contiguous(memory_format=lib.channels_last),
                           lib.randn(3).to(memory_format=lib.contiguous_format).shape)
        assert (z3 == z).all() and (a == x[:, :, ::2]).all()
    assert got["ember"] == got["torch"]


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2, 3, 4, 5).contiguous(memory_format=1),
    lambda lib: lib.ones(2, 3, 4, 5).is_contiguous(memory_format="a"),
    lambda lib: lib.ones(2, 3, 4, 5).clone(memory_format=2),
    lambda lib: lib.clone(lib.ones(2, 3, 4, 5), memory_format=2),
    lambda lib: lib.empty_like(lib.ones(2, 3, 4, 5), memory_format=2),
    lambda lib: lib.zeros_like(lib.ones(2, 3, 4, 5), memory_format=3),
    lambda lib: lib.empty(2, 3, memory_format=1),
    lambda lib: lib.empty(2, 3, memory_format=lib.preserve_format),
    lambda lib: lib.empty(2, 3, memory_format=lib.channels_last),
    lambda lib: lib.randn(2, 3).contiguous(memory_format=lib.channels_last),
    lambda lib: lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last_3d),
    lambda lib: lib.ones(2, 3, 4, 5).clone(memory_format=lib.channels_last_3d),
    lambda lib: lib.zeros_like(lib.ones(3), memory_format=lib.channels_last),
    lambda lib: lib.ones(2, 3, 4, 5).transpose(0, 1).contiguous(memory_format=lib.preserve_format),
    lambda lib: lib.ones(2, 3, 4, 5).to(memory_format=1),
    lambda lib: lib.ones(2, 3, 4, 5).float(memory_format=1),
    lambda lib: lib.randn(2, 3).to(memory_format=lib.channels_last),
    lambda lib: lib.nn.Conv2d(3, 4, 3).to(memory_format=1),
])
def test_memory_format_errors(torch, call):
    assert_same_error(call)


def test_memory_format_grad_fns_and_module_to(torch):
    names = {}
    for lib in _both(torch):
        x = lib.arange(120.).reshape(2, 3, 4, 5).requires_grad_()
        outs = (x.contiguous(memory_format=lib.channels_last),
                x.clone(memory_format=lib.channels_last), x.to(memory_format=lib.channels_last))
        m = lib.nn.Conv2d(3, 4, 3).to(memory_format=lib.channels_last)
        names[lib.__name__] = ([o.grad_fn.name() for o in outs], m.weight.stride(),
                             m.bias.stride(), m.weight.is_leaf)
    assert names["ember"] == names["torch"]


def _cnn(lib, seed_weights):
    net = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3, padding=1), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
                          lib.nn.MaxPool2d(2), lib.nn.Conv2d(4, 2, 3), lib.nn.AvgPool2d(2),
                          lib.nn.Flatten(), lib.nn.Linear(2, 3))
    with lib.no_grad():
        for p, w in zip(net.parameters(), seed_weights):
            p.copy_(lib.tensor(w))
    return net


def test_small_cnn_on_channels_last_input(torch):
    """Values and gradients stay right when the input (and the model) are channels-last."""
    rng = np.random.default_rng(5)
    shapes = [p.shape for p in _cnn(torch, []).parameters()]
    weights = [rng.standard_normal(s).astype(np.float32) * 0.5 for s in shapes]
    data = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    results = {}
    for lib in _both(torch):
        net = _cnn(lib, weights).to(memory_format=lib.channels_last)
        x = lib.tensor(data).contiguous(memory_format=lib.channels_last).requires_grad_()
        out = net(x * 2 + 1)
        out.square().sum().backward()
        results[lib.__name__] = (out, x.grad, [p.grad for p in net.parameters()])
    e, t = results["ember"], results["torch"]
    assert_same(e[0], t[0], atol=1e-5, rtol=1e-5)
    assert_same(e[1], t[1], atol=1e-5, rtol=1e-5)
    for pe, pt in zip(e[2], t[2]):
        assert_same(pe, pt, atol=1e-4, rtol=1e-5)


# ================================================================ ember.random
def test_random_module(torch):
    for lib in _both(torch):
        lib.random.manual_seed(7)
        assert lib.random.initial_seed() == 7
        state = lib.random.get_rng_state()
        first = lib.rand(3)
        lib.random.set_rng_state(state)
        assert (lib.rand(3) == first).all()
        with lib.random.fork_rng():
            lib.rand(5)
        after = lib.rand(2)
        lib.random.set_rng_state(state)
        lib.rand(3)
        assert (lib.rand(2) == after).all()
        with lib.random.fork_rng(enabled=False):
            pass
        with lib.random.fork_rng(device_type="meta"):
            pass
        assert lib.random.default_generator is lib.default_generator
        assert isinstance(lib.random.seed(), int)
        assert lib.random.thread_safe_generator() is None
    torch.random.manual_seed(3)
    ember.random.manual_seed(3)
    assert_same(ember.rand(4), torch.rand(4))
    assert_same(ember.random.get_rng_state(), torch.random.get_rng_state())
    assert_same_error(lambda lib: lib.random.fork_rng(devices=[0]).__enter__())
    assert_same_error(lambda lib: lib.random.fork_rng(device_type="cpu").__enter__())
    assert_same_error(lambda lib: lib.random.fork_rng(device_type="foo").__enter__())
    assert sorted(ember.random.__all__) == sorted(torch.random.__all__)


# ================================================================ devices
def test_cpu_module(torch):
    for lib in _both(torch):
        c = lib.cpu
        assert (c.is_available(), c.is_initialized(), c.device_count(), c.current_device()) \
            == (True, True, 1, "cpu")
        assert c.synchronize() is None and c.synchronize("cpu") is None
        assert c.set_device("cpu") is None and c.set_device(0) is None
        s = c.Stream()
        c.Stream(priority=1)
        assert s.wait_stream(s) is None and s.record_event() is None
        assert s.wait_event(None) is None
        default = c.current_stream()
        with c.stream(s) as entered:
            assert entered is None and c.current_stream() is s
        assert c.current_stream() is default and c.current_stream(0) is default
        with c.StreamContext(None):
            assert c.current_stream() is default
        e = c.Event()
        assert (e.query(), e.record(), e.wait(), e.synchronize()) == (True, None, None, None)
    assert sorted(set(torch.cpu.__all__) - {"get_capabilities"}) == sorted(ember.cpu.__all__)


def test_cpu_amp_deprecated_spellings(torch):
    texts = {}
    for lib in _both(torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = lib.cpu.amp.GradScaler()
            with lib.cpu.amp.autocast():
                y = lib.mm(lib.ones(2, 2), lib.ones(2, 2))
        texts[lib.__name__] = ([oracle.ember_names(str(w.message)) for w in caught],
                             [w.category for w in caught], oracle.ember_names(str(y.dtype)),
                             scaler.is_enabled(),
                             scaler.get_scale())
    assert texts["ember"][0] == texts["torch"][0]
    assert texts["ember"][2:] == texts["torch"][2:]
    assert texts["ember"][2] == "ember.bfloat16"


@pytest.mark.parametrize("name", ["current_device_index", "synchronize", "current_stream",
                                  "memory_stats", "empty_cache", "get_memory_info",
                                  "memory_allocated", "max_memory_allocated",
                                  "memory_reserved", "max_memory_reserved",
                                  "reset_peak_memory_stats", "reset_accumulated_memory_stats",
                                  "get_device_capability", "empty_host_cache", "Graph"])
def test_accelerator_without_one(torch, name):
    assert_same_error(lambda lib: getattr(lib.accelerator, name)())


def test_accelerator_answers(torch):
    for lib in _both(torch):
        a = lib.accelerator
        assert (a.is_available(), a.current_accelerator(), a.current_accelerator(True),
                a.device_count()) == (False, None, None, 0)
        with a.device_index(None):
            pass
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError):
                a.current_device_idx()
    assert_same_error(lambda lib: lib.accelerator.device_index(0).__enter__())
    assert_same_error(lambda lib: lib.accelerator.set_device_index(0))
    assert_same_error(lambda lib: lib.accelerator.set_stream(lib.Stream()))
    assert sorted(ember.accelerator.__all__) == sorted(torch.accelerator.__all__)


@pytest.mark.parametrize("device", [None, "cpu", "cuda", "cuda:0", "foo", 3, "meta", "CPU",
                                    "cuda:x", "xla"])
def test_get_device_module(torch, device):
    if device in (None, "cpu", "cuda", "cuda:0"):
        got = ember.get_device_module(device if device is None or isinstance(device, str)
                                      else ember.device(device))
        assert got.__name__ == torch.get_device_module(device).__name__.replace("torch",
                                                                                "ember")
        assert ember.get_device_module(ember.device("cpu")) is ember.cpu
    else:
        assert_same_error(lambda lib: lib.get_device_module(device))


def test_stream_and_event(torch):
    seen = {}
    for lib in _both(torch):
        s, e, t = lib.Stream(), lib.Event(), lib.Event(enable_timing=True)
        seen[lib.__name__] = (oracle.ember_names(repr(s)), oracle.ember_names(repr(e)),
                            repr(lib.Stream("meta")), s.query(), s.synchronize(),
                            s.device, s.device_index, s.stream_id, s.is_capturing(),
                            s == lib.Stream(), hash(s) == hash(lib.Stream()), e.query(),
                            e.synchronize(), e.wait(s), s.wait_event(e), e.device, e.event_id)
        with s:
            pass
    assert str(seen["ember"]) == oracle.ember_names(str(seen["torch"]))
    for call in (lambda lib: lib.Stream("cuda"), lambda lib: lib.Event("cuda"),
                 lambda lib: lib.Stream(3), lambda lib: lib.Stream().record_event(),
                 lambda lib: lib.Stream().wait_stream(lib.Stream()), lambda lib: lib.Event().record(),
                 lambda lib: lib.Stream().native_handle,
                 lambda lib: lib.Event().elapsed_time(lib.Event()),
                 lambda lib: lib.Event(enable_timing=True).elapsed_time(
                     lib.Event(enable_timing=True))):
        assert_same_error(call)


def test_exception_classes(torch):
    for name in ("OutOfMemoryError", "AcceleratorError"):
        mine, theirs = getattr(ember, name), getattr(torch, name)
        assert mine.__name__ == theirs.__name__
        assert issubclass(mine, RuntimeError) and issubclass(theirs, RuntimeError)
        assert mine is getattr(ember.cuda, name)
        assert theirs is getattr(torch.cuda, name)


# ================================================================ ember.testing
def _close_cases(lib):
    t = lib.tensor
    return [
        lambda ac: ac(t([1., 2., 3., 4.]), t([1., 2.5, 3., 5.])),
        lambda ac: ac(t([1, 2, 3, 4]), t([1, 3, 3, 5])),
        lambda ac: ac(t([[1., 2.], [3., 4.]]), t([[1., 2.5], [3., 4.]])),
        lambda ac: ac(t(1.), t(2.)),
        lambda ac: ac(1.0, 2.0), lambda ac: ac(1, 2), lambda ac: ac(1, 1.0),
        lambda ac: ac(1, 1.0, check_dtype=False), lambda ac: ac(0, 1),
        lambda ac: ac(t([1.]), t([1.], dtype=lib.float64)),
        lambda ac: ac(t([1.]), t([1., 2.])), lambda ac: ac(t([1.]), 1.0),
        lambda ac: ac([t([1.]), t([2.])], [t([1.]), t([3.])]),
        lambda ac: ac({"a": t([1.])}, {"a": t([3.])}),
        lambda ac: ac({"a": [1, {"b": t([1.])}]}, {"a": [1, {"b": t([3.])}]},
                      msg=lambda m: "<" + m + ">"),
        lambda ac: ac([1, 2], [1, 2, 3]), lambda ac: ac({"a": 1}, {"b": 1}),
        lambda ac: ac(np.array([1., 2.]), np.array([1., 3.])),
        lambda ac: ac(np.float32(1.0), np.float32(1.5)),
        lambda ac: ac(t([float("nan")]), t([float("nan")])),
        lambda ac: ac(t([float("nan")]), t([float("nan")]), equal_nan=True),
        lambda ac: ac(t([1.]), t([1.1]), msg="custom"),
        lambda ac: ac(t([1.]), t([1.1]), msg=lambda m: "X" + m),
        lambda ac: ac(t([1.]), t([1.1]), rtol=1e-3), lambda ac: ac(t([1.]), t([1.1]), atol=1e-3),
        lambda ac: ac(t([1.]), t([1.1]), rtol=0.2, atol=0),
        lambda ac: ac(lib.ones(2, 2), lib.ones(2, 2).t(), check_stride=True),
        lambda ac: ac(lib.ones(2, 2), lib.ones(2, 2).t()),
        lambda ac: ac(t([1.]), t([1.5], dtype=lib.float64), check_dtype=False),
        lambda ac: ac(t([True, False]), t([True, True])), lambda ac: ac(True, False),
        lambda ac: ac(None, 1), lambda ac: ac(None, None), lambda ac: ac("a", "b"),
        lambda ac: ac(t([1.]), np.array([1.])),
        lambda ac: ac(t([1.]).requires_grad_(), t([1.])),
        lambda ac: ac(t([1., 2., 0.]), t([1., 2., 0.5])),
        lambda ac: ac(t([0, 5], dtype=lib.uint8), t([3, 0], dtype=lib.uint8)),
        lambda ac: ac(t([1., 2.], dtype=lib.float16), t([1.001, 2.1], dtype=lib.float16)),
        lambda ac: ac(t([1., 2.], dtype=lib.bfloat16), t([1.01, 2.1], dtype=lib.bfloat16)),
        lambda ac: ac(t([1., float("inf")]), t([1., 2.])),
        lambda ac: ac(t([1, 2]), t([1., 2.5]), check_dtype=False),
        lambda ac: ac((1, 2.0), [1, 2.5]), lambda ac: ac(lib.ones(2, 3, 4), lib.zeros(2, 3, 4)),
        lambda ac: ac(lib.ones(2, 3), lib.ones(2, 3), allow_subclasses=False),
    ]


def _outcome(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        return type(error), oracle.ember_names(str(error))
    return None


def test_assert_close_texts(torch):
    mine = [_outcome(lambda: c(ember.testing.assert_close)) for c in _close_cases(ember)]
    theirs = [_outcome(lambda: c(torch.testing.assert_close)) for c in _close_cases(torch)]
    for i, (m, t) in enumerate(zip(mine, theirs)):
        assert m == t, i
    assert "Mismatched elements: 2 / 4 (50.0%)" in theirs[0][1]


def test_assert_allclose_is_deprecated(torch):
    seen = {}
    for lib in _both(torch):
        calls = (lambda: lib.testing.assert_allclose(lib.tensor([1., 2.]), [1., 2.00001]),
                 lambda: lib.testing.assert_allclose(lib.tensor([1., 2.]), [1., 2.1]),
                 lambda: lib.testing.assert_allclose(lib.tensor([1., float("nan")]),
                                                   [1., float("nan")]),
                 lambda: lib.testing.assert_allclose([1, 2], [1, 3], msg="m"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcomes = [_outcome(c) for c in calls]
        seen[lib.__name__] = (outcomes, [(w.category, oracle.ember_names(str(w.message)))
                                       for w in caught])
    assert seen["ember"] == seen["torch"]


def _make_cases(lib):
    mk = lib.testing.make_tensor
    cases = [lambda dt=dt: mk(3, 4, dtype=dt, device="cpu")
             for dt in (lib.float32, lib.float64, lib.int64, lib.int32, lib.uint8, lib.int8, lib.bool,
                        lib.float16, lib.bfloat16, lib.int16)]
    return cases + [
        lambda: mk((2, 3), dtype=lib.float32, device="cpu", low=-1, high=1, requires_grad=True),
        lambda: mk([2, 3], dtype=lib.float32, device="cpu", noncontiguous=True),
        lambda: mk(2, 3, 4, 5, dtype=lib.float32, device="cpu", memory_format=lib.channels_last),
        lambda: mk(20, dtype=lib.int64, device="cpu", low=0, high=3, exclude_zero=True),
        lambda: mk(20, dtype=lib.float32, device="cpu", low=0, high=1e-40, exclude_zero=True),
        lambda: mk(3, dtype=lib.float32, device="cpu", low=-1e39, high=1e39),
        lambda: mk(3, dtype=lib.float32, device="cpu", low=-3.4e38, high=3.4e38),
        lambda: mk(3, dtype=lib.int8, device="cpu", low=-1000, high=1000),
        lambda: mk(3, dtype=lib.int64, device="cpu", low=1.5, high=4.2),
        lambda: mk(3, dtype=lib.int64, device="cpu", requires_grad=True),
        lambda: mk(3, dtype=lib.float32, device="cpu", low=2, high=1),
        lambda: mk(3, dtype=lib.float32, device="cpu", low=float("nan")),
        lambda: mk(3, dtype=lib.uint8, device="cpu", low=300, high=400),
        lambda: mk(3, dtype=lib.float32, device="cpu", noncontiguous=True,
                   memory_format=lib.channels_last),
        lambda: mk(1, dtype=lib.float32, device="cpu", noncontiguous=True),
        lambda: mk((), dtype=lib.float32, device="cpu"),
        lambda: mk(3, dtype=lib.int64, device="cpu", low=1, high=1),
        lambda: mk(3, dtype=lib.bool, device="cpu", exclude_zero=True),
    ]


def test_make_tensor_draws_as_torch(torch):
    results = {}
    for lib in _both(torch):
        lib.manual_seed(0)
        out = []
        for case in _make_cases(lib):
            try:
                r = case()
                out.append((r, r.stride(), r.requires_grad))
            except Exception as error:  # noqa: BLE001
                out.append((type(error), oracle.ember_names(str(error))))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            full = lib.testing.make_tensor(3, dtype=lib.float32, device="cpu", low=1, high=1)
        out.append((full, [oracle.ember_names(str(w.message)) for w in caught]))
        results[lib.__name__] = out
    for mine, theirs in zip(results["ember"], results["torch"]):
        if isinstance(theirs[0], torch.Tensor):
            assert_same(mine[0], theirs[0])
            assert mine[1:] == theirs[1:]
        else:
            assert mine == theirs


# ================================================================ version and build flags
_VERSIONS = ["2.13.0+cpu", "1.10.0a0", "1.10.0", "2.0.0rc1", "2.0.0.dev20230101",
             "2.0.0.post1", "2.13", "2", "1!1.0", "2.13.0+cu121", "2.0.0a1.dev1"]
_OTHERS = _VERSIONS + ["abc", (2, 13), (2, 13, 0), [1, 10], (1,), "2.0.0-1", "2.0.0b2", 2, 2.5]


def test_torch_version_comparisons(torch):
    def outcomes(lib):
        made = []
        for a in _VERSIONS:
            v = lib.torch_version.TorchVersion(a)
            for b in _OTHERS:
                for method in ("__gt__", "__lt__", "__eq__", "__ge__", "__le__", "__ne__"):
                    made.append(_outcome(lambda: getattr(v, method)(b)) or
                                getattr(v, method)(b))
            for b in (2, 2.5):
                made.append(_outcome(lambda: v > b))
        return made
    assert outcomes(ember) == outcomes(torch)
    assert ember.__version__ == torch.__version__ and ember.__version__ >= "2.0"
    assert isinstance(ember.__version__, str) and ember.version.__version__ is ember.__version__
    for name in ("cuda", "debug", "hip", "rocm", "xpu"):
        assert getattr(ember.version, name) == getattr(torch.version, name)
    assert isinstance(ember.version.git_version, str)
    assert sorted(ember.version.__all__) == sorted(torch.version.__all__)


def test_build_flags_and_small_switches(torch):
    for name in ("has_lapack", "has_mkl", "has_openmp", "has_spectral"):
        assert getattr(ember, name) == getattr(torch, name)
    for name in ("has_mps", "has_cuda", "has_cudnn"):
        texts = {}
        for lib in _both(torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = getattr(lib, name)
            texts[lib.__name__] = (value, [oracle.ember_names(str(w.message)) for w in caught])
        assert texts["ember"] == texts["torch"]
    assert_same_error(lambda lib: lib.no_such_name, rename=lambda s: s.replace("'torch'", "'ember'"))
    # ember cannot switch NumPy's subnormal handling, so it answers as a CPU without it
    assert ember.set_flush_denormal(True) is False and torch.set_flush_denormal(False)
    for bad in (1, "a", None):
        assert_same_error(lambda lib: lib.set_flush_denormal(bad))
    assert ember.init_num_threads() is None and torch.init_num_threads() is None
    assert_same_error(lambda lib: lib.init_num_threads(1))
    assert_same_error(lambda lib: lib.init_num_threads(x=2))
    assert_same_error(lambda lib: lib.init_num_threads(1, x=2))


def test_set_default_tensor_type(torch):
    seen = {}
    for lib in _both(torch):
        before = lib.get_default_dtype()
        steps = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                for t in (lib.DoubleTensor, "torch.FloatTensor", "torch.HalfTensor",
                          "torch.IntTensor", lib.float64, "float", "torch.cuda.FloatTensor",
                          lib.BFloat16Tensor, 1, lib.LongTensor, "torch.DoubleTensor"):
                    outcome = _outcome(lambda: lib.set_default_tensor_type(t))
                    steps.append((outcome, oracle.ember_names(str(lib.get_default_dtype())),
                                  oracle.ember_names(str(lib.tensor([1.5]).dtype)),
                                  oracle.ember_names(str(lib.zeros(1).dtype))))
            finally:
                lib.set_default_dtype(before)
        seen[lib.__name__] = steps
        assert lib.get_default_dtype() is before
    assert seen["ember"] == seen["torch"]
    # the warning comes once per process; ember's says what PyTorch's says
    ember._default_type._warned[0] = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.set_default_tensor_type(ember.FloatTensor)
    assert str(caught[0].message).startswith(
        "ember.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "ember.set_default_dtype() and ember.set_default_device() as alternatives.")


# ================================================================ compiler, cond, fork
def test_compiler_answers_eagerly(torch):
    def f(x):
        return x * 2 + 1

    for lib in _both(torch):
        c = lib.compiler
        x = lib.tensor([1., 2.])
        assert (c.is_compiling(), c.is_dynamo_compiling(), c.is_exporting()) == (
            False, False, False)
        assert c.reset() is None and c.cudagraph_mark_step_begin() is None
        for wrapped in (c.disable(f), c.disable()(f), c.disable(recursive=False)(f),
                        c.disable(f, reason="why"),
                        c.nested_compile_region(f), c.assume_constant_result(f),
                        c.allow_in_graph(f)):
            assert (wrapped(x) == f(x)).all()
        assert c.allow_in_graph(f) is f and c.assume_constant_result(f) is f
        assert c.allow_in_graph([f]) == [f]
        assert c.set_enable_guard_collectives(False) is False
        c.set_default_backend("eager")
        assert c.get_default_backend() == "eager"
        c.set_default_backend(None)
        assert c.get_default_backend() == "inductor"
        assert "inductor" in c.list_backends()
        with c.set_stance("force_eager"):
            pass
        numpy_fn = c.wrap_numpy(lambda a, b: (np.sin(a), [a + b]))
        out = numpy_fn(x, x)
        assert isinstance(out[0], lib.Tensor) and isinstance(out[1][0], lib.Tensor)
    assert_same(ember.compiler.wrap_numpy(np.cos)(ember.tensor([0.5])),
                torch.compiler.wrap_numpy(np.cos)(torch.tensor([0.5])))
    assert_same_error(lambda lib: lib.compiler.allow_in_graph(1))
    assert ember.compiler.substitute_in_graph(ember.sin)(f) is f
    # nothing compiled, so nothing to save (torch would run inductor here to have some)
    assert ember.compiler.compile(f) is f and ember.compiler.save_cache_artifacts() is None
    assert set(ember.compiler.__all__) <= set(torch.compiler.__all__)


def test_cond_and_while_loop(torch):
    cases = [
        lambda lib, x: lib.cond(lib.tensor(True), lambda x: x + 1, lambda x: x - 1, (x,)),
        lambda lib, x: lib.cond(False, lambda x: x + 1, lambda x: x - 1, (x,)),
        lambda lib, x: lib.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, [x]),
        lambda lib, x: lib.cond(0.0, lambda: x + 1, lambda: x - 1),
        lambda lib, x: lib.cond(True, lambda x: (x * 2, x * 3), lambda x: (x, x), (x,)),
        lambda lib, x: lib.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, x),
        lambda lib, x: lib.cond(x, lambda x: x + 1, lambda x: x - 1, (x,)),
        lambda lib, x: lib.cond("yes", lambda x: x + 1, lambda x: x - 1, (x,)),
        lambda lib, x: lib.cond(True, 1, lambda x: x - 1, (x,)),
        lambda lib, x: lib.cond(lib.tensor(True), 1, lambda x: x - 1, (x,)),
        lambda lib, x: lib.cond(lib.tensor([True]), lambda x: x + 1, lambda x: x, (x, 3)),
        lambda lib, x: lib.cond(True, lambda x: x + 1, lambda x: x, (x, 3)),
        lambda lib, x: lib.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
                                  (lib.tensor(0), x)),
        lambda lib, x: lib.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
                                  [lib.tensor(0), x]),
        lambda lib, x: lib.while_loop(lambda i: i < 3, lambda i: i + 1, (lib.tensor(0),)),
        lambda lib, x: lib.while_loop(lambda i: i.sum() < 3, lambda i: (i + 1,),
                                  (lib.tensor([0, 1]),)),
        lambda lib, x: lib.while_loop(lambda i: i < 0, lambda i: (i + 1,), (lib.tensor(5),)),
        lambda lib, x: lib.while_loop(1, lambda i: i + 1, (lib.tensor(0),)),
    ]
    for case in cases:
        got = {}
        for lib in _both(torch):
            x = lib.tensor([1., 2.])
            try:
                got[lib.__name__] = case(lib, x)
            except Exception as error:  # noqa: BLE001
                got[lib.__name__] = (type(error), oracle.ember_names(str(error)))
        if isinstance(got["torch"], tuple) and got["torch"] and isinstance(got["torch"][0],
                                                                          type):
            assert got["ember"] == got["torch"]
        else:
            assert_same(got["ember"], got["torch"])


def test_fork_wait_and_future(torch):
    for lib in _both(torch):
        future = lib.fork(lambda x, y=1: x + y, lib.tensor([1.]), y=2)
        assert isinstance(future, lib.Future) and future.done()
        assert (lib.wait(future) == lib.tensor([3.])).all() and (future.value() == 3).all()
        pending = lib.Future([])
        chained = pending.then(lambda fut: fut.value() + 1)
        assert not pending.done()
        pending.set_result(3)
        assert chained.wait() == 4 and chained.done()
        with pytest.raises(ZeroDivisionError):
            lib.fork(lambda: 1 / 0)
    assert_same(ember.wait(ember.fork(ember.add, ember.ones(2), 1)),
                torch.wait(torch.fork(torch.add, torch.ones(2), 1)))
    assert_same_error(lambda lib: lib.fork(1))
    assert_same_error(lambda lib: lib.wait("a"))


# ================================================================ multiprocessing
def _child_puts(index, lib_name, done, inbox, outbox):
    """A spawned child: send back a tensor built from its rank and a received tensor."""
    lib = __import__(lib_name)
    received = inbox.get(timeout=60)
    outbox.put((index, received * (index + 1) + lib.arange(3.)))
    done.wait(60)


def _child_fails(index, code):
    import sys
    if index == 1:
        if code:
            sys.exit(code)
        raise ValueError("boom in the child")


def test_multiprocessing_surface(torch):
    import multiprocessing
    for lib in _both(torch):
        mp = lib.multiprocessing
        assert mp.get_sharing_strategy() == "file_descriptor"
        assert mp.get_all_sharing_strategies() == {"file_system", "file_descriptor"}
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
        mp.set_sharing_strategy("file_descriptor")
        assert mp.Process is multiprocessing.Process and mp.cpu_count() >= 1
        assert mp.get_start_method(allow_none=True) == multiprocessing.get_start_method(
            allow_none=True)
    assert_same_error(lambda lib: lib.multiprocessing.set_sharing_strategy("bad"))
    assert set(torch.multiprocessing.__all__) == set(ember.multiprocessing.__all__)


def test_spawn_passes_tensors_and_reports_failures(torch):
    results = {}
    for lib in _both(torch):
        # fork keeps the test fast; the spawn path is run once below
        ctx = lib.multiprocessing.get_context("fork")
        inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
        for _ in range(2):
            inbox.put(lib.tensor([1., 2., 3.]))
        running = lib.multiprocessing.start_processes(
            _child_puts, args=(lib.__name__, done, inbox, outbox), nprocs=2, join=False,
            start_method="fork")
        got = sorted((outbox.get(timeout=60) for _ in range(2)), key=lambda item: item[0])
        done.set()   # torch's children must outlive the reading of what they shared
        running.join()
        results[lib.__name__] = [tensor for _, tensor in got]
        process_context = lib.multiprocessing.start_processes(_child_fails, args=(0,), nprocs=2,
                                                            join=False, start_method="fork")
        assert len(process_context.pids()) == 2
        with pytest.raises(lib.multiprocessing.ProcessRaisedException) as raised:
            while not process_context.join():
                pass
        assert "\n\n-- Process 1 terminated with the following error:\n" in str(raised.value)
        assert "ValueError: boom in the child" in str(raised.value)
        assert raised.value.error_index == 1
        with pytest.raises(lib.multiprocessing.ProcessExitedException) as exited:
            lib.multiprocessing.start_processes(_child_fails, args=(3,), nprocs=2,
                                              start_method="fork")
        assert str(exited.value) == "process 1 terminated with exit code 3"
        assert exited.value.exit_code == 3
    for mine, theirs in zip(results["ember"], results["torch"]):
        assert_same(mine, theirs)
    with pytest.raises(ember.multiprocessing.ProcessRaisedException, match="boom in the child"):
        ember.multiprocessing.spawn(_child_fails, args=(0,), nprocs=2)


# ================================================================ hub
_HUBCONF = '''dependencies = ["numpy"]


def model(scale=1):
    """Doc of model."""
    import {lib}
    return {lib}.nn.Linear(2, 2 * scale)


def _private():
    return 1
'''


def test_hub_local_and_offline(torch, tmp_path, monkeypatch):
    for lib in _both(torch):
        repo = tmp_path / lib.__name__
        repo.mkdir()
        (repo / "hubconf.py").write_text(_HUBCONF.format(lib=lib.__name__))
        made = lib.hub.load(str(repo), "model", source="local", scale=2)
        assert isinstance(made, lib.nn.Linear) and made.out_features == 4
        old = lib.hub.get_dir()
        lib.hub.set_dir(tmp_path / "cache")
        try:
            assert lib.hub.get_dir() == str(tmp_path / "cache")
            # nothing cached, no network: PyTorch's offline error for a GitHub repo
            monkeypatch.setattr(lib.hub, "urlopen", _no_network)
            for call in (lambda: lib.hub.list("owner/repo"), lambda: lib.hub.help("owner/repo", "m"),
                         lambda: lib.hub.load("owner/repo", "m", skip_validation=True)):
                with pytest.raises(RuntimeError, match="no internet connection"):
                    call()
            with pytest.raises(Exception) as raised:
                lib.hub.load_state_dict_from_url("http://example.invalid/x.pth",
                                               model_dir=str(tmp_path / "w"))
            assert "urlopen error" in str(raised.value)
        finally:
            lib.hub.set_dir(old)
    assert_same_error(lambda lib: lib.hub.load(str(tmp_path), "m", source="bad"))
    assert_same_error(lambda lib: lib.hub.load(str(tmp_path / "ember"), "nope", source="local"))
    assert_same_error(lambda lib: lib.hub.load(str(tmp_path / "none"), "m", source="local"),
                      rename=lambda s: s)
    assert ember.hub.__all__ == torch.hub.__all__


def _no_network(*args, **kwargs):
    import urllib.error
    raise urllib.error.URLError(OSError(-2, "Name or service not known"))


def test_hub_weights_from_file_urls(torch, tmp_path):
    state = {"weight": np.arange(6.0, dtype=np.float32).reshape(2, 3)}
    loaded = {}
    for lib in _both(torch):
        source = tmp_path / f"{lib.__name__}-weights.pt"
        lib.save({k: lib.tensor(v) for k, v in state.items()}, str(source))
        url = source.as_uri()
        cache = tmp_path / f"{lib.__name__}-cache"
        loaded[lib.__name__] = lib.hub.load_state_dict_from_url(url, model_dir=str(cache),
                                                            progress=False)
        assert (cache / source.name).exists()
        copy = tmp_path / f"{lib.__name__}-copy.pt"
        lib.hub.download_url_to_file(url, str(copy), progress=False)
        assert copy.read_bytes() == source.read_bytes()
    assert_same(loaded["ember"]["weight"], loaded["torch"]["weight"])
    source = tmp_path / "ember-weights.pt"
    # same bytes, so the same digest in the message
    assert_same_error(lambda lib: lib.hub.download_url_to_file(
        source.as_uri(), str(tmp_path / f"{lib.__name__}-bad.pt"), hash_prefix="0000",
        progress=False))
    assert not (tmp_path / "ember-bad.pt").exists()
