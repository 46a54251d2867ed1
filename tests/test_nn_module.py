"""nn.Module, nn.Parameter and the lazy-module machinery, against PyTorch.

The same small module tree is defined for both libraries (`_library(lib)`), with
parameters built from the same NumPy arrays, so names, reprs, state_dicts,
messages and values can be compared one to one. It uses no layer from the
layer engineers' files.
"""
import copy
import pickle
import warnings
from collections import OrderedDict
from types import SimpleNamespace

import numpy as np
import pytest

import ember
from ember import nn
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy


def _array(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def _library(lib):
    """Test-local modules written once against `lib` (ember or torch)."""
    Module, Parameter = lib.nn.Module, lib.nn.Parameter

    class Affine(Module):
        def __init__(self, n_in, n_out, bias=True, seed=0):
            super().__init__()
            self.weight = Parameter(lib.tensor(_array(n_out, n_in, seed=seed)))
            if bias:
                self.bias = Parameter(lib.tensor(_array(n_out, seed=seed)))
            else:
                self.register_parameter("bias", None)

        def forward(self, x):
            out = x @ self.weight.T
            return out if self.bias is None else out + self.bias

        def extra_repr(self):
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Stats(Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("mean", lib.zeros(n))
            self.register_buffer("count", lib.tensor(0))
            self.register_buffer("scratch", lib.ones(n), persistent=False)
            self.register_buffer("absent", None)
            self.scale = Parameter(lib.ones(n))

        def forward(self, x):
            return x * self.scale

        def extra_repr(self):
            return "first line\nsecond line"

    class Block(Module):
        def __init__(self):
            super().__init__()
            self.inner = Affine(3, 3, seed=1)
            self.stats = Stats(3)

        def forward(self, x):
            return self.stats(self.inner(x))

    class Net(Module):
        def __init__(self):
            super().__init__()
            self.fc1 = Affine(2, 3)
            self.block = Block()
            self.fc2 = Affine(3, 1, bias=False, seed=2)
            self.again = self.fc1  # the same module twice: deduplicated by the iterators
            self.empty = Module()

        def forward(self, x):
            return self.fc2(self.block(self.again(self.fc1(x) @ lib.eye(3)[:, :2])))

    return SimpleNamespace(Affine=Affine, Stats=Stats, Block=Block, Net=Net)


def _errors(ember_fn, torch_fn):
    """Run both; they must raise the same exception type with the same text (torch -> ember)."""
    with pytest.raises(Exception) as expected:
        torch_fn()
    with pytest.raises(type(expected.value)) as got:
        ember_fn()
    assert str(got.value) == str(expected.value).replace("torch", "ember")


def _both(torch):
    return _library(ember), _library(torch)


# ---------------------------------------------------------------- Parameter
@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("shape", [(3,), (2, 3), ()])
def test_parameter_repr_matches_torch(torch, requires_grad, shape):
    a = _array(*shape) if shape else np.float32(1.5)
    p = nn.Parameter(ember.tensor(a), requires_grad)
    q = torch.nn.Parameter(torch.tensor(a), requires_grad)
    assert repr(p) == repr(q).replace("torch", "ember")
    assert str(p) == str(q).replace("torch", "ember")


def test_parameter_float64_repr_matches_torch(torch):
    p = nn.Parameter(ember.tensor([1.0, 2.0], dtype=ember.float64))
    q = torch.nn.Parameter(torch.tensor([1.0, 2.0], dtype=torch.float64))
    assert repr(p) == repr(q).replace("torch", "ember")
    assert repr(nn.Parameter()) == repr(torch.nn.Parameter()).replace("torch", "ember")


def test_parameter_is_a_leaf_sharing_memory():
    data = ember.zeros(3)
    p = nn.Parameter(data)
    assert type(p) is nn.Parameter and isinstance(p, ember.Tensor)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    data[0] = 5.0
    assert p[0].item() == 5.0 and p._version == data._version
    with ember.no_grad():
        assert nn.Parameter(ember.ones(2)).requires_grad  # no_grad does not change the default


def test_parameter_from_non_leaf_is_detached():
    x = ember.ones(2, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.grad_fn is None and p.is_leaf and p.requires_grad


def test_ops_on_parameters_give_plain_tensors_and_grads():
    p = nn.Parameter(ember.tensor([1.0, 2.0]))
    out = p * 3 + p
    assert type(out) is ember.Tensor and type(p.detach()) is ember.Tensor
    assert type(p.data) is ember.Tensor and type(p.clone()) is ember.Tensor
    out.sum().backward()
    assert p.grad.tolist() == [4.0, 4.0]
    assert type(p.grad) is ember.Tensor


def test_parameter_errors_match_torch(torch):
    _errors(lambda: nn.Parameter(ember.tensor([1, 2])),
            lambda: torch.nn.Parameter(torch.tensor([1, 2])))
    _errors(lambda: nn.Parameter([1.0]), lambda: torch.nn.Parameter([1.0]))


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(ember.tensor([1.0, 2.0]), requires_grad=False)
    p.note = "kept"
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q is not p and not q.requires_grad
    assert q.tolist() == [1.0, 2.0] and q.data_ptr() != p.data_ptr()
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and r.tolist() == [1.0, 2.0] and not r.requires_grad
    assert r.note == "kept"
    trained = nn.Parameter(ember.ones(2))
    trained.sum().backward()
    assert copy.deepcopy(trained).grad is None  # as PyTorch: grads are not deep-copied


def test_buffer_marker():
    b = nn.Buffer(ember.ones(2), persistent=False)
    assert type(b) is ember.Tensor and isinstance(b, nn.Buffer)
    assert not isinstance(ember.ones(2), nn.Buffer)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.kept = nn.Buffer(ember.zeros(1))
            self.dropped = nn.Buffer(ember.zeros(1), persistent=False)

    m = M()
    assert list(m._buffers) == ["kept", "dropped"]
    assert list(m.state_dict()) == ["kept"]


# ---------------------------------------------------------------- registration
def test_registration_dicts(torch):
    for lib in (ember, torch):
        net = _library(lib).Net()
        assert list(net._modules) == ["fc1", "block", "fc2", "again", "empty"]
        assert list(net.fc1._parameters) == ["weight", "bias"]
        assert net.fc2.bias is None and list(net.fc2._parameters) == ["weight", "bias"]
        assert list(net.block.stats._buffers) == ["mean", "count", "scratch", "absent"]
        assert net.block.stats._non_persistent_buffers_set == {"scratch"}


def test_setattr_getattr_errors_match_torch(torch):
    e, t = _both(torch)
    em, tm = e.Affine(2, 3), t.Affine(2, 3)
    _errors(lambda: setattr(em, "weight", ember.ones(3, 2)),
            lambda: setattr(tm, "weight", torch.ones(3, 2)))
    _errors(lambda: em.foo, lambda: tm.foo)
    _errors(lambda: setattr(e.Net(), "fc1", 3), lambda: setattr(t.Net(), "fc1", 3))
    _errors(lambda: setattr(e.Stats(2), "mean", 3), lambda: setattr(t.Stats(2), "mean", 3))
    _errors(lambda: e.Stats(2).register_buffer("a.b", ember.ones(1)),
            lambda: t.Stats(2).register_buffer("a.b", torch.ones(1)))
    _errors(lambda: e.Stats(2).register_buffer("", ember.ones(1)),
            lambda: t.Stats(2).register_buffer("", torch.ones(1)))
    _errors(lambda: e.Stats(2).register_buffer("scale", ember.ones(1)),
            lambda: t.Stats(2).register_buffer("scale", torch.ones(1)))
    _errors(lambda: e.Stats(2).register_buffer("x", [1]),
            lambda: t.Stats(2).register_buffer("x", [1]))
    _errors(lambda: e.Stats(2).register_buffer(3, ember.ones(1)),
            lambda: t.Stats(2).register_buffer(3, torch.ones(1)))
    _errors(lambda: em.register_parameter("w2", ember.ones(1)),
            lambda: tm.register_parameter("w2", torch.ones(1)))
    x, y = ember.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)
    _errors(lambda: em.register_parameter("w2", nn.Parameter(ember.ones(1)) * x),
            lambda: tm.register_parameter("w2", torch.nn.Parameter(torch.ones(1)) * y))
    _errors(lambda: em.add_module("m", 3), lambda: tm.add_module("m", 3))
    _errors(lambda: em.add_module("a.b", e.Affine(1, 1)), lambda: tm.add_module("a.b", t.Affine(1, 1)))
    _errors(lambda: em.add_module("weight", e.Affine(1, 1)),
            lambda: tm.add_module("weight", t.Affine(1, 1)))


def test_assign_before_init_and_bad_init_args(torch):
    for lib in (ember, torch):
        class Early(lib.nn.Module):
            def __init__(self):
                self.w = lib.nn.Parameter(lib.ones(1))

        class EarlyModule(lib.nn.Module):
            def __init__(self):
                self.child = lib.nn.Module()
        with pytest.raises(AttributeError, match="cannot assign parameters before"):
            Early()
        with pytest.raises(AttributeError, match="cannot assign module before"):
            EarlyModule()
    _errors(lambda: nn.Module(3), lambda: torch.nn.Module(3))
    _errors(lambda: nn.Module(foo=3), lambda: torch.nn.Module(foo=3))


def test_reassignment_moves_between_registries():
    m = nn.Module()
    m.x = nn.Parameter(ember.ones(1))
    m.x = None  # stays a declared parameter
    assert m._parameters == {"x": None}
    with pytest.raises(TypeError, match="cannot assign 'ember.nn.modules.module.Module' as "
                                        "parameter 'x'"):
        m.x = nn.Module()
    m.y = nn.Module()
    m.y = nn.Parameter(ember.ones(1))  # a parameter replaces the child module entry
    assert "y" in m._parameters and "y" not in m._modules
    m.y = None
    m.z = nn.Module()
    m.z = None  # a declared child
    assert m._modules == {"z": None}
    del m.y, m.z
    m.x = nn.Parameter(ember.ones(1))
    m.register_buffer("b", ember.ones(1))
    m.b = ember.zeros(2)  # a buffer name takes any tensor
    assert m._buffers["b"].tolist() == [0.0, 0.0]
    m.b = nn.Parameter(ember.ones(1))
    assert "b" not in m._buffers and "b" in m._parameters
    m.plain = 3
    assert m.__dict__["plain"] == 3
    del m.plain, m.b, m.x
    assert not m._parameters and not m._modules and "plain" not in m.__dict__
    with pytest.raises(AttributeError):
        del m.missing


def test_default_forward_raises_torch_text(torch):
    class Net(nn.Module):
        pass

    class TNet(torch.nn.Module):
        pass
    with pytest.raises(NotImplementedError) as got:
        Net()(ember.ones(1))
    with pytest.raises(NotImplementedError) as expected:
        TNet()(torch.ones(1))
    assert str(got.value).replace("TNet", "Net") == str(expected.value).replace("TNet", "Net")


def test_dir_lists_members():
    net = _library(ember).Net()
    names = dir(net)
    assert {"fc1", "block", "training", "forward", "state_dict"} <= set(names)
    assert names == sorted(names)
    assert "weight" in dir(net.fc1)


# ---------------------------------------------------------------- iterators
@pytest.mark.parametrize("kwargs", [{}, {"prefix": "model"}, {"recurse": False},
                                    {"remove_duplicate": False},
                                    {"prefix": "p", "remove_duplicate": False}])
def test_named_parameters_and_buffers_match_torch(torch, kwargs):
    e, t = _both(torch)
    en, tn = e.Net(), t.Net()
    assert [n for n, _ in en.named_parameters(**kwargs)] == \
        [n for n, _ in tn.named_parameters(**kwargs)]
    assert [n for n, _ in en.named_buffers(**kwargs)] == [n for n, _ in tn.named_buffers(**kwargs)]
    for (_, a), (_, b) in zip(en.named_parameters(**kwargs), tn.named_parameters(**kwargs)):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("kwargs", [{}, {"prefix": "root"}, {"remove_duplicate": False}])
def test_named_modules_and_children_match_torch(torch, kwargs):
    e, t = _both(torch)
    en, tn = e.Net(), t.Net()
    assert [n for n, _ in en.named_modules(**kwargs)] == [n for n, _ in tn.named_modules(**kwargs)]
    assert [n for n, _ in en.named_children()] == [n for n, _ in tn.named_children()]
    assert len(list(en.modules())) == len(list(tn.modules()))
    assert len(list(en.children())) == len(list(tn.children()))
    assert len(list(en.parameters())) == len(list(tn.parameters()))
    assert len(list(en.buffers(recurse=False))) == 0


def test_shared_parameter_is_yielded_once():
    m = nn.Module()
    m.a = nn.Parameter(ember.ones(1))
    m.b = m.a
    assert [n for n, _ in m.named_parameters()] == ["a"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == ["a", "b"]


def test_get_submodule_parameter_buffer_match_torch(torch):
    e, t = _both(torch)
    en, tn = e.Net(), t.Net()
    assert en.get_submodule("block.inner") is en.block.inner
    assert en.get_submodule("") is en
    assert en.get_parameter("block.inner.weight") is en.block.inner.weight
    assert en.get_buffer("block.stats.mean") is en.block.stats.mean
    for target in ["block.nothing", "fc1.weight.x", "fc1.weight"]:
        _errors(lambda: en.get_submodule(target), lambda: tn.get_submodule(target))
    for target in ["block.inner.nothing", "block.stats.mean", "block.inner"]:
        _errors(lambda: en.get_parameter(target), lambda: tn.get_parameter(target))
    for target in ["block.stats.nothing", "block.stats.scale"]:
        _errors(lambda: en.get_buffer(target), lambda: tn.get_buffer(target))
    replacement = e.Affine(3, 3)
    en.set_submodule("block.inner", replacement)
    assert en.block.inner is replacement
    _errors(lambda: en.set_submodule("", replacement), lambda: tn.set_submodule("", t.Affine(1, 1)))


# ---------------------------------------------------------------- state_dict
def test_state_dict_keys_values_and_metadata_match_torch(torch):
    e, t = _both(torch)
    es, ts = e.Net().state_dict(), t.Net().state_dict()
    assert isinstance(es, OrderedDict)
    assert list(es) == list(ts)
    for key in ts:
        assert type(es[key]) is ember.Tensor and not es[key].requires_grad
        np.testing.assert_array_equal(es[key].numpy(), ts[key].numpy())
        assert str(es[key].dtype) == str(ts[key].dtype).replace("torch", "ember")
    assert dict(es._metadata) == dict(ts._metadata)
    assert list(e.Net().state_dict(prefix="net.")) == list(t.Net().state_dict(prefix="net."))


def test_state_dict_aliases_and_keep_vars():
    net = _library(ember).Net()
    state = net.state_dict()
    assert state["fc1.weight"].data_ptr() == net.fc1.weight.data_ptr()
    kept = net.state_dict(keep_vars=True)
    assert kept["fc1.weight"] is net.fc1.weight
    assert kept["block.stats.mean"] is net.block.stats.mean


def test_load_state_dict_copies_in_place(torch):
    e, t = _both(torch)
    source, target = t.Net(), e.Net()
    with torch.no_grad():
        for p in source.parameters():
            p.mul_(2)
    source.block.stats.count.fill_(7)
    weight = target.fc1.weight
    version = weight._version
    result = target.load_state_dict({k: ember.tensor(v.numpy())
                                     for k, v in source.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target.fc1.weight is weight and weight._version > version
    assert weight.requires_grad and weight.grad_fn is None
    for key, value in source.state_dict().items():
        np.testing.assert_array_equal(target.state_dict()[key].numpy(), value.numpy())


def test_load_state_dict_assign_keeps_requires_grad():
    net = _library(ember).Affine(2, 3)
    new = {"weight": ember.zeros(3, 2), "bias": ember.ones(3)}
    net.load_state_dict(new, assign=True)
    assert type(net.weight) is nn.Parameter and net.weight.requires_grad
    assert net.weight.data_ptr() == new["weight"].data_ptr()


def _broken_state(lib, net):
    state = dict(net.state_dict())
    del state["fc1.bias"]
    state["block.stats.extra"] = lib.zeros(1)
    state["nothere.weight"] = lib.zeros(1)
    state["fc2.weight"] = lib.zeros(4, 4)
    return state


def test_load_state_dict_strict_errors_match_torch(torch):
    e, t = _both(torch)
    en, tn = e.Net(), t.Net()
    _errors(lambda: en.load_state_dict(_broken_state(ember, en)),
            lambda: tn.load_state_dict(_broken_state(torch, tn)))
    _errors(lambda: en.load_state_dict([1]), lambda: tn.load_state_dict([1]))
    state_e, state_t = dict(en.state_dict()), dict(tn.state_dict())
    state_e["fc1.bias"], state_t["fc1.bias"] = 3, 3
    _errors(lambda: en.load_state_dict(state_e), lambda: tn.load_state_dict(state_t))


def test_load_state_dict_non_strict_matches_torch(torch):
    e, t = _both(torch)
    en, tn = e.Net(), t.Net()
    state_e, state_t = dict(en.state_dict()), dict(tn.state_dict())
    for state, lib in ((state_e, ember), (state_t, torch)):
        del state["fc1.bias"]
        state["unknown"] = lib.zeros(1)
    got = en.load_state_dict(state_e, strict=False)
    expected = tn.load_state_dict(state_t, strict=False)
    assert repr(got) == repr(expected)
    assert got == expected
    _errors(lambda: en.load_state_dict(_broken_state(ember, en), strict=False),
            lambda: tn.load_state_dict(_broken_state(torch, tn), strict=False))


def test_load_state_dict_one_element_to_scalar(torch):
    stats = _library(ember).Stats(2)
    state = dict(stats.state_dict())
    state["count"] = ember.tensor([5])
    stats.load_state_dict(state)
    assert stats.count.item() == 5 and stats.count.dim() == 0


def test_state_dict_and_load_hooks():
    net = _library(ember).Affine(2, 2)
    calls = []
    h1 = net.register_state_dict_pre_hook(lambda m, prefix, keep: calls.append(("pre", prefix)))
    h2 = net.register_state_dict_post_hook(lambda m, sd, prefix, meta: calls.append("post"))
    h3 = net.register_load_state_dict_pre_hook(
        lambda m, sd, prefix, *rest: calls.append(("load-pre", m is net)))
    h4 = net.register_load_state_dict_post_hook(
        lambda m, keys: calls.append(("load-post", keys.missing_keys)))
    net.load_state_dict(net.state_dict())
    assert calls == [("pre", ""), "post", ("load-pre", True), ("load-post", [])]
    for handle in (h1, h2, h3, h4):
        handle.remove()
    calls.clear()
    net.load_state_dict(net.state_dict())
    assert calls == []


def test_extra_state_round_trip():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 1

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]

    a, b = WithExtra(), WithExtra()
    a.value = 42
    assert list(a.state_dict()) == ["_extra_state"]
    b.load_state_dict(a.state_dict())
    assert b.value == 42


# ---------------------------------------------------------------- calling and hooks
def test_forward_matches_torch(torch):
    e, t = _both(torch)
    x = _array(4, 2, seed=9)
    out_e = e.Net()(ember.tensor(x))
    out_t = t.Net()(torch.tensor(x))
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), rtol=1e-5)


def test_forward_hooks_replace_inputs_and_outputs():
    m = _library(ember).Affine(2, 2)
    x = ember.ones(1, 2)
    plain = m(x)
    seen = []
    h1 = m.register_forward_pre_hook(lambda mod, args: args[0] * 0)  # single value wrapped
    h2 = m.register_forward_hook(lambda mod, args, out: seen.append(args[0].sum().item()))
    assert m(x).tolist() == m.bias.detach().unsqueeze(0).tolist()
    assert seen == [0.0]
    h1.remove()
    h3 = m.register_forward_hook(lambda mod, args, out: out + 1)
    assert (m(x) - plain).tolist() == [[1.0, 1.0]]
    h2.remove()
    h3.remove()
    assert m(x).tolist() == plain.tolist()
    assert not m._forward_hooks and not m._forward_pre_hooks


def test_hooks_with_kwargs_prepend_and_order():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    order = []
    m.register_forward_pre_hook(lambda mod, args: order.append("pre-a"))
    m.register_forward_pre_hook(lambda mod, args: order.append("pre-b"), prepend=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: order.append(kwargs["factor"]),
                            with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: order.append("post-first"), prepend=True)
    assert m(ember.tensor([2.0]), factor=5.0).tolist() == [6.0]
    assert order == ["pre-b", "pre-a", "post-first", 3.0]
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5."):
        m(ember.ones(1))


def test_always_call_hook_runs_when_forward_raises():
    class Broken(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Broken()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(ember.ones(1))
    assert seen == [("always", None)]


def test_handle_as_context_manager_and_global_hooks():
    from ember.nn.modules import module as module_module
    m = _library(ember).Affine(2, 2)
    with m.register_forward_hook(lambda mod, args, out: out * 0):
        assert m(ember.ones(1, 2)).abs().sum().item() == 0
    assert m(ember.ones(1, 2)).abs().sum().item() > 0
    seen = []
    handle = module_module.register_module_forward_pre_hook(lambda mod, args: seen.append(mod))
    try:
        m(ember.ones(1, 2))
    finally:
        handle.remove()
    m(ember.ones(1, 2))
    assert seen == [m]


def test_hooks_survive_deepcopy_and_pickle():
    m = PicklableNet()
    m.register_forward_hook(_zero_output)
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert clone(ember.ones(1, 2)).abs().sum().item() == 0
        assert len(clone._forward_hooks) == 1


def _zero_output(module, args, output):
    return output * 0


# ---------------------------------------------------------------- modes, grads, conversion
def test_train_eval_propagate():
    net = _library(ember).Net()
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.block.train(False)
    assert net.training and not net.block.inner.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train(1)


def test_zero_grad_and_requires_grad():
    net = _library(ember).Net()
    net(ember.ones(2, 2)).sum().backward()
    grads = {n: p.grad for n, p in net.named_parameters()}
    assert all(g is not None for g in grads.values())
    net.zero_grad(set_to_none=False)
    for name, p in net.named_parameters():
        assert p.grad is grads[name] and p.grad.abs().sum().item() == 0
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first(torch):
    e, t = _both(torch)
    names_e, names_t = [], []
    e.Net().apply(lambda m: names_e.append(type(m).__name__))
    t.Net().apply(lambda m: names_t.append(type(m).__name__))
    assert names_e == names_t


@pytest.mark.parametrize("convert,dtype", [
    (lambda m: m.double(), ember.float64), (lambda m: m.half(), ember.float16),
    (lambda m: m.bfloat16(), ember.bfloat16), (lambda m: m.to(ember.float64), ember.float64),
    (lambda m: m.to("cpu", dtype=ember.float64), ember.float64),
    (lambda m: m.to(ember.zeros(1, dtype=ember.float64)), ember.float64),
    (lambda m: m.double().float(), ember.float32), (lambda m: m.cpu(), ember.float32)])
def test_conversions_keep_parameter_identity(convert, dtype):
    net = _library(ember).Net()
    net(ember.ones(2, 2)).sum().backward()
    params = dict(net.named_parameters())
    assert convert(net) is net
    for name, p in net.named_parameters():
        assert p is params[name] and type(p) is nn.Parameter
        assert p.dtype is dtype and p.grad.dtype is dtype and p.requires_grad
    assert net.block.stats.mean.dtype is dtype
    assert net.block.stats.count.dtype is ember.int64  # integer buffers keep their dtype


def test_conversion_values_and_int_dtype_error(torch):
    e, t = _both(torch)
    en, tn = e.Net().double(), t.Net().double()
    for a, b in zip(en.parameters(), tn.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    _errors(lambda: en.to(ember.int32), lambda: tn.to(torch.int32))
    assert e.Net().type(ember.float64).block.stats.count.dtype is ember.float64


def test_optimizer_style_update_after_conversion():
    net = _library(ember).Affine(2, 1)
    held = list(net.parameters())
    net.double()
    with ember.no_grad():
        for p in held:
            p.zero_()
    assert net(ember.ones(1, 2, dtype=ember.float64)).item() == 0.0


# ---------------------------------------------------------------- repr
def test_module_repr_matches_torch(torch):
    e, t = _both(torch)
    assert repr(e.Net()) == repr(t.Net())
    assert repr(nn.Module()) == repr(torch.nn.Module()) == "Module()"
    assert repr(e.Stats(2)) == repr(t.Stats(2))
    assert repr(e.Affine(1, 2)) == repr(t.Affine(1, 2)) == "Affine(in=1, out=2)"


def test_repr_of_module_with_none_child(torch):
    for lib in (ember, torch):
        m = lib.nn.Module()
        m.add_module("gone", None)
        m.child = lib.nn.Module()
        assert repr(m) == "Module(\n  (gone): None\n  (child): Module()\n)"


# ---------------------------------------------------------------- copying
def test_deepcopy_module_is_independent_and_keeps_sharing():
    net = _library(ember).Net()
    clone = copy.deepcopy(net)
    assert clone.again is clone.fc1 and clone.fc1 is not net.fc1
    with ember.no_grad():
        clone.fc1.weight.zero_()
    assert net.fc1.weight.abs().sum().item() > 0
    assert repr(clone) == repr(net)
    assert [n for n, _ in clone.named_parameters()] == [n for n, _ in net.named_parameters()]


def test_pickle_module_round_trip():
    # Classes local to a function cannot be pickled; a module-level one can.
    model = PicklableNet()
    loaded = pickle.loads(pickle.dumps(model))
    assert type(loaded) is PicklableNet and loaded.weight.tolist() == model.weight.tolist()
    assert type(loaded.weight) is nn.Parameter and loaded.steps.tolist() == [3]
    assert loaded.training is model.training


class PicklableNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(ember.tensor([[1.0, 2.0]]))
        self.register_buffer("steps", ember.tensor([3]))

    def forward(self, x):
        return x @ self.weight.T


# ---------------------------------------------------------------- lazy modules
class _Dense(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = nn.Parameter(ember.empty(out_features, in_features))
        self.register_buffer("calls", ember.zeros(()))
        self.reset_parameters()

    def reset_parameters(self):
        with ember.no_grad():
            self.weight.uniform_(-1, 1)

    def forward(self, x):
        return x @ self.weight.T

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}"


class _LazyDense(LazyModuleMixin, _Dense):
    cls_to_become = _Dense

    def __init__(self, out_features):
        super().__init__(0, out_features)
        self.weight = UninitializedParameter()

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, x):
        if self.has_uninitialized_params():
            with ember.no_grad():
                self.in_features = x.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                self.reset_parameters()


def test_lazy_module_becomes_its_concrete_class():
    m = _LazyDense(4)
    assert repr(m) == "_LazyDense(in_features=0, out_features=4)"
    assert m.has_uninitialized_params() and is_lazy(m.weight)
    assert type(m.state_dict()["weight"]) is UninitializedParameter
    ember.manual_seed(0)
    out = m(ember.ones(2, 3))
    assert type(m) is _Dense and type(m.weight) is nn.Parameter
    assert out.shape == (2, 4) and m.weight.shape == (4, 3)
    assert repr(m) == "_Dense(in_features=3, out_features=4)"
    assert not m._forward_pre_hooks and not m._load_state_dict_pre_hooks
    ember.manual_seed(0)
    np.testing.assert_array_equal(m.weight.detach().numpy(), _Dense(3, 4).weight.detach().numpy())


def test_lazy_module_materialises_from_a_state_dict():
    source = _Dense(5, 2)
    lazy = _LazyDense(2)
    lazy.load_state_dict(source.state_dict())
    assert lazy.weight.shape == (2, 5) and type(lazy.weight) is nn.Parameter
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), source.weight.detach().numpy())


def test_lazy_module_conversion_before_init():
    m = _LazyDense(3).double()
    assert is_lazy(m.weight) and m.weight.dtype is ember.float64
    m(ember.ones(1, 2, dtype=ember.float64))
    assert m.weight.dtype is ember.float64


def test_lazy_module_must_be_fully_initialised():
    class Incomplete(_LazyDense):
        def initialize_parameters(self, x):
            pass

    with pytest.raises(RuntimeError, match="module Incomplete has not been fully initialized"):
        Incomplete(2)(ember.ones(1, 2))
    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented"):
        LazyModuleMixin.initialize_parameters(_LazyDense(1))


def test_uninitialized_parameter_errors_match_torch(torch):
    p, q = UninitializedParameter(), torch.nn.UninitializedParameter()
    assert repr(p) == repr(q) and str(p) == str(q)
    assert p.requires_grad and p.size() == (0,) and p.dtype is ember.float32
    _errors(lambda: p.shape, lambda: q.shape)
    _errors(lambda: p.sum(), lambda: q.sum())
    _errors(lambda: p.detach(), lambda: q.detach())
    _errors(lambda: p + 1, lambda: q + 1)
    _errors(lambda: p.share_memory_(), lambda: q.share_memory_())
    r = copy.deepcopy(UninitializedParameter(requires_grad=False, dtype=ember.float64))
    assert type(r) is UninitializedParameter and not r.requires_grad and r.dtype is ember.float64
    s = pickle.loads(pickle.dumps(UninitializedParameter(requires_grad=False)))
    assert type(s) is UninitializedParameter and not s.requires_grad
    p.materialize((2, 3), dtype=ember.float64)
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.dtype is ember.float64


def test_uninitialized_buffer():
    b = UninitializedBuffer()
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
    assert isinstance(b, nn.Buffer) and is_lazy(b)
    b.materialize(4)
    assert type(b) is ember.Tensor and b.shape == (4,)
    m = nn.Module()
    m.buf = UninitializedBuffer(persistent=False)
    assert "buf" in m._non_persistent_buffers_set


def test_hook_free_call_is_forward():
    """Without hooks, calling a module runs forward once and warns about nothing."""
    m = _library(ember).Affine(2, 2)
    x = ember.ones(1, 2)
    calls = []
    original = m.forward
    m.forward = lambda *args: calls.append(args) or original(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = m(x)
    assert len(calls) == 1 and out.shape == (1, 2)


# ---------------------------------------------------------------- backward hooks
def _backward_hook_log(lib):
    class Mul(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.tensor([2.0, 3.0]))

        def forward(self, x, y, k=1):
            return x * self.w * y, x.sum() * 0 + 5

    def values(grads):
        return [None if g is None else g.tolist() for g in grads]

    m, log = Mul(), []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", values(go))))

    def hook(mod, grad_input, grad_output):
        log.append(("hook", values(grad_input), values(grad_output)))
        return tuple(None if g is None else g * 10 for g in grad_input)

    handle = m.register_full_backward_hook(hook)
    x = lib.tensor([1.0, 1.0], requires_grad=True)
    a, b = m(x, lib.tensor([4.0, 5.0]), 3)
    log.append(type(a.grad_fn).__name__)
    (a.sum() + b).backward()
    log.append((x.grad.tolist(), m.w.grad.tolist()))
    a, _ = m(lib.ones(2), lib.ones(2))  # no input needs a gradient: hooks run at the outputs
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                         "computed with respect to module outputs"):
        a.sum().backward()
    handle.remove()
    m(x, x)[0].sum().backward()
    log.append(x.grad.tolist())
    return log


def test_full_backward_hooks_match_torch(torch):
    assert _backward_hook_log(ember) == _backward_hook_log(torch)
