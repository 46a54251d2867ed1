"""Sequence-model benchmarks: ember vs PyTorch in one process, interleaved, median of repeats.

    python bench/bench_seq.py

Workload: one training step of a word-level LSTM language model (issue 12's target):
Embedding(1000, 200) -> 2-layer LSTM with 200 hidden units -> Linear(200, 1000), on
35 steps x 20 sequences of token ids; cross-entropy over every position, backward,
clip_grad_norm_(0.25), SGD. Both libraries hold the same weights and the same batch.
"""
import numpy as np

import ember
from bench_core import compare, print_header, print_setup, torch

VOCAB, EMBED, HIDDEN, LAYERS, STEPS, BATCH = 1000, 200, 200, 2, 35, 20


def word_lm(lib):
    """Embedding -> LSTM -> Linear, as a module holding its three parts."""
    nn = lib.nn

    class WordLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, EMBED)
            self.rnn = nn.LSTM(EMBED, HIDDEN, LAYERS)
            self.decoder = nn.Linear(HIDDEN, VOCAB)

        def forward(self, tokens):
            output, _ = self.rnn(self.embed(tokens))
            return self.decoder(output)

    return WordLM()


def lm_step(lib, model, opt, tokens, targets):
    """zero_grad, forward, cross-entropy, backward, gradient clipping, SGD step."""
    opt.zero_grad()
    logits = model(tokens)
    loss = lib.nn.functional.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))
    loss.backward()
    lib.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    return loss


def lm_pair(rng=None):
    """The same model (same weights) and batch in both libraries; ember's step first."""
    rng = rng or np.random.default_rng(0)
    torch.manual_seed(0)
    t_model = word_lm(torch)
    e_model = word_lm(ember)
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    tokens = rng.integers(0, VOCAB, (STEPS, BATCH))
    targets = rng.integers(0, VOCAB, (STEPS, BATCH))
    steps = []
    for lib, model in ((ember, e_model), (torch, t_model)):
        opt = lib.optim.SGD(model.parameters(), lr=1.0)
        args = (lib, model, opt, lib.tensor(tokens), lib.tensor(targets))
        steps.append(lambda args=args: lm_step(*args))
    return steps


def main():
    print_setup()
    print_header()
    compare(f"word LSTM LM training step (2x{HIDDEN}, seq {STEPS}, batch {BATCH})", *lm_pair(),
            repeats=11, number=3)


if __name__ == "__main__":
    main()
