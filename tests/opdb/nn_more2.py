"""Catalog entries for the nn12 functions: pdist, rms_norm, lp_pool3d, embedding_bag and
ctc_loss (nn.functional); torch.* doors where PyTorch has them."""
from . import OpInfo, Sample, doors, random_array


def _f(name, **kwargs):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k, **kwargs)


def pdist_samples(rng, dtype):
    yield Sample((random_array(rng, (5, 3), dtype),), name="p2")
    for p in (1.0, 3.0, float("inf")):
        yield Sample((random_array(rng, (4, 2), dtype), p), name=f"p{p}")


def rms_norm_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 4), dtype), [4]), name="plain")
    yield Sample((random_array(rng, (2, 3, 4), dtype), [3, 4], random_array(rng, (3, 4), dtype)),
                 {"eps": 1e-3}, name="weight")


def lp_pool3d_samples(rng, dtype):
    x = random_array(rng, (2, 2, 4, 4, 3), dtype, low=0.5, high=2.0)
    yield Sample((x, 2.0, 2), name="p2")
    yield Sample((x, 3.0, (2, 1, 2)), {"stride": 1}, name="p3-stride")


def _embedding_bag(lib, weight, per_sample_weights=None, **kwargs):
    """Index tensors are built here: only the weights are samples."""
    return lib.nn.functional.embedding_bag(lib.tensor([0, 2, 4, 1, 2, 5]), weight,
                                           lib.tensor([0, 2, 2]),
                                           per_sample_weights=per_sample_weights, **kwargs)


def embedding_bag_samples(rng, dtype):
    for mode in ("sum", "mean", "max"):
        yield Sample((random_array(rng, (6, 3), dtype),), {"mode": mode}, name=mode)
    yield Sample((random_array(rng, (6, 3), dtype), random_array(rng, (6,), dtype)),
                 {"mode": "sum", "padding_idx": 1}, name="per-sample-weights")


def _ctc(lib, logits, **kwargs):
    return lib.nn.functional.ctc_loss(logits.log_softmax(2), lib.tensor([[1, 2, 2], [1, 3, 0]]),
                                      [5, 4], [3, 2], **kwargs)


def ctc_samples(rng, dtype):
    for reduction in ("none", "mean", "sum"):
        yield Sample((random_array(rng, (5, 2, 4), dtype),), {"reduction": reduction},
                     name=reduction)


OPS = [
    OpInfo("pdist", _f("pdist"), pdist_samples),
    OpInfo("rms_norm", _f("rms_norm"), rms_norm_samples),
    OpInfo("lp_pool3d", _f("lp_pool3d"), lp_pool3d_samples),
    OpInfo("embedding_bag", _embedding_bag, embedding_bag_samples,
           skip={"gradgradcheck": "max mode's second derivative is zero almost everywhere"}),
    # PyTorch's CTC gradient is the one through the log_softmax (see ember/ops/ctc.py), and it
    # has no double backward: gradcheck goes through log_softmax, gradgrad is not defined
    OpInfo("ctc_loss", _ctc, ctc_samples, gradgrad=False),
]

OPS += doors(OPS, {
    "pdist": [("torch.pdist", lambda lib, *a, **k: lib.pdist(*a, **k))],
    "rms_norm": [("torch.rms_norm", lambda lib, *a, **k: lib.rms_norm(*a, **k))],
})
