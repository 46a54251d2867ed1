"""Multi-core elementwise work: which mechanism, and from what size on.

    python bench/bench_parallel.py [--sizes N,N,...] [--repeats R]

Times one float32 `multiply` and one `exp` (a memory-bound and a compute-bound
ufunc) at each size with: NumPy alone (one core), ember's thread pool over NumPy's
own loops (ember/_parallel.py), numexpr and numba's parallel vectorize (each only
if installed; neither is an ember dependency). Each cell is the median of
`repeats` timings, interleaved across mechanisms so load drift hits all alike, with
the machine's load printed beside it. `same` says whether the mechanism's `exp`
equals NumPy's bit for bit: the pool's always does (it runs NumPy's loop on
slices); a different `exp` would change ember's printed values.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from ember import _parallel  # noqa: E402

SIZES = [32_768, 131_072, 262_144, 524_288, 1_048_576, 4_194_304, 10_000_000]


def mechanisms():
    """name -> (multiply(a, b), exp(a)), for what is installed."""
    found = {"numpy (1 core)": (np.multiply, np.exp),
             "ember pool": (lambda a, b: _parallel._chunked(np.multiply, (a, b), 2),
                            lambda a: _parallel._chunked(np.exp, (a,), 2))}
    try:
        import numexpr
        found["numexpr"] = (lambda a, b: numexpr.evaluate("a * b"),
                            lambda a: numexpr.evaluate("exp(a)"))
    except ImportError:
        pass
    try:
        import numba
        multiply = numba.vectorize(["float32(float32, float32)"], target="parallel")(
            lambda x, y: x * y)
        exp = numba.vectorize(["float32(float32)"], target="parallel")(lambda x: np.exp(x))
        found["numba"] = (multiply, exp)
    except ImportError:
        pass
    return found


def timed(fn, number):
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    found = mechanisms()
    rng = np.random.default_rng(0)
    print(f"cores: {os.cpu_count()}; load before: {os.getloadavg()[0]:.2f}; "
          f"median of {args.repeats}; times in microseconds per call\n")
    names = list(found)
    print("| elements | op | " + " | ".join(names) + " |")
    print("|---:|---|" + "---:|" * len(names))
    for size in map(int, args.sizes.split(",")):
        a = (rng.standard_normal(size, dtype=np.float32) * 0.1)
        b = rng.standard_normal(size, dtype=np.float32)
        number = max(1, 4_000_000 // size)
        expected = np.exp(a)
        for op in ("multiply", "exp"):
            calls = {n: (lambda f=f[0]: f(a, b)) if op == "multiply" else
                     (lambda f=f[1]: f(a)) for n, f in found.items()}
            for fn in calls.values():
                fn()
            times = {n: [] for n in names}
            for _ in range(args.repeats):
                for n in names:
                    times[n].append(timed(calls[n], number))
            cells = []
            for n in names:
                cell = f"{statistics.median(times[n]) * 1e6:.0f}"
                if op == "exp":
                    cell += " same" if np.array_equal(calls[n](), expected) else " DIFFERS"
                cells.append(cell)
            print(f"| {size:_} | {op} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
