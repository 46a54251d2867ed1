"""The optional compiled kernels (numba) against the NumPy code they replace.

The NumPy code is the reference: a compiled kernel must give the same bits on every
input, so that results do not depend on whether numba is installed. Draws large enough
to take the compiled path are compared with the same draws through NumPy alone (the
kernel module hidden), and with PyTorch in test_random_large.py.
"""
import copy

import numpy as np
import pytest

import ember
from ember import _compiled, _random, _random_kernels

pytest.importorskip("numba")
kernels = _compiled.load("random_kernels")

LARGE = _random._COMPILED_MIN


def _rows_of_every_input():
    """Rows of 16 raw draws whose first halves hold every 24-bit value once and whose
    second halves hold every value in reverse, with random upper bits (the kernel
    ignores them)."""
    every = np.arange(1 << 24, dtype=np.uint32)
    upper = np.random.default_rng(0).integers(0, 256, 1 << 24, dtype=np.uint32) << 24
    rows = np.empty(((1 << 24) // 8, 16), np.uint32)
    rows[:, :8] = (every | upper).reshape(-1, 8)
    rows[:, 8:] = (every[::-1] | upper[::-1]).reshape(-1, 8)
    return rows


def test_normal_kernel_matches_the_numpy_kernel_on_every_input():
    rows = _rows_of_every_input()
    expected = _random_kernels._normal_fill_avx2(rows, 0.0, 1.0)
    got = np.empty(rows.size, np.float32)
    kernels.normal_fill_float(rows.reshape(-1), got, np.float32(0), np.float32(1), False)
    assert np.array_equal(got.view(np.uint32), expected.reshape(-1).view(np.uint32))


@pytest.mark.parametrize("mean, std", [(0.5, 2.0), (-3.0, 1.0), (0.0, 1e-3), (1e4, 0.1)])
def test_normal_kernel_with_mean_and_std_matches_the_numpy_kernel(mean, std):
    rows = np.random.default_rng(1).integers(0, 1 << 32, (4099, 16), dtype=np.uint32)
    expected = _random_kernels._normal_fill_avx2(rows, mean, std)
    got = np.empty(rows.size, np.float32)
    kernels.normal_fill_float(rows.reshape(-1), got, np.float32(mean), np.float32(std), True)
    assert np.array_equal(got.view(np.uint32), expected.reshape(-1).view(np.uint32))


@pytest.mark.parametrize("skip", [0, 1, 396, 623, 624])
@pytest.mark.parametrize("n", [1, 227, 623, 624, 625, 1249, 70_001])
def test_mt19937_fill_gives_numpys_words_and_state(skip, n):
    reference = np.random.MT19937(0)
    reference.state = {"bit_generator": "MT19937",
                       "state": {"key": _random._init_genrand(1234), "pos": 624}}
    np.random.Generator(reference).integers(0, 1 << 32, skip, dtype=np.uint32)
    state = reference.state["state"]
    words = np.append(state["key"], np.uint32(state["pos"]))
    got = np.empty(n, np.uint32)
    kernels.mt19937_fill(words, got)
    expected = np.random.Generator(reference).integers(0, 1 << 32, n, dtype=np.uint32)
    after = reference.state["state"]
    assert np.array_equal(got, expected)
    assert np.array_equal(words[:624], after["key"]) and words[624] == after["pos"]


def _large_draws():
    """Draws that take the compiled path where numba is installed, with the state after."""
    ember.manual_seed(7)
    g = ember.Generator().manual_seed(11)
    values = [ember.randn(LARGE + 5), ember.rand(LARGE), ember.randn(LARGE + 16, generator=g),
              ember.randint(0, 1000, (LARGE,)), ember.randn(LARGE, dtype=ember.float16),
              ember.empty(LARGE * 2).normal_(3.0, 0.5), ember.randn(LARGE // 16 * 16 + 9),
              ember.rand(5), ember.randn(40)]
    return [v.numpy().tobytes() for v in values] + [ember.get_rng_state().numpy().tobytes(),
                                                    g.get_state().numpy().tobytes()]


def test_large_draws_are_the_same_with_and_without_the_compiled_kernels(monkeypatch):
    compiled = _large_draws()
    monkeypatch.setitem(_compiled._modules, "random_kernels", None)
    assert _large_draws() == compiled


def test_a_copied_generator_draws_from_its_own_state():
    g = ember.Generator().manual_seed(3)
    ember.randn(LARGE, generator=g)      # g's state is now mapped for the compiled kernel
    twin = copy.deepcopy(g)
    first, second = ember.randn(LARGE, generator=g), ember.randn(LARGE, generator=twin)
    assert ember.equal(first, second)
    assert ember.equal(g.get_state(), twin.get_state())
    ember.randn(LARGE, generator=g)
    assert not ember.equal(g.get_state(), twin.get_state())


def _adam_run(name, kwargs, dtype):
    """Three steps of `name` over a group large enough for the compiled kernel (with a
    transposed gradient, and NaN and inf among the gradients); params and state, as bytes."""
    rng = np.random.default_rng(2)
    shapes = [(300, 256), (256,), (17,)]
    params = [ember.nn.Parameter(ember.tensor(rng.standard_normal(s) * 0.1, dtype=dtype))
              for s in shapes]
    optimizer = getattr(ember.optim, name)(params, **kwargs)
    for step in range(3):
        grads = [rng.standard_normal(s) for s in shapes]
        grads[2][step] = (np.nan, np.inf, -np.inf)[step]
        params[0].grad = ember.tensor(grads[0].T.copy(), dtype=dtype).t()
        for p, g in zip(params[1:], grads[1:]):
            p.grad = ember.tensor(g, dtype=dtype)
        optimizer.step()
    state = [t.numpy().tobytes() for p in params for t in optimizer.state[p].values()]
    return [p.detach().numpy().tobytes() for p in params] + state


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("name, kwargs", [
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("Adam", {"maximize": True, "lr": 0.1}),
    ("Adam", {"betas": (0.3, 0.5), "eps": 1e-3}), ("Adam", {"weight_decay": 0.1}),
    ("AdamW", {}), ("AdamW", {"amsgrad": True, "lr": 0.01, "weight_decay": 0.5})])
def test_adam_steps_are_the_same_with_and_without_the_compiled_kernel(monkeypatch, name,
                                                                       kwargs, dtype):
    compiled = _adam_run(name, kwargs, dtype)
    monkeypatch.setitem(_compiled._modules, "optim_kernels", None)
    assert _adam_run(name, kwargs, dtype) == compiled


def test_the_adam_benchmark_group_takes_the_compiled_kernel(monkeypatch):
    """The group of the tests above is large enough (so they compare two paths)."""
    calls = []
    kernel = _compiled.load("optim_kernels").adam_update
    monkeypatch.setattr(_compiled.load("optim_kernels"), "adam_update",
                        lambda *args: calls.append(1) or kernel(*args))
    _adam_run("Adam", {}, ember.float32)
    assert len(calls) == 9


def test_an_unexpected_state_layout_falls_back_to_numpy(monkeypatch):
    """Where NumPy's mt19937 state is not the key followed by the position, the generator
    notices at once and draws through NumPy, with the same values."""
    expected = _large_draws()
    monkeypatch.setattr(_random, "_STATE_STRUCT", _random._STATE_STRUCT._type_ * 626)
    fresh = ember.Generator()
    assert fresh._state_words() is None and fresh._words is False
    monkeypatch.setattr(ember.Generator, "_state_words", lambda self: None)
    assert _large_draws() == expected


# ---------------------------------------------------------------- gelu
def _gelu_inputs():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(1 << 17) * 4).astype(np.float32)
    specials = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e20, -1e20, 13.5, -13.5, 9.0,
                -9.0, 1e-40, -1e-40, 1e-3, -1e-3, 3.4e38, -3.4e38]
    x[:len(specials)] = specials
    return x


def _sleef_exps(values):
    """`_sleef.exp` of each float32 value."""
    import numba
    from ember._compiled import _sleef

    @numba.njit
    def each(x, out):
        for i in range(x.size):
            out[i] = _sleef.exp(x[i])
    out = np.empty_like(values)
    each(values, out)
    return out


def test_gelu_kernel_differs_from_the_numpy_formula_only_through_exp():
    """The exponential is the only operation computed differently (SLEEF's in the kernel,
    within NumPy's stated ulps in NumPy): the density is within 2 ulps (measured 2), and
    gelu within the absolute error 1 + erf(x / sqrt 2) carries in float32."""
    from ember.ops import _erf
    kernels = _compiled.load("activation_kernels")
    x = _gelu_inputs()
    result, one_plus, density = (np.empty_like(x) for _ in range(3))
    kernels.gelu_forward(x, result, one_plus, density)
    numpy_one_plus, numpy_density = _erf.gelu_parts(np, x)
    with np.errstate(invalid="ignore", over="ignore"):
        numpy_result = numpy_one_plus * x
        numpy_result *= np.float32(0.5)
        exponent = x * x * np.float32(-0.5) + np.float32(_erf._LOG_INV_SQRT_2PI)
    assert np.array_equal(density, _sleef_exps(exponent), equal_nan=True)
    np.testing.assert_array_max_ulp(density, numpy_density, maxulp=2)
    _assert_within_gelus_error(result, numpy_result, _gelu_bounds(x, x)[0])


def _assert_within_gelus_error(got, expected, bound):
    """Equal where either is not finite; elsewhere apart by at most `bound`, what two ulps
    of 1 + erf(x / sqrt 2) (float32's 1.2e-7 each) and of the density can move them."""
    finite = np.isfinite(got) & np.isfinite(expected)
    assert np.array_equal(got[~finite], expected[~finite], equal_nan=True)
    gap = np.abs(got[finite].astype(np.float64) - expected[finite])
    assert (gap <= bound[finite]).all()
    clear = finite & (np.abs(expected) > bound)   # a sign the error bound cannot flip
    assert np.array_equal(np.signbit(got[clear]), np.signbit(expected[clear]))


def _gelu_bounds(x, grad):
    """(forward, backward) bounds: x / 2 times two ulps of one_plus, plus the result's own
    rounding (measured at most 1.63e-7 |x|); grad times as much again with the density's
    share."""
    x = np.abs(x.astype(np.float64))
    return 2.5e-7 * x, 3e-7 * np.abs(grad) * (1 + x)


def test_gelu_backward_kernel_is_the_numpy_formula_bit_for_bit():
    from ember.ops import _erf
    kernels = _compiled.load("activation_kernels")
    x = _gelu_inputs()
    one_plus, density = _erf.gelu_parts(np, x)
    grad = np.random.default_rng(4).standard_normal(x.size).astype(np.float32)
    got = np.empty_like(x)
    kernels.gelu_backward(x, one_plus, density, grad, got)
    with np.errstate(invalid="ignore"):
        expected = x * density
        expected += 0.5 * one_plus
        expected *= grad
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_gelu_with_and_without_the_compiled_kernels(monkeypatch, layout, approximate):
    """A large gelu and its gradient agree with the NumPy path (to the bound above), and
    a strided input, which the kernel does not take, gives the NumPy path's bits."""
    x = _gelu_inputs().reshape(512, 256)
    grad = np.random.default_rng(5).standard_normal((512, 256)).astype(np.float32)
    if layout == "transposed":
        x, grad = x.T, grad.T

    def run():
        t = ember.tensor(x).requires_grad_()
        if layout == "transposed":
            t = ember.tensor(x.T).t().detach().requires_grad_()
        out = ember.nn.functional.gelu(t, approximate=approximate)
        out.backward(ember.tensor(grad))
        return out.detach().numpy(), t.grad.numpy()

    compiled = run()
    monkeypatch.setitem(_compiled._modules, "activation_kernels", None)
    plain = run()
    if layout == "transposed":
        assert all(np.array_equal(a.view(np.uint32), b.view(np.uint32))
                   for a, b in zip(compiled, plain))
        return
    for got, expected, bound in zip(compiled, plain, _gelu_bounds(x, grad)):
        _assert_within_gelus_error(got, expected, bound)


def test_gelu_tanh_kernels_differ_from_the_formulas_only_through_tanh():
    """gelu(approximate='tanh'): the same float32 operations as nn_activation's forward
    and backward formulas; tanh is computed in float64 and rounded (correctly, but for
    rare double roundings), where NumPy's float32 tanh may be an ulp or two off."""
    kernels = _compiled.load("activation_kernels")
    x = _gelu_inputs()
    grad = np.random.default_rng(6).standard_normal(x.size).astype(np.float32)
    result, got_grad = np.empty_like(x), np.empty_like(x)
    kernels.gelu_tanh_forward(x, result)
    kernels.gelu_tanh_backward(x, grad, got_grad)
    beta, kappa = np.float32(np.sqrt(2 / np.pi)), np.float32(0.044715)
    with np.errstate(all="ignore"):
        inner = beta * (x + kappa * x * x * x)
        expected = np.float32(0.5) * x * (1 + np.tanh(inner))
        square = x * x
        back = np.tanh((x + square * x * kappa) * beta)
        right = np.float32(0.5) * x * (1 - back * back) * beta * (1 + np.float32(3 * 0.044715)
                                                                  * square)
        expected_grad = grad * (np.float32(0.5) * (1 + back) + right)
    forward_bound, backward_bound = _gelu_bounds(x, grad)
    _assert_within_gelus_error(result, expected, forward_bound)
    _assert_within_gelus_error(got_grad, expected_grad, backward_bound)
    tanh = np.tanh(inner.astype(np.float64)).astype(np.float32)   # correctly rounded
    exact = np.float32(0.5) * x * (1 + tanh)
    assert np.mean(result == exact) > 0.9999


# ---------------------------------------------------------------- embedding backward
@pytest.mark.parametrize("dtype, index_dtype", [(np.float32, np.int64), (np.float64, np.int64),
                                                (np.float32, np.int32)])
def test_index_add_rows_is_ufunc_at_bit_for_bit(dtype, index_dtype):
    """Repeated indices add in input order, as ufunc.at (and PyTorch's index_add_) do."""
    rng = np.random.default_rng(7)
    indices = rng.integers(0, 9, 4096).astype(index_dtype)
    rows = (rng.standard_normal((4096, 48)) * 10.0 ** rng.integers(-6, 6, (4096, 1))).astype(dtype)
    got = np.zeros((9, 48), dtype)
    _compiled.load("index_kernels").index_add_rows(got, indices, rows)
    expected = np.zeros((9, 48), dtype)
    np.add.at(expected, indices, rows)
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_gradient_with_and_without_the_compiled_kernel(monkeypatch, padding_idx):
    rng = np.random.default_rng(8)
    ids = ember.tensor(rng.integers(0, 65, (16, 64)))
    grad = ember.tensor(rng.standard_normal((16, 64, 128)).astype(np.float32))

    def run():
        weight = ember.tensor(rng.standard_normal((65, 128)).astype(np.float32) * 0 + 1,
                              requires_grad=True)
        ember.nn.functional.embedding(ids, weight, padding_idx=padding_idx).backward(grad)
        return weight.grad.numpy()

    compiled = run()
    monkeypatch.setitem(_compiled._modules, "index_kernels", None)
    assert np.array_equal(run().view(np.uint32), compiled.view(np.uint32))


# ---------------------------------------------------------------- layer_norm
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_with_and_without_the_compiled_kernels(monkeypatch, affine):
    """The kernels sum in float64 where the NumPy path sums in float32 (OpenBLAS's order):
    outputs and gradients agree to a few float32 ulps of their scale, and the sums come
    out at least as close to float64 arithmetic."""
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((16, 64, 128)) * 3 + 1).astype(np.float32)
    x[0, 0] = 5.0                                    # a constant row: xhat is all zero
    grad = rng.standard_normal(x.shape).astype(np.float32)
    weight = (rng.standard_normal(128) * 2).astype(np.float32)
    weight[:3] = 0.0                                 # zero weights: +0.0 without a bias
    bias = rng.standard_normal(128).astype(np.float32)
    params = {"both": (weight, bias), "weight": (weight, None), "bias": (None, bias),
              "none": (None, None)}[affine]

    def run():
        t = ember.tensor(x, requires_grad=True)
        ps = [None if p is None else ember.tensor(p, requires_grad=True) for p in params]
        out = ember.nn.functional.layer_norm(t, (128,), *ps)
        out.backward(ember.tensor(grad))
        return [out.detach().numpy(), t.grad.numpy()] + [p.grad.numpy() for p in ps
                                                         if p is not None]

    compiled = run()
    monkeypatch.setitem(_compiled._modules, "norm_kernels", None)
    plain = run()
    # measured: 0.71 and 0.85 eps of the scale for out and x's gradient; 2.0 and 3.9 for
    # the parameters' gradients, each a sum over 1024 rows
    scale = [2.0, 2.0] + [8.0] * (len(compiled) - 2)
    for got, expected, ulps in zip(compiled, plain, scale):
        tolerance = ulps * np.finfo(np.float32).eps * (np.abs(expected).max() + 1)
        assert np.abs(got.astype(np.float64) - expected).max() <= tolerance
    assert np.array_equal(np.signbit(compiled[0]), np.signbit(plain[0]))


def test_layer_norm_kernel_takes_only_float32_contiguous_work(monkeypatch):
    calls = []
    kernels = _compiled.load("norm_kernels")
    monkeypatch.setattr(kernels, "layer_norm_forward",
                        lambda *a, f=kernels.layer_norm_forward: calls.append(1) or f(*a))
    big = ember.randn(16, 64, 128)
    ember.nn.functional.layer_norm(big, (128,))
    ember.nn.functional.layer_norm(big.transpose(0, 1), (128,))       # strided: NumPy path
    ember.nn.functional.layer_norm(big.double(), (128,))              # float64: NumPy path
    ember.nn.functional.layer_norm(ember.randn(4, 128), (128,))       # small: NumPy path
    assert len(calls) == 1
