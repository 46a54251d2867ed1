"""Convolution layers and F.conv*: modules vs torch, default init, reprs, errors, gradients.

The catalog (tests/opdb/nn_conv.py) covers values, grads and gradgradcheck of the
functional ops; this file covers what it cannot: modules, messages, hypothesis
sweeps over the parameter space, second derivatives against torch.
"""
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember
from oracle import assert_same, assert_same_error


def _pair(torch, array, requires_grad=False):
    e = ember.tensor(array, requires_grad=requires_grad)
    t = torch.tensor(array, requires_grad=requires_grad)
    return e, t


def _copy_params(module, torch_module):
    """Give the ember module the torch module's parameter values."""
    with ember.no_grad():
        for name, tparam in torch_module.named_parameters():
            getattr(module, name).copy_(ember.tensor(tparam.detach().numpy()))


# ---------------------------------------------------------------- modules vs torch
MODULES = [
    ("Conv2d", (1, 6, 5), {"padding": 2}, (2, 1, 8, 8)),
    ("Conv2d", (4, 6, 3), {"stride": 2, "groups": 2, "dilation": (1, 2)}, (1, 4, 9, 9)),
    ("Conv2d", (2, 3, (3, 2)), {"padding": "same", "bias": False}, (1, 2, 5, 6)),
    ("Conv2d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (1, 2, 5, 6)),
    ("Conv2d", (2, 3, 3), {"padding": (2, 1), "padding_mode": "replicate"}, (2, 5, 6)),
    ("Conv2d", (2, 3, 3), {"padding": 1, "padding_mode": "circular"}, (1, 2, 5, 6)),
    ("Conv2d", (2, 3, 4), {"padding": "same", "padding_mode": "reflect"}, (1, 2, 6, 6)),
    ("Conv1d", (3, 4, 3), {"padding": 1, "stride": 2}, (2, 3, 9)),
    ("Conv1d", (3, 4, 2), {"padding": "same", "padding_mode": "circular"}, (3, 7)),
    ("Conv3d", (1, 2, 2), {"padding": 1}, (1, 1, 3, 4, 4)),
    ("ConvTranspose2d", (3, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1},
     (1, 3, 4, 4)),
    ("ConvTranspose2d", (4, 2, 2), {"groups": 2, "dilation": 2}, (4, 3, 3)),
    ("ConvTranspose1d", (2, 3, 3), {"stride": 3}, (2, 2, 4)),
]


@pytest.mark.parametrize("name, args, kwargs, shape", MODULES)
def test_module_forward_backward_matches_torch(torch, name, args, kwargs, shape):
    rng = np.random.default_rng(0)
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    em = getattr(ember.nn, name)(*args, **kwargs).double()
    _copy_params(em, tm)
    e, t = _pair(torch, rng.standard_normal(shape), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, got = tm(t), em(e)
    assert_same(got, expected, 1e-10, 1e-10)
    grad = rng.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(grad))
    got.backward(ember.tensor(grad))
    assert_same(e.grad, t.grad, 1e-10, 1e-10)
    for pname, tparam in tm.named_parameters():
        assert_same(getattr(em, pname).grad, tparam.grad, 1e-10, 1e-10, pname)


@pytest.mark.parametrize("name, args, kwargs, shape", MODULES)
def test_default_init_matches_torch_after_seed(torch, name, args, kwargs, shape):
    torch.manual_seed(7)
    tm = getattr(torch.nn, name)(*args, **kwargs)
    ember.manual_seed(7)
    em = getattr(ember.nn, name)(*args, **kwargs)
    for pname, tparam in tm.named_parameters():
        eparam = getattr(em, pname)
        assert isinstance(eparam, ember.nn.Parameter)
        np.testing.assert_array_equal(eparam.detach().numpy(), tparam.detach().numpy())


def test_conv_transpose_output_size_matches_torch(torch):
    rng = np.random.default_rng(1)
    tm = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    em = ember.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    _copy_params(em, tm)
    e, t = _pair(torch, rng.standard_normal((1, 2, 4, 4)).astype(np.float32))
    for size in ([8, 8], [7, 8], (1, 3, 8, 7)):
        assert_same(em(e, output_size=size), tm(t, output_size=size), 1e-5, 1e-5)
    assert_same_error(lambda lib: (em if lib is ember else tm)(
        e if lib is ember else t, output_size=[9, 9]))
    assert_same_error(lambda lib: (em if lib is ember else tm)(
        e if lib is ember else t, output_size=[9]))


def test_lazy_conv_becomes_conv_with_torch_weights(torch):
    torch.manual_seed(3)
    tm = torch.nn.LazyConv2d(4, 3, padding=1)
    ember.manual_seed(3)
    em = ember.nn.LazyConv2d(4, 3, padding=1)
    assert repr(em) == repr(tm)
    rng = np.random.default_rng(0)
    e, t = _pair(torch, rng.standard_normal((1, 2, 5, 5)).astype(np.float32))
    assert_same(em(e), tm(t), 1e-5, 1e-5)
    assert type(em) is ember.nn.Conv2d
    assert repr(em) == repr(tm)
    np.testing.assert_array_equal(em.weight.detach().numpy(), tm.weight.detach().numpy())


def test_lazy_conv_transpose(torch):
    torch.manual_seed(0)
    tm = torch.nn.LazyConvTranspose1d(3, 2, stride=2)
    ember.manual_seed(0)
    em = ember.nn.LazyConvTranspose1d(3, 2, stride=2)
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32)
    assert_same(em(ember.tensor(x)), tm(torch.tensor(x)), 1e-5, 1e-5)
    assert type(em) is ember.nn.ConvTranspose1d
    assert em.weight.shape == (4, 3, 2)


REPRS = [
    "Conv2d(1, 6, 5, padding=2)",
    "Conv2d(1, 6, kernel_size=5)",
    "Conv2d(2, 4, 3, padding='same', bias=False, padding_mode='reflect', groups=2, dilation=2)",
    "Conv2d(2, 4, (3, 1), stride=(2, 1), padding='valid')",
    "Conv1d(1, 2, 3)",
    "Conv3d(1, 2, 3, stride=2)",
    "ConvTranspose2d(2, 3, 2, stride=2, output_padding=1)",
    "ConvTranspose1d(2, 4, 3, groups=2, bias=False, dilation=3)",
    "LazyConv2d(4, 3)",
    "LazyConv1d(4, 3, padding=1)",
]


@pytest.mark.parametrize("source", REPRS)
def test_repr_matches_torch(torch, source):
    assert repr(eval("ember.nn." + source)) == repr(eval("torch.nn." + source))


def test_module_attributes_match_torch(torch):
    e = ember.nn.Conv2d(2, 4, 3, padding=1, padding_mode="reflect")
    t = torch.nn.Conv2d(2, 4, 3, padding=1, padding_mode="reflect")
    for name in ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
                 "transposed", "output_padding", "groups", "padding_mode",
                 "_reversed_padding_repeated_twice"):
        assert getattr(e, name) == getattr(t, name), name
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert list(e.state_dict()) == list(t.state_dict())


CONSTRUCTOR_ERRORS = [
    lambda nn: nn.Conv2d(3, 6, 3, groups=0),
    lambda nn: nn.Conv2d(3, 6, 3, groups=2),
    lambda nn: nn.Conv2d(4, 6, 3, groups=4),
    lambda nn: nn.Conv2d(3, 6, 3, padding="full"),
    lambda nn: nn.Conv2d(3, 6, 3, padding="same", stride=2),
    lambda nn: nn.Conv2d(3, 6, 3, padding_mode="mirror"),
    lambda nn: nn.ConvTranspose2d(3, 6, 3, padding_mode="reflect"),
]


@pytest.mark.parametrize("make", CONSTRUCTOR_ERRORS)
def test_constructor_errors_match_torch(torch, make):
    with pytest.raises(Exception) as expected:
        make(torch.nn)
    with pytest.raises(Exception) as got:
        make(ember.nn)
    assert type(got.value) is type(expected.value)
    # Python set reprs have no fixed order: compare the words.
    def words(text):
        return sorted(w.strip("{},") for w in text.split())
    assert words(str(got.value)) == words(str(expected.value))


# ---------------------------------------------------------------- functional errors
def _f(name, x_shape, w_shape, b_shape=None, x_dtype="float32", w_dtype="float32", **kwargs):
    def call(lib):
        x = lib.zeros(x_shape, dtype=getattr(lib, x_dtype))
        w = lib.zeros(w_shape, dtype=getattr(lib, w_dtype))
        b = None if b_shape is None else lib.zeros(b_shape, dtype=getattr(lib, w_dtype))
        return getattr(lib.nn.functional, name)(x, w, b, **kwargs)
    return call


FUNCTIONAL_ERRORS = [
    _f("conv2d", (1, 3, 28, 28), (6, 1, 5, 5)),
    _f("conv2d", (1, 1, 2, 2), (6, 1, 5, 5)),
    _f("conv2d", (1, 4, 6, 6), (6, 4, 3, 3), dilation=3),
    _f("conv1d", (1, 3, 2), (6, 3, 5)),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), stride=2, padding="same"),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), padding="foo"),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), groups=2),
    _f("conv2d", (1, 3, 8, 8), (7, 1, 5, 5), groups=3),
    _f("conv2d", (1, 2, 8, 8), (2, 2, 3, 3), groups=4),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), (5,)),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5)),
    _f("conv2d", (28, 28), (6, 3, 5, 5)),
    _f("conv1d", (1, 4, 6, 6), (6, 4, 3)),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), stride=0),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), padding=-1),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), dilation=0),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), groups=0),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), stride=(1, 1, 1)),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), padding=(1, 2, 3)),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), w_dtype="float64"),
    _f("conv2d", (1, 3, 8, 8), (6, 3, 5, 5), x_dtype="bool", w_dtype="bool"),
    _f("conv_transpose2d", (1, 3, 8, 8), (6, 3, 5, 5)),
    _f("conv_transpose2d", (1, 3, 8, 8), (3, 3, 5, 5), output_padding=1),
    _f("conv_transpose2d", (1, 4, 8, 8), (4, 3, 5, 5), output_padding=-1),
    _f("conv_transpose2d", (1, 3, 8, 8), (3, 3, 5, 5), padding="same"),
    _f("conv_transpose2d", (1, 4, 6, 6), (4, 3, 3, 3), padding=5),
    _f("conv_transpose2d", (1, 4, 6, 6), (4, 3, 3, 3), (4,)),
    _f("conv_transpose2d", (1, 4, 6, 6), (4, 3, 3, 3), groups=3),
    _f("conv_transpose1d", (1, 2, 5), (2, 2, 3), output_padding=1),
    _f("conv_transpose1d", (1, 2, 5), (2, 2, 3), padding=5),
]


@pytest.mark.parametrize("call", FUNCTIONAL_ERRORS)
def test_functional_errors_match_torch(torch, call):
    assert_same_error(call)


def test_bias_dtype_error_matches_torch(torch):
    def call(lib):
        x, w = lib.zeros(1, 2, 5, 5), lib.zeros(4, 2, 3, 3)
        return lib.nn.functional.conv2d(x, w, lib.zeros(4, dtype=lib.float64))
    assert_same_error(call)


def test_failed_call_leaves_inputs_unchanged():
    x = ember.ones(1, 3, 4, 4, requires_grad=True)
    w = ember.ones(2, 1, 3, 3)
    with pytest.raises(RuntimeError):
        ember.nn.functional.conv2d(x, w)
    assert x.grad is None and x._version == 0 and w._version == 0


def test_same_padding_warns_for_even_kernels(torch):
    x = ember.zeros(1, 1, 5, 5)
    with pytest.warns(UserWarning, match="even kernel lengths"):
        out = ember.nn.functional.conv2d(x, ember.zeros(1, 1, 2, 2), padding="same")
    assert out.shape == (1, 1, 5, 5)


# ---------------------------------------------------------------- hypothesis sweep
@st.composite
def conv_configs(draw):
    n = draw(st.integers(1, 2))
    groups = draw(st.sampled_from([1, 2]))
    channels_in = groups * draw(st.integers(1, 2))
    channels_out = groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(n))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(n))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(n))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(n))
    size = tuple(draw(st.integers(max(1, d * (k - 1) + 1 - 2 * p), 6))
                 for k, d, p in zip(kernel, dilation, padding))
    batch = draw(st.integers(1, 2))
    transposed = draw(st.booleans())
    return n, groups, channels_in, channels_out, kernel, stride, dilation, padding, size, \
        batch, transposed


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(conv_configs())
def test_conv_and_transpose_sweep_match_torch(torch, config):
    n, groups, c_in, c_out, kernel, stride, dilation, padding, size, batch, transposed = config
    rng = np.random.default_rng(0)
    w_shape = (c_in, c_out // groups) + kernel if transposed else (c_out, c_in // groups) + kernel
    x, w, b = (rng.standard_normal(s) for s in ((batch, c_in) + size, w_shape, (c_out,)))
    kwargs = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    if transposed:
        kwargs["output_padding"] = tuple(min(s, d) - 1 for s, d in zip(stride, dilation))
    name = ("conv_transpose" if transposed else "conv") + f"{n}d"
    tensors = [_pair(torch, a, requires_grad=True) for a in (x, w, b)]
    try:
        expected = getattr(torch.nn.functional, name)(*[t for _, t in tensors], **kwargs)
    except RuntimeError as error:   # e.g. a transposed output size below 1
        with pytest.raises(RuntimeError, match=re.escape(str(error))):
            getattr(ember.nn.functional, name)(*[e for e, _ in tensors], **kwargs)
        return
    got = getattr(ember.nn.functional, name)(*[e for e, _ in tensors], **kwargs)
    assert_same(got, expected, 1e-10, 1e-10)
    grad = rng.standard_normal(tuple(expected.shape))
    expected.backward(torch.tensor(grad))
    got.backward(ember.tensor(grad))
    for e, t in tensors:
        assert_same(e.grad, t.grad, 1e-10, 1e-10)


def test_double_backward_matches_torch(torch):
    """Gradient of a gradient-norm penalty: exercises all three bilinear maps twice."""
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in ((2, 2, 5, 5), (4, 1, 3, 3), (4,))]
    results = []
    for lib in (torch, ember):
        x, w, b = (lib.tensor(a, requires_grad=True) for a in arrays)
        y = lib.nn.functional.conv2d(x, w, b, stride=2, padding=1, groups=2)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        ((gx * gx).sum() + (gw * gw).sum()).backward()
        results.append((x.grad, w.grad, b.grad))
    for e, t in zip(results[1], results[0]):
        assert_same(e, t, 1e-9, 1e-9)


def test_float16_and_int_inputs_match_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, (1, 2, 4, 4))
    w = rng.integers(-3, 4, (3, 2, 2, 2))
    for dtype in ("int64", "int32", "float16"):
        e = ember.nn.functional.conv2d(ember.tensor(x.astype(dtype)), ember.tensor(w.astype(dtype)))
        t = torch.nn.functional.conv2d(torch.tensor(x.astype(dtype)), torch.tensor(w.astype(dtype)))
        assert_same(e, t, 0, 0, dtype)


def test_output_is_contiguous_and_no_graph_without_grad():
    x = ember.ones(2, 3, 6, 6)
    w = ember.ones(4, 3, 3, 3, requires_grad=True)
    out = ember.nn.functional.conv2d(x, w, stride=2)
    assert out.is_contiguous() and out.grad_fn.name() == "ConvolutionBackward0"
    with ember.no_grad():
        assert ember.nn.functional.conv2d(x, w).grad_fn is None
