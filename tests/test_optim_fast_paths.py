"""The optimizers' array kernels give exactly what their op formulas give.

Each optimizer with an array path (see ember/optim/_kernels.py) is run twice over the
same gradients: once as it chooses (the array kernels) and once with the kernels turned
off (the ember-op formulas). Parameters, state and version counters must agree bit for
bit; tests/test_optim*.py compare both with torch. (Weight decay and SGD's
momentum are left out: there the kernels round `x + alpha * y` twice where the `add`
op rounds once, see _kernels.)
"""
import numpy as np
import pytest

import ember
from ember.optim import _kernels

CONFIGS = [
    ("Adamax", {}),
    ("Adamax", dict(lr=0.01, betas=(0.3, 0.8), eps=1e-4)),
    ("Adamax", dict(maximize=True)),
    ("Adam", dict(amsgrad=True)),
]


def _run(name, kwargs, kernels, monkeypatch, dtype):
    if not kernels:
        monkeypatch.setattr(_kernels, "fast", lambda param, grad: False)
    rng = np.random.default_rng(0)
    params = [ember.nn.Parameter(ember.tensor(rng.standard_normal(s).astype(dtype)))
              for s in [(5, 4), (4,)]]
    opt = getattr(ember.optim, name)(params, **kwargs)
    for _ in range(12):
        for p in params:
            p.grad = ember.tensor(rng.standard_normal(p.shape).astype(dtype))
        opt.step()
    monkeypatch.undo()
    state = [{k: v.numpy().copy() for k, v in opt.state[p].items()
              if isinstance(v, ember.Tensor)} for p in params]
    return [p.detach().numpy().copy() for p in params], state, [p._version for p in params]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CONFIGS)
def test_array_kernels_match_op_formulas(name, kwargs, dtype, monkeypatch):
    fast = _run(name, kwargs, True, monkeypatch, dtype)
    ops = _run(name, kwargs, False, monkeypatch, dtype)
    for a, b in zip(fast[0], ops[0]):
        np.testing.assert_array_equal(a, b)
    for sa, sb in zip(fast[1], ops[1]):
        assert sa.keys() == sb.keys()
        for key in sa:
            np.testing.assert_array_equal(sa[key], sb[key])
    assert fast[2] == ops[2]
