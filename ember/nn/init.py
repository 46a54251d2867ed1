"""nn.init: parameter initialisation (PyTorch's torch.nn.init).

Every initialiser fills its tensor in place under no_grad and returns it. They draw
from the generator through `uniform_` / `normal_` in the order PyTorch does, so after
`ember.manual_seed(s)` a layer's default weights are PyTorch's for the same seed.
"""
import math
import warnings

from ..autograd.grad_mode import no_grad
from ..ops._common import wrap
from ..ops.creation import empty_like
from ..ops.creation import eye as _eye
from ..ops.pointwise import where
from ..ops.random import randperm

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye",
           "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d")


# Gains that do not depend on a parameter; leaky_relu's is computed from its slope.
_FIXED_GAINS = {"sigmoid": 1, "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
                "selu": 3.0 / 4}   # selu: PyTorch's empirical value
_FIXED_GAINS.update(dict.fromkeys(_LINEAR, 1))


def calculate_gain(nonlinearity, param=None):
    """The gain that keeps activations' variance stable through `nonlinearity`."""
    if nonlinearity != "leaky_relu":
        gain = _FIXED_GAINS.get(nonlinearity)
        if gain is None:
            raise ValueError(f"Unsupported nonlinearity {nonlinearity}")
        return gain
    slope = 0.01 if param is None else param
    # bool is an int to Python but not a slope to PyTorch.
    if isinstance(slope, bool) or not isinstance(slope, (int, float)):
        raise ValueError(f"negative_slope {param} not a valid number")
    return math.sqrt(2.0 / (1 + slope ** 2))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """The identity matrix (2-D tensors only): keeps the input's scale through a linear layer."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Convolution weights that pass each input channel through unchanged (per group)."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_total, in_channels, *spatial = tensor.shape
    if out_total % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_total // groups
    centre = tuple(extent // 2 for extent in spatial)
    with no_grad():
        tensor.zero_()
        for channel in range(min(per_group, in_channels)):
            for first in range(0, out_total, per_group):
                tensor[(first + channel, channel) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    """Inputs and outputs feeding one unit: dims 1 and 0 times the receptive field."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    out_features, in_features, *kernel = tensor.shape
    field = math.prod(kernel)
    return in_features * field, out_features * field


_FAN_MODES = ["fan_in", "fan_out"]   # listed in the error text as PyTorch lists them


def _fan(tensor, mode):
    """The fan Kaiming's scheme preserves: forward (`fan_in`) or backward (`fan_out`) variance."""
    chosen = mode.lower()
    if chosen not in _FAN_MODES:
        raise ValueError(f"Mode {chosen} not supported, please use one of {_FAN_MODES}")
    return _calculate_fan_in_and_fan_out(tensor)[_FAN_MODES.index(chosen)]


def _glorot_std(tensor, gain):
    """Glorot & Bengio's std: the variance averaged over the forward and backward fans."""
    fans = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / float(sum(fans)))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    bound = math.sqrt(3.0) * _glorot_std(tensor, gain)
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    return normal_(tensor, 0.0, _glorot_std(tensor, gain), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))


def _empty_noop(tensor):
    """Kaiming on a zero-size tensor warns (its fan may be 0) and leaves it alone."""
    if 0 not in tensor.shape:
        return False
    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
    return True


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-b, b) with b = gain * sqrt(3 / fan) (He et al., 2015)."""
    if _empty_noop(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if _empty_noop(tensor):
        return tensor
    return normal_(tensor, 0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) restricted to [a, b], by PyTorch's two rejection samplers."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    with no_grad():
        if mass > 0.3:
            _reject_normal(tensor, mean, std, a, b, generator)
        else:
            _reject_uniform(tensor, mean, std, a, b, generator)
    return tensor


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _reject_normal(tensor, mean, std, a, b, generator):
    """Most of the mass lies in [a, b]: redraw normal samples that fall outside."""
    low, high = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        result = where(outside, empty_like(result).normal_(mean, std, generator=generator),
                       result)
    if result is not tensor:
        tensor.copy_(result)


def _reject_uniform(tensor, mean, std, a, b, generator):
    """Little mass in [a, b]: uniform proposals accepted with the normal density's ratio."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = empty_like(tensor)
    accept = empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
    pending = accept.uniform_(generator=generator).log_().gt(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = where(pending, accept.uniform_(generator=generator).log_().gt(candidates),
                        pending)
        if not pending.any():
            break
    tensor.copy_(result)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal sample."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    matrix = flattened._data.T if rows < cols else flattened._data
    q, r = flattened._device.xp.linalg.qr(matrix)
    # Sign-fix by diag(r) so that Q is uniform over the orthogonal group (Mezzadri, 2006).
    q = q * flattened._device.xp.sign(r.diagonal())
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view_as(flattened).copy_(wrap(q.astype(flattened._data.dtype), tensor.device))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std^2) with a fraction `sparsity` of each column set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            zero_rows = randperm(rows)[:num_zeros]
            tensor[zero_rows, column] = 0
    return tensor


def _layer_default_(weight, bias):
    """Linear's and Conv's default: Kaiming-uniform weight (a = sqrt(5)), bias U(+-1/sqrt(fan_in)).

    One place so every layer draws from the generator in the same order PyTorch's do.
    """
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is None:
        return
    fan_in = _calculate_fan_in_and_fan_out(weight)[0]
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    uniform_(bias, -bound, bound)


def _affine_default_(weight, bias):
    """Normalisation layers start as the identity map: weight 1, bias (if any) 0."""
    ones_(weight)
    if bias is not None:
        zeros_(bias)


def _deprecated_alias(method):
    """The pre-underscore name of an initialiser: warns, then forwards (PyTorch keeps these)."""
    current = method.__name__
    legacy = current.rstrip("_")

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{legacy}` is now deprecated in favor of "
                      f"`nn.init.{current}`.", FutureWarning, stacklevel=2)
        return method(*args, **kwargs)
    alias.__name__ = alias.__qualname__ = legacy
    alias.__doc__ = f"Deprecated: use nn.init.{current}."
    return alias


(uniform, normal, constant, eye, dirac, xavier_uniform, xavier_normal, kaiming_uniform,
 kaiming_normal, orthogonal, sparse) = map(_deprecated_alias, (
    uniform_, normal_, constant_, eye_, dirac_, xavier_uniform_, xavier_normal_,
    kaiming_uniform_, kaiming_normal_, orthogonal_, sparse_))
