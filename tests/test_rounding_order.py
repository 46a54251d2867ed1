"""Gradients rounded in PyTorch's order of operations, compared bit for bit.

In float32 `grad * a / (b * b)` and `grad * ((a / b) / b)` differ in the last bit for
about half of all inputs, so a backward formula that is right on paper still gives other
numbers than PyTorch unless it multiplies and divides in the same order. Each formula
below was matched against torch on 20,000 random inputs; a change of order fails these
exact comparisons.

Sizes are multiples of 32 so that every element takes PyTorch's vectorized loop (its
scalar tail may round otherwise, and how long that tail is depends on the CPU's vector
width); where both loops round alike a ragged size is tested too.
"""
import numpy as np
import pytest

import ember
from oracle import assert_same

N = 20000   # 625 x 32


def _grads(torch, call, arrays, upstream):
    """Each library's input gradients of `call(lib, *tensors)`, for the given upstream."""
    results = []
    for lib in (ember, torch):
        tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = call(lib, *tensors)
        out.backward(lib.tensor(upstream).reshape(tuple(out.shape)))
        results.append([t.grad for t in tensors if t.grad is not None or t.requires_grad])
    return results


def _data(n=N, count=3, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(np.float32) for _ in range(count)]


BINARY = {
    "div": lambda lib, a, b: a / b,
    "addcmul": lambda lib, a, b: lib.addcmul(a, a, b, value=0.3),
    "addcdiv": lambda lib, a, b: lib.addcdiv(a, a, b, value=0.3),
    "addcdiv_int_value": lambda lib, a, b: lib.addcdiv(a, a, b, value=3),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "atan2_grads": lambda lib, a, b: lib.atan2(a, b),
}


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("n", [N, 1001])
def test_binary_op_gradients_round_as_pytorch(torch, name, n):
    a, b, upstream = _data(n)
    got, expected = _grads(torch, BINARY[name], [a, b], upstream)
    for g, t in zip(got, expected):
        assert_same(g, t, rtol=0, atol=0)


LOSSES = {
    "mse_mean": lambda lib, a, b: lib.nn.functional.mse_loss(a, b),
    "mse_sum": lambda lib, a, b: lib.nn.functional.mse_loss(a, b, reduction="sum"),
    "mse_none": lambda lib, a, b: lib.nn.functional.mse_loss(a, b, reduction="none"),
    "smooth_l1_mean": lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b),
    "smooth_l1_beta": lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b, beta=0.5),
    "smooth_l1_none": lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b, reduction="none", beta=2.0),
    "huber_mean": lambda lib, a, b: lib.nn.functional.huber_loss(a, b, delta=0.5),
    "huber_sum": lambda lib, a, b: lib.nn.functional.huber_loss(a, b, reduction="sum", delta=2.0),
}


@pytest.mark.parametrize("name", LOSSES)
def test_pointwise_loss_gradients_round_as_pytorch(torch, name):
    a, b, upstream = _data()
    reduced = not name.endswith("none")
    got, expected = _grads(torch, LOSSES[name], [a, b], upstream[:1 if reduced else N] * 0.7)
    for g, t in zip(got, expected):
        assert_same(g, t, rtol=0, atol=0)


@pytest.mark.parametrize("n", [N, 1001])
def test_mse_mean_gradient_on_a_ragged_size(torch, n):
    a, b, upstream = _data(n)
    got, expected = _grads(torch, LOSSES["mse_mean"], [a, b], upstream[:1])
    for g, t in zip(got, expected):
        assert_same(g, t, rtol=0, atol=0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_input_gradient_rounds_as_pytorch(torch, reduction, weighted):
    rng = np.random.default_rng(1)
    x, y, w = (rng.random(4096).astype(np.float32) for _ in range(3))
    x[:3] = [0.0, 1.0, 0.5]
    upstream = rng.standard_normal(4096 if reduction == "none" else 1).astype(np.float32)
    results = []
    for lib in (ember, torch):
        X, Y = lib.tensor(x, requires_grad=True), lib.tensor(y, requires_grad=True)
        weight = lib.tensor(w) if weighted else None
        out = lib.nn.functional.binary_cross_entropy(X, Y, weight, reduction=reduction)
        out.backward(lib.tensor(upstream).reshape(tuple(out.shape)))
        results.append((X, Y))
    (ex, ey), (tx, ty) = results
    assert_same(ex.grad, tx.grad, rtol=0, atol=0)
    # the target's gradient is -logit(x) * grad: infinite at 0 and 1 as in PyTorch (the
    # rest agrees to float32 rounding; PyTorch's log is MKL's)
    assert np.isinf(ey.grad.numpy()[:2]).all()
    assert ey.grad.numpy()[:2].tolist() == ty.grad.numpy()[:2].tolist()
    assert_same(ey.grad, ty.grad)


# ---------------------------------------------------------------- SGD's fused update
@pytest.mark.parametrize("config", [
    dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1),
    dict(lr=0.05, maximize=True, weight_decay=0.01, momentum=0.5),
], ids=["plain", "momentum", "nesterov", "dampening_decay", "maximize"])
def test_sgd_follows_pytorchs_trajectory_bit_for_bit_on_small_models(torch, config):
    """PyTorch's `param.add_(grad, alpha=-lr)` is one fused multiply-add; ember rounds
    once too on tensors up to 65,536 elements, so a tutorial's model trains identically."""
    rng = np.random.default_rng(0)
    shapes = [(5, 3), (3,), (2, 2, 2)]
    start = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(30)]
    finals = []
    for lib in (ember, torch):
        params = [lib.nn.Parameter(lib.tensor(p)) for p in start]
        opt = lib.optim.SGD(params, **config)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = lib.tensor(g)
            opt.step()
        finals.append(params)
    for e, t in zip(*finals):
        assert_same(e.detach(), t.detach(), rtol=0, atol=0)


# ---------------------------------------------------------------- embedding's backward
@pytest.mark.parametrize("ids, rows, width, padding_idx", [
    (np.array([1, 3, 3, 5] * 100), 40, 500, None),
    (np.random.default_rng(3).integers(0, 65, (16, 64)), 65, 128, None),
    (np.random.default_rng(4).integers(0, 9, (7, 33)), 9, 16, 2),
], ids=["repeated", "gpt_batch", "padding"])
def test_embedding_gradient_adds_rows_in_input_order(torch, ids, rows, width, padding_idx):
    """PyTorch adds each occurrence's row in turn (an index_add); a pairwise sum of the
    repeated rows differs in the last bit."""
    rng = np.random.default_rng(5)
    weight = rng.standard_normal((rows, width)).astype(np.float32)
    upstream = rng.standard_normal(ids.shape + (width,)).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        w = lib.tensor(weight, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor(ids), w, padding_idx).backward(lib.tensor(upstream))
        grads.append(w.grad)
    assert_same(*grads, rtol=0, atol=0)
