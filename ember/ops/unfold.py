"""Sliding blocks and channel rearrangements: unfold (im2col), fold (col2im), pixel_shuffle,
pixel_unshuffle and channel_shuffle, each with PyTorch's own node.

unfold and fold are each other's adjoint, so each backward is the other op applied to the
incoming gradient (written with ember ops: double backward comes for free). The same holds for
pixel_shuffle / pixel_unshuffle, and channel_shuffle's adjoint is itself with the complementary
group count. The window arithmetic is `_im2col`'s, shared with convolution and pooling.
"""
from .. import _errors
from ..autograd.graph import Node
from ._common import attach, contiguous, grad_state, wrap, wrap_dim
from . import _im2col

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "native_channel_shuffle"]

_FOLD_ARGUMENTS = ("kernel_size", "dilation", "padding", "stride")


def _pair(value, name, function, position):
    """PyTorch's _pair (an iterable as a tuple, else the value twice), then its argument
    parser's check that every element is an int, then the kernel's length check."""
    value = tuple(value) if hasattr(value, "__iter__") else (value, value)
    for index, element in enumerate(value):
        if not isinstance(element, int) and type(element).__module__ != "numpy":
            kind = type(element).__name__
            if index == 0:
                raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                                f"tuple of ints, but found element of type {kind} at pos 0")
            raise TypeError(f"{function}(): argument '{name}' failed to unpack the object at pos "
                            f'{index} with error "type must be tuple of ints,but got {kind}"')
    return tuple(int(v) for v in value)


def _check_lengths(values, names):
    """The kernel's check, after the parser has seen every argument."""
    for value, name in zip(values, names):
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")


def _check_block_arguments(kernel, dilation, padding, stride):
    """col2im_shape_check / im2col_shape_check: the argument half, with PyTorch's text."""
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kernel[0]} kernel_width: {kernel[1]}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dilation[0]} dilation_width: {dilation[1]}")
    if padding[0] < 0 or padding[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                           f"pad_width: {padding[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: "
                           f"{stride[0]} stride_width: {stride[1]}")


def _check_dtype(input, kernel_name):
    if input._data.dtype.kind in "iu":
        raise NotImplementedError(_errors.not_implemented_for(kernel_name, input.dtype))


# ---------------------------------------------------------------- unfold / fold
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every sliding (kh, kw) block of (N, C, H, W) as a column: (N, C*kh*kw, L)."""
    kernel, dilation, padding, stride = (_pair(v, name, "im2col", position) for v, name, position
                                         in zip((kernel_size, dilation, padding, stride),
                                                _FOLD_ARGUMENTS, (2, 3, 4, 5)))
    _check_lengths((kernel, dilation, padding, stride), _FOLD_ARGUMENTS)
    _check_block_arguments(kernel, dilation, padding, stride)
    if input.dim() < 3:   # PyTorch reads input.size(1) and input.size(2) first
        if input.dim() == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        wrap_dim(1, input.dim())
        wrap_dim(2, input.dim())
    shape = input._data.shape
    if input.dim() not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: "
                           f"{_errors.shape_list(shape)}")
    size = shape[-2:]
    out = _im2col.out_size(size, kernel, stride, padding, dilation)
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the "
                           f"array of sliding blocks as {out}, but its components must be at "
                           "least one.")
    _check_dtype(input, "im2col_out_cpu")
    xp = input._device.xp
    x = input._data if len(shape) == 4 else input._data[None]
    padded = _im2col.pad_zeros(x, padding, xp)
    columns = _im2col.windows(padded, kernel, stride, dilation, out, xp)
    columns = columns.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], out[0] * out[1])
    result = wrap(columns if len(shape) == 4 else columns[0], input._device)
    if grad_state.enabled and input._requires_grad:
        node = Im2ColBackward0()
        node.size, node.arguments = tuple(size), (kernel, dilation, padding, stride)
        attach(result, node, input)
    return result


class Im2ColBackward0(Node):
    __slots__ = ("size", "arguments")

    def backward(self, grad):
        return (fold(grad, self.size, *self.arguments),)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum columns (N, C*kh*kw, L) back into (N, C, H, W): the adjoint of `unfold`."""
    output_size = _pair(output_size, "output_size", "col2im", 2)
    kernel, dilation, padding, stride = (_pair(v, name, "col2im", position) for v, name, position
                                         in zip((kernel_size, dilation, padding, stride),
                                                _FOLD_ARGUMENTS, (3, 4, 5, 6)))
    _check_lengths((output_size, kernel, dilation, padding, stride),
                   ("output_size",) + _FOLD_ARGUMENTS)
    _check_block_arguments(kernel, dilation, padding, stride)
    shape = input._data.shape
    if input.dim() not in (2, 3) or any(s == 0 for s in shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           "size and non-zero dimensions for input, but got: "
                           f"{_errors.shape_list(shape)}")
    blocks = kernel[0] * kernel[1]
    if shape[-2] % blocks:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={shape[-2]} and "
                           f"kernel_size={kernel}.")
    out = _im2col.out_size(output_size, kernel, stride, padding, dilation)
    if out[0] < 1 or out[1] < 1 or out[0] * out[1] != shape[-1]:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel}, dilation="
                           f"{dilation}, padding={padding}, stride={stride}, expected size of "
                           "input's dimension 2 to match the calculated number of sliding blocks "
                           f"{out[0]} * {out[1]} = {out[0] * out[1]}, but got "
                           f"input.size(2)={shape[-1]}.")
    _check_dtype(input, "col2im_out_cpu")
    xp = input._device.xp
    columns = input._data if len(shape) == 3 else input._data[None]
    batch, channels = columns.shape[0], columns.shape[1] // blocks
    columns = columns.reshape((batch, channels) + kernel + out)
    padded_shape = (batch, channels) + tuple(s + 2 * p for s, p in zip(output_size, padding))
    image = _im2col.crop(_im2col.col2im(columns, padded_shape, stride, dilation, xp), padding,
                         output_size)
    image = contiguous(image, xp)
    result = wrap(image if len(shape) == 3 else image[0], input._device)
    if grad_state.enabled and input._requires_grad:
        node = Col2ImBackward0()
        node.arguments = (kernel, dilation, padding, stride)
        attach(result, node, input)
    return result


class Col2ImBackward0(Node):
    __slots__ = ("arguments",)

    def backward(self, grad):
        return (unfold(grad, *self.arguments),)


# ---------------------------------------------------------------- pixel shuffle
def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): channel blocks become r x r pixel tiles."""
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    shape = input._data.shape
    if shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{shape[-3]} is not divisible by {r * r}")
    lead, (c, h, w) = shape[:-3], shape[-3:]
    n = len(lead)
    x = input._data.reshape(lead + (c // (r * r), r, r, h, w))
    x = x.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    result = wrap(x.reshape(lead + (c // (r * r), h * r, w * r)), input._device)
    if grad_state.enabled and input._requires_grad:
        node = PixelShuffleBackward0()
        node.factor = r
        attach(result, node, input)
    return result


class PixelShuffleBackward0(Node):
    __slots__ = ("factor",)

    def backward(self, grad):
        return (pixel_unshuffle(grad, self.factor),)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of `pixel_shuffle`."""
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    shape = input._data.shape
    if shape[-2] % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={shape[-2]} is not divisible by {r}")
    if shape[-1] % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={shape[-1]} is not divisible by {r}")
    lead, (c, h, w) = shape[:-3], shape[-3:]
    n = len(lead)
    if not input._data.size:
        # PyTorch answers an empty input with an empty tensor of the input's own shape
        result = wrap(input._device.xp.empty_like(input._data), input._device)
    else:
        x = input._data.reshape(lead + (c, h // r, r, w // r, r))
        x = x.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
        result = wrap(x.reshape(lead + (c * r * r, h // r, w // r)), input._device)
    if grad_state.enabled and input._requires_grad:
        node = PixelUnshuffleBackward0()
        node.factor = r if input._data.size else None
        attach(result, node, input)
    return result


class PixelUnshuffleBackward0(Node):
    __slots__ = ("factor",)

    def backward(self, grad):
        if self.factor is None:   # an empty input, kept in shape: so is its (empty) gradient
            return (grad,)
        return (pixel_shuffle(grad, self.factor),)


# ---------------------------------------------------------------- channel shuffle
def channel_shuffle(input, groups):
    """(N, g*k, *) -> (N, k*g, *): interleave the channels of `groups` groups."""
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {_errors.shape_list(input.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    shape = input._data.shape
    if shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {shape[1]} "
                           f"channels and {groups} groups.")
    x = input._data.reshape((shape[0], groups, shape[1] // groups) + shape[2:])
    result = wrap(x.swapaxes(1, 2).reshape(shape), input._device)
    if grad_state.enabled and input._requires_grad:
        node = ChannelShuffleBackward0()
        node.groups = shape[1] // groups
        attach(result, node, input)
    return result


native_channel_shuffle = channel_shuffle


class ChannelShuffleBackward0(Node):
    __slots__ = ("groups",)

    def backward(self, grad):
        return (channel_shuffle(grad, self.groups),)
