"""ops12 against torch: what the catalog (tests/opdb/ops_more2.py) cannot express --
integer-only ops, in-place forms, errors, the torch.* doors into nn.functional (ATen's
argument order, integer reductions), random doors on the shared stream, and queries."""
import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, to_lib

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 5)).astype(np.float32)
IMG = RNG.standard_normal((2, 4, 6, 6)).astype(np.float32)
W2 = RNG.standard_normal((3, 4, 3, 3)).astype(np.float32)
M = RNG.standard_normal((3, 4)).astype(np.float32)
V3 = RNG.standard_normal(3).astype(np.float32)
V4 = RNG.standard_normal(4).astype(np.float32)
B1 = RNG.standard_normal((2, 3, 5)).astype(np.float32)
B2 = RNG.standard_normal((2, 5, 4)).astype(np.float32)
INTS = np.array([12, -18, 0, 7, 5, 9])
INTS2 = np.array([8, 6, 0, -21, 0, 3])


def same(torch, call, *arrays, requires_grad=False, atol=None, rtol=None):
    """call(lib, *tensors) gives the same result (and, with requires_grad, same grads)."""
    results = []
    for lib in (torch, ember):
        tensors = to_lib(lib, arrays, requires_grad)
        out = call(lib, *tensors)
        if requires_grad:
            outs = out if isinstance(out, (tuple, list)) else (out,)
            total = sum((o.float() * (i + 1)).sum() for i, o in enumerate(outs)
                        if o.requires_grad)
            if not isinstance(total, int):
                total.backward()
            out = (out, [t.grad for t in tensors if hasattr(t, "grad") and t.requires_grad])
        results.append(out)
    assert_same(results[1], results[0], atol, rtol)


# ---------------------------------------------------------------- torch.* doors to nn ops
DOORS = [
    lambda lib, x, w: lib.conv2d(x, w, None, 1, 1),
    lambda lib, x, w: lib.conv1d(x[:, :, 0], w[:, :, 0], stride=2),
    lambda lib, x, w: lib.conv3d(x[:, :, None], w[:, :, None], padding=1),
    lambda lib, x, w: lib.conv_transpose2d(x, w.transpose(0, 1), stride=2),
    lambda lib, x, w: lib.conv_transpose1d(x[:, :, 0], w.transpose(0, 1)[:, :, 0]),
    lambda lib, x, w: lib.conv_transpose3d(x[:, :, None], w.transpose(0, 1)[:, :, None]),
    lambda lib, x, w: lib.convolution(x, w, None, [1, 1], [0, 1], [1, 1], False, [0, 0], 1),
    lambda lib, x, w: lib.convolution(x, w.transpose(0, 1), None, [2, 2], [0, 0], [1, 1], True,
                                      [1, 0], 1),
    lambda lib, x, w: lib.batch_norm(x, w[0, :, 0, 0], w[1, :, 0, 0], None, None, True, 0.1,
                                     1e-5, False),
    lambda lib, x, w: lib.batch_norm(x, None, None, w[0, :, 0, 0].detach().abs(),
                                     w[1, :, 0, 0].detach().abs(), False, 0.1, 1e-5, False),
    lambda lib, x, w: lib.instance_norm(x, w[0, :, 0, 0], None, None, None, True, 0.1, 1e-5,
                                        False),
    lambda lib, x, w: lib.layer_norm(x, [6, 6], w[0, 0, :2].reshape(6).expand(6, 6)),
    lambda lib, x, w: lib.layer_norm(x, (6,), eps=1e-3),
    lambda lib, x, w: lib.group_norm(x, 2, w[0, :, 0, 0], w[1, :, 0, 0]),
    lambda lib, x, w: lib.celu(x, 0.5),
    lambda lib, x, w: lib.selu(x),
    lambda lib, x, w: lib.threshold(x, 0.1, -2.0),
    lambda lib, x, w: lib.hardshrink(x, 0.3),
    lambda lib, x, w: x.hardshrink(),
    lambda lib, x, w: lib.prelu(x, w[0, :, 0, 0]),
    lambda lib, x, w: x.prelu(w[0, :1, 0, 0]),
    lambda lib, x, w: lib.rrelu(x),
    lambda lib, x, w: lib.embedding(x[0, 0], lib.tensor([[1, 0], [5, 2]])),
    lambda lib, x, w: lib.embedding(x[0, 0], lib.tensor([1, 0, 5]), 0),
    lambda lib, x, w: lib.pixel_shuffle(x, 2),
    lambda lib, x, w: lib.pixel_unshuffle(x, 2),
    lambda lib, x, w: lib.channel_shuffle(x, 2),
    lambda lib, x, w: lib.native_channel_shuffle(x.detach(), 2),
    lambda lib, x, w: lib.bilinear(x[0, :, 0].t(), x[1, :3, 0].t(), w[:, :, 0], w[0, 0, 0]),
    lambda lib, x, w: lib.cosine_similarity(x[0], x[1]),
    lambda lib, x, w: lib.pairwise_distance(x[0, 0], x[1, 0], 1.5, 1e-6, True),
    lambda lib, x, w: lib.kl_div(x.log_softmax(1), x.softmax(1) * 0.5),
    lambda lib, x, w: lib.kl_div(x.log_softmax(1), x.log_softmax(1).flip(0), 2, log_target=True),
    lambda lib, x, w: lib.kl_div(x.log_softmax(1), x.softmax(1), 0),
    lambda lib, x, w: lib.margin_ranking_loss(x[0], x[1], x[0].sign(), 0.2),
    lambda lib, x, w: lib.hinge_embedding_loss(x, x.sign(), 0.5, 2),
    lambda lib, x, w: lib.triplet_margin_loss(x[0, 0], x[0, 1], x[1, 0], 1.0, 2.0, 1e-6, True, 0),
    lambda lib, x, w: lib.cosine_embedding_loss(x[0, 0], x[1, 0], x[0, 0, 0].sign(), 0.1, 1),
    lambda lib, x, w: lib.poisson_nll_loss(x, x.abs(), True, False, 1e-8, 1),
    lambda lib, x, w: lib.poisson_nll_loss(x.abs(), x.abs(), False, True, 1e-8, 0),
    lambda lib, x, w: lib.binary_cross_entropy_with_logits(x, x.sigmoid()),
    lambda lib, x, w: lib.binary_cross_entropy_with_logits(x, x.sigmoid(), None,
                                                           w[0, :, :1, :1].detach().abs(), 2),
    lambda lib, x, w: lib.max_pool1d(x[0], 2),
    lambda lib, x, w: lib.max_pool2d(x, 3, [], 1, 1, True),
    lambda lib, x, w: lib.max_pool2d(x, (2, 3), (1, 2)),
    lambda lib, x, w: lib.max_pool3d(x[None], 2),
    lambda lib, x, w: lib.max_pool1d_with_indices(x[0], 3, 2, 1),
    lambda lib, x, w: lib.avg_pool1d(x[0], 3, [], 1, False, False),
    lambda lib, x, w: lib.adaptive_avg_pool1d(x[0], 4),
    lambda lib, x, w: lib.adaptive_max_pool1d(x[0], 4),
    lambda lib, x, w: lib.constant_pad_nd(x, [1, 2, 0, 1], 0.5),
    lambda lib, x, w: lib.constant_pad_nd(x, (1, -1)),
    lambda lib, x, w: lib.affine_grid_generator(w[:2, :2, 0], [2, 3, 4, 5], False),
    lambda lib, x, w: lib.grid_sampler(x, x[:, :2].permute(0, 2, 3, 1).tanh(), 0, 0, False),
    lambda lib, x, w: lib.grid_sampler_2d(x, x[:, :2].permute(0, 2, 3, 1).tanh(), 1, 1, True),
    lambda lib, x, w: lib.grid_sampler(x, x[:, 2:].permute(0, 2, 3, 1), 0, 2, True),
]


@pytest.mark.parametrize("call", DOORS)
def test_nn_doors(torch, call):
    same(torch, call, IMG, W2, requires_grad=True, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.dropout(x, 0.3, True),
    lambda lib, x: lib.dropout(x, 0.3, False),
    lambda lib, x: lib.dropout_(x.clone(), 0.5, True),
    lambda lib, x: lib.alpha_dropout(x, 0.2, True),
    lambda lib, x: lib.alpha_dropout_(x.clone(), 0.2, True),
    lambda lib, x: lib.feature_dropout(x, 0.5, True),
    lambda lib, x: lib.feature_dropout_(x.clone(), 0.5, True),
    lambda lib, x: lib.feature_alpha_dropout(x, 0.5, True),
    lambda lib, x: lib.feature_alpha_dropout_(x.clone(), 0.5, True),
    lambda lib, x: lib.rrelu(x, 0.1, 0.3, True),
    lambda lib, x: lib.rrelu_(x.clone(), 0.1, 0.3, True),
    lambda lib, x: lib.celu_(x.clone(), 2.0),
    lambda lib, x: lib.selu_(x.clone()),
    lambda lib, x: lib.threshold_(x.clone(), 0.0, 1.0),
])
def test_random_and_inplace_doors(torch, call):
    """Dropout doors draw PyTorch's random stream after the same manual_seed."""
    results = []
    for lib in (torch, ember):
        lib.manual_seed(3)
        results.append(call(lib, lib.tensor(IMG)))
    assert_same(results[1], results[0])


# ---------------------------------------------------------------- products and in-place forms
@pytest.mark.parametrize("call", [
    lambda lib, m, a, b, b1, b2: lib.addr(m, a, b, beta=0.5, alpha=-2),
    lambda lib, m, a, b, b1, b2: m.clone().addr_(a, b, alpha=3),
    lambda lib, m, a, b, b1, b2: lib.addr(m.long(), a.long(), b.long(), beta=2),
    lambda lib, m, a, b, b1, b2: lib.addr(m > 0, a > 0, b > 0),
    lambda lib, m, a, b, b1, b2: lib.addr(m > 0, a > 0, b > 0, beta=False),
    lambda lib, m, a, b, b1, b2: lib.addr(m, a.double(), b),
    lambda lib, m, a, b, b1, b2: m.clone().addbmm_(b1, b2, beta=2),
    lambda lib, m, a, b, b1, b2: lib.addbmm(m, b1[:0], b2[:0]),
    lambda lib, m, a, b, b1, b2: m.clone().addmm_(b1[0], b2[0], alpha=2),
    lambda lib, m, a, b, b1, b2: a.clone().addmv_(b1[0], b2[0, :, 0], beta=0.5),
    lambda lib, m, a, b, b1, b2: lib.addmv_(a.clone(), b1[0], b2[0, :, 0], alpha=2),
    lambda lib, m, a, b, b1, b2: b1.clone().baddbmm_(b1[:, :, :3], b1[:, :3], alpha=2),
    lambda lib, m, a, b, b1, b2: m.clone().cumprod_(1),
    lambda lib, m, a, b, b1, b2: lib.chain_matmul(b1[0], b2[0], m.t()),
    lambda lib, m, a, b, b1, b2: lib.chain_matmul(m),
    lambda lib, m, a, b, b1, b2: lib.dist(m, b, 0),
    lambda lib, m, a, b, b1, b2: lib.dist(m.half(), b),
])
def test_products(torch, call):
    same(torch, call, M, V3, V4, B1, B2, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda lib, m, a, b, b1, b2: lib.addr(m, a, b, beta=0.5, alpha=-2),
    lambda lib, m, a, b, b1, b2: lib.addbmm(m, b1, b2, beta=2, alpha=0.5),
    lambda lib, m, a, b, b1, b2: lib.chain_matmul(b1[0], b2[0], m.t()),
    lambda lib, m, a, b, b1, b2: lib.dist(m, b, 3),
])
def test_product_grads(torch, call):
    same(torch, call, M, V3, V4, B1, B2, requires_grad=True, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda lib: lib.addr(lib.ones(3, 4), lib.ones(3, 1), lib.ones(4)),
    lambda lib: lib.addr(lib.ones(3, 4), lib.ones(3), lib.ones(1, 4)),
    lambda lib: lib.addr(lib.ones(2), lib.ones(3), lib.ones(4)),
    lambda lib: lib.addr(lib.ones(3, 4).long(), lib.ones(3).long(), lib.ones(4).long(), beta=0.5),
    lambda lib: lib.addbmm(lib.ones(3, 4), lib.ones(5, 3, 2), lib.ones(4, 2, 4)),
    lambda lib: lib.addbmm(lib.ones(3, 4), lib.ones(5, 3, 2), lib.ones(5, 1, 4)),
    lambda lib: lib.addbmm(lib.ones(3, 4), lib.ones(5, 3, 2), lib.ones(5, 2, 4).double()),
    lambda lib: lib.ones(4).addr_(lib.ones(3), lib.ones(4)),
    lambda lib: lib.chain_matmul(lib.ones(2, 2), lib.ones(2)),
    lambda lib: lib.dist(lib.ones(3).long(), lib.ones(3).long()),
    lambda lib: lib.ones(3, 4).cumprod_(0, dtype=lib.float64),
])
def test_product_errors(torch, call):
    assert_same_error(call)


# ---------------------------------------------------------------- integer and float-bit ops
@pytest.mark.parametrize("call", [
    lambda lib, a, b: lib.gcd(a, b),
    lambda lib, a, b: a.lcm(b),
    lambda lib, a, b: lib.gcd(a, b.int()),
    lambda lib, a, b: lib.lcm(a.to(lib.uint8), b.to(lib.uint8)),
    lambda lib, a, b: a.clone().gcd_(b),
    lambda lib, a, b: a.clone().lcm_(b[0]),
    lambda lib, a, b: lib.gcd_(a.clone(), b),
    lambda lib, a, b: a.gcd(b),
    lambda lib, a, b: lib.lcm_(a.clone(), b),
    lambda lib, a, b: lib.ldexp_(a.double(), b.clamp(-3, 3)),
    lambda lib, a, b: (a.abs().float() + 1).igamma(b.abs().float()),
    lambda lib, a, b: lib.heaviside(a, b),
    lambda lib, a, b: lib.heaviside(a.float(), lib.tensor(0.5)),
    lambda lib, a, b: a.clone().heaviside_(b),
    lambda lib, a, b: a.heaviside(b),
    lambda lib, a, b: lib.ldexp(a, b.clamp(-3, 3)),
    lambda lib, a, b: a.double().ldexp_(b.clamp(-3, 3)),
    lambda lib, a, b: lib.ldexp(a.float(), b.double()),
    lambda lib, a, b: lib.nextafter(a.float(), b.float()),
    lambda lib, a, b: a.double().nextafter(b.double()),
    lambda lib, a, b: a.float().nextafter_(lib.tensor(0.0)),
    lambda lib, a, b: lib.frexp(a.double() * 1.7),
    lambda lib, a, b: lib.igamma(a.abs().float() + 0.5, b.abs().float()),
    lambda lib, a, b: lib.igammac(a.abs().double() + 0.5, b.abs().float()),
    lambda lib, a, b: (a.abs().float() + 1).igamma_(b.abs().float()),
    lambda lib, a, b: (a.abs().float() + 1).igammac_(b.abs().float()),
    lambda lib, a, b: (a.abs().float() + 1).igammac(b.abs().float()),
    lambda lib, a, b: lib.igamma(a.half().abs() + 1, b.half().abs()),
])
def test_integer_and_float_bits(torch, call):
    same(torch, call, INTS, INTS2, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.nextafter(x, y),
    lambda lib, x, y: lib.nextafter(x, y[0]),
    lambda lib, x, y: lib.ldexp(x, y),
    lambda lib, x, y: lib.frexp(x),
])
def test_float_bits_grads(torch, call):
    same(torch, call, X[0], X[1], requires_grad=True)


def test_igamma_gradient(torch):
    """The derivative in `other` exists; in `input` PyTorch raises."""
    same(torch, lambda lib, a, x: lib.igamma(a, x), np.array([1.5, 2.0, 4.0]),
         np.array([0.5, 3.0, 2.0]), requires_grad=False)
    for call in (lambda lib, a, x: lib.igamma(a, x), lambda lib, a, x: lib.igammac(a, x)):
        grads = []
        for lib in (torch, ember):
            a = lib.tensor([1.5, 2.0, 4.0], dtype=lib.float64)
            x = lib.tensor([0.5, 3.0, 2.0], dtype=lib.float64, requires_grad=True)
            out = call(lib, a, x)
            assert type(out.grad_fn).__name__ == out.grad_fn.name().split("::")[-1]
            out.sum().backward()
            grads.append(x.grad)
        assert_same(grads[1], grads[0])
        assert_same_error(lambda lib: call(lib, lib.tensor([1.5], requires_grad=True),
                                           lib.tensor([2.0])).sum().backward())


@pytest.mark.parametrize("call", [
    lambda lib: lib.gcd(lib.tensor([1.0]), lib.tensor([2.0])),
    lambda lib: lib.gcd(lib.tensor([True]), lib.tensor([True])),
    lambda lib: lib.gcd(lib.tensor([4]), 2),
    lambda lib: lib.heaviside(lib.tensor([1.0]), lib.tensor([1.0]).double()),
    lambda lib: lib.heaviside(lib.tensor([1.0]), 0.5),
    lambda lib: lib.heaviside(lib.tensor([1.0], requires_grad=True),
                              lib.tensor(0.5)).sum().backward(),
    lambda lib: lib.ldexp(lib.tensor([1.0]), 2),
    lambda lib: lib.tensor([1]).ldexp_(lib.tensor([1])),
    lambda lib: lib.nextafter(lib.tensor([1]), lib.tensor([2])),
    lambda lib: lib.frexp(lib.tensor([1])),
    lambda lib: lib.igammac(lib.tensor([1]), lib.tensor([2])),
    lambda lib: lib.tensor([1, 2]).gcd_(lib.tensor([1.0, 2.0])),
])
def test_pointwise_errors(torch, call):
    assert_same_error(call)


def test_frexp_named_tuple(torch):
    got = ember.frexp(ember.tensor([8.0, -0.75]))
    expected = torch.frexp(torch.tensor([8.0, -0.75]))
    assert_same(got.mantissa, expected.mantissa)
    assert_same(got.exponent, expected.exponent)
    assert repr(got) == repr(expected).replace("torch", "ember")


# ---------------------------------------------------------------- selections
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.mode(x),
    lambda lib, x: lib.mode(x, 0, keepdim=True),
    lambda lib, x: lib.mode(x.long()),
    lambda lib, x: lib.mode(x > 1),
    lambda lib, x: lib.mode(x[:0], 1),
    lambda lib, x: lib.mode(lib.tensor(3.0)),
    lambda lib, x: lib.nanmedian(x),
    lambda lib, x: lib.nanmedian(x, 1),
    lambda lib, x: x.nanmedian(0, True),
    lambda lib, x: lib.nanmedian(x.long(), 1),
    lambda lib, x: lib.nanmedian(x[:0]),
    lambda lib, x: lib.nanmedian(x[:, :0], 0),
])
def test_selections(torch, call):
    x = np.array([[1.0, 3, 3, 1, 2, 2], [5, 5, 4, 4, 4, 0], [2, np.nan, 1, np.nan, 7, 7]],
                 np.float32)
    same(torch, call, x)


@pytest.mark.parametrize("call", [
    lambda lib: lib.mode(lib.ones(2, 0)),
    lambda lib: lib.nanmedian(lib.tensor([True])),
    lambda lib: lib.nanmedian(lib.tensor([True]), 0),
    lambda lib: lib.nanmedian(lib.ones(2, 0), 1),
])
def test_selection_errors(torch, call):
    assert_same_error(call)


# ---------------------------------------------------------------- index reductions and copies
@pytest.mark.parametrize("call", [
    lambda lib, x, i, s: x.clone().scatter_reduce_(1, i, s, "sum"),
    lambda lib, x, i, s: x.clone().scatter_reduce_(1, i, s, "amin", include_self=False),
    lambda lib, x, i, s: lib.scatter_reduce(x.long(), 1, i, s.long() * 3, "mean"),
    lambda lib, x, i, s: lib.scatter_reduce(x.long(), 1, i, s.long() * 3, "mean",
                                            include_self=False),
    lambda lib, x, i, s: x.clone().index_reduce_(0, i[0, :2], s[:2], "amax"),
    lambda lib, x, i, s: x.clone().index_reduce_(1, i[1], s, "mean", include_self=False),
    lambda lib, x, i, s: x.clone().index_copy_(1, i[0, :2].flip(0) + 1, s[:, :2]),
    lambda lib, x, i, s: x.clone().put_(i[0], s[0], accumulate=True),
    lambda lib, x, i, s: x.clone().put_(i[1], s[1]),
])
def test_index_inplace(torch, call):
    same(torch, call, M[:2, :3] * 4, np.array([[0, 0, 2], [1, 1, 1]]), M[:2, 1:] * 3)


@pytest.mark.parametrize("call", [
    lambda lib, x, i, s: x.scatter_reduce(1, i, s, "foo"),
    lambda lib, x, i, s: x.scatter_reduce(1, i, s.double(), "sum"),
    lambda lib, x, i, s: x.index_reduce(0, i[0, :2], s[:2], "sum"),
    lambda lib, x, i, s: x.index_reduce(0, i[:1, :2], s[:2], "mean"),
    lambda lib, x, i, s: x.index_reduce(0, i[0, :2] + 5, s[:2], "mean"),
    lambda lib, x, i, s: x.index_reduce(0, i[0, :1], s[:2], "mean"),
    lambda lib, x, i, s: x.index_reduce(0, i[0, :2], s[:2].double(), "mean"),
    lambda lib, x, i, s: x.index_copy(0, i[0, :2].int(), s[:2]),
    lambda lib, x, i, s: x.index_copy(0, i[0, :2], s[:2].double()),
    lambda lib, x, i, s: x.index_copy(0, i[0, :2] + 5, s[:2]),
    lambda lib, x, i, s: x.index_copy(0, i[0, :1], s[:2]),
    lambda lib, x, i, s: x.index_copy(0, i[:1, :2], s[:2]),
    lambda lib, x, i, s: x.index_copy(0, i[0, :2], s[:2, :2]),
    lambda lib, x, i, s: x.index_copy(0, i[0, :2], s.reshape(-1)),
    lambda lib, x, i, s: x.put(i[0, :2] + 6, s[0, :2]),
    lambda lib, x, i, s: x.put(i[0, :2], s[0, :1]),
    lambda lib, x, i, s: x.put(i[0, :2].int(), s[0, :2]),
    lambda lib, x, i, s: x.put(i[0, :2], s[0, :2].double()),
])
def test_index_errors(torch, call):
    assert_same_error(lambda lib: call(lib, *to_lib(lib, (
        M[:2, :3], np.array([[0, 0, 2], [1, 1, 1]]), M[:2, 1:]))))


def test_index_reduce_leaves_input_unchanged_on_error(torch):
    x = ember.ones(2, 3)
    with pytest.raises(IndexError):
        x.index_reduce_(0, ember.tensor([0, 9]), ember.ones(2, 3), "amax")
    assert x.sum().item() == 6 and x._version == 0


# ---------------------------------------------------------------- splits, scatters, diagonals
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.hsplit(x[0, 0], 5),
    lambda lib, x: lib.dsplit(x, [1, 4]),
    lambda lib, x: lib.vsplit(x, [1]),
    lambda lib, x: lib.split_with_sizes(x, [2, 0, 3], -1),
    lambda lib, x: lib.unsafe_split(x, 2, 2),
    lambda lib, x: lib.unsafe_chunk(x, 2, 1),
    lambda lib, x: lib.unsafe_split_with_sizes(x, [1, 2], 1),
    lambda lib, x: lib.select_scatter(x, x[:, 0] * 0, 1, 0),
    lambda lib, x: lib.slice_scatter(x, x[..., ::2] * 2, 2, step=2),
    lambda lib, x: lib.diagonal_scatter(x[0], x[0].diagonal() * 0),
    lambda lib, x: lib.diagflat(x[0, 0], 2),
    lambda lib, x: x[0].clone().fill_diagonal_(7),
    lambda lib, x: lib.zeros(7, 3).fill_diagonal_(5, wrap=True),
    lambda lib, x: lib.zeros(7, 3).fill_diagonal_(5),
    lambda lib, x: lib.zeros(3, 3, 3).fill_diagonal_(2),
    lambda lib, x: x.clone().swapaxes_(0, 2),
    lambda lib, x: x.clone().swapdims_(1, -1),
    lambda lib, x: x.sum_to_size(2, 3, 5),
    lambda lib, x: x.sum_to_size([1, 5]),
])
def test_slicing(torch, call):
    same(torch, call, X)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.dsplit(x[0], 2),
    lambda lib, x: lib.hsplit(x, 2),
    lambda lib, x: lib.vsplit(x[0, 0], 2),
    lambda lib, x: lib.dsplit(x, 3),
    lambda lib, x: lib.split_with_sizes(x, [1, 1], 1),
    lambda lib, x: lib.unsafe_split_with_sizes(x, [1, 1], 1),
    lambda lib, x: lib.select_scatter(x, x[0], 1, 0),
    lambda lib, x: lib.slice_scatter(x, x, 1, 0, 1),
    lambda lib, x: lib.diagonal_scatter(x, x[0], 0, 1, 2),
    lambda lib, x: x[0].clone().fill_diagonal_(1) if x.dim() == 9 else
    lib.zeros(2, 3, 3).fill_diagonal_(1),
    lambda lib, x: lib.zeros(3).fill_diagonal_(1),
    lambda lib, x: x.sum_to_size(2, 2),
])
def test_slicing_errors(torch, call):
    assert_same_error(lambda lib: call(lib, lib.tensor(X)))


# ---------------------------------------------------------------- queries
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.numel(x),
    lambda lib, x: lib.is_tensor(x) and not lib.is_tensor(3),
    lambda lib, x: lib.is_floating_point(x),
    lambda lib, x: lib.is_complex(x),
    lambda lib, x: lib.is_inference(x),
    lambda lib, x: lib.is_nonzero(x[0, 0, :1]),
    lambda lib, x: x[0, 0, 1].is_nonzero(),
    lambda lib, x: lib.is_same_size(x, x[0]),
    lambda lib, x: x.is_same_size(x + 1),
    lambda lib, x: (lib.is_signed(x), x.long().is_signed(), x.byte().is_signed(),
                    x.bool().is_signed()),
    lambda lib, x: lib.clone(x),
    lambda lib, x: lib.detach(x),
    lambda lib, x: lib.detach_(x.clone()),
    lambda lib, x: lib.get_device(x),
    lambda lib, x: lib.is_anomaly_enabled(),
    lambda lib, x: lib.is_anomaly_check_nan_enabled(),
    lambda lib, x: lib.is_warn_always_enabled(),
])
def test_queries(torch, call):
    same(torch, call, X)


@pytest.mark.parametrize("call", [
    lambda lib: lib.is_nonzero(lib.ones(2)),
    lambda lib: lib.is_nonzero(lib.ones(0)),
    lambda lib: lib.numel(3),
])
def test_query_errors(torch, call):
    assert_same_error(call)


def test_flags_round_trip(torch):
    for lib in (torch, ember):
        lib.set_anomaly_enabled(True, False)
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        lib.set_anomaly_enabled(False)
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled()
        lib.set_warn_always(False)
        assert not lib.is_warn_always_enabled()


def test_native_channel_shuffle_matches_torch(torch):
    def run(lib):
        x = lib.arange(16.0).reshape(1, 4, 2, 2)
        return lib.nn.functional.native_channel_shuffle(x, 2), lib.native_channel_shuffle(x, 2)
    got, expected = run(ember), run(torch)
    for g, e in zip(got, expected):
        assert g.tolist() == e.tolist()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float16",
                                   "bfloat16", "float32"])
def test_nanmedian_of_nothing_every_dtype(torch, dtype):
    """PyTorch's median of nothing is NaN converted as C++ converts it (0 for narrow ints)."""
    def run(lib):
        return lib.nanmedian(lib.zeros(0, dtype=getattr(lib, dtype)))
    assert_same(run(ember), run(torch))
