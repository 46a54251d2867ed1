"""`python -m ember.distributed.run`: torchrun's command line, starting the ranks with mpiexec.

    python -m ember.distributed.run --standalone --nproc-per-node 2 train.py --lr 3e-4

Each rank gets torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, ...) through mpiexec's
per-executable `-env` options, all ranks joined in one MPI job by the colon syntax
(`mpiexec -env RANK 0 -n 1 python ... : -env RANK 1 -n 1 python ...`). Ranks run as
`python -m mpi4py script`, so an uncaught exception or a non-zero `sys.exit` in one rank
aborts every rank and the job exits non-zero at once instead of hanging in MPI_Finalize.
SIGINT and SIGTERM are passed on to mpiexec, which ends every rank.

Several machines: MPI starts every rank from one command. Run the launcher once, with
`--nnodes M --hostfile hosts` (one host name per line, node 0 first); node r's ranks
are placed on the file's r-th host (Hydra's `-hosts h0:N,h1:N,...`). `--node-rank` is accepted for torchrun's command
lines but has nothing to select (all nodes are started from here).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import uuid

__all__ = ["main", "find_mpiexec", "build_command", "parse_args"]


def find_mpiexec():
    """mpiexec from the running Python's scripts folder (where pip's mpich puts it), else PATH."""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, "mpiexec")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("mpiexec was not found: install ember's distributed extra "
                           "(pip install 'ember-tensor[distributed]') or put an MPI's mpiexec "
                           "on PATH")
    return found


def _nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value == "gpu":
        raise ValueError("ember.distributed.run: --nproc-per-node gpu needs CUDA devices")
    return int(value)


def _nnodes(value):
    """torchrun's "N" or "MIN:MAX"; MPI has no elastic range, so the maximum is used."""
    return int(str(value).split(":")[-1])


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m ember.distributed.run",
                                     description="Start a training script on several "
                                                 "processes over MPI, as torchrun does.")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", default="1", type=str)
    parser.add_argument("--nnodes", default="1", type=str)
    parser.add_argument("--node-rank", "--node_rank", default=0, type=int)
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    parser.add_argument("--master-port", "--master_port", default=29500, type=int)
    parser.add_argument("--standalone", action="store_true")
    parser.add_argument("--rdzv-id", "--rdzv_id", "--rdzv-backend", "--rdzv_backend",
                        "--rdzv-endpoint", "--rdzv_endpoint", "--max-restarts",
                        "--max_restarts", "--monitor-interval", "--monitor_interval",
                        dest="ignored", default=None,
                        help="torchrun's rendezvous options: accepted, unused under MPI")
    parser.add_argument("--hostfile", default=None,
                        help="MPI host file, one host per line, for --nnodes > 1")
    parser.add_argument("-m", "--module", action="store_true")
    parser.add_argument("--no-python", "--no_python", action="store_true")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def _hosts(path, nnodes):
    with open(path) as f:
        hosts = [line.split("#")[0].split(":")[0].strip() for line in f]
    hosts = [h for h in hosts if h]
    if len(hosts) < nnodes:
        raise ValueError(f"--hostfile {path} names {len(hosts)} hosts, fewer than --nnodes "
                         f"{nnodes}")
    return hosts[:nnodes]


def _program(args):
    if args.no_python:
        return [args.training_script] + args.training_script_args
    runner = [sys.executable, "-m", "mpi4py"]
    if args.module:
        runner.append("-m")
    return runner + [args.training_script] + args.training_script_args


def build_command(args, mpiexec=None):
    """The mpiexec command line: one colon-separated segment per rank with its variables."""
    nproc = _nproc(args.nproc_per_node)
    nnodes = _nnodes(args.nnodes)
    if nnodes > 1 and args.hostfile is None:
        raise ValueError("ember.distributed.run: --nnodes > 1 needs --hostfile (MPI starts "
                         "every node's ranks from one launcher)")
    hosts = _hosts(args.hostfile, nnodes) if nnodes > 1 else None
    master_addr = hosts[0] if hosts and args.master_addr == "127.0.0.1" else args.master_addr
    world = nproc * nnodes
    command = [mpiexec or find_mpiexec()]
    if hosts:
        # Hydra's host list is global: it fills each host's slots in rank order, so node
        # r's ranks land on the r-th host.
        command += ["-hosts", ",".join(f"{host}:{nproc}" for host in hosts)]
    program = _program(args)
    for node in range(nnodes):
        for local in range(nproc):
            rank = node * nproc + local
            if rank:
                command.append(":")
            values = {"RANK": rank, "LOCAL_RANK": local, "GROUP_RANK": node,
                      "ROLE_RANK": rank, "WORLD_SIZE": world, "LOCAL_WORLD_SIZE": nproc,
                      "GROUP_WORLD_SIZE": nnodes, "ROLE_WORLD_SIZE": world,
                      "MASTER_ADDR": master_addr, "MASTER_PORT": args.master_port}
            for name, value in values.items():
                command += ["-env", name, str(value)]
            command += ["-n", "1"] + program
    return command


def _environment(args):
    env = dict(os.environ)
    env.setdefault("TORCHELASTIC_RUN_ID", args.rdzv_id if getattr(args, "rdzv_id", None)
                   else uuid.uuid4().hex if args.standalone else "none")
    env.setdefault("TORCHELASTIC_RESTART_COUNT", "0")
    env.setdefault("TORCHELASTIC_MAX_RESTARTS", "0")
    env.setdefault("ROLE_NAME", "default")
    if _nproc(args.nproc_per_node) > 1 and "OMP_NUM_THREADS" not in env:
        # torchrun's default too: one thread per rank, so the ranks don't fight for cores.
        env["OMP_NUM_THREADS"] = "1"
    return env


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    command = build_command(args)
    process = subprocess.Popen(command, env=_environment(args))

    def forward(signum, frame):
        process.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = process.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
