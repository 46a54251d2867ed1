"""nn benchmarks: ember vs PyTorch in one process, interleaved, median of repeats.

    python bench/bench_nn.py

Workloads, each a training step (zero_grad, forward, cross-entropy, backward,
SGD step) built from nn modules with the same weights in both libraries:

- conv: batch 64 of 1x28x28, Conv2d(1, 16, 3, padding=1), ReLU, MaxPool2d(2),
  Flatten, Linear(3136, 10); also timed as hand-written NumPy (im2col + one GEMM
  per product, the reference ember's convolution should at least match);
- lenet: LeNet-5 (sigmoid, average pooling) at batch 64 on 28x28;
- vgg: a VGG block (two 3x3 convolutions with 64 channels, ReLU, max pool) on
  batch 32 of 3x32x32, then Flatten and Linear;
- resnet: a ResNet basic block (conv-bn-relu-conv-bn plus the identity, ReLU) with
  64 channels on batch 16 of 16x16, then global average pooling and Linear;
- mlp: MLP 784-256-256-10 at batch 256.
"""
import numpy as np

import ember
from bench_core import compare, print_header, print_setup, torch, measure, print_row


def conv_net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(16 * 14 * 14, 10))


def lenet(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2, stride=2), nn.Flatten(),
        nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(), nn.Linear(84, 10))


def vgg_block(lib):
    """d2l's vgg_block(2, 64) on 3-channel 32x32 images, with a linear head."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 64, kernel_size=3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 64, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2, stride=2),
        nn.Flatten(), nn.Linear(64 * 16 * 16, 10))


def resnet_block(lib):
    """d2l's Residual(64) (identity shortcut) with global average pooling and a linear head."""
    nn = lib.nn

    class Residual(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
            self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm2d(channels)
            self.bn2 = nn.BatchNorm2d(channels)

        def forward(self, x):
            y = nn.functional.relu(self.bn1(self.conv1(x)))
            return nn.functional.relu(self.bn2(self.conv2(y)) + x)

    return nn.Sequential(Residual(64), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


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


def paired(build, batch, rng, image=(1, 28, 28)):
    """The same model (same weights) and batch in both libraries, with SGD.

    Returns one (step function) per library, ember's first.
    """
    torch.manual_seed(0)
    t_model = build(torch)
    e_model = build(ember)
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    x = rng.standard_normal((batch,) + image).astype(np.float32)
    y = rng.integers(0, 10, batch)
    steps = []
    for lib, model in ((ember, e_model), (torch, t_model)):
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
        args = (lib, model, opt, lib.tensor(x), lib.tensor(y))
        steps.append(lambda args=args: training_step(*args))
    return steps


# ---------------------------------------------------------------- the NumPy reference
class NumpyConvNet:
    """conv_net's training step written by hand in NumPy: the bar for ember's convolution.

    im2col through a strided view and one copy, each product one GEMM, col2im by
    strided adds over the 9 kernel offsets, max pooling by the maximum of the four window corners.
    """

    def __init__(self, t_model, lr=0.01):
        state = {k: v.numpy().copy() for k, v in t_model.state_dict().items()}
        self.w, self.b = state["0.weight"], state["0.bias"]
        self.fw, self.fb = state["4.weight"], state["4.bias"]
        self.lr = lr

    def step(self, x, y):
        n = x.shape[0]
        w, lr = self.w, self.lr
        o, c, kh, kw = w.shape
        h, wd = x.shape[2:]
        padded = np.zeros((n, c, h + 2, wd + 2), x.dtype)
        padded[:, :, 1:-1, 1:-1] = x
        s = padded.strides
        win = np.lib.stride_tricks.as_strided(
            padded, (n, c, kh, kw, h, wd), (s[0], s[1], s[2], s[3], s[2], s[3]))
        cols = np.ascontiguousarray(win).reshape(n, c * kh * kw, h * wd)
        z = np.matmul(w.reshape(o, -1), cols).reshape(n, o, h, wd) + self.b[:, None, None]
        a = np.maximum(z, 0)
        corners = [a[:, :, i::2, j::2] for i in range(2) for j in range(2)]
        pooled = np.maximum(np.maximum(corners[0], corners[1]),
                            np.maximum(corners[2], corners[3]))
        flat = pooled.reshape(n, -1)
        logits = flat @ self.fw.T + self.fb
        shifted = logits - logits.max(1, keepdims=True)
        p = np.exp(shifted)
        p /= p.sum(1, keepdims=True)
        loss = -np.log(p[np.arange(n), y]).mean()
        p[np.arange(n), y] -= 1
        g_logits = p / n
        g_fw, g_fb = g_logits.T @ flat, g_logits.sum(0)
        g_pooled = (g_logits @ self.fw).reshape(pooled.shape)
        g_a = np.empty_like(a)
        for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            g_a[:, :, i::2, j::2] = g_pooled * (corners[k] == pooled)   # ties: all of them
        g_z = g_a * (z > 0)
        g_flat = g_z.reshape(n, o, h * wd)
        g_w = np.matmul(g_flat, cols.transpose(0, 2, 1)).sum(0).reshape(w.shape)
        g_b = g_flat.sum((0, 2))
        g_cols = np.matmul(w.reshape(o, -1).T, g_flat).reshape(n, c, kh, kw, h, wd)
        g_padded = np.zeros_like(padded)
        for i in range(kh):
            for j in range(kw):
                g_padded[:, :, i:i + h, j:j + wd] += g_cols[:, :, i, j]
        g_x = g_padded[:, :, 1:-1, 1:-1]   # what a first layer would pass on
        self.w -= lr * g_w
        self.b -= lr * g_b
        self.fw -= lr * g_fw
        self.fb -= lr * g_fb
        return loss, g_x


def conv_numpy_step(rng, batch=64):
    """The NumPy reference's step function, on conv_net's weights and a batch like paired's."""
    torch.manual_seed(0)
    net = NumpyConvNet(conv_net(torch))
    x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    return lambda: net.step(x, y)


def main():
    print_setup()
    print_header()
    compare("conv training step (conv3x3 16ch, relu, maxpool2, linear), batch 64",
            *paired(conv_net, 64, np.random.default_rng(0)), repeats=11, number=10)
    e, t = measure(conv_numpy_step(np.random.default_rng(0)),
                   paired(conv_net, 64, np.random.default_rng(0))[1], 11, 10)
    print_row("the same step in hand-written NumPy (im2col + GEMM)", e, t)
    compare("LeNet training step, batch 64", *paired(lenet, 64, np.random.default_rng(0)),
            repeats=9, number=5)
    compare("VGG block (2x conv3x3 64ch, maxpool) step, batch 32, 3x32x32",
            *paired(vgg_block, 32, np.random.default_rng(0), (3, 32, 32)), repeats=7, number=2)
    compare("ResNet basic block (64ch) step, batch 16, 64x16x16",
            *paired(resnet_block, 16, np.random.default_rng(0), (64, 16, 16)), repeats=7,
            number=2)
    compare("MLP 784-256-256-10 training step, batch 256",
            *paired(mlp, 256, np.random.default_rng(0)), repeats=9, number=10)


if __name__ == "__main__":
    main()
