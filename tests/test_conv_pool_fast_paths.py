"""The fast paths of convolution and pooling (ops/_im2col.py), each against torch.

Max pooling over windows that share no element takes its gradient from the saved input
(no index arrays); NaN and signed zeros fall back to the exact scan; the convolution's
weight gradient reuses the forward's columns; col2im adds straight into the unpadded
image. Every path is compared with torch, bit for bit where torch's kernels are exact.
"""
import numpy as np
import pytest

import ember
from oracle import assert_same


def _pool_both(torch, array, kwargs, n=2, grad=None):
    """max_pool{n}d forward and backward in both libraries: (outputs, input grads)."""
    results = []
    for lib in (ember, torch):
        x = lib.tensor(array, requires_grad=True)
        y = getattr(lib.nn.functional, f"max_pool{n}d")(x, **kwargs)
        y.backward(lib.tensor(grad if grad is not None else np.ones(y.shape, array.dtype)))
        results.append((y, x.grad))
    return results


def _assert_bits(got, expected):
    """Equal to the bit: values and the sign of every zero."""
    got, expected = got.detach().numpy(), expected.detach().numpy()
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


DISJOINT = [({"kernel_size": 2}, (2, 3, 8, 6)),
            ({"kernel_size": 2}, (2, 3, 7, 5)),                 # a remainder row/column
            ({"kernel_size": 2, "ceil_mode": True}, (1, 2, 7, 5)),
            ({"kernel_size": 3, "stride": 3, "padding": 1}, (2, 2, 8, 7)),
            ({"kernel_size": (2, 3), "stride": (3, 4)}, (1, 2, 9, 11)),
            ({"kernel_size": 2, "dilation": 2, "stride": 3}, (1, 2, 9, 9)),
            ({"kernel_size": 2}, (3, 6, 4))]                     # unbatched


@pytest.mark.parametrize("kwargs, shape", DISJOINT)
def test_disjoint_max_pool_matches_torch_bit_for_bit(torch, kwargs, shape):
    rng = np.random.default_rng(0)
    array = np.round(rng.standard_normal(shape), 1).astype(np.float32)   # ties
    array[..., ::3] = np.maximum(array[..., ::3], 0)          # zeros: all-zero windows
    grad = np.round(rng.standard_normal(_out_shape(torch, array, kwargs)), 1)
    grad = grad.astype(np.float32)
    grad[..., 0] = -0.0
    (e_out, e_grad), (t_out, t_grad) = _pool_both(torch, array, kwargs, 2, grad)
    assert e_out.grad_fn.name() == t_out.grad_fn.name()
    _assert_bits(e_out, t_out)
    _assert_bits(e_grad, t_grad)


def _out_shape(torch, array, kwargs):
    return tuple(torch.nn.functional.max_pool2d(torch.tensor(array), **kwargs).shape)


@pytest.mark.parametrize("n, shape", [(1, (2, 3, 9)), (3, (1, 2, 4, 5, 6))])
def test_disjoint_max_pool_1d_3d(torch, n, shape):
    array = np.round(np.random.default_rng(1).standard_normal(shape), 1)
    (e_out, e_grad), (t_out, t_grad) = _pool_both(torch, array, {"kernel_size": 2}, n)
    assert e_out.grad_fn.name() == t_out.grad_fn.name()
    _assert_bits(e_out, t_out)
    _assert_bits(e_grad, t_grad)


@pytest.mark.parametrize("special", ["nan", "signed_zeros", "neg_inf", "all_zero"])
def test_special_values_route_as_torch(torch, special):
    array = np.zeros((1, 2, 4, 4), np.float32)
    if special == "nan":
        array[0, 0, 0, 1] = array[0, 0, 1, 1] = np.nan         # the last NaN wins in torch
        array[0, 1, 2, 2] = np.nan
    elif special == "signed_zeros":
        array[0, 0, :2, :2] = [[-0.0, 0.0], [0.0, -0.0]]
        array[0, 1, :2, :2] = [[0.0, -0.0], [-0.0, -3.0]]
        array[0, 1, 2:, 2:] = -0.0
    elif special == "neg_inf":
        array[:] = -np.inf
        array[0, 1, 3, 3] = 1.0
    for kwargs in ({"kernel_size": 2}, {"kernel_size": 2, "stride": 1}):
        grad = np.arange(1.0, 1.0 + np.prod(_out_shape(torch, array, kwargs)),
                         dtype=np.float32).reshape(_out_shape(torch, array, kwargs))
        (e_out, e_grad), (t_out, t_grad) = _pool_both(torch, array, kwargs, 2, grad)
        _assert_bits(e_out, t_out)
        _assert_bits(e_grad, t_grad)
        e_values, e_indices = ember.nn.functional.max_pool2d(ember.tensor(array), **kwargs,
                                                             return_indices=True)
        t_values, t_indices = torch.nn.functional.max_pool2d(torch.tensor(array), **kwargs,
                                                             return_indices=True)
        assert_same(e_indices, t_indices)


def test_max_pool_integer_and_half_inputs(torch):
    rng = np.random.default_rng(2)
    for dtype in ("int32", "int64", "float16"):
        array = rng.integers(-3, 3, (2, 3, 6, 6)).astype(dtype)
        e = ember.nn.functional.max_pool2d(ember.tensor(array), 2, return_indices=True)
        t = torch.nn.functional.max_pool2d(torch.tensor(array), 2, return_indices=True)
        assert_same(e, t)


def test_max_pool_input_modified_in_place_raises_as_torch(torch):
    messages = []
    for lib in (ember, torch):
        x = lib.ones(1, 1, 4, 4, requires_grad=True)
        y = x * 1
        out = lib.nn.functional.max_pool2d(y, 2)
        y.mul_(2)
        with pytest.raises(RuntimeError) as info:
            out.sum().backward()
        messages.append(str(info.value).split(":")[0])
    assert messages[0] == messages[1]


def test_max_pool_output_modified_in_place_still_routes(torch):
    """The output may change in place (an inplace ReLU after the pool): torch does not save
    it, and neither does the fast path (it keeps its own copy of the maxima)."""
    array = np.random.default_rng(4).standard_normal((2, 2, 6, 6)).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(array, requires_grad=True)
        out = lib.nn.functional.max_pool2d(x, 2)
        lib.nn.functional.relu(out, inplace=True).sum().backward()
        grads.append(x.grad)
    _assert_bits(*grads)


def test_disjoint_max_pool_double_backward_matches_torch(torch):
    array = np.random.default_rng(5).standard_normal((2, 2, 6, 6))
    results = []
    for lib in (torch, ember):
        x = lib.tensor(array, requires_grad=True)
        y = lib.nn.functional.max_pool2d(x, 2).pow(3).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        (gx * gx).sum().backward()
        results.append((gx, x.grad))
    assert_same(results[1][0], results[0][0])
    assert_same(results[1][1], results[0][1])


def test_retain_graph_backward_twice_and_then_freed(torch):
    """The kept columns serve every retained backward; after the last one the node is freed."""
    rng = np.random.default_rng(6)
    x_array = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    w_array = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    results = []
    for lib in (ember, torch):
        x = lib.tensor(x_array, requires_grad=True)
        w = lib.tensor(w_array, requires_grad=True)
        y = lib.nn.functional.max_pool2d(lib.nn.functional.conv2d(x, w, padding=1), 2)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        with pytest.raises(RuntimeError):
            y.sum().backward()
        results.append((x.grad, w.grad))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])


@pytest.mark.parametrize("kwargs, x_shape, w_shape", [
    ({"padding": 1}, (2, 3, 7, 6), (4, 3, 3, 3)),
    ({"stride": 2, "padding": 2, "dilation": 2}, (2, 4, 9, 8), (6, 4, 3, 2)),
    ({"groups": 2, "stride": (1, 3)}, (1, 4, 6, 9), (4, 2, 2, 3)),
    ({"padding": 3}, (2, 2, 5, 5), (3, 2, 3, 3)),            # padding past the kernel
    ({"padding": 1, "stride": (2, 1)}, (3, 2, 9, 20), (4, 2, 3, 3)),   # rows over 16: (N, C, K, P)
    ({"padding": 2, "dilation": (1, 2)}, (5, 1, 12, 14), (6, 1, 5, 5)),  # LeNet-like, batch-last
])
def test_conv_gradients_with_kept_columns_and_under_hooks(torch, kwargs, x_shape, w_shape):
    """Same gradients whether the forward kept its columns or saved-tensor hooks stop it."""
    rng = np.random.default_rng(7)
    x_array = rng.standard_normal(x_shape).astype(np.float32)
    w_array = rng.standard_normal(w_shape).astype(np.float32)

    def run(lib, hooks):
        x = lib.tensor(x_array, requires_grad=True)
        w = lib.tensor(w_array, requires_grad=True)
        if hooks:
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                y = lib.nn.functional.conv2d(x, w, **kwargs)
        else:
            y = lib.nn.functional.conv2d(x, w, **kwargs)
        y.backward(lib.tensor(np.cos(np.arange(y.numel())).reshape(y.shape)
                              .astype(np.float32)))
        return x.grad, w.grad

    expected = run(torch, False)
    for hooks in (False, True):
        got = run(ember, hooks)
        assert_same(got[0], expected[0], 1e-5, 1e-5)
        assert_same(got[1], expected[1], 1e-5, 1e-5)


def test_conv_transpose_output_padding_lands_in_place(torch):
    """col2im into the unpadded image, with output_padding leaving untouched borders."""
    rng = np.random.default_rng(8)
    x_array = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    w_array = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    for kwargs in ({"stride": 2, "padding": 1, "output_padding": 1},
                   {"stride": 3, "padding": 2, "output_padding": 2, "dilation": 2}):
        outs = []
        for lib in (ember, torch):
            x = lib.tensor(x_array, requires_grad=True)
            y = lib.nn.functional.conv_transpose2d(x, lib.tensor(w_array), **kwargs)
            y.pow(2).sum().backward()
            outs.append((y, x.grad))
        assert_same(outs[0][0], outs[1][0], 1e-5, 1e-5)
        assert_same(outs[0][1], outs[1][1], 1e-5, 1e-5)


@pytest.mark.parametrize("n, x_shape, w_shape, kwargs", [
    (1, (3, 2, 11), (4, 2, 3), {"stride": 2, "padding": 1}),
    (1, (2, 2, 30), (3, 2, 4), {"dilation": 2}),
    (3, (2, 2, 5, 6, 7), (3, 2, 2, 3, 2), {"padding": 1, "stride": (1, 2, 1)}),
])
def test_conv_1d_3d_both_column_layouts_match_torch(torch, n, x_shape, w_shape, kwargs):
    """Batch-last (short rows) and (N, C, K, P) columns (long rows), 1-d and 3-d, with grads."""
    for got, expected in zip(*_conv_both(torch, n, x_shape, w_shape, kwargs, seed=9)):
        assert_same(got, expected, 1e-5, 1e-5)


def _conv_both(torch, n, x_shape, w_shape, kwargs, seed):
    """conv{n}d forward and backward (a fixed upstream) in each library: (y, x.grad, w.grad)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (x_shape, w_shape)]
    results = []
    for lib in (ember, torch):
        x, w = (lib.tensor(a, requires_grad=True) for a in arrays)
        y = getattr(lib.nn.functional, f"conv{n}d")(x, w, **kwargs)
        y.backward(lib.tensor(np.sin(np.arange(y.numel())).reshape(y.shape).astype(np.float32)))
        results.append((y, x.grad, w.grad))
    return results


@pytest.mark.parametrize("n, x_shape, w_shape, kwargs, correlation", [
    (2, (2, 6, 9, 20), (6, 6, 3, 3), {"padding": 1}, True),              # (N, C, K, P) columns
    (2, (3, 4, 7, 6), (4, 4, 3, 3), {"padding": 1}, True),               # batch-last columns
    (2, (2, 6, 8, 8), (6, 1, 3, 3), {"padding": 1, "groups": 6}, True),  # depthwise
    (2, (2, 4, 8, 9), (4, 2, 3, 2), {"padding": (2, 1), "groups": 2, "dilation": 2}, True),
    (1, (2, 5, 19), (3, 5, 5), {"padding": 2}, True),
    (3, (1, 3, 5, 4, 6), (2, 3, 3, 1, 2), {"padding": (1, 0, 1)}, True),
    (2, (2, 3, 8, 8), (5, 3, 3, 3), {"padding": 1}, False),              # more out channels
    (2, (2, 4, 8, 8), (4, 4, 3, 3), {"padding": 3}, False),              # padding past d(k-1)
    (2, (2, 4, 9, 9), (4, 4, 3, 3), {"stride": 2, "padding": 1}, False),
])
def test_conv_input_grad_as_correlation(torch, monkeypatch, n, x_shape, w_shape, kwargs,
                                        correlation):
    """At stride 1 with no more output than input channels, the input gradient is a forward
    correlation of the gradient with the flipped kernel; elsewhere col2im. Both match torch."""
    from ember.ops import _im2col
    taken = []
    original = _im2col._adjoint_as_correlation
    monkeypatch.setattr(_im2col, "_adjoint_as_correlation",
                        lambda *a: taken.append(original(*a)) or taken[-1])
    (_, got, _), (_, expected, _) = _conv_both(torch, n, x_shape, w_shape, kwargs, seed=10)
    assert taken == [correlation]
    assert_same(got, expected, 1e-5, 1e-5)


def test_conv_input_grad_with_non_finite_kernel_keeps_col2im(torch):
    """inf in the kernel: the padding's zeros must not turn into NaN (col2im never multiplies
    them), so such kernels stay on col2im and the gradient's inf/NaN pattern is torch's."""
    rng = np.random.default_rng(11)
    x_array = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w_array = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
    w_array[0, 1, 0, 0] = np.inf
    w_array[1, 0, 2, 1] = np.nan
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(x_array, requires_grad=True)
        lib.nn.functional.conv2d(x, lib.tensor(w_array), padding=1).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(np.isnan(grads[0]), np.isnan(grads[1]))
    np.testing.assert_array_equal(np.isinf(grads[0]), np.isinf(grads[1]))
    finite = np.isfinite(grads[1])
    np.testing.assert_allclose(grads[0][finite], grads[1][finite], rtol=1e-5, atol=1e-5)
