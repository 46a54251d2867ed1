"""autocast against torch.autocast on the CPU: which ops change precision, the values they
give, gradients through the casts, the weight-cast cache, nesting, and the per-device
getters and setters."""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same

# Each case: a call taking (lib, F, r, d), where r(*shape, d=dtype) draws inputs in [0.5, 1.5).
# Inside the region, a float32 call of a lower-precision op gives bfloat16; a bfloat16
# call of a float32 op gives float32; other ops keep their input's dtype.
CASES = {
    "matmul": lambda lib, F, r, d: lib.matmul(r(3, 3, d=d), r(3, 3, d=d)),
    "matmul_batched": lambda lib, F, r, d: r(2, 3, 4, d=d) @ r(4, 2, d=d),
    "mm": lambda lib, F, r, d: lib.mm(r(3, 3, d=d), r(3, 3, d=d)),
    "mv": lambda lib, F, r, d: lib.mv(r(3, 3, d=d), r(3, d=d)),
    "dot": lambda lib, F, r, d: lib.dot(r(3, d=d), r(3, d=d)),
    "bmm": lambda lib, F, r, d: lib.bmm(r(2, 3, 3, d=d), r(2, 3, 3, d=d)),
    "addmm": lambda lib, F, r, d: lib.addmm(r(3, 3, d=d), r(3, 3, d=d), r(3, 3, d=d)),
    "addmv": lambda lib, F, r, d: lib.addmv(r(3, d=d), r(3, 3, d=d), r(3, d=d)),
    "baddbmm": lambda lib, F, r, d: lib.baddbmm(r(2, 3, 3, d=d), r(2, 3, 3, d=d),
                                                r(2, 3, 3, d=d)),
    "addbmm": lambda lib, F, r, d: lib.addbmm(r(3, 3, d=d), r(2, 3, 3, d=d), r(2, 3, 3, d=d)),
    "addr": lambda lib, F, r, d: lib.addr(r(3, 3, d=d), r(3, d=d), r(3, d=d)),
    "linear": lambda lib, F, r, d: F.linear(r(3, 3, d=d), r(3, 3, d=d), r(3, d=d)),
    "bilinear": lambda lib, F, r, d: F.bilinear(r(2, 3, d=d), r(2, 3, d=d), r(4, 3, 3, d=d)),
    "conv1d": lambda lib, F, r, d: F.conv1d(r(1, 2, 5, d=d), r(3, 2, 2, d=d)),
    "conv2d": lambda lib, F, r, d: F.conv2d(r(1, 2, 5, 5, d=d), r(3, 2, 2, 2, d=d)),
    "conv_transpose2d": lambda lib, F, r, d: F.conv_transpose2d(r(1, 2, 5, 5, d=d),
                                                                r(2, 3, 2, 2, d=d)),
    "prelu": lambda lib, F, r, d: F.prelu(r(2, 3, d=d), r(1, d=d)),
    "einsum": lambda lib, F, r, d: lib.einsum("ij,jk->ik", r(3, 3, d=d), r(3, 3, d=d)),
    "tensordot": lambda lib, F, r, d: lib.tensordot(r(3, 3, d=d), r(3, 3, d=d)),
    "inner": lambda lib, F, r, d: lib.inner(r(3, 3, d=d), r(3, 3, d=d)),
    "outer": lambda lib, F, r, d: lib.outer(r(3, d=d), r(3, d=d)),
    "multi_dot": lambda lib, F, r, d: lib.linalg.multi_dot([r(3, 3, d=d), r(3, 3, d=d)]),
    "vecdot": lambda lib, F, r, d: lib.linalg.vecdot(r(3, 3, d=d), r(3, 3, d=d)),
    "matrix_power": lambda lib, F, r, d: lib.linalg.matrix_power(r(3, 3, d=d), 2),
    "affine_grid": lambda lib, F, r, d: F.affine_grid(r(1, 2, 3, d=d), (1, 1, 2, 2),
                                                      align_corners=False),
    "cross_entropy": lambda lib, F, r, d: F.cross_entropy(r(3, 3, d=d), lib.tensor([0, 1, 2])),
    "nll_loss": lambda lib, F, r, d: F.nll_loss(r(3, 3, d=d), lib.tensor([0, 1, 2])),
    "mse_loss": lambda lib, F, r, d: F.mse_loss(r(3, d=d), r(3, d=d)),
    "l1_loss": lambda lib, F, r, d: F.l1_loss(r(3, d=d), r(3, d=d)),
    "smooth_l1_loss": lambda lib, F, r, d: F.smooth_l1_loss(r(3, d=d), r(3, d=d)),
    "huber_loss": lambda lib, F, r, d: F.huber_loss(r(3, d=d), r(3, d=d)),
    "binary_cross_entropy": lambda lib, F, r, d: F.binary_cross_entropy(r(3, d=d) * 0.5,
                                                                        r(3, d=d) * 0.5),
    "bce_with_logits": lambda lib, F, r, d: F.binary_cross_entropy_with_logits(r(3, d=d),
                                                                               r(3, d=d) * 0.5),
    "kl_div": lambda lib, F, r, d: F.kl_div(r(3, d=d), r(3, d=d), reduction="batchmean"),
    "soft_margin_loss": lambda lib, F, r, d: F.soft_margin_loss(r(3, d=d), r(3, d=d)),
    "multi_margin_loss": lambda lib, F, r, d: F.multi_margin_loss(r(3, 3, d=d),
                                                                  lib.tensor([0, 1, 2])),
    "margin_ranking_loss": lambda lib, F, r, d: F.margin_ranking_loss(r(3, d=d), r(3, d=d),
                                                                      r(3, d=d)),
    "hinge_embedding_loss": lambda lib, F, r, d: F.hinge_embedding_loss(r(3, d=d), r(3, d=d)),
    "cosine_embedding_loss": lambda lib, F, r, d: F.cosine_embedding_loss(
        r(3, 3, d=d), r(3, 3, d=d), lib.ones(3)),
    "poisson_nll_loss": lambda lib, F, r, d: F.poisson_nll_loss(r(3, d=d), r(3, d=d)),
    "gaussian_nll_loss": lambda lib, F, r, d: F.gaussian_nll_loss(r(3, d=d), r(3, d=d),
                                                                  r(3, d=d)),
    "triplet_margin_loss": lambda lib, F, r, d: F.triplet_margin_loss(r(3, 3, d=d), r(3, 3, d=d),
                                                                      r(3, 3, d=d)),
    "cosine_similarity": lambda lib, F, r, d: F.cosine_similarity(r(3, 3, d=d), r(3, 3, d=d)),
    "cdist": lambda lib, F, r, d: lib.cdist(r(3, 3, d=d), r(3, 3, d=d)),
    "prod": lambda lib, F, r, d: lib.prod(r(3, d=d)),
    "cumsum": lambda lib, F, r, d: lib.cumsum(r(3, d=d), 0),
    "quantile": lambda lib, F, r, d: lib.quantile(r(3, d=d), 0.5),
    "nanquantile": lambda lib, F, r, d: lib.nanquantile(r(3, d=d), 0.5),
    "trace": lambda lib, F, r, d: lib.trace(r(3, 3, d=d)),
    "inverse": lambda lib, F, r, d: lib.inverse(r(3, 3, d=d) + lib.eye(3, dtype=d) * 3),
    "linalg.inv": lambda lib, F, r, d: lib.linalg.inv(r(3, 3, d=d) + lib.eye(3, dtype=d) * 3),
    "linalg.solve": lambda lib, F, r, d: lib.linalg.solve(r(3, 3, d=d) + lib.eye(3, dtype=d) * 3,
                                                          r(3, d=d)),
    "linalg.cholesky": lambda lib, F, r, d: lib.linalg.cholesky(lib.eye(3, dtype=d) * 3),
    "cholesky_inverse": lambda lib, F, r, d: lib.cholesky_inverse(lib.eye(3, dtype=d) * 3),
    "cholesky_solve": lambda lib, F, r, d: lib.cholesky_solve(r(3, 1, d=d),
                                                              lib.eye(3, dtype=d) * 3),
    "linalg.qr": lambda lib, F, r, d: lib.linalg.qr(r(3, 3, d=d)),
    "linalg.svd": lambda lib, F, r, d: lib.linalg.svd(r(3, 3, d=d)),
    "svdvals": lambda lib, F, r, d: lib.linalg.svdvals(r(3, 3, d=d)),
    "eigh": lambda lib, F, r, d: lib.linalg.eigh(lib.eye(3, dtype=d) * 3),
    "eigvalsh": lambda lib, F, r, d: lib.linalg.eigvalsh(lib.eye(3, dtype=d) * 3),
    "lstsq": lambda lib, F, r, d: lib.linalg.lstsq(r(3, 3, d=d) + lib.eye(3, dtype=d) * 3,
                                                   r(3, 2, d=d)),
    "pinverse": lambda lib, F, r, d: lib.pinverse(r(3, 3, d=d) + lib.eye(3, dtype=d) * 3),
    "matrix_rank": lambda lib, F, r, d: lib.linalg.matrix_rank(r(3, 3, d=d)).float(),
    "cond": lambda lib, F, r, d: lib.linalg.cond(r(3, 3, d=d) + lib.eye(3, dtype=d) * 3),
    "triangular_solve": lambda lib, F, r, d: lib.triangular_solve(r(3, 1, d=d),
                                                                  lib.eye(3, dtype=d) * 3),
    "matrix_norm": lambda lib, F, r, d: lib.linalg.matrix_norm(r(3, 3, d=d)),
    "avg_pool3d": lambda lib, F, r, d: F.avg_pool3d(r(1, 1, 4, 4, 4, d=d), 2),
    "avg_pool2d": lambda lib, F, r, d: F.avg_pool2d(r(1, 1, 4, 4, d=d), 2),
    "max_pool3d": lambda lib, F, r, d: F.max_pool3d(r(1, 1, 4, 4, 4, d=d), 2),
    "adaptive_avg_pool3d": lambda lib, F, r, d: F.adaptive_avg_pool3d(r(1, 1, 4, 4, 4, d=d), 2),
    "adaptive_max_pool3d": lambda lib, F, r, d: F.adaptive_max_pool3d(r(1, 1, 4, 4, 4, d=d), 2),
    "adaptive_avg_pool2d": lambda lib, F, r, d: F.adaptive_avg_pool2d(r(1, 1, 4, 4, d=d), 2),
    "max_unpool2d": lambda lib, F, r, d: F.max_unpool2d(
        *F.max_pool2d(r(1, 1, 4, 4, d=d), 2, return_indices=True), 2),
    "max_unpool1d": lambda lib, F, r, d: F.max_unpool1d(
        *F.max_pool1d(r(1, 1, 4, d=d), 2, return_indices=True), 2),
    "reflect1d": lambda lib, F, r, d: F.pad(r(1, 2, 4, d=d), (1, 1), mode="reflect"),
    "reflect2d": lambda lib, F, r, d: F.pad(r(1, 2, 4, 4, d=d), (1, 1, 1, 1), mode="reflect"),
    "reflect3d": lambda lib, F, r, d: F.pad(r(1, 1, 4, 4, 4, d=d), (1, 1, 1, 1, 1, 1),
                                            mode="reflect"),
    "replicate1d": lambda lib, F, r, d: F.pad(r(1, 2, 4, d=d), (1, 1), mode="replicate"),
    "replicate3d": lambda lib, F, r, d: F.pad(r(1, 1, 4, 4, 4, d=d), (1, 1, 1, 1, 1, 1),
                                              mode="replicate"),
    "circular": lambda lib, F, r, d: F.pad(r(1, 2, 4, d=d), (1, 1), mode="circular"),
    "grid_sample": lambda lib, F, r, d: F.grid_sample(r(1, 1, 4, 4, d=d), r(1, 2, 2, 2, d=d) - 1,
                                                      align_corners=False),
    "interpolate": lambda lib, F, r, d: F.interpolate(r(1, 1, 4, 4, d=d), scale_factor=2,
                                                      mode="bilinear"),
    "layer_norm": lambda lib, F, r, d: F.layer_norm(r(3, 3, d=d), (3,)),
    "softmax": lambda lib, F, r, d: F.softmax(r(3, 3, d=d), 1),
    "log_softmax": lambda lib, F, r, d: F.log_softmax(r(3, 3, d=d), 1),
    "exp": lambda lib, F, r, d: lib.exp(r(3, d=d)),
    "sum": lambda lib, F, r, d: r(3, 3, d=d).sum(),
    "cat": lambda lib, F, r, d: lib.cat([r(3, d=d), r(3, d=lib.float32)]),
    "stack": lambda lib, F, r, d: lib.stack([r(3, d=d), r(3, d=lib.float32)]),
    "index_copy": lambda lib, F, r, d: lib.index_copy(r(3, d=d), 0, lib.tensor([0]),
                                                      r(1, d=lib.float32)),
}


def _run(lib, case, dtype_name, seed=0):
    rng = np.random.default_rng(seed)

    def r(*shape, d):
        values = rng.random(shape, dtype=np.float64).astype(np.float32) + 0.5
        return lib.tensor(values).to(d)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        out = CASES[case](lib, lib.nn.functional, r, getattr(lib, dtype_name))
    return out


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
@pytest.mark.filterwarnings("ignore:ember.triangular_solve is deprecated")
@pytest.mark.parametrize("dtype_name", ["float32", "bfloat16", "float64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_op_under_autocast_matches_torch(torch, case, dtype_name):
    if case in ("matrix_rank", "eigh", "eigvalsh") and dtype_name == "float64":
        pytest.skip("nothing to cast")
    try:
        expected = _run(torch, case, dtype_name)
    except (RuntimeError, NotImplementedError):  # an op that refuses bfloat16 outside autocast
        return
    try:
        _run(ember, case, "float64")
    except AttributeError:
        pytest.skip("not in ember yet")
    except Exception:  # noqa: BLE001 - only whether the op exists is asked here
        pass
    got = _run(ember, case, dtype_name)
    # One rounding to bfloat16 (or a few, through a decomposition) apart.
    atol = 0 if dtype_name == "float64" else 2e-2
    assert_same(got, expected, atol=atol, rtol=2e-2 if atol else 1e-7)


def test_gradients_reach_float32_weights_through_the_casts(torch):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))
        x = lib.linspace(-1, 1, 20).reshape(5, 4)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            logits = model(x)
            loss = lib.nn.functional.cross_entropy(logits, lib.tensor([0, 1, 2, 0, 1]))
        loss.backward()
        return (logits.dtype, loss.dtype, loss, logits,
                [p.grad for p in model.parameters()], [p.grad.dtype for p in model.parameters()])
    got, expected = run(ember), run(torch)
    assert str(got[:2]) == str(expected[:2]).replace("torch.", "ember.")
    assert got[5] == [ember.float32] * 4
    assert_same(got[2:5], expected[2:5], atol=2e-2, rtol=2e-2)


def test_grad_fn_chain_names_match_torch(torch):
    def chain(lib):
        w = lib.ones(3, 3, requires_grad=True)
        with lib.autocast("cpu"):
            y = lib.ones(2, 3) @ w
        node, names = y.grad_fn, []
        while node is not None:
            names.append(type(node).__name__)
            node = next((n for n, _ in node.next_functions if n is not None), None)
        return names
    assert chain(ember) == chain(torch)


def test_a_weight_used_twice_is_cast_once_while_the_cache_is_on(torch):
    def casts(lib, cache_enabled):
        w = lib.ones(3, 3, requires_grad=True)
        with lib.autocast("cpu", cache_enabled=cache_enabled):
            a, b = lib.ones(3, 3) @ w, lib.ones(3, 3) @ w
        first, second = a.grad_fn.next_functions[1][0], b.grad_fn.next_functions[1][0]
        return first is second
    for cache_enabled in (True, False):
        assert casts(ember, cache_enabled) == casts(torch, cache_enabled)


def test_explicit_dtype_out_and_inplace_calls_are_not_cast(torch):
    def run(lib):
        x = lib.ones(3, dtype=lib.bfloat16)
        m = lib.ones(2, 2)
        out = lib.empty(3)
        with lib.autocast("cpu"):
            a = lib.prod(x, dtype=lib.bfloat16)
            b = lib.cat([m, m], out=lib.empty(4, 2)).dtype
            c = m.mm_(m) if hasattr(m, "mm_") else m.add_(1).dtype
            d = lib.prod(x).dtype
            del out
        return str((a.dtype, b, c, d))
    assert run(ember) == run(torch).replace("torch.", "ember.")


def test_nested_regions_and_disabled_inner_region(torch):
    def run(lib):
        seen = []
        w = lib.ones(2, 2)
        with lib.autocast("cpu"):
            seen.append((w @ w).dtype)
            with lib.autocast("cpu", enabled=False):
                seen.append((w @ w).dtype)
                with lib.autocast("cpu", dtype=lib.float16):
                    seen.append((w @ w).dtype)
            seen.append((w @ w).dtype)
        seen.append((w @ w).dtype)
        return str(seen)
    assert run(ember) == run(torch).replace("torch.", "ember.")


@pytest.mark.xfail(strict=True, reason="the engine does not cast a Function's returned "
                   "gradient to its input's dtype, as PyTorch's validate_outputs does")
def test_autocast_decorated_function_and_custom_function(torch):
    def run(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.amp.custom_bwd(device_type="cpu")
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        @lib.autocast("cpu")
        def forward(x):
            return Square.apply(x @ x)
        x = lib.ones(2, 2, requires_grad=True)
        y = forward(x)
        y.sum().backward()
        return str((y.dtype, x.grad.dtype, x.grad))
    assert run(ember) == run(torch).replace("torch.", "ember.")


SETTERS = [
    "lib.is_autocast_cpu_enabled()", "lib.get_autocast_cpu_dtype()", "lib.get_autocast_gpu_dtype()",
    "lib.get_autocast_ipu_dtype()", "lib.get_autocast_xla_dtype()", "lib.is_autocast_ipu_enabled()",
    "lib.is_autocast_xla_enabled()", "lib.set_autocast_enabled('cpu', 1)",
    "lib.set_autocast_cpu_enabled(1)", "lib.is_autocast_enabled(0)",
    "lib.is_autocast_enabled('meta')", "lib.set_autocast_enabled('meta', True)",
    "lib.get_autocast_dtype('meta')", "lib.set_autocast_dtype('cpu', 3)",
    "lib.is_autocast_enabled('foo')", "lib.set_autocast_enabled('cpu')",
    "lib.clear_autocast_cache()", "lib.is_autocast_enabled('cuda:0')",
    "lib.set_autocast_cpu_dtype(None)", "lib.set_autocast_gpu_dtype(3)",
    "lib.set_autocast_xla_enabled(None)",
]


@pytest.mark.parametrize("call", SETTERS)
def test_getters_and_setters_match_torch(torch, call):
    from test_surface_oracle import assert_same_outcome
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert_same_outcome(torch, lambda lib: eval(call))


def test_deprecated_spellings_warn_and_act(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_autocast_cpu_enabled(True)
            on = lib.is_autocast_enabled("cpu")
            lib.set_autocast_cpu_enabled(False)
            lib.set_autocast_cpu_dtype(lib.float16)
            fast = lib.get_autocast_dtype("cpu")
            lib.set_autocast_cpu_dtype(lib.bfloat16)
            depth = [lib.autocast_increment_nesting(), lib.autocast_decrement_nesting()]
            for on_, off, kind in ((lib.set_autocast_ipu_enabled, lib.is_autocast_ipu_enabled,
                                    "ipu"),
                                   (lib.set_autocast_xla_enabled, lib.is_autocast_xla_enabled,
                                    "xla")):
                on_(True)
                depth.append((off(), lib.is_autocast_enabled(kind)))
                on_(False)
            for setter, kind in ((lib.set_autocast_gpu_dtype, "cuda"),
                                 (lib.set_autocast_ipu_dtype, "ipu"),
                                 (lib.set_autocast_xla_dtype, "xla")):
                before = lib.get_autocast_dtype(kind)
                setter(lib.float64)
                depth.append(lib.get_autocast_dtype(kind))
                setter(before)
        messages = [str(w.message).split(" (Triggered")[0] for w in caught]
        return str((on, fast, depth, [w.category.__name__ for w in caught], messages))
    assert run(ember) == run(torch).replace("torch.", "ember.")
