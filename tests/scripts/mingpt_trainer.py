# A tiny character-level GPT trainer, written the way minGPT/nanoGPT learners write one:
# hand-written causal self-attention, weight tying, the GPT-2 weight init, AdamW with
# decay/no-decay groups, a warmup + cosine schedule set by hand, gradient clipping,
# top-k sampling and a checkpoint round trip. Run with `torch` bound to ember and to PyTorch.
import inspect
import math
import os
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.dataloader import DataLoader as _DataLoader  # minGPT's spelling

torch.manual_seed(1337)
torch.cuda.manual_seed_all(1337)
device = 'cuda' if torch.cuda.is_available() else 'cpu'

text = """First Citizen:
Before we proceed any further, hear me speak.

All:
Speak, speak.

First Citizen:
You are all resolved rather to die than to famish?

All:
Resolved. resolved.

First Citizen:
First, you know Caius Marcius is chief enemy to the people.
"""


class CharDataset(Dataset):
    """Every window of block_size + 1 characters, as (input, shifted target)."""

    def __init__(self, data, block_size):
        chars = sorted(list(set(data)))
        self.stoi = {ch: i for i, ch in enumerate(chars)}
        self.itos = {i: ch for i, ch in enumerate(chars)}
        self.vocab_size = len(chars)
        self.block_size = block_size
        self.data = data

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        chunk = self.data[idx:idx + self.block_size + 1]
        dix = [self.stoi[s] for s in chunk]
        x = torch.tensor(dix[:-1], dtype=torch.long)
        y = torch.tensor(dix[1:], dtype=torch.long)
        return x, y


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 0
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    dropout: float = 0.1
    bias: bool = True


class NewGELU(nn.Module):
    """minGPT's GELU: the tanh approximation used by Google BERT and OpenAI GPT."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)
                                           * (x + 0.044715 * torch.pow(x, 3.0))))


class LayerNorm(nn.Module):
    """nanoGPT's LayerNorm with an optional bias (PyTorch's has no bias=False switch
    in older releases)."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        # the causal mask: a position only looks at itself and the ones before it
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = NewGELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

        self.apply(self._init_weights)
        # GPT-2: scale the residual projections by the depth of the network
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        print("number of parameters: %.2fK" % (self.get_num_params() / 1e3,),
              sum(p.numel() for p in self.parameters()))

    def get_num_params(self, non_embedding=True):
        """The position embeddings do not count; the token embedding does, since it is
        tied to the final layer's weight."""
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, (nn.LayerNorm, LayerNorm)):
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
            torch.nn.init.ones_(module.weight)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"sequence of {t} > block size"
        pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0)  # (1, t)

        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)

        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=-1)
        else:
            # inference: only the last position is needed (a list index keeps the dim)
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss

    def crop_block_size(self, block_size):
        """Model surgery: a smaller context window than the one trained with."""
        assert block_size <= self.config.block_size
        self.config.block_size = block_size
        self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
        for block in self.transformer.h:
            if hasattr(block.attn, 'bias'):
                block.attn.bias = block.attn.bias[:, :, :block_size, :block_size]

    def configure_optimizers(self, train_config):
        """minGPT's split: weights of Linear layers decay; biases, LayerNorm and
        Embedding weights do not."""
        decay = set()
        no_decay = set()
        whitelist_weight_modules = (torch.nn.Linear, )
        blacklist_weight_modules = (torch.nn.LayerNorm, LayerNorm, torch.nn.Embedding)
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters():
                fpn = '%s.%s' % (mn, pn) if mn else pn
                if pn.endswith('bias'):
                    no_decay.add(fpn)
                elif pn.endswith('weight') and isinstance(m, whitelist_weight_modules):
                    decay.add(fpn)
                elif pn.endswith('weight') and isinstance(m, blacklist_weight_modules):
                    no_decay.add(fpn)
        # the tied weight is reached as both lm_head.weight and transformer.wte.weight;
        # named_parameters() yields it once, so keep only the names it knows
        param_dict = {pn: p for pn, p in self.named_parameters()}
        decay &= param_dict.keys()
        no_decay &= param_dict.keys()
        inter_params = decay & no_decay
        union_params = decay | no_decay
        assert len(inter_params) == 0, "parameters %s in both sets" % (str(inter_params),)
        assert len(param_dict.keys() - union_params) == 0, \
            "parameters %s were not separated" % (str(param_dict.keys() - union_params),)
        print('decay:', sorted(decay))
        print('no decay:', sorted(no_decay))
        optim_groups = [
            {"params": [param_dict[pn] for pn in sorted(list(decay))],
             "weight_decay": train_config.weight_decay},
            {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
        ]
        fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device == 'cuda'
        extra_args = dict(fused=True) if use_fused else dict()
        print(f"using fused AdamW: {use_fused} (available: {fused_available})")
        optimizer = torch.optim.AdamW(optim_groups, lr=train_config.learning_rate,
                                      betas=train_config.betas, **extra_args)
        return optimizer

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size \
                else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            if do_sample:
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                _, idx_next = torch.topk(probs, k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


@dataclass
class TrainConfig:
    max_iters: int = 40
    batch_size: int = 8
    learning_rate: float = 3e-3
    min_lr: float = 3e-4
    warmup_iters: int = 8
    betas: tuple = (0.9, 0.95)
    weight_decay: float = 0.1
    grad_norm_clip: float = 1.0


def get_lr(it, tc):
    """Linear warmup, then cosine decay down to min_lr."""
    if it < tc.warmup_iters:
        return tc.learning_rate * (it + 1) / tc.warmup_iters
    decay_ratio = (it - tc.warmup_iters) / (tc.max_iters - tc.warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return tc.min_lr + coeff * (tc.learning_rate - tc.min_lr)


dataset = CharDataset(text, block_size=16)
print('data has %d characters, %d unique.' % (len(text), dataset.vocab_size))
train_dataset, val_dataset = torch.utils.data.random_split(
    dataset, [0.9, 0.1], generator=torch.Generator().manual_seed(42))
print('train', len(train_dataset), 'val', len(val_dataset), train_dataset.indices[:5])
x, y = train_dataset[0]
print(x, y, sep='\n')

config = GPTConfig(block_size=dataset.block_size, vocab_size=dataset.vocab_size)
model = GPT(config).to(device)
print(model)
print('non-embedding parameters', model.get_num_params(),
      'all', model.get_num_params(non_embedding=False))

tc = TrainConfig()
optimizer = model.configure_optimizers(tc)
print(optimizer)
print({k: v for k, v in optimizer.state_dict()['param_groups'][1].items() if k != 'params'})

# minGPT's Trainer: an endless stream of batches drawn with replacement
train_loader = _DataLoader(
    train_dataset,
    sampler=torch.utils.data.RandomSampler(train_dataset, replacement=True,
                                           num_samples=int(1e10)),
    shuffle=False, pin_memory=False, batch_size=tc.batch_size, num_workers=0)


@torch.no_grad()
def estimate_loss():
    model.eval()
    out = {}
    for split, ds in (('train', train_dataset), ('val', val_dataset)):
        loader = DataLoader(ds, shuffle=False, batch_size=tc.batch_size)
        losses = torch.zeros(len(loader))
        correct = 0
        for k, (x, y) in enumerate(loader):
            logits, loss = model(x.to(device), y.to(device))
            losses[k] = loss.item()
            correct += (logits.argmax(dim=-1) == y).sum().item()
        out[split] = losses.mean()
        out[split + '_acc'] = correct / (len(ds) * dataset.block_size)
    model.train()
    return out


def train_step(model, optimizer, batch, it):
    x, y = [t.to(device) for t in batch]
    lr = get_lr(it, tc)
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    logits, loss = model(x, y)
    model.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), tc.grad_norm_clip)
    optimizer.step()
    return logits, loss, norm, lr


model.train()
data_iter = iter(train_loader)
losses = estimate_loss()
print(f"iter 0: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
for it in range(tc.max_iters):
    logits, loss, norm, lr = train_step(model, optimizer, next(data_iter), it)
    if it % 10 == 0:
        print(f"iter {it}: loss {loss.item():.4f}, lr {lr:.2e}, grad norm {norm:.4f}")
losses = estimate_loss()
print(f"iter {tc.max_iters}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}",
      f"accuracy {losses['train_acc']:.3f} / {losses['val_acc']:.3f}")
print(loss)
print('logits', logits.shape, logits.dtype, logits.grad_fn.name())
print(model.transformer.h[1].mlp.c_fc.weight[:2, :4])
print(model.transformer.wte.weight.grad[0, :4])

for k, v in model.state_dict().items():
    print(k, tuple(v.shape), v.dtype)

model.eval()
context = torch.tensor([[dataset.stoi[c] for c in 'First']], dtype=torch.long, device=device)
with torch.no_grad():
    last, _ = model(context)
print(last.shape, torch.topk(last[0, -1], 3))
greedy = model.generate(context, 20, do_sample=False)
print('greedy:', repr(''.join(dataset.itos[int(i)] for i in greedy[0])))
sampled = model.generate(context, 40, temperature=0.8, do_sample=True, top_k=10)
print('sampled:', repr(''.join(dataset.itos[int(i)] for i in sampled[0].tolist())))

with tempfile.TemporaryDirectory() as out_dir:
    checkpoint = {
        'model': model.state_dict(),
        'optimizer': optimizer.state_dict(),
        'model_args': dict(config.__dict__),
        'iter_num': tc.max_iters,
        'best_val_loss': losses['val'],
    }
    print("saving checkpoint")
    torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))
    checkpoint = torch.load(os.path.join(out_dir, 'ckpt.pt'), map_location=device)
print(sorted(checkpoint.keys()), checkpoint['iter_num'], checkpoint['best_val_loss'])

# nanoGPT's resume: strip a torch.compile prefix if present, load, carry on training
state_dict = checkpoint['model']
unwanted_prefix = '_orig_mod.'
for k, v in list(state_dict.items()):
    if k.startswith(unwanted_prefix):
        state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
restored = GPT(GPTConfig(**checkpoint['model_args']))
print(restored.load_state_dict(state_dict))
print('tied after load:', restored.lm_head.weight is restored.transformer.wte.weight)
resumed = restored.configure_optimizers(tc)
resumed.load_state_dict(checkpoint['optimizer'])
first = resumed.param_groups[0]['params'][0]
print('optimizer state', len(resumed.state), resumed.param_groups[0]['lr'],
      resumed.state[first]['step'], resumed.state[first]['exp_avg_sq'].dtype)
restored.eval()
with torch.no_grad():
    same_logits, _ = restored(context)
print('same logits after reload:', torch.equal(same_logits, last))
print(same_logits[0, -1, :6])

# one more step from the same batch: the copy and the original move together
batch = next(data_iter)
model.train()
torch.manual_seed(7)
_, loss_a, _, _ = train_step(model, optimizer, batch, tc.max_iters - 1)
restored.train()
torch.manual_seed(7)
_, loss_b, _, _ = train_step(restored, resumed, batch, tc.max_iters - 1)
print(f'resumed step: {loss_a.item():.4f} {loss_b.item():.4f}',
      torch.equal(model.lm_head.weight, restored.lm_head.weight))

restored.crop_block_size(8)
print(restored.transformer.wpe.weight.shape, restored.transformer.h[0].attn.bias.shape,
      type(restored.transformer.wpe.weight).__name__)
restored.eval()
cropped = restored.generate(context, 12, do_sample=True, top_k=5)
print('cropped:', repr(''.join(dataset.itos[int(i)] for i in cropped[0])))
