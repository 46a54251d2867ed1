"""Hooks, retain_grad and backward(inputs=...), compared with torch."""
import pytest

import ember


def test_retain_grad_sees_the_hooked_gradient(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 3)
        (y * y).sum().backward()
        results.append((y.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1] == ([12.0, 24.0], [24.0, 48.0])


def test_post_accumulate_grad_hook(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        (x * 3).sum().backward()
        handle.remove()
        (x * 3).sum().backward()
        results.append(seen)
    assert results[0] == results[1] == [[3.0, 3.0]]


def test_removed_hook_no_longer_runs():
    x = ember.tensor([1.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_hook_on_tensor_without_grad_raises(torch):
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                               "require gradient"):
            lib.tensor([1.0]).register_hook(lambda g: g)


def test_backward_with_inputs_accumulates_only_there(torch):
    results = []
    for lib in (ember, torch):
        a = lib.tensor([1.0], requires_grad=True)
        b = lib.tensor([2.0], requires_grad=True)
        (a * b).backward(inputs=[a])
        w = a * 2
        (w * b).backward(inputs=[w])
        results.append((a.grad.tolist(), b.grad, w.grad.tolist()))
    assert results[0] == results[1]


def test_backward_with_empty_inputs_matches_torch(torch):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            lib.ones(2, requires_grad=True).sum().backward(inputs=[])
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_node_hooks_see_gradients(torch):
    results = []
    for lib in (ember, torch):
        a = lib.tensor([1.0], requires_grad=True)
        b = lib.tensor([2.0], requires_grad=True)
        n = a * b
        calls = []
        n.grad_fn.register_prehook(lambda go: calls.append(("pre", [g.tolist() for g in go])))
        n.grad_fn.register_hook(lambda gi, go: calls.append(
            ("post", [g.tolist() for g in gi], [g.tolist() for g in go])))
        n.backward()
        results.append(calls)
    assert results[0] == results[1]


def test_autograd_grad_does_not_touch_dot_grad():
    a = ember.tensor([1.0], requires_grad=True)
    b = ember.tensor([2.0], requires_grad=True)
    (ga,) = ember.autograd.grad((a * b).sum(), a)
    assert ga.tolist() == [2.0] and a.grad is None and b.grad is None


def test_materialize_grads_gives_zeros():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0], requires_grad=True)
    ga, gb = ember.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True)
    assert ga.tolist() == [2.0, 2.0] and gb.tolist() == [0.0]


def test_grad_outputs_weight_non_scalar_outputs(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (g,) = lib.autograd.grad(x * x, x, grad_outputs=lib.tensor([1.0, 0.0, 2.0]))
        results.append(g.tolist())
    assert results[0] == results[1]
