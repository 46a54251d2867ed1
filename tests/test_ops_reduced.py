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


# Gradients in the 16-bit types: the backward formulas run in the input's type, as
# PyTorch's do (a few work in float32 and round once, e.g. det). Measured the same way
# (2026-12-02): k <= 1.5 for 99% of differentiable ops; k = 2 allowed, and the ops
# measured above it get their own: grid_sample 2.3 (float16), cov 3.5 and bilinear 3.4
# (bfloat16).
GRAD_WIDER = {"grid_sample": 3, "cov": 4, "Tensor.cov": 4, "bilinear": 4}
GRAD_OPS = [op for op in OPS if op.differentiable and "grad" not in op.skip]


def _leaves(lib, value, dtype, leaves):
    if isinstance(value, (list, tuple)):
        return type(value)(_leaves(lib, v, dtype, leaves) for v in value)
    if hasattr(value, "is_floating_point") and value.is_floating_point():
        leaf = value.to(dtype).detach().requires_grad_(True)
        leaves.append(leaf)
        return leaf
    return value


def _outputs(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _outputs(item)
    elif getattr(value, "requires_grad", False) and value.is_floating_point():
        yield value


def _gradients(lib, op, sample, dtype_name):
    """Gradients of a fixed weighted sum of the outputs (weights cos(i): no cancellation
    that could hide a wrong sign), or None when the call has no differentiable output."""
    dtype, leaves = getattr(lib, dtype_name), []
    args = _leaves(lib, to_lib(lib, sample.args), dtype, leaves)
    kwargs = {k: _leaves(lib, to_lib(lib, v), dtype, leaves) for k, v in sample.kwargs.items()}
    outputs = list(_outputs(op.op(lib, *args, **kwargs)))
    if not outputs or not leaves:
        return None
    total = 0
    for k, output in enumerate(outputs):
        weights = np.cos(np.arange(output.numel()) + k).reshape(tuple(output.shape))
        total = total + (output * lib.tensor(weights.astype(np.float32)).to(dtype)).float().sum()
    return lib.autograd.grad(total, leaves, allow_unused=True)


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", GRAD_OPS, ids=[op.name for op in GRAD_OPS])
def test_reduced_precision_gradients_match_torch(op, dtype_name, torch):
    atol = rtol = GRAD_WIDER.get(op.name, 2) * EPS[dtype_name]
    for i, sample in enumerate(op.samples(np.random.default_rng(0), "float32")):
        where = f"{op.name} {dtype_name} sample {i} {sample.name} gradient"
        try:
            expected = _gradients(torch, op, sample, dtype_name)
        except Exception:  # noqa: BLE001 - the forward's refusals are compared above
            continue
        got = _gradients(ember, op, sample, dtype_name)
        if expected is None:
            assert got is None, where
            continue
        for k, (g, e) in enumerate(zip(got, expected)):
            assert (g is None) == (e is None), f"{where} [{k}]: defined in one library only"
            if e is not None and e._is_zerotensor():  # sgn's: PyTorch's lazy zeros
                e = torch.zeros_like(e)
            if e is not None:
                assert_same(g, e, atol, rtol, f"{where} [{k}]")
