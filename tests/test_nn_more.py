"""The nn11 layers against torch: module reprs and state_dicts, errors, and the values and
gradients the op catalog (tests/opdb/nn_more.py) cannot express."""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, to_lib

RNG = np.random.default_rng(11)


def _array(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------- modules
MODULES = [
    "nn.Fold((4, 5), 2)", "nn.Fold(output_size=3, kernel_size=(2, 1), padding=1, stride=2)",
    "nn.Unfold(2, padding=1)", "nn.Unfold((2, 3), dilation=2, stride=(1, 2))",
    "nn.PixelShuffle(2)", "nn.PixelUnshuffle(3)", "nn.ChannelShuffle(2)",
    "nn.CosineSimilarity()", "nn.CosineSimilarity(dim=0, eps=1e-6)", "nn.PairwiseDistance()",
    "nn.PairwiseDistance(p=1.0, keepdim=True)",
    "nn.MaxUnpool1d(2, stride=1, padding=1)", "nn.MaxUnpool2d(2)", "nn.MaxUnpool3d((2, 1, 2))",
    "nn.RReLU()", "nn.RReLU(0.1, 0.3, inplace=True)",
    "nn.SoftMarginLoss()", "nn.MultiLabelMarginLoss(reduction='sum')",
    "nn.MultiLabelSoftMarginLoss(weight=lib.ones(3))", "nn.MultiMarginLoss(p=2, margin=0.5)",
    "nn.MultiMarginLoss(weight=lib.ones(3))", "nn.HingeEmbeddingLoss(margin=2.0)",
    "nn.MarginRankingLoss(0.5)", "nn.CosineEmbeddingLoss(size_average=False)",
    "nn.TripletMarginLoss(swap=True)", "nn.TripletMarginWithDistanceLoss()",
    "nn.TripletMarginWithDistanceLoss(distance_function=nn.CosineSimilarity())",
    "nn.PoissonNLLLoss(full=True)", "nn.GaussianNLLLoss(eps=1e-3)",
]


@pytest.mark.parametrize("expression", MODULES)
def test_module_repr_and_state(torch, expression):
    built = {lib: eval(expression, {"nn": lib.nn, "lib": lib}) for lib in (torch, ember)}
    assert repr(built[ember]) == repr(built[torch])
    assert list(built[ember].state_dict()) == list(built[torch].state_dict())


# (module expression, input shapes)
MODULE_CALLS = [
    ("nn.Unfold(2, padding=1)", [(2, 3, 4, 5)]),
    ("nn.Fold((4, 5), 2)", [(2, 12, 12)]),
    ("nn.PixelShuffle(2)", [(1, 8, 2, 3)]),
    ("nn.PixelUnshuffle(2)", [(1, 2, 4, 6)]),
    ("nn.ChannelShuffle(3)", [(2, 6, 2)]),
    ("nn.CosineSimilarity(dim=0)", [(4, 3), (4, 3)]),
    ("nn.PairwiseDistance(p=3.0, keepdim=True)", [(4, 3), (4, 3)]),
]


@pytest.mark.parametrize("expression, shapes", MODULE_CALLS)
def test_module_forward_backward(torch, expression, shapes):
    arrays = [_array(*shape) for shape in shapes]
    results = {}
    for lib in (torch, ember):
        inputs = [to_lib(lib, a, requires_grad=True) for a in arrays]
        out = eval(expression, {"nn": lib.nn})(*inputs)
        out.sum().backward()
        results[lib] = (out, [x.grad for x in inputs], out.grad_fn.name())
    assert_same(results[ember][0], results[torch][0], atol=1e-5, rtol=1e-5)
    assert_same(results[ember][1], results[torch][1], atol=1e-5, rtol=1e-5)
    assert results[ember][2] == results[torch][2]


# ---------------------------------------------------------------- errors
ERRORS = {
    "unfold-2d": lambda F, lib: F.unfold(lib.ones(4, 5), 2),
    "unfold-1d": lambda F, lib: F.unfold(lib.ones(5), 2),
    "unfold-0d": lambda F, lib: F.unfold(lib.ones(()), 2),
    "unfold-1d-kernel": lambda F, lib: F.unfold(lib.ones(5), 0),
    "unfold-5d": lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4, 5), 2),
    "unfold-too-big": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5), 6),
    "unfold-kernel": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5), 0),
    "unfold-stride": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5), 2, stride=0),
    "unfold-padding": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5), 2, padding=-1),
    "unfold-dilation": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5), 2, dilation=0),
    "unfold-long": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5, dtype=lib.long), 2),
    "unfold-empty-channels": lambda F, lib: F.unfold(lib.ones(2, 0, 4, 5), 2),
    "unfold-three-kernel": lambda F, lib: F.unfold(lib.ones(2, 3, 4, 5), (2, 2, 2)),
    "fold-blocks": lambda F, lib: F.fold(lib.ones(2, 12, 12), (4, 4), 2),
    "fold-divisible": lambda F, lib: F.fold(lib.ones(2, 11, 12), (4, 5), 2),
    "fold-4d": lambda F, lib: F.fold(lib.ones(1, 2, 12, 12), (4, 5), 2),
    "fold-long": lambda F, lib: F.fold(lib.ones(2, 12, 12, dtype=lib.long), (4, 5), 2),
    "fold-output-size": lambda F, lib: F.fold(lib.ones(2, 12, 12), (4, 5, 6), 2),
    "shuffle-channels": lambda F, lib: F.pixel_shuffle(lib.ones(1, 5, 2, 2), 2),
    "shuffle-2d": lambda F, lib: F.pixel_shuffle(lib.ones(5, 2), 2),
    "shuffle-factor": lambda F, lib: F.pixel_shuffle(lib.ones(1, 4, 2, 2), 0),
    "unshuffle-height": lambda F, lib: F.pixel_unshuffle(lib.ones(1, 4, 3, 2), 2),
    "unshuffle-width": lambda F, lib: F.pixel_unshuffle(lib.ones(1, 4, 2, 3), 2),
    "unshuffle-2d": lambda F, lib: F.pixel_unshuffle(lib.ones(2, 3), 2),
    "unshuffle-factor": lambda F, lib: F.pixel_unshuffle(lib.ones(1, 4, 2, 2), 0),
    "channel-shuffle-groups": lambda F, lib: F.channel_shuffle(lib.ones(1, 5, 2, 2), 2),
    "channel-shuffle-1d": lambda F, lib: F.channel_shuffle(lib.ones(1, 4), 2),
    "multi-margin-range": lambda F, lib: F.multi_margin_loss(lib.ones(4, 6), lib.tensor([0, 1, 2, 6])),
    "multi-margin-target-size": lambda F, lib: F.multi_margin_loss(lib.ones(4, 6),
                                                                   lib.tensor([0, 1, 2])),
    "multi-margin-float-target": lambda F, lib: F.multi_margin_loss(lib.ones(4, 6), lib.ones(4)),
    "multi-margin-3d": lambda F, lib: F.multi_margin_loss(lib.ones(2, 3, 4), lib.tensor([0, 1])),
    "multi-margin-long": lambda F, lib: F.multi_margin_loss(lib.ones(4, 6, dtype=lib.long),
                                                            lib.tensor([0, 1, 2, 3])),
    "multi-margin-weight": lambda F, lib: F.multi_margin_loss(
        lib.ones(4, 6), lib.tensor([0, 1, 2, 3]), weight=lib.ones(5)),
    "multi-margin-weight-2d": lambda F, lib: F.multi_margin_loss(
        lib.ones(4, 6), lib.tensor([0, 1, 2, 3]), weight=lib.ones(1, 6)),
    "multi-margin-weight-dtype": lambda F, lib: F.multi_margin_loss(
        lib.ones(4, 6, dtype=lib.float64), lib.tensor([0, 1, 2, 3]), weight=lib.ones(6)),
    "multi-margin-p": lambda F, lib: F.multi_margin_loss(lib.ones(4, 6), lib.tensor([0, 1, 2, 3]),
                                                         p=3),
    "multi-margin-empty": lambda F, lib: F.multi_margin_loss(lib.ones(2, 0), lib.tensor([0, 0])),
    "multilabel-range": lambda F, lib: F.multilabel_margin_loss(
        lib.ones(2, 3), lib.tensor([[0, 3, -1], [0, 1, 2]])),
    "multilabel-size": lambda F, lib: F.multilabel_margin_loss(lib.ones(2, 3),
                                                               lib.tensor([[0, 1], [0, 1]])),
    "multilabel-float": lambda F, lib: F.multilabel_margin_loss(lib.ones(2, 3), lib.ones(2, 3)),
    "soft-margin-broadcast": lambda F, lib: F.soft_margin_loss(lib.ones(4, 6), lib.ones(3, 6)),
    "soft-margin-grow": lambda F, lib: F.soft_margin_loss(lib.ones(6), lib.ones(4, 6)),
    "soft-margin-long": lambda F, lib: F.soft_margin_loss(lib.ones(2, dtype=lib.long),
                                                          lib.ones(2, dtype=lib.long)),
    "soft-margin-target-grad": lambda F, lib: F.soft_margin_loss(
        lib.ones(2), lib.ones(2, requires_grad=True)),
    "ranking-dims": lambda F, lib: F.margin_ranking_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                         lib.ones(4)),
    "cosine-embedding-2d-target": lambda F, lib: F.cosine_embedding_loss(
        lib.ones(4, 6), lib.ones(4, 6), lib.ones(4, 1)),
    "cosine-embedding-1d": lambda F, lib: F.cosine_embedding_loss(lib.ones(4, 6), lib.ones(6),
                                                                  lib.ones(4)),
    "cosine-embedding-0d": lambda F, lib: F.cosine_embedding_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                                  lib.tensor(1.0)),
    "triplet-dims": lambda F, lib: F.triplet_margin_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                         lib.ones(6)),
    "triplet-margin": lambda F, lib: F.triplet_margin_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                           lib.ones(4, 6), margin=0),
    "triplet-distance-reduction": lambda F, lib: F.triplet_margin_with_distance_loss(
        lib.ones(4, 6), lib.ones(4, 6), lib.ones(4, 6), reduction="x"),
    "triplet-module-margin": lambda F, lib: lib.nn.TripletMarginLoss(margin=-1.0),
    "triplet-distance-module-margin": lambda F, lib: lib.nn.TripletMarginWithDistanceLoss(
        margin=0.0),
    "multi-margin-module-p": lambda F, lib: lib.nn.MultiMarginLoss(p=3),
    "multi-margin-module-weight": lambda F, lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
    "poisson-reduction": lambda F, lib: F.poisson_nll_loss(lib.ones(2), lib.ones(2),
                                                           reduction="x"),
    "gaussian-var-size": lambda F, lib: F.gaussian_nll_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                            lib.ones(4, 5)),
    "gaussian-var-negative": lambda F, lib: F.gaussian_nll_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                                -lib.ones(4, 6)),
    "gaussian-float-negative": lambda F, lib: F.gaussian_nll_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                                  -1.0),
    "gaussian-reduction": lambda F, lib: F.gaussian_nll_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                             lib.ones(4, 6), reduction="x"),
    "multilabel-soft-reduction": lambda F, lib: F.multilabel_soft_margin_loss(
        lib.ones(4, 6), lib.ones(4, 6), reduction="x"),
    "hinge-reduction": lambda F, lib: F.hinge_embedding_loss(lib.ones(4, 6), lib.ones(4, 6),
                                                             reduction="x"),
    "unpool-int-indices": lambda F, lib: F.max_unpool2d(*_pooled(lib, lib.int32), 2),
    "unpool-indices-shape": lambda F, lib: F.max_unpool2d(
        _pooled(lib)[0], _pooled(lib)[1][:, :1], 2),
    "unpool-invalid-index": lambda F, lib: F.max_unpool2d(_pooled(lib)[0], _pooled(lib)[1] + 20,
                                                          2),
    "unpool-output-size": lambda F, lib: F.max_unpool2d(*_pooled(lib), 2, output_size=(7, 5)),
    "unpool-output-length": lambda F, lib: F.max_unpool2d(*_pooled(lib), 2,
                                                          output_size=(1, 2, 5)),
    "unpool-2d-input": lambda F, lib: F.max_unpool2d(*(t[0, 0] for t in _pooled(lib)), 2),
    "unpool-long": lambda F, lib: F.max_unpool2d(_pooled(lib)[0].long(), _pooled(lib)[1], 2),
    "unpool1d-plane": lambda F, lib: F.max_unpool1d(*(t[0] for t in _pooled(lib)), 2),
    "unpool3d-stride": lambda F, lib: F.max_unpool3d(*(t[None] for t in _pooled(lib)), 2,
                                                     stride=0),
    "unpool3d-3d-input": lambda F, lib: F.max_unpool3d(*(t[0] for t in _pooled(lib)), 2),
    "unpool-negative-size": lambda F, lib: F.max_unpool2d(*_pooled(lib), 1, padding=3),
    "grid-dtype": lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5), lib.zeros(2, 3, 2, 2).double(),
                                               align_corners=False),
    "grid-batch": lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5), lib.zeros(1, 3, 2, 2),
                                               align_corners=False),
    "grid-last-dim": lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5), lib.zeros(2, 3, 2, 1),
                                                  align_corners=False),
    "grid-3d-input": lambda F, lib: F.grid_sample(lib.ones(2, 4, 5), lib.zeros(2, 3, 2, 2),
                                                  align_corners=False),
    "grid-empty": lambda F, lib: F.grid_sample(lib.ones(2, 3, 0, 5), lib.zeros(2, 3, 2, 2),
                                               align_corners=False),
    "grid-long": lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5, dtype=lib.long),
                                              lib.zeros(2, 3, 2, 2, dtype=lib.long),
                                              align_corners=False),
    "grid-mode": lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5), lib.zeros(2, 3, 2, 2),
                                              mode="x", align_corners=False),
    "grid-padding": lambda F, lib: F.grid_sample(lib.ones(2, 3, 4, 5), lib.zeros(2, 3, 2, 2),
                                                 padding_mode="x", align_corners=False),
    "affine-long": lambda F, lib: F.affine_grid(lib.ones(2, 2, 3, dtype=lib.long), (2, 3, 4, 5),
                                                align_corners=False),
    "affine-shape": lambda F, lib: F.affine_grid(lib.ones(2, 3, 3), (2, 3, 4, 5),
                                                 align_corners=False),
    "affine-3d-shape": lambda F, lib: F.affine_grid(lib.ones(2, 2, 3), (2, 3, 4, 5, 6),
                                                    align_corners=False),
    "affine-size": lambda F, lib: F.affine_grid(lib.ones(2, 2, 3), (2, 3, 4),
                                                align_corners=False),
    "affine-empty": lambda F, lib: F.affine_grid(lib.ones(2, 2, 3), (2, 3, 0, 5),
                                                 align_corners=False),
    "affine-batch": lambda F, lib: F.affine_grid(lib.ones(3, 2, 3), (2, 3, 4, 5),
                                                 align_corners=False),
    "channel-shuffle-zero": lambda F, lib: F.channel_shuffle(lib.ones(1, 4, 2, 2), 0),
}


def _pooled(lib, index_dtype=None):
    values, indices = lib.nn.functional.max_pool2d(
        lib.arange(32.0).reshape(1, 2, 4, 4), 2, return_indices=True)
    return values, indices if index_dtype is None else indices.to(index_dtype)


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(torch, name):
    assert_same_error(lambda lib: ERRORS[name](lib.nn.functional, lib))


def test_fold_is_unfolds_adjoint(torch):
    """<unfold(x), y> == <x, fold(y)>: fold sums overlapping blocks as torch's col2im does."""
    x, y = _array(2, 3, 5, 6), _array(2, 3 * 6, 9)
    unfolded = ember.nn.functional.unfold(ember.tensor(x), (2, 3), padding=1, stride=2)
    folded = ember.nn.functional.fold(ember.tensor(y), (5, 6), (2, 3), padding=1, stride=2)
    assert np.isclose((unfolded.numpy() * y).sum(), (x * folded.numpy()).sum(), rtol=1e-4)
    expected = torch.nn.functional.fold(torch.tensor(y), (5, 6), (2, 3), padding=1, stride=2)
    assert_same(folded, expected, atol=1e-5, rtol=1e-5)


LOSS_CALLS = [   # (module expression, inputs as arrays): forward, grads, legacy flags
    ("nn.SoftMarginLoss(size_average=False)",
     lambda: [_array(3, 4), np.sign(_array(3, 4)).astype(np.int64)]),
    ("nn.MultiMarginLoss(reduce=False)", lambda: [_array(3, 4), np.array([0, 3, 1])]),
    ("nn.MultiLabelMarginLoss()", lambda: [_array(2, 4), np.array([[1, 2, -1, 0], [3, -1, 0, 0]])]),
    ("nn.GaussianNLLLoss(full=True)", lambda: [_array(3, 4), _array(3, 4),
                                                np.abs(_array(3, 4)) + 0.1]),
    ("nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(p=1.0))",
     lambda: [_array(3, 4), _array(3, 4), _array(3, 4)]),
    ("nn.PoissonNLLLoss(log_input=False)", lambda: [np.abs(_array(3, 4)) + 0.1, _array(3, 4) ** 2]),
]


@pytest.mark.parametrize("expression, make", LOSS_CALLS, ids=[c[0] for c in LOSS_CALLS])
def test_loss_modules(torch, expression, make):
    arrays = make()
    results = {}
    for lib in (torch, ember):
        inputs = [to_lib(lib, a, requires_grad=a.dtype == np.float32) for a in arrays]
        with warnings.catch_warnings():   # the legacy flags' deprecation warning
            warnings.simplefilter("ignore")
            module = eval(expression, {"nn": lib.nn})
        out = module(*inputs)
        out.sum().backward()
        results[lib] = (out, [x.grad for x in inputs if x.requires_grad], out.grad_fn.name())
    assert_same(results[ember][0], results[torch][0], atol=1e-5, rtol=1e-5)
    assert_same(results[ember][1], results[torch][1], atol=1e-5, rtol=1e-5)
    assert results[ember][2] == results[torch][2]



@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_inverts_max_pool(torch, n):
    """MaxUnpoolNd(MaxPoolNd(x)) through modules, with output_size, grads and grad_fn."""
    x = _array(*(2, 3) + (5, 4, 6)[:n])
    results = {}
    for lib in (torch, ember):
        leaf = to_lib(lib, x, requires_grad=True)
        pool = getattr(lib.nn, f"MaxPool{n}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{n}d")(2)
        values, indices = pool(leaf)
        out = unpool(values, indices, output_size=leaf.shape)
        (out * out).sum().backward()
        results[lib] = (out, leaf.grad, out.grad_fn.name())
    assert_same(results[ember][0], results[torch][0])
    assert_same(results[ember][1], results[torch][1])
    assert results[ember][2] == results[torch][2]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_ops_draw_torchs_stream(torch, dtype):
    """gumbel_softmax (soft and hard) and RReLU in training give torch's numbers after
    manual_seed, with torch's grads and grad_fn names; RReLU in eval uses the mean slope."""
    x = (_array(3, 5) * 2).astype(dtype)
    x[0, 0] = 0.0   # rrelu draws for x <= 0
    results = {}
    for lib in (torch, ember):
        lib.manual_seed(7)
        leaf = to_lib(lib, x, requires_grad=True)
        F = lib.nn.functional
        module = lib.nn.RReLU(0.2, 0.6)
        outs = [F.gumbel_softmax(leaf, tau=0.5), F.gumbel_softmax(leaf, hard=True, dim=0),
                module(leaf), module.eval()(leaf), F.rrelu(leaf, training=True),
                F.rrelu_(leaf * 1, 0.1, 0.2, training=True)]
        sum(((o * o).sum() for o in outs), leaf.sum()).backward()
        results[lib] = (outs, leaf.grad, [o.grad_fn.name() for o in outs], lib.rand(2))
    (outs, grad, names, after), expected = results[ember], results[torch]
    assert_same(outs, expected[0], atol=1e-6, rtol=1e-6)
    assert_same(grad, expected[1], atol=1e-6, rtol=1e-6)
    assert names == expected[2]
    assert_same(after, expected[3])   # the same number of draws was taken


def test_grid_warnings_match_torch(torch):
    """align_corners=None warns (and means False); unit-size grids with True warn too."""
    def warned(lib, call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call(lib.nn.functional, lib)
        return out, [str(w.message) for w in caught]
    calls = [lambda F, lib: F.affine_grid(lib.eye(2, 3)[None], (1, 1, 2, 3)),
             lambda F, lib: F.affine_grid(lib.eye(2, 3)[None], (1, 1, 1, 3), align_corners=True),
             lambda F, lib: F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))]
    for call in calls:
        (got, got_warnings), (expected, expected_warnings) = warned(ember, call), warned(torch,
                                                                                          call)
        assert got_warnings == expected_warnings
        assert_same(got, expected)
