"""Autograd benchmarks: ember vs PyTorch in one process, interleaved, median of repeats.

    python bench/bench_autograd.py

Workloads (issue: autograd complete): forward+backward of a 2-layer MLP
(784-256-10, batch 64, cross-entropy written with log_softmax and gather), and
the 50-op chain of small elementwise ops plus backward.
"""
import numpy as np

import ember
from bench_core import chain, compare, print_header, print_setup, torch


def mlp_step(lib, params, x, y):
    """One forward+backward pass of the MLP; gradients are reset afterwards."""
    w1, b1, w2, b2 = params
    hidden = (x @ w1.t() + b1).relu()
    logits = hidden @ w2.t() + b2
    loss = -logits.log_softmax(1).gather(1, y).mean()
    loss.backward()
    for p in params:
        p.grad = None
    return loss


def mlp_params(lib, rng):
    arrays = [rng.standard_normal((256, 784)) * 0.03, np.zeros(256),
              rng.standard_normal((10, 256)) * 0.06, np.zeros(10)]
    return [lib.tensor(a.astype(np.float32), requires_grad=True) for a in arrays]


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 784)).astype(np.float32)
    y = rng.integers(0, 10, (64, 1))
    e_params, t_params = mlp_params(ember, np.random.default_rng(1)), mlp_params(
        torch, np.random.default_rng(1))
    ex, ey, tx, ty = ember.tensor(x), ember.tensor(y), torch.tensor(x), torch.tensor(y)
    print_setup()
    print_header()
    compare("MLP 784-256-10 forward+backward, batch 64",
            lambda: mlp_step(ember, e_params, ex, ey), lambda: mlp_step(torch, t_params, tx, ty),
            repeats=15, number=20)
    e_chain, t_chain = ember.ones(16, requires_grad=True), torch.ones(16, requires_grad=True)
    compare("50-op chain + backward (16 floats)", lambda: chain(ember, e_chain),
            lambda: chain(torch, t_chain), number=50)


if __name__ == "__main__":
    main()
