"""A character-level GPT: token and position embeddings, a few pre-norm blocks of causal
self-attention (F.scaled_dot_product_attention with is_causal=True) and a GELU MLP,
trained with AdamW on a built-in text for 20 steps.

    python examples/char_gpt.py            # under ember
    python examples/char_gpt.py --torch    # the same program under PyTorch

The program is written against `lib`, the library module, so that one source runs under
both; with the same seed it prints the same losses (up to float32 rounding).
"""
import argparse
import math

TEXT = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it "
    "was the age of foolishness, it was the epoch of belief, it was the epoch of "
    "incredulity, it was the season of Light, it was the season of Darkness, it was the "
    "spring of hope, it was the winter of despair, we had everything before us, we had "
    "nothing before us, we were all going direct to Heaven, we were all going direct the "
    "other way. There were a king with a large jaw and a queen with a plain face, on the "
    "throne of England; there were a king with a large jaw and a queen with a fair face, "
    "on the throne of France.")


def make_gpt(lib, vocab_size, block_size, n_layer=2, n_head=4, n_embd=32):
    """A GPT built from `lib.nn` (ember's or torch's), initialised by the library's seed."""
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(n_embd, 3 * n_embd)
            self.proj = nn.Linear(n_embd, n_embd)

        def forward(self, x):
            batch, length, width = x.shape
            # (B, T, 3C) -> three (B, heads, T, head size) views
            q, k, v = self.qkv(x).view(batch, length, 3, n_head, width // n_head).permute(
                2, 0, 3, 1, 4).unbind(0)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(batch, length, width))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = nn.Embedding(vocab_size, n_embd)
            self.positions = nn.Embedding(block_size, n_embd)
            self.blocks = nn.ModuleList(Block() for _ in range(n_layer))
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab_size, bias=False)
            self.register_buffer("steps", lib.arange(block_size), persistent=False)

        def forward(self, idx, targets=None):
            x = self.tokens(idx) + self.positions(self.steps[:idx.shape[1]])
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln_f(x))
            if targets is None:
                return logits, None
            return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())

    return GPT()


def get_batch(lib, data, block_size, batch_size):
    """Random windows of the text and the same windows shifted by one character."""
    starts = lib.randint(len(data) - block_size - 1, (batch_size,))
    x = lib.stack([data[i:i + block_size] for i in starts.tolist()])
    y = lib.stack([data[i + 1:i + block_size + 1] for i in starts.tolist()])
    return x, y


def main(lib=None, steps=20, block_size=32, batch_size=8, seed=1337):
    """Train for `steps` AdamW steps, print each loss; returns the losses."""
    if lib is None:
        import ember as lib
    lib.manual_seed(seed)
    chars = sorted(set(TEXT))
    data = lib.tensor([chars.index(c) for c in TEXT], dtype=lib.long)
    model = make_gpt(lib, len(chars), block_size)
    print(f"{len(chars)} characters, {sum(p.numel() for p in model.parameters())} parameters")
    optimizer = lib.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    losses = []
    for step in range(steps):
        x, y = get_batch(lib, data, block_size, batch_size)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        print(f"step {step:2d}  loss {losses[-1]:.4f}")
    print(f"uniform guess {math.log(len(chars)):.4f}, final {losses[-1]:.4f}")
    return losses


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torch", action="store_true", help="run under PyTorch instead")
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    if args.torch:
        import torch as library
    else:
        import ember as library
    main(library, steps=args.steps)
