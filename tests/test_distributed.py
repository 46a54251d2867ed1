"""ember.distributed on 2 ranks over loopback MPI: collectives, DDP, launcher, failures.

Each multi-rank check runs a script from tests/dist_scripts/ under the launcher (or plain
mpiexec); every rank writes its own JSON file (MPI interleaves the ranks' stdout), and the
test reads them. Where torch is installed the same collectives script runs under torchrun
with gloo and must record the same values and error texts, and the example script must
print the same losses under both launchers.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

import ember
import ember.distributed as dist
from ember.distributed import run as launcher

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None,
                                reason="mpi4py is not installed")

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "dist_scripts"
_MPI_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK",
             "OMPI_COMM_WORLD_SIZE", "TORCHELASTIC_RUN_ID")


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in _MPI_VARS}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["OMP_NUM_THREADS"] = "1"
    env.update(extra)
    return env


def _launch(script, *args, torchrun=False, mpiexec=False, timeout=180, **env):
    if torchrun:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                   "--nproc-per-node", "2"]
    elif mpiexec:
        command = [launcher.find_mpiexec(), "-n", "2", sys.executable]
    else:
        command = [sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2"]
    return subprocess.run(command + [str(script)] + [str(a) for a in args], env=_env(**env),
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def _ranks(folder, result):
    found = [folder / f"rank{r}.json" for r in range(2)]
    assert all(f.exists() for f in found), result.stdout + result.stderr
    return [json.loads(f.read_text()) for f in found]


@pytest.fixture(scope="module")
def ember_collectives(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ember_collectives")
    result = _launch(SCRIPTS / "collectives.py", folder)
    assert result.returncode == 0, result.stderr
    return _ranks(folder, result)


def test_every_collective_matches_a_single_process_reference(ember_collectives):
    for rank in ember_collectives:
        assert rank["failures"] == []


def test_collectives_record_what_torch_gloo_records(ember_collectives, torch, tmp_path):
    result = _launch(SCRIPTS / "collectives.py", tmp_path, torchrun=True, EMBER_TEST_LIB="torch")
    theirs = _ranks(tmp_path, result)
    for mine, reference in zip(ember_collectives, theirs):
        assert reference["failures"] == []
        expected = json.loads(json.dumps(reference["record"]).replace("torch.", "ember."))
        assert mine["record"] == expected


def test_ddp_matches_full_batch_training_no_sync_unused_and_syncbn(tmp_path):
    result = _launch(SCRIPTS / "ddp.py", tmp_path)
    assert result.returncode == 0, result.stderr
    for rank in _ranks(tmp_path, result):
        assert rank["failures"] == []


@pytest.mark.parametrize("how,args,code", [("launcher", (), 1), ("launcher", (3,), 3),
                                           ("mpiexec", (), 1)])
def test_a_failing_rank_ends_the_whole_job_promptly(how, args, code):
    start = time.perf_counter()
    result = _launch(SCRIPTS / "fail.py", *args, mpiexec=how == "mpiexec", timeout=60)
    elapsed = time.perf_counter() - start
    assert result.returncode == code, result.stderr
    if not args:
        assert "rank 1 failed on purpose" in result.stderr
    assert elapsed < 30     # rank 0 would otherwise wait 60 s in its barrier and sleep


def test_a_rank_that_exits_under_plain_mpiexec_ends_a_waiting_peer_promptly(tmp_path):
    # No launcher, so no `python -m mpi4py`: rank 1's sys.exit(3) runs ember's exit notice,
    # and rank 0, waiting in all_reduce, raises (as gloo's "Connection closed by peer").
    start = time.perf_counter()
    result = _launch(SCRIPTS / "departures.py", "exit", tmp_path, mpiexec=True, timeout=60)
    assert result.returncode != 0
    assert "RuntimeError: Connection closed by peer: rank 1 left the job" in result.stderr
    assert time.perf_counter() - start < 20     # rank 0 would otherwise sleep 60 s


def test_ranks_that_finish_at_different_times_exit_cleanly(tmp_path):
    # Rank 1 completes an all_reduce and leaves before rank 0 has waited for its own part;
    # rank 0 then leaves with a barrier it started and never finished.
    result = _launch(SCRIPTS / "departures.py", "uneven", tmp_path, mpiexec=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert json.loads((tmp_path / "rank0.json").read_text()) == {"sum": [4.0, 4.0, 4.0]}


def test_a_wait_past_the_groups_timeout_raises_torchs_error(torch, tmp_path):
    ours = _launch(SCRIPTS / "departures.py", "timeout", tmp_path, mpiexec=True, timeout=60)
    assert ours.returncode == 0, ours.stderr
    mine = json.loads((tmp_path / "rank0.json").read_text())
    theirs_dir = tmp_path / "torch"
    theirs_dir.mkdir()
    result = _launch(SCRIPTS / "departures.py", "timeout", theirs_dir, torchrun=True,
                     timeout=60, EMBER_TEST_LIB="torch")
    assert result.returncode == 0, result.stderr
    theirs = json.loads((theirs_dir / "rank0.json").read_text())
    # gloo's text starts with its source file's path: "[.../unbound_buffer.cc:78] Timed out..."
    assert mine["error"][0] == theirs["error"][0] == "RuntimeError"
    assert theirs["error"][1].endswith("] " + mine["error"][1])
    # gloo's next call usually finds the pair closed; on a loaded machine it sometimes
    # times out again first (seen at load 29).
    assert mine["next"] == ["RuntimeError", "Application timeout caused pair closure"]
    assert theirs["next"] == mine["next"] or "Timed out waiting" in theirs["next"][1]
    assert 2.0 <= mine["seconds"] < 3.5


def test_example_prints_the_same_losses_as_under_torchrun(torch):
    example = ROOT / "examples" / "ddp_train.py"
    ours = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--standalone",
                           "--nproc-per-node", "2", str(example), "--steps", "5"],
                          env=_env(), capture_output=True, text=True, timeout=180, cwd=ROOT)
    theirs = _launch(example, "--steps", "5", "--torch", torchrun=True)
    if theirs.returncode != 0 and "terminate called without an active exception" in theirs.stderr:
        # torch's gloo sometimes aborts a rank at exit on a loaded machine (seen once in a
        # full run): the oracle's flake, not ember's; its one retry is the reference
        theirs = _launch(example, "--steps", "5", "--torch", torchrun=True)
    assert ours.returncode == 0 and theirs.returncode == 0, ours.stderr + theirs.stderr

    def losses(out):
        return [float(line.split()[-1]) for line in out.splitlines() if line.startswith("step")]
    mine, reference = losses(ours.stdout), losses(theirs.stdout)
    assert len(mine) == 5 and mine == pytest.approx(reference, abs=2e-5)


def test_distributed_sampler_order_matches_torch(torch):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    from ember.utils.data.distributed import DistributedSampler
    for size in (0, 1, 7, 10, 33):
        for replicas in (1, 2, 3, 4):
            for drop_last in (False, True):
                for shuffle in (True, False):
                    for rank in range(replicas):
                        mine = DistributedSampler(range(size), replicas, rank, shuffle, 11,
                                                  drop_last)
                        theirs = TorchSampler(range(size), replicas, rank, shuffle, 11,
                                              drop_last)
                        mine.set_epoch(3)
                        theirs.set_epoch(3)
                        assert list(mine) == list(theirs)
                        assert len(mine) == len(theirs)
                        assert mine.total_size == theirs.total_size
    for call in (lambda lib: lib(range(4), 2, 2), lambda lib: lib(range(4), 2, -1),
                 lambda lib: lib(range(4))):
        with pytest.raises(Exception) as theirs:
            call(TorchSampler)
        with pytest.raises(type(theirs.value)) as mine:
            call(DistributedSampler)
        assert str(mine.value) == str(theirs.value)


def test_without_a_group_every_call_raises_torchs_error(torch, monkeypatch):
    for name in _MPI_VARS:
        monkeypatch.delenv(name, raising=False)
    for lib in (dist, torch.distributed):
        assert lib.is_initialized() is False
    calls = [lambda d, lib: d.get_rank(), lambda d, lib: d.get_world_size(),
             lambda d, lib: d.barrier(), lambda d, lib: d.all_reduce(lib.ones(2)),
             lambda d, lib: d.broadcast(lib.ones(2), 0), lambda d, lib: d.new_group([0]),
             lambda d, lib: d.init_process_group("gloo")]
    for call in calls:
        with pytest.raises(Exception) as theirs:
            call(torch.distributed, torch)
        with pytest.raises(type(theirs.value)) as mine:
            call(dist, ember)
        assert str(mine.value) == str(theirs.value)
    monkeypatch.setenv("RANK", "0")
    with pytest.raises(ValueError) as theirs:
        torch.distributed.init_process_group("gloo")
    with pytest.raises(ValueError) as mine:
        dist.init_process_group("gloo")
    assert str(mine.value) == str(theirs.value)


def test_reduce_ops_backends_and_availability_read_as_torch(torch):
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(torch.distributed.ReduceOp, name)
        assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
    for name in ("GLOO", "nccl", "Mpi"):
        assert dist.Backend(name) == torch.distributed.Backend(name)
    assert dist.is_available() and dist.is_mpi_available()
    assert dist.is_torchelastic_launched() == torch.distributed.is_torchelastic_launched()


def test_importing_ember_neither_starts_mpi_nor_needs_mpi4py():
    code = ("import sys; import ember, ember.distributed as d; "
            "assert d.is_available() and 'mpi4py' not in sys.modules; "
            "sys.modules['mpi4py'] = None; import importlib; "
            "assert not d.is_available(); print('ok')")
    result = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True,
                            text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr


def test_one_process_group_without_a_launcher():
    code = ("import ember, ember.distributed as d; d.init_process_group('mpi'); "
            "t = ember.ones(3); d.all_reduce(t); "
            "print(d.get_rank(), d.get_world_size(), d.get_backend(), t.tolist())")
    result = subprocess.run([sys.executable, "-c", code], env=_env(RANK="0", WORLD_SIZE="1"),
                            capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "0 1 mpi [1.0, 1.0, 1.0]", result.stderr


def test_launcher_command_line_sets_torchruns_variables_per_rank(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("alpha\nbeta:4  # a comment\n")
    args = launcher.parse_args(["--nnodes", "2", "--nproc_per_node", "2", "--hostfile",
                                str(hosts), "--master-port", "1234", "train.py", "--lr", "1"])
    command = launcher.build_command(args, mpiexec="mpiexec")
    segments = " ".join(command[1:]).split(" : ")
    assert len(segments) == 4
    last = segments[3].split()
    values = {last[i + 1]: last[i + 2] for i, word in enumerate(last) if word == "-env"}
    assert values["RANK"] == "3" and values["LOCAL_RANK"] == "1" and values["GROUP_RANK"] == "1"
    assert values["WORLD_SIZE"] == "4" and values["LOCAL_WORLD_SIZE"] == "2"
    assert values["MASTER_ADDR"] == "alpha" and values["MASTER_PORT"] == "1234"
    assert command[1:3] == ["-hosts", "alpha:2,beta:2"]
    assert last[-5:] == ["-m", "mpi4py", "train.py", "--lr", "1"]
    with pytest.raises(ValueError, match="--hostfile"):
        launcher.build_command(launcher.parse_args(["--nnodes", "2", "x.py"]), "mpiexec")


def test_sigterm_to_the_launcher_ends_every_rank(tmp_path):
    import signal
    process = subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node",
                                "2", str(SCRIPTS / "sleeper.py"), str(tmp_path)], env=_env(),
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pids = [tmp_path / f"pid{r}" for r in range(2)]
    deadline = time.monotonic() + 60
    while not all(p.exists() and p.read_text() for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) != 0
    time.sleep(0.5)
    for p in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(int(p.read_text()), 0)


def test_hooked_parameters_keep_the_optimizers_array_path():
    # DDP's gradient hooks live in each parameter's extras; they used to send every
    # optimizer step down the slower ops path (0.42 against 0.18 ms on the MLP's SGD step).
    from ember.optim import _kernels
    p = ember.nn.Parameter(ember.ones(3))
    p.grad = ember.ones(3)
    with ember.no_grad():
        assert _kernels.fast(p, p.grad)
        p.register_post_accumulate_grad_hook(lambda t: None)
        p.register_hook(lambda g: g)
        assert _kernels.fast(p, p.grad)
        frozen = ember.nn.Parameter(ember.ones(3))
        frozen._extras = {"inference": True}
        assert not _kernels.fast(frozen, p.grad)
