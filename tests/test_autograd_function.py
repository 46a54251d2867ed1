"""Custom autograd.Function: ctx API, node naming, errors, and parity with torch."""
import numpy as np
import pytest

import ember


def make_scale(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * k + y

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            seen.append(ctx.needs_input_grad)
            return grad * ctx.k, None, grad
    seen = []
    return Scale, seen


def test_function_matches_torch(torch):
    results = []
    for lib in (ember, torch):
        Scale, seen = make_scale(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0])
        out = Scale.apply(x, 3.0, y)
        name = out.grad_fn.name()
        nexts = [None if n is None else type(n).__name__ for n, _ in out.grad_fn.next_functions]
        out.sum().backward()
        results.append((out.tolist(), name, nexts, x.grad.tolist(), seen))
    assert results[0] == results[1]
    assert results[0][1] == "ScaleBackward"


def test_wrong_number_of_gradients_matches_torch(torch):
    def run(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return (grad,) * 3
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            Bad.apply(x, 2.0).sum().backward()
        return str(info.value)
    assert run(ember) == run(torch)


def test_wrong_gradient_shape_matches_torch(torch):
    def run(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, grad):
                return lib.ones(2)
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            Bad.apply(x).sum().backward()
        return str(info.value)
    assert run(ember) == run(torch)


def test_setup_context_style_and_non_differentiable_outputs():
    class SortedWithIndex(ember.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, ember.tensor([0, 1])

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, grad, grad_index):
            assert grad_index is None or float(grad_index.abs().sum()) == 0
            return grad * 2
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    doubled, index = SortedWithIndex.apply(x)
    assert not index.requires_grad
    doubled.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_materialize_grads_off_passes_none():
    received = []

    class Two(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            received.append((g1 is None, g2 is None))
            return g1
    x = ember.tensor([1.0], requires_grad=True)
    a, b = Two.apply(x)
    a.sum().backward()
    assert received == [(False, True)]


def test_saved_input_modified_in_place_is_detected():
    class Square(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    out = Square.apply(y)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_mark_dirty_rebases_input():
    class AddOneInPlace(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    out = AddOneInPlace.apply(y)
    assert out is y and y.grad_fn.name() == "AddOneInPlaceBackward"
    (out * out).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * (3 * np.array([1.0, 2.0]) + 1) * 3)


def test_once_differentiable_and_double_backward_through_function():
    class Cube(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2
    x = ember.tensor(2.0, requires_grad=True)
    (g,) = ember.autograd.grad(Cube.apply(x), x, create_graph=True)
    (g2,) = ember.autograd.grad(g, x)
    assert g.item() == 12.0 and g2.item() == 12.0

    class CubeOnce(Cube):
        @staticmethod
        @ember.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2
    x = ember.tensor(2.0, requires_grad=True)
    (g,) = ember.autograd.grad(CubeOnce.apply(x), x, create_graph=True)
    assert not g.requires_grad


def test_function_gradcheck():
    class Sine(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x.cos()
    x = ember.tensor(np.random.default_rng(0).standard_normal(5), requires_grad=True)
    assert ember.autograd.gradcheck(Sine.apply, (x,))
