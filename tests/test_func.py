"""ember.func, forward AD, saved-tensor hooks, checkpointing, the profilers and
ember.functional, each run in ember and in torch and compared."""
import importlib
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, to_lib


def _libs(torch):
    return (torch, ember)


def _both(torch, build):
    """build(lib) in torch and in ember, compared."""
    assert_same(build(ember), build(torch))


def _flat(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _flat(item)]
    return [tree]


def _sub(lib, name):
    return importlib.import_module(lib.__name__ + "." + name)


R = np.random.default_rng(7)
X3 = R.standard_normal(3)
X23 = R.standard_normal((2, 3))
X43 = R.standard_normal((4, 3))
W32 = R.standard_normal((3, 2))
X43_F = X43.astype(np.float32)  # for the float32 modules


# ------------------------------------------------------------------ grad, vjp, jvp
def test_grad_and_value(torch):
    def build(lib):
        x, y = to_lib(lib, X3), to_lib(lib, X3[::-1].copy())
        f = lambda a, b: (a.sin() * b).sum()  # noqa: E731
        g1 = lib.func.grad(f)(x, y)
        g2 = lib.func.grad(f, argnums=(0, 1))(x, y)
        g3, value = lib.func.grad_and_value(f, argnums=1)(x, y)
        g4, aux = lib.func.grad(lambda a: ((a ** 3).sum(), a.cos()), has_aux=True)(x)
        nested = lib.func.grad(lambda a: lib.func.grad(lambda b: (b ** 3).sum())(a).sum())(x)
        return g1, g2, g3, value, g4, aux, nested
    _both(torch, build)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.func.grad(lambda a: a * 2)(x),
    lambda lib, x: lib.func.grad(lambda a: 2.0)(x),
    lambda lib, x: lib.func.grad(lambda a: a.sum(), has_aux=True)(x),
    lambda lib, x: lib.func.grad(lambda a: (a.sum(), 1), has_aux=True)(x),
    lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=1)(x),
    lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=(0, 0))(x),
    lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=1.0)(x),
    lambda lib, x: lib.func.grad(lambda a: a.sum())(1.0),
    lambda lib, x: lib.func.vjp(lambda a: a, 1.0),
    lambda lib, x: lib.func.vjp(lambda a: 1.0, x),
    lambda lib, x: lib.func.vjp(lambda a: a.sum(), x, has_aux=True),
    lambda lib, x: lib.func.vjp(lambda a: a, x)[1]((x, x)),
    lambda lib, x: lib.func.jvp(lambda a: a, x, x),
    lambda lib, x: lib.func.jvp(lambda a: a, (x,), (x, x)),
    lambda lib, x: lib.func.jvp(lambda a: a, (x,), (lib.ones(4),)),
    lambda lib, x: lib.func.jvp(lambda a: 1.0, (x,), (x,)),
    lambda lib, x: lib.func.jvp(lambda a: a, (1.0,), (x,)),
    lambda lib, x: lib.func.jacrev(lambda a: a.sum(), argnums=2)(x),
])
def test_transform_errors(torch, call):
    assert_same_error(lambda lib: call(lib, to_lib(lib, X3)))


def test_vjp_and_jvp(torch):
    def build(lib):
        x, v = to_lib(lib, X23), to_lib(lib, X23[:, ::-1].copy())
        out, vjp_fn = lib.func.vjp(lambda a: (a.exp() * a).tanh(), x)
        (pulled,) = vjp_fn(v)
        again = vjp_fn(v * 2)
        value, pushed = lib.func.jvp(lambda a, b: (a * b).sin(), (x, v), (v, x))
        _, linear = lib.func.jvp(lambda a: a @ to_lib(lib, W32), (x,), (v,))
        return out, pulled, again, value, pushed, linear
    _both(torch, build)


def test_jacobians_and_hessian(torch):
    def build(lib):
        x, y = to_lib(lib, X3), to_lib(lib, W32[:, 0].copy())
        f = lambda a, b: (a.sin() * b.exp()).cumsum(0)  # noqa: E731
        return (lib.func.jacrev(f)(x, y), lib.func.jacfwd(f, argnums=(0, 1))(x, y),
                lib.func.jacrev(lambda a: a.reshape(3, 1) @ a.reshape(1, 3))(x),
                lib.func.hessian(lambda a: (a ** 3).sum() + (a[0] * a[1]))(x),
                lib.func.jacrev(lambda a: (a.sum(), a * 2), has_aux=False)(x))
    _both(torch, build)


# ------------------------------------------------------------------ vmap
def test_vmap_sum_matmul_and_dims(torch):
    def build(lib):
        x, w = to_lib(lib, X43), to_lib(lib, W32)
        return (lib.vmap(lib.sum)(x), lib.func.vmap(lib.matmul, in_dims=(0, None))(x, w),
                lib.vmap(lambda a: a * 2, in_dims=1, out_dims=1)(x),
                lib.vmap(lambda a, b: a.dot(b))(x, x),
                lib.vmap(lambda a: (a.sum(), a), out_dims=(0, 1))(x),
                lib.vmap(lib.vmap(lambda a: a.exp()))(x),
                lib.vmap(lambda a: a.mean(), in_dims=-1)(x))
    _both(torch, build)


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))


def test_vmap_mlp_and_per_sample_grads(torch):
    def build(lib):
        model = _mlp(lib)
        params = {k: v.detach() for k, v in model.named_parameters()}
        x, target = to_lib(lib, X43_F), to_lib(lib, X43_F[:, :2] * 3)

        def loss(p, xi, ti):
            out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
            return ((out - ti.unsqueeze(0)) ** 2).mean()
        outputs = lib.vmap(model)(x)
        per_sample = lib.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, target)
        return outputs, [per_sample[k] for k in sorted(per_sample)]
    _both(torch, build)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.vmap(lib.add)(x, lib.ones(5, 3)),
    lambda lib, x: lib.vmap(lib.sum, in_dims=2)(x),
    lambda lib, x: lib.vmap(lib.sum, in_dims=(0, 0))(x),
    lambda lib, x: lib.vmap(lib.sum, in_dims=(0,))(x, 0),
    lambda lib, x: lib.vmap(lib.sum, in_dims=None)(x),
    lambda lib, x: lib.vmap(lib.sum, in_dims="a")(x),
    lambda lib, x: lib.vmap(lib.sum, in_dims=(None,))(x),
    lambda lib, x: lib.vmap(lib.sum, in_dims=(1.5,))(x),
    lambda lib, x: lib.vmap(lib.sum)(1.0),
    lambda lib, x: lib.vmap(lib.sum)(),
    lambda lib, x: lib.vmap(lib.sum)(lib.tensor(1.0)),
    lambda lib, x: lib.vmap(lambda a: 1)(x),
    lambda lib, x: lib.vmap(lambda a: lib.rand(2))(x),
    lambda lib, x: lib.vmap(lambda a: a, out_dims=3)(x),
    lambda lib, x: lib.vmap(lambda a: (a, a), out_dims=(0,))(x),
    lambda lib, x: lib.vmap(lambda a: a.sum(), out_dims=None)(x),
    lambda lib, x: lib.vmap(lambda a: a, randomness="foo")(x),
    lambda lib, x: lib.vmap(lambda a: a, chunk_size=0)(x),
])
def test_vmap_errors(torch, call):
    assert_same_error(lambda lib: call(lib, to_lib(lib, X43)))


def test_vmap_randomness_same(torch):
    def build(lib):
        lib.manual_seed(3)
        same = lib.vmap(lambda a: a + lib.rand(3), randomness="same")(to_lib(lib, X43))
        return same, lib.rand(2)
    _both(torch, build)


# ------------------------------------------------------------------ forward AD
def test_forward_ad_tangents(torch):
    def build(lib):
        fwAD = lib.autograd.forward_ad
        x, v, w = to_lib(lib, X23), to_lib(lib, X23[::-1].copy()), to_lib(lib, W32)
        with fwAD.dual_level() as level:
            d = fwAD.make_dual(x, v)
            results = [fwAD.unpack_dual(op(d)) for op in (
                lambda a: a.sin() * 2, lambda a: (a * a).sum(), lambda a: a @ w,
                lambda a: a.exp().softmax(-1), lambda a: a.detach())]
            plain = fwAD.unpack_dual(w)
            own = fwAD.unpack_dual(d)
            assert own.tangent is v
        after = fwAD.unpack_dual(x)
        return level, [tuple(r) for r in results], tuple(plain), tuple(after), \
            type(results[0]).__name__, results[0]._fields
    _both(torch, build)


@pytest.mark.parametrize("call", [
    lambda fw, lib, x: fw.make_dual(x, x),
    lambda fw, lib, x: fw.exit_dual_level(),
    lambda fw, lib, x: fw.exit_dual_level(level=3),
])
def test_forward_ad_errors_outside_level(torch, call):
    assert_same_error(lambda lib: call(lib.autograd.forward_ad, lib, to_lib(lib, X3)))


@pytest.mark.parametrize("call", [
    lambda fw, lib, x: fw.make_dual(x, lib.ones(4)),
    lambda fw, lib, x: fw.make_dual(x, lib.arange(3)),
    lambda fw, lib, x: fw.make_dual(lib.arange(3), lib.arange(3)),
    lambda fw, lib, x: fw.make_dual(x, 1.0),
    lambda fw, lib, x: fw.enter_dual_level(),
])
def test_forward_ad_errors_inside_level(torch, call):
    def run(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            call(fwAD, lib, to_lib(lib, X3))
    assert_same_error(run)


# ------------------------------------------------------------------ saved-tensor hooks
def test_saved_tensor_hook_counts(torch):
    def build(lib):
        graph = _sub(lib, "autograd.graph")
        x = to_lib(lib, X3, requires_grad=True)
        calls = []
        with graph.saved_tensors_hooks(lambda t: calls.append("pack") or t * 1,
                                       lambda t: calls.append("unpack") or t):
            y = (x.exp() * x).sin().sum() + x.pow(2).sum()
            with graph.saved_tensors_hooks(lambda t: calls.append("inner") or t,
                                           lambda t: calls.append("inner_unpack") or t):
                z = (x * x).tanh().sum()
        (y + z).backward()
        return x.grad, calls.count("pack"), calls.count("unpack"), calls.count("inner"), \
            calls.count("inner_unpack")
    _both(torch, build)


def test_save_on_cpu_and_inplace_after_pack(torch):
    def build(lib):
        graph = _sub(lib, "autograd.graph")
        x = to_lib(lib, X3, requires_grad=True)
        with graph.save_on_cpu():
            y = (x * x.exp()).sum()
        y.backward()
        a = to_lib(lib, X3, requires_grad=True)
        with graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            h = a * 1
            out = (h * h).sum()
        with lib.no_grad():
            h.add_(1)  # hooked: the saved clone is used, no version error
        out.backward()
        return x.grad, a.grad
    _both(torch, build)


@pytest.mark.parametrize("pack, unpack", [
    (lambda t: 1, lambda p: 1),
    (lambda t: t, lambda p: p[:2]),
    ("inplace", lambda p: p),
])
def test_saved_tensor_hook_errors(torch, pack, unpack):
    def run(lib):
        graph = _sub(lib, "autograd.graph")
        x = to_lib(lib, X3, requires_grad=True)

        def in_place(t):
            with lib.no_grad():
                t.add_(0)
            return t
        with graph.saved_tensors_hooks(in_place if pack == "inplace" else pack, unpack):
            y = (x * x).sum()
        y.backward()
    assert_same_error(run)


@pytest.mark.parametrize("order", ["disable_first", "hooks_first"])
def test_disable_saved_tensors_hooks(torch, order):
    def run(lib):
        graph = _sub(lib, "autograd.graph")
        hooks = graph.saved_tensors_hooks(lambda t: t, lambda t: t)
        outer, inner = (graph.disable_saved_tensors_hooks("no hooks here"), hooks)
        if order == "hooks_first":
            outer, inner = inner, outer
        with outer, inner:
            pass
    assert_same_error(run)


# ------------------------------------------------------------------ checkpoint
def _block(lib):
    lib.manual_seed(1)
    return lib.nn.Sequential(lib.nn.Linear(3, 6), lib.nn.Dropout(0.3), lib.nn.GELU(),
                             lib.nn.Linear(6, 2))


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_gradients(torch, reentrant):
    def build(lib, use_checkpoint):
        model = _block(lib)
        x = to_lib(lib, X43_F, requires_grad=True)
        lib.manual_seed(5)
        if use_checkpoint:
            out = _sub(lib, "utils.checkpoint").checkpoint(model, x, use_reentrant=reentrant)
        else:
            out = model(x)
        (out ** 2).sum().backward()
        return out, x.grad, [p.grad for p in model.parameters()], type(out.grad_fn).__name__
    ours = build(ember, True)
    assert_same(ours, build(torch, True))
    plain = build(ember, False)
    for got, expected in zip(_flat(ours[:3]), _flat(plain[:3])):
        # the recomputation runs the same ops on the same numbers: equal, not close
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


def test_checkpoint_sequential_and_messages(torch):
    def build(lib):
        model = _block(lib)
        checkpoint = _sub(lib, "utils.checkpoint")
        x = to_lib(lib, X43_F, requires_grad=True)
        lib.manual_seed(2)
        out = checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=False)
        out.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            checkpoint.checkpoint(lib.sin, x)
            checkpoint.checkpoint(lib.sin, x.detach(), use_reentrant=True)
        with lib.no_grad():
            quiet = checkpoint.checkpoint(lib.sin, x, use_reentrant=False)
        return out, x.grad, [str(w.message).replace("torch.", "ember.") for w in caught], \
            quiet.requires_grad
    ours, theirs = build(ember), build(torch)
    assert_same(ours[:2], theirs[:2])
    assert ours[2] == theirs[2] and ours[3] == theirs[3]


@pytest.mark.parametrize("call", [
    lambda lib, c, x: lib.autograd.grad(c.checkpoint(lib.sin, x, use_reentrant=True).sum(), x),
    lambda lib, c, x: c.checkpoint(lib.sin, x, use_reentrant=True, foo=1),
    lambda lib, c, x: c.checkpoint_sequential(lib.nn.Sequential(), 1, x, use_reentrant=True,
                                              foo=1),
])
def test_checkpoint_errors(torch, call):
    assert_same_error(lambda lib: call(lib, _sub(lib, "utils.checkpoint"),
                                       to_lib(lib, X3, requires_grad=True)))


# ------------------------------------------------------------------ profilers
def _profiled_work(lib, record_function):
    x, w = to_lib(lib, X43), to_lib(lib, W32)
    with record_function("block"):
        y = (x @ w).relu()
        z = lib.add(y + y, 1)
        z.sin().sum()
        lib.mul(z, z).exp()


def test_autograd_profiler_table(torch):
    def build(lib):
        profiler = lib.autograd.profiler
        with profiler.profile(record_shapes=True) as prof:
            _profiled_work(lib, profiler.record_function)
        counts = {e.key: e.count for e in prof.key_averages()}
        names = ["block", "aten::matmul", "aten::mm", "aten::relu", "aten::add", "aten::sin",
                 "aten::sum", "aten::mul", "aten::exp"]
        table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
        lines = table.splitlines()
        shaped = prof.key_averages(group_by_input_shape=True).table(row_limit=2).splitlines()
        mm = [e.input_shapes for e in prof.function_events if e.name == "aten::mm"]
        return ([counts.get(n) for n in names], len(lines), lines[1].split(),
                lines[-1].split(":")[0], shaped[1].split()[-2:], mm)
    _both(torch, build)


def test_profiler_schedule_and_activities(torch):
    def build(lib):
        tp = lib.profiler
        seen = []
        x = to_lib(lib, X3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with tp.profile(activities=[tp.ProfilerActivity.CPU],
                            schedule=tp.schedule(wait=1, warmup=1, active=2),
                            on_trace_ready=lambda p: seen.append(
                                sorted((e.key, e.count) for e in p.key_averages()))) as prof:
                for _ in range(5):
                    x.sin()
                    prof.step()
        actions = [tp.schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)(i).name
                   for i in range(8)]
        return seen, actions, repr(tp.ProfilerActivity.CUDA), \
            sorted(a.name for a in tp.supported_activities())
    _both(torch, build)


def test_profiling_off_leaves_ops_untouched():
    """Zero cost when off: leaving a profile puts every original op function back."""
    import ember.ops.pointwise as pointwise
    before = (pointwise.add, ember.add, ember.nn.functional.relu)
    with ember.autograd.profiler.profile():
        assert pointwise.add is not before[0]
        ember.ones(2) + 1
    assert (pointwise.add, ember.add, ember.nn.functional.relu) == before


# ------------------------------------------------------------------ ember.functional
def test_functional_module_reexports(torch):
    def build(lib):
        F = _sub(lib, "functional")
        a, b = to_lib(lib, X23), to_lib(lib, W32)
        return (F.einsum("ij,jk->ik", a, b), F.broadcast_tensors(a, a[0]),
                F.broadcast_shapes((2, 1), (3,)), F.meshgrid(a[0], b[0], indexing="ij"),
                F.split(a, 1), F.norm(a), F.unique(lib.tensor([3, 1, 3])),
                F.unique_consecutive(lib.tensor([1, 1, 2])), F.tensordot(a, b, 1),
                F.cdist(a, a), F.atleast_2d(a[0, 0]), F.atleast_1d(a[0, 0]),
                F.atleast_3d(a), F.block_diag(a, b), F.cartesian_prod(a[0], b[0]))
    _both(torch, build)
