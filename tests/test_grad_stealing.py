"""`.grad` keeps an incoming gradient without copying it only when nothing else holds it.

PyTorch's AccumulateGrad "steals" a gradient whose use count shows it is the only
holder, and clones it otherwise; ember does the same by reference counts
(`autograd.graph._unshared`). A wrong steal would alias `.grad` with a tensor someone
else holds, and the next backward's in-place accumulation would change that tensor
too; these tests hold gradients in each way a program can, then accumulate again.
"""
import numpy as np

import ember


def _leaf(values):
    return ember.tensor(values, requires_grad=True)


def test_fresh_gradients_are_kept_and_accumulate_correctly():
    a, b, c = _leaf([1.0, 2.0]), _leaf([3.0, -1.0]), _leaf([0.5, 0.25])
    for step in range(1, 3):
        (a * b + c).sum().backward()
        assert a.grad.tolist() == [3.0 * step, -1.0 * step]
        assert b.grad.tolist() == [1.0 * step, 2.0 * step]
        assert c.grad.tolist() == [1.0 * step, 1.0 * step]
    grads = [t.grad._data for t in (a, b, c)]
    assert all(not np.shares_memory(x, y) for i, x in enumerate(grads) for y in grads[i + 1:])


def test_one_gradient_sent_to_two_leaves_is_copied_for_one_of_them():
    a, c = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    (a + c).sum().backward()          # AddBackward0 hands both leaves the same tensor
    assert not np.shares_memory(a.grad._data, c.grad._data)
    (a + c).sum().backward()
    assert a.grad.tolist() == c.grad.tolist() == [2.0, 2.0]


def test_a_gradient_a_hook_keeps_is_not_aliased_by_grad():
    kept = []
    x = _leaf([1.0, 2.0])
    x.register_hook(lambda g: kept.append(g))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    assert [g.tolist() for g in kept] == [[3.0, 3.0], [3.0, 3.0]]


def test_a_gradient_the_caller_passes_is_copied():
    x = _leaf([1.0, 2.0])
    upstream = ember.tensor([0.5, 0.5])
    x.backward(upstream)              # the root is the leaf: its AccumulateGrad gets it as is
    x.backward(upstream)
    assert x.grad.tolist() == [1.0, 1.0] and upstream.tolist() == [0.5, 0.5]
    y = x * 1.0
    y.backward(upstream)
    assert upstream.tolist() == [0.5, 0.5]


def test_retained_and_broadcast_gradients_stay_separate():
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x + 0.0                        # AddBackward0 passes y's gradient straight to x
    y.retain_grad()
    y.sum().backward()                 # sum's gradient is a broadcast view: copied
    assert x.grad._data.flags.c_contiguous and x.grad._data.flags.owndata
    held = y.grad
    (x + 0.0).sum().backward()
    assert held.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def _doubling(record):
    """A custom Function computing 2x whose backward hands `record` what it returns."""
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            out = grad * 2
            record(out)
            return out
    return Double


def test_a_saved_gradient_of_a_custom_function_is_not_aliased():
    saved = []
    keep = _doubling(saved.append)        # the function keeps what it returns
    x = _leaf([1.0, 1.0])
    keep.apply(x).sum().backward()
    keep.apply(x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    assert [s.tolist() for s in saved] == [[2.0, 2.0], [2.0, 2.0]]


def test_an_unshared_gradient_is_kept_without_a_copy():
    """The point of it all: `.grad` is the very array the last backward produced."""
    made = []
    fresh = _doubling(lambda out: made.append(out._data.ctypes.data))   # an address only
    x = _leaf([1.0, 1.0, 1.0])
    fresh.apply(x).sum().backward()
    assert x.grad._data.ctypes.data == made[0]
    fresh.apply(x).sum().backward()         # then accumulated in place, as before
    assert x.grad._data.ctypes.data == made[0] and x.grad.tolist() == [4.0, 4.0, 4.0]
