"""nn classes and optim hooks no other test reaches, against torch: the 3-d pools and
paddings, ConvTranspose3d, InstanceNorm3d, the lazy modules, Buffer, the uninitialized
parameters, and optim's global step hooks.

Modules with weights get torch's weights (through load_state_dict) so that outputs and
gradients compare exactly; lazy modules are compared before and after their first call.
"""
import importlib
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same

RNG = np.random.default_rng(3)

MODULES = [
    ("AdaptiveAvgPool3d((2, 1, 3))", (1, 2, 3, 4, 5)),
    ("AdaptiveAvgPool3d(2)", (2, 3, 3, 2)),
    ("AdaptiveMaxPool3d((1, 2, 2), return_indices=True)", (1, 2, 3, 4, 4)),
    ("AvgPool3d(2, stride=1, padding=1, count_include_pad=False)", (1, 2, 3, 3, 2)),
    ("AvgPool3d((2, 1, 2), ceil_mode=True)", (1, 1, 3, 3, 3)),
    ("MaxPool3d(2, stride=(1, 2, 1), return_indices=True)", (1, 2, 3, 4, 3)),
    ("MaxPool3d(2, padding=1, dilation=(1, 2, 1))", (2, 3, 4, 5)),
    ("CircularPad3d((1, 0, 2, 1, 0, 1))", (1, 2, 2, 3, 3)),
    ("ReflectionPad3d(1)", (1, 2, 2, 3, 3)),
    ("ReplicationPad3d((2, 0, 1, 1, 0, 2))", (2, 2, 3, 2)),
    ("ZeroPad1d((2, 1))", (2, 3, 4)),
    ("ZeroPad1d(-1)", (3, 4)),
    ("ZeroPad3d((1, 1, 0, 2, 1, 0))", (1, 2, 2, 2, 2)),
    ("InstanceNorm3d(2)", (2, 2, 3, 2, 2)),
    ("InstanceNorm3d(2, affine=True, track_running_stats=True)", (2, 2, 3, 2, 2)),
    ("ConvTranspose3d(2, 3, 2, stride=(2, 1, 1), padding=(1, 0, 0), output_padding=(1, 0, 0))",
     (1, 2, 3, 2, 2)),
    ("ConvTranspose3d(2, 2, (1, 2, 2), groups=2, bias=False)", (2, 3, 2, 2)),
]


def _build(lib, source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(source, {"nn": lib.nn})


def _copy_state(em, tm):
    """torch's parameters and buffers into the ember module, so both compute the same."""
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


def _run_both(torch, em, tm, shape, train=True):
    array = RNG.uniform(-2.0, 2.0, size=shape)
    x_e, x_t = ember.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    em.train(train)
    tm.train(train)
    got, expected = em(x_e), tm(x_t)
    assert_same(got, expected, 1e-10, 1e-10)
    first_e = got[0] if isinstance(got, tuple) else got
    first_t = expected[0] if isinstance(expected, tuple) else expected
    seed = RNG.standard_normal(tuple(first_t.shape))
    first_t.backward(torch.tensor(seed))
    first_e.backward(ember.tensor(seed))
    assert_same(x_e.grad, x_t.grad, 1e-10, 1e-10)
    for (name, p_e), (_, p_t) in zip(em.named_parameters(), tm.named_parameters()):
        assert_same(p_e.grad, p_t.grad, 1e-10, 1e-10, name)
    for (name, b_e), (_, b_t) in zip(em.named_buffers(), tm.named_buffers()):
        assert_same(b_e, b_t, 1e-10, 1e-10, name)


@pytest.mark.parametrize("source, shape", MODULES)
def test_module_matches_torch(torch, source, shape):
    em, tm = _build(ember, "nn." + source), _build(torch, "nn." + source)
    tm.double()
    em.double()
    assert repr(em) == repr(tm)
    _copy_state(em, tm)
    _run_both(torch, em, tm, shape)


def test_instance_norm_3d_running_stats_in_eval(torch):
    source = "nn.InstanceNorm3d(2, momentum=0.5, track_running_stats=True)"
    em, tm = _build(ember, source).double(), _build(torch, source).double()
    _run_both(torch, em, tm, (2, 2, 2, 3, 2))
    _run_both(torch, em, tm, (1, 2, 2, 3, 2), train=False)


def test_3d_modules_refuse_wrong_ranks_like_torch(torch):
    from test_api_pointwise import compare_error  # noqa: PLC0415 - the shared error check
    compare_error(torch, lambda lib: lib.nn.MaxPool3d(2)(lib.ones(2, 2)))
    compare_error(torch, lambda lib: lib.nn.AdaptiveAvgPool3d(2)(lib.ones(2)))
    compare_error(torch, lambda lib: lib.nn.ReflectionPad3d(3)(lib.ones(1, 1, 2, 2, 2)))
    compare_error(torch, lambda lib: lib.nn.ConvTranspose3d(2, 2, 2)(lib.ones(1, 3, 2, 2, 2)))


# ---------------------------------------------------------------- lazy modules
LAZY = [
    ("LazyConv3d(3, 2, padding=1)", (1, 2, 3, 3, 2)),
    ("LazyConvTranspose2d(3, 2, stride=2)", (2, 2, 3, 3)),
    ("LazyConvTranspose3d(2, (1, 2, 1))", (1, 3, 2, 2, 2)),
    ("LazyBatchNorm3d()", (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d(affine=True)", (2, 3, 4)),
    ("LazyInstanceNorm2d()", (2, 3, 2, 3)),
    ("LazyInstanceNorm3d(track_running_stats=True)", (2, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("source, shape", LAZY)
def test_lazy_module_becomes_its_eager_class_like_torch(torch, source, shape):
    em, tm = _build(ember, "nn." + source), _build(torch, "nn." + source)
    assert repr(em) == repr(tm)
    assert [ember.nn.parameter.is_lazy(t) for t in [*em.parameters(), *em.buffers()]] == \
        [torch.nn.parameter.is_lazy(t) for t in [*tm.parameters(), *tm.buffers()]]
    assert isinstance(em, ember.nn.modules.lazy.LazyModuleMixin)
    array = RNG.uniform(-1, 1, size=shape).astype(np.float32)
    em(ember.tensor(array))
    tm(torch.tensor(array))
    assert type(em).__name__ == type(tm).__name__ and repr(em) == repr(tm)
    assert not isinstance(em, ember.nn.modules.lazy.LazyModuleMixin)
    assert [(n, tuple(p.shape)) for n, p in em.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    em.double()
    tm.double()
    _copy_state(em, tm)
    _run_both(torch, em, tm, shape)


def test_lazy_mixin_and_uninitialized_classes_mirror_torch(torch):
    assert issubclass(ember.nn.UninitializedParameter, ember.nn.UninitializedTensorMixin)
    assert issubclass(ember.nn.UninitializedBuffer, ember.nn.UninitializedTensorMixin)
    assert issubclass(torch.nn.UninitializedBuffer, torch.nn.parameter.UninitializedTensorMixin)
    assert issubclass(ember.nn.LazyConv3d, ember.nn.LazyModuleMixin)
    assert issubclass(torch.nn.LazyConv3d, torch.nn.modules.lazy.LazyModuleMixin)


def test_uninitialized_parameter_and_buffer_match_torch(torch):
    from test_api_pointwise import compare_error  # noqa: PLC0415 - the shared error check
    for lib in (ember, torch):
        p, b = lib.nn.UninitializedParameter(), lib.nn.UninitializedBuffer()
        assert (repr(p), repr(b)) == ("<UninitializedParameter>", "<UninitializedBuffer>")
        assert p.requires_grad and not b.requires_grad
        p.materialize((2, 3))
        b.materialize(4, dtype=lib.float64)
        assert type(p).__name__ == "Parameter" and type(b).__name__ == "Tensor"
        assert tuple(p.shape) == (2, 3) and tuple(b.shape) == (4,)
        assert str(b.dtype).endswith("float64") and p.requires_grad
    compare_error(torch, lambda lib: lib.nn.UninitializedParameter().shape)
    errors = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as error:
            lib.nn.UninitializedBuffer().view(2)
        errors.append(str(error.value))
    # "...before calling torch functions": the library names itself, also without a dot
    assert errors[0] == errors[1].replace("torch", "ember")


def test_buffer_registers_like_torch(torch):
    seen = []
    for lib in (ember, torch):
        m = lib.nn.Module()
        m.kept = lib.nn.Buffer(lib.ones(2))
        m.dropped = lib.nn.Buffer(lib.zeros(1), persistent=False)
        assert type(m.kept).__name__ == "Tensor" and isinstance(m.kept, lib.nn.Buffer)
        assert not isinstance(lib.ones(1), lib.nn.Buffer)
        seen.append((list(m.state_dict()), [n for n, _ in m.named_buffers()],
                     [n for n, _ in m.named_parameters()], repr(m.kept)))
    assert seen[0][:3] == seen[1][:3]
    assert seen[0][3] == seen[1][3].replace("torch.", "ember.")


# ---------------------------------------------------------------- optim's global hooks
def _hook_log(lib, registers, record):
    """Run one step with global pre/post hooks that `record`, then one after removing them."""
    calls = []
    param = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([param], lr=0.5)
    register_pre, register_post = registers
    pre = register_pre(
        lambda o, args, kwargs: calls.append(("pre", record(o, args, kwargs), param.tolist())))
    post = register_post(
        lambda o, args, kwargs: calls.append(("post", record(o, args, kwargs), param.tolist())))
    try:
        param.grad = lib.ones(2)
        opt.step()
    finally:
        pre.remove()
        post.remove()
    opt.step()   # removed: no more calls
    return calls + [type(pre).__name__]


def _libraries(torch):
    """ember exports the hooks from ember.optim; torch keeps them in torch.optim.optimizer."""
    module = importlib.import_module("torch.optim.optimizer")
    return ((ember, (ember.optim.register_optimizer_step_pre_hook,
                     ember.optim.register_optimizer_step_post_hook)),
            (torch, (module.register_optimizer_step_pre_hook,
                     module.register_optimizer_step_post_hook)))


def test_global_optimizer_step_hooks_match_torch(torch):
    logs = [_hook_log(lib, module, lambda o, args, kwargs: (type(o).__name__, kwargs))
            for lib, module in _libraries(torch)]
    assert logs[0] == logs[1]


def test_step_hooks_get_the_optimizer_in_args_like_torch(torch):
    logs = [_hook_log(lib, module, lambda o, args, kwargs: [a is o for a in args])
            for lib, module in _libraries(torch)]
    assert logs[0] == logs[1]
