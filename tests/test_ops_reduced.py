"""Every catalog op in float16 and bfloat16 against torch.

The catalog (tests/opdb) compares ops in the dtypes each entry lists, mostly float32
and float64. PyTorch's CPU kernels also take float16 and bfloat16 nearly everywhere,
and ember stores bfloat16 in ml_dtypes' type, which NumPy does not count as floating
(`dtype.kind` is 'V'): a kernel that asks NumPy instead of ember's dtype tables
refuses or mangles it. Here each entry's float32 samples run again with their
floating tensors cast to the 16-bit type: the same refusal (exception type) as torch,
or the same dtype and shape and values within the 16-bit type's rounding.
"""
import numpy as np
import pytest

import ember
from oracle import assert_same, to_lib
from opdb import all_ops

# Where ember deliberately differs: PyTorch 2.13's CPU matrix_exp in float16/bfloat16 gives
# garbage (about -2.1e4 where the answer is 1.1, for a 3x3 matrix of entries below 0.3, and
# inf/nan beyond); ember evaluates it in float32 and rounds once.
DIFFERS = {"linalg.matrix_exp", "matrix_exp", "Tensor.matrix_exp"}

OPS = [op for op in all_ops() if "float32" in op.dtypes and "forward" not in op.skip
       and op.name not in DIFFERS]

# Rounding to the 16-bit type at each step, in another order than PyTorch's kernels.
# Measured (2026-12-02, every op and sample): |ember - torch| <= k * eps * (1 + |torch|)
# with k <= 1 for 99% of ops in both types (eps = 2**-10 for float16, 2**-7 for
# bfloat16); the tolerance allows k = 2. The ops measured above that accumulate long
# sums in another order, and get their own k: conv_transpose3d 7.4 (float16), addbmm
# 2.3 (float16) and 3.2 (bfloat16).
EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}
WIDER = {"conv_transpose3d": 8, "addbmm": 4, "Tensor.addbmm": 4}


def _cast(lib, value, dtype):
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(lib, v, dtype) for v in value)
    if hasattr(value, "is_floating_point") and value.is_floating_point():
        return value.to(dtype)
    return value


def _run(lib, op, sample, dtype_name):
    dtype = getattr(lib, dtype_name)
    args = _cast(lib, to_lib(lib, sample.args), dtype)
    kwargs = {k: _cast(lib, to_lib(lib, v), dtype) for k, v in sample.kwargs.items()}
    return op.op(lib, *args, **kwargs)


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_reduced_precision_matches_torch(op, dtype_name, torch):
    atol = rtol = WIDER.get(op.name, 2) * EPS[dtype_name]
    for i, sample in enumerate(op.samples(np.random.default_rng(0), "float32")):
        where = f"{op.name} {dtype_name} sample {i} {sample.name}"
        try:
            expected = _run(torch, op, sample, dtype_name)
        except Exception as torch_error:  # noqa: BLE001 - torch refuses: so must ember
            with pytest.raises(type(torch_error)):
                _run(ember, op, sample, dtype_name)
            continue
        got = _run(ember, op, sample, dtype_name)
        assert_same(got, expected, atol, rtol, where)
