"""Issue 11's last surface names against torch: segment_reduce, embedding_renorm_,
the SyncBatchNorm kernels and native_norm (CUDA-only on PyTorch's CPU build),
from_file, to_dlpack / utils.dlpack, SobolEngine, the low-rank decompositions and
lobpcg, and torch.masked."""
import warnings

import numpy as np
import pytest

import ember
from tests.oracle import assert_same, to_lib


def _both(torch, value, requires_grad=False):
    return to_lib(ember, value, requires_grad), to_lib(torch, value, requires_grad)


# ---------------------------------------------------------------- segment_reduce
_SEGMENT_CASES = [
    ((7,), dict(lengths=[2, 0, 3, 2])),
    ((7,), dict(lengths=[2, 0, 3, 2], initial=1.5)),
    ((7, 3), dict(offsets=[0, 2, 2, 6])),
    ((2, 7, 3), dict(lengths=[[2, 0, 3, 2], [7, 0, 0, 0]], axis=1)),
    ((2, 7), dict(offsets=[[1, 2, 2, 6], [0, 0, 7, 7]], axis=-1)),
    ((7,), dict(lengths=[2, 0, 3, 1], unsafe=True)),
]


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "amin", "prod"])
@pytest.mark.parametrize("shape,kwargs", _SEGMENT_CASES)
def test_segment_reduce_values_and_grads(torch, reduce, shape, kwargs):
    rng = np.random.default_rng(len(shape) + len(kwargs))
    data = rng.standard_normal(shape)
    if reduce in ("max", "amin", "prod"):
        data = data.round()  # ties and zeros: the gradients' special cases
    (ed, td) = _both(torch, data, requires_grad=True)
    ek = {k: ember.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    tk = {k: torch.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    eo, to = ember.segment_reduce(ed, reduce, **ek), torch.segment_reduce(td, reduce, **tk)
    assert_same(eo, to, atol=1e-14)
    assert eo.grad_fn.name() == to.grad_fn.name() == "SegmentReduceBackward0"
    weight = rng.standard_normal(tuple(to.shape))
    eo.backward(ember.tensor(weight))
    to.backward(torch.tensor(weight))
    assert_same(ed.grad, td.grad, atol=1e-14)


def test_segment_reduce_half_and_double_backward(torch):
    data = np.array([1.5, -2.0, 3.25, 0.5])
    for dtype in ("float16", "bfloat16", "float32"):
        e = ember.tensor(data, dtype=getattr(ember, dtype))
        t = torch.tensor(data, dtype=getattr(torch, dtype))
        assert_same(ember.segment_reduce(e, "mean", lengths=ember.tensor([1, 3])),
                    torch.segment_reduce(t, "mean", lengths=torch.tensor([1, 3])))
    ed, td = _both(torch, data, requires_grad=True)
    eg, = ember.autograd.grad(ember.segment_reduce(ed, "prod", lengths=ember.tensor([2, 2]))
                              .sum(), ed, create_graph=True)
    tg, = torch.autograd.grad(torch.segment_reduce(td, "prod", lengths=torch.tensor([2, 2]))
                              .sum(), td, create_graph=True)
    assert_same(eg, tg)
    assert repr(eg.grad_fn).split()[0] == repr(tg.grad_fn).split()[0] == "<NotImplemented"
    with pytest.raises(RuntimeError) as e_err:
        eg.sum().backward()
    with pytest.raises(RuntimeError) as t_err:
        tg.sum().backward()
    assert str(e_err.value) == str(t_err.value)


def test_segment_reduce_gradcheck():
    data = ember.tensor(np.linspace(-1, 2, 7), requires_grad=True)
    for reduce in ("sum", "mean", "prod"):
        assert ember.autograd.gradcheck(
            lambda x: ember.segment_reduce(x, reduce, lengths=ember.tensor([2, 0, 3, 2])),
            (data,))


@pytest.mark.parametrize("args,kwargs", [
    (("foo",), dict(lengths=[3, 3])),
    (("sum",), {}),
    (("sum",), dict(indices=[0, 0, 1])),
    (("sum",), dict(lengths=[2, 2])),
    (("sum",), dict(lengths=[2, -1, 5])),
    (("sum",), dict(lengths=[3, 3], axis=1)),
    (("sum",), dict(lengths=[[3, 3]])),
    (("sum",), dict(offsets=[0, 2, 1, 6])),
    (("sum",), dict(lengths=[3.0, 3.0])),
    (("sum",), dict(offsets=[0.0, 6.0])),
    (("sum",), dict(lengths=6)),
])
def test_segment_reduce_errors(torch, args, kwargs):
    data = np.arange(6.0)
    outcomes = []
    for lib in (ember, torch):
        k = {key: lib.tensor(v) if isinstance(v, (list, int)) and key != "axis" else v
             for key, v in kwargs.items()}
        with pytest.raises(Exception) as err:
            lib.segment_reduce(lib.tensor(data), *args, **k)
        outcomes.append((type(err.value).__name__, str(err.value).replace("torch.", "ember.")))
    assert outcomes[0] == outcomes[1]
    with pytest.raises(NotImplementedError) as err:
        ember.segment_reduce(ember.arange(6), "sum", lengths=ember.tensor([6]))
    assert str(err.value) == "\"_segment_reduce_cpu\" not implemented for 'Long'"


# ---------------------------------------------------------------- embedding_renorm_
def test_embedding_renorm_in_place(torch):
    weight = np.random.default_rng(0).standard_normal((5, 3)) * 3
    for norm_type in (2.0, 1, float("inf")):
        (ew, tw) = _both(torch, weight.copy())
        version = ew._version
        indices = [0, 2, 2, -1]
        assert ember.embedding_renorm_(ew, ember.tensor(indices), 1.0, norm_type) is ew
        torch.embedding_renorm_(tw, torch.tensor(indices), 1.0, norm_type)
        assert_same(ew, tw, atol=1e-12)
        assert ew._version == version + 1
    (ew, tw) = _both(torch, weight, requires_grad=True)
    ey, ty = ew * 1, tw * 1
    ember.embedding_renorm_(ey, ember.tensor([0, 1]), 1.0, 2.0)
    torch.embedding_renorm_(ty, torch.tensor([0, 1]), 1.0, 2.0)
    assert ey.grad_fn.name() == ty.grad_fn.name() == "EmbeddingRenormBackward0"
    with pytest.raises(NotImplementedError) as e_err:
        ey.sum().backward()
    with pytest.raises(NotImplementedError) as t_err:
        ty.sum().backward()
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("case", ["float_index", "out_of_range", "one_dim", "int_weight",
                                  "leaf"])
def test_embedding_renorm_errors(torch, case):
    outcomes = []
    for lib in (ember, torch):
        weight = lib.ones(4, 3)
        indices = lib.tensor([0, 1])
        if case == "float_index":
            indices = indices.float()
        elif case == "out_of_range":
            indices = lib.tensor([0, 7])
        elif case == "one_dim":
            weight = weight[0]
        elif case == "int_weight":
            weight = weight.long()
        else:
            weight.requires_grad_()
        before = weight.clone()
        with pytest.raises(Exception) as err:
            lib.embedding_renorm_(weight, indices, 0.5, 2.0)
        if lib is ember:  # (PyTorch rescales row 0 before it meets index 7)
            assert bool((weight == before).all())
        outcomes.append((type(err.value).__name__, str(err.value).replace("torch.", "ember.")))
    assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------- CPU-less kernels
_NO_CPU = {
    "batch_norm_stats": lambda lib, x, c: lib.batch_norm_stats(x, 1e-5),
    "batch_norm_gather_stats": lambda lib, x, c: lib.batch_norm_gather_stats(
        x, c[None], c[None], c, c, 0.1, 1e-5, 2),
    "batch_norm_gather_stats_with_counts": lambda lib, x, c:
        lib.batch_norm_gather_stats_with_counts(x, c[None], c[None], c, c, 0.1, 1e-5,
                                                lib.tensor([2.0])),
    "batch_norm_elemt": lambda lib, x, c: lib.batch_norm_elemt(x, c, c, c, c, 1e-5),
    "batch_norm_backward_reduce": lambda lib, x, c: lib.batch_norm_backward_reduce(
        x, x, c, c, c, True, True, True),
    "batch_norm_backward_elemt": lambda lib, x, c: lib.batch_norm_backward_elemt(
        x, x, c, c, c, c, c, lib.tensor([2], dtype=lib.int32)),
    "native_norm": lambda lib, x, c: lib.native_norm(x),
    "native_norm_dim": lambda lib, x, c: lib.native_norm(x, 2, [1], False, None),
}


@pytest.mark.parametrize("name", sorted(_NO_CPU))
def test_kernels_without_cpu_implementation(torch, name):
    """PyTorch's dispatcher refuses these on a CPU tensor; ember's text is its message up
    to the registered-backend list (the registration lines after it are build paths)."""
    messages = []
    for lib in (ember, torch):
        with pytest.raises(NotImplementedError) as err:
            _NO_CPU[name](lib, lib.ones(4, 3, 5), lib.zeros(3))
        messages.append(str(err.value))
    assert messages[1].startswith(messages[0])
    assert messages[0].endswith("PythonDispatcher].\n\n")


def test_batch_norm_update_stats(torch):
    data = np.random.default_rng(1).standard_normal((4, 3, 5))
    for dtype in ("float64", "float32", "float16"):
        (ex, tx) = _both(torch, data.astype(dtype))
        (erm, trm), (erv, trv) = _both(torch, np.zeros(3, dtype)), _both(torch, np.ones(3, dtype))
        outs_e = ember.batch_norm_update_stats(ex, erm, erv, 0.1)
        outs_t = torch.batch_norm_update_stats(tx, trm, trv, 0.1)
        for e, t in zip(outs_e + (erm, erv), outs_t + (trm, trv)):
            assert_same(e, t, atol=1e-6 if dtype != "float16" else 2e-3)
    (erv, trv) = _both(torch, np.ones(3))
    assert_same(ember.batch_norm_update_stats(ember.ones(1, 3, dtype=ember.float64), None, erv,
                                              0.1)[1],
                torch.batch_norm_update_stats(torch.ones(1, 3, dtype=torch.float64), None, trv,
                                              0.1)[1])
    assert_same(erv, trv)  # one sample: the unbiased variance is nan
    ex, tx = _both(torch, data, requires_grad=True)
    em, tm = ember.batch_norm_update_stats(ex, None, None, 0.1)[0], \
        torch.batch_norm_update_stats(tx, None, None, 0.1)[0]
    with pytest.raises(RuntimeError) as e_err:
        em.sum().backward()
    with pytest.raises(RuntimeError) as t_err:
        tm.sum().backward()
    assert str(e_err.value) == str(t_err.value)


# ---------------------------------------------------------------- from_file
def test_from_file_private_and_shared(torch, tmp_path):
    path = tmp_path / "values.bin"
    np.arange(10, dtype=np.float32).tofile(path)
    assert_same(ember.from_file(str(path), size=10), torch.from_file(str(path), size=10))
    assert_same(ember.from_file(str(path), size=3, dtype=ember.float64),
                torch.from_file(str(path), size=3, dtype=torch.float64))
    assert_same(ember.from_file(str(path)), torch.from_file(str(path)))
    private = ember.from_file(str(path), False, 10)
    private[0] = 100
    assert np.fromfile(path, dtype=np.float32)[0] == 0  # copy-on-write: the file is kept
    shared = ember.from_file(str(path), True, 10)
    shared[1] = 50
    del shared
    assert np.fromfile(path, dtype=np.float32)[1] == 50
    assert_same(ember.from_file(str(path), size=4, dtype=ember.int64),
                torch.from_file(str(path), size=4, dtype=torch.int64))
    saved = tmp_path / "saved.bin"
    torch.arange(6, dtype=torch.float64).numpy().tofile(saved)
    assert_same(ember.from_file(str(saved), size=6, dtype=ember.float64),
                torch.from_file(str(saved), size=6, dtype=torch.float64))
    grown = tmp_path / "grown.bin"
    e = ember.from_file(str(grown), True, 4)
    assert grown.stat().st_size == 16 and bool((e == 0).all())
    tgrown = tmp_path / "tgrown.bin"
    assert_same(e, torch.from_file(str(tgrown), True, 4))


@pytest.mark.parametrize("case", ["missing", "too_small", "negative"])
def test_from_file_errors(torch, tmp_path, case):
    path = tmp_path / "values.bin"
    np.arange(10, dtype=np.float32).tofile(path)
    name = str(tmp_path / "missing.bin") if case == "missing" else str(path)
    size = {"missing": 10, "too_small": 11, "negative": -1}[case]
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as err:
            lib.from_file(name, False, size)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


# ---------------------------------------------------------------- to_dlpack
def test_to_dlpack_round_trips(torch):
    import ember.utils.dlpack as edl
    import torch.utils.dlpack as tdl
    e = ember.arange(12.0).reshape(3, 4).t()
    capsule = ember.to_dlpack(e)
    assert "dltensor" in repr(capsule)
    t = torch.from_dlpack(capsule)
    assert_same(e, t)
    assert t.stride() == e.stride()
    t[0, 0] = 7  # shared memory
    assert float(e[0, 0]) == 7
    back = ember.from_dlpack(torch.to_dlpack(torch.arange(4.0).to(torch.bfloat16)))
    assert_same(back, torch.arange(4.0).to(torch.bfloat16))
    assert_same(edl.from_dlpack(edl.to_dlpack(ember.tensor([1, 2, 3]))), torch.tensor([1, 2, 3]))
    assert torch.equal(torch.from_dlpack(ember.to_dlpack(ember.arange(3.0).bfloat16())),
                       torch.arange(3.0).bfloat16())
    grad = ember.ones(2, requires_grad=True)  # the legacy export does not refuse these
    assert torch.equal(torch.from_dlpack(ember.to_dlpack(grad)), torch.ones(2))
    assert np.array_equal(np.from_dlpack(ember.arange(3)), np.arange(3))
    assert_same(ember.from_dlpack(np.arange(3.0)), torch.from_dlpack(np.arange(3.0)))
    assert [(m.name, int(m)) for m in edl.DLDeviceType] == \
        [(m.name, int(m)) for m in tdl.DLDeviceType]
    assert edl.to_dlpack is ember.to_dlpack
    for lib in (ember, torch):
        with pytest.raises(TypeError) as err:
            lib.to_dlpack(3)
        assert str(err.value) == "_to_dlpack(): argument 'data' (position 1) must be Tensor, " \
            "not int"


# ---------------------------------------------------------------- SobolEngine
@pytest.mark.parametrize("args", [(5,), (3, True, 7), (40, True, 123), (1, False, 3)])
def test_sobol_engine_sequence(torch, args):
    """Draws, fast-forwards, resets and dtypes give PyTorch's numbers exactly (the
    scrambled engines draw their matrices from a generator seeded with `seed`)."""
    t, e = torch.quasirandom.SobolEngine(*args), ember.quasirandom.SobolEngine(*args)
    assert repr(e) == repr(t)
    assert_same(e.draw(3, dtype=ember.float64), t.draw(3, dtype=torch.float64), atol=0, rtol=0)
    for step, n in [("draw", 1), ("draw", 5), ("ff", 3), ("draw", 4), ("reset", 0),
                    ("base2", 2), ("base2", 2), ("draw", 7), ("ff", 0), ("draw", 0)]:
        if step == "draw":
            assert_same(e.draw(n), t.draw(n), atol=0, rtol=0)
        elif step == "base2":
            assert_same(e.draw_base2(n), t.draw_base2(n), atol=0, rtol=0)
        elif step == "ff":
            assert e.fast_forward(n) is e
            t.fast_forward(n)
        else:
            assert e.reset() is e
            t.reset()
        assert e.num_generated == t.num_generated
        assert_same(e.quasi, t.quasi)
    assert_same(e.sobolstate, t.sobolstate)
    assert_same(e.shift, t.shift)


def test_sobol_engine_global_generator_out_and_errors(torch):
    ember.manual_seed(4)
    torch.manual_seed(4)
    e, t = ember.quasirandom.SobolEngine(3, True), torch.quasirandom.SobolEngine(3, True)
    assert_same(e.draw(4), t.draw(4), atol=0, rtol=0)
    assert_same(ember.rand(2), torch.rand(2))  # the global stream advanced alike
    e, t = ember.quasirandom.SobolEngine(2), torch.quasirandom.SobolEngine(2)
    eo, to = ember.empty(0), torch.empty(0)
    assert e.draw(3, out=eo) is eo
    t.draw(3, out=to)
    assert_same(eo, to)
    assert_same(ember.quasirandom.SobolEngine(21201).draw(2)[:, -5:],
                torch.quasirandom.SobolEngine(21201).draw(2)[:, -5:])
    cases = [lambda lib: lib.quasirandom.SobolEngine(0),
             lambda lib: lib.quasirandom.SobolEngine(21202),
             lambda lib: lib.quasirandom.SobolEngine(2).draw(2, dtype=lib.float16),
             lambda lib: lib.quasirandom.SobolEngine(2).draw(2, dtype=lib.int64),
             lambda lib: lib.quasirandom.SobolEngine(2).draw(0),
             lambda lib: lib.quasirandom.SobolEngine(2).draw_base2(2).__class__
             and None or lib.quasirandom.SobolEngine(2).fast_forward(4).draw_base2(1)]
    for case in cases:
        outcomes = []
        for lib in (ember, torch):
            with pytest.raises(Exception) as err:
                case(lib)
            outcomes.append((type(err.value).__name__, str(err.value)))
        assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------- svd_lowrank / pca_lowrank
def _lowrank_pair(torch, function, a, seed=3, **kwargs):
    ea, ta = _both(torch, a, requires_grad=True)
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    ek = {k: ember.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    tk = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return (ea, getattr(ember, function)(ea, **ek)), (ta, getattr(torch, function)(ta, **tk))


@pytest.mark.parametrize("shape,kwargs", [((8, 5), {}), ((9, 7), dict(q=3, niter=0)),
                                          ((6, 6), dict(M="row")), ((5, 8), dict(q=3)),
                                          ((3, 9, 7), dict(q=4))])
def test_svd_lowrank(torch, shape, kwargs):
    """The Gaussian sketch comes from randn on the global stream, as PyTorch's, so where
    the small SVD is of a tall or square matrix the factors are PyTorch's; where it is
    wide, ember's linalg.svd may pick other signs for its vectors than PyTorch's, so the comparison there is the
    sign-free one: singular values, the rank-q reconstruction and its gradient."""
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape)
    if kwargs.get("M") == "row":
        kwargs = dict(M=rng.standard_normal(shape[-1:]))
    (ea, (eu, es, ev)), (ta, (tu, ts, tv)) = _lowrank_pair(torch, "svd_lowrank", a, **kwargs)
    assert_same(es, ts, atol=1e-12)
    erec, trec = (eu * es.unsqueeze(-2)) @ ev.mT, (tu * ts.unsqueeze(-2)) @ tv.mT
    assert_same(erec, trec, atol=1e-12)
    if len(shape) == 2 and shape[0] >= shape[1] and kwargs.get("q", 6) >= shape[1]:
        assert_same(eu, tu, atol=1e-12)
        assert_same(ev, tv, atol=1e-12)
    assert es.grad_fn.name() == ts.grad_fn.name() == "LinalgSvdBackward0"
    weight = rng.standard_normal(tuple(trec.shape))
    (erec * ember.tensor(weight)).sum().backward()
    (trec * torch.tensor(weight)).sum().backward()
    assert_same(ea.grad, ta.grad, atol=1e-10)
    assert_same(ember.rand(2), torch.rand(2))  # the sketch used the same draws


def test_pca_lowrank(torch):
    a = np.random.default_rng(7).standard_normal((10, 6)) + np.arange(6.0)
    for kwargs in ({}, dict(q=3), dict(center=False, q=2), dict(niter=0, q=6)):
        (_, (eu, es, ev)), (_, (tu, ts, tv)) = _lowrank_pair(torch, "pca_lowrank", a, **kwargs)
        assert_same(es, ts, atol=1e-12)
        assert_same((eu * es) @ ev.mT, (tu * ts) @ tv.mT, atol=1e-12)
    for kwargs in (dict(q=7), dict(q=-1), dict(niter=-1)):
        messages = []
        for lib in (ember, torch):
            with pytest.raises(ValueError) as err:
                lib.pca_lowrank(lib.tensor(a), **kwargs)
            messages.append(str(err.value))
        assert messages[0] == messages[1]


def test_lowrank_gradcheck():
    a = ember.tensor(np.random.default_rng(2).standard_normal((6, 4)), requires_grad=True)

    def singular_values(x):
        ember.manual_seed(0)
        return ember.svd_lowrank(x, q=2)[1]
    assert ember.autograd.gradcheck(singular_values, (a,), atol=1e-6)


# ---------------------------------------------------------------- lobpcg
def _spd(seed, shape):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a @ a.swapaxes(-1, -2) + np.eye(shape[-1])


@pytest.mark.parametrize("kwargs", [dict(k=2), dict(k=2, largest=False), dict(k=3),
                                    dict(k=2, method="basic"), dict(k=1, n=3),
                                    dict(k=2, B="diag"), dict(X="start"),
                                    dict(k=2, iK="jacobi", largest=False)])
def test_lobpcg_against_torch_and_eigh(torch, kwargs):
    """Eigenvalues agree with torch's and with linalg.eigh to the solver's tolerance,
    eigenvectors up to sign; the start block is drawn from the global stream alike."""
    a = _spd(len(kwargs) + 3, (14, 14))
    rng = np.random.default_rng(1)
    kwargs = dict(kwargs)
    if kwargs.get("B") == "diag":
        kwargs["B"] = np.diag(rng.uniform(1, 2, 14))
    if kwargs.get("X") == "start":
        kwargs["X"] = rng.standard_normal((14, 3))
    if kwargs.get("iK") == "jacobi":
        kwargs["iK"] = np.diag(1 / np.diag(a))
    ek = {k: ember.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    tk = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    ember.manual_seed(5)
    torch.manual_seed(5)
    ee, ex = ember.lobpcg(ember.tensor(a), **ek)
    te, tx = torch.lobpcg(torch.tensor(a), **tk)
    assert_same(ee, te, atol=1e-9, rtol=1e-10)
    np.testing.assert_allclose(np.abs(ex.numpy()), np.abs(tx.numpy()), atol=1e-6)
    assert_same(ember.rand(2), torch.rand(2))
    if "B" not in kwargs:
        exact = np.linalg.eigvalsh(a)
        k = ee.shape[0]
        wanted = exact[:k] if kwargs.get("largest") is False else exact[::-1][:k]
        np.testing.assert_allclose(ee.numpy(), wanted, rtol=1e-10)


def test_lobpcg_batch_gradient_and_errors(torch):
    ab = _spd(0, (2, 12, 12))
    ember.manual_seed(0)
    torch.manual_seed(0)
    assert_same(ember.lobpcg(ember.tensor(ab), k=2)[0], torch.lobpcg(torch.tensor(ab), k=2)[0],
                atol=1e-9)
    a = _spd(1, (12, 12))
    ea, ta = _both(torch, a, requires_grad=True)
    ee, ex = ember.lobpcg(ea, k=2)
    te, tx = torch.lobpcg(ta, k=2)
    assert ee.grad_fn.name() == te.grad_fn.name() == "LOBPCGAutogradFunctionBackward"
    assert ex.grad_fn is ee.grad_fn
    weight = np.random.default_rng(2).standard_normal((12, 2))
    (ee.sum() + (ex ** 2 * ember.tensor(weight)).sum()).backward()
    (te.sum() + (tx ** 2 * torch.tensor(weight)).sum()).backward()
    assert_same(ea.grad, ta.grad, atol=1e-7)  # eigenvectors converge to about 1e-8
    for case in (lambda lib: lib.lobpcg(lib.ones(12, 5), k=1),
                 lambda lib: lib.lobpcg(lib.eye(12), k=5)):
        outcomes = []
        for lib in (ember, torch):
            with pytest.raises((AssertionError, ValueError)) as err:
                case(lib)
            outcomes.append((type(err.value).__name__, str(err.value).replace("torch", "ember")))
        assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------- ember.masked functions
_MASKED_CASES = [
    ("sum", (), {}), ("sum", (1,), {}), ("sum", ((0, 1),), dict(keepdim=True)),
    ("prod", (1,), {}), ("prod", (None,), {}), ("cumsum", (1,), {}), ("cumprod", (0,), {}),
    ("amax", (1,), {}), ("amin", (0,), {}), ("argmax", (1,), {}), ("argmin", (0,), {}),
    ("mean", (1,), {}), ("mean", (), {}), ("median", (1,), {}), ("norm", (2.0, 1), {}),
    ("norm", (float("inf"), 1), {}), ("norm", (float("-inf"), 1), {}), ("norm", (1.0,), {}),
    ("var", (1,), {}), ("std", (0,), dict(unbiased=False)),
    ("var", (1,), dict(correction=2, keepdim=True)), ("logsumexp", (1,), {}),
    ("softmax", (1,), {}), ("log_softmax", (0,), {}), ("softmin", (1,), {}),
    ("normalize", (2.0, 1), {}),
]


@pytest.mark.parametrize("name,args,kwargs", _MASKED_CASES)
@pytest.mark.parametrize("mask_kind", ["full", "row", "none"])
def test_masked_functions(torch, name, args, kwargs, mask_kind):
    """Values (a fully masked-out row included), dtypes, grad_fn names and gradients."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    mask = rng.random((3, 4)) > 0.4
    mask[1] = False
    mask = {"full": mask, "row": mask[0], "none": None}[mask_kind]
    ex, tx = _both(torch, x, requires_grad=True)
    em = None if mask is None else ember.tensor(mask)
    tm = None if mask is None else torch.tensor(mask)
    eo = getattr(ember.masked, name)(ex, *args, mask=em, **kwargs)
    to = getattr(torch.masked, name)(tx, *args, mask=tm, **kwargs)
    assert_same(eo, to)
    if to.requires_grad:
        assert eo.grad_fn.name() == to.grad_fn.name()
        weight = torch.where(torch.isfinite(to), torch.tensor(rng.standard_normal(to.shape)), 0.0)
        to.backward(weight)
        eo.backward(ember.tensor(weight.numpy()))
        assert_same(ex.grad, tx.grad)


@pytest.mark.parametrize("name,args", [("sum", (1,)), ("prod", (1,)), ("amax", (1,)),
                                       ("amin", (0,)), ("argmax", (1,)), ("median", (1,)),
                                       ("var", (1,)), ("cumsum", (1,)), ("mean", (1,)),
                                       ("norm", (2.0, 1))])
def test_masked_functions_integer_input(torch, name, args):
    x = np.random.default_rng(1).integers(0, 5, (3, 4))
    mask = np.array([True, False, True, True])
    outcomes = []
    for lib in (ember, torch):
        try:
            outcomes.append(getattr(lib.masked, name)(lib.tensor(x), *args,
                                                      mask=lib.tensor(mask)))
        except (RuntimeError, ValueError) as err:
            outcomes.append((type(err).__name__, str(err).replace("torch.", "ember.")))
    if isinstance(outcomes[1], tuple):
        assert outcomes[0] == outcomes[1]
    else:
        assert_same(*outcomes)


def test_masked_gradcheck_and_errors(torch):
    x = ember.tensor(np.random.default_rng(3).standard_normal((3, 4)), requires_grad=True)
    mask = ember.tensor([True, False, True, True])
    for name in ("sum", "mean", "var", "logsumexp", "softmax", "norm"):
        function = getattr(ember.masked, name)
        args = (2.0, 1) if name == "norm" else (1,)
        assert ember.autograd.gradcheck(lambda t: function(t, *args, mask=mask), (x,))
    for case in (lambda lib: lib.masked.sum(lib.ones(3, 4), 2, mask=lib.ones(3, 4).bool()),
                 lambda lib: lib.masked.sum(lib.ones(3, 4), (1, 1), mask=lib.ones(4).bool()),
                 lambda lib: lib.masked.sum(lib.ones(4), 0, mask=lib.ones(3, 4).bool()),
                 lambda lib: lib.masked.mean(lib.ones(4, dtype=lib.long), 0,
                                             mask=lib.ones(4).bool()),
                 lambda lib: lib.masked.median(lib.ones(2, 4, dtype=lib.long), 1,
                                               mask=lib.tensor([[True] * 4, [False] * 4])),
                 lambda lib: lib.masked.var(lib.ones(4), 0, True, correction=1)):
        outcomes = []
        for lib in (ember, torch):
            with pytest.raises(Exception) as err:
                case(lib)
            outcomes.append((type(err.value).__name__, str(err.value).replace("torch.", "ember.")))
        assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------- MaskedTensor
def _quiet(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


_DATA = [[1.0, 2, 3], [4, 5, 6]]
_MASK = [[True, False, True], [False, False, True]]
_MT_CASES = {
    "repr": lambda lib, mt: mt,
    "add_scalar": lambda lib, mt: mt + 1,
    "radd": lambda lib, mt: 2 + mt,
    "rsub": lambda lib, mt: 1 - mt,
    "mul_self": lambda lib, mt: mt * mt,
    "div_tensor": lambda lib, mt: mt / lib.full((2, 3), 2.0),
    "pow": lambda lib, mt: mt ** 2,
    "neg": lambda lib, mt: -mt,
    "compare": lambda lib, mt: mt > 2,
    "mismatched": lambda lib, mt: mt + lib.masked.masked_tensor(mt.get_data(), ~mt.get_mask()),
    "exp": lambda lib, mt: mt.exp(),
    "clamp": lambda lib, mt: mt.clamp(2.0, 5.0),
    "sum_all": lambda lib, mt: mt.sum(),
    "sum_rows": lambda lib, mt: mt.sum(1),
    "sum_cols": lambda lib, mt: mt.sum(0),
    "mean": lambda lib, mt: mt.mean(),
    "amax": lambda lib, mt: mt.amax(1),
    "argmax": lambda lib, mt: mt.argmax(1),
    "prod": lambda lib, mt: mt.prod(0),
    "index": lambda lib, mt: mt[0],
    "scalar": lambda lib, mt: mt[0, 2],
    "get_data": lambda lib, mt: mt.get_data(),
    "get_mask": lambda lib, mt: mt.get_mask(),
    "to_tensor": lambda lib, mt: mt.to_tensor(0),
    "masked_sum": lambda lib, mt: lib.masked.sum(mt, 1),
    "masked_softmax": lambda lib, mt: lib.masked.softmax(mt, 1),
    "facts": lambda lib, mt: (tuple(mt.shape), str(mt.dtype)[6:], isinstance(mt, lib.Tensor),
                              lib.masked.is_masked_tensor(mt), mt.is_sparse),
    "int_data": lambda lib, mt: lib.masked.masked_tensor(
        lib.tensor([[1, 2], [3, 4]]), lib.tensor([[True, False], [True, True]])),
    "zero_dim": lambda lib, mt: lib.masked.masked_tensor(lib.tensor(2.5), lib.tensor(False)),
    "bad_mask_dtype": lambda lib, mt: lib.masked.masked_tensor(mt.get_data(),
                                                               mt.get_mask().int()),
    "bad_mask_dim": lambda lib, mt: lib.masked.masked_tensor(mt.get_data(), mt.get_mask()[0]),
    "bad_data": lambda lib, mt: lib.masked.masked_tensor([1.0], mt.get_mask()),
}


@pytest.mark.parametrize("case", sorted(_MT_CASES))
def test_masked_tensor_behaves_as_torch(torch, case):
    """The printed form is the comparison: PyTorch's MaskedTensor repr shows values and
    '--' for unspecified elements, so equal reprs mean equal data where specified and
    equal masks."""
    outcomes = []
    for lib in (ember, torch):
        mt = _quiet(lib.masked.masked_tensor, lib.tensor(_DATA), lib.tensor(_MASK))
        try:
            outcomes.append(repr(_quiet(_MT_CASES[case], lib, mt)).replace("torch.", "ember."))
        except (TypeError, ValueError) as err:
            outcomes.append(f"{type(err).__name__}: {err}")
    assert outcomes[0] == outcomes[1]


def test_masked_tensor_warnings_and_gradients(torch):
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="The PyTorch API of MaskedTensors is in prototype "
                          "stage and will change in the near future"):
            lib.masked.masked_tensor(lib.tensor(_DATA), lib.tensor(_MASK))
        with pytest.warns(UserWarning, match="It is not recommended to create a MaskedTensor "
                          "with a tensor that requires_grad"):
            lib.masked.masked_tensor(lib.tensor(_DATA, requires_grad=True), lib.tensor(_MASK))
    reprs = []
    for lib in (ember, torch):
        mt = _quiet(lib.masked.masked_tensor, lib.tensor(_DATA), lib.tensor(_MASK), True)
        assert mt.requires_grad
        total = _quiet(lambda: (mt * mt).sum())
        total.backward()
        reprs.append((repr(total), repr(mt.grad)))
    assert reprs[0] == reprs[1]
    e = _quiet(ember.masked.as_masked_tensor, ember.tensor(_DATA), ember.tensor(_MASK))
    t = _quiet(torch.masked.as_masked_tensor, torch.tensor(_DATA), torch.tensor(_MASK))
    assert repr(e) == repr(t)
