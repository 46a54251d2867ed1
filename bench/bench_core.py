"""Core benchmarks: ember vs PyTorch in one process, interleaved, median of repeats.

    python bench/bench_core.py

Workloads (issue: foundation): a chain of 50 small elementwise ops plus backward
on a 16-element tensor, and 200 epochs of hand-written linear regression on 100
points. Prints one line per workload: ember time, torch time, ratio.
"""
import statistics
import sys
import time

import numpy as np

import ember

try:
    import torch
except ImportError:  # pragma: no cover
    sys.exit("bench needs torch installed (pip install torch==2.13.0)")



def chain(lib, x):
    """50 small elementwise ops, then backward: the per-op overhead workload."""
    y = x
    for i in range(25):
        y = y * 1.01
        y = y + 0.5
    y.sum().backward()
    x.grad = None


def linear_regression(lib, X, y, epochs=200, lr=0.1):
    """The tutorial's hand-written linear regression (y ~ 2x + 1)."""
    w = lib.zeros((1, 1), requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    for _ in range(epochs):
        loss = ((X @ w + b - y) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            w.grad.zero_()
            b.grad.zero_()
    return loss.item()


def timeit(fn, repeats, number):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return times


def compare(name, ember_fn, torch_fn, repeats=15, number=20):
    for fn in (ember_fn, torch_fn):  # warm-up
        fn()
    ember_times, torch_times = [], []
    for _ in range(repeats):  # interleaved, so drift hits both alike
        ember_times += timeit(ember_fn, 1, number)
        torch_times += timeit(torch_fn, 1, number)
    e, t = statistics.median(ember_times), statistics.median(torch_times)
    print(f"| {name} | {e * 1e6:.1f} us | {t * 1e6:.1f} us | {e / t:.2f} |")
    return e / t


def print_setup():
    """The thread settings both libraries run with (each at its default)."""
    print(f"torch threads: {torch.get_num_threads()}; NumPy BLAS: "
          f"{np.show_config(mode='dicts')['Build Dependencies']['blas']['name']}")


def main():
    print_setup()
    rng = np.random.default_rng(0)
    print("| workload | ember | torch | ratio |")
    print("|---|---|---|---|")
    ex = ember.ones(16, requires_grad=True)
    tx = torch.ones(16, requires_grad=True)
    compare("50-op chain + backward (16 floats)", lambda: chain(ember, ex),
            lambda: chain(torch, tx), number=50)
    x = np.linspace(0, 1, 100, dtype=np.float32).reshape(-1, 1)
    y = (2 * x + 1 + 0.01 * rng.standard_normal(x.shape)).astype(np.float32)
    eX, ey, tX, ty = ember.tensor(x), ember.tensor(y), torch.tensor(x), torch.tensor(y)
    compare("linear regression, 200 epochs (100 points)",
            lambda: linear_regression(ember, eX, ey), lambda: linear_regression(torch, tX, ty),
            repeats=7, number=2)


if __name__ == "__main__":
    main()
