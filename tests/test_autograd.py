"""Engine and graph semantics: accumulation, graph lifetime, leaves, modes, hooks, in-place checks."""
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import ember
from ember.autograd.graph import AccumulateGrad


def test_tutorial_polynomial_prints_like_torch(capsys):
    x = ember.tensor(3.0, requires_grad=True)
    y = x ** 2 + 2 * x + 1
    print(y)
    y.backward()
    print(x.grad)
    assert capsys.readouterr().out == "tensor(16., grad_fn=<AddBackward0>)\ntensor(8.)\n"


def test_gradients_accumulate_across_backward_calls():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 + 3, 4 + 3])
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]


def test_second_backward_without_retain_graph_raises_torch_text(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        with pytest.raises(RuntimeError) as info:
            y.backward()
        return str(info.value)
    assert run(ember) == run(torch)


def test_retain_graph_allows_a_second_backward():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_graph_without_saved_tensors_can_run_twice(torch):
    # PyTorch only complains when a freed saved tensor is needed; add saves nothing.
    for lib in (ember, torch):
        x = lib.tensor([1.0], requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        assert x.grad.tolist() == [2.0]


@pytest.mark.parametrize("case", ["non_scalar", "no_grad_tensor"])
def test_backward_errors_match_torch(torch, case):
    def run(lib):
        if case == "non_scalar":
            target = lib.tensor([1.0, 2.0], requires_grad=True) * 2
        else:
            target = lib.tensor([1.0, 2.0]).sum()
        with pytest.raises(RuntimeError) as info:
            target.backward()
        return str(info.value)
    assert run(ember) == run(torch)


def test_backward_with_gradient_on_non_scalar(torch):
    grads = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).backward(lib.tensor([1.0, 0.5, 0.0]))
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [2.0, 2.0, 0.0]


def test_leaf_and_non_leaf_flags():
    x = ember.tensor([1.0], requires_grad=True)
    y = x * 2
    z = ember.tensor([1.0])
    assert x.is_leaf and x.grad_fn is None and x.requires_grad
    assert not y.is_leaf and y.grad_fn.name() == "MulBackward0" and y.requires_grad
    assert z.is_leaf and not z.requires_grad
    assert (z * 2).is_leaf


def test_non_leaf_grad_access_warns_with_torch_text(torch):
    messages = []
    for lib in (ember, torch):
        y = lib.tensor([1.0], requires_grad=True) * 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert y.grad is None
        messages.append(str(caught[0].message).split(" (Triggered internally")[0])
        assert caught[0].category is UserWarning
    assert messages[0] == messages[1]


def test_requires_grad_rules_match_torch(torch):
    def errors(lib):
        out = []
        for action in (lambda: lib.tensor([1, 2]).requires_grad_(),
                       lambda: lib.tensor([1, 2], requires_grad=True),
                       lambda: setattr(lib.tensor([1.0], requires_grad=True) * 2,
                                       "requires_grad", False)):
            with pytest.raises(RuntimeError) as info:
                action()
            out.append(str(info.value))
        return out
    assert errors(ember) == errors(torch)


def test_no_grad_context_and_decorator():
    x = ember.tensor([1.0], requires_grad=True)
    with ember.no_grad():
        y = x * 2
        assert not ember.is_grad_enabled()
        with ember.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad

    @ember.no_grad()
    def doubled(t):
        return t * 2
    assert not doubled(x).requires_grad
    assert ember.is_grad_enabled()


def test_set_grad_enabled_function_and_context():
    x = ember.tensor([1.0], requires_grad=True)
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    ember.set_grad_enabled(False)
    try:
        assert not ember.is_grad_enabled()
    finally:
        ember.set_grad_enabled(True)
    assert ember.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []
    with ember.no_grad():
        thread = threading.Thread(target=lambda: seen.append(ember.is_grad_enabled()))
        thread.start()
        thread.join()
        assert not ember.is_grad_enabled()
    assert seen == [True]


def test_detach_shares_memory_and_leaves_graph():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.is_leaf and not d.requires_grad
    d[0] = 10.0
    assert y.tolist()[0] == 10.0


def test_retain_grad_keeps_non_leaf_grad():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [6.0, 12.0])


def test_hooks_can_replace_gradients(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: g + 1)
        y.sum().backward()
        results.append(x.grad.tolist())
    assert results[0] == results[1] == [21.0, 21.0]


def test_inplace_on_leaf_requiring_grad_raises_and_no_grad_allows(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            x.add_(1)
        assert x.tolist() == [1.0, 2.0] and x._version == 0
        with lib.no_grad():
            x.add_(1)
        assert x.tolist() == [2.0, 3.0] and x._version == 1
        return str(info.value)
    assert run(ember) == run(torch)


def test_modified_saved_tensor_is_caught_with_torch_text(torch):
    def run(lib, case):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        if case == "output":
            y = x.exp()
            z = y
        elif case == "input":
            y = x * 2
            z = y * y
        else:
            y = x
            z = x * x
        if case == "leaf":
            with lib.no_grad():
                x.add_(1)
        else:
            y.add_(1)
        with pytest.raises(RuntimeError) as info:
            z.sum().backward()
        return str(info.value)
    for case in ("output", "input", "leaf"):
        assert run(ember, case) == run(torch, case).replace("torch.", "ember.")


def test_inplace_on_non_leaf_rebases_history(torch):
    results = []
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.add_(1)
        y.mul_(x)
        assert type(y.grad_fn).__name__ == "MulBackward0" if lib is torch else \
            y.grad_fn.name() == "MulBackward0"
        y.sum().backward()
        results.append(x.grad.tolist())
    assert results[0] == results[1]


def test_next_functions_structure_matches_torch(torch):
    def describe(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = (x * 2 + x).exp()
        node = y.grad_fn
        names = []
        stack = [node]
        while stack:
            n = stack.pop()
            names.append(n.name().replace("torch::", "ember::"))
            for child, nr in n.next_functions:
                names.append(nr)
                if child is not None:
                    stack.append(child)
        acc1 = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        acc2 = y.grad_fn.next_functions[0][0].next_functions[1][0]
        return names, acc1 is acc2
    assert describe(ember) == describe(torch)
    x = ember.tensor([1.0], requires_grad=True)
    assert isinstance((x * 2).grad_fn.next_functions[0][0], AccumulateGrad)
    assert (x * 2).grad_fn.next_functions[0][0].variable is x
    assert (x * 2).grad_fn.next_functions[1] == (None, 0)


def test_broadcast_gradients_reduce_to_input_shapes(torch):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 1)), rng.standard_normal((1, 4))
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        (x * y + x - y).exp().sum().backward()
        grads.append((x.grad.numpy().copy(), y.grad.numpy().copy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)


def test_diamond_graph_sums_both_paths():
    x = ember.tensor(2.0, requires_grad=True)
    y = x * x
    z = y * 3 + y * y
    z.backward()
    # dz/dx = (3 + 2y) * 2x = (3 + 8) * 4
    assert x.grad.item() == 44.0


def test_long_chain_does_not_recurse():
    x = ember.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_training_loop_keeping_item_frees_graphs():
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    refs = []
    for _ in range(20):
        loss = (w * w).sum()
        refs.append(weakref.ref(loss.grad_fn))
        loss.backward()
        loss.item()
    del loss
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


def test_storing_loss_tensors_keeps_their_graphs():
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    losses, refs = [], []
    for _ in range(5):
        loss = (w * w).sum()
        refs.append(weakref.ref(loss.grad_fn))
        losses.append(loss)
    gc.collect()
    assert all(r() is not None for r in refs)


def test_saved_tensors_are_released_after_backward():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y
    saved = weakref.ref(y)
    node = z.grad_fn
    z.sum().backward()
    del y
    gc.collect()
    assert saved() is None  # only the node kept y alive, and backward released it
    assert node is z.grad_fn


def test_autograd_grad_and_second_derivative():
    x = ember.tensor(2.0, requires_grad=True)
    y = x ** 3
    (dy,) = ember.autograd.grad(y, x, create_graph=True)
    assert dy.item() == 12.0 and dy.requires_grad
    (d2y,) = ember.autograd.grad(dy, x)
    assert d2y.item() == 12.0
    assert x.grad is None


def test_autograd_grad_unused_input():
    x = ember.tensor(1.0, requires_grad=True)
    z = ember.tensor(1.0, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        ember.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = ember.autograd.grad(y, [x, z], allow_unused=True)
    assert gx.item() == 2.0 and gz is None


def test_grad_of_integer_output_has_no_grad_fn():
    x = ember.tensor([1.5, 2.5], requires_grad=True)
    assert not x.long().requires_grad
    assert (x.long()).grad_fn is None
