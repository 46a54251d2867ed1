"""Catalog entries for the differentiable conversions (ember/ops/conversion.py)."""
from . import ALL_DTYPES, OpInfo, Sample, random_array

SHAPES = [(), (4,), (2, 3), (0,), (2, 0, 3), (1, 3, 2)]


def unary_samples(rng, dtype):
    for shape in SHAPES:
        yield Sample((random_array(rng, shape, dtype),), name=str(shape))


def copy_samples(rng, dtype):
    """copy_ into a fresh clone of the first input: same shape, broadcast, 0-dim source."""
    for dest, src in [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), ()), ((3, 1), (1,)),
                      ((0, 2), (2,)), ((), ())]:
        yield Sample((random_array(rng, dest, dtype), random_array(rng, src, dtype)),
                     name=f"{dest}<-{src}")


# The gradient checks run in float64, where these casts return their input itself.
SAME_TENSOR = dict(grad_fn=False)
# A float32 round trip is too coarse for finite differences at float64's tolerances.
FLOAT32_ROUND_TRIP = dict(skip={"gradcheck": "float32 precision",
                                "gradgradcheck": "float32 precision"})
# Known difference: PyTorch rounds the incoming float64 gradient to the float32 output's
# dtype before casting it back; ember does not (measured 2.5e-8 absolute, 4.6e-8 relative).
TO_FLOAT32 = dict(FLOAT32_ROUND_TRIP, grad_atol=1e-7, grad_rtol=1e-7)

OPS = [
    OpInfo("to_float64", lambda lib, x: x.to(lib.float64), unary_samples, dtypes=ALL_DTYPES,
           **SAME_TENSOR),
    OpInfo("to_float32", lambda lib, x: x.to(lib.float32), unary_samples, dtypes=ALL_DTYPES,
           **TO_FLOAT32),
    OpInfo("to_copy", lambda lib, x: x.to(x.dtype, copy=True), unary_samples),
    OpInfo("to_keywords", lambda lib, x: x.to(device="cpu", dtype=lib.float64, copy=True),
           unary_samples),
    OpInfo("double", lambda lib, x: x.double(), unary_samples, dtypes=ALL_DTYPES,
           **SAME_TENSOR),
    OpInfo("float", lambda lib, x: x.float(), unary_samples, **TO_FLOAT32),
    OpInfo("half_round_trip", lambda lib, x: x.half().double(), unary_samples, atol=1e-2,
           grad_atol=1e-2, **FLOAT32_ROUND_TRIP),
    OpInfo("type_as", lambda lib, x: x.type_as(lib.zeros(1, dtype=lib.float32)),
           unary_samples, **TO_FLOAT32),
    OpInfo("clone", lambda lib, x: x.clone(), unary_samples, dtypes=ALL_DTYPES),
    OpInfo("contiguous", lambda lib, x: (x * 1).transpose(0, -1).contiguous()
           if x.dim() else (x * 1).contiguous(), unary_samples),
    OpInfo("copy_", lambda lib, dest, src: (dest * 1).copy_(src), copy_samples),
    OpInfo("copy_", lambda lib, dest, src: dest.clone().copy_(src), copy_samples,
           dtypes=ALL_DTYPES, differentiable=False),
]
