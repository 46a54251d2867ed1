"""ember.autograd.functional against torch.autograd.functional."""
import numpy as np
import pytest

import ember


def cubic(lib):
    return lambda x: (x ** 3).sum()


def vector_fn(x, y):
    return x * y.exp(), (x * x).sum() + y


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)


def _np(t):
    if isinstance(t, (tuple, list)):
        return [_np(x) for x in t]
    return t.detach().numpy()


def _close(a, b):
    if isinstance(a, list):
        for x, y in zip(a, b):
            _close(x, y)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_functional_matches_torch(torch, data, name):
    a, b, v = data
    results = []
    for lib in (ember, torch):
        F = lib.autograd.functional
        x, y, t = lib.tensor(a), lib.tensor(b), lib.tensor(v)
        if name == "jacobian":
            out = F.jacobian(vector_fn, (x, y))
        elif name == "hessian":
            out = F.hessian(lambda z: (z ** 3).sum() * z[0], x)
        elif name == "vjp":
            out = F.vjp(lambda z: z.exp() * z, x, t)
        elif name == "jvp":
            out = F.jvp(lambda z: z.exp() * z, x, t)
        elif name == "hvp":
            out = F.hvp(lambda z: (z ** 3).sum(), x, t)
        else:
            out = F.vhp(lambda z: (z ** 3).sum(), x, t)
        results.append(_np(out))
    _close(results[0], results[1])


def test_hessian_vector_product_by_hand():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    v = ember.tensor([1.0, 0.5])
    y = (x ** 3).sum()
    (g,) = ember.autograd.grad(y, x, create_graph=True)
    (hv,) = ember.autograd.grad((g * v).sum(), x)
    assert hv.tolist() == [6.0, 6.0]


def test_gradient_penalty_style_double_backward():
    w = ember.tensor([0.5, -1.0], requires_grad=True)
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    out = (w * x * x).sum()
    (gx,) = ember.autograd.grad(out, x, create_graph=True)
    penalty = (gx ** 2).sum()
    penalty.backward()
    # gx = 2 w x ; penalty = sum 4 w^2 x^2 ; d/dw = 8 w x^2
    np.testing.assert_allclose(w.grad.numpy(), 8 * np.array([0.5, -1.0]) * np.array([1, 4]))
