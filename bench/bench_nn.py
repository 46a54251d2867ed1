"""nn benchmarks: ember vs PyTorch in one process, interleaved, median of repeats.

    python bench/bench_nn.py

Workloads: a LeNet training step (forward, cross-entropy, backward, SGD step) at
batch 64 on 28x28 inputs, and an MLP 784-256-256-10 training step at batch 256,
both built from nn modules with the same weights in both libraries.
"""
import numpy as np

import ember
from bench_core import compare, print_header, print_setup, torch


def lenet(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2, stride=2), nn.Flatten(),
        nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(), nn.Linear(84, 10))


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256),
                         nn.ReLU(), nn.Linear(256, 10))


def training_step(lib, model, opt, x, y):
    """zero_grad, forward, cross-entropy, backward, optimizer step."""
    opt.zero_grad()
    loss = lib.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def paired(build, batch, rng):
    """The same model (same weights) and batch in both libraries, with SGD.

    Returns one (step function) per library, ember's first.
    """
    torch.manual_seed(0)
    t_model = build(torch)
    e_model = build(ember)
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    steps = []
    for lib, model in ((ember, e_model), (torch, t_model)):
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
        args = (lib, model, opt, lib.tensor(x), lib.tensor(y))
        steps.append(lambda args=args: training_step(*args))
    return steps


def main():
    rng = np.random.default_rng(0)
    print_setup()
    print_header()
    compare("LeNet training step, batch 64", *paired(lenet, 64, rng), repeats=9, number=5)
    compare("MLP 784-256-256-10 training step, batch 256", *paired(mlp, 256, rng),
            repeats=9, number=10)


if __name__ == "__main__":
    main()
