"""ember.nn.utils against torch.nn.utils: clipping values, warnings and errors, parameter
vectors, BatchNorm fusion and functional_call."""
import math

import numpy as np
import pytest

import ember
from oracle import assert_same
from test_surface_oracle import assert_same_outcome


def _model_with_grads(lib, grads):
    """Parameters whose .grad are the given NumPy arrays (None: no gradient)."""
    params = []
    for grad in grads:
        shape = (3,) if grad is None else grad.shape
        p = lib.nn.Parameter(lib.zeros(shape, dtype=lib.float64 if grad is not None
                                       and grad.dtype == np.float64 else lib.float32))
        if grad is not None:
            p.grad = lib.tensor(grad)
        params.append(p)
    return params


GRADS = [np.array([[0.5, -1.25, 2.0], [3.0, 0.125, -0.75]], np.float32), None,
         np.array([4.0, -0.5], np.float32), np.array([1.5, -2.5, 0.25], np.float64)]


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, math.inf, -math.inf, 0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_matches_torch(torch, norm_type, max_norm, foreach):
    results = {}
    for lib in (torch, ember):
        params = _model_with_grads(lib, GRADS)
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type, foreach=foreach)
        results[lib] = (total, [p.grad for p in params if p.grad is not None])
    assert_same(results[ember][0], results[torch][0], atol=0, rtol=1e-6)
    assert_same(results[ember][1], results[torch][1], atol=0, rtol=1e-6)


def test_clip_grad_norm_takes_a_tensor_and_generators(torch):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(4))
        p.grad = lib.full((4,), 3.0)
        total = lib.nn.utils.clip_grad_norm_(p, 1.0)
        return total.item(), p.grad.tolist(), lib.nn.utils.clip_grad_norm_(iter([]), 1.0).item()
    assert run(ember) == run(torch)
    assert_same_outcome(torch, lambda lib: lib.nn.utils.clip_grad_norm_(
        (p for p in []), 1.0))


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_error_if_nonfinite_and_nonfinite_scaling(torch, bad):
    def run(lib, error):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.tensor([1.0, bad])
        return lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=error), p.grad
    assert_same_outcome(torch, lambda lib: run(lib, True))
    assert_same_outcome(torch, lambda lib: run(lib, False))


def test_deprecated_clip_grad_norm_warns(torch):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.tensor([3.0, 4.0])
        return lib.nn.utils.clip_grad_norm(p, 1.0), p.grad
    assert_same_outcome(torch, run)


@pytest.mark.parametrize("clip", [0.3, 2, 0.0])
def test_clip_grad_value_matches_torch(torch, clip):
    results = {}
    for lib in (torch, ember):
        params = _model_with_grads(lib, GRADS + [np.array([np.nan, np.inf], np.float32)])
        assert lib.nn.utils.clip_grad_value_(params, clip) is None
        results[lib] = [p.grad for p in params if p.grad is not None]
    assert_same(results[ember], results[torch], atol=0, rtol=0)


def test_total_norm_and_clip_with_norm_halves(torch):
    results = {}
    for lib in (torch, ember):
        params = _model_with_grads(lib, GRADS)
        grads = [p.grad for p in params if p.grad is not None]
        total = lib.nn.utils.get_total_norm(grads, 3.0)
        lib.nn.utils.clip_grads_with_norm_(params, 1.0, total)
        results[lib] = (total, grads, lib.nn.utils.get_total_norm([]))
    assert_same(results[ember], results[torch], atol=0, rtol=1e-6)


def test_parameters_to_vector_and_back(torch):
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Linear(2, 1))
        vector = lib.nn.utils.parameters_to_vector(model.parameters())
        lib.nn.utils.vector_to_parameters(vector * 2, model.parameters())
        return vector, lib.nn.utils.parameters_to_vector(model.parameters()), \
            model(lib.ones(1, 3))
    got, expected = run(ember), run(torch)
    assert_same(got, expected)
    assert type(got[1].grad_fn).__name__ == type(expected[1].grad_fn).__name__
    assert_same_outcome(torch, lambda lib: lib.nn.utils.vector_to_parameters(
        [1.0], lib.nn.Linear(1, 1).parameters()))


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_matches_torch(torch, transpose):
    def run(lib):
        lib.manual_seed(1)
        conv = (lib.nn.ConvTranspose2d(3, 4, 3) if transpose else lib.nn.Conv2d(3, 4, 3)).eval()
        bn = lib.nn.BatchNorm2d(4).eval()
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.data.uniform_(0.5, 1.5)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = lib.randn(2, 3, 6, 6)
        return fused(x), bn(conv(x)), fused.weight, fused.bias
    got, expected = run(ember), run(torch)
    assert_same(got, expected, atol=1e-5)
    assert isinstance(got[2], ember.nn.Parameter)
    assert_same_outcome(torch, lambda lib: lib.nn.utils.fuse_conv_bn_eval(
        lib.nn.Conv2d(1, 1, 1), lib.nn.BatchNorm2d(1)))


def test_fuse_linear_bn_eval_matches_torch(torch):
    def run(lib):
        lib.manual_seed(2)
        linear, bn = lib.nn.Linear(3, 4).eval(), lib.nn.BatchNorm1d(4).eval()
        bn.running_mean.uniform_(-1, 1)
        x = lib.randn(5, 3)
        return lib.nn.utils.fuse_linear_bn_eval(linear, bn)(x), bn(linear(x))
    assert_same(run(ember), run(torch), atol=1e-6)
    assert_same_outcome(torch, lambda lib: lib.nn.utils.fuse_linear_bn_eval(
        lib.nn.Linear(3, 4).eval(), lib.nn.BatchNorm1d(5).eval()))


STATELESS_CASES = [
    lambda lib, m, x: lib.nn.utils.stateless.functional_call(m, {"weight": lib.zeros(2, 2)}, x),
    lambda lib, m, x: lib.nn.utils.stateless.functional_call(
        m, {"weight": lib.ones(2, 2), "bias": lib.ones(2)}, (x,)),
    lambda lib, m, x: lib.nn.utils.stateless.functional_call(
        m, {"weight": lib.zeros(2, 2)}, (x,), strict=True),
    lambda lib, m, x: lib.nn.utils.stateless.functional_call(
        m, {"weight": lib.zeros(2, 2), "bias": lib.zeros(2), "foo": lib.zeros(1)}, x, strict=True),
    lambda lib, m, x: lib.nn.utils.stateless.functional_call(
        m, {"weight": lib.zeros(2, 2)}, kwargs={"input": x}),
    lambda lib, m, x: lib.nn.utils.stateless.functional_call(m, 3, x),
]


@pytest.mark.parametrize("case", range(len(STATELESS_CASES)))
def test_functional_call_matches_torch_and_restores(torch, case):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(2, 2)
        out = STATELESS_CASES[case](lib, m, lib.ones(1, 2))
        return out, m(lib.ones(1, 2)), sorted(m.state_dict())
    assert_same_outcome(torch, run)


def test_functional_call_ties_shared_weights(torch):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        m[1].weight = m[0].weight
        return lib.nn.utils.stateless.functional_call(m, {"0.weight": lib.eye(2) * 2},
                                                      lib.ones(1, 2))
    assert_same_outcome(torch, run)


@pytest.mark.parametrize("dim", [0, 1, None, 2, -1])
def test_weight_norm_values_gradients_and_removal(torch, dim):
    def run(lib):
        lib.manual_seed(3)
        conv = lib.nn.utils.weight_norm(lib.nn.Conv1d(2, 3, 2), dim=dim)
        x = lib.randn(2, 2, 5)
        out = conv(x)
        out.square().sum().backward()
        names = [n for n, _ in conv.named_parameters()]
        grads = [conv.weight_g.grad, conv.weight_v.grad]
        lib.nn.utils.remove_weight_norm(conv)
        return out, grads, names, [n for n, _ in conv.named_parameters()], conv(x)
    got, expected = run(ember), run(torch)
    assert_same([got[0], got[1], got[4]], [expected[0], expected[1], expected[4]], atol=1e-6)
    assert got[2:4] == expected[2:4]


def test_weight_norm_errors_and_warning(torch):
    def twice(lib):
        m = lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
        return lib.nn.utils.weight_norm(m)
    assert_same_outcome(torch, twice)
    assert_same_outcome(torch, lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2)))
    assert_same_outcome(torch, lambda lib: lib.nn.utils.weight_norm(lib.nn.LazyLinear(2)))
