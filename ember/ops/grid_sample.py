"""Spatial transformers: affine_grid (AffineGridGeneratorBackward0) and grid_sample
(GridSampler2DBackward0, GridSampler3DBackward0): bilinear, nearest or (2-D) bicubic, with
zeros / border / reflection padding.

A grid coordinate maps to a pixel coordinate piecewise linearly: unnormalise, then (bilinear
and nearest) clip or reflect; bicubic pads each of its 4 x 4 taps instead, as PyTorch does.
`_Plan` keeps, in NumPy, each axis's pixel coordinate and local slope (PyTorch's `*_set_grad`
helpers), so that the backward can rebuild the coordinate as `grid * slope + offset` with
ember ops and evaluate the same per-axis tap weights on it: gradients (and second gradients)
with respect to the grid come out of ordinary ops. The taps are the product of per-axis taps;
reads and scatter-adds are ember's gather / scatter_add over flattened planes.
"""
import itertools
import math
import warnings

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap
from .joining import stack

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


# ---------------------------------------------------------------- affine_grid
def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, *spatial, 2 or 3) of the affine maps `theta` over `size`."""
    if _autocast.on:
        return _autocast.lower_precision(affine_grid, theta, size, align_corners)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {len(spatial) + 1}] but got: "
                           f"[{theta.shape[0]}, {theta.shape[2]}].")
    xp = theta._device.xp
    base = _base_grid(xp, theta._data.dtype, spatial, align_corners)
    grid = base.reshape(1, -1, base.shape[-1]) @ theta._data.swapaxes(1, 2)
    grid = grid.astype(theta._data.dtype, copy=False)  # bfloat16 products come back wider
    result = wrap(grid.reshape((size[0],) + tuple(spatial) + (len(spatial),)), theta._device)
    if grad_state.enabled and theta._requires_grad:
        node = AffineGridGeneratorBackward0()
        node.base = wrap(base.reshape(-1, base.shape[-1]), theta._device)
        attach(result, node, theta)
    return result


def _linspace_from_neg_one(xp, dtype, steps, align_corners):
    if steps <= 1:
        return xp.zeros(1, dtype)
    # torch.linspace fills the first half from the start and the second from the end
    step = (1.0 - (-1.0)) / (steps - 1)
    index = xp.arange(steps)
    values = xp.where(index < steps // 2, -1.0 + step * index, 1.0 - step * (steps - 1 - index))
    values = values.astype(dtype)
    if not align_corners:
        values = (values * dtype.type(steps - 1) / dtype.type(steps)).astype(dtype)
    return values


def _base_grid(xp, dtype, spatial, align_corners):
    """(*spatial, n + 1): x (last dim) first, then y, (z,) and a column of ones."""
    n = len(spatial)
    base = xp.ones(tuple(spatial) + (n + 1,), dtype)
    for axis in range(n):   # coordinate `axis` runs along spatial dim n - 1 - axis
        shape = [1] * n
        shape[n - 1 - axis] = spatial[n - 1 - axis]
        base[..., axis] = _linspace_from_neg_one(xp, dtype, spatial[n - 1 - axis],
                                                 align_corners).reshape(shape)
    return base


class AffineGridGeneratorBackward0(Node):
    __slots__ = ("base",)

    def backward(self, grad):
        batch, columns = grad.shape[0], grad.shape[-1]
        flat = grad.reshape(batch, -1, columns)
        return ((flat.transpose(1, 2) @ self.base),)


# ---------------------------------------------------------------- grid_sample
def _check_grid_sample(input, grid):
    """grid_sampler's common checks, in PyTorch's order and words."""
    if input.dim() and grid.dim() and input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {_errors.shape_list(input.shape)} and grid "
                           f"with sizes {_errors.shape_list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError("grid_sampler(): expected grid to have size "
                           f"{input.dim() - 2} in last dimension, but got grid with sizes "
                           f"{_errors.shape_list(grid.shape)}")
    for dim in range(2, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               "dimensions, but input has sizes "
                               f"{_errors.shape_list(input.shape)} with dimension {dim} being "
                               "empty")
    if input.dim() != grid.dim() or input.dim() not in (4, 5):
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {_errors.shape_list(input.shape)}"
                           f" and grid with sizes {_errors.shape_list(grid.shape)}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample `input` (N, C, [D,] H, W) at the normalised (x, y[, z]) points of `grid`
    (N, [Do,] Ho, Wo, 2 or 3)."""
    if _autocast.on:
        return _autocast.float32(grid_sample, input, grid, mode, padding_mode, align_corners)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sample(input, grid)
    volumetric = input.dim() == 5
    if volumetric and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not _is_floating(input._data.dtype):
        kernel = "grid_sampler3d_cpu" if volumetric else "grid_sampler_2d_cpu_kernel_impl"
        raise NotImplementedError(_errors.not_implemented_for(kernel, input.dtype))
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_errors.scalar_type_name(input.dtype)} but "
                           f"found {_errors.scalar_type_name(grid.dtype)}")
    xp = input._device.xp
    plan = _Plan(grid._data, input.shape[2:], mode, padding_mode, align_corners, xp, volumetric)
    batch, channels = input.shape[0], input.shape[1]
    planes = input._data.reshape(batch, channels, -1)
    out = 0
    for index, valid, factors in plan.taps(xp):
        weight = math.prod(weight for weight, _slope in factors) * valid
        # masked reads as PyTorch's: an inf pixel outside the grid's reach adds 0, not inf * 0
        values = xp.where(valid[:, None, :], xp.take_along_axis(planes, index[:, None, :], 2), 0)
        out = out + values * weight[:, None, :].astype(planes.dtype)
    result = wrap(xp.ascontiguousarray(out.reshape((batch, channels) + grid.shape[1:-1]))
                  .astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and (input._requires_grad or grid._requires_grad):
        node = GridSampler3DBackward0() if volumetric else GridSampler2DBackward0()
        node.plan = plan
        node.save(input, grid)
        attach(result, node, input, grid)
    return result


def _unnormalize(g, size, align_corners, xp):
    """Pixel coordinate of normalised `g` and its slope d(pixel)/d(g)."""
    if align_corners:
        return (g + 1) / 2 * (size - 1), xp.full(g.shape, (size - 1) / 2, g.dtype)
    return ((g + 1) * size - 1) / 2, xp.full(g.shape, size / 2, g.dtype)


def _reflect(coordinate, size, align_corners, xp):
    """Fold `coordinate` into the reflected range; also the sign each fold puts on slopes."""
    low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if low == high:
        return xp.zeros_like(coordinate), xp.zeros_like(coordinate)
    minimum, span = low / 2, (high - low) / 2
    shifted = coordinate - minimum
    sign = xp.where(shifted < 0, -1, 1)
    shifted = xp.abs(shifted)
    extra = xp.fmod(shifted, span)
    even = xp.floor(shifted / span) % 2 == 0
    return (xp.where(even, extra + minimum, span - extra + minimum),
            xp.where(even, sign, -sign))


def _source_coordinates(g, size, padding_mode, align_corners, xp, volumetric):
    """Pixel coordinate of normalised `g`, padded, and its slope (PyTorch's set_grad)."""
    coordinate, slope = _unnormalize(g, size, align_corners, xp)
    if padding_mode == "reflection":
        coordinate, sign = _reflect(coordinate, size, align_corners, xp)
        slope = slope * sign
    if padding_mode != "zeros":
        inside = (coordinate > 0) & (coordinate < size - 1)
        # a NaN coordinate clips to the first pixel in PyTorch's vectorised 2-D kernel and
        # to the last in its scalar 3-D one (std::min(size - 1, std::max(nan, 0)))
        if volumetric:
            coordinate = xp.fmin(xp.maximum(coordinate, 0), size - 1)
        else:
            coordinate = xp.minimum(xp.fmax(coordinate, 0), size - 1)
        slope = slope * inside
    return coordinate.astype(g.dtype, copy=False), slope.astype(g.dtype, copy=False)


# PyTorch's 3-D kernel keeps coordinates in [INT_MIN, INT_MAX - 1]
_INT_RANGE = (-2.0 ** 31, 2.0 ** 31 - 2)

# Keys' cubic convolution (A = -0.75) on its two pieces, and their derivatives
_A = -0.75


def _near(x):
    return ((_A + 2) * x - (_A + 3)) * x * x + 1


def _far(x):
    return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A


def _near_slope(x):
    return (3 * (_A + 2) * x - 2 * (_A + 3)) * x


def _far_slope(x):
    return (3 * _A * x - 10 * _A) * x + 8 * _A


def _axis_weights(mode, coordinate, base):
    """Per tap along one axis: (weight, d weight / d coordinate), for arrays or Tensors.

    `base` is the floor of the coordinate, held fixed, so that the same expressions give the
    forward in NumPy and, on Tensors, gradients (and second gradients) for the grid."""
    if mode == "nearest":
        return [(1, None)]
    if mode == "bilinear":
        return [((base + 1) - coordinate, -1), (coordinate - base, 1)]
    t = coordinate - base
    return [(_far(t + 1), _far_slope(t + 1)), (_near(t), _near_slope(t)),
            (_near(1 - t), -_near_slope(1 - t)), (_far(2 - t), -_far_slope(2 - t))]


class _Plan:
    """Where each output point reads: per axis (x, y[, z]) its pixel coordinate and slope,
    and the integer taps around it."""

    def __init__(self, grid, spatial, mode, padding_mode, align_corners, xp, volumetric):
        self.mode, self.padding_mode, self.align_corners = mode, padding_mode, align_corners
        self.sizes = tuple(spatial[::-1])          # width, height[, depth]: grid's order
        batch = grid.shape[0]
        # bicubic pads each tap, not the coordinate: its coordinate is only unnormalised
        padding = "zeros" if mode == "bicubic" else padding_mode
        self.coordinates, self.slopes, self.offsets = [], [], []
        self.frozen = []        # per axis: points whose coordinate is a constant, or None
        for axis, size in enumerate(self.sizes):
            g = grid_axis = grid[..., axis].reshape(batch, -1)
            coordinate, slope = _source_coordinates(g, size, padding, align_corners, xp,
                                                    volumetric)
            if volumetric:
                # PyTorch's 3-D kernel sends a non-finite or huge coordinate to -100 (its
                # safe_downgrade_to_int_range): every tap misses, the point reads 0
                far = ~((coordinate >= _INT_RANGE[0]) & (coordinate <= _INT_RANGE[1]))
                if far.any():
                    coordinate = xp.where(far, -100.0, coordinate).astype(g.dtype)
                    slope = xp.where(far, 0, slope).astype(g.dtype)
            if not xp.isfinite(g).all():
                # an inf clipped to the border (or sent to -100) is a constant of slope 0:
                # the backward rebuilds it from a 0, as inf * 0 would give NaN
                fixed = ~xp.isfinite(g) & xp.isfinite(coordinate)
                g = xp.where(fixed, 0, g)
            self.frozen.append(None if g is grid_axis else fixed)
            self.coordinates.append(coordinate)
            self.slopes.append(slope)
            self.offsets.append(coordinate - g * slope)
        self.points = self.coordinates[0].shape[1]

    def bases(self, xp):
        round_ = xp.rint if self.mode == "nearest" else xp.floor  # nearbyint: half to even
        return [round_(c) for c in self.coordinates]

    def _axis_positions(self, axis, base, xp):
        """Per tap: (clipped integer position, valid) along one axis."""
        size = self.sizes[axis]
        first, count = {"nearest": (0, 1), "bilinear": (0, 2), "bicubic": (-1, 4)}[self.mode]
        for k in range(first, first + count):
            position = base + k
            if self.mode == "bicubic" and self.padding_mode != "zeros":
                if self.padding_mode == "reflection":
                    position = _reflect(position, size, self.align_corners, xp)[0]
                position = xp.trunc(xp.clip(position, 0, size - 1))
            valid = (position >= 0) & (position <= size - 1)
            # a missed tap reads pixel 0 and is masked; a NaN position must not be cast
            yield xp.where(valid, position, 0).astype(xp.int64), valid

    def tap_layout(self, xp):
        """Per tap of the product over axes: (flat index, valid, per-axis tap numbers)."""
        bases = self.bases(xp)
        per_axis = [list(self._axis_positions(axis, base, xp)) for axis, base in
                    enumerate(bases)]
        layout = []
        for combination in itertools.product(*[range(len(taps)) for taps in per_axis]):
            index, valid, stride = 0, True, 1
            for axis, tap in enumerate(combination):
                position, inside = per_axis[axis][tap]
                index = index + position * stride
                valid = valid & inside
                stride *= self.sizes[axis]
            layout.append((index, valid, combination))
        return bases, layout

    def taps(self, xp):
        """(flat index, valid, per-axis (weight, slope)) per tap, in NumPy, for the forward."""
        bases, layout = self.tap_layout(xp)
        weights = [_axis_weights(self.mode, c, b) for c, b in zip(self.coordinates, bases)]
        for index, valid, combination in layout:
            yield index, valid, [weights[axis][tap] for axis, tap in enumerate(combination)]


class GridSampler2DBackward0(Node):
    __slots__ = ("plan",)

    def backward(self, grad):
        return _grid_sampler_backward(self, grad)


class GridSampler3DBackward0(Node):
    __slots__ = ("plan",)

    def backward(self, grad):
        return _grid_sampler_backward(self, grad)


def _grid_sampler_backward(node, grad):
    """Scatter-add to the taps for the input; for the grid, the chain rule through each
    axis's tap weights and the coordinate's slope, all in ember ops."""
    input, grid = node.saved_tensors
    plan = node.plan
    device = input._device
    xp = device.xp
    batch, channels = input.shape[0], input.shape[1]
    axes = len(plan.sizes)
    grad = grad.reshape(batch, channels, -1)
    planes = input.reshape(batch, channels, -1)
    flat_grid = grid.reshape(batch, -1, axes)
    # the pixel coordinates as differentiable functions of the grid
    coordinates = []
    for axis in range(axes):
        g = flat_grid[..., axis]
        if plan.frozen[axis] is not None:
            g = g.masked_fill(wrap(plan.frozen[axis], device), 0)
        coordinates.append(g * wrap(plan.slopes[axis], device) + wrap(plan.offsets[axis], device))
    bases, layout = plan.tap_layout(xp)
    weights = [_axis_weights(plan.mode, c, wrap(b, device)) for c, b in zip(coordinates, bases)]
    want_input, want_grid = node.needs_input_grad(0), node.needs_input_grad(1)
    grad_input = planes.new_zeros(planes.shape) if want_input else None
    grad_coordinates = [0] * axes
    for index, valid, combination in layout:
        index = wrap(xp.broadcast_to(index[:, None, :], (batch, channels, plan.points)).copy(),
                     device)
        # missed taps are masked, never multiplied by 0: a NaN weight or an inf pixel there
        # gives nothing, as in PyTorch
        missed = wrap(~xp.broadcast_to(valid, (batch, plan.points)), device)
        factors = [weights[axis][tap] for axis, tap in enumerate(combination)]
        if want_input:
            weight = math.prod(weight for weight, _slope in factors)
            if plan.mode == "nearest":
                weight = planes.new_ones((batch, plan.points))
            weight = weight.masked_fill(missed, 0)
            grad_input = grad_input.scatter_add(2, index, grad * weight.unsqueeze(1))
        if want_grid and plan.mode != "nearest":
            values = (planes.gather(2, index).masked_fill(missed.unsqueeze(1), 0) * grad).sum(1)
            for axis in range(axes):
                others = math.prod(factors[other][0] for other in range(axes) if other != axis)
                grad_coordinates[axis] = grad_coordinates[axis] + values * others * \
                    factors[axis][1]
    if grad_input is not None:
        grad_input = grad_input.reshape(input.shape)
    grad_grid = None
    if want_grid:
        if plan.mode == "nearest":
            grad_grid = grid.new_zeros(grid.shape)
        else:
            grad_grid = stack([grad_coordinates[axis] * wrap(plan.slopes[axis], device)
                               for axis in range(axes)], -1).reshape(grid.shape)
    return grad_input, grad_grid
