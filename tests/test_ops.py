"""Catalog-driven tests: every op in tests/opdb against torch and finite differences."""
import numpy as np
import pytest

import ember
from oracle import assert_same, tensors_in, to_lib, to_numpy
from opdb import all_ops

OPS = all_ops()
ids = [op.name for op in OPS]


def _run(lib, op, sample, requires_grad=False, noncontiguous=False):
    args = to_lib(lib, sample.args, requires_grad, noncontiguous)
    kwargs = {k: to_lib(lib, v) for k, v in sample.kwargs.items()}
    return args, op.op(lib, *args, **kwargs)


def _forward_cases(op):
    for dtype in op.dtypes:
        for i, sample in enumerate(op.samples(np.random.default_rng(0), dtype)):
            yield dtype, i, sample


def _skip(op, test):
    if test in op.skip:
        pytest.skip(op.skip[test])


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_forward_matches_torch(op, torch):
    _skip(op, "forward")
    for dtype, i, sample in _forward_cases(op):
        where = f"{op.name} {dtype} sample {i} {sample.name}"
        try:
            _, expected = _run(torch, op, sample)
        except Exception as torch_error:  # torch refuses: ember must refuse the same way
            with pytest.raises(type(torch_error)):
                _run(ember, op, sample)
            continue
        _, got = _run(ember, op, sample)
        assert_same(got, expected, op.atol, op.rtol, where)


@pytest.mark.parametrize("op", [o for o in OPS if o.noncontiguous], ids=lambda o: o.name)
def test_noncontiguous_inputs(op, torch):
    _skip(op, "noncontiguous")
    for dtype, i, sample in _forward_cases(op):
        try:
            _, expected = _run(torch, op, sample)
        except Exception:
            continue
        _, got = _run(ember, op, sample, noncontiguous=True)
        assert_same(got, expected, op.atol, op.rtol, f"{op.name} {dtype} sample {i} (strided)")


def _differentiable_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if hasattr(o, "grad_fn") and o.requires_grad]


@pytest.mark.parametrize("noncontiguous", [False, True], ids=["contiguous", "strided"])
@pytest.mark.parametrize("op", [o for o in OPS if o.differentiable], ids=lambda o: o.name)
def test_grads_match_torch(op, noncontiguous, torch):
    _skip(op, "grads")
    if noncontiguous and not op.noncontiguous:
        pytest.skip("op excluded from non-contiguous checks")
    rng = np.random.default_rng(1)
    for i, sample in enumerate(op.samples(np.random.default_rng(0), "float64")):
        where = f"{op.name} sample {i} {sample.name}"
        t_args, t_out = _run(torch, op, sample, requires_grad=True)
        e_args, e_out = _run(ember, op, sample, requires_grad=True, noncontiguous=noncontiguous)
        t_outs, e_outs = _differentiable_outputs(t_out), _differentiable_outputs(e_out)
        assert len(e_outs) == len(t_outs), f"{where}: differentiable outputs differ"
        if op.grad_fn and not noncontiguous:  # torch's inputs are contiguous here
            for e, t in zip(e_outs, t_outs):
                assert e.grad_fn.name() == t.grad_fn.name().replace("torch::", "ember::"), where
        if not t_outs:
            continue
        grads = [rng.standard_normal(tuple(t.shape)) for t in t_outs]
        torch.autograd.backward(t_outs, [torch.tensor(g) for g in grads])
        ember.autograd.backward(e_outs, [ember.tensor(g) for g in grads])
        for k, (e, t) in enumerate(zip(tensors_in(e_args), tensors_in(t_args))):
            if t.grad is None:
                assert e.grad is None, f"{where}: grad of input {k} should be None"
                continue
            assert e.grad is not None, f"{where}: grad of input {k} is None"
            assert_same(e.grad, t.grad, op.grad_atol, op.grad_rtol, f"{where} grad {k}")


def _gradcheck_function(op, sample, lib=ember):
    args = to_lib(lib, sample.args, requires_grad=True)
    kwargs = {k: to_lib(lib, v) for k, v in sample.kwargs.items()}
    leaves = tensors_in(args)
    leaves = [t for t in leaves if t.requires_grad]

    def rebuild(value, it):
        if isinstance(value, list):
            return [rebuild(v, it) for v in value]
        if isinstance(value, tuple):
            return tuple(rebuild(v, it) for v in value)
        if isinstance(value, ember.Tensor) and value.requires_grad:
            return next(it)
        return value

    def func(*xs):
        return op.op(lib, *rebuild(args, iter(xs)), **kwargs)
    return func, leaves


@pytest.mark.parametrize("op", [o for o in OPS if o.differentiable], ids=lambda o: o.name)
def test_gradcheck(op):
    _skip(op, "gradcheck")
    for i, sample in enumerate(op.samples(np.random.default_rng(0), "float64")):
        func, leaves = _gradcheck_function(op, sample)
        if leaves:
            assert ember.autograd.gradcheck(func, leaves, eps=1e-6, atol=1e-5, rtol=1e-3), i


@pytest.mark.parametrize("op", [o for o in OPS if o.differentiable and o.gradgrad],
                         ids=lambda o: o.name)
def test_gradgradcheck(op):
    _skip(op, "gradgradcheck")
    for i, sample in enumerate(op.samples(np.random.default_rng(0), "float64")):
        func, leaves = _gradcheck_function(op, sample)
        if leaves and _differentiable_outputs(func(*leaves)):
            assert ember.autograd.gradgradcheck(func, leaves, atol=1e-4, rtol=1e-3), i
