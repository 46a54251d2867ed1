"""LeNet-5 on scikit-learn's digits, upsampled from 8x8 to 28x28 (the MNIST size LeNet
expects) with F.interpolate, then the classic stack: Conv2d, ReLU, max pooling, Linear.

    python examples/lenet.py
"""
import ember as torch
import ember.nn.functional as F
from ember import nn
from ember.utils.data import DataLoader, TensorDataset, random_split


class LeNet(nn.Module):
    """LeNet-5 as in most tutorials: 1x28x28 -> 6x28x28 -> 6x14x14 -> 16x10x10 -> 16x5x5 -> 10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def load_data(seed=0, limit=None):
    """Digits as 1x28x28 images in [0, 1] (bilinear upsampling), split 80/20 with a seeded generator."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = torch.tensor(digits.images[:limit], dtype=torch.float32).unsqueeze(1) / 16.0
    images = F.interpolate(images, size=(28, 28), mode="bilinear", align_corners=False)
    dataset = TensorDataset(images, torch.tensor(digits.target[:limit]))
    return random_split(dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(seed))


def main(epochs=3, lr=2e-3, seed=0, limit=None):
    """Train LeNet (on the first `limit` images, if given); returns the test accuracy."""
    torch.manual_seed(seed)
    train_set, test_set = load_data(seed, limit)
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    test_loader = DataLoader(test_set, batch_size=256)
    model = LeNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(1, epochs + 1):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            correct = sum((model(x).argmax(1) == y).sum().item() for x, y in test_loader)
        test_accuracy = correct / len(test_set)
        print(f"epoch {epoch}  last batch loss {loss.item():.4f}  test accuracy {test_accuracy:.4f}")
    return test_accuracy


if __name__ == "__main__":
    main()
