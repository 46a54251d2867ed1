"""Catalog entries for the special functions (ember/ops/special.py) and the "other
operations" (combinatorics, differences, quantile); non-differentiable ops are
checked by hand in tests/test_ops_more.py."""
import numpy as np

from . import ALL_DTYPES, FLOAT_DTYPES, OpInfo, Sample, doors, random_array

SHAPES = [(), (4,), (2, 3), (0,), (2, 0, 3)]
# float16 results are computed in float32 by PyTorch and in float64 here, then rounded:
# a double rounding can land one half-ulp apart.
HALF = dict(atol=1e-3, rtol=1e-3)


def unary(low, high, avoid_integers=False):
    def samples(rng, dtype):
        for shape in SHAPES:
            x = random_array(rng, shape, dtype, low, high)
            if avoid_integers and dtype.startswith("float"):
                x = np.where(np.abs(x - np.round(x)) < 0.1, x + 0.3, x).astype(dtype)
            yield Sample((x,), name=str(shape))
    return samples


def _special(name, fn, low, high, dtypes=ALL_DTYPES, avoid_integers=False, **kwargs):
    kwargs = {**HALF, **kwargs} if "float16" in dtypes else kwargs
    return OpInfo(name, fn, unary(low, high, avoid_integers), dtypes=dtypes, **kwargs)


def pairs(low, high, other_low, other_high):
    def samples(rng, dtype):
        for a, b in [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((0, 3), (3,))]:
            yield Sample((random_array(rng, a, dtype, low, high),
                          random_array(rng, b, dtype, other_low, other_high)), name=f"{a}x{b}")
        yield Sample((random_array(rng, (2, 3), dtype, low, high), 2.5), name="number")
    return samples


def fixed(*cases):
    """Samples from (shapes-or-values, kwargs) cases; a shape tuple draws a random array."""
    def samples(rng, dtype):
        for args, kwargs in cases:
            built = tuple(random_array(rng, a, dtype) if isinstance(a, tuple) else a
                          for a in args)
            named = {k: random_array(rng, v, dtype) if isinstance(v, tuple) else v
                     for k, v in kwargs.items()}
            yield Sample(built, named, name=f"{args} {kwargs}")
    return samples


def distinct(rng, shape, dtype):
    size = int(np.prod(shape))
    values = (rng.permutation(size) * 0.7 + rng.uniform(-0.1, 0.1, size)) - size / 3
    return values.reshape(shape).astype(dtype)


def quantile_samples(rng, dtype):
    # inside (0, 1) and off integer ranks: gradcheck steps q, and floor/ceil of the rank jump
    q = np.array([0.1, 0.3, 0.55, 0.9], dtype)
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        yield Sample((distinct(rng, (3, 5), dtype), 0.4), {"interpolation": mode}, name=mode)
        yield Sample((distinct(rng, (3, 5), dtype), q), {"dim": 1, "interpolation": mode},
                     name=f"q tensor {mode}")
    yield Sample((distinct(rng, (2, 3, 4), dtype), 0.25), {"dim": 1, "keepdim": True})
    yield Sample((distinct(rng, (2, 3, 4), dtype), q), {"dim": -1, "keepdim": True})
    yield Sample((distinct(rng, (2, 3, 4), dtype), q), {"keepdim": True})
    yield Sample((np.array(1.5, dtype), 0.3), {"dim": 0})


def nan_quantile_samples(rng, dtype):
    yield from quantile_samples(rng, dtype)
    x = distinct(rng, (3, 5), dtype)
    x[0, 1] = x[2, :] = np.nan
    yield Sample((x, np.array([0.2, 0.9], dtype)), {"dim": 1}, name="nan rows")


def cdist_samples(rng, dtype):
    for p in (0.0, 1.0, 2.0, 3.5, float("inf")):
        yield Sample((distinct(rng, (3, 4), dtype), distinct(rng, (5, 4), dtype) / 3), {"p": p},
                     name=f"p={p}")
    yield Sample((distinct(rng, (2, 3, 2), dtype), distinct(rng, (4, 2), dtype) / 3), {},
                 name="batched")
    yield Sample((distinct(rng, (1, 2, 3), dtype), distinct(rng, (3, 1, 3), dtype) / 3),
                 {"p": 1.5}, name="broadcast batch")


def cov_samples(rng, dtype):
    yield Sample((random_array(rng, (3, 5), dtype),), {})
    yield Sample((random_array(rng, (5,), dtype),), {"correction": 0})
    yield Sample((random_array(rng, (2, 4), dtype),),
                 {"fweights": np.array([1, 2, 0, 3]), "aweights": np.array([.5, 1, 2, .2])})
    yield Sample((random_array(rng, (2, 4), dtype),), {"aweights": np.array([.5, 1, 2, .2]),
                                                        "correction": 2})


def repeat_samples(rng, dtype):
    yield Sample((random_array(rng, (2, 3), dtype), 2), {})
    yield Sample((random_array(rng, (2, 3), dtype), 3), {"dim": 1})
    yield Sample((random_array(rng, (), dtype), 2), {})
    yield Sample((random_array(rng, (3, 2), dtype), np.array([1, 0, 2])), {"dim": 0})
    yield Sample((random_array(rng, (3, 2), dtype), np.array([2])), {"dim": -1})
    yield Sample((random_array(rng, (3, 2), dtype), np.array(2)), {"dim": 0})
    yield Sample((random_array(rng, (3, 2), dtype), np.array([1, 2, 1])), {"dim": 0,
                                                                         "output_size": 4})


def take_samples(rng, dtype):
    x = random_array(rng, (3, 4), dtype)
    yield Sample((x, rng.integers(0, 12, (5,))), {})
    yield Sample((x, rng.integers(0, 4, (3, 2))), {"dim": 1})
    yield Sample((x, rng.integers(0, 3, (2, 1))), {"dim": 0})
    yield Sample((random_array(rng, (2, 1, 3), dtype), rng.integers(0, 3, (1, 4, 2))),
                 {"dim": 2})


def cross_samples(rng, dtype):
    yield Sample((random_array(rng, (4, 3), dtype), random_array(rng, (4, 3), dtype)),
                 {"dim": 1})
    yield Sample((random_array(rng, (3, 2), dtype), random_array(rng, (3, 1), dtype)),
                 {"dim": 0})
    yield Sample((random_array(rng, (2, 1, 3), dtype), random_array(rng, (1, 5, 3), dtype)),
                 {"dim": -1})


def renorm_samples(rng, dtype):
    x = random_array(rng, (3, 4), dtype)
    yield Sample((x, 2, 0, 1.5), {})
    yield Sample((x, 1, 1, 2.0), {})
    yield Sample((random_array(rng, (2, 3, 2), dtype), 3.0, -1, 1.0), {})
    yield Sample((x, float("inf"), 0, 1.0), {})


OPS = [
    # special functions
    _special("lgamma", lambda lib, x: lib.lgamma(x), -4, 6, avoid_integers=True),
    # digamma's gradient is trigamma: scipy's and PyTorch's differ by 3e-10 relative.
    _special("digamma", lambda lib, x: lib.digamma(x), -4, 6, avoid_integers=True,
             atol=1e-6, grad_rtol=1e-9, grad_atol=1e-12),
    # Known difference: at negative integers (poles) PyTorch's polygamma returns large
    # finite values (1.29e15 for n=1 at -1), scipy inf; integer samples would hit them.
    _special("polygamma_1", lambda lib, x: lib.polygamma(1, x), 0.3, 6, atol=1e-6,
             dtypes=FLOAT_DTYPES),
    _special("polygamma_3", lambda lib, x: x.polygamma(3), 0.3, 6, rtol=1e-5, atol=1e-5,
             dtypes=FLOAT_DTYPES,
             grad_rtol=1e-9, grad_atol=1e-9),
    _special("mvlgamma", lambda lib, x: lib.mvlgamma(x, 3), 1.2, 6, dtypes=FLOAT_DTYPES),
    _special("i0", lambda lib, x: lib.i0(x), -4, 4),
    _special("sinc", lambda lib, x: lib.sinc(x), -3, 3),
    _special("special.i0e", lambda lib, x: lib.special.i0e(x), -4, 4),
    _special("special.i1", lambda lib, x: lib.special.i1(x), -4, 4),
    _special("special.i1e", lambda lib, x: lib.special.i1e(x), -4, 4),
    _special("special.erfcx", lambda lib, x: lib.special.erfcx(x), -2, 5),
    _special("special.ndtri", lambda lib, x: lib.special.ndtri(x), 0.02, 0.98,
             dtypes=FLOAT_DTYPES, atol=1e-5, rtol=1e-5),
    _special("special.log_ndtr", lambda lib, x: lib.special.log_ndtr(x), -5, 3),
    _special("special.ndtr", lambda lib, x: lib.special.ndtr(x), -3, 3),
    _special("special.entr", lambda lib, x: lib.special.entr(x), 0.05, 3),
    _special("special.bessel_j0", lambda lib, x: lib.special.bessel_j0(x), -5, 5,
             differentiable=False, atol=1e-6),
    _special("special.bessel_j1", lambda lib, x: lib.special.bessel_j1(x), -5, 5,
             differentiable=False, atol=1e-6),
    OpInfo("special.xlog1py", lambda lib, x, y: lib.special.xlog1py(x, y),
           pairs(-2, 2, -0.5, 3)),
    OpInfo("special.zeta", lambda lib, x, q: lib.special.zeta(x, q), pairs(1.5, 4, 0.5, 3), differentiable=False),
    OpInfo("special.gammainc", lambda lib, a, x: lib.special.gammainc(a, x),
           pairs(0.5, 4, 0.1, 5), differentiable=False, atol=1e-6),
    OpInfo("special.gammaincc", lambda lib, a, x: lib.special.gammaincc(a, x),
           pairs(0.5, 4, 0.1, 5), differentiable=False, atol=1e-6),
    # combining and repeating
    OpInfo("repeat_interleave", lambda lib, x, r, **k: lib.repeat_interleave(x, r, **k),
           repeat_samples, dtypes=ALL_DTYPES),
    OpInfo("take_along_dim", lambda lib, x, i, **k: lib.take_along_dim(x, i, **k),
           take_samples, dtypes=ALL_DTYPES),
    OpInfo("kron", lambda lib, x, y: lib.kron(x, y),
           fixed((((2, 3), (2, 2)), {}), (((3,), (2, 1, 2)), {}), (((), (2,)), {})),
           dtypes=ALL_DTYPES),
    OpInfo("block_diag", lambda lib, *xs: lib.block_diag(*xs),
           fixed((((2, 3), (), (2,), (1, 1)), {}), (((3, 2),), {})), dtypes=ALL_DTYPES),
    OpInfo("cartesian_prod", lambda lib, *xs: lib.cartesian_prod(*xs),
           fixed((((2,), (3,)), {}), (((2,), (1,), (2,)), {})), dtypes=ALL_DTYPES),
    OpInfo("combinations", lambda lib, x, **k: lib.combinations(x, **k),
           fixed((((4,),), {}), (((4,),), {"r": 3}), (((3,),), {"with_replacement": True}),
                 (((3,),), {"r": 1})), dtypes=ALL_DTYPES),
    OpInfo("vander", lambda lib, x, **k: lib.vander(x, **k),
           fixed((((4,),), {}), (((3,),), {"N": 5, "increasing": True}), (((3,),), {"N": 1})),
           dtypes=ALL_DTYPES,
           skip={"grads": "PyTorch's own vander backward raises (it writes in place into a "
                          "saved view); ember's is gradchecked"}),
    OpInfo("cross", lambda lib, x, y, **k: lib.cross(x, y, **k), cross_samples,
           dtypes=("int64",) + FLOAT_DTYPES),
    # differences and integrals
    OpInfo("diff", lambda lib, x, **k: lib.diff(x, **k),
           fixed((((5,),), {}), (((3, 4),), {"n": 2, "dim": 0}), (((3, 4),), {"n": 6}),
                 (((3, 4),), {"prepend": (3, 1), "append": (3, 2)}),
                 (((2, 4),), {"dim": 0, "prepend": (1, 4)})), dtypes=ALL_DTYPES),
    OpInfo("trapezoid", lambda lib, y, *a, **k: lib.trapezoid(y, *a, **k),
           fixed((((3, 4),), {}), (((3, 4),), {"dx": 0.5, "dim": 0}), (((2, 4), (4,)), {}),
                 (((2, 3), (2, 3)), {"dim": 0})), dtypes=("int64",) + FLOAT_DTYPES),
    OpInfo("trapz", lambda lib, y, *a, **k: lib.trapz(y, *a, **k),
           fixed((((3, 4),), {}), (((2, 4), (4,)), {})), dtypes=FLOAT_DTYPES),
    OpInfo("cumulative_trapezoid", lambda lib, y, *a, **k: lib.cumulative_trapezoid(y, *a, **k),
           fixed((((3, 4),), {}), (((3, 4),), {"dx": 2.0, "dim": 0}), (((2, 4), (4,)), {})),
           dtypes=("int64",) + FLOAT_DTYPES),
    OpInfo("cov", lambda lib, x, **k: lib.cov(x, **k), cov_samples,
           dtypes=("int64",) + FLOAT_DTYPES),
    OpInfo("corrcoef", lambda lib, x: lib.corrcoef(x),
           fixed((((3, 5),), {}), (((4,),), {})), dtypes=("int64",) + FLOAT_DTYPES),
    OpInfo("cdist", lambda lib, x, y, **k: lib.cdist(x, y, **k), cdist_samples,
           grad_atol=1e-10, grad_rtol=1e-10),
    # order statistics and running reductions
    OpInfo("quantile", lambda lib, x, q, **k: lib.quantile(x, q, **k), quantile_samples),
    OpInfo("nanquantile", lambda lib, x, q, **k: lib.nanquantile(x, q, **k),
           nan_quantile_samples),
    OpInfo("logcumsumexp", lambda lib, x, **k: lib.logcumsumexp(x, **k),
           fixed((((5,),), {"dim": 0}), (((3, 4),), {"dim": 1}), (((),), {"dim": 0}),
                 (((2, 3),), {"dim": -2}))),
    OpInfo("renorm", lambda lib, x, *a: lib.renorm(x, *a), renorm_samples),
]

OPS += doors(OPS, {
    "lgamma": [("Tensor.lgamma", lambda lib, x: x.lgamma()),
               ("special.gammaln", lambda lib, x: lib.special.gammaln(x))],
    "digamma": [("Tensor.digamma", lambda lib, x: x.digamma()),
                ("special.psi", lambda lib, x: lib.special.psi(x)),
                ("special.digamma", lambda lib, x: lib.special.digamma(x))],
    "polygamma_1": [("special.polygamma", lambda lib, x: lib.special.polygamma(1, x))],
    "mvlgamma": [("Tensor.mvlgamma", lambda lib, x: x.mvlgamma(3)),
                 ("special.multigammaln", lambda lib, x: lib.special.multigammaln(x, 3))],
    "i0": [("Tensor.i0", lambda lib, x: x.i0()), ("special.i0", lambda lib, x: lib.special.i0(x))],
    "sinc": [("Tensor.sinc", lambda lib, x: x.sinc()),
             ("special.sinc", lambda lib, x: lib.special.sinc(x))],
    "repeat_interleave": [("Tensor.repeat_interleave",
                           lambda lib, x, r, **k: x.repeat_interleave(r, **k))],
    "take_along_dim": [("Tensor.take_along_dim", lambda lib, x, i, **k: x.take_along_dim(i, **k))],
    "kron": [("Tensor.kron", lambda lib, x, y: x.kron(y))],
    "cross": [("Tensor.cross", lambda lib, x, y, **k: x.cross(y, **k))],
    "diff": [("Tensor.diff", lambda lib, x, **k: x.diff(**k))],
    "cov": [("Tensor.cov", lambda lib, x, **k: x.cov(**k))],
    "corrcoef": [("Tensor.corrcoef", lambda lib, x: x.corrcoef())],
    "quantile": [("Tensor.quantile", lambda lib, x, q, **k: x.quantile(q, **k))],
    "nanquantile": [("Tensor.nanquantile", lambda lib, x, q, **k: x.nanquantile(q, **k))],
    "logcumsumexp": [("Tensor.logcumsumexp", lambda lib, x, **k: x.logcumsumexp(**k))],
    "renorm": [("Tensor.renorm", lambda lib, x, *a: x.renorm(*a))],
})
