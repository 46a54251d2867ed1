"""Gradients of the convolutions with respect to their input or weight, as functions.

`nn.grad.conv2d_input(input_size, weight, grad_output)` answers "what gradient reaches
the input of this conv2d?" without the caller building the forward graph. ember gets
the answer from its own engine: a fresh leaf of the requested size goes through the
convolution and the engine sends `grad_output` back, so these stay consistent with the
convolutions' backward by construction. When the weight (or input) or grad_output
requires grad, the answer is built with create_graph and is differentiable in them, as
PyTorch's is (its node there is ConvolutionBackwardBackward0; ember's is the conv's own
backward graph).
"""
from ..autograd import grad as _engine_grad
from ..autograd.grad_mode import enable_grad
from ..ops.conv import conv1d, conv2d, conv3d
from ..ops.creation import zeros

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight",
           "conv3d_input", "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        leaf = zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device,
                     requires_grad=True)
        output = conv(leaf, weight, None, stride, padding, dilation, groups)
        differentiable = weight.requires_grad or grad_output.requires_grad
        return _engine_grad(output, leaf, grad_output, create_graph=differentiable)[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    with enable_grad():
        leaf = zeros(tuple(weight_size), dtype=grad_output.dtype, device=grad_output.device,
                     requires_grad=True)
        output = conv(input, leaf, None, stride, padding, dilation, groups)
        differentiable = input.requires_grad or grad_output.requires_grad
        return _engine_grad(output, leaf, grad_output, create_graph=differentiable)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to an input of shape `input_size`."""
    return _input_grad(conv1d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to a weight of shape `weight_size`."""
    return _weight_grad(conv1d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv2d with respect to an input of shape `input_size`."""
    return _input_grad(conv2d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv2d with respect to a weight of shape `weight_size`."""
    return _weight_grad(conv2d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv3d with respect to an input of shape `input_size`."""
    return _input_grad(conv3d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv3d with respect to a weight of shape `weight_size`."""
    return _weight_grad(conv3d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)
