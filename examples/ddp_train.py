"""Data-parallel training in the style of nanoGPT's train.py: one process per rank, each on
its share of the data, gradients averaged by DistributedDataParallel.

    python -m ember.distributed.run --standalone --nproc-per-node 2 examples/ddp_train.py
    mpiexec -n 2 python examples/ddp_train.py          # the same, MPI's own launcher
    python examples/ddp_train.py                       # one process, no DDP
    torchrun --standalone --nproc-per-node 2 examples/ddp_train.py --torch   # under PyTorch

It is a character-level MLP language model (embeddings of a few previous characters, a
hidden layer, logits over the vocabulary) on a built-in text, with AdamW, gradient
accumulation through `require_backward_grad_sync` (as nanoGPT does), a DistributedSampler
that gives each rank its share of every epoch, and the loss averaged over ranks, printed
by rank 0. The program is written as a PyTorch script; `--torch` runs it with PyTorch,
which prints the same losses (up to float32 rounding).
"""
import argparse
import importlib
import os
import time

TEXT = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it "
    "was the age of foolishness, it was the epoch of belief, it was the epoch of "
    "incredulity, it was the season of Light, it was the season of Darkness, it was the "
    "spring of hope, it was the winter of despair, we had everything before us, we had "
    "nothing before us, we were all going direct to Heaven, we were all going direct the "
    "other way.")

parser = argparse.ArgumentParser()
parser.add_argument("--torch", action="store_true", help="run under PyTorch instead of ember")
parser.add_argument("--steps", type=int, default=12)
parser.add_argument("--batch-size", type=int, default=16, help="per rank, per micro-step")
parser.add_argument("--accumulation", type=int, default=2, help="micro-steps per step")
parser.add_argument("--context", type=int, default=4)
args = parser.parse_args()

torch = importlib.import_module("torch" if args.torch else "ember")
nn = torch.nn
F = torch.nn.functional
from_dist = importlib.import_module(torch.__name__ + ".distributed")
init_process_group, destroy_process_group = (from_dist.init_process_group,
                                             from_dist.destroy_process_group)
DDP = torch.nn.parallel.DistributedDataParallel
DistributedSampler = importlib.import_module(
    torch.__name__ + ".utils.data.distributed").DistributedSampler

# --- nanoGPT's setup: a launcher sets RANK, LOCAL_RANK and WORLD_SIZE (torchrun, ember's
# launcher); under plain mpiexec, init_process_group reads MPI's own variables.
ddp = int(os.environ.get("RANK", os.environ.get("PMI_RANK", -1))) != -1
if ddp:
    init_process_group(backend="gloo")
    ddp_rank = from_dist.get_rank()
    ddp_local_rank = int(os.environ.get("LOCAL_RANK", ddp_rank))
    ddp_world_size = from_dist.get_world_size()
else:
    ddp_rank, ddp_local_rank, ddp_world_size = 0, 0, 1
master_process = ddp_rank == 0
torch.manual_seed(1337)          # the same initial model everywhere (DDP also broadcasts)

chars = sorted(set(TEXT))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in TEXT])
windows = data.unfold(0, args.context + 1, 1)
dataset = torch.utils.data.TensorDataset(windows[:, :-1], windows[:, -1])
sampler = DistributedSampler(dataset, num_replicas=ddp_world_size, rank=ddp_rank, shuffle=True,
                             seed=0, drop_last=True)
loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, sampler=sampler,
                                     drop_last=True)


class CharMLP(nn.Module):
    def __init__(self, vocab, context, n_embd=16, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, n_embd)
        self.hidden = nn.Linear(context * n_embd, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx, targets=None):
        h = torch.tanh(self.norm(self.hidden(self.embed(idx).flatten(1))))
        logits = self.head(h)
        loss = None if targets is None else F.cross_entropy(logits, targets)
        return logits, loss


model = CharMLP(len(chars), args.context)
if ddp:
    model = DDP(model)
raw_model = model.module if ddp else model
optimizer = torch.optim.AdamW(raw_model.parameters(), lr=3e-3, weight_decay=0.1)


def batches():
    epoch = 0
    while True:
        sampler.set_epoch(epoch)
        yield from loader
        epoch += 1


stream = batches()
start = time.time()
for step in range(args.steps):
    for micro_step in range(args.accumulation):
        x, y = next(stream)
        if ddp:
            # nanoGPT's trick: only the last micro-step averages gradients across ranks.
            model.require_backward_grad_sync = micro_step == args.accumulation - 1
        _, loss = model(x, y)
        (loss / args.accumulation).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    reported = loss.detach().clone()
    if ddp:
        from_dist.all_reduce(reported, op=from_dist.ReduceOp.AVG)
    if master_process:
        print(f"step {step}: loss {reported.item():.5f}", flush=True)
if master_process:
    print(f"{args.steps} steps on {ddp_world_size} process(es) in {time.time() - start:.2f} s")
if ddp:
    destroy_process_group()
