"""Catalog entries for nn.functional's normalisation layers and losses.

Tensors that must not require grad (running statistics, class weights, pos_weight, integer
targets) go in `kwargs` or are integer arrays: the catalog makes every float argument in `args`
require grad, and PyTorch refuses gradients for class weights.
"""
import numpy as np

from . import OpInfo, Sample, random_array

REDUCTIONS = ("none", "mean", "sum")


def _f(lib):
    return lib.nn.functional


def _pair(rng, shape, dtype):
    return random_array(rng, shape, dtype), random_array(rng, shape, dtype)


# ---------------------------------------------------------------- normalisation
def _batch_norm_samples(rng, dtype):
    def stats(c):
        return {"running_mean": random_array(rng, (c,), dtype),
                "running_var": random_array(rng, (c,), dtype, 0.5, 2.0)}
    x = random_array(rng, (4, 3), dtype)
    w, b = random_array(rng, (3,), dtype), random_array(rng, (3,), dtype)
    yield Sample((x, w, b), dict(stats(3), training=True), name="2d train")
    yield Sample((random_array(rng, (3, 2, 4), dtype), None, None),
                 dict(training=True, momentum=0.3, eps=1e-3), name="3d no stats no affine")
    yield Sample((random_array(rng, (2, 3, 2, 2), dtype), random_array(rng, (3,), dtype), None),
                 dict(stats(3), training=True, momentum=0.0), name="4d weight only")
    yield Sample((random_array(rng, (2, 3, 2, 2), dtype), w, b), dict(stats(3), training=False),
                 name="4d eval")
    yield Sample((random_array(rng, (5, 2), dtype), None, random_array(rng, (2,), dtype)),
                 dict(stats(2), training=False, eps=0.1), name="2d eval bias only")


def _batch_norm(lib, x, weight, bias, running_mean=None, running_var=None, **kwargs):
    return _f(lib).batch_norm(x, running_mean, running_var, weight, bias, **kwargs)


def _layer_norm_samples(rng, dtype):
    yield Sample((random_array(rng, (4, 3), dtype), (3,), random_array(rng, (3,), dtype),
                  random_array(rng, (3,), dtype)), name="2d affine")
    yield Sample((random_array(rng, (2, 3, 2), dtype), (3, 2), random_array(rng, (3, 2), dtype),
                  None), name="two normalized dims, weight only")
    yield Sample((random_array(rng, (6,), dtype), [6], None, None), {"eps": 1e-2},
                 name="1d list shape")
    yield Sample((random_array(rng, (2, 2, 3), dtype), (2, 2, 3), None,
                  random_array(rng, (2, 2, 3), dtype)), name="all dims, bias only")
    yield Sample((random_array(rng, (0, 3), dtype), (3,), random_array(rng, (3,), dtype),
                  random_array(rng, (3,), dtype)), name="empty batch")


def _group_norm_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 4, 3), dtype), 2, random_array(rng, (4,), dtype),
                  random_array(rng, (4,), dtype)), name="3d two groups")
    yield Sample((random_array(rng, (3, 6), dtype), 3, None, None), name="2d no affine")
    yield Sample((random_array(rng, (1, 4, 2, 2), dtype), 4, random_array(rng, (4,), dtype),
                  None), {"eps": 1e-3}, name="4d group per channel")
    # (weight=None with a bias is left out: PyTorch's own backward fails on it)
    yield Sample((random_array(rng, (2, 3, 2), dtype), 1, random_array(rng, (3,), dtype), None),
                 name="one group")


def _instance_norm_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 3, 4), dtype), random_array(rng, (3,), dtype),
                  random_array(rng, (3,), dtype)), name="affine")
    yield Sample((random_array(rng, (1, 2, 2, 3), dtype), None, None), name="2d plain")


def _local_response_norm_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 4, 3), dtype), 3), name="3d size 3")
    yield Sample((random_array(rng, (1, 5, 2, 2), dtype), 2), {"alpha": 0.1, "k": 2.0},
                 name="4d size 2")
    yield Sample((random_array(rng, (1, 3, 2, 1, 2), dtype), 4), {"beta": 0.5}, name="5d")


# ---------------------------------------------------------------- regression losses
def _regression_samples(extra=({},)):
    def samples(rng, dtype):
        for options in extra:
            for reduction in REDUCTIONS:
                yield Sample(_pair(rng, (4, 3), dtype), dict(options, reduction=reduction),
                             name=f"{reduction} {options}")
        yield Sample(_pair(rng, (), dtype), dict(extra[0]), name="0-dim")
        yield Sample((random_array(rng, (2, 3), dtype), random_array(rng, (3,), dtype)),
                     dict(extra[0], reduction="sum"), name="broadcast target")
        yield Sample(_pair(rng, (0, 2), dtype), dict(extra[0], reduction="mean"), name="empty")
        yield Sample(_pair(rng, (2, 0), dtype), dict(extra[0], reduction="none"),
                     name="empty none")
    return samples


def _weighted_regression_samples(rng, dtype):
    for reduction in REDUCTIONS:
        x, y = _pair(rng, (3, 2), dtype)
        yield Sample((x, y), {"reduction": reduction,
                              "weight": random_array(rng, (3, 2), dtype, 0.5, 2.0)},
                     name=f"weighted {reduction}")


def _bce_samples(rng, dtype):
    def probabilities(shape):
        return random_array(rng, shape, dtype, 0.05, 0.95)
    for reduction in REDUCTIONS:
        yield Sample((probabilities((4, 3)), probabilities((4, 3))), {"reduction": reduction},
                     name=reduction)
    yield Sample((probabilities((3, 2)), probabilities((3, 2))),
                 {"weight": random_array(rng, (3, 2), dtype, 0.0, 2.0)}, name="weight")
    yield Sample((probabilities((2, 3)), probabilities((2, 3))),
                 {"weight": random_array(rng, (3,), dtype, 0.0, 2.0), "reduction": "sum"},
                 name="broadcast weight")
    yield Sample((probabilities(()), probabilities(())), name="0-dim")


def _bce_hard_samples(rng, dtype):
    hard = np.array([0.0, 1.0, 1.0, 0.0], dtype=dtype)
    yield Sample((random_array(rng, (4,), dtype, 0.05, 0.95), hard), {"reduction": "none"},
                 name="hard labels")


def _bce_logits_samples(rng, dtype):
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (4, 3), dtype), random_array(rng, (4, 3), dtype, 0, 1)),
                     {"reduction": reduction}, name=reduction)
    yield Sample((random_array(rng, (3, 2), dtype), random_array(rng, (3, 2), dtype, 0, 1)),
                 {"weight": random_array(rng, (3, 2), dtype, 0.0, 2.0),
                  "pos_weight": random_array(rng, (2,), dtype, 0.5, 3.0)}, name="weights")
    yield Sample((random_array(rng, (2, 3), dtype), random_array(rng, (2, 3), dtype, 0, 1)),
                 {"pos_weight": random_array(rng, (3,), dtype, 0.5, 3.0), "reduction": "none"},
                 name="pos_weight none")
    yield Sample((random_array(rng, (4,), dtype, -40, 40), random_array(rng, (4,), dtype, 0, 1)),
                 {"weight": random_array(rng, (1,), dtype, 0.5, 2.0)}, name="large logits")


def _kl_div_samples(rng, dtype):
    for reduction in REDUCTIONS + ("batchmean",):
        yield Sample((random_array(rng, (3, 4), dtype), random_array(rng, (3, 4), dtype, 0.1, 1)),
                     {"reduction": reduction}, name=reduction)
        yield Sample(_pair(rng, (2, 3), dtype), {"reduction": reduction, "log_target": True},
                     name=f"log_target {reduction}")
    yield Sample((random_array(rng, (), dtype), random_array(rng, (), dtype, 0.1, 1)),
                 {"reduction": "batchmean"}, name="0-dim batchmean")


# ---------------------------------------------------------------- classification losses
def _targets(rng, shape, classes, ignored=()):
    target = rng.integers(0, classes, size=shape).astype(np.int64)
    flat = target.reshape(-1)
    for position, value in ignored:
        flat[position] = value
    return target


def _nll_samples(rng, dtype, smoothing=False):
    """Class-index samples shared by nll_loss and cross_entropy."""
    weight = random_array(rng, (3,), dtype, 0.2, 2.0)
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (4, 3), dtype), _targets(rng, (4,), 3)),
                     {"reduction": reduction}, name=reduction)
        yield Sample((random_array(rng, (5, 3), dtype), _targets(rng, (5,), 3, [(1, -100)])),
                     {"reduction": reduction, "weight": weight}, name=f"weight ignored {reduction}")
        yield Sample((random_array(rng, (2, 3, 2, 2), dtype),
                      _targets(rng, (2, 2, 2), 3, [(3, 1)])),
                     {"reduction": reduction, "ignore_index": 1}, name=f"4d {reduction}")
        yield Sample((random_array(rng, (2, 3, 4), dtype), _targets(rng, (2, 4), 3)),
                     {"reduction": reduction, "weight": weight}, name=f"3d {reduction}")
    yield Sample((random_array(rng, (2, 3, 2, 1, 2), dtype), _targets(rng, (2, 2, 1, 2), 3)),
                 {"reduction": "none"}, name="5d none")
    yield Sample((random_array(rng, (2, 3, 2, 1, 2), dtype), _targets(rng, (2, 2, 1, 2), 3)),
                 name="5d mean")
    yield Sample((random_array(rng, (3,), dtype), np.array(2, dtype=np.int64)), name="unbatched")
    yield Sample((random_array(rng, (3,), dtype), np.array(1, dtype=np.int64)),
                 {"reduction": "none"}, name="unbatched none")
    yield Sample((random_array(rng, (3, 4), dtype), np.array([0, 3, 3]).astype(np.uint8)),
                 {"reduction": "sum"}, name="byte target")
    yield Sample((random_array(rng, (3, 2), dtype), np.full(3, -100, dtype=np.int64)),
                 name="all ignored")


def _nll_loss_samples(rng, dtype):
    yield from _nll_samples(rng, dtype)


def _cross_entropy_samples(rng, dtype):
    yield from _nll_samples(rng, dtype)
    weight = random_array(rng, (3,), dtype, 0.2, 2.0)
    for reduction in REDUCTIONS:
        yield Sample((random_array(rng, (4, 3), dtype), _targets(rng, (4,), 3, [(2, -100)])),
                     {"reduction": reduction, "label_smoothing": 0.2},
                     name=f"smoothing {reduction}")
        yield Sample((random_array(rng, (2, 3, 2), dtype), _targets(rng, (2, 2), 3, [(0, 2)])),
                     {"reduction": reduction, "label_smoothing": 0.1, "weight": weight,
                      "ignore_index": 2}, name=f"smoothing weight 3d {reduction}")
        probabilities = rng.dirichlet(np.ones(3), size=4).astype(dtype)
        yield Sample((random_array(rng, (4, 3), dtype), probabilities), {"reduction": reduction},
                     name=f"probabilities {reduction}")
        yield Sample((random_array(rng, (2, 3, 2), dtype),
                      rng.dirichlet(np.ones(3), size=(2, 2)).transpose(0, 2, 1).astype(dtype)),
                     {"reduction": reduction, "weight": weight, "label_smoothing": 0.3},
                     name=f"probabilities spatial weight smoothing {reduction}")
    yield Sample((random_array(rng, (3,), dtype), rng.dirichlet(np.ones(3)).astype(dtype)),
                 name="unbatched probabilities")
    yield Sample((random_array(rng, (3,), dtype), np.array(0, dtype=np.int64)),
                 {"label_smoothing": 0.4, "reduction": "none"}, name="unbatched smoothing")


OPS = [
    OpInfo("nn.functional.batch_norm", _batch_norm, _batch_norm_samples),
    OpInfo("nn.functional.batch_norm_half", _batch_norm, _batch_norm_samples,
           dtypes=("float16",), differentiable=False, atol=2e-2, rtol=2e-2),
    OpInfo("nn.functional.layer_norm", lambda lib, *a, **k: _f(lib).layer_norm(*a, **k),
           _layer_norm_samples),
    OpInfo("nn.functional.layer_norm_half", lambda lib, *a, **k: _f(lib).layer_norm(*a, **k),
           _layer_norm_samples, dtypes=("float16",), differentiable=False,
           atol=2e-2, rtol=2e-2),
    OpInfo("nn.functional.group_norm", lambda lib, *a, **k: _f(lib).group_norm(*a, **k),
           _group_norm_samples),
    OpInfo("nn.functional.instance_norm",
           lambda lib, x, w, b: _f(lib).instance_norm(x, weight=w, bias=b),
           _instance_norm_samples),
    OpInfo("nn.functional.local_response_norm",
           lambda lib, *a, **k: _f(lib).local_response_norm(*a, **k),
           _local_response_norm_samples),
    OpInfo("nn.functional.mse_loss", lambda lib, *a, **k: _f(lib).mse_loss(*a, **k),
           _regression_samples()),
    OpInfo("nn.functional.mse_loss_weighted", lambda lib, *a, **k: _f(lib).mse_loss(*a, **k),
           _weighted_regression_samples),
    OpInfo("nn.functional.mse_loss_half", lambda lib, *a, **k: _f(lib).mse_loss(*a, **k),
           _regression_samples(), dtypes=("float16",), differentiable=False,
           atol=1e-2, rtol=1e-2),
    OpInfo("nn.functional.l1_loss", lambda lib, *a, **k: _f(lib).l1_loss(*a, **k),
           _regression_samples()),
    OpInfo("nn.functional.l1_loss_weighted", lambda lib, *a, **k: _f(lib).l1_loss(*a, **k),
           _weighted_regression_samples),
    OpInfo("nn.functional.smooth_l1_loss", lambda lib, *a, **k: _f(lib).smooth_l1_loss(*a, **k),
           _regression_samples(({}, {"beta": 0.5}, {"beta": 2.0}, {"beta": 0.0}))),
    OpInfo("nn.functional.huber_loss", lambda lib, *a, **k: _f(lib).huber_loss(*a, **k),
           _regression_samples(({}, {"delta": 0.5}, {"delta": 2.0}))),
    OpInfo("nn.functional.huber_loss_weighted",
           lambda lib, *a, **k: _f(lib).huber_loss(*a, **k), _weighted_regression_samples),
    OpInfo("nn.functional.binary_cross_entropy",
           lambda lib, *a, **k: _f(lib).binary_cross_entropy(*a, **k), _bce_samples),
    OpInfo("nn.functional.binary_cross_entropy_hard",   # targets exactly 0 and 1
           lambda lib, *a, **k: _f(lib).binary_cross_entropy(*a, **k), _bce_hard_samples,
           skip={test: "a finite difference moves a 0/1 target outside [0, 1], which "
                       "PyTorch's gradcheck refuses too" for test in ("gradcheck",
                                                                        "gradgradcheck")}),
    OpInfo("nn.functional.binary_cross_entropy_with_logits",
           lambda lib, *a, **k: _f(lib).binary_cross_entropy_with_logits(*a, **k),
           _bce_logits_samples),
    OpInfo("nn.functional.kl_div", lambda lib, *a, **k: _f(lib).kl_div(*a, **k),
           _kl_div_samples),
    OpInfo("nn.functional.nll_loss", lambda lib, *a, **k: _f(lib).nll_loss(*a, **k),
           _nll_loss_samples),
    OpInfo("nn.functional.cross_entropy", lambda lib, *a, **k: _f(lib).cross_entropy(*a, **k),
           _cross_entropy_samples),
    OpInfo("nn.functional.cross_entropy_half",
           lambda lib, *a, **k: _f(lib).cross_entropy(*a, **k), _cross_entropy_samples,
           dtypes=("float16",), differentiable=False, atol=2e-2, rtol=2e-2),
]
