"""How a wait ends when a peer is not coming: argv[1] is the mode, argv[2] a folder.

exit     rank 1 calls sys.exit(3) while rank 0 waits in all_reduce: the job must end
         non-zero promptly (rank 0 raises, its excepthook aborts the job).
uneven   the ranks finish at different times, rank 1 first, after collectives rank 0
         completes only later: the job must exit 0 with no error.
timeout  a group with a 2 s timeout; rank 1 never joins rank 0's all_reduce: rank 0
         records the error and the one for its next call, and both ranks exit normally.
Rank 0 writes argv[2]/rank0.json with what it saw. The same script runs under torchrun
with torch (EMBER_TEST_LIB=torch) for the error texts.
"""
import datetime
import importlib
import json
import os
import sys
import time

torch = importlib.import_module(os.environ.get("EMBER_TEST_LIB", "ember"))
dist = importlib.import_module(torch.__name__ + ".distributed")


def error_text(call):
    try:
        call()
    except Exception as e:   # the type and text are what the test compares with torch
        return [type(e).__name__, str(e)]
    return None


mode, folder = sys.argv[1], sys.argv[2]
seen = {}
if mode == "timeout":
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=2))
else:
    dist.init_process_group("gloo")
rank = dist.get_rank()
if mode == "exit":
    if rank == 1:
        time.sleep(0.2)
        sys.exit(3)
    dist.all_reduce(torch.ones(3))
    time.sleep(60)
elif mode == "uneven":
    t = torch.ones(3)
    dist.all_reduce(t)
    work = dist.all_reduce(t, async_op=True)
    if rank == 0:
        time.sleep(1.0)       # rank 1 finishes its part, leaves, and its notice arrives
    work.wait()
    seen["sum"] = t.tolist()
    if rank == 0:
        time.sleep(0.5)
        dist.barrier(async_op=True)   # started, never finished: rank 1 has gone
elif mode == "timeout":
    if rank == 0:
        start = time.perf_counter()
        seen["error"] = error_text(lambda: dist.all_reduce(torch.ones(3)))
        seen["seconds"] = time.perf_counter() - start
        seen["next"] = error_text(lambda: dist.barrier())
    else:
        time.sleep(2.5)
if rank == 0:
    with open(os.path.join(folder, "rank0.json"), "w") as f:
        json.dump(seen, f)
