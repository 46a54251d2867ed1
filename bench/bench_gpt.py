"""GPT benchmark: one training step of a small character GPT, ember vs PyTorch.

    python bench/bench_gpt.py [--profile]

The model is examples/char_gpt.py's (pre-norm blocks of causal self-attention through
F.scaled_dot_product_attention(is_causal=True) and a GELU MLP) at 4 blocks, n_embd 128,
4 heads, context 64, vocabulary 65, batch 16. The step: forward, cross-entropy, backward,
AdamW step; both libraries start from the same weights and see the same batch.
--profile prints cProfile's top entries for ember's step instead.
"""
import cProfile
import os
import pstats
import sys

import numpy as np

import ember
from bench_core import compare, print_header, print_setup, torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from char_gpt import make_gpt  # noqa: E402

CONFIG = dict(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
BATCH = 16


def training_step(model, optimizer, x, y):
    """Forward with the cross-entropy loss, backward, AdamW step."""
    _, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss


def gpt_pair():
    """The same GPT, batch and AdamW in both libraries: [ember step, torch step]."""
    torch.manual_seed(0)
    t_model = make_gpt(torch, **CONFIG)
    e_model = make_gpt(ember, **CONFIG)
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, CONFIG["vocab_size"], (2, BATCH, CONFIG["block_size"]))
    steps = []
    for lib, model in ((ember, e_model), (torch, t_model)):
        optimizer = lib.optim.AdamW(model.parameters(), lr=3e-4)
        args = (model, optimizer, lib.tensor(tokens[0]), lib.tensor(tokens[1]))
        steps.append(lambda args=args: training_step(*args))
    return steps


def profile(step, calls=10):
    step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        step()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main():
    if "--profile" in sys.argv:
        profile(gpt_pair()[0])
        return
    print_setup()
    print_header()
    compare("GPT training step (4 blocks, 128 wide, 4 heads, context 64, batch 16, AdamW)",
            *gpt_pair(), repeats=9, number=3)


if __name__ == "__main__":
    main()
