"""The whole benchmark suite: ember vs PyTorch, side by side, in one process.

    python bench/run.py [--quick] [--only NAME ...] [--list]

For each workload both libraries run interleaved (ember, torch, ember, ...), each
timing is the median over repeats after one warm-up call, and the result is one
row of a markdown table: workload | ember | torch | ember/torch. The machine's
settings come first (CPU, cores, threads, BLAS, versions); both libraries run at
their default thread settings. The full run takes about a minute on 2 cores (--quick: about 30 s).
bench/bench_distributed.py (ember.distributed on 2 ranks) needs mpiexec and runs on its own.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import ember  # noqa: E402
from bench_core import (chain, linear_regression, measure, print_header,  # noqa: E402
                        print_row, print_setup, regression_data, torch)
from bench_nn import (conv_net, conv_numpy_step, lenet, mlp, paired, resnet_block,  # noqa: E402
                      vgg_block)
from bench_optim import optimizer_steps  # noqa: E402
from bench_seq import lm_pair  # noqa: E402
from bench_gpt import gpt_pair  # noqa: E402
from bench_transformer_ops import all_ops_pair  # noqa: E402

N = 10_000_000


def chain_pair():
    xs = [lib.ones(16, requires_grad=True) for lib in (ember, torch)]
    return [lambda lib=lib, x=x: chain(lib, x) for lib, x in zip((ember, torch), xs)]


def linreg_pair():
    x, y = regression_data(np.random.default_rng(0))
    return [lambda lib=lib, X=lib.tensor(x), Y=lib.tensor(y): linear_regression(lib, X, Y)
            for lib in (ember, torch)]


def elementwise_step(a, b, c):
    """(a*b+c).exp().sum() and its backward; grads are dropped, not accumulated."""
    (a * b + c).exp().sum().backward()
    a.grad = b.grad = c.grad = None


def elementwise_pair():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(N, dtype=np.float32) * 0.1 for _ in range(3)]
    return [lambda ts=[lib.tensor(a, requires_grad=True) for a in arrays]:
            elementwise_step(*ts) for lib in (ember, torch)]


def matmul_step(a, b, grad):
    """a @ b and its backward with a dense upstream gradient (two more matmuls)."""
    (a @ b).backward(grad)
    a.grad = b.grad = None


def matmul_pair(n=2048):
    rng = np.random.default_rng(0)
    a, b, g = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(3))
    steps = []
    for lib in (ember, torch):
        args = (lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True),
                lib.tensor(g))
        steps.append(lambda args=args: matmul_step(*args))
    return steps


def sampler_pair(name, n=N):
    for lib in (ember, torch):
        lib.manual_seed(0)
    return [lambda fn=getattr(lib, name): fn(n) for lib in (ember, torch)]


# key: (row label, builder of [ember_fn, torch_fn], repeats, calls per repeat)
WORKLOADS = {
    "chain": ("50-op chain + backward (16 floats)", chain_pair, 21, 50),
    "linreg": ("linear regression, 200 epochs (100 points)", linreg_pair, 11, 2),
    "mlp": ("MLP 784-256-256-10 training step (SGD), batch 256",
            lambda: paired(mlp, 256, np.random.default_rng(0)), 15, 10),
    "lenet": ("LeNet training step (SGD), batch 64, 28x28",
              lambda: paired(lenet, 64, np.random.default_rng(0)), 11, 5),
    "conv": ("conv training step (conv3x3 16ch, relu, maxpool2, linear), batch 64, 1x28x28",
             lambda: paired(conv_net, 64, np.random.default_rng(0)), 11, 10),
    "conv_numpy": ("the conv step in hand-written NumPy (im2col + GEMM) vs torch",
                   lambda: [conv_numpy_step(np.random.default_rng(0)),
                            paired(conv_net, 64, np.random.default_rng(0))[1]], 11, 10),
    "vgg": ("VGG block step (2x conv3x3 64ch, maxpool), batch 32, 3x32x32",
            lambda: paired(vgg_block, 32, np.random.default_rng(0), (3, 32, 32)), 7, 2),
    "resnet": ("ResNet basic block step (64ch, bn), batch 16, 64x16x16",
               lambda: paired(resnet_block, 16, np.random.default_rng(0), (64, 16, 16)), 7, 2),
    "lstm_lm": ("word LSTM LM training step (2x200, seq 35, batch 20)", lm_pair, 9, 2),
    "adam": ("Adam step over the MLP's parameters", lambda: optimizer_steps("Adam", {}), 15, 50),
    "adamw": ("AdamW step over the MLP's parameters", lambda: optimizer_steps("AdamW", {}),
              15, 50),
    "gpt": ("GPT training step (4 blocks, 128 wide, context 64, batch 16, AdamW)", gpt_pair,
            7, 2),
    "transformer_ops": ("transformer ops at the GPT step's shapes, each once fwd+bwd "
                        "(bench_transformer_ops.py)", all_ops_pair, 7, 1),
    "elementwise": (f"(a*b+c).exp().sum() fwd+bwd, {N:_} float32", elementwise_pair, 11, 1),
    "matmul": ("2048x2048 float32 matmul fwd+bwd", matmul_pair, 7, 1),
    "randn": (f"randn({N:_})", lambda: sampler_pair("randn"), 11, 2),
    "rand": (f"rand({N:_})", lambda: sampler_pair("rand"), 11, 2),
    "randn_small": ("randn(8), per call", lambda: sampler_pair("randn", 8), 11, 2000),
}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 repeats of each workload instead of 7-21")
    parser.add_argument("--only", action="append", metavar="NAME", default=[],
                        help="run only this workload (repeatable, or comma-separated); "
                             f"one of: {', '.join(WORKLOADS)}")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = parser.parse_args(argv)
    args.only = [name for names in args.only for name in names.split(",") if name]
    unknown = [name for name in args.only if name not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}; choose from "
                     f"{', '.join(WORKLOADS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for key, (label, *_) in WORKLOADS.items():
            print(f"{key:12s} {label}")
        return
    start = time.perf_counter()
    print_setup()
    print(f"- repeats: {'quick (3)' if args.quick else 'full'}; median of repeats after "
          "one warm-up call, ember and torch interleaved\n")
    print_header()
    for key in args.only or WORKLOADS:
        label, build, repeats, number = WORKLOADS[key]
        ember_fn, torch_fn = build()
        e, t = measure(ember_fn, torch_fn, 3 if args.quick else repeats, number)
        print_row(label, e, t)
    print(f"\ntotal time: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
