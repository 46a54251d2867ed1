"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy variants.

Same constructor checks, parameters, default initialisation (consuming the random
stream in PyTorch's order, so weights match after the same manual_seed) and reprs
as torch.nn. The arithmetic is F.conv*d (ember/ops/conv.py).
"""
from ...autograd.grad_mode import no_grad
from .. import functional as F  # the doors: a bad stride gets PyTorch's parser error
from ...ops.creation import empty
from ...ops.nn_resize import pad as _pad
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .. import init

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


# Hyper-parameters every convolution stores as attributes, in its constructor's order.
_CONV_FIELDS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
                "transposed", "output_padding", "groups", "padding_mode")

# Tuple-valued options the repr shows only when some entry differs from the fill value.
_REPR_TUPLE_DEFAULTS = (("padding", 0), ("dilation", 1), ("output_padding", 0))


def _check_channels(groups, **channels):
    """Each channel count must split evenly into `groups` (a positive number)."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    for name, count in channels.items():
        if count % groups:
            raise ValueError(f"{name} must be divisible by groups")


def _check_padding(padding, stride, padding_mode):
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             f"{{'valid', 'same'}}")
        # 'same' needs an output the size of the input, which a stride would shrink.
        if padding == "same" and set(stride) != {1}:
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {{'zeros', 'reflect', 'replicate', "
                         f"'circular'}}, but got padding_mode='{padding_mode}'")


class _ConvNd(Module):
    """Shared state, checks, init and repr of every convolution layer."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        _check_channels(groups, in_channels=in_channels, out_channels=out_channels)
        _check_padding(padding, stride, padding_mode)
        values = (in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                  output_padding, groups, padding_mode)
        for field, value in zip(_CONV_FIELDS, values):
            setattr(self, field, value)
        self._reversed_padding_repeated_twice = _reversed_padding(padding, kernel_size,
                                                                  dilation)
        self.weight = Parameter(empty(self._weight_shape(), device=device, dtype=dtype))
        bias_tensor = empty(out_channels, device=device, dtype=dtype) if bias else None
        self.register_parameter("bias", None if bias_tensor is None else Parameter(bias_tensor))
        self.reset_parameters()

    def _weight_shape(self):
        """(out, in/groups, *kernel); a transposed convolution swaps the channel roles."""
        leading, grouped = self.in_channels, self.out_channels
        if not self.transposed:
            leading, grouped = grouped, leading
        return (leading, grouped // self.groups, *self.kernel_size)

    def reset_parameters(self):
        """kaiming_uniform_(a=sqrt(5)) on the weight, then the bias in +-1/sqrt(fan_in)."""
        with no_grad():
            init._layer_default_(self.weight, self.bias)

    def extra_repr(self):
        parts = [f"{self.in_channels}, {self.out_channels}", f"kernel_size={self.kernel_size}",
                 f"stride={self.stride}"]
        for field, fill in _REPR_TUPLE_DEFAULTS:
            value = getattr(self, field)
            # A padding string ('same') never equals a tuple, so it is always shown.
            if value != (fill,) * len(value):
                parts.append(f"{field}={value}")
        optional = ((self.groups != 1, f"groups={self.groups}"),
                    (self.bias is None, "bias=False"),
                    (self.padding_mode != "zeros", f"padding_mode={self.padding_mode}"))
        parts.extend(text for shown, text in optional if shown)
        return ", ".join(parts)

    def __setstate__(self, state):
        # Pickles from before padding_mode existed meant zero padding.
        super().__setstate__({"padding_mode": "zeros", **state})


def _reversed_padding(padding, kernel_size, dilation):
    """F.pad amounts (last dim first) for the non-zeros padding modes."""
    n = len(kernel_size)
    if not isinstance(padding, str):
        return tuple(p for p in reversed(padding) for _ in range(2))
    result = [0, 0] * n
    if padding == "same":
        for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
            total = d * (k - 1)
            result[2 * i] = total // 2
            result[2 * i + 1] = total - total // 2
    return result


class _Conv(_ConvNd):
    """Conv{n}d: F.conv{n}d, after F.pad for the non-zeros padding modes."""
    _n = 2
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._n
        padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n),
                         _ntuple(stride, n), padding, _ntuple(dilation, n), False,
                         (0,) * n, groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._functional
        if self.padding_mode != "zeros":
            padded = _pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, (0,) * self._n, self.dilation,
                        self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _n = 1
    _functional = staticmethod(F.conv1d)


class Conv2d(_Conv):
    _n = 2
    _functional = staticmethod(F.conv2d)


class Conv3d(_Conv):
    _n = 3
    _functional = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose{n}d: F.conv_transpose{n}d, with forward(input, output_size=None)."""
    _n = 2
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{self.__class__.__name__}')
        n = self._n
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         _ntuple(padding, n), _ntuple(dilation, n), True,
                         _ntuple(output_padding, n), groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """The output_padding that yields `output_size`, with PyTorch's range check."""
        if output_size is None:
            return self.output_padding
        n = self._n
        batched = input.dim() == n + 2
        lead = 2 if batched else 1
        output_size = list(output_size)
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {lead + n} elements (got {len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(n):
            size = ((input.size(d + lead) - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            min_sizes.append(size)
            max_sizes.append(size + self.stride[d] - 1)
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.size()[2:]})")
        return [s - low for s, low in zip(output_size, min_sizes)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return type(self)._functional(input, self.weight, self.bias, self.stride, self.padding,
                                      output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1
    _functional = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2
    _functional = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3
    _functional = staticmethod(F.conv_transpose3d)


# ---------------------------------------------------------------- lazy variants
class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels comes from the first input; weights are then initialised as usual."""

    def reset_parameters(self):
        if self.in_channels != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        _check_channels(self.groups, in_channels=self.in_channels)
        self.weight.materialize(self._weight_shape())
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input):
        n = self._n
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == n + 2 else input.shape[0]

    def _lazy_init(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    cls_to_become = ConvTranspose3d
