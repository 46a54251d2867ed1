"""Train a small convolutional network on scikit-learn's 8x8 handwritten digits.

The five-minute demo: the same code a PyTorch user writes (`import ember as torch`),
end to end — a seeded train/test split, `nn` layers, `optim.Adam`, a `DataLoader`, a
progress bar, a loss/accuracy plot, a picture of the backward graph (SVG) and a
checkpoint written with `ember.save`.

    python -m ember.examples.digits --epochs 10 --out ./digits-output

Needs the demo extras: `pip install 'ember-tensor[demo]'` (scikit-learn, tqdm, matplotlib).
The data ship with scikit-learn (1,797 images), so nothing is downloaded.
"""
import argparse
import importlib
import os
import time

import ember as torch
from ember import nn
from ember.utils.data import DataLoader, TensorDataset, random_split


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--out", default="./digits-output", help="folder for the plot and checkpoint")
    return parser.parse_args(argv)


_DEMO_EXTRAS = (("sklearn", "scikit-learn"), ("tqdm", "tqdm"), ("matplotlib", "matplotlib"))


def require_demo_extras():
    """Say which demo extras are missing before training, not at the first use after it."""
    missing = []
    for module, package in _DEMO_EXTRAS:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(package)
    if missing:
        raise SystemExit(f"the digits demo needs {', '.join(missing)}: "
                         "pip install 'ember-tensor[demo]' (or pip install -e '.[demo]' in a "
                         "checkout)")


def load_digits_dataset():
    """The digits as a TensorDataset of (1x8x8 float32 images scaled to [0, 1], int64 labels)."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
    labels = torch.tensor(digits.target, dtype=torch.int64)
    return TensorDataset(images, labels)


def make_model():
    """Two conv blocks (8x8 -> 4x4 -> 2x2) and a linear classifier: about 6k parameters."""
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 2 * 2, 10),
    )


def train_epoch(model, loader, optimizer, device, progress):
    """One pass over `loader`; returns (mean loss, accuracy) over the samples seen."""
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for images, labels in progress(loader):
        images, labels = images.to(device), labels.to(device)
        logits = model(images)
        loss = nn.functional.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(labels)
        correct += (logits.argmax(dim=1) == labels).sum().item()
        seen += len(labels)
        progress.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}")
    return total_loss / seen, correct / seen


@torch.no_grad()
def evaluate(model, loader, device):
    """(mean loss, accuracy) of `model` on `loader`, in eval mode (no dropout, running BN stats)."""
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        logits = model(images)
        total_loss += nn.functional.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(dim=1) == labels).sum().item()
        seen += len(labels)
    return total_loss / seen, correct / seen


class _Progress:
    """A tqdm bar per epoch, made fresh for each pass so it shows that epoch's loss and accuracy."""

    def __init__(self, epoch, epochs):
        self.description = f"epoch {epoch}/{epochs}"
        self.bar = None

    def __call__(self, iterable):
        from tqdm import tqdm
        self.bar = tqdm(iterable, desc=self.description, unit="batch", leave=True)
        return self.bar

    def set_postfix(self, **values):
        self.bar.set_postfix(**values)


def save_curves(history, path):
    """Plot loss and accuracy per epoch (train and test) into a PNG, without a display."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    epochs = range(1, len(history["train_loss"]) + 1)
    figure, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(9, 3.5))
    loss_axes.plot(epochs, history["train_loss"], "o-", label="train")
    loss_axes.plot(epochs, history["test_loss"], "o-", label="test")
    loss_axes.set(xlabel="epoch", ylabel="cross-entropy", title="loss")
    accuracy_axes.plot(epochs, history["train_acc"], "o-", label="train")
    accuracy_axes.plot(epochs, history["test_acc"], "o-", label="test")
    accuracy_axes.set(xlabel="epoch", ylabel="accuracy", title="accuracy")
    for axes in (loss_axes, accuracy_axes):
        axes.legend()
        axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def save_graph(model, loader, device, path):
    """Draw the backward graph of one batch's loss into an SVG (no Graphviz needed).

    The boxes are the nodes `loss.backward()` would run, named as PyTorch names them, with
    the model's parameters as the leaves; no backward runs, so no gradient is touched.
    """
    images, labels = next(iter(loader))
    model.eval()
    loss = nn.functional.cross_entropy(model(images[:4].to(device)), labels[:4].to(device))
    with open(path, "w") as file:
        file.write(torch.autograd.draw_graph(loss, params=model))


def main(argv=None):
    """Train, evaluate, plot and checkpoint; returns the model, its history and the written paths."""
    args = parse_args(argv)
    require_demo_extras()
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: CUDA is not available here; use --device cpu")
    start = time.perf_counter()
    torch.manual_seed(args.seed)  # initial weights and dropout masks
    device = torch.device(args.device)

    dataset = load_digits_dataset()
    split = torch.Generator().manual_seed(args.seed)
    train_set, test_set = random_split(dataset, [0.8, 0.2], generator=split)
    shuffle = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              generator=shuffle)
    test_loader = DataLoader(test_set, batch_size=256)

    model = make_model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    for epoch in range(1, args.epochs + 1):
        train_loss, train_acc = train_epoch(model, train_loader, optimizer, device,
                                            _Progress(epoch, args.epochs))
        scheduler.step()
        test_loss, test_acc = evaluate(model, test_loader, device)
        for key, value in zip(history, (train_loss, train_acc, test_loss, test_acc)):
            history[key].append(value)

    os.makedirs(args.out, exist_ok=True)
    plot_path = os.path.join(args.out, "digits_curves.png")
    checkpoint_path = os.path.join(args.out, "digits_cnn.pt")
    graph_path = os.path.join(args.out, "digits_graph.svg")
    save_curves(history, plot_path)
    save_graph(model, test_loader, device, graph_path)
    torch.save(model.state_dict(), checkpoint_path)
    elapsed = time.perf_counter() - start
    print(f"test accuracy: {history['test_acc'][-1]:.4f} "
          f"({len(test_set)} held-out images, {args.epochs} epochs)")
    print(f"saved {plot_path}, {graph_path} and {checkpoint_path}")
    print(f"elapsed: {elapsed:.1f} s")
    return {"model": model, "history": history, "test_accuracy": history["test_acc"][-1], "elapsed": elapsed,
            "plot": plot_path, "graph": graph_path, "checkpoint": checkpoint_path}


if __name__ == "__main__":
    main()
