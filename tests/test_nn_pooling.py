"""Pooling, padding and upsampling: modules, reprs, indices, ties, errors, interpolate sweeps.

Values and gradients of the functional ops are in the catalog (tests/opdb/nn_conv.py).
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember
from oracle import assert_same, assert_same_error


def _both(torch, array, requires_grad=False):
    return (ember.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


# ---------------------------------------------------------------- modules
MODULES = [
    ("MaxPool1d(2)", (2, 3, 7)),
    ("MaxPool2d(2)", (2, 3, 6, 5)),
    ("MaxPool2d((2, 3), stride=1, padding=1, dilation=(1, 2), ceil_mode=True)", (1, 2, 5, 6)),
    ("MaxPool2d(3, stride=2, return_indices=True)", (2, 7, 7)),
    ("MaxPool1d(3, 2, 1, return_indices=True)", (2, 2, 8)),
    ("AvgPool1d(3, stride=2, padding=1, count_include_pad=False)", (2, 3, 7)),
    ("AvgPool2d(2)", (2, 3, 6, 6)),
    ("AvgPool2d(3, 2, 1, True, False, 2)", (1, 2, 7, 6)),
    ("AdaptiveAvgPool1d(3)", (2, 3, 7)),
    ("AdaptiveAvgPool2d((1, 1))", (2, 3, 5, 5)),
    ("AdaptiveAvgPool2d((3, None))", (2, 3, 7, 4)),
    ("AdaptiveMaxPool1d(4, return_indices=True)", (2, 3, 9)),
    ("AdaptiveMaxPool2d((2, 3), return_indices=True)", (1, 3, 5, 7)),
    ("LPPool2d(2, 3, stride=2)", (1, 2, 7, 7)),
    ("LPPool1d(3, 2)", (1, 2, 6)),
    ("ZeroPad2d((1, 2, 0, 3))", (1, 2, 3, 3)),
    ("ConstantPad1d(2, 3.5)", (2, 3)),
    ("ConstantPad2d((1, -1, 2, 0), 1.0)", (1, 2, 3, 3)),
    ("ConstantPad3d(1, 0.5)", (1, 2, 2, 2)),
    ("ReflectionPad1d(2)", (2, 3, 4)),
    ("ReflectionPad2d((1, 2, 2, 1))", (1, 2, 3, 4)),
    ("ReplicationPad1d((3, 1))", (2, 3, 4)),
    ("ReplicationPad2d(2)", (2, 3, 4)),
    ("CircularPad1d(2)", (2, 3, 4)),
    ("CircularPad2d((1, 0, 2, 1))", (1, 2, 3, 4)),
    ("Upsample(scale_factor=2)", (1, 2, 3, 3)),
    ("Upsample(size=(5, 4), mode='bilinear', align_corners=True)", (1, 2, 3, 3)),
    ("Upsample(scale_factor=1.5, mode='bicubic')", (1, 1, 4, 3)),
    ("Upsample(size=7, mode='linear')", (1, 2, 3)),
    ("UpsamplingNearest2d(scale_factor=3)", (1, 1, 2, 2)),
    ("UpsamplingBilinear2d(size=4)", (1, 2, 3, 2)),
]


@pytest.mark.parametrize("source, shape", MODULES)
def test_module_matches_torch(torch, source, shape):
    em, tm = eval("ember.nn." + source), eval("torch.nn." + source)
    assert repr(em) == repr(tm)
    rng = np.random.default_rng(0)
    array = rng.uniform(0.5, 2.0, size=shape)
    e, t = _both(torch, array, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, got = tm(t), em(e)
    assert_same(got, expected, 1e-10, 1e-10)
    outputs = [expected[0] if isinstance(expected, tuple) else expected]
    grad = rng.standard_normal(tuple(outputs[0].shape))
    outputs[0].backward(torch.tensor(grad))
    (got[0] if isinstance(got, tuple) else got).backward(ember.tensor(grad))
    assert_same(e.grad, t.grad, 1e-10, 1e-10)


def test_module_attributes_match_torch(torch):
    for source in ("MaxPool2d(3)", "AvgPool1d(2)", "AvgPool2d(2, divisor_override=3)",
                   "ZeroPad2d(1)", "ReflectionPad1d((1, 2))", "Upsample(scale_factor=(2, 3))"):
        em, tm = eval("ember.nn." + source), eval("torch.nn." + source)
        public = {k: v for k, v in vars(tm).items() if not k.startswith("_")}
        for key, value in public.items():
            assert getattr(em, key) == value, (source, key)


# ---------------------------------------------------------------- indices and ties
def test_max_pool_ties_route_to_first_maximum(torch):
    array = np.array([[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [0.0, 3.0, 3.0, 0.0]]]])
    for kwargs in ({"kernel_size": 2}, {"kernel_size": 2, "stride": 1},
                   {"kernel_size": 3, "stride": 1, "padding": 1}):
        e, t = _both(torch, array, requires_grad=True)
        got = ember.nn.functional.max_pool2d(e, return_indices=True, **kwargs)
        expected = torch.nn.functional.max_pool2d(t, return_indices=True, **kwargs)
        assert_same(got, expected)
        got[0].sum().backward()
        expected[0].sum().backward()
        assert_same(e.grad, t.grad)


def test_adaptive_max_ties_and_overlap(torch):
    array = np.array([[[5.0, 5.0, 1.0, 5.0, 2.0, 2.0, 2.0]]])
    e, t = _both(torch, array, requires_grad=True)
    got = ember.nn.functional.adaptive_max_pool1d(e, 4, return_indices=True)
    expected = torch.nn.functional.adaptive_max_pool1d(t, 4, return_indices=True)
    assert_same(got, expected)
    got[0].sum().backward()
    expected[0].sum().backward()
    assert_same(e.grad, t.grad)


def test_indices_dtype_and_no_grad_fn(torch):
    values, indices = ember.nn.functional.max_pool2d(ember.ones(1, 4, 4, requires_grad=True), 2,
                                                     return_indices=True)
    assert indices.dtype == ember.int64 and indices.grad_fn is None
    assert values.grad_fn.name() == "MaxPool2DWithIndicesBackward0"


def test_pool_double_backward_matches_torch(torch):
    rng = np.random.default_rng(3)
    array = rng.standard_normal((1, 2, 5, 5))
    results = []
    for lib in (torch, ember):
        F = lib.nn.functional
        x = lib.tensor(array, requires_grad=True)
        y = F.max_pool2d(x, 2, 1) * 2 + F.avg_pool2d(x, 3, 2, 1, True, False)[..., :1, :1].sum()
        y = y + F.interpolate(x, scale_factor=1.5, mode="bilinear").mean()
        y = y + F.pad(x, (1, 1, 2, 0), mode="reflect").pow(2).sum()
        y = y + F.adaptive_max_pool2d(x, 2).sum() + F.adaptive_avg_pool2d(x, 3).pow(2).sum()
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gx * gx).sum().backward()
        results.append(x.grad)
    assert_same(results[1], results[0], 1e-8, 1e-8)


# ---------------------------------------------------------------- errors
def _call(name, shape, *args, dtype="float32", **kwargs):
    def call(lib):
        x = lib.zeros(shape, dtype=getattr(lib, dtype))
        return getattr(lib.nn.functional, name)(x, *args, **kwargs)
    return call


ERRORS = [
    _call("max_pool2d", (1, 3, 8, 8), 2, padding=2),
    _call("max_pool2d", (1, 3, 8, 8), 30),
    _call("max_pool2d", (1, 3, 8, 8), 0),
    _call("max_pool2d", (1, 3, 8, 8), 2, stride=0),
    _call("max_pool2d", (1, 3, 8, 8), 2, dilation=0),
    _call("max_pool2d", (1, 3, 8, 8), -1),
    _call("max_pool2d", (1, 3, 8, 8), 2, padding=-1),
    _call("max_pool2d", (8, 8), 2),
    _call("max_pool2d", (1, 3, 8, 8), (2, 2, 2)),
    _call("max_pool2d", (1, 3, 8, 8), 2, stride=(2, 2, 2)),
    _call("max_pool2d", (1, 3, 8, 8), 2, padding=(1, 1, 1)),
    _call("max_pool2d", (1, 3, 8, 8), 2, dilation=(1, 1, 1)),
    _call("max_pool2d", (1, 3, 8, 8), 2, dtype="bool"),
    _call("max_pool1d", (1, 5, 5), 0),
    _call("max_pool1d", (1, 5, 5), 2, padding=2),
    _call("max_pool1d", (1, 5, 5), 2, padding=-1),
    _call("max_pool1d", (1, 5, 5), 7),
    _call("max_pool1d", (5,), 2),
    _call("max_pool1d", (1, 5, 5), 2, stride=0),
    _call("max_pool1d", (1, 5, 5), 2, dtype="int64"),
    _call("avg_pool2d", (1, 3, 8, 8), 2, padding=2),
    _call("avg_pool2d", (1, 3, 8, 8), 30),
    _call("avg_pool2d", (1, 3, 8, 8), 2, divisor_override=0),
    _call("avg_pool2d", (1, 3, 8, 8), 2, dtype="int32"),
    _call("avg_pool2d", (1, 3, 8, 8), (2, 2, 2)),
    _call("avg_pool1d", (5,), 2),
    _call("avg_pool1d", (1, 5, 5), 7),
    _call("adaptive_avg_pool2d", (1, 3, 8, 8), (2,)),
    _call("adaptive_avg_pool2d", (8, 8), 2),
    _call("adaptive_avg_pool2d", (1, 3, 0, 4), 2),
    _call("adaptive_max_pool2d", (1, 3, 0, 4), 2),
    _call("adaptive_avg_pool2d", (1, 3, 8, 8), -1),
    _call("adaptive_avg_pool2d", (1, 3, 8, 8), 2, dtype="int64"),
    _call("adaptive_max_pool2d", (1, 3, 8, 8), 2, dtype="int64"),
    _call("adaptive_max_pool2d", (1, 3, 8, 8), (2, 2, 2)),
    _call("adaptive_max_pool2d", (8, 8), 2),
    _call("adaptive_avg_pool1d", (1, 3, 8, 8), 2),
    _call("pad", (1, 3, 5, 5), (1,)),
    _call("pad", (1, 3, 5, 5), (1, 1), mode="reflect"),
    _call("pad", (1, 3, 5, 5), (5, 5, 1, 1), mode="reflect"),
    _call("pad", (1, 3, 5, 5), (6, 1, 1, 1), mode="circular"),
    _call("pad", (1, 3, 5, 5), (-30, 0)),
    _call("pad", (1, 3, 5, 5), (1, 1), mode="foo"),
    _call("pad", (1, 3, 5, 5), (1,) * 10),
    _call("pad", (1, 3, 5, 5), (1, 1, 1, 1), mode="reflect", value=2),
    _call("pad", (1, 3, 0, 5), (1, 1, 1, 1), mode="reflect"),
    _call("pad", (1, 5), (1, 1), mode="reflect", dtype="bool"),
    _call("pad", (5,), (1, 1), mode="replicate"),
    _call("interpolate", (1, 3, 4, 4), size=3, scale_factor=2),
    _call("interpolate", (1, 3, 4, 4)),
    _call("interpolate", (1, 3, 4, 4), size=(2, 2, 2)),
    _call("interpolate", (1, 3, 4, 4), scale_factor=(2, 2, 2)),
    _call("interpolate", (1, 3, 4, 4), size=3, mode="linear"),
    _call("interpolate", (1, 3, 4), size=3, mode="bilinear"),
    _call("interpolate", (1, 3, 4, 4), size=3, mode="nearest", align_corners=True),
    _call("interpolate", (1, 3, 4, 4), size=3, mode="foo"),
    _call("interpolate", (4, 4), size=3),
    _call("interpolate", (1, 3, 4, 4), size=3, recompute_scale_factor=True),
    _call("interpolate", (1, 3, 4, 4), size=0),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch, call):
    assert_same_error(call)


# ---------------------------------------------------------------- interpolate sweep
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mode=st.sampled_from(["nearest", "nearest-exact", "bilinear", "bicubic", "area"]),
       align=st.booleans(), recompute=st.sampled_from([None, True]),
       size=st.tuples(st.integers(1, 6), st.integers(1, 6)),
       scale=st.tuples(st.floats(0.3, 3.5), st.floats(0.3, 3.5)), use_size=st.booleans())
def test_interpolate_sweep_matches_torch(torch, mode, align, recompute, size, scale, use_size):
    array = np.random.default_rng(0).standard_normal((1, 2) + size).astype(np.float32)
    kwargs = {"mode": mode}
    if mode in ("bilinear", "bicubic"):
        kwargs["align_corners"] = align
    if use_size:
        kwargs["size"] = tuple(max(1, int(s * f)) for s, f in zip(size, scale))
    else:
        kwargs["scale_factor"] = scale
        kwargs["recompute_scale_factor"] = recompute
    try:
        expected = torch.nn.functional.interpolate(torch.tensor(array), **kwargs)
    except RuntimeError as error:        # an output size of 0
        with pytest.raises(RuntimeError) as got:
            ember.nn.functional.interpolate(ember.tensor(array), **kwargs)
        assert str(got.value) == str(error)
        return
    got = ember.nn.functional.interpolate(ember.tensor(array), **kwargs)
    assert_same(got, expected, 2e-6, 2e-6)


def test_upsample_deprecated_aliases_warn(torch):
    x = ember.ones(1, 1, 2, 2)
    with pytest.warns(UserWarning, match="deprecated"):
        assert ember.nn.functional.upsample_bilinear(x, scale_factor=2).shape == (1, 1, 4, 4)
    with pytest.warns(UserWarning, match="deprecated"):
        assert ember.nn.functional.upsample_nearest(x, size=3).shape == (1, 1, 3, 3)


def test_pad_shares_nothing_and_keeps_dtype():
    x = ember.arange(6).reshape(2, 3)
    out = ember.nn.functional.pad(x, (1, 1), value=1.7)
    assert out.dtype == ember.int64 and out.tolist() == [[1, 0, 1, 2, 1], [1, 3, 4, 5, 1]]
    out[0, 1] = 100
    assert x[0, 0].item() == 0
