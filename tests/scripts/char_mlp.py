# makemore part 2 / nanoGPT start-up style: a character-level MLP with an embedding table,
# trained with AdamW, gradient clipping and a (disabled on the CPU) GradScaler; run with
# `torch` bound to ember and to PyTorch.
from contextlib import nullcontext

from torch import nn
from torch.nn import functional as F

torch.manual_seed(42)
torch.cuda.manual_seed(42)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device = 'cuda' if torch.cuda.is_available() else 'cpu'
device_type = 'cuda' if 'cuda' in device else 'cpu'
dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float32'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type,
                                                                     dtype=ptdtype)
print('device', device, 'dtype', ptdtype, 'tf32', torch.backends.cuda.matmul.allow_tf32)

text = ('first citizen: before we proceed any further, hear me speak. all: speak, speak. '
        'first citizen: you are all resolved rather to die than to famish? all: resolved. '
        'resolved. first citizen: first, you know caius marcius is chief enemy to the people.')
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
block_size, vocab_size = 4, len(chars)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]
print('vocab', vocab_size, 'train', len(train_data), 'val', len(val_data))


def get_batch(split, batch_size=16):
    source = train_data if split == 'train' else val_data
    ix = torch.randint(len(source) - block_size, (batch_size,))
    x = torch.stack([source[i:i + block_size] for i in ix])
    y = torch.stack([source[i + block_size] for i in ix])
    return x.to(device), y.to(device)


class CharMLP(nn.Module):
    def __init__(self, n_embd=8, n_hidden=64):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, n_embd)
        self.hidden = nn.Linear(block_size * n_embd, n_hidden)
        self.norm = nn.LayerNorm(n_hidden)
        self.out = nn.Linear(n_hidden, vocab_size)

    def forward(self, idx, targets=None):
        h = torch.tanh(self.norm(self.hidden(self.emb(idx).view(idx.shape[0], -1))))
        logits = self.out(h)
        loss = None if targets is None else F.cross_entropy(logits, targets)
        return logits, loss


model = CharMLP().to(device)
print('parameters', sum(p.numel() for p in model.parameters()))
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
scaler = torch.amp.GradScaler('cuda', enabled=(dtype == 'float16'))
print('scaler enabled', scaler.is_enabled(), 'scale', scaler.get_scale())


@torch.no_grad()
def estimate_loss(iters=5):
    model.eval()
    result = {}
    for split in ('train', 'val'):
        losses = torch.zeros(iters)
        for k in range(iters):
            x, y = get_batch(split)
            with ctx:
                _, loss = model(x, y)
            losses[k] = loss.item()
        result[split] = losses.mean()
    model.train()
    return result


for step in range(41):
    if step % 10 == 0:
        losses = estimate_loss()
        print(f"step {step}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    x, y = get_batch('train')
    with ctx:
        _, loss = model(x, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if step % 20 == 0:
        print(f'step {step}: loss {loss.item():.4f}, grad norm {norm.item():.4f}')

vector = torch.nn.utils.parameters_to_vector(model.parameters())
print('weights as one vector', tuple(vector.shape), f'{vector.norm().item():.4f}')
context = torch.zeros((1, block_size), dtype=torch.long, device=device)
out = []
for _ in range(30):
    logits, _ = model(context)
    ix = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
    context = torch.cat([context[:, 1:], ix], dim=1)
    out.append(chars[ix.item()])
print('sample:', ''.join(out))
