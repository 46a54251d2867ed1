"""DistributedDataParallel on 2 ranks against single-process training on the full batch.

argv[1] is a folder where rank r writes rank{r}.json with the checks that failed.
Covers bucketed averaging (several buckets), no_sync, find_unused_parameters, the error
for an unused parameter without it, SyncBatchNorm against torch's BatchNorm on the whole
batch (when torch is importable), and buffers broadcast from rank 0.
"""
import json
import os
import sys
import traceback

import ember as torch
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP

failures = []


def close(name, got, want, atol=1e-6):
    if got is None or want is None:
        if got is not want:
            failures.append(f"{name}: got {got} want {want}")
        return
    if not torch.allclose(got, want, atol=atol, rtol=1e-5):
        failures.append(f"{name}: max diff {(got - want).abs().max().item()}")


def mlp():
    return nn.Sequential(nn.Linear(16, 512), nn.Tanh(), nn.Linear(512, 512), nn.Tanh(),
                         nn.Linear(512, 4))


def training_matches(rank, size, as_view=False):
    torch.manual_seed(100 + rank)          # different on each rank: DDP must broadcast
    model = DDP(mlp(), bucket_cap_mb=0.001, gradient_as_bucket_view=as_view)
    if len(model.reducer.buckets) < 3:
        failures.append(f"expected several buckets, got {len(model.reducer.buckets)}")
    torch.manual_seed(100)
    reference = mlp()
    torch.manual_seed(0)
    x, y = torch.randn(8 * size, 16), torch.randn(8 * size, 4)
    mine = slice(8 * rank, 8 * rank + 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    for step in range(4):
        opt.zero_grad(set_to_none=not as_view or step % 2 == 0)
        nn.functional.mse_loss(model(x[mine]), y[mine]).backward()
        opt.step()
        ref_opt.zero_grad()
        nn.functional.mse_loss(reference(x), y).backward()
        ref_opt.step()
    for (name, p), q in zip(model.module.named_parameters(), reference.parameters()):
        close(f"ddp param {name}", p.detach(), q.detach(), atol=1e-5)
    if list(model.state_dict())[0] != "module.0.weight":
        failures.append(f"state_dict keys {list(model.state_dict())[:2]}")
    # With gradient_as_bucket_view the gradients are views into the flat buckets (torch's
    # data_ptr lies inside a bucket's storage); without, they are tensors of their own.
    flats = [b.flat for b in model.reducer.buckets]
    inside = [any(p.grad.untyped_storage().data_ptr() == f.untyped_storage().data_ptr()
                  for f in flats) for p in model.parameters()]
    if inside != [as_view] * len(inside):
        failures.append(f"gradient_as_bucket_view={as_view}: grads in buckets {inside}")


def no_sync_matches(rank, size):
    torch.manual_seed(1)
    model = DDP(nn.Linear(5, 3))
    torch.manual_seed(1)
    reference = nn.Linear(5, 3)
    torch.manual_seed(2)
    x = torch.randn(2, 4 * size, 5)        # two micro-batches of the global batch
    mine = slice(4 * rank, 4 * rank + 4)
    with model.no_sync():
        model(x[0, mine]).square().mean().backward()
    local = model.module.weight.grad.clone()
    model(x[1, mine]).square().mean().backward()
    for k in range(2):
        reference(x[k]).square().mean().backward()
    close("no_sync weight grad", model.module.weight.grad, reference.weight.grad)
    gathered = [torch.zeros(3, 5) for _ in range(size)]
    dist.all_gather(gathered, local)
    if torch.allclose(gathered[0], gathered[1]):
        failures.append("no_sync: gradients were averaged inside no_sync")


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 2)
        self.extra = nn.Linear(3, 2)
        self.never = nn.Linear(3, 2)

    def forward(self, x, use_extra):
        out = self.body(x)
        return out + self.extra(x) if use_extra else out


def unused_parameters(rank, size):
    torch.manual_seed(3)
    model = DDP(Branchy(), find_unused_parameters=True)
    x = torch.ones(4, 3) * (rank + 1)
    model(x, use_extra=rank == 0).sum().backward()
    # extra is used on rank 0 only: its gradient is rank 0's, averaged with zeros.
    close("unused: extra grad", model.module.extra.bias.grad, torch.full((2,), 4.0 / size))
    if model.module.never.weight.grad is not None:
        failures.append("unused: a parameter no rank used got a gradient")
    close("unused: body grad", model.module.body.bias.grad, torch.full((2,), 4.0))

    torch.manual_seed(3)
    strict = DDP(Branchy())
    strict(x, use_extra=False).sum().backward()
    try:
        strict(x, use_extra=False)
        failures.append("unused without find_unused_parameters: no error")
    except RuntimeError as e:
        if not str(e).startswith("Expected to have finished reduction in the prior iteration"):
            failures.append(f"unused: wrong message {e}")
        if f"did not receive grad for rank {rank}: 2 3 4 5\n" not in str(e):
            failures.append(f"unused: wrong indices in {e}")
    twice = DDP(Branchy())
    twice(x, use_extra=True)
    twice(x, use_extra=True)      # forward without backward: torch lets it pass


def sync_batchnorm(rank, size):
    try:
        import torch as real
    except ImportError:
        return
    real.manual_seed(0)
    x = real.randn(4 * size, 3, 5) * 2 + 1
    w = real.randn(4 * size, 3, 5)
    ref = real.nn.BatchNorm1d(3)
    with real.no_grad():
        ref.weight.uniform_()
        ref.bias.uniform_()
    xr = x.clone().requires_grad_()
    yr = ref(xr)
    (yr * w).sum().backward()

    model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1d(3)))
    bn = model[0]
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(ref.weight.detach().numpy()))
        bn.bias.copy_(torch.tensor(ref.bias.detach().numpy()))
    ddp = DDP(model)
    mine = slice(4 * rank, 4 * rank + 4)
    xs = torch.tensor(x[mine].numpy()).requires_grad_()
    out = ddp(xs)
    (out * torch.tensor(w[mine].numpy())).sum().backward()

    def as_ember(t):
        return torch.tensor(t.detach().numpy())
    close("syncbn output", out.detach(), as_ember(yr[mine]), atol=1e-5)
    close("syncbn input grad", xs.grad, as_ember(xr.grad[mine]), atol=1e-5)
    # DDP averages; the full-batch loss is the sum over ranks, so scale back up.
    close("syncbn weight grad", bn.weight.grad * size, as_ember(ref.weight.grad), atol=1e-4)
    close("syncbn running_mean", bn.running_mean, as_ember(ref.running_mean))
    close("syncbn running_var", bn.running_var, as_ember(ref.running_var))


def buffers_follow_rank0(rank, size):
    model = nn.BatchNorm1d(2)
    model.running_mean.fill_(float(rank))
    ddp = DDP(model)
    close("buffers broadcast at construction", model.running_mean, torch.zeros(2))
    model.running_mean.fill_(float(rank + 5))
    ddp.eval()
    ddp(torch.ones(3, 2))
    close("buffers broadcast each forward", model.running_mean, torch.full((2,), 5.0))


def main():
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    for check in (training_matches, lambda r, s: training_matches(r, s, True), no_sync_matches, unused_parameters, sync_batchnorm,
                  buffers_follow_rank0):
        try:
            check(rank, size)
        except Exception:
            failures.append(f"{check.__name__}: {traceback.format_exc()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    folder = sys.argv[1]
    main()
    rank = int(os.environ.get("RANK", os.environ.get("PMI_RANK", "0")))
    with open(os.path.join(folder, f"rank{rank}.json"), "w") as f:
        json.dump({"failures": failures}, f)
