"""A first tour of ember, written exactly as PyTorch code: tensors, views, broadcasting,
autograd on y = x^2 + 2x + 1, linear regression by hand, then with nn.Linear and optim.SGD.

    python examples/tensor_tutorial.py
"""
import ember as torch
from ember import nn


def tensors():
    """Creation, dtypes, views that share memory, and broadcasting."""
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    print("a =", a, a.shape, a.dtype)
    print("zeros:", torch.zeros(2, 2), "arange:", torch.arange(5), "eye:", torch.eye(2), sep="\n")

    flat = a.view(6)               # a view: same storage, new shape
    flat[0] = 100.0
    print("after writing through the view, a[0, 0] =", a[0, 0].item())
    print("transpose is a view too:", a.t().is_contiguous(), a.t().stride())

    row = torch.tensor([10.0, 20.0, 30.0])          # shape (3,) broadcasts against (2, 3)
    column = torch.tensor([[1.0], [2.0]])           # shape (2, 1) broadcasts too
    print("a + row =", a + row, "column * row =", column * row, sep="\n")
    return a + row


def autograd_polynomial():
    """d/dx (x^2 + 2x + 1) = 2x + 2, so at x = 3 the gradient is 8."""
    x = torch.tensor(3.0, requires_grad=True)
    y = x ** 2 + 2 * x + 1
    y.backward()
    print(f"y = {y.item()}, dy/dx = {x.grad.item()}  (grad_fn: {type(y.grad_fn).__name__})")
    return x.grad


def make_line_data(n=64, seed=0):
    """Points on y = 3x - 1 with a little noise."""
    torch.manual_seed(seed)
    x = torch.rand(n, 1) * 2 - 1
    y = 3 * x - 1 + 0.05 * torch.randn(n, 1)
    return x, y


def linear_regression_by_hand(x, y, steps=200, lr=0.5):
    """Gradient descent written out: forward, backward, update under no_grad, zero the grads."""
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(steps):
        loss = ((x * w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f"by hand:   w = {w.item():.3f}, b = {b.item():.3f}, loss = {loss.item():.5f}")
    return w.item(), b.item()


def linear_regression_nn(x, y, steps=200, lr=0.5):
    """The same fit with the building blocks: nn.Linear, nn.MSELoss, optim.SGD."""
    model = nn.Linear(1, 1)
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    w, b = model.weight.item(), model.bias.item()
    print(f"nn.Linear: w = {w:.3f}, b = {b:.3f}, loss = {loss.item():.5f}")
    return w, b


def main(steps=200):
    """Run every section; returns the fitted (w, b) of both regressions."""
    tensors()
    autograd_polynomial()
    x, y = make_line_data()
    return linear_regression_by_hand(x, y, steps), linear_regression_nn(x, y, steps)


if __name__ == "__main__":
    main()
