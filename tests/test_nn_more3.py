"""The nn13 pieces against torch: ctc_loss with the blank inside a target, torch.embedding_bag's
four results and scale_grad_by_freq gradients, antialiased interpolate, and grid_sample's
bicubic and 3-D modes."""
import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error

RNG = np.random.default_rng(13)


def _array(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _forward_backward(torch, call, arrays, atol=None, rtol=None):
    """call(lib, *tensors) in both libraries: values, gradients and grad_fn names agree."""
    results = {}
    for lib in (torch, ember):
        tensors = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = call(lib, *tensors)
        weights = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                             dtype=out.dtype)
        (out * weights).sum().backward()
        results[lib] = (out, [t.grad for t in tensors if t.requires_grad],
                        type(out.grad_fn).__name__)
    assert_same(results[ember][:2], results[torch][:2], atol=atol, rtol=rtol)
    assert results[ember][2] == results[torch][2]


# ---------------------------------------------------------------- ctc_loss
@pytest.mark.parametrize("blank", [0, 2])
@pytest.mark.parametrize("targets", [[[1, 0, 2], [0, 0, 1]], [[2, 2, 1], [1, 2, 3]],
                                     [[0, 1, 0], [3, 0, 0]]])
def test_ctc_loss_blank_inside_target(torch, blank, targets):
    """PyTorch lets a target hold the blank index; it is then an ordinary label whose skip
    rule compares labels only."""
    logits = _array(7, 2, 4)

    def call(lib, logits):
        return lib.nn.functional.ctc_loss(logits.log_softmax(2), lib.tensor(targets),
                                          [7, 6], [3, 2], blank=blank, reduction="none")
    _forward_backward(torch, call, [logits])


def test_ctc_loss_blank_inside_target_gradcheck():
    """Exact gradients while the blank is not the last label (when it is, PyTorch's last
    frame drops the final blank state's term, which the test above pins)."""
    logits = ember.tensor(_array(5, 1, 3), requires_grad=True)
    assert ember.autograd.gradcheck(lambda x: ember.nn.functional.ctc_loss(
        x.log_softmax(2), ember.tensor([[0, 0, 1]]), [5], [3], reduction="sum"), (logits,))


# ---------------------------------------------------------------- embedding_bag
EMBEDDING_BAG_CASES = [   # indices, offsets
    ([1, 2, 1, 3, 1, 5, 2], [0, 3, 3, 5]),
    ([4, 4, 0, 2, 2, 2, 1, 4], [0, 1, 4]),
    ([3, 1, 0], [0]),
]


@pytest.mark.parametrize("indices, offsets", EMBEDDING_BAG_CASES)
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_embedding_bag_results(torch, indices, offsets, mode, padding_idx, dtype):
    """(output, offset2bag, bag_size, max_indices) as PyTorch's CPU kernel fills them."""
    weight = _array(6, 3, dtype=np.dtype(dtype))
    results = {}
    for lib in (torch, ember):
        results[lib] = lib.embedding_bag(lib.tensor(weight), lib.tensor(indices),
                                         lib.tensor(offsets), False, mode, False, None, False,
                                         padding_idx)
    assert_same(results[ember], results[torch])


def test_torch_embedding_bag_index_types_and_last_offset(torch):
    weight = _array(6, 2, dtype=np.float32)
    for index_type, offset_type in (("int32", "int32"), ("int32", "int64")):
        for mode, last in ((2, False), (1, True), (0, True)):
            results = {}
            for lib in (torch, ember):
                results[lib] = lib.embedding_bag(
                    lib.tensor(weight), lib.tensor([1, 2, 1, 3, 1, 5, 2],
                                                   dtype=getattr(lib, index_type)),
                    lib.tensor([0, 3, 3, 5, 7][:5 if last else 4],
                               dtype=getattr(lib, offset_type)), False, mode,
                    False, None, last)
            assert_same(results[ember], results[torch])
    # rows that are not unit-stride leave 'sum''s fast path: offset2bag is filled
    results = {lib: lib.embedding_bag(lib.tensor(weight.T.copy()).t(), lib.tensor([0, 5, 2]),
                                      lib.tensor([0, 2]))[1] for lib in (torch, ember)}
    assert_same(results[ember], results[torch])


@pytest.mark.parametrize("indices, offsets", EMBEDDING_BAG_CASES)
@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_scale_grad_by_freq(torch, indices, offsets, mode, padding_idx):
    """PyTorch divides the k-th distinct row's gradient by the count of the k-th sorted index
    (not always the row's own count); the cases above tell the two apart."""
    weight = _array(6, 3)

    def call(lib, weight):
        return lib.nn.functional.embedding_bag(lib.tensor(indices), weight, lib.tensor(offsets),
                                               mode=mode, scale_grad_by_freq=True,
                                               padding_idx=padding_idx)
    _forward_backward(torch, call, [weight])

    def door(lib, weight):
        return lib.embedding_bag(weight, lib.tensor(indices), lib.tensor(offsets), True,
                                 ("sum", "mean").index(mode), False, None, False,
                                 padding_idx)[0]
    _forward_backward(torch, door, [weight])


def test_embedding_bag_scale_grad_by_freq_2d(torch):
    weight = _array(5, 2)

    def call(lib, weight):
        return lib.nn.functional.embedding_bag(lib.tensor([[4, 1, 1], [0, 4, 3]]), weight,
                                               scale_grad_by_freq=True)
    _forward_backward(torch, call, [weight])


# ---------------------------------------------------------------- antialiased interpolate
AA_SIZES = [{"size": (4, 3)}, {"size": (13, 11)}, {"size": (9, 3)}, {"size": 1},
            {"scale_factor": 0.3}, {"scale_factor": (1.7, 0.45)},
            {"scale_factor": 0.3, "recompute_scale_factor": True}]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kwargs", AA_SIZES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_antialias(torch, mode, kwargs, align_corners, dtype):
    """Shrinking (where antialias widens the filter) and growing, both corner rules."""
    def call(lib, x):
        return lib.nn.functional.interpolate(x, mode=mode, antialias=True,
                                             align_corners=align_corners, **kwargs)
    _forward_backward(torch, call, [_array(2, 3, 9, 7, dtype=dtype)])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_antialias_gradcheck(mode):
    x = ember.tensor(_array(1, 2, 7, 6), requires_grad=True)
    for size in ((3, 4), (9, 8)):
        assert ember.autograd.gradcheck(lambda x: ember.nn.functional.interpolate(
            x, size=size, mode=mode, antialias=True), (x,))
        assert ember.autograd.gradgradcheck(lambda x: ember.nn.functional.interpolate(
            x, size=size, mode=mode, antialias=True), (x,))


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 2, 5), size=3, mode="linear",
                                              antialias=True),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 5, 5), size=3, mode="nearest",
                                              antialias=True),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 5, 5), size=(3,), mode="bilinear",
                                              antialias=True),
    lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 5, 5, dtype=lib.int64), size=3,
                                              mode="bicubic", antialias=True),
])
def test_interpolate_antialias_errors(torch, call):
    assert_same_error(call)


# ---------------------------------------------------------------- grid_sample
GRID_CASES = [(2, "bicubic"), (3, "bilinear"), (3, "nearest")]


@pytest.mark.parametrize("dims, mode", GRID_CASES)
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_sample_bicubic_and_volumetric(torch, dims, mode, padding_mode, align_corners,
                                            dtype):
    """Grid points reach past the border (-1.3 .. 1.3) so every padding rule is exercised."""
    x = _array(*(2, 3) + (4, 5, 6)[-dims:], dtype=dtype)
    grid = (RNG.random((2,) + (3, 4, 2)[-dims:] + (dims,)) * 2.6 - 1.3).astype(dtype)

    def call(lib, x, grid):
        return lib.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                                             align_corners=align_corners)
    _forward_backward(torch, call, [x, grid])


@pytest.mark.parametrize("dims, mode", GRID_CASES)
def test_grid_sample_gradcheck(dims, mode):
    x = ember.tensor(_array(*(1, 2) + (3, 4, 3)[-dims:]), requires_grad=True)
    grid = ember.tensor(RNG.random((1,) + (2, 3, 2)[-dims:] + (dims,)) * 2.4 - 1.2,
                        requires_grad=mode != "nearest")
    for padding_mode in ("zeros", "border", "reflection"):
        def call(x, grid):
            return ember.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                                                   align_corners=False)
        assert ember.autograd.gradcheck(call, (x, grid))


@pytest.mark.parametrize("interpolation", [0, 1])
def test_grid_sampler_3d_door(torch, interpolation):
    x, grid = _array(1, 2, 3, 4, 5), RNG.random((1, 2, 2, 3, 3)) * 2 - 1
    _forward_backward(torch, lambda lib, x, grid: lib.grid_sampler_3d(
        x, grid, interpolation, 1, True), [x, grid])
    _forward_backward(torch, lambda lib, x, grid: lib.grid_sampler(
        x, grid, interpolation, 2, False), [x, grid])


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 2, 3, 4, 5), lib.zeros(1, 2, 2, 2, 3),
                                              mode="bicubic", align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 2, 3, 4, 5, dtype=lib.int32),
                                              lib.zeros(1, 2, 2, 2, 3), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 2, 3, 4, 5),
                                              lib.zeros(1, 2, 2, 2, 3, dtype=lib.float64),
                                              align_corners=False),
    lambda lib: lib.grid_sampler_3d(lib.ones(1, 2, 4, 5), lib.zeros(1, 2, 2, 2), 0, 0, False),
    lambda lib: lib.grid_sampler_2d(lib.ones(1, 2, 3, 4, 5), lib.zeros(1, 2, 2, 2, 3), 0, 0,
                                    False),
    lambda lib: lib.grid_sampler(lib.ones(1, 2, 3, 4, 5), lib.zeros(1, 2, 2, 2, 3), 2, 0, False),
])
def test_grid_sample_errors(torch, call):
    assert_same_error(call)
