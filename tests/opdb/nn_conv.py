"""Catalog entries for convolution, pooling, padding and resizing (nn.functional).

Sizes are tiny on purpose: gradcheck and gradgradcheck perturb every element.
Values come from a continuous distribution, so max-pool windows have no ties.
"""
from . import OpInfo, Sample, doors, random_array

INT_FLOAT = ("int64", "float32", "float64")
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
       "float64")


def _arrays(rng, dtype, *shapes):
    return [random_array(rng, shape, dtype) for shape in shapes]


# ---------------------------------------------------------------- convolution
def conv1d_samples(rng, dtype):
    x, w, b = _arrays(rng, dtype, (2, 2, 5), (3, 2, 3), (3,))
    yield Sample((x, w, b), name="bias")
    yield Sample((x, w), {"stride": 2, "padding": 1}, name="stride-pad")
    yield Sample((x, w), {"dilation": 2}, name="dilation")
    x4, w4 = _arrays(rng, dtype, (1, 4, 4), (4, 2, 2))
    yield Sample((x4, w4), {"groups": 2, "padding": (1,)}, name="groups")
    yield Sample((x[0], w, b), name="unbatched")
    yield Sample((x, w4[:3, :2]), {"padding": "same"}, name="same-even")
    yield Sample((x, w), {"padding": "same", "dilation": 2}, name="same-dilated")
    yield Sample((x, w), {"padding": "valid"}, name="valid")
    yield Sample((x[:0], w), name="empty-batch")


def conv2d_samples(rng, dtype):
    x, w, b = _arrays(rng, dtype, (1, 2, 3, 4), (2, 2, 2, 2), (2,))
    yield Sample((x, w, b), name="bias")
    yield Sample((x, w), {"stride": (2, 1), "padding": (1, 0)}, name="stride-pad")
    yield Sample((x, w, b), {"dilation": (1, 2), "padding": 1}, name="dilation")
    x4, w4 = _arrays(rng, dtype, (1, 4, 3, 3), (2, 2, 2, 2))
    yield Sample((x4, w4), {"groups": 2}, name="groups")
    yield Sample((x[0], w, b), name="unbatched")
    yield Sample((x, w), {"padding": "same"}, name="same")
    yield Sample((x, w, b), {"stride": 3, "padding": 1}, name="stride-skips-edge")


def conv3d_samples(rng, dtype):
    x, w, b = _arrays(rng, dtype, (1, 1, 3, 3, 2), (2, 1, 2, 2, 1), (2,))
    yield Sample((x, w, b), name="bias")
    yield Sample((x, w), {"stride": 2, "padding": (1, 0, 0)}, name="stride-pad")


def conv_transpose1d_samples(rng, dtype):
    x, w, b = _arrays(rng, dtype, (2, 2, 3), (2, 3, 3), (3,))
    yield Sample((x, w, b), name="bias")
    yield Sample((x, w), {"stride": 2, "padding": 1, "output_padding": 1}, name="stride")
    yield Sample((x, w), {"dilation": 2, "output_padding": 1}, name="dilation-out-pad")
    x4, w4 = _arrays(rng, dtype, (1, 4, 3), (4, 1, 2))
    yield Sample((x4, w4), {"groups": 2, "stride": 2}, name="groups")
    yield Sample((x[0], w, b), name="unbatched")


def conv_transpose2d_samples(rng, dtype):
    x, w, b = _arrays(rng, dtype, (1, 2, 2, 3), (2, 2, 2, 2), (2,))
    yield Sample((x, w, b), name="bias")
    yield Sample((x, w), {"stride": (2, 1), "padding": (1, 0), "output_padding": (1, 0)},
                 name="stride")
    yield Sample((x, w, b), {"dilation": 2, "stride": 2}, name="dilation")
    x4, w4 = _arrays(rng, dtype, (1, 4, 2, 2), (4, 1, 2, 2))
    yield Sample((x4, w4), {"groups": 2}, name="groups")
    yield Sample((x[0], w, b), name="unbatched")


def _conv_entry(name, samples, **kw):
    return OpInfo(name, lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k),
                  samples, dtypes=("float32", "float64", "int64", "bool"), atol=1e-4,
                  rtol=1e-4, **kw)


# ---------------------------------------------------------------- pooling
def max_pool1d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (2, 2, 5))
    yield Sample((x, 2))
    yield Sample((x, 3), {"stride": 1, "padding": 1}, name="stride-pad")
    yield Sample((x, 2), {"dilation": 2, "ceil_mode": True}, name="dilation-ceil")
    yield Sample((x[0], 2), {"stride": 2, "ceil_mode": True}, name="unbatched-ceil")


def max_pool2d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 4, 3))
    yield Sample((x, 2))
    yield Sample((x, (2, 3)), {"stride": 1, "padding": (1, 1)}, name="stride-pad")
    yield Sample((x, 2), {"dilation": (2, 1), "ceil_mode": True}, name="dilation-ceil")
    yield Sample((x, 3), {"stride": 2, "padding": 1, "ceil_mode": True}, name="ceil-pad")
    yield Sample((x[0], 2), {"stride": 1}, name="unbatched")


def max_pool3d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 1, 3, 3, 2))
    yield Sample((x, 2), {"stride": 1})
    yield Sample((x, 2), {"padding": 1, "ceil_mode": True}, name="pad-ceil")


def avg_pool1d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (2, 2, 5))
    yield Sample((x, 2))
    yield Sample((x, 3), {"stride": 2, "padding": 1}, name="pad")
    yield Sample((x, 3), {"stride": 2, "padding": 1, "count_include_pad": False}, name="no-pad")
    yield Sample((x[0], 2), {"ceil_mode": True}, name="unbatched-ceil")


def avg_pool2d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 4, 3))
    yield Sample((x, 2))
    yield Sample((x, 3), {"stride": 2, "padding": 1}, name="pad")
    yield Sample((x, 3), {"stride": 2, "padding": 1, "count_include_pad": False}, name="no-pad")
    yield Sample((x, 2), {"stride": (2, 1), "ceil_mode": True, "padding": 1}, name="ceil")
    yield Sample((x, 2), {"divisor_override": 3}, name="divisor")
    yield Sample((x[0], (2, 1)), name="unbatched")


def avg_pool3d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 1, 3, 3, 2))
    yield Sample((x, 2), {"stride": 1})
    yield Sample((x, 2), {"padding": 1, "ceil_mode": True, "count_include_pad": False})


def adaptive_1d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (2, 2, 5))
    yield Sample((x, 3))
    yield Sample((x, 1), name="one")
    yield Sample((x[0], 7), name="unbatched-up")


def adaptive_2d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 5, 3))
    yield Sample((x, 3))
    yield Sample((x, (2, None)), name="none")
    yield Sample((x, 1), name="one")
    yield Sample((x[0], (4, 2)), name="unbatched")


def lp_pool2d_samples(rng, dtype):
    x = random_array(rng, (1, 2, 4, 4), dtype, 0.5, 2.0)
    yield Sample((x, 2, 2))
    yield Sample((x, 3, (2, 1)), {"stride": 1}, name="p3")


def lp_pool1d_samples(rng, dtype):
    x = random_array(rng, (1, 2, 5), dtype, 0.5, 2.0)
    yield Sample((x, 2, 2))


def _f(name, **kwargs):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k, **kwargs)


# ---------------------------------------------------------------- padding and resizing
def pad_constant_samples(rng, dtype):
    x, = _arrays(rng, dtype, (2, 3, 2))
    yield Sample((x, (1, 2)))
    yield Sample((x, (0, 1, 2, 0)), {"value": 1}, name="value")
    yield Sample((x, (-1, 1, 1, -1)), name="negative")
    yield Sample((x, (1, 1, 0, 0, 1, 0)), name="three-dims")
    yield Sample((x[0, 0], (2, -1)), name="1d")
    yield Sample((x[0, 0, :1].reshape(()), ()), name="0-dim")


def pad_reflect_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 3, 4))
    yield Sample((x, (1, 2, 2, 0)))
    yield Sample((x[0], (3, 1)), name="3d")
    yield Sample((x[0, 0], (1, 2)), name="2d")
    yield Sample((x, (-1, 1, 1, 1)), name="negative")
    yield Sample((x[None], (1, 0, 0, 1, 1, 1)), name="5d")


def pad_replicate_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 3, 4))
    yield Sample((x, (1, 5, 2, 0)))
    yield Sample((x[0], (3, 1)), name="3d")
    yield Sample((x, (-1, 1, 1, 1)), name="negative")
    yield Sample((x[None], (1, 0, 0, 1, 1, 1)), name="5d")


def pad_circular_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 3, 4))
    yield Sample((x, (1, 2, 2, 0)))
    yield Sample((x[0], (3, 1)), name="3d")
    yield Sample((x, (-1, 1, 1, 1)), name="negative")


def interpolate_samples(rng, dtype):
    x1, = _arrays(rng, dtype, (1, 2, 3))
    x2, = _arrays(rng, dtype, (1, 1, 3, 2))
    yield Sample((x2,), {"scale_factor": 2}, name="nearest-2x")
    yield Sample((x2,), {"size": (5, 3)}, name="nearest-size")
    yield Sample((x2,), {"scale_factor": (1.7, 0.6)}, name="nearest-scale")
    yield Sample((x2,), {"scale_factor": 1.7, "recompute_scale_factor": True}, name="recompute")
    yield Sample((x1,), {"size": 7, "mode": "nearest-exact"}, name="nearest-exact")
    yield Sample((x1,), {"scale_factor": 2.5, "mode": "linear"}, name="linear")
    yield Sample((x1,), {"size": 5, "mode": "linear", "align_corners": True}, name="linear-ac")
    yield Sample((x2,), {"size": (4, 5), "mode": "bilinear"}, name="bilinear")
    yield Sample((x2,), {"scale_factor": 1.5, "mode": "bilinear", "align_corners": True},
                 name="bilinear-ac")
    yield Sample((x2,), {"size": (2, 1), "mode": "bilinear"}, name="bilinear-down")
    yield Sample((x2,), {"size": (4, 3), "mode": "bicubic"}, name="bicubic")
    yield Sample((x2,), {"scale_factor": 2, "mode": "bicubic", "align_corners": True},
                 name="bicubic-ac")
    yield Sample((x2[None],), {"size": (2, 4, 3), "mode": "trilinear"}, name="trilinear")
    yield Sample((x2,), {"size": (2, 1), "mode": "area"}, name="area")
    yield Sample((x1,), {"scale_factor": 2}, name="nearest-1d")
    yield Sample((x2[None],), {"size": (2, 4, 3)}, name="nearest-3d")
    yield Sample((x2,), {"size": (5, 3), "mode": "nearest-exact"}, name="nearest-exact-2d")
    yield Sample((x2[None],), {"size": (2, 4, 3), "mode": "nearest-exact"},
                 name="nearest-exact-3d")


def adaptive_3d_samples(rng, dtype):
    x, = _arrays(rng, dtype, (1, 2, 3, 4, 2))
    yield Sample((x, (2, 2, 1)))
    yield Sample((x[0], 1), name="unbatched")


OPS = [
    _conv_entry("conv1d", conv1d_samples),
    _conv_entry("conv2d", conv2d_samples),
    _conv_entry("conv3d", conv3d_samples),
    _conv_entry("conv_transpose1d", conv_transpose1d_samples),
    _conv_entry("conv_transpose2d", conv_transpose2d_samples),
    OpInfo("max_pool1d", _f("max_pool1d"), max_pool1d_samples, dtypes=INT_FLOAT),
    OpInfo("max_pool1d_indices", _f("max_pool1d", return_indices=True), max_pool1d_samples),
    OpInfo("max_pool2d", _f("max_pool2d"), max_pool2d_samples, dtypes=ALL),
    OpInfo("max_pool2d_indices", _f("max_pool2d", return_indices=True), max_pool2d_samples),
    OpInfo("max_pool3d", _f("max_pool3d", return_indices=True), max_pool3d_samples),
    OpInfo("avg_pool1d", _f("avg_pool1d"), avg_pool1d_samples, dtypes=INT_FLOAT),
    OpInfo("avg_pool2d", _f("avg_pool2d"), avg_pool2d_samples, dtypes=ALL),
    OpInfo("avg_pool3d", _f("avg_pool3d"), avg_pool3d_samples),
    OpInfo("adaptive_avg_pool1d", _f("adaptive_avg_pool1d"), adaptive_1d_samples,
           dtypes=INT_FLOAT),
    OpInfo("adaptive_avg_pool2d", _f("adaptive_avg_pool2d"), adaptive_2d_samples,
           dtypes=("float16", "float32", "float64")),
    OpInfo("adaptive_max_pool1d", _f("adaptive_max_pool1d", return_indices=True),
           adaptive_1d_samples),
    OpInfo("adaptive_max_pool2d", _f("adaptive_max_pool2d"), adaptive_2d_samples,
           dtypes=INT_FLOAT),
    OpInfo("adaptive_max_pool2d_indices", _f("adaptive_max_pool2d", return_indices=True),
           adaptive_2d_samples),
    OpInfo("lp_pool1d", _f("lp_pool1d"), lp_pool1d_samples),
    OpInfo("lp_pool2d", _f("lp_pool2d"), lp_pool2d_samples),
    OpInfo("pad_constant", _f("pad"), pad_constant_samples, dtypes=ALL),
    OpInfo("pad_reflect", _f("pad", mode="reflect"), pad_reflect_samples, dtypes=ALL),
    OpInfo("pad_replicate", _f("pad", mode="replicate"), pad_replicate_samples, dtypes=ALL),
    OpInfo("pad_circular", _f("pad", mode="circular"), pad_circular_samples,
           dtypes=("int64", "float32", "float64")),
    OpInfo("adaptive_avg_pool3d", _f("adaptive_avg_pool3d"), adaptive_3d_samples),
    OpInfo("adaptive_max_pool3d", _f("adaptive_max_pool3d", return_indices=True),
           adaptive_3d_samples),
    OpInfo("interpolate", _f("interpolate"), interpolate_samples,
           dtypes=("int64", "float32", "float64"), atol=1e-5, rtol=1e-5),
]


def conv_transpose3d_samples(rng, dtype):
    x, w, b = _arrays(rng, dtype, (1, 2, 3, 3, 2), (2, 3, 2, 2, 1), (3,))
    yield Sample((x, w, b), name="bias")
    yield Sample((x, w), {"stride": (2, 1, 1), "padding": (1, 0, 0),
                          "output_padding": (1, 0, 0)}, name="stride")
    yield Sample((x[0], w, b), {"dilation": (1, 2, 1)}, name="unbatched-dilation")


def upsample_samples(rng, dtype):
    """interpolate's samples but recompute_scale_factor, which the deprecated upsample lacks."""
    return (s for s in interpolate_samples(rng, dtype) if "recompute_scale_factor" not in s.kwargs)


OPS += [
    _conv_entry("conv_transpose3d", conv_transpose3d_samples),
    OpInfo("upsample", _f("upsample"), upsample_samples,
           dtypes=("float32", "float64"), atol=1e-5, rtol=1e-5,
           skip={"gradcheck": "interpolate's op, gradchecked there", "gradgradcheck": "same"}),
]
OPS += doors(OPS, {
    "max_pool1d_indices": [("max_pool1d_with_indices", _f("max_pool1d_with_indices"))],
    "max_pool2d_indices": [("max_pool2d_with_indices", _f("max_pool2d_with_indices"))],
    "max_pool3d": [("max_pool3d_with_indices", _f("max_pool3d_with_indices"))],
    "adaptive_max_pool1d": [("adaptive_max_pool1d_with_indices",
                             _f("adaptive_max_pool1d_with_indices"))],
    "adaptive_max_pool2d_indices": [("adaptive_max_pool2d_with_indices",
                                     _f("adaptive_max_pool2d_with_indices"))],
    "adaptive_max_pool3d": [("adaptive_max_pool3d_with_indices",
                             _f("adaptive_max_pool3d_with_indices"))],
})
