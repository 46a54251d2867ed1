"""RReLU: the randomized leaky ReLU (its op, with torch's random stream, is in ops/nn_random.py)."""
from ...ops import nn_random
from .module import Module

__all__ = ["RReLU"]


class RReLU(Module):
    """Leaky ReLU with a slope drawn from U(lower, upper) in training, their mean in eval."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return nn_random.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"
