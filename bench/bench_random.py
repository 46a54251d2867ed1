"""Random sampling benchmarks: ember vs PyTorch in one process, interleaved, median.

    python bench/bench_random.py

Workloads (issue: random numbers matching PyTorch's CPU generator): `rand` and
`randn` of 10 million float32 values, where both libraries produce the same
numbers from the same seed (target: ratio <= 1), and small calls, where the
per-call set-up dominates (`randn(8)`: target ratio <= 2; `bench/run.py
--only randn_small`; also rand, randint, normal_ and uniform_ of 8 values). Prints one line per workload: ember time, torch time, ratio.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ember  # noqa: E402
from bench_core import compare, print_header, print_setup, torch  # noqa: E402

N = 10_000_000


def main():
    print_setup()
    print_header()
    for lib in (ember, torch):
        lib.manual_seed(0)
    compare(f"rand({N:_})", lambda: ember.rand(N), lambda: torch.rand(N), repeats=7, number=3)
    compare(f"randn({N:_})", lambda: ember.randn(N), lambda: torch.randn(N), repeats=7,
            number=3)
    compare("randn(1000)", lambda: ember.randn(1000), lambda: torch.randn(1000), number=200)
    compare("randn(8)", lambda: ember.randn(8), lambda: torch.randn(8), number=500)
    compare("rand(8)", lambda: ember.rand(8), lambda: torch.rand(8), number=500)
    compare("randint(0, 10, (8,))", lambda: ember.randint(0, 10, (8,)),
            lambda: torch.randint(0, 10, (8,)), number=500)
    small = {lib: lib.empty(8) for lib in (ember, torch)}
    compare("empty(8).normal_()", lambda: small[ember].normal_(),
            lambda: small[torch].normal_(), number=500)
    compare("empty(8).uniform_()", lambda: small[ember].uniform_(),
            lambda: small[torch].uniform_(), number=500)


if __name__ == "__main__":
    main()
