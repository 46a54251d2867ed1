"""scaled_dot_product_attention, multi_head_attention_forward and nn.MultiheadAttention
against torch: values, dtypes, grad_fn names, gradients, dropout streams after
manual_seed, initialisation, state dicts, reprs, errors and warnings."""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, to_numpy

F = ember.nn.functional


def _pair(torch, array, requires_grad=False, dtype=None):
    """The same values as a torch and an ember tensor (dtype: a name like 'float16')."""
    t, e = torch.tensor(array), ember.tensor(array)
    if dtype is not None:
        t, e = t.to(getattr(torch, dtype)), e.to(getattr(ember, dtype))
    return t.requires_grad_(requires_grad), e.requires_grad_(requires_grad)


def _tolerance(dtype):
    return {"float16": dict(atol=2e-3, rtol=2e-3), "bfloat16": dict(atol=2e-2, rtol=2e-2),
            "float64": dict(atol=1e-12, rtol=1e-12)}.get(dtype, dict(atol=2e-6, rtol=2e-5))


def _node_names(output):
    """The names of the graph's nodes, breadth first from grad_fn (leaves left out)."""
    names, queue = [], [output.grad_fn]
    while queue:
        node = queue.pop(0)
        names.append(node.name())
        queue += [n for n, _ in node.next_functions
                  if n is not None and not n.name().endswith("AccumulateGrad")]
    return names


B4 = ((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 8))
B3 = ((4, 3, 8), (4, 5, 8), (4, 5, 8))
_ROW_MASKED = np.ones((3, 5), bool)
_ROW_MASKED[1] = False
SDPA_CASES = {
    "plain": (B4, {}, None),
    "causal": (B4, {"is_causal": True}, None),
    "scale": (B4, {"scale": 0.7}, None),
    "negative scale": (B4, {"scale": -0.3}, None),
    "bool mask": (B4, {}, ("bool", (3, 5))),
    "bool mask 4d": (B4, {}, ("bool", (2, 1, 3, 5))),
    "float mask": (B4, {}, ("float32", (3, 5))),
    "float mask with grad": (B4, {}, ("grad", (3, 5))),
    "causal and mask": (B4, {"is_causal": True}, ("bool", (3, 5))),
    "row masked everywhere": (B4, {}, ("rowmask", None)),
    "row masked everywhere 3d": (B3, {}, ("rowmask", None)),
    "gqa": (((2, 4, 3, 8), (2, 2, 5, 8), (2, 2, 5, 8)), {"enable_gqa": True}, None),
    "gqa 3d": (((4, 3, 8), (2, 5, 8), (2, 5, 8)), {"enable_gqa": True}, None),
    "3d": (B3, {}, None),
    "3d causal": (B3, {"is_causal": True}, None),
    "3d bool mask": (B3, {}, ("bool", (3, 5))),
    "value head size differs": (((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 6)), {}, None),
    "broadcast batch": (((2, 4, 3, 8), (1, 4, 5, 8), (1, 4, 5, 8)), {}, None),
    "2d": (((3, 8), (5, 8), (5, 8)), {}, None),
    "3d with 1-d mask": (B3, {}, ("float32", (5,))),
    "mask (3, 1)": (B4, {}, ("bool", (3, 1))),
    "causal, more queries than keys": (((1, 2, 5, 4), (1, 2, 3, 4), (1, 2, 3, 4)),
                                       {"is_causal": True}, None),
    "dropout": (B4, {"dropout_p": 0.3}, None),
    "dropout 3d masked": (B3, {"dropout_p": 0.5}, ("bool", (3, 5))),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_sdpa_matches_torch(torch, case, dtype):
    shapes, kwargs, mask_kind = SDPA_CASES[case]
    if dtype in ("float16", "bfloat16") and case not in ("plain", "causal", "bool mask",
                                                         "3d", "dropout", "gqa"):
        pytest.skip("half types: a few representative cases")
    rng = np.random.default_rng(0)
    pairs = [_pair(torch, rng.standard_normal(s).astype(np.float32), True, dtype)
             for s in shapes]
    t_mask = e_mask = None
    if mask_kind is not None:
        kind, shape = mask_kind
        if kind == "rowmask":
            t_mask, e_mask = _pair(torch, _ROW_MASKED)
        elif kind == "bool":
            t_mask, e_mask = _pair(torch, rng.random(shape) > 0.4)
        else:
            t_mask, e_mask = _pair(torch, rng.standard_normal(shape).astype(np.float32),
                                   kind == "grad")
    torch.manual_seed(3)
    ember.manual_seed(3)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *[p[0] for p in pairs], attn_mask=t_mask, **kwargs)
    got = F.scaled_dot_product_attention(*[p[1] for p in pairs], attn_mask=e_mask, **kwargs)
    assert _node_names(got) == _node_names(expected)
    assert_same(got, expected, **_tolerance(dtype))
    grad = rng.standard_normal(tuple(expected.shape)).astype(np.float32)
    t_grad, e_grad = _pair(torch, grad, dtype=dtype)
    expected.backward(t_grad)
    got.backward(e_grad)
    leaves = pairs + ([(t_mask, e_mask)] if t_mask is not None and t_mask.requires_grad else [])
    for t, e in leaves:
        assert_same(e.grad, t.grad, **_tolerance(dtype))


def test_sdpa_no_grad_and_empty(torch):
    q, k, v = (ember.randn(*s) for s in B4)
    with ember.no_grad():
        assert F.scaled_dot_product_attention(q, k, v).grad_fn is None
    for shapes in (((2, 4, 0, 8), (2, 4, 5, 8), (2, 4, 5, 8)),
                   ((2, 4, 3, 8), (2, 4, 0, 8), (2, 4, 0, 8))):
        pairs = [_pair(torch, np.ones(s, np.float32), True) for s in shapes]
        expected = torch.nn.functional.scaled_dot_product_attention(*[p[0] for p in pairs])
        got = F.scaled_dot_product_attention(*[p[1] for p in pairs])
        assert_same(got, expected)


def test_sdpa_gradcheck():
    rng = np.random.default_rng(1)
    small4 = ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4))
    small3 = ((2, 3, 4), (2, 5, 4), (2, 5, 4))
    for shapes, kwargs in ((small4, {"is_causal": True}), (small4, {}), (small3, {}),
                           (((1, 4, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)), {"enable_gqa": True})):
        inputs = [ember.tensor(rng.standard_normal(s)).requires_grad_() for s in shapes]
        mask = ember.tensor(rng.random((3, 5)) > 0.3)
        mask[:, 0] = True
        assert ember.autograd.gradcheck(
            lambda *x: F.scaled_dot_product_attention(*x, attn_mask=mask, **kwargs)
            if not kwargs.get("is_causal") else F.scaled_dot_product_attention(*x, **kwargs),
            inputs)
    # the composite route is made of differentiable ops: second derivatives work
    inputs = [ember.tensor(rng.standard_normal(s)).requires_grad_() for s in small3]
    assert ember.autograd.gradgradcheck(F.scaled_dot_product_attention, inputs)


def test_sdpa_fused_route_has_no_double_backward(torch):
    def call(lib):
        q, k, v = (lib.ones(*s, dtype=lib.float64, requires_grad=True) for s in B4)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        (grad,) = lib.autograd.grad(out.sum(), q, create_graph=True)
        assert grad.grad_fn.name().endswith("NotImplemented")
        grad.sum().backward()
    assert_same_error(call)


SDPA_ERRORS = [
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q.long(), k.long(),
                                                                         v.long()),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k.double(), v),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q.half(), k.half(),
                                                                         v.bfloat16()),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q[0, 0, 0], k[0, 0, 0],
                                                                         v[0, 0, 0]),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.ones(3, 5, dtype=lib.long)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.ones(3, 5, dtype=lib.double)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q[0], k[0], v[0], attn_mask=lib.ones(3, 5, dtype=lib.bool), is_causal=True),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k[:, :3], v[:, :3], enable_gqa=True),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                         dropout_p=-0.5),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                         dropout_p=2.0),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention([1.0], k, v),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                         attn_mask=[1.0]),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                         dropout_p=None),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=1),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, scale="a"),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                         enable_gqa=None),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, None, 0.0,
                                                                         False, 0.5),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.tensor(True)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.ones(5, dtype=lib.bool)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.ones(3, 4, dtype=lib.bool)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.ones(2, 2, 3, 5, dtype=lib.bool)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.ones(1, 2, 4, 3, 5, dtype=lib.bool)),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q > 0, k > 0, v > 0),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q[:, :2], k, v, enable_gqa=True),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k[:, :2], v[:, :2]),
    lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k[..., :4], v),
]


@pytest.mark.parametrize("index", range(len(SDPA_ERRORS)))
def test_sdpa_errors(torch, index):
    def call(lib):
        q, k, v = (lib.ones(*s) for s in B4)
        SDPA_ERRORS[index](lib, q, k, v)
    assert_same_error(call)


def test_sdpa_speed_path_keeps_inputs(torch):
    """The fused route saves the inputs: an in-place change before backward is refused."""
    def call(lib):
        q, k, v = (lib.ones(*s, requires_grad=True) for s in B4)
        out = lib.nn.functional.scaled_dot_product_attention(q * 1, k, v)
        with lib.no_grad():
            k.mul_(2)
        out.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        call(ember)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        call(torch)


# ---------------------------------------------------------------- MultiheadAttention
E, L, S, N = 8, 3, 5, 2
_KPM = [[0, 0, 1, 0, 1], [1, 1, 1, 1, 1]]
MHA_CASES = {
    "self": ((E, 2), {}, "qkv", {}),
    "cross": ((E, 2), {}, None, {}),
    "key is value": ((E, 2), {}, "kv", {}),
    "no weights": ((E, 2), {}, None, {"need_weights": False}),
    "per-head weights": ((E, 2), {}, None, {"average_attn_weights": False}),
    "batch_first": ((E, 2), {"batch_first": True}, "qkv", {}),
    "kdim vdim": ((E, 2), {"kdim": 3, "vdim": 5}, None, {}),
    "no bias": ((E, 2), {"bias": False}, None, {}),
    "bias_kv": ((E, 2), {"add_bias_kv": True}, None, {"attn_mask": "bool"}),
    "zero attn": ((E, 2), {"add_zero_attn": True}, None, {"key_padding_mask": "kpm"}),
    "everything": ((E, 4), {"add_bias_kv": True, "add_zero_attn": True, "kdim": 3, "vdim": 6,
                            "dropout": 0.2}, None,
                   {"key_padding_mask": "kpm", "attn_mask": "bool"}),
    "padding row masked": ((E, 2), {}, None, {"key_padding_mask": "kpm"}),
    "padding no weights": ((E, 2), {}, None, {"key_padding_mask": "kpm",
                                               "need_weights": False}),
    "float mask": ((E, 2), {}, None, {"attn_mask": "float"}),
    "3d float mask": ((E, 2), {}, None, {"attn_mask": "float3", "need_weights": False}),
    "float and bool masks": ((E, 2), {}, None, {"attn_mask": "float", "key_padding_mask":
                                                "kpm"}),
    "causal hint": ((E, 2), {}, "qkv", {"attn_mask": "causal", "is_causal": True,
                                        "need_weights": False}),
    "dropout": ((E, 2), {"dropout": 0.3}, None, {}),
    "dropout no weights": ((E, 2), {"dropout": 0.3}, None, {"need_weights": False}),
    "unbatched": ((E, 2), {}, None, {"key_padding_mask": "kpm1"}),
    "unbatched 3d mask": ((E, 2), {}, None, {"attn_mask": "float3u"}),
}


def _mask(torch, kind, rng, self_attention):
    src = L if self_attention else S
    arrays = {"bool": lambda: rng.random((L, src)) > 0.7,
              "float": lambda: rng.standard_normal((L, src)).astype(np.float32),
              "float3": lambda: rng.standard_normal((N * 2, L, src)).astype(np.float32),
              "float3u": lambda: rng.standard_normal((2, L, src)).astype(np.float32),
              "causal": lambda: np.triu(np.ones((L, L), bool), 1),
              "kpm": lambda: np.array(_KPM, bool)[:, :src],
              "kpm1": lambda: np.array(_KPM[0], bool)[:src]}
    return _pair(torch, arrays[kind]())


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention_matches_torch(torch, case):
    args, config, same, call = MHA_CASES[case]
    torch.manual_seed(0)
    ember.manual_seed(0)
    t_layer = torch.nn.MultiheadAttention(*args, **config)
    e_layer = ember.nn.MultiheadAttention(*args, **config)
    t_params, e_params = dict(t_layer.named_parameters()), dict(e_layer.named_parameters())
    assert list(e_params) == list(t_params)
    for name in t_params:  # the seeded initialisation is torch's, draw for draw
        assert_same(e_params[name], t_params[name], atol=0, rtol=0)
    rng = np.random.default_rng(2)
    unbatched = case.startswith("unbatched")
    batch = () if unbatched else (N,)
    first = config.get("batch_first", False)

    def shape(length, width):
        if unbatched:
            return (length, width)
        return batch + (length, width) if first else (length,) + batch + (width,)
    query = _pair(torch, rng.standard_normal(shape(L, E)).astype(np.float32), True)
    if same == "qkv":
        key = value = query
    else:
        key = _pair(torch, rng.standard_normal(shape(S, config.get("kdim", E)))
                    .astype(np.float32), True)
        value = key if same == "kv" else _pair(
            torch, rng.standard_normal(shape(S, config.get("vdim", E))).astype(np.float32),
            True)
    kwargs_t, kwargs_e = {}, {}
    for name, option in call.items():
        if isinstance(option, str):
            kwargs_t[name], kwargs_e[name] = _mask(torch, option, rng, same == "qkv")
        else:
            kwargs_t[name] = kwargs_e[name] = option
    torch.manual_seed(7)
    ember.manual_seed(7)
    expected = t_layer(query[0], key[0], value[0], **kwargs_t)
    got = e_layer(query[1], key[1], value[1], **kwargs_e)
    assert _node_names(got[0]) == _node_names(expected[0])
    if expected[1] is not None:
        assert _node_names(got[1]) == _node_names(expected[1])
    assert_same(got, expected, atol=1e-6, rtol=1e-5)
    grad = _pair(torch, rng.standard_normal(tuple(expected[0].shape)).astype(np.float32))
    expected[0].backward(grad[0])
    got[0].backward(grad[1])
    for name in t_params:
        assert_same(e_params[name].grad, t_params[name].grad, atol=1e-6, rtol=1e-5)
    for t, e in {id(p[0]): p for p in (query, key, value)}.values():
        assert_same(e.grad, t.grad, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("is_causal", [True, False])
def test_multihead_attention_inference_fast_path(torch, need_weights, is_causal):
    """Eval mode without autograd: torch's fused kernel (NaN for a fully padded row even
    without weights; the is_causal hint ignored)."""
    torch.manual_seed(0)
    ember.manual_seed(0)
    t_layer = torch.nn.MultiheadAttention(E, 2, batch_first=True).eval()
    e_layer = ember.nn.MultiheadAttention(E, 2, batch_first=True).eval()
    x = _pair(torch, np.random.default_rng(3).standard_normal((N, L, E)).astype(np.float32))
    padding = _pair(torch, np.array([[0, 0, 1], [1, 1, 1]], bool))
    with torch.no_grad():
        expected = t_layer(x[0], x[0], x[0], key_padding_mask=padding[0],
                           need_weights=need_weights, is_causal=is_causal)
    with ember.no_grad():
        got = e_layer(x[1], x[1], x[1], key_padding_mask=padding[1],
                      need_weights=need_weights, is_causal=is_causal)
    assert_same(got, expected, atol=1e-6, rtol=1e-5)


def test_multihead_attention_state_dict_both_ways(torch):
    config = dict(kdim=3, vdim=5, add_bias_kv=True)
    t_layer = torch.nn.MultiheadAttention(E, 4, **config)
    e_layer = ember.nn.MultiheadAttention(E, 4, **config)
    t_state, e_state = t_layer.state_dict(), e_layer.state_dict()
    assert list(e_state) == list(t_state)
    for name in t_state:
        assert tuple(e_state[name].shape) == tuple(t_state[name].shape)
    e_layer.load_state_dict({k: ember.tensor(to_numpy(v)) for k, v in t_state.items()})
    back = torch.nn.MultiheadAttention(E, 4, **config)
    back.load_state_dict({k: torch.tensor(to_numpy(v)) for k, v in e_layer.state_dict().items()})
    rng = np.random.default_rng(4)
    q = _pair(torch, rng.standard_normal((L, N, E)).astype(np.float32))
    k = _pair(torch, rng.standard_normal((S, N, 3)).astype(np.float32))
    v = _pair(torch, rng.standard_normal((S, N, 5)).astype(np.float32))
    assert_same(e_layer(q[1], k[1], v[1]), back(q[0], k[0], v[0]), atol=1e-6, rtol=1e-5)


def test_multihead_attention_repr_and_home(torch):
    for config in ({}, {"bias": False, "kdim": 3}):
        t_layer = torch.nn.MultiheadAttention(E, 2, **config)
        e_layer = ember.nn.MultiheadAttention(E, 2, **config)
        assert repr(e_layer) == repr(t_layer)
    assert ember.nn.modules.activation.MultiheadAttention is ember.nn.MultiheadAttention
    assert repr(ember.nn.MultiheadAttention) == repr(torch.nn.MultiheadAttention).replace(
        "torch", "ember")
    layer = ember.nn.MultiheadAttention(E, 2)
    assert (layer.bias_k, layer.bias_v, layer.head_dim) == (None, None, 4)
    assert layer.out_proj.__class__.__name__ == "NonDynamicallyQuantizableLinear"


MHA_ERRORS = [
    lambda lib: lib.nn.MultiheadAttention(6, 4),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.MultiheadAttention(8, -1),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E), lib.ones(S, E),
                                                lib.ones(S, E)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(N, L, N, E), lib.ones(S, E),
                                                lib.ones(S, E)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E), lib.ones(S, N, E),
                                                lib.ones(S, N, E),
                                                attn_mask=lib.ones(L, S, dtype=lib.long)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E), lib.ones(S, N, E),
                                                lib.ones(S, N, E), attn_mask=lib.ones(S, L)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E), lib.ones(S, N, E),
                                                lib.ones(S, N, E), attn_mask=lib.ones(3, L, S)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E), lib.ones(S, N, E),
                                                lib.ones(S, N, E), is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(
        lib.ones(L, N, E), lib.ones(S, N, E), lib.ones(S, N, E),
        key_padding_mask=lib.ones(N + 1, S, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E), lib.ones(S, N, E),
                                                lib.ones(S + 1, N, E)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, N, E + 1), lib.ones(S, N, E + 1),
                                                lib.ones(S, N, E + 1)),
    lambda lib: lib.nn.MultiheadAttention(E, 2, kdim=3)(lib.ones(L, N, E), lib.ones(S, N, 4),
                                                        lib.ones(S, N, E)),
    lambda lib: lib.nn.MultiheadAttention(E, 2)(lib.ones(L, E), lib.ones(S, E), lib.ones(S, E),
                                                attn_mask=lib.ones(3, L, S)),
]


@pytest.mark.parametrize("index", range(len(MHA_ERRORS)))
def test_multihead_attention_errors(torch, index):
    assert_same_error(MHA_ERRORS[index])


def test_multihead_attention_mask_type_warning(torch):
    def messages(lib):
        layer = lib.nn.MultiheadAttention(E, 2)
        x = lib.ones(L, N, E)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(x, x, x, key_padding_mask=lib.zeros(N, L, dtype=lib.bool),
                  attn_mask=lib.zeros(L, L))
        return [(w.category, str(w.message)) for w in caught]
    assert messages(ember) == messages(torch)
    assert messages(ember)


def test_multi_head_attention_forward_static_and_separate(torch):
    """The functional form with separate projection weights and precomputed keys/values."""
    rng = np.random.default_rng(5)
    heads, head_dim = 2, E // 2

    def arrays(*shape):
        return _pair(torch, rng.standard_normal(shape).astype(np.float32), True)
    query, key, value = arrays(L, N, E), arrays(S, N, 3), arrays(S, N, 5)
    wq, wk, wv = arrays(E, E), arrays(E, 3), arrays(E, 5)
    bias, out_w, out_b = arrays(3 * E), arrays(E, E), arrays(E)
    static_k, static_v = arrays(N * heads, S, head_dim), arrays(N * heads, S, head_dim)
    results = []
    for i, lib in ((0, torch), (1, ember)):
        out, weights = lib.nn.functional.multi_head_attention_forward(
            query[i], key[i], value[i], E, heads, None, bias[i], None, None, False, 0.0,
            out_w[i], out_b[i], use_separate_proj_weight=True, q_proj_weight=wq[i],
            k_proj_weight=wk[i], v_proj_weight=wv[i], static_k=static_k[i],
            static_v=static_v[i], average_attn_weights=False)
        out.sum().backward()
        results.append((out, weights))
    assert_same(results[1], results[0], atol=1e-6, rtol=1e-5)
    for t, e in (query, wq, bias, out_w, out_b, static_k, static_v):
        assert_same(e.grad, t.grad, atol=1e-6, rtol=1e-5)

    def bad_static(lib):
        i = 0 if lib is torch else 1
        lib.nn.functional.multi_head_attention_forward(
            query[i], query[i], query[i], E, heads, ember_or_torch(lib, 3 * E, E), None,
            None, None, False, 0.0, out_w[i], None, static_k=static_k[i][:1])

    def ember_or_torch(lib, *shape):
        return lib.ones(*shape)
    assert_same_error(bad_static)


def test_sdpa_and_multihead_attention_under_autocast(torch):
    """scaled_dot_product_attention is on PyTorch's CPU lower-precision list (bfloat16)."""
    rng = np.random.default_rng(6)
    pairs = [_pair(torch, rng.standard_normal(s).astype(np.float32), True) for s in B4]
    mask = _pair(torch, rng.standard_normal((3, 5)).astype(np.float32))
    with torch.autocast("cpu"):
        expected = torch.nn.functional.scaled_dot_product_attention(
            *[p[0] for p in pairs], attn_mask=mask[0])
    with ember.autocast("cpu"):
        got = F.scaled_dot_product_attention(*[p[1] for p in pairs], attn_mask=mask[1])
    assert got.grad_fn.name() == expected.grad_fn.name()
    assert_same(got, expected, atol=2e-2, rtol=2e-2)
    torch.manual_seed(0)
    ember.manual_seed(0)
    layers = torch.nn.MultiheadAttention(E, 2), ember.nn.MultiheadAttention(E, 2)
    x = _pair(torch, rng.standard_normal((L, N, E)).astype(np.float32))
    with torch.autocast("cpu"):
        expected = layers[0](x[0], x[0], x[0])
    with ember.autocast("cpu"):
        got = layers[1](x[1], x[1], x[1])
    assert_same(got, expected, atol=3e-2, rtol=3e-2)


def _mha_call(lib, **changes):
    """F.multi_head_attention_forward on ones, with some arguments replaced."""
    x = lib.ones(L, N, E)
    arguments = dict(query=x, key=x, value=x, embed_dim_to_check=E, num_heads=2,
                     in_proj_weight=lib.ones(3 * E, E), in_proj_bias=lib.zeros(3 * E),
                     bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.0,
                     out_proj_weight=lib.ones(E, E), out_proj_bias=None)
    arguments.update({k: v(lib) if callable(v) else v for k, v in changes.items()})
    return lib.nn.functional.multi_head_attention_forward(**arguments)


FUNCTIONAL_ERRORS = [
    dict(embed_dim_to_check=E + 1),
    dict(num_heads=3),
    dict(in_proj_weight=None),
    dict(bias_k=lambda lib: lib.zeros(1, 1, E)),
    dict(bias_v=lambda lib: lib.zeros(1, 1, E)),
    dict(bias_k=lambda lib: lib.zeros(1, 1, E), bias_v=lambda lib: lib.zeros(1, 1, E),
         static_k=lambda lib: lib.zeros(N * 2, L, E // 2)),
    dict(use_separate_proj_weight=True),
    dict(use_separate_proj_weight=True, q_proj_weight=lambda lib: lib.ones(E, E),
         k_proj_weight=lambda lib: lib.ones(E, E), v_proj_weight=lambda lib: lib.ones(E, E),
         in_proj_bias=lambda lib: lib.zeros(3 * E + 3)),
    dict(static_v=lambda lib: lib.zeros(N * 2, L, 3)),
    dict(key_padding_mask=lambda lib: lib.zeros(N, L, dtype=lib.int32)),
    dict(attn_mask=lambda lib: lib.zeros(1, 1, L, L)),
]


@pytest.mark.parametrize("index", range(len(FUNCTIONAL_ERRORS)))
def test_multi_head_attention_forward_errors(torch, index):
    assert_same_error(lambda lib: _mha_call(lib, **FUNCTIONAL_ERRORS[index]))


def test_multi_head_attention_forward_training_dropout_and_zero_attn(torch):
    """training=True draws the weights' dropout mask from the generator, as torch does."""
    rng = np.random.default_rng(8)
    weights = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in
               (("in_proj_weight", (3 * E, E)), ("out_proj_weight", (E, E)),
                ("bias_k", (1, 1, E)), ("bias_v", (1, 1, E)))}
    x = rng.standard_normal((L, N, E)).astype(np.float32)
    results = []
    for lib in (torch, ember):
        lib.manual_seed(11)
        arguments = {k: lib.tensor(v) for k, v in weights.items()}
        results.append(_mha_call(lib, query=lib.tensor(x), key=lib.tensor(x),
                                 value=lib.tensor(x), dropout_p=0.4, add_zero_attn=True,
                                 training=True, **arguments))
    assert_same(results[1], results[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("layout", ["heads transposed", "last dim strided"])
def test_sdpa_noncontiguous_inputs(torch, layout):
    """(N, L, H, E) storage seen as (N, H, L, E) keeps the fused route; a strided last
    dim sends PyTorch (and ember) down the composite one."""
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal((2, n, 4, 16)).astype(np.float32) for n in (3, 5, 5)]
    results = []
    for lib in (torch, ember):
        bases = [lib.tensor(a).requires_grad_() for a in arrays]
        views = [b.transpose(1, 2)[..., ::2] if layout == "last dim strided"
                 else b.transpose(1, 2)[..., :8] for b in bases]
        out = lib.nn.functional.scaled_dot_product_attention(*views, is_causal=True)
        out.backward(lib.ones(out.shape))
        results.append((out, [b.grad for b in bases]))
    (expected, t_grads), (got, e_grads) = results
    assert _node_names(got) == _node_names(expected)
    assert got.stride() == expected.stride()  # the fused kernel lays out as the query
    assert_same(got, expected, atol=1e-6, rtol=1e-5)
    for e, t in zip(e_grads, t_grads):
        assert_same(e, t, atol=1e-6, rtol=1e-5)


def test_multi_head_attention_forward_gradcheck():
    rng = np.random.default_rng(10)

    def tensor(*shape):
        return ember.tensor(rng.standard_normal(shape)).requires_grad_()
    query, key = tensor(2, 1, 4), tensor(3, 1, 4)
    in_weight, in_bias, out_weight = tensor(12, 4), tensor(12), tensor(4, 4)
    bias_k, bias_v = tensor(1, 1, 4), tensor(1, 1, 4)
    mask = ember.tensor([[False, True, False]])

    def attend(query, key, in_weight, in_bias, out_weight, bias_k, bias_v):
        out, weights = F.multi_head_attention_forward(
            query, key, key, 4, 2, in_weight, in_bias, bias_k, bias_v, True, 0.0, out_weight,
            None, key_padding_mask=mask)
        return out, weights
    assert ember.autograd.gradcheck(attend, (query, key, in_weight, in_bias, out_weight,
                                             bias_k, bias_v))
