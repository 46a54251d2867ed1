"""Softmax (multinomial logistic) regression on scikit-learn's 8x8 digits, written out:
a weight matrix, log_softmax, the negative log-likelihood, and plain gradient descent.

    python examples/softmax_regression.py
"""
import ember as torch
import ember.nn.functional as F


def load_data(seed=0):
    """Flattened digits (64 features in [0, 1]) split 80/20 with a fixed permutation."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    torch.manual_seed(seed)
    order = torch.randperm(len(y))
    cut = int(0.8 * len(y))
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def main(steps=300, lr=0.5, seed=0):
    """Fit W, b by full-batch gradient descent; returns the test accuracy."""
    x_train, y_train, x_test, y_test = load_data(seed)
    weight = torch.zeros(64, 10, requires_grad=True)
    bias = torch.zeros(10, requires_grad=True)
    for step in range(steps):
        log_probs = F.log_softmax(x_train @ weight + bias, dim=1)
        # the negative log-likelihood of the right class, picked out by advanced indexing
        loss = -log_probs[torch.arange(len(y_train)), y_train].mean()
        loss.backward()
        with torch.no_grad():
            weight -= lr * weight.grad
            bias -= lr * bias.grad
            weight.grad.zero_()
            bias.grad.zero_()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    with torch.no_grad():
        accuracy = ((x_test @ weight + bias).argmax(dim=1) == y_test).float().mean().item()
    print(f"test accuracy: {accuracy:.4f}")
    return accuracy


if __name__ == "__main__":
    main()
