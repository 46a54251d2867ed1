"""ember.distributed on 2 ranks: all_reduce bandwidth and DDP scaling on the benchmark MLP.

    python bench/bench_distributed.py [--repeats 15] [--steps 30]

1. all_reduce of 25 MB of float32 between 2 ranks, against mpi4py's own blocking
   `Allreduce` on the same buffer (interleaved, median of repeats): ember's nonblocking
   call with its polite wait should reach at least 90% of MPI's bandwidth.
2. The MLP 784-256-256-10 training step of bench_nn.py (SGD, batch 256 per process):
   DDP on 2 ranks with one BLAS thread each against one process with one thread.
   Per-sample speed-up = 2 x single-step time / DDP-step time (target at least 1.6x).

Needs mpiexec (pip's mpich): not part of bench/run.py's default list. The driver starts
`mpiexec -n 2` for the ranks, a separate one-thread process for the baseline, and two
such processes at once for the hardware's ceiling (2 x single / pair: what two ranks
could reach with free communication), and prints the machine's load average next to the
numbers (the machine may be shared).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FLOATS = 25_000_000 // 4
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _mlp_step_times(ember, model, batch, steps):
    """Median seconds of one training step (zero_grad, forward, loss, backward, SGD), wall
    and CPU: on a busy machine the CPU time still shows the work a step does (a DDP rank's
    includes what its waits spend polling)."""
    sys.path.insert(0, HERE)
    from bench_nn import training_step
    gen = ember.Generator().manual_seed(0)
    x = ember.randn(batch, 1, 28, 28, generator=gen)
    y = ember.randint(0, 10, (batch,), generator=gen)
    opt = ember.optim.SGD(model.parameters(), lr=0.01)
    times, cpu = [], []
    for step in range(steps + 3):
        start, start_cpu = time.perf_counter(), time.process_time()
        training_step(ember, model, opt, x, y)
        if step >= 3:                       # warm-up steps are not timed
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), statistics.median(cpu)


def rank_part(args):
    import numpy as np
    from mpi4py import MPI

    import ember
    import ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel
    sys.path.insert(0, HERE)
    from bench_nn import mlp

    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    raw = np.ones(FLOATS, np.float32)
    tensor = ember.ones(FLOATS)
    raw_times, ember_times = [], []
    for _ in range(args.repeats + 1):
        comm.Barrier()
        start = time.perf_counter()
        comm.Allreduce(MPI.IN_PLACE, raw, MPI.SUM)
        raw_times.append(time.perf_counter() - start)
        comm.Barrier()
        start = time.perf_counter()
        dist.all_reduce(tensor)
        ember_times.append(time.perf_counter() - start)
    raw_t, ember_t = statistics.median(raw_times[1:]), statistics.median(ember_times[1:])

    ember.manual_seed(0)
    model = DistributedDataParallel(mlp(ember))
    ddp_t, ddp_cpu = _mlp_step_times(ember, model, args.batch, args.steps)
    ddp_all = comm.gather((ddp_t, ddp_cpu), root=0)
    if dist.get_rank() == 0:
        print(json.dumps({"raw": raw_t, "ember": ember_t, "ddp": max(t for t, _ in ddp_all),
                          "ddp_cpu": max(c for _, c in ddp_all)}))
    dist.destroy_process_group()


def single_part(args):
    import ember
    sys.path.insert(0, HERE)
    from bench_nn import mlp
    ember.manual_seed(0)
    wall, cpu = _mlp_step_times(ember, mlp(ember), args.batch, args.steps)
    print(json.dumps({"single": wall, "single_cpu": cpu}))


def _env():
    env = dict(os.environ, **ONE_THREAD)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def _run(command):
    out = subprocess.run(command, env=_env(), capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _run_pair(command):
    """The ceiling: two independent one-thread baselines at the same time, no MPI. Two
    ranks can at best train as fast as this (they share the cores' caches and memory)."""
    both = [subprocess.Popen(command, env=_env(), stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = [p.communicate()[0] for p in both]
    return {"pair": max(json.loads(o.strip().splitlines()[-1])["single"] for o in outs)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--runs", type=int, default=3, help="whole measurements, medians taken")
    parser.add_argument("--part", choices=["ranks", "single"], default=None)
    args = parser.parse_args()
    if args.part == "ranks":
        return rank_part(args)
    if args.part == "single":
        return single_part(args)
    sys.path.insert(0, ROOT)
    from ember.distributed.run import find_mpiexec
    common = ["--repeats", str(args.repeats), "--steps", str(args.steps), "--batch",
              str(args.batch)]
    me = [sys.executable, os.path.abspath(__file__)]
    rows = []
    for _ in range(args.runs):
        load = os.getloadavg()[0]
        ranks = _run([find_mpiexec(), "-n", "2"] + me + common + ["--part", "ranks"])
        single = _run(me + common + ["--part", "single"])
        pair = _run_pair(me + common + ["--part", "single"])
        rows.append(dict(ranks, **single, **pair, load=load))
        r = rows[-1]
        print(f"run: all_reduce 25 MB ember {r['ember'] * 1e3:.2f} ms, mpi4py "
              f"{r['raw'] * 1e3:.2f} ms; MLP step DDP x2 {r['ddp'] * 1e3:.2f} ms, one "
              f"process {r['single'] * 1e3:.2f} ms, two at once {r['pair'] * 1e3:.2f} ms; CPU "
              f"per step DDP {r['ddp_cpu'] * 1e3:.2f} ms, one process "
              f"{r['single_cpu'] * 1e3:.2f} ms; load {load:.1f}", flush=True)

    def med(key):
        return statistics.median(r[key] for r in rows)
    bandwidth = med("raw") / med("ember")
    speedup = 2 * med("single") / med("ddp")
    print(f"\nmedians of {args.runs} runs (load average {min(r['load'] for r in rows):.1f}"
          f"-{max(r['load'] for r in rows):.1f} on {os.cpu_count()} cores):")
    print(f"| all_reduce 25 MB float32, 2 ranks | ember {med('ember') * 1e3:.2f} ms "
          f"({25 / med('ember') / 1e3:.2f} GB/s) | mpi4py Allreduce {med('raw') * 1e3:.2f} ms "
          f"| {bandwidth:.0%} of MPI's bandwidth (target >= 90%) |")
    print(f"| MLP 784-256-256-10 step, batch {args.batch}/rank | DDP 2 ranks x 1 thread "
          f"{med('ddp') * 1e3:.2f} ms | 1 process x 1 thread {med('single') * 1e3:.2f} ms | "
          f"{speedup:.2f}x per sample (target >= 1.6x) |")
    print(f"| the same, two independent processes at once (no MPI) | {med('pair') * 1e3:.2f} ms "
          f"| ceiling {2 * med('single') / med('pair'):.2f}x | DDP reaches "
          f"{med('pair') / med('ddp'):.0%} of it |")
    print(f"| CPU time per step (busy machines) | DDP rank {med('ddp_cpu') * 1e3:.2f} ms | one "
          f"process {med('single_cpu') * 1e3:.2f} ms | |")


if __name__ == "__main__":
    main()
