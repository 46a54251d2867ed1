"""Every collective on each rank, checked against a reference computed from all ranks' inputs.

Run with 2+ ranks; argv[1] is a folder where rank r writes rank{r}.json: the list of
checks that failed (empty when all passed) and the values tests compare with torch.
"""
import json
import os
import re
import sys
import traceback
import warnings

import importlib

# The same script runs under torchrun with torch (EMBER_TEST_LIB=torch) for comparison.
torch = importlib.import_module(os.environ.get("EMBER_TEST_LIB", "ember"))
dist = importlib.import_module(torch.__name__ + ".distributed")

failures = []
record = {}


def check(name, got, want):
    if not torch.equal(got, want) if got.dtype == want.dtype else True:
        failures.append(f"{name}: got {got.tolist()} want {want.tolist()}")


def check_close(name, got, want):
    if got.dtype != want.dtype or not torch.allclose(got, want):
        failures.append(f"{name}: got {got} want {want}")


def error_text(call):
    try:
        call()
    except Exception as e:   # the type and text are what the test compares with torch
        return [type(e).__name__, str(e)]
    return None


def without_address(error):
    """An error text with its object addresses (which differ between runs) blanked."""
    return error and [error[0], re.sub("0x[0-9a-f]+", "0x", error[1])]


def data(rank, dtype=torch.float32, n=6):
    return (torch.arange(n, dtype=torch.float64) * (rank + 1) + rank).to(dtype)


def main():
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    everyone = [data(r) for r in range(size)]
    stacked = torch.stack(everyone)
    record["backend"] = dist.get_backend()
    record["is_initialized"] = dist.is_initialized()

    for op, want in [(dist.ReduceOp.SUM, stacked.sum(0)), (dist.ReduceOp.AVG, stacked.mean(0)),
                     (dist.ReduceOp.MAX, stacked.amax(0)), (dist.ReduceOp.MIN, stacked.amin(0)),
                     (dist.ReduceOp.PRODUCT, stacked.prod(0))]:
        t = data(rank)
        assert dist.all_reduce(t, op=op) is None
        check_close(f"all_reduce {op}", t, want)
    for dtype in (torch.int64, torch.float64, torch.float16, torch.bfloat16, torch.int32):
        t = data(rank, dtype)
        dist.all_reduce(t)
        want = torch.stack([data(r, dtype) for r in range(size)]).sum(0).to(dtype)
        check(f"all_reduce {dtype}", t, want)
    if torch.__name__ == "ember":   # torch's gloo fails on bool; MPI reduces it logically
        t = torch.tensor([rank == 0, False, True])
        dist.all_reduce(t)
        check("all_reduce bool", t, torch.tensor([True, False, True]))
    strided = data(rank, n=12).view(3, 4).t()
    dist.all_reduce(strided)
    check("all_reduce strided", strided,
          torch.stack([data(r, n=12).view(3, 4).t() for r in range(size)]).sum(0))
    record["avg_int_error"] = error_text(
        lambda: dist.all_reduce(torch.ones(2, dtype=torch.int64), op=dist.ReduceOp.AVG))
    premul = dist.ReduceOp.PREMUL_SUM     # gloo has no PREMUL_SUM (and it needs a factor)
    one = torch.ones(2)
    record["premul_sum"] = [without_address(error_text(call)) for call in (
        lambda: dist.all_reduce(one, op=premul),
        lambda: dist.all_reduce(one, op=premul, async_op=True),
        lambda: dist.reduce(one, 0, op=premul),
        lambda: dist.reduce_scatter(one[:1], [one[:1], one[1:]], op=premul),
        lambda: dist.reduce_scatter_tensor(one[:1].clone(), one, op=premul))]
    record["premul_sum_tensor"] = one.tolist()

    t = data(rank)
    work = dist.all_reduce(t, async_op=True)
    record["work_wait"] = work.wait()
    record["work_completed"] = work.is_completed()
    check("all_reduce async", t, stacked.sum(0))

    t = data(rank)
    dist.broadcast(t, src=size - 1)
    check("broadcast", t, everyone[-1])

    t = data(rank)
    dist.reduce(t, dst=0)
    if rank == 0:   # torch's gloo leaves partial sums elsewhere; only dst's value is defined
        check("reduce", t, stacked.sum(0))

    gathered = [torch.zeros(6) for _ in range(size)]
    dist.all_gather(gathered, data(rank))
    check("all_gather", torch.stack(gathered), stacked)
    record["all_gather_short_list"] = error_text(lambda: dist.all_gather([torch.ones(6)], data(rank)))
    record["all_gather_dtypes"] = error_text(
        lambda: dist.all_gather([torch.ones(6)] * (size - 1) + [torch.ones(6, dtype=torch.float64)],
                                data(rank)))

    out_t = torch.zeros(size * 6)
    dist.all_gather_into_tensor(out_t, data(rank))
    check("all_gather_into_tensor", out_t, stacked.reshape(-1))

    inputs = [data(rank) + 10 * i for i in range(size)]
    out_t = torch.zeros(6)
    dist.reduce_scatter(out_t, inputs)
    check("reduce_scatter", out_t, torch.stack([data(r) + 10 * rank for r in range(size)]).sum(0))

    out_t = torch.zeros(3)
    dist.reduce_scatter_tensor(out_t, data(rank, n=3 * size))
    want = torch.stack([data(r, n=3 * size) for r in range(size)]).sum(0)[3 * rank:3 * rank + 3]
    check("reduce_scatter_tensor", out_t, want)

    glist = [torch.zeros(6) for _ in range(size)] if rank == 0 else None
    dist.gather(data(rank), glist, dst=0)
    if rank == 0:
        check("gather", torch.stack(glist), stacked)
    if rank:
        record["gather_list_on_other"] = error_text(
            lambda: dist.gather(data(rank), [torch.zeros(6)] * size, dst=0))

    t = torch.zeros(6)
    dist.scatter(t, [data(r) * 7 for r in range(size)] if rank == 0 else None, src=0)
    check("scatter", t, data(rank) * 7)

    out_list = [torch.zeros(2) for _ in range(size)]
    dist.all_to_all(out_list, [torch.full((2,), 10.0 * rank + i) for i in range(size)])
    check("all_to_all", torch.stack(out_list),
          torch.stack([torch.full((2,), 10.0 * r + rank) for r in range(size)]))

    out_t = torch.zeros(2 * size)
    dist.all_to_all_single(out_t, torch.arange(2.0 * size) + 100 * rank)
    want = torch.cat([torch.arange(2.0 * rank, 2.0 * rank + 2) + 100 * r for r in range(size)])
    check("all_to_all_single", out_t, want)

    if rank == 0:
        dist.send(data(0) * 3, dst=1)
        work = dist.isend(data(0) * 5, dst=1)
        work.wait()
        record["send_self"] = error_text(lambda: dist.send(torch.ones(2), dst=0))
    elif rank == 1:
        t = torch.zeros(6)
        record["recv_source"] = dist.recv(t)
        check("send/recv", t, data(0) * 3)
        t = torch.zeros(6)
        dist.irecv(t, src=0).wait()
        check("isend/irecv", t, data(0) * 5)

    objects = [None] * size
    dist.all_gather_object(objects, {"rank": rank, "name": f"r{rank}"})
    record["all_gather_object"] = objects
    objects = [rank, "hello"]
    dist.broadcast_object_list(objects, src=size - 1)
    record["broadcast_object_list"] = objects
    objects = [None] * size if rank == 0 else None
    dist.gather_object(("x", rank), objects, dst=0)
    record["gather_object"] = objects

    sub = dist.new_group([0])
    record["subgroup"] = [dist.get_rank(sub), dist.get_world_size(sub)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = torch.ones(2)
        dist.all_reduce(t, group=sub)
    record["subgroup_all_reduce"] = [t.tolist(), [str(w.message) for w in caught]]

    dist.barrier()
    dist.destroy_process_group()
    record["after_destroy"] = error_text(dist.get_rank)
    record["is_initialized_after"] = dist.is_initialized()


if __name__ == "__main__":
    folder = sys.argv[1]
    try:
        main()
    except Exception:
        failures.append(traceback.format_exc())
    rank = int(os.environ.get("RANK", os.environ.get("PMI_RANK", "0")))
    with open(os.path.join(folder, f"rank{rank}.json"), "w") as f:
        json.dump({"failures": failures, "record": record}, f, default=str)
