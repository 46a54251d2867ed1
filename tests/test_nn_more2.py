"""The nn12 pieces against torch: parametrizations (parametrize, weight_norm, spectral_norm,
orthogonal, the legacy spectral_norm hook, skip_init) and the layers and functions of
issue 11 items 3 and 6 that the op catalog (tests/opdb/nn_more2.py) cannot express."""
import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error


def _both(torch, build):
    """build(lib) for torch and ember, each after the same manual_seed."""
    results = {}
    for lib in (torch, ember):
        lib.manual_seed(0)
        results[lib] = build(lib)
    return results[ember], results[torch]


def _grads(module):
    return [p.grad for p in module.parameters()]


# ---------------------------------------------------------------- parametrize
def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def test_register_parametrization_layout(torch):
    def build(lib):
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
        return m
    e, t = _both(torch, build)
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert_same(e.weight, t.weight)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    e(ember.tensor(x)).pow(2).sum().backward()
    t(torch.tensor(x)).pow(2).sum().backward()
    assert_same(_grads(e), _grads(t))
    for lib, m in ((ember, e), (torch, t)):
        P = lib.nn.utils.parametrize
        assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
        assert not P.is_parametrized(m, "bias")
        assert P.type_before_parametrizations(m) is lib.nn.Linear
        m.weight = lib.ones(3, 3)        # through right_inverse
    assert_same(e.parametrizations.weight.original, t.parametrizations.weight.original)
    for lib, m in ((ember, e), (torch, t)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
    assert type(e) is ember.nn.Linear
    assert list(e.state_dict()) == list(t.state_dict())
    assert_same(e.weight, t.weight)


def test_parametrize_cached_and_stacked(torch):
    def build(lib):
        m = lib.nn.Linear(3, 3)
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, "weight", _symmetric(lib))
        P.register_parametrization(m, "weight", lib.nn.Tanh())
        with P.cached():
            first = m.weight
            assert m.weight is first
        return m
    e, t = _both(torch, build)
    assert repr(e) == repr(t)
    assert_same(e.weight, t.weight)
    assert e.weight is not e.weight


def test_parametrize_errors(torch):
    def missing(lib):
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "w",
                                                          lib.nn.Identity())
    assert_same_error(missing)

    def not_parametrized(lib):
        lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), "weight")
    assert_same_error(not_parametrized)

    def changes_shape(lib):
        class First(lib.nn.Module):
            def forward(self, X):
                return X[0]
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                          First())
    assert_same_error(changes_shape)

    def changes_dtype(lib):
        class Double(lib.nn.Module):
            def forward(self, X):
                return X.double()
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                          Double())
    assert_same_error(changes_dtype)

    def no_inverse(lib):
        m = lib.nn.Linear(2, 2)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", lib.nn.Tanh())
        m.weight = lib.zeros(2, 2)
    assert_same_error(no_inverse)


# ---------------------------------------------------------------- parametrizations
def _train_step(lib, m, shape):
    x = lib.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
    m(x).pow(2).sum().backward()
    return m


PARAMETRIZED = [
    ("weight_norm", "lib.nn.Linear(4, 3)", "P.weight_norm(m)", (2, 4)),
    ("weight_norm-dim1", "lib.nn.Conv1d(2, 3, 2)", "P.weight_norm(m, dim=1)", (1, 2, 5)),
    ("weight_norm-none", "lib.nn.Linear(4, 3)", "P.weight_norm(m, dim=None)", (2, 4)),
    ("spectral_norm", "lib.nn.Linear(5, 4)", "P.spectral_norm(m)", (2, 5)),
    ("spectral_norm-conv", "lib.nn.Conv2d(2, 3, 2)", "P.spectral_norm(m, n_power_iterations=3)",
     (1, 2, 3, 3)),
    ("spectral_norm-transposed", "lib.nn.ConvTranspose1d(2, 3, 2)", "P.spectral_norm(m)",
     (1, 2, 4)),
    ("orthogonal-matrix_exp", "lib.nn.Linear(4, 4)", "P.orthogonal(m)", (2, 4)),
    ("orthogonal-cayley", "lib.nn.Linear(4, 4)", "P.orthogonal(m, orthogonal_map='cayley')",
     (2, 4)),
    ("orthogonal-householder", "lib.nn.Linear(5, 3)", "P.orthogonal(m)", (2, 5)),
    ("orthogonal-wide", "lib.nn.Linear(3, 5)", "P.orthogonal(m, orthogonal_map='matrix_exp')",
     (2, 3)),
    ("orthogonal-no-trivialization", "lib.nn.Linear(3, 5)",
     "P.orthogonal(m, use_trivialization=False)", (2, 3)),
    ("legacy-spectral_norm", "lib.nn.Linear(5, 4)", "lib.nn.utils.spectral_norm(m)", (2, 5)),
    ("legacy-spectral_norm-conv", "lib.nn.ConvTranspose2d(2, 3, 2)",
     "lib.nn.utils.spectral_norm(m, n_power_iterations=2)", (1, 2, 3, 3)),
]


@pytest.mark.parametrize("name, module, wrap, shape", PARAMETRIZED,
                         ids=[p[0] for p in PARAMETRIZED])
def test_parametrizations_against_torch(torch, name, module, wrap, shape):
    def build(lib):
        m = eval(module, {"lib": lib})
        m = eval(wrap, {"lib": lib, "m": m, "P": lib.nn.utils.parametrizations})
        return _train_step(lib, m, shape)
    e, t = _both(torch, build)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert_same(list(e.state_dict().values()), list(t.state_dict().values()),
                atol=1e-6, rtol=1e-5)
    assert_same(_grads(e), _grads(t), atol=1e-6, rtol=1e-5)
    assert type(e.weight.grad_fn).__name__ == type(t.weight.grad_fn).__name__


def test_weight_norm_float64_gradcheck():
    m = ember.nn.Linear(3, 2).double()
    ember.nn.utils.parametrizations.weight_norm(m)
    g, v = m.parametrizations.weight.original0, m.parametrizations.weight.original1
    weight_norm = m.parametrizations.weight[0]
    assert ember.autograd.gradcheck(weight_norm, (g, v))


def test_spectral_norm_eval_and_removal(torch):
    def build(lib):
        m = lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(4, 4))
        m.eval()
        first = m.weight.detach().clone()
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
        legacy = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3))
        lib.nn.utils.remove_spectral_norm(legacy)
        return first, m.weight, legacy.weight, list(legacy.state_dict())
    e, t = _both(torch, build)
    assert_same(e[:3], t[:3], atol=1e-6, rtol=1e-5)
    assert e[3] == t[3]


def test_spectral_norm_state_dict_metadata(torch):
    e, t = _both(torch, lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2)).state_dict())
    assert e._metadata[""]["spectral_norm"] == t._metadata[""]["spectral_norm"]


def test_weight_norm_loads_legacy_keys(torch):
    def build(lib):
        old = lib.nn.utils.weight_norm(lib.nn.Linear(3, 2))
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2))
        new.load_state_dict(old.state_dict())
        return new.weight
    with pytest.warns(FutureWarning):
        e, t = _both(torch, build)
    assert_same(e, t)


def test_parametrization_errors(torch):
    P = "lib.nn.utils.parametrizations"
    for expression in (f"{P}.orthogonal(lib.nn.Linear(2, 2), orthogonal_map='cayleyy')",
                       f"{P}.orthogonal(lib.nn.Linear(2, 2), 'bias')",
                       f"{P}.orthogonal(lib.nn.Linear(2, 2), name='nothing')",
                       f"{P}.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)",
                       f"{P}.spectral_norm(lib.nn.Linear(2, 2), dim=2)",
                       "lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)",
                       "lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2))",
                       "lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm("
                       "lib.nn.Linear(2, 2)))"):
        assert_same_error(lambda lib: eval(expression, {"lib": lib}))


def test_skip_init(torch):
    def build(lib):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 4, 3, bias=False)
        return list(m.state_dict()), m.weight.shape, lib.rand(2)
    e, t = _both(torch, build)
    assert e[:2] == t[:2]
    assert_same(e[2], t[2])             # no random numbers drawn
    assert_same_error(lambda lib: lib.nn.utils.skip_init(int))
    assert_same_error(lambda lib: lib.nn.utils.skip_init(lib.nn.Identity))


# ---------------------------------------------------------------- layers
RNG = np.random.default_rng(12)


def _array(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


MODULES = [
    "nn.RMSNorm(3)", "nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False)",
    "nn.RMSNorm(4, dtype=lib.float64)",
    "nn.CrossMapLRN2d(3)", "nn.CrossMapLRN2d(4, alpha=0.1, beta=0.5, k=2)",
]


@pytest.mark.parametrize("expression", MODULES)
def test_module_repr_and_state(torch, expression):
    built = {lib: eval(expression, {"nn": lib.nn, "lib": lib}) for lib in (torch, ember)}
    assert repr(built[ember]) == repr(built[torch])
    assert list(built[ember].state_dict()) == list(built[torch].state_dict())
    assert_same(list(built[ember].state_dict().values()),
                list(built[torch].state_dict().values()))


def _forward_backward(torch, call, arrays, atol=None, rtol=None, grad_fn=True):
    """call(lib, *tensors) in both libraries: values, gradients and grad_fn names agree."""
    results = {}
    for lib in (torch, ember):
        tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = call(lib, *tensors)
        weights = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                             dtype=out.dtype)
        (out * weights).sum().backward()
        results[lib] = (out, [t.grad for t in tensors if t.requires_grad],
                        type(out.grad_fn).__name__)
    assert_same(results[ember][:2], results[torch][:2], atol=atol, rtol=rtol)
    if grad_fn:
        assert results[ember][2] == results[torch][2]


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8])  # size 1: torch's backward raises
@pytest.mark.parametrize("channels", [1, 3, 7])
def test_cross_map_lrn2d(torch, size, channels):
    x = _array(2, channels, 3, 2)
    _forward_backward(torch, lambda lib, x: lib.nn.CrossMapLRN2d(size, 0.5, 0.75, 1.5)(x),
                      [x], atol=1e-6, rtol=1e-5)


def test_cross_map_lrn2d_error(torch):
    assert_same_error(lambda lib: lib.nn.CrossMapLRN2d(3)(lib.ones(2, 3, 4)))


RMS_CALLS = [
    ((3, 4), (4,), False, None), ((2, 3, 4), (3, 4), True, None), ((2, 5), (5,), True, 1e-2),
]


@pytest.mark.parametrize("shape, normalized, affine, eps", RMS_CALLS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rms_norm(torch, shape, normalized, affine, eps, dtype):
    arrays = [_array(*shape, dtype=dtype)] + ([_array(*normalized, dtype=dtype)] if affine
                                               else [])
    for name in ("nn.functional.rms_norm", "rms_norm"):
        def call(lib, x, *weight):
            fn = eval(f"lib.{name}", {"lib": lib})
            return fn(x, list(normalized), *weight, eps=eps)
        _forward_backward(torch, call, arrays)


def test_rms_norm_half_and_errors(torch):
    x = _array(2, 3).astype(np.float16)
    _forward_backward(torch, lambda lib, x: lib.nn.functional.rms_norm(x, (3,)), [x],
                      atol=1e-3, rtol=1e-3)
    assert_same_error(lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3), (2,)))
    assert_same_error(lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3), (3,),
                                                             weight=lib.ones(2)))


@pytest.mark.parametrize("shape, dim", [((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 0),
                                        ((2, 3, 4), 2), ((2, 3, 4), 1), ((3, 4), -1)])
def test_weight_norm_interface(torch, shape, dim):
    v = _array(*shape, dtype=np.float64)
    g_shape = [1] * len(shape)
    if dim != -1:
        g_shape[dim] = shape[dim]
    g = _array(*g_shape, dtype=np.float64)
    _forward_backward(torch, lambda lib, v, g: lib._weight_norm(v, g, dim), [v, g])
    ev = ember.tensor(v, requires_grad=True)
    eg = ember.tensor(g, requires_grad=True)
    assert ember.autograd.gradcheck(lambda v, g: ember._weight_norm(v, g, dim), (ev, eg))
    assert ember.autograd.gradgradcheck(lambda v, g: ember._weight_norm(v, g, dim), (ev, eg))
    assert_same(ember.norm_except_dim(ember.tensor(v), 2, dim),
                torch.norm_except_dim(torch.tensor(v), 2, dim))


# ---------------------------------------------------------------- pdist, pools
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("rows", [1, 2, 5])
def test_pdist(torch, p, rows):
    x = _array(rows, 3, dtype=np.float64)
    x[-1] = x[0]                                # a zero distance
    x[0, 1] = x[rows // 2, 1]                   # a zero coordinate difference
    for name in ("pdist", "nn.functional.pdist"):
        _forward_backward(torch, lambda lib, x: eval(f"lib.{name}", {"lib": lib})(x, p), [x])
    if rows > 1 and p not in (0.0, 0.5):
        x = ember.tensor(_array(rows, 3, dtype=np.float64), requires_grad=True)
        assert ember.autograd.gradcheck(lambda x: ember.pdist(x, p), (x,))
        assert ember.autograd.gradgradcheck(lambda x: ember.pdist(x, p), (x,))


def test_pdist_errors(torch):
    for call in ("pdist(lib.ones(3))", "pdist(lib.ones(3, 2, dtype=lib.int64))",
                 "pdist(lib.ones(3, 2), -1.0)"):
        assert_same_error(lambda lib: eval(f"lib.{call}", {"lib": lib}))


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, float("inf"), -float("inf")])
def test_lp_pool3d(torch, norm_type):
    x = np.abs(_array(2, 2, 4, 5, 4, dtype=np.float64)) + 0.1
    for kwargs in ({"kernel_size": 2}, {"kernel_size": (2, 3, 1), "stride": (1, 2, 2)},
                   {"kernel_size": 3, "ceil_mode": True}):
        _forward_backward(torch, lambda lib, x: lib.nn.functional.lp_pool3d(x, norm_type,
                                                                            **kwargs), [x])
        _forward_backward(torch, lambda lib, x: lib.nn.LPPool3d(norm_type, **kwargs)(x[0]),
                          [x])


FRACTIONAL = [
    (2, (2, 3, 7, 6), 2, {"output_size": 3}), (2, (3, 7, 6), (2, 3), {"output_size": (2, 4)}),
    (2, (2, 3, 7, 6), 3, {"output_ratio": (0.5, 0.7)}), (2, (1, 1, 5, 5), 5, {"output_size": 1}),
    (3, (2, 2, 7, 6, 5), 2, {"output_size": 3}), (3, (2, 6, 5, 7), (1, 2, 3),
                                                  {"output_ratio": (0.5, 0.7, 0.6)}),
]


@pytest.mark.parametrize("n, shape, kernel, kwargs", FRACTIONAL)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool_seeded(torch, n, shape, kernel, kwargs, dtype):
    """After manual_seed, ember draws the same window samples as torch: equal values/indices."""
    x = _array(*shape, dtype=dtype)

    def call(lib, x):
        lib.manual_seed(5)
        f = getattr(lib.nn.functional, f"fractional_max_pool{n}d")
        values, indices = f(x, kernel, return_indices=True, **kwargs)
        call.indices[lib] = indices
        return values
    call.indices = {}
    _forward_backward(torch, call, [x])
    assert_same(call.indices[ember], call.indices[torch])

    def module(lib, x):
        lib.manual_seed(6)
        cls = getattr(lib.nn, f"FractionalMaxPool{n}d")
        return cls(kernel, **kwargs)(x)
    _forward_backward(torch, module, [x])


def test_fractional_max_pool_explicit_samples_and_errors(torch):
    x = _array(2, 3, 6, 6)
    samples = RNG.uniform(size=(2, 3, 2)).astype(np.float32)
    _forward_backward(torch, lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x, 2, output_size=4, _random_samples=lib.tensor(samples)), [x])
    F = "lib.nn.functional."
    for call in (F + "fractional_max_pool2d(lib.ones(1, 2, 5, 5), 4, output_size=4)",
                 F + "fractional_max_pool3d(lib.ones(1, 1, 4, 4, 4), 2, output_size=4)",
                 F + "fractional_max_pool2d(lib.ones(1, 2, 5, 5), 2)",
                 F + "fractional_max_pool2d(lib.ones(1, 2, 5, 5), 2, output_size=2, "
                     "_random_samples=lib.rand(1, 3, 2))",
                 "lib.nn.FractionalMaxPool2d(2)", "lib.nn.FractionalMaxPool3d(2)",
                 "lib.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)",
                 "lib.nn.FractionalMaxPool2d(2, output_ratio=1.5)"):
        assert_same_error(lambda lib: eval(call, {"lib": lib}))


@pytest.mark.parametrize("expression", [
    "nn.LPPool3d(2, 2)", "nn.LPPool3d(1.5, (2, 1, 2), stride=1, ceil_mode=True)",
    "nn.FractionalMaxPool2d(2, output_size=3)", "nn.FractionalMaxPool3d(2, output_ratio=0.5)"])
def test_pool_module_reprs(torch, expression):
    built = {lib: eval(expression, {"nn": lib.nn, "lib": lib}) for lib in (torch, ember)}
    assert repr(built[ember]) == repr(built[torch])
    assert list(built[ember].state_dict()) == list(built[torch].state_dict())


# ---------------------------------------------------------------- embedding_bag
BAGS = [
    ({"input": [0, 1, 4, 1, 2, 5], "offsets": [0, 2, 2]}, ("sum", "mean", "max")),
    ({"input": [[0, 1, 4], [1, 2, 5]]}, ("sum", "mean", "max")),
    ({"input": [0, 1, 4, 1, 2, 5], "offsets": [0, 2, 4], "include_last_offset": True},
     ("sum", "mean", "max")),
    ({"input": [0, 1, 4, 1, 2, 5], "offsets": [0, 3], "padding_idx": 1}, ("sum", "mean", "max")),
    ({"input": [[1, 1], [0, 2]], "padding_idx": -5}, ("sum", "mean", "max")),
]


@pytest.mark.parametrize("case, modes", BAGS)
def test_embedding_bag(torch, case, modes):
    weight = _array(6, 3, dtype=np.float64)
    for mode in modes:
        def call(lib, w):
            args = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in case.items()}
            return lib.nn.functional.embedding_bag(weight=w, mode=mode, **args)
        _forward_backward(torch, call, [weight])


def test_embedding_bag_per_sample_weights(torch):
    arrays = [_array(6, 3, dtype=np.float64), _array(6, dtype=np.float64)]

    def call(lib, w, samples):
        return lib.nn.functional.embedding_bag(lib.tensor([0, 1, 4, 1, 2, 5]), w,
                                               lib.tensor([0, 2, 2]), mode="sum",
                                               per_sample_weights=samples, padding_idx=2)
    _forward_backward(torch, call, arrays)
    w, s = (ember.tensor(a, requires_grad=True) for a in arrays)
    assert ember.autograd.gradcheck(lambda w, s: call(ember, w, s), (w, s))


def test_embedding_bag_module(torch):
    def build(lib):
        bag = lib.nn.EmbeddingBag(6, 3, mode="max", padding_idx=0)
        out = bag(lib.tensor([0, 2, 4, 1, 5]), lib.tensor([0, 3]))
        out.sum().backward()
        return bag, out
    (e, e_out), (t, t_out) = _both(torch, build)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert_same([e_out, e.weight.grad], [t_out, t.weight.grad])
    for expression in ("nn.EmbeddingBag(5, 3)", "nn.EmbeddingBag(5, 3, max_norm=1., "
                       "norm_type=1., scale_grad_by_freq=True, mode='sum', padding_idx=1, "
                       "include_last_offset=True)"):
        built = {lib: eval(expression, {"nn": lib.nn}) for lib in (torch, ember)}
        assert repr(built[ember]) == repr(built[torch])
    table = _array(4, 2)
    e_bag, t_bag = (lib.nn.EmbeddingBag.from_pretrained(lib.tensor(table), mode="sum")
                    for lib in (ember, torch))
    assert_same(e_bag(ember.tensor([[0, 3], [2, 2]])), t_bag(torch.tensor([[0, 3], [2, 2]])))


def test_embedding_bag_errors(torch):
    F = "lib.nn.functional.embedding_bag"
    for call in (f"{F}(lib.tensor([0, 1]), lib.ones(5, 3))",
                 f"{F}(lib.tensor([[0, 1]]), lib.ones(5, 3), lib.tensor([0]))",
                 f"{F}(lib.tensor([0, 1]), lib.ones(5, 3), lib.tensor([[0]]))",
                 f"{F}(lib.tensor([0, 7]), lib.ones(5, 3), lib.tensor([0]))",
                 f"{F}(lib.tensor([0, 1]), lib.ones(5, 3), lib.tensor([1]))",
                 f"{F}(lib.tensor([0, 1]), lib.ones(5, 3), lib.tensor([0]), mode='xx')",
                 f"{F}(lib.tensor([0, 1]), lib.ones(5, 3), lib.tensor([0]), padding_idx=7)",
                 f"{F}(lib.tensor([0, 1]), lib.ones(5, 3), lib.tensor([0]), mode='max', "
                 "scale_grad_by_freq=True)",
                 f"{F}(lib.tensor([0, 1]), lib.ones(5, 3), lib.tensor([0]), mode='mean', "
                 "per_sample_weights=lib.ones(2))",
                 "lib.nn.EmbeddingBag(5, 3, padding_idx=5)"):
        assert_same_error(lambda lib: eval(call, {"lib": lib}))


# ---------------------------------------------------------------- ctc_loss
CTC_CASES = [
    ([[1, 2, 2], [1, 1, 0], [3, 4, 1]], [6, 5, 6], [3, 2, 1]),      # padded targets
    ([1, 2, 2, 1, 1, 3], [6, 5, 6], [3, 2, 1]),                     # concatenated
    ([[1, 1, 1], [1, 1, 0], [3, 4, 1]], [6, 5, 4], [3, 0, 1]),      # repeats, empty target
]


@pytest.mark.parametrize("targets, input_lengths, target_lengths", CTC_CASES)
@pytest.mark.parametrize("kwargs", [{"reduction": "none"}, {"reduction": "sum"}, {},
                                    {"zero_infinity": True}, {"blank": 4, "reduction": "none"}])
def test_ctc_loss(torch, targets, input_lengths, target_lengths, kwargs):
    logits = _array(6, 3, 5, dtype=np.float64)
    if kwargs.get("blank") == 4:
        targets = np.where(np.asarray(targets) == 4, 2, targets).tolist()

    def call(lib, logits):
        return lib.nn.functional.ctc_loss(logits.log_softmax(2), lib.tensor(targets),
                                          input_lengths, target_lengths, **kwargs)
    _forward_backward(torch, call, [logits])

    def door(lib, logits):
        return lib.nn.CTCLoss(**kwargs)(logits.log_softmax(2), lib.tensor(targets),
                                        lib.tensor(input_lengths), lib.tensor(target_lengths))
    _forward_backward(torch, door, [logits])


def test_ctc_loss_impossible_and_unbatched(torch):
    logits = _array(4, 2, 3)
    for zero_infinity in (False, True):
        def call(lib, logits):
            return lib.nn.functional.ctc_loss(logits.log_softmax(2), lib.tensor([[1, 1, 1]] * 2),
                                              [2, 4], [3, 1], reduction="none",
                                              zero_infinity=zero_infinity)
        _forward_backward(torch, call, [logits])
    _forward_backward(torch, lambda lib, x: lib.nn.functional.ctc_loss(
        x.log_softmax(1), lib.tensor([1, 2]), lib.tensor(4), lib.tensor(2)), [logits[:, 0]])
    assert repr(ember.nn.CTCLoss(blank=2, reduction="sum", zero_infinity=True)) == \
        repr(torch.nn.CTCLoss(blank=2, reduction="sum", zero_infinity=True))


# ---------------------------------------------------------------- adaptive softmax
def test_adaptive_log_softmax(torch):
    x = _array(7, 8)
    target = np.array([0, 2, 3, 5, 6, 9, 4])

    def build(lib):
        m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
        inputs = lib.tensor(x, requires_grad=True)
        result = m(inputs, lib.tensor(target))
        (result.output.sum() + result.loss).backward()
        return (m, result, inputs.grad, m.log_prob(inputs.detach()),
                m.predict(inputs.detach()), m(inputs[0].detach(), lib.tensor(5)))
    e, t = _both(torch, build)
    assert repr(e[0]) == repr(t[0])
    assert list(e[0].state_dict()) == list(t[0].state_dict())
    assert type(e[1]).__name__ == type(t[1]).__name__ and e[1]._fields == t[1]._fields
    assert_same(list(e[1]) + [e[2], e[3], e[4]] + list(e[5]),
                list(t[1]) + [t[2], t[3], t[4]] + list(t[5]))
    assert_same(_grads(e[0]), _grads(t[0]))
    for call in ("nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])",
                 "nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])",
                 "nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10])",
                 "nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.ones(2, 8), lib.tensor([1, 12]))",
                 "nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(lib.ones(2, 8), lib.tensor([[1]]))"):
        assert_same_error(lambda lib: eval(call, {"nn": lib.nn, "lib": lib}))


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_torch_ctc_loss_door(torch, reduction):
    logits = _array(6, 3, 5, dtype=np.float64)
    targets, input_lengths, target_lengths = CTC_CASES[0]
    _forward_backward(torch, lambda lib, x: lib.ctc_loss(
        x.log_softmax(2), lib.tensor(targets), input_lengths, target_lengths, 0, reduction),
        [logits])


def test_fractional_doors_and_empty_windows(torch):
    """Every door by name (the coverage check reads names), and kernels with empty windows."""
    x2, x3 = _array(1, 2, 5, 5), _array(1, 2, 5, 5, 5)

    def doors(lib, x2, x3):
        F = lib.nn.functional
        results = []
        for seed, call in enumerate((
                lambda: F.fractional_max_pool2d_with_indices(x2, 2, output_size=3),
                lambda: F.fractional_max_pool3d(x3, 2, output_size=3, return_indices=True),
                lambda: F.fractional_max_pool3d_with_indices(x3, 2, output_ratio=(0.5,) * 3),
                lambda: F.fractional_max_pool2d(x2, (0, 2), output_size=2,
                                                return_indices=True))):
            lib.manual_seed(seed)
            results.extend(call())
        return results
    e = doors(ember, ember.tensor(x2), ember.tensor(x3))
    t = doors(torch, torch.tensor(x2), torch.tensor(x3))
    assert_same(e, t)
