"""Optimizer benchmarks: ember vs PyTorch in one process, interleaved, median.

    python bench/bench_optim.py

Workloads: one `step()` of each optimizer over the parameters of the MLP
784-256-256-10 (about 270k floats in six tensors), with fixed gradients. Both
libraries at their defaults (on CPU, torch's default is the per-parameter loop,
not foreach).
"""
import numpy as np

import ember
from bench_core import compare, print_header, print_setup, torch

MLP_SHAPES = [(256, 784), (256,), (256, 256), (256,), (10, 256), (10,)]
OPTIMIZERS = [("SGD", {"lr": 0.01}), ("SGD", {"lr": 0.01, "momentum": 0.9}),
              ("Adam", {"lr": 1e-3}), ("AdamW", {"lr": 1e-3}), ("RMSprop", {}),
              ("Adagrad", {}), ("Adadelta", {})]


def optimizer_steps(name, kwargs, shapes=MLP_SHAPES, seed=0):
    """One `opt.step` per library, over the same parameters and gradients."""
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal(s) * 0.05).astype(np.float32) for s in shapes]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    steps = []
    for lib in (ember, torch):
        ps = [lib.nn.Parameter(lib.tensor(p)) for p in params]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g)
        steps.append(getattr(lib.optim, name)(ps, **kwargs).step)
    return steps


def main():
    print_setup()
    print_header()
    for name, kwargs in OPTIMIZERS:
        label = ", ".join(f"{k}={v}" for k, v in kwargs.items())
        compare(f"{name}({label}) step, MLP params", *optimizer_steps(name, kwargs),
                repeats=9, number=50)


if __name__ == "__main__":
    main()
