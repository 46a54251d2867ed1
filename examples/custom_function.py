"""A custom autograd.Function: Swish (x * sigmoid(x)) with a hand-written backward,
verified against finite differences with autograd.gradcheck, then used inside a model.

    python examples/custom_function.py
"""
import ember as torch
from ember import nn


class Swish(torch.autograd.Function):
    """swish(x) = x * sigmoid(x);  d/dx = s + x * s * (1 - s)  where s = sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_output):
        x, s = ctx.saved_tensors
        return grad_output * (s + x * s * (1 - s))


class ClippedReLU(torch.autograd.Function):
    """min(max(x, 0), ceiling): the gradient passes only where 0 < x < ceiling."""

    @staticmethod
    def forward(ctx, x, ceiling=6.0):
        ctx.save_for_backward(x)
        ctx.ceiling = ceiling
        return x.clamp(0.0, ceiling)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inside = (x > 0) & (x < ctx.ceiling)
        return grad_output * inside, None  # no gradient for the `ceiling` argument


class SwishLayer(nn.Module):
    def forward(self, x):
        return Swish.apply(x)


def check_gradients(seed=0):
    """gradcheck compares the hand-written backward with finite differences (float64 needed)."""
    torch.manual_seed(seed)
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    swish_ok = torch.autograd.gradcheck(Swish.apply, (x,))
    # keep the points away from the kinks at 0 and 6, where ClippedReLU has no derivative
    y = torch.rand(12, dtype=torch.float64) * 8 - 1
    y = y.masked_fill((y.abs() < 0.1) | ((y - 6).abs() < 0.1), 3.0).requires_grad_()
    clipped_ok = torch.autograd.gradcheck(lambda t: ClippedReLU.apply(t, 6.0), (y,))
    print(f"gradcheck Swish: {swish_ok}, ClippedReLU: {clipped_ok}")
    return swish_ok and clipped_ok


def fit_with_swish(steps=200, seed=0):
    """A tiny regression of sin(3x) with Swish activations; returns the final loss."""
    torch.manual_seed(seed)
    x = torch.linspace(-1, 1, 64).unsqueeze(1)
    y = torch.sin(3 * x)
    model = nn.Sequential(nn.Linear(1, 32), SwishLayer(), nn.Linear(32, 32), SwishLayer(),
                          nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"sin(3x) fitted with Swish layers: loss {loss.item():.5f} after {steps} steps")
    return loss.item()


def main(steps=200, seed=0):
    """Check both Functions' gradients, then train with one; returns (gradcheck ok, final loss)."""
    return check_gradients(seed), fit_with_swish(steps, seed)


if __name__ == "__main__":
    main()
