"""Identity, Linear, Bilinear and LazyLinear (PyTorch's nn.Linear family).

Default initialisation follows PyTorch's reset_parameters draw for draw, so that
after `ember.manual_seed(s)` a layer holds the weights torch gives for seed s.
"""
import math

from ...autograd.grad_mode import no_grad
from ...ops.creation import empty
from ...ops.nn_linear import bilinear, linear
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module, _store_options

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with W of shape (out_features, in_features)."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Kaiming-uniform weight with a = sqrt(5) and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
        init._layer_default_(self.weight, self.bias)

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's alias of Linear used inside MultiheadAttention."""


class Bilinear(Module):
    """y = x1^T A x2 + b, with A of shape (out_features, in1_features, in2_features)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        _store_options(self, in1_features=in1_features, in2_features=in2_features,
                       out_features=out_features)
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device,
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # Both drawn from U(+-1/sqrt(in1_features)), the weight first.
        bound = 1 / math.sqrt(self.weight.size(1))
        for tensor in (self.weight, self.bias):
            if tensor is not None:
                init.uniform_(tensor, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is read from the first input's last dim."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # bias=False here: the placeholder bias is assigned below, as PyTorch does.
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        with no_grad():
            self.in_features = input.shape[-1]
            shapes = {"weight": (self.out_features, self.in_features),
                      "bias": (self.out_features,)}
            for name, shape in shapes.items():
                slot = getattr(self, name)
                if slot is not None:
                    slot.materialize(shape)
            self.reset_parameters()
