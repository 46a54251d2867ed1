"""softmax and log_softmax through the compiled kernels (`_compiled.softmax_kernels`).

The kernels replay PyTorch's vectorized last-dim kernels: SLEEF's float32 exp and log,
each row summed in PyTorch's register-lane order, its fused multiply-add in
log_softmax's gradient. So where ember's lane count is PyTorch's (the same CPU
capability), softmax, log_softmax and their gradients are PyTorch's bits. Against
ember's NumPy path (NumPy's own exp, BLAS's sums) the kernels agree to the bounds
measured below.
"""
import numpy as np
import pytest

import ember
from ember import _compiled
from ember.ops import nn_ops

pytest.importorskip("numba")
kernels = _compiled.load("softmax_kernels")
try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")
LANES = {"AVX512": 16, "AVX2": 8}


def _same_lanes_as_torch():
    return torch is not None and LANES.get(torch.backends.cpu.get_cpu_capability()) == \
        nn_ops._LANES


same_order = pytest.mark.skipif(not _same_lanes_as_torch(),
                                reason="PyTorch sums in another register width here")


def _bits(array):
    """The array's bits, every NaN alike (PyTorch's NaN maximum sets the sign bit)."""
    array = np.array(array, np.float32)
    array[np.isnan(array)] = np.nan
    return array.view(np.uint32)


def _rows(size, seed=0, scale=4.0):
    """float32 rows of `size`, enough for the compiled path, some with special values."""
    count = -(-_compiled.MIN_SIZE // size) + 16
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((count, size)) * scale).astype(np.float32)
    x[0, :] = -np.inf                     # a fully masked row
    x[1, -1] = np.nan
    x[2, 0] = np.inf
    x[3, :] = 88.0                        # equal large values
    x[4, size // 2:] = -np.inf            # a causal-mask row
    x[5, 0] = 1e30
    x[6, :] = rng.uniform(-1e-3, 1e-3, size)
    return x


SIZES = [1, 2, 7, 15, 16, 17, 33, 64, 65, 100, 512]


@needs_torch
@same_order
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("size", SIZES)
def test_values_and_gradients_are_pytorchs_bits(name, size):
    x = _rows(size)
    grad = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
    t = ember.tensor(x, requires_grad=True)
    out = getattr(ember, name)(t, -1)
    out.backward(ember.tensor(grad))
    tt = torch.tensor(x, requires_grad=True)
    expected = getattr(torch, name)(tt, -1)
    expected.backward(torch.tensor(grad))
    assert np.array_equal(_bits(out.detach().numpy()), _bits(expected.detach().numpy()))
    assert np.array_equal(_bits(t.grad.numpy()), _bits(tt.grad.numpy()))


@needs_torch
@same_order
def test_cross_entropy_of_a_large_batch_is_pytorchs_to_the_last_bit():
    """log_softmax's bits, then nll_loss's cascade: `loss.item()` prints as PyTorch's."""
    rng = np.random.default_rng(9)
    logits = (rng.standard_normal((4000, 65)) * 3).astype(np.float32)
    target = rng.integers(0, 65, 4000)
    got = ember.nn.functional.cross_entropy(ember.tensor(logits), ember.tensor(target))
    expected = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(target))
    assert repr(got.item()) == repr(expected.item())


def test_log_is_within_its_stated_error_everywhere():
    """`_sleef.log` on a spread of every positive float32 (subnormals included): within
    0.65 ulp of the exact log (measured 0.604; SLEEF's bound is 1), and the special
    values right."""
    import numba
    from ember._compiled import _sleef

    @numba.njit(error_model="numpy")
    def each(x, out):
        for i in range(x.size):
            out[i] = _sleef.log(x[i])

    values = np.arange(1, 0x7F800000, 89, dtype=np.uint32).view(np.float32)
    got = np.empty_like(values)
    each(values, got)
    exact = np.log(values.astype(np.float64))
    ulps = np.abs(got - exact) / np.spacing(np.abs(exact).astype(np.float32))
    assert ulps[exact != 0].max() <= 0.65
    specials = np.array([0.0, -0.0, -1.0, -np.inf, np.inf, np.nan, 1.0], np.float32)
    got = np.empty_like(specials)
    each(specials, got)
    assert np.array_equal(got, [-np.inf, -np.inf, np.nan, np.nan, np.inf, np.nan, 0.0],
                          equal_nan=True)


@needs_torch
def test_exp_is_the_one_pytorchs_softmax_kernels_use():
    """log_softmax's gradient with grad (-1, 0) on a row (y0, y) is exactly exp(y): the
    kernel's exp against PyTorch's on a spread of float32 values and every special."""
    values = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 88.72283, 88.72284, -87.33655,
                         -103.97208, -103.97209, -104.0, 100.0, 1e-45, -1e-45], np.float32)
    y = np.concatenate([values, specials])
    rows = np.zeros((y.size, 2), np.float32)
    rows[:, 1] = y
    grad = np.zeros_like(rows)
    grad[:, 0] = -1
    got = np.empty_like(rows)
    kernels.log_softmax_backward(grad.reshape(-1), rows.reshape(-1), got.reshape(-1), 2,
                                 nn_ops._LANES)
    expected = torch._log_softmax_backward_data(torch.tensor(grad), torch.tensor(rows), 1,
                                                torch.float32).numpy()
    assert np.array_equal(_bits(got[:, 1]), _bits(expected[:, 1]))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("size", [7, 64, 65, 512])
def test_with_and_without_the_compiled_kernels(monkeypatch, name, size):
    """The kernels against the NumPy path (NumPy's exp, BLAS's row sums): forward and
    gradient within a few float32 ulps of the row's scale."""
    x = _rows(size)[8:]          # special rows aside: NaN positions are checked above
    assert nn_ops._row_kernels(x, 1) is kernels
    grad = np.random.default_rng(3).standard_normal(x.shape).astype(np.float32)

    def run():
        t = ember.tensor(x, requires_grad=True)
        out = getattr(ember, name)(t, -1)
        out.backward(ember.tensor(grad))
        return out.detach().numpy(), t.grad.numpy()

    compiled = run()
    monkeypatch.setitem(_compiled._modules, "softmax_kernels", None)
    plain = run()
    eps = np.finfo(np.float32).eps
    for got, expected, scale, bound in zip(compiled, plain, *_scales(name, plain, grad)):
        assert np.all(np.abs(got - expected) <= bound * eps * scale)


def _scales(name, plain, grad):
    """Each row's scale for the comparison (its largest output; its largest gradient
    term), and the bounds in float32 eps of it: measured at most 2.8 and 1.6 for
    softmax, 1.0 and 0.64 for log_softmax, over the sizes above."""
    out, grad_in = plain
    rows = np.abs(grad).max(-1, keepdims=True)
    if name == "softmax":
        return ((out.max(-1, keepdims=True), rows * out.max(-1, keepdims=True)
                 + np.abs(grad_in)), (3.5, 2.0))
    return (np.abs(out).max(-1, keepdims=True), rows * grad.shape[-1]), (1.25, 1.0)


@pytest.mark.parametrize("case", ["dim0", "float64", "float16", "strided", "small"])
def test_other_work_takes_the_numpy_path(monkeypatch, case):
    """Only large float32 work along the last dim takes the kernels; a strided input is
    made contiguous first, and gives the contiguous input's bits."""
    x = _rows(64)[8:]
    assert nn_ops._row_kernels(x, 1) is kernels
    dim = 0 if case == "dim0" else -1
    if case in ("float64", "float16"):
        x = x.astype(case)
    if case == "small":
        x = x[:16]
    t = ember.tensor(x.T.copy()).t() if case == "strided" else ember.tensor(x)
    compiled = ember.softmax(t, dim).numpy()
    if case == "strided":
        assert np.array_equal(compiled, ember.softmax(ember.tensor(x), dim).numpy())
        return
    monkeypatch.setitem(_compiled._modules, "softmax_kernels", None)
    assert np.array_equal(compiled, ember.softmax(t, dim).numpy())


@pytest.mark.parametrize("asked, expected", [("avx2", "AVX2"), ("default", "DEFAULT"),
                                             ("AVX512", None), ("", None), ("zvector", None)])
def test_aten_cpu_capability_lowers_the_capability_as_in_pytorch(monkeypatch, asked,
                                                                 expected):
    from ember import _backend
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    found = _backend.cpu_capability()
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", asked)
    order = ["DEFAULT", "AVX2", "AVX512"]
    want = found if expected is None or order.index(expected) > order.index(found) \
        else expected
    assert _backend.cpu_capability() == want


_EIGHT_LANES = """
import numpy as np, torch, ember
from ember.ops import nn_ops
assert nn_ops._LANES == 8 and torch.backends.cpu.get_cpu_capability() == "AVX2"
x = (np.random.default_rng(0).standard_normal((1100, 65)) * 4).astype(np.float32)
g = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
t, tt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
out, want = ember.softmax(t, -1), torch.softmax(tt, -1)
out.backward(ember.tensor(g)); want.backward(torch.tensor(g))
assert np.array_equal(out.detach().numpy(), want.detach().numpy())
assert np.array_equal(t.grad.numpy(), tt.grad.numpy())
t, tt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
out, want = ember.log_softmax(t, -1), torch.log_softmax(tt, -1)
out.backward(ember.tensor(g)); want.backward(torch.tensor(g))
assert np.array_equal(out.detach().numpy(), want.detach().numpy())
assert np.array_equal(t.grad.numpy(), tt.grad.numpy())
print("same")
"""


@needs_torch
@pytest.mark.skipif(nn_ops._LANES != 16, reason="checks the 8-lane order on an AVX-512 CPU")
def test_the_avx2_order_is_pytorchs_avx2_order():
    """On an AVX-512 CPU, ATEN_CPU_CAPABILITY=avx2 makes PyTorch run its AVX2 kernels and
    ember sum in 8 lanes: the bits still agree."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, ATEN_CPU_CAPABILITY="avx2")
    done = subprocess.run([sys.executable, "-c", _EIGHT_LANES], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "same"


@pytest.mark.parametrize("causal", [True, False])
def test_fused_attention_through_the_kernel(monkeypatch, causal):
    """F.scaled_dot_product_attention on scores large enough for the kernel: a row that
    its boolean mask hides entirely gives zeros (as PyTorch's fused CPU kernel), outputs
    and gradients agree with the NumPy path to float32 rounding, and with PyTorch's."""
    rng = np.random.default_rng(6)
    q, k, v, g = (rng.standard_normal((4, 4, 64, 64)).astype(np.float32) for _ in range(4))
    mask = rng.random((64, 64)) > 0.3
    mask[5] = False                                  # query 5 sees nothing
    assert nn_ops._row_kernels(np.empty((4, 4, 64, 64), np.float32), 3) is kernels

    def run(lib):
        tensors = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        out = lib.nn.functional.scaled_dot_product_attention(
            *tensors, attn_mask=None if causal else lib.tensor(mask), is_causal=causal)
        out.backward(lib.tensor(g))
        return [out.detach().numpy()] + [t.grad.numpy() for t in tensors]

    compiled = run(ember)
    if not causal:
        assert np.array_equal(compiled[0][:, :, 5], np.zeros((4, 4, 64), np.float32))
    monkeypatch.setitem(_compiled._modules, "softmax_kernels", None)
    plain = run(ember)
    for got, expected in zip(compiled, plain):     # measured: at most 0.3 of this
        np.testing.assert_allclose(got, expected, rtol=8e-6, atol=5e-7)
    if torch is not None:                           # measured: at most 0.55 of this
        for got, expected in zip(compiled, run(torch)):
            np.testing.assert_allclose(got, expected, rtol=8e-6, atol=5e-7)
