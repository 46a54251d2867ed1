"""Transformer-shaped ops, one at a time: ember vs PyTorch in one process, interleaved.

    python bench/bench_transformer_ops.py [--only NAME ...] [--repeats N]

Each workload is one op at the GPT step's shapes (bench/bench_gpt.py: batch 16, context 64,
width 128, 4 heads of 32, vocabulary 65), forward and, where the op has one, backward with
a fixed upstream gradient; gradients are dropped after each call, not accumulated. The rows
say where a transformer step's time goes op by op, so that a slow one shows by its ratio
instead of hiding in the whole step (issue 14, item 6).
"""
import argparse

import numpy as np

import ember
from bench_core import measure, print_header, print_row, print_setup, torch

BATCH, CONTEXT, WIDTH, HEADS = 16, 64, 128, 4
HEAD = WIDTH // HEADS


def _arrays(rng, *shapes):
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def _drop_grads(*tensors):
    for t in tensors:
        t.grad = None


def unary_pair(op, shape, **kwargs):
    """op(x, **kwargs) forward + backward on a (shape) float32 tensor."""
    x, g = _arrays(np.random.default_rng(0), shape, shape)
    steps = []
    for lib in (ember, torch):
        tx, tg, fn = lib.tensor(x, requires_grad=True), lib.tensor(g), op(lib)

        def step(tx=tx, tg=tg, fn=fn):
            fn(tx, **kwargs).backward(tg)
            tx.grad = None
        steps.append(step)
    return steps


def layer_norm_pair():
    """F.layer_norm over the last dim of (16, 64, 128), with weight and bias."""
    rng = np.random.default_rng(0)
    x, g = _arrays(rng, (BATCH, CONTEXT, WIDTH), (BATCH, CONTEXT, WIDTH))
    w, b = 1 + 0.1 * rng.standard_normal(WIDTH, dtype=np.float32), _arrays(rng, (WIDTH,))[0]
    steps = []
    for lib in (ember, torch):
        tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        tg = lib.tensor(g)

        def step(lib=lib, tx=tx, tw=tw, tb=tb, tg=tg):
            lib.nn.functional.layer_norm(tx, (WIDTH,), tw, tb).backward(tg)
            _drop_grads(tx, tw, tb)
        steps.append(step)
    return steps


def masked_fill_pair():
    """scores.masked_fill(causal, -inf) on (16, 4, 64, 64) scores, the mask (64, 64)."""
    scores, g = _arrays(np.random.default_rng(0), (BATCH, HEADS, CONTEXT, CONTEXT),
                        (BATCH, HEADS, CONTEXT, CONTEXT))
    mask = np.triu(np.ones((CONTEXT, CONTEXT), bool), 1)
    steps = []
    for lib in (ember, torch):
        tx, tm, tg = lib.tensor(scores, requires_grad=True), lib.tensor(mask), lib.tensor(g)

        def step(tx=tx, tm=tm, tg=tg):
            tx.masked_fill(tm, float("-inf")).backward(tg)
            tx.grad = None
        steps.append(step)
    return steps


def attention_chain_pair():
    """The hand-written attention core: q @ k^T * scale, causal mask, softmax, @ v."""
    rng = np.random.default_rng(0)
    q, k, v, g = _arrays(rng, *[(BATCH, HEADS, CONTEXT, HEAD)] * 4)
    mask = np.triu(np.ones((CONTEXT, CONTEXT), bool), 1)
    steps = []
    for lib in (ember, torch):
        tq, tk, tv = (lib.tensor(a, requires_grad=True) for a in (q, k, v))
        tm, tg = lib.tensor(mask), lib.tensor(g)

        def step(tq=tq, tk=tk, tv=tv, tm=tm, tg=tg):
            scores = (tq @ tk.transpose(-2, -1)) * HEAD ** -0.5
            weights = scores.masked_fill(tm, float("-inf")).softmax(-1)
            (weights @ tv).backward(tg)
            _drop_grads(tq, tk, tv)
        steps.append(step)
    return steps


def bmm4_pair(left, right):
    """A 4-D batched matmul (left @ right) forward + backward into both operands."""
    rng = np.random.default_rng(0)
    a, b = _arrays(rng, left, right)
    g = _arrays(rng, left[:-1] + right[-1:])[0]
    steps = []
    for lib in (ember, torch):
        ta, tb, tg = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True), \
            lib.tensor(g)

        def step(ta=ta, tb=tb, tg=tg):
            (ta @ tb).backward(tg)
            _drop_grads(ta, tb)
        steps.append(step)
    return steps


def qk_pair():
    """q @ k.transpose(-2, -1): the right operand a transposed view, as attention uses it."""
    rng = np.random.default_rng(0)
    q, k = _arrays(rng, (BATCH, HEADS, CONTEXT, HEAD), (BATCH, HEADS, CONTEXT, HEAD))
    g = _arrays(rng, (BATCH, HEADS, CONTEXT, CONTEXT))[0]
    steps = []
    for lib in (ember, torch):
        tq, tk, tg = lib.tensor(q, requires_grad=True), lib.tensor(k, requires_grad=True), \
            lib.tensor(g)

        def step(tq=tq, tk=tk, tg=tg):
            (tq @ tk.transpose(-2, -1)).backward(tg)
            _drop_grads(tq, tk)
        steps.append(step)
    return steps


def embedding_pair(vocab):
    """F.embedding of (16, 64) token ids into a (vocab, 128) table, backward into the table."""
    rng = np.random.default_rng(0)
    idx = rng.integers(0, vocab, (BATCH, CONTEXT))
    w, g = _arrays(rng, (vocab, WIDTH), (BATCH, CONTEXT, WIDTH))
    steps = []
    for lib in (ember, torch):
        ti, tw, tg = lib.tensor(idx), lib.tensor(w, requires_grad=True), lib.tensor(g)

        def step(lib=lib, ti=ti, tw=tw, tg=tg):
            lib.nn.functional.embedding(ti, tw).backward(tg)
            tw.grad = None
        steps.append(step)
    return steps


def cross_entropy_pair(vocab):
    """F.cross_entropy of (1024, vocab) logits against 1024 targets, forward + backward."""
    rng = np.random.default_rng(0)
    logits = _arrays(rng, (BATCH * CONTEXT, vocab))[0]
    targets = rng.integers(0, vocab, BATCH * CONTEXT)
    steps = []
    for lib in (ember, torch):
        tx, tt = lib.tensor(logits, requires_grad=True), lib.tensor(targets)

        def step(lib=lib, tx=tx, tt=tt):
            lib.nn.functional.cross_entropy(tx, tt).backward()
            tx.grad = None
        steps.append(step)
    return steps


ACTIVATIONS = (BATCH, CONTEXT, 4 * WIDTH)
SCORES = (BATCH, HEADS, CONTEXT, CONTEXT)
QKV = (BATCH, HEADS, CONTEXT, HEAD)

# key: (row label, builder of [ember_fn, torch_fn], calls per repeat)
WORKLOADS = {
    "gelu": ("gelu fwd+bwd (16x64x512)",
             lambda: unary_pair(lambda lib: lib.nn.functional.gelu, ACTIVATIONS), 10),
    "gelu_tanh": ("gelu(approximate='tanh') fwd+bwd (16x64x512)",
                  lambda: unary_pair(lambda lib: lib.nn.functional.gelu, ACTIVATIONS,
                                     approximate="tanh"), 10),
    "softmax": ("softmax(-1) fwd+bwd (16x4x64x64)",
                lambda: unary_pair(lambda lib: lib.softmax, SCORES, dim=-1), 10),
    "log_softmax": ("log_softmax(-1) fwd+bwd (16x4x64x64)",
                    lambda: unary_pair(lambda lib: lib.log_softmax, SCORES, dim=-1), 10),
    "log_softmax_65": ("log_softmax(-1) fwd+bwd (1024x65)",
                       lambda: unary_pair(lambda lib: lib.log_softmax, (1024, 65), dim=-1),
                       20),
    "layer_norm": ("layer_norm fwd+bwd (16x64x128, affine)", layer_norm_pair, 20),
    "masked_fill": ("masked_fill(causal, -inf) fwd+bwd (16x4x64x64)", masked_fill_pair, 10),
    "qk": ("q @ k^T fwd+bwd (16x4x64x32 @ 16x4x32x64)", qk_pair, 10),
    "av": ("att @ v fwd+bwd (16x4x64x64 @ 16x4x64x32)", lambda: bmm4_pair(SCORES, QKV), 10),
    "attention": ("hand-written causal attention fwd+bwd (16x4x64x32)", attention_chain_pair,
                  5),
    "embedding_65": ("embedding fwd+bwd (16x64 ids, 65x128 table)",
                     lambda: embedding_pair(65), 20),
    "embedding_512": ("embedding fwd+bwd (16x64 ids, 512x128 table)",
                      lambda: embedding_pair(512), 20),
    "cross_entropy_65": ("cross_entropy fwd+bwd (1024x65)", lambda: cross_entropy_pair(65), 20),
    "cross_entropy_512": ("cross_entropy fwd+bwd (1024x512)", lambda: cross_entropy_pair(512),
                          10),
}


def all_ops_pair():
    """Every workload above once per call, as one [ember, torch] pair (bench/run.py's row)."""
    pairs = [build() for _, build, _ in WORKLOADS.values()]

    def sequence(steps):
        for step in steps:
            step()
    return [lambda steps=[pair[i] for pair in pairs]: sequence(steps) for i in (0, 1)]


def run(names=None, repeats=9):
    """Time each workload (all by default), print its row; returns {name: ratio}."""
    ratios = {}
    for key in names or WORKLOADS:
        label, build, number = WORKLOADS[key]
        e, t = measure(*build(), repeats, number)
        print_row(label, e, t)
        ratios[key] = e / t
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help=f"one of: {', '.join(WORKLOADS)} (repeatable, or comma-separated)")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    names = [n for names in args.only for n in names.split(",") if n]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}")
    print_setup()
    print_header()
    run(names, args.repeats)


if __name__ == "__main__":
    main()
