"""Catalog entries for nn.functional's activations (ops/nn_activation.py) and its linear,
embedding, dropout and distance ops (ops/nn_linear.py)."""
import numpy as np

from . import OpInfo, Sample, doors, random_array

UNARY_SHAPES = [(), (0,), (5,), (2, 3), (3, 1, 2), (2, 0, 3)]
INT_DTYPES = ("bool", "uint8", "int32", "int64")
DTYPES = ("float32", "float64") + INT_DTYPES


def F(lib):
    return lib.nn.functional


def _unary_samples(rng, dtype):
    for shape in UNARY_SHAPES:
        yield Sample((random_array(rng, shape, dtype, -4.0, 4.0),), name=str(shape))


def _unary(name, fn, dtypes=DTYPES, inplace=None, **kwargs):
    """An entry, a float16 forward entry and, if given, an in-place entry (on a non-leaf)."""
    entries = [
        OpInfo(name, lambda lib, x: fn(F(lib), x), _unary_samples, dtypes=dtypes, **kwargs),
        OpInfo(name + "_half", lambda lib, x: fn(F(lib), x), _unary_samples,
               dtypes=("float16",), differentiable=False, atol=1e-3, rtol=2e-3),
    ]
    if inplace is not None:
        entries.append(OpInfo(name + "_inplace", lambda lib, x: inplace(F(lib), x * 1),
                              _unary_samples, dtypes=("float32", "float64"), **kwargs))
    return entries


ACTIVATIONS = [
    ("relu", lambda F, x: F.relu(x), lambda F, x: F.relu(x, inplace=True)),
    ("relu6", lambda F, x: F.relu6(x), lambda F, x: F.relu6(x, inplace=True)),
    ("hardtanh", lambda F, x: F.hardtanh(x), lambda F, x: F.hardtanh(x, inplace=True)),
    ("hardtanh_bounds", lambda F, x: F.hardtanh(x, -2, 1.5), None),
    ("hardtanh_positive", lambda F, x: F.hardtanh(x, 0.5, 2.0), None),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2),
     lambda F, x: F.leaky_relu(x, 0.2, inplace=True)),
    ("elu", lambda F, x: F.elu(x, 0.7), lambda F, x: F.elu(x, 0.7, True)),
    ("selu", lambda F, x: F.selu(x), lambda F, x: F.selu(x, True)),
    ("celu", lambda F, x: F.celu(x, 1.5), lambda F, x: F.celu(x, 1.5, True)),
    ("gelu", lambda F, x: F.gelu(x), None),
    ("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh"), None),
    ("silu", lambda F, x: F.silu(x), lambda F, x: F.silu(x, inplace=True)),
    ("mish", lambda F, x: F.mish(x), lambda F, x: F.mish(x, inplace=True)),
    ("F.sigmoid", lambda F, x: F.sigmoid(x), None),
    ("F.tanh", lambda F, x: F.tanh(x), None),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x), lambda F, x: F.hardsigmoid(x, True)),
    ("hardswish", lambda F, x: F.hardswish(x), lambda F, x: F.hardswish(x, True)),
    ("softplus", lambda F, x: F.softplus(x), None),
    ("softplus_beta", lambda F, x: F.softplus(x, beta=2, threshold=3), None),
    ("softsign", lambda F, x: F.softsign(x), None),
    ("logsigmoid", lambda F, x: F.logsigmoid(x), None),
    ("threshold", lambda F, x: F.threshold(x, 0.5, -1.0),
     lambda F, x: F.threshold(x, 0.5, -1.0, inplace=True)),
    ("softshrink", lambda F, x: F.softshrink(x, 0.7), None),
    ("hardshrink", lambda F, x: F.hardshrink(x), None),
    ("tanhshrink", lambda F, x: F.tanhshrink(x), None),
]


def _dim_samples(rng, dtype):
    for shape, dim in [((2, 3), 1), ((2, 3), 0), ((4,), -1), ((), 0), ((2, 0), 1),
                       ((2, 2, 3), -2)]:
        yield Sample((random_array(rng, shape, dtype), dim), name=f"{shape} dim={dim}")


def _glu_samples(rng, dtype):
    for shape, dim in [((4,), -1), ((2, 4), 1), ((4, 3), 0), ((2, 2, 2), -1), ((0, 2), 1)]:
        yield Sample((random_array(rng, shape, dtype), dim), name=f"{shape} dim={dim}")


def _prelu_samples(rng, dtype):
    for shape, weight in [((2, 3), (3,)), ((2, 3, 2), (1,)), ((2, 3, 2), (3,)), ((4,), (1,)),
                          ((), (1,)), ((), ()), ((3,), ()), ((0, 3), (3,))]:
        yield Sample((random_array(rng, shape, dtype), random_array(rng, weight, dtype, 0, 1)),
                     name=f"{shape} weight {weight}")


def _linear_samples(rng, dtype):
    """(input, weight, bias) shapes covering addmm, flattened addmm and matmul paths."""
    cases = [((4, 3), (2, 3), (2,)), ((4, 3), (2, 3), None), ((3,), (2, 3), (2,)),
             ((3,), (2, 3), None), ((2, 2, 3), (2, 3), (2,)), ((2, 2, 3), (2, 3), None),
             ((3,), (3,), ()), ((2, 2, 3), (3,), ()), ((2, 1, 2, 3), (2, 3), (2,)),
             ((4, 3), (2, 3), (1,)), ((4, 3), (2, 3), (4, 2)), ((0, 3), (2, 3), (2,)),
             ((3,), (2, 3), ())]
    for x, w, b in cases:
        args = (random_array(rng, x, dtype), random_array(rng, w, dtype),
                None if b is None else random_array(rng, b, dtype))
        yield Sample(args, name=f"x{x} w{w} b{b}")


def _linear_strided_samples(rng, dtype):
    """A non-contiguous 3-D input takes the matmul + add_ path."""
    yield Sample((random_array(rng, (2, 3, 4), dtype), random_array(rng, (2, 3), dtype),
                  random_array(rng, (2,), dtype)), name="transposed")


def _bilinear_samples(rng, dtype):
    for x1, x2, w, b in [((4, 3), (4, 2), (5, 3, 2), (5,)), ((4, 3), (4, 2), (5, 3, 2), None),
                         ((2, 2, 3), (2, 2, 2), (2, 3, 2), (2,)), ((3,), (2,), (2, 3, 2), (2,))]:
        args = (random_array(rng, x1, dtype), random_array(rng, x2, dtype),
                random_array(rng, w, dtype), None if b is None else random_array(rng, b, dtype))
        yield Sample(args, name=f"{x1} {x2} w{w} b{b}")


def _embedding_samples(rng, dtype):
    for index_shape in [(3,), (2, 3), (), (0,)]:
        indices = rng.integers(0, 4, size=index_shape).astype(np.int64)
        yield Sample((indices, random_array(rng, (4, 3), dtype)), name=str(index_shape))
    yield Sample((np.array([1, 2], dtype=np.int32), random_array(rng, (4, 2), dtype)),
                 name="int32 indices")


def _grad_rule_samples(rng, dtype):
    for indices, padding_idx in [([[0, 1, 2], [1, 1, 3]], 1), ([3, 0, 3, 2, 1], -1),
                                 ([[0, 2], [0, 0]], 0)]:
        yield Sample((np.array(indices), random_array(rng, (4, 3), dtype)),
                     {"padding_idx": padding_idx}, name=f"padding_idx={padding_idx}")
    yield Sample((np.array([1, 1, 2, 1]), random_array(rng, (4, 2), dtype)),
                 {"scale_grad_by_freq": True}, name="scale_grad_by_freq")


def _normalize_samples(rng, dtype):
    for shape, p, dim in [((2, 3), 2.0, 1), ((2, 3), 1.0, 0), ((4,), 2.0, 0), ((2, 3, 2), 3.0, -1),
                          ((2, 3), float("inf"), 1), ((0, 3), 2.0, 1)]:
        yield Sample((random_array(rng, shape, dtype),), {"p": p, "dim": dim},
                     name=f"{shape} p={p} dim={dim}")


def _pair_samples(rng, dtype):
    for a, b, kwargs in [((2, 3), (2, 3), {}), ((2, 3), (3,), {}), ((4,), (4,), {"dim": 0}),
                         ((2, 3, 2), (2, 3, 2), {"dim": -1}), ((2, 3), (1, 3), {"dim": 0})]:
        yield Sample((random_array(rng, a, dtype), random_array(rng, b, dtype)), kwargs,
                     name=f"{a} {b} {kwargs}")


def _distance_samples(rng, dtype):
    for a, b, kwargs in [((2, 3), (2, 3), {}), ((2, 3), (3,), {}), ((4,), (4,), {}),
                         ((2, 3), (2, 3), {"p": 1.0, "keepdim": True}), ((), (), {}),
                         ((2, 3, 2), (2, 3, 2), {"p": 3.0})]:
        yield Sample((random_array(rng, a, dtype), random_array(rng, b, dtype)), kwargs,
                     name=f"{a} {b} {kwargs}")


def _error_samples(rng, dtype):
    """Calls torch refuses: the forward test checks that ember raises the same type."""
    r = lambda *shape: random_array(rng, shape, dtype)  # noqa: E731
    cases = [("glu", r(3), 0), ("glu", r(2, 3), -1), ("glu", r(), 0), ("glu", r(4, 2), 2),
             ("prelu", r(2, 3), r(2)), ("prelu", r(2, 3), r(1, 3)), ("prelu", r(3), r(3)),
             ("linear", r(4, 3), r(2, 4), r(2)), ("linear", r(2, 2, 3), r(2, 4)),
             ("linear", r(), r(2, 3), r(2)), ("linear", r(4, 3), r(2, 3), r(3)),
             ("linear", r(2, 3), r(3), r()), ("linear", r(2, 3), r(2, 3, 1)),
             ("bilinear", r(4, 3), r(3, 2), r(5, 3, 2)), ("bilinear", r(4, 3), r(4, 2), r(5, 2, 2)),
             ("bilinear", r(4, 3), r(4, 2), r(5, 3, 2), r(4)),
             ("bilinear", r(4, 3), r(4, 3, 2), r(5, 3, 2)),
             ("embedding", np.array([1, 5]), r(4, 2)), ("embedding", np.array([-1]), r(4, 2)),
             ("embedding", np.array([1.0]), r(4, 2)), ("embedding", np.array([1]), r(4)),
             ("cosine_similarity", r(2, 3), r(4, 3)), ("hardtanh", r(3), 1.0, -1.0),
             ("celu", r(3), 0.0), ("gelu", r(3), "tanh"),
             ("cosine_similarity", r(4), r(4)), ("dropout", r(3), 1.5),
             ("dropout1d", r(2, 3, 2, 1)), ("dropout2d", r(2)), ("dropout", r(3), -0.1)]
    for name, *args in cases:
        yield Sample(args, {"name": name}, name=name)


def _dropout_samples(rng, dtype):
    for shape in [(2, 3), (), (2, 3, 2)]:
        yield Sample((random_array(rng, shape, dtype),), name=str(shape))


# padding rows, renormalised rows and eps-clamped norms are held constant on purpose
_NOT_SMOOTH = {"gradcheck": "gradient deliberately differs from the finite difference",
               "gradgradcheck": "as gradcheck"}
OPS = [entry for name, fn, inplace in ACTIVATIONS
       for entry in _unary(name, fn, inplace=inplace)]
OPS += [
    OpInfo("F_errors", lambda lib, *args, name: getattr(F(lib), name)(*args), _error_samples,
           dtypes=("float32",), differentiable=False),
    OpInfo("F.softmax", lambda lib, x, dim: F(lib).softmax(x, dim), _dim_samples),
    OpInfo("F.softmax_dtype", lambda lib, x, dim: F(lib).softmax(x, dim, dtype=lib.float64),
           _dim_samples, dtypes=("float32",)),
    OpInfo("F.log_softmax", lambda lib, x, dim: F(lib).log_softmax(x, dim=dim), _dim_samples),
    OpInfo("softmin", lambda lib, x, dim: F(lib).softmin(x, dim), _dim_samples),
    OpInfo("glu", lambda lib, x, dim: F(lib).glu(x, dim), _glu_samples, dtypes=DTYPES),
    OpInfo("glu_half", lambda lib, x, dim: F(lib).glu(x, dim), _glu_samples, dtypes=("float16",),
           differentiable=False, atol=1e-3, rtol=2e-3),
    OpInfo("prelu", lambda lib, x, w: F(lib).prelu(x, w), _prelu_samples),
    OpInfo("linear", lambda lib, x, w, b: F(lib).linear(x, w, b), _linear_samples,
           dtypes=("float32", "float64", "int64")),
    OpInfo("linear_strided", lambda lib, x, w, b: F(lib).linear(x.transpose(1, 2), w, b),
           _linear_strided_samples),
    OpInfo("bilinear", lambda lib, x1, x2, w, b: F(lib).bilinear(x1, x2, w, b),
           _bilinear_samples),
    OpInfo("embedding", lambda lib, i, w, **kw: F(lib).embedding(i, w, **kw),
           _embedding_samples, dtypes=("float32", "float64", "float16")),
    OpInfo("embedding_max_norm", lambda lib, i, w: F(lib).embedding(i, w * 1, max_norm=1.5),
           lambda rng, dtype: (Sample((np.array([[0, 2], [2, 3]]),
                                       random_array(rng, (4, 3), dtype)), name="max_norm"),),
           skip=_NOT_SMOOTH),
    OpInfo("embedding_grad_rules", lambda lib, i, w, **kw: F(lib).embedding(i, w, **kw),
           _grad_rule_samples, skip=_NOT_SMOOTH),
    OpInfo("normalize", lambda lib, x, **kw: F(lib).normalize(x, **kw), _normalize_samples),
    OpInfo("normalize_zeros", lambda lib, x: F(lib).normalize(x),
           lambda rng, dtype: (Sample((np.zeros((2, 3), dtype),)),), skip=_NOT_SMOOTH),
    OpInfo("cosine_similarity", lambda lib, a, b, **kw: F(lib).cosine_similarity(a, b, **kw),
           _pair_samples, atol=1e-6, rtol=1e-5),
    OpInfo("pairwise_distance", lambda lib, a, b, **kw: F(lib).pairwise_distance(a, b, **kw),
           _distance_samples),
    OpInfo("dropout_eval", lambda lib, x: F(lib).dropout(x, 0.5, training=False),
           _dropout_samples, grad_fn=False),
    OpInfo("dropout_p1", lambda lib, x: F(lib).dropout(x, 1.0), _dropout_samples),
    OpInfo("dropout2d_p1", lambda lib, x: F(lib).dropout2d(x * 1, 1.0, inplace=True),
           lambda rng, dtype: (Sample((random_array(rng, (2, 3, 2, 1), dtype),)),)),
    OpInfo("alpha_dropout_p1", lambda lib, x: F(lib).alpha_dropout(x, 1.0, training=True),
           _dropout_samples),
    OpInfo("one_hot", lambda lib, x, n: F(lib).one_hot(x, n),
           lambda rng, dtype: [Sample((np.array(v, dtype=dtype), n), name=f"{v} {n}")
                               for v, n in [([1, 0, 3], -1), ([[1], [2]], 4), (2, -1),
                                            ([], 3), ([], -1), ([-1, 2], -1), ([1, 2], 2)]],
           dtypes=("int64", "int32"), differentiable=False),
]

OPS += [
    OpInfo("dropout1d_p1", lambda lib, x: F(lib).dropout1d(x * 1, 1.0, inplace=True),
           lambda rng, dtype: (Sample((random_array(rng, s, dtype),), name=str(s))
                               for s in [(2, 3, 4), (3, 4)])),
    OpInfo("dropout3d_p1", lambda lib, x: F(lib).dropout3d(x, 1.0),
           lambda rng, dtype: (Sample((random_array(rng, s, dtype),), name=str(s))
                               for s in [(1, 2, 1, 1, 2), (2, 1, 2, 2)])),
    OpInfo("feature_alpha_dropout_p1",
           lambda lib, x: F(lib).feature_alpha_dropout(x, 1.0, training=True),
           lambda rng, dtype: (Sample((random_array(rng, (2, 3, 2), dtype),)),)),
]
# the functional in-place doors: F.relu_(x) is F.relu(x, inplace=True)
OPS += doors(OPS, {
    "relu_inplace": [("F.relu_", lambda lib, x: F(lib).relu_(x * 1))],
    "hardtanh_inplace": [("F.hardtanh_", lambda lib, x: F(lib).hardtanh_(x * 1))],
    "leaky_relu_inplace": [("F.leaky_relu_", lambda lib, x: F(lib).leaky_relu_(x * 1, 0.2))],
    "elu_inplace": [("F.elu_", lambda lib, x: F(lib).elu_(x * 1, 0.7))],
    "selu_inplace": [("F.selu_", lambda lib, x: F(lib).selu_(x * 1))],
    "celu_inplace": [("F.celu_", lambda lib, x: F(lib).celu_(x * 1, 1.5))],
    "threshold_inplace": [("F.threshold_", lambda lib, x: F(lib).threshold_(x * 1, 0.5, -1.0))],
})
