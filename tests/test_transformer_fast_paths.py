"""The array-level fast paths of transformer-shaped ops, against torch at a GPT step's shapes.

layer_norm, gelu, softmax/log_softmax and embedding take a first-order backward on arrays
(no graph is recorded) and a differentiable one under create_graph; the op catalog covers
small shapes, these tests cover the shapes bench/bench_transformer_ops.py times and check
that both routes agree with torch.
"""
import numpy as np
import pytest

import ember
from oracle import assert_same, to_lib


def _grads(lib, fn, arrays, grad, create_graph=False):
    tensors = [to_lib(lib, a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out = fn(lib, *tensors)
    differentiable = [t for t in tensors if t.requires_grad]
    grads = lib.autograd.grad(out, differentiable, to_lib(lib, grad), create_graph=create_graph)
    return out, grads


def _compare(torch, fn, arrays, grad, atol=None, rtol=None):
    e_out, e_grads = _grads(ember, fn, arrays, grad)
    t_out, t_grads = _grads(torch, fn, arrays, grad)
    assert_same(e_out, t_out, atol, rtol)
    assert_same(e_grads, t_grads, atol, rtol, "grads")
    # the recorded (create_graph) route gives the same first-order gradients
    _, e_recorded = _grads(ember, fn, arrays, grad, create_graph=True)
    assert_same(e_recorded, t_grads, atol, rtol, "recorded grads")


def _layer_norm(shape, weight, bias):
    def fn(lib, x, *params):
        params = list(params)
        w = params.pop(0) if weight else None
        b = params.pop(0) if bias else None
        return lib.nn.functional.layer_norm(x, shape, w, b)
    return fn


@pytest.mark.parametrize("weight,bias", [(True, True), (True, False), (False, True),
                                         (False, False)])
def test_layer_norm_at_gpt_shape(torch, rng, weight, bias):
    x = rng.standard_normal((16, 64, 128)).astype(np.float32) * 3 + 1
    params = [rng.standard_normal(128).astype(np.float32) for flag in (weight, bias) if flag]
    grad = rng.standard_normal(x.shape).astype(np.float32)
    # weight's gradient sums 1024 products of size ~1: both libraries are ~3e-5 from the
    # exact sum (a plain sum down the rows is 1.3e-4 away)
    _compare(torch, _layer_norm((128,), weight, bias), [x] + params, grad, atol=1e-4)


def test_layer_norm_two_normalized_dims_and_strided_input(torch, rng):
    x = rng.standard_normal((4, 6, 5, 8)).astype(np.float32)[:, :, :, ::2]
    w, b = (rng.standard_normal((5, 4)).astype(np.float32) for _ in range(2))
    grad = rng.standard_normal(x.shape).astype(np.float32)
    _compare(torch, _layer_norm((5, 4), True, True), [x, w, b], grad)


def test_layer_norm_half(torch, rng):
    x = rng.standard_normal((8, 32)).astype(np.float16)
    w, b = (rng.standard_normal(32).astype(np.float16) for _ in range(2))
    grad = rng.standard_normal(x.shape).astype(np.float16)
    fn = _layer_norm((32,), True, True)
    e_out, e_grads = _grads(ember, fn, [x, w, b], grad)
    t_out, t_grads = _grads(torch, fn, [x, w, b], grad)
    assert_same(e_out, t_out, atol=1e-3)  # the affine rounds in half in PyTorch
    assert_same(e_grads[0], t_grads[0], atol=1e-3)
    # PyTorch sums the parameters' half gradients in half; both ember routes sum in float32
    _, e_recorded = _grads(ember, fn, [x, w, b], grad, create_graph=True)
    for fast, recorded in zip(e_grads, e_recorded):
        np.testing.assert_allclose(fast.float().numpy(), recorded.detach().float().numpy(),
                                   atol=2e-3)


def test_layer_norm_double_backward_and_retained_graph(torch, rng):
    x = rng.standard_normal((3, 7)).astype(np.float64)
    w = rng.standard_normal(7)
    results = []
    for lib in (ember, torch):
        tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.layer_norm(tx, (7,), tw)
        (gx,) = lib.autograd.grad((out * out).sum(), tx, create_graph=True)
        (gx * gx).sum().backward(retain_graph=True)
        first = tx.grad.clone()
        out.sum().backward()  # the graph of `out` was retained: a second pass works
        results.append((gx, first, tx.grad, tw.grad))
    assert_same(*results)


def test_layer_norm_backward_twice_without_retain_raises(torch):
    for lib in (ember, torch):
        x = lib.ones(2, 3, requires_grad=True)
        out = lib.nn.functional.layer_norm(x * 2, (3,))
        out.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            out.sum().backward()


def _gelu(lib, x):
    return lib.nn.functional.gelu(x)


def _gelu_gpt_inputs(rng):
    """A GPT MLP's activations (large enough for the compiled kernels) led by edge values,
    and an upstream gradient."""
    x = rng.standard_normal((16, 64, 512)).astype(np.float32) * 2
    edges = np.array([0.0, -0.0, 1e-40, -1e-40, 1e-3, -1e-3, 5.0, -5.0, 9.0, -9.0, 30.0,
                      -30.0, 1e20, -1e20, np.nan], np.float32)
    x.reshape(-1)[:edges.size] = edges
    return x, rng.standard_normal(x.shape).astype(np.float32)


def test_gelu_at_gpt_shape_and_its_edges(torch, rng):
    x, grad = _gelu_gpt_inputs(rng)
    _compare(torch, _gelu, [x], grad)


def test_tanh_gelu_at_gpt_shape_and_its_edges(torch, rng):
    x, grad = _gelu_gpt_inputs(rng)
    _compare(torch, lambda lib, t: lib.nn.functional.gelu(t, approximate="tanh"), [x], grad)


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_gelu_other_dtypes_and_strided(torch, rng, dtype):
    x = (rng.standard_normal((6, 40)) * 3).astype(dtype)[:, ::3]
    grad = rng.standard_normal(x.shape).astype(dtype)
    _compare(torch, _gelu, [x], grad)
    scalar = np.array(0.7, np.float32)
    _compare(torch, _gelu, [scalar], np.array(1.5, np.float32))


@pytest.mark.parametrize("vocab,padding_idx", [(65, None), (512, None), (65, 3), (7, -1)])
def test_embedding_backward_at_gpt_shape(torch, rng, vocab, padding_idx):
    ids = rng.integers(0, vocab, (16, 64))
    ids[0, :5] = 3  # a repeated id, the padding row when there is one
    weight = rng.standard_normal((vocab, 128)).astype(np.float32)
    grad = rng.standard_normal((16, 64, 128)).astype(np.float32)

    def fn(lib, w, ids=ids):
        return lib.nn.functional.embedding(lib.tensor(ids), w, padding_idx=padding_idx)
    _compare(torch, fn, [weight], grad)


def test_embedding_backward_empty_and_noncontiguous_grad(torch, rng):
    weight = rng.standard_normal((5, 4)).astype(np.float32)
    for ids in (np.zeros((0,), np.int64), np.array([[4, 0, 4]])):
        grad = rng.standard_normal(ids.shape + (8,)).astype(np.float32)[..., ::2]
        results = []
        for lib in (ember, torch):
            w = lib.tensor(weight, requires_grad=True)
            lib.nn.functional.embedding(lib.tensor(ids), w).backward(lib.tensor(grad))
            results.append(w.grad)
        assert_same(*results)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((16, 4, 64, 64), -1), ((1024, 65), -1),
                                       ((1024, 512), 1), ((4, 6, 5), 1), ((7,), 0)])
def test_softmax_family_at_gpt_shapes(torch, rng, name, shape, dim):
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    grad = rng.standard_normal(shape).astype(np.float32)
    _compare(torch, lambda lib, t: getattr(lib, name)(t, dim), [x], grad)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_masked_rows_and_broadcast_grad(torch, rng, name):
    x = rng.standard_normal((2, 3, 5)).astype(np.float64)
    x[0, 1] = -np.inf  # a fully masked row: NaN in both libraries
    x[1, :, 3] = -np.inf
    results = []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        out = getattr(lib, name)(t, -1)
        out.nan_to_num(0.0).sum().backward()  # the sum's grad arrives expanded
        results.append((out, t.grad))
    assert_same(*results)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erfc_over_its_range(torch, dtype):
    x = np.concatenate([np.linspace(-12, 30, 20001), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    assert_same(ember.erfc(ember.tensor(x.astype(dtype))), torch.erfc(torch.tensor(x.astype(dtype))))


@pytest.mark.parametrize("mask_shape", [(64, 64), (16, 4, 64, 64), (4, 1, 64)])
def test_masked_fill_causal_and_broadcast(torch, rng, mask_shape):
    x = rng.standard_normal((16, 4, 64, 64)).astype(np.float32)
    mask = np.triu(np.ones((64, 64), bool), 1) if mask_shape == (64, 64) else \
        rng.random(mask_shape) < 0.3
    grad = rng.standard_normal(x.shape).astype(np.float32)

    def fn(lib, t):
        return t.masked_fill(lib.tensor(mask), float("-inf"))
    _compare(torch, fn, [x], grad)
    if mask.size > 4096:
        return  # (the grad summed over 16k broadcast copies drifts from torch's order)
    small = rng.standard_normal(64).astype(np.float32)  # the mask broadcasts the input
    _compare(torch, fn, [small], rng.standard_normal(np.broadcast_shapes(
        mask.shape, small.shape)).astype(np.float32))
