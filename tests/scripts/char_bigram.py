# makemore part 1 style: a character-level bigram model, first by counting, then as a
# one-layer network trained by gradient descent; run with `torch` bound to ember and PyTorch.
# It touches what real scripts touch at start-up on a CPU machine.
import torch.nn.functional as F

torch.manual_seed(1337)
torch.cuda.manual_seed_all(1337)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
device = 'cuda' if torch.cuda.is_available() else 'cpu'
print('device:', device, '| cuda devices:', torch.cuda.device_count())

words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia',
         'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery',
         'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace']
chars = sorted(set(''.join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)
print('vocabulary:', V)

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
print('most frequent pair count:', N.max().item(), '| total:', N.sum().item())

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
g = torch.Generator().manual_seed(2147483647)
for _ in range(5):
    out, ix = [], 0
    while True:
        ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print('count sample:', ''.join(out))

log_likelihood, n = 0.0, 0
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
        n += 1
print(f'count model nll: {(-log_likelihood / n).item():.4f}')

xs, ys = [], []
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.LongTensor(xs).to(device)
ys = torch.LongTensor(ys).to(device)
print('examples:', xs.nelement(), xs.type(), isinstance(xs, torch.LongTensor))

W = torch.randn((V, V), generator=g, requires_grad=True, device=device)
for k in range(60):
    xenc = F.one_hot(xs, num_classes=V).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(xs.nelement()), ys].log().mean() + 0.01 * (W ** 2).mean()
    W.grad = None
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_([W], max_norm=5.0)
    W.data += -20 * W.grad
    if k % 10 == 0:
        print(f'step {k:2d} loss {loss.item():.4f} grad norm {norm.item():.4f}')

for _ in range(5):
    out, ix = [], 0
    while True:
        xenc = F.one_hot(torch.tensor([ix]), num_classes=V).float()
        p = (xenc @ W).softmax(dim=1)
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print('network sample:', ''.join(out))
print('memory allocated on cuda:', torch.cuda.memory_allocated())
