"""Core benchmarks and the shared timing helpers: ember vs PyTorch in one process.

    python bench/bench_core.py

Workloads (issue: foundation): a chain of 50 small elementwise ops plus backward
on a 16-element tensor, and 200 epochs of hand-written linear regression on 100
points. Prints one markdown row per workload: ember time, torch time, ratio.

The helpers here (`measure`, `compare`, `print_setup`, `print_header`) are shared
by every bench/bench_*.py script and by bench/run.py, the whole suite.
"""
import os
import platform
import statistics
import sys
import time

import numpy as np

import ember

try:
    import torch
except ImportError:  # pragma: no cover
    sys.exit("bench needs torch installed (pip install torch==2.13.0)")

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


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


def regression_data(rng):
    """100 noisy points on y = 2x + 1, as float32 arrays."""
    x = np.linspace(0, 1, 100, dtype=np.float32).reshape(-1, 1)
    y = (2 * x + 1 + 0.01 * rng.standard_normal(x.shape)).astype(np.float32)
    return x, y


def timeit(fn, number):
    """Seconds per call of `fn`, averaged over `number` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def measure(ember_fn, torch_fn, repeats=15, number=20):
    """Median seconds per call of each, after one warm-up call of each.

    Repeats are interleaved (ember, torch, ember, ...) so drift in machine load
    hits both libraries alike.
    """
    for fn in (ember_fn, torch_fn):
        fn()
    ember_times, torch_times = [], []
    for _ in range(repeats):
        ember_times.append(timeit(ember_fn, number))
        torch_times.append(timeit(torch_fn, number))
    return statistics.median(ember_times), statistics.median(torch_times)


def fmt_time(seconds):
    """A duration with a unit that keeps 3-4 significant digits readable."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def print_header():
    print("| workload | ember | torch | ember/torch |")
    print("|---|---:|---:|---:|")


def print_row(name, e, t):
    print(f"| {name} | {fmt_time(e)} | {fmt_time(t)} | {e / t:.2f} |", flush=True)


def compare(name, ember_fn, torch_fn, repeats=15, number=20):
    """Time both, print one markdown row, return the ember/torch ratio."""
    e, t = measure(ember_fn, torch_fn, repeats, number)
    print_row(name, e, t)
    return e / t


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas_info():
    """NumPy's BLAS library and its thread count (threadpoolctl, else env vars)."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        name = f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:  # older NumPy: no dict mode
        name = "unknown"
    try:
        from threadpoolctl import threadpool_info
        pools = [p for p in threadpool_info() if p["user_api"] == "blas"]
        threads = ", ".join(f"{p['internal_api']}: {p['num_threads']}" for p in pools)
        return name, f"{threads or 'none loaded'} (threadpoolctl)"
    except ImportError:
        env = ", ".join(f"{v}={os.environ[v]}" for v in THREAD_VARS if v in os.environ)
        return name, f"{env or 'library default (no *_NUM_THREADS set)'} (environment)"


def load_average():
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):  # not on this platform
        return "unknown"


def compiled_kernels():
    """Whether ember's optional numba kernels (the 'fast' extra) take part in this run."""
    try:
        import numba
    except ImportError:
        return "off (numba not installed: NumPy paths only)"
    return f"on (numba {numba.__version__})"


def setup_lines():
    """The machine and the thread settings both libraries run with."""
    blas, blas_threads = blas_info()
    return [
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores",
        f"- torch threads: {torch.get_num_threads()} (interop {torch.get_num_interop_threads()})",
        f"- NumPy BLAS: {blas}; threads: {blas_threads}",
        f"- versions: Python {platform.python_version()}, NumPy {np.__version__}, "
        f"torch {torch.__version__}, ember {ember.version.ember_version}",
        f"- ember's compiled kernels: {compiled_kernels()}",
        "- both libraries at their default thread settings",
        f"- load average at start: {load_average()} (other processes share the cores)",
    ]


def print_setup():
    print("\n".join(setup_lines()))


def main():
    print_setup()
    print_header()
    ex = ember.ones(16, requires_grad=True)
    tx = torch.ones(16, requires_grad=True)
    compare("50-op chain + backward (16 floats)", lambda: chain(ember, ex),
            lambda: chain(torch, tx), number=50)
    x, y = regression_data(np.random.default_rng(0))
    eX, ey, tX, ty = ember.tensor(x), ember.tensor(y), torch.tensor(x), torch.tensor(y)
    compare("linear regression, 200 epochs (100 points)",
            lambda: linear_regression(ember, eX, ey), lambda: linear_regression(torch, tX, ty),
            repeats=7, number=2)


if __name__ == "__main__":
    main()
