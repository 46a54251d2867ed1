"""A multilayer perceptron with dropout on scikit-learn's 8x8 digits: nn.Module subclass,
train()/eval() modes, mini-batches from a DataLoader, and optim.Adam.

    python examples/mlp_dropout.py
"""
import ember as torch
from ember import nn
from ember.utils.data import DataLoader, TensorDataset, random_split


class MLP(nn.Module):
    """64 -> hidden -> hidden -> 10, with dropout after each hidden layer (active in train only)."""

    def __init__(self, hidden=128, p=0.3):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(64, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, 10),
        )

    def forward(self, x):
        return self.layers(x.flatten(1))


def load_data(seed=0):
    """Train and test datasets of (64 features in [0, 1], label), split 80/20 with a seeded generator."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    dataset = TensorDataset(torch.tensor(digits.data, dtype=torch.float32) / 16.0,
                            torch.tensor(digits.target))
    return random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(seed))


def accuracy(model, loader):
    """Fraction classified right, with dropout off (eval mode) and no graph recorded."""
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return correct / total


def main(epochs=10, hidden=128, lr=3e-3, seed=0):
    """Train the MLP; returns the test accuracy."""
    torch.manual_seed(seed)
    train_set, test_set = load_data(seed)
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    test_loader = DataLoader(test_set, batch_size=256)
    model = MLP(hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(1, epochs + 1):
        model.train()
        for x, y in train_loader:
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        test_accuracy = accuracy(model, test_loader)
        print(f"epoch {epoch:2d}  last batch loss {loss.item():.4f}  test accuracy {test_accuracy:.4f}")
    return test_accuracy


if __name__ == "__main__":
    main()
