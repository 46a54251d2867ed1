"""Attention benchmarks: ember vs PyTorch in one process, interleaved, median of repeats.

    python bench/bench_attention.py

Workloads: scaled_dot_product_attention forward + backward at a small GPT's size
(batch 16, 4 heads, 64 positions, head size 32, causal), which both libraries run
through their fused CPU route, and the same call with dropout 0.1 (the composite route);
then an nn.MultiheadAttention (embed 128, 4 heads) forward + backward on (16, 64, 128).
"""
import numpy as np

import ember
from bench_core import compare, print_header, print_setup, torch


def sdpa_pair(dropout_p):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((16, 4, 64, 32)).astype(np.float32) for _ in range(4)]
    steps = []
    for lib in (ember, torch):
        q, k, v = (lib.tensor(a).requires_grad_() for a in arrays[:3])
        grad = lib.tensor(arrays[3])

        def step(lib=lib, q=q, k=k, v=v, grad=grad):
            out = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p,
                                                                 is_causal=True)
            out.backward(grad)
        steps.append(step)
    return steps


def mha_pair():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 64, 128)).astype(np.float32)
    mask = np.triu(np.ones((64, 64), bool), 1)
    torch.manual_seed(0)
    t_layer = torch.nn.MultiheadAttention(128, 4, batch_first=True)
    e_layer = ember.nn.MultiheadAttention(128, 4, batch_first=True)
    e_layer.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_layer.state_dict().items()})
    steps = []
    for lib, layer in ((ember, e_layer), (torch, t_layer)):
        inputs, causal = lib.tensor(x), lib.tensor(mask)

        def step(layer=layer, inputs=inputs, causal=causal):
            out, _ = layer(inputs, inputs, inputs, attn_mask=causal, need_weights=False,
                           is_causal=True)
            out.sum().backward()
        steps.append(step)
    return steps


def main():
    print_setup()
    print_header()
    compare("SDPA fwd+bwd, causal (16x4x64x32)", *sdpa_pair(0.0), repeats=15, number=10)
    compare("SDPA fwd+bwd, causal, dropout 0.1", *sdpa_pair(0.1), repeats=15, number=10)
    compare("MultiheadAttention fwd+bwd (16x64x128)", *mha_pair(), repeats=15, number=5)


if __name__ == "__main__":
    main()
