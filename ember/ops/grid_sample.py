"""Spatial transformers: affine_grid (AffineGridGeneratorBackward0) and 2-D grid_sample
(GridSampler2DBackward0), bilinear or nearest, with zeros / border / reflection padding.

A grid coordinate maps to a pixel coordinate piecewise linearly: unnormalise, then clip or
reflect. `_source_coordinates` computes, in NumPy, the pixel coordinate and its local slope
(PyTorch's `*_set_grad` helpers), so that the backward can rebuild the coordinate as
`grid * slope + offset` with ember ops: its gradients (and second gradients) with respect to
the grid then come out of ordinary ops. The corner gathers and scatter-adds are ember's
gather / scatter_add over flattened planes.
"""
import warnings

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
    if not input.dtype.is_floating_point:
        raise NotImplementedError(_errors.not_implemented_for("grid_sampler_2d_cpu_kernel_impl",
                                                              input.dtype))
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_errors.scalar_type_name(input.dtype)} but "
                           f"found {_errors.scalar_type_name(grid.dtype)}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample `input` (N, C, H, W) at the normalised (x, y) points of `grid` (N, Ho, Wo, 2)."""
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
    if input.dim() == 5 or mode == "bicubic":
        raise NotImplementedError("ember's grid_sample supports 4-D input with mode 'bilinear' "
                                  "or 'nearest' (3-D input and 'bicubic' are not implemented)")
    xp = input._device.xp
    plan = _plan(grid._data, input.shape[2:], mode, padding_mode, align_corners, xp)
    batch, channels = input.shape[0], input.shape[1]
    planes = input._data.reshape(batch, channels, -1)
    out = 0
    for index, valid, weight in plan.corners(grid._data, xp):
        values = xp.take_along_axis(planes, index[:, None, :], 2)
        out = out + values * (weight * valid)[:, None, :].astype(planes.dtype)
    result = wrap(xp.ascontiguousarray(out.reshape((batch, channels) + grid.shape[1:-1]))
                  .astype(input._data.dtype, copy=False), input._device)
    if grad_state.enabled and (input._requires_grad or grid._requires_grad):
        node = GridSampler2DBackward0()
        node.plan = plan
        node.save(input, grid)
        attach(result, node, input, grid)
    return result


def _source_coordinates(g, size, padding_mode, align_corners, xp):
    """Pixel coordinate of normalised `g` and its slope d(pixel)/d(g) (PyTorch's set_grad)."""
    if align_corners:
        coordinate, slope = (g + 1) / 2 * (size - 1), xp.full(g.shape, (size - 1) / 2, g.dtype)
    else:
        coordinate, slope = ((g + 1) * size - 1) / 2, xp.full(g.shape, size / 2, g.dtype)
    if padding_mode == "reflection":
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if low == high:
            coordinate, slope = xp.zeros_like(g), xp.zeros_like(g)
        else:
            minimum, span = low / 2, (high - low) / 2
            shifted = coordinate - minimum
            sign = xp.where(shifted < 0, -1, 1)
            shifted = xp.abs(shifted)
            extra = xp.fmod(shifted, span)
            even = xp.floor(shifted / span) % 2 == 0
            coordinate = xp.where(even, extra + minimum, span - extra + minimum)
            slope = slope * xp.where(even, sign, -sign)
    if padding_mode != "zeros":
        inside = (coordinate > 0) & (coordinate < size - 1)
        coordinate = xp.clip(coordinate, 0, size - 1)
        slope = slope * inside
    return coordinate.astype(g.dtype, copy=False), slope.astype(g.dtype, copy=False)


class _Plan:
    """Where each output point reads: per corner the flat index, its validity and weight."""

    def __init__(self, x, sx, y, sy, size, mode, xp):
        self.x, self.sx, self.y, self.sy, self.size, self.mode = x, sx, y, sy, size, mode
        self.points = x.shape[1]

    def corner_positions(self, xp):
        height, width = self.size
        if self.mode == "nearest":
            # nearbyint: round half to even, as NumPy's rint
            cx, cy = xp.rint(self.x), xp.rint(self.y)
            yield cx, cy, None, None
            return
        x0, y0 = xp.floor(self.x), xp.floor(self.y)
        for dy in (0, 1):
            for dx in (0, 1):
                yield x0 + dx, y0 + dy, dx, dy

    def corners(self, grid, xp):
        """(flat index, valid, weight) per corner, in NumPy, for the forward."""
        height, width = self.size
        for cx, cy, dx, dy in self.corner_positions(xp):
            valid = (cx >= 0) & (cx <= width - 1) & (cy >= 0) & (cy <= height - 1)
            index = (xp.clip(cy, 0, height - 1) * width + xp.clip(cx, 0, width - 1))
            if dx is None:
                weight = xp.ones_like(self.x)
            else:
                wx = self.x - (cx - 1) if dx else cx + 1 - self.x
                wy = self.y - (cy - 1) if dy else cy + 1 - self.y
                weight = wx * wy
            yield index.astype(xp.int64), valid, weight


def _plan(grid, spatial, mode, padding_mode, align_corners, xp):
    height, width = spatial
    batch = grid.shape[0]
    gx, gy = grid[..., 0].reshape(batch, -1), grid[..., 1].reshape(batch, -1)
    x, sx = _source_coordinates(gx, width, padding_mode, align_corners, xp)
    y, sy = _source_coordinates(gy, height, padding_mode, align_corners, xp)
    return _Plan(x, sx, y, sy, (height, width), mode, xp)


class GridSampler2DBackward0(Node):
    __slots__ = ("plan",)

    def backward(self, grad):
        input, grid = self.saved_tensors
        plan = self.plan
        xp = input._device.xp
        device = input._device
        batch, channels = input.shape[0], input.shape[1]
        grad = grad.reshape(batch, channels, -1)
        planes = input.reshape(batch, channels, -1)
        # the pixel coordinates as differentiable functions of the grid
        flat_grid = grid.reshape(batch, -1, 2)
        x = flat_grid[..., 0] * wrap(plan.sx, device) + wrap(plan.x - grid._data[..., 0].reshape(
            batch, -1) * plan.sx, device)
        y = flat_grid[..., 1] * wrap(plan.sy, device) + wrap(plan.y - grid._data[..., 1].reshape(
            batch, -1) * plan.sy, device)
        grad_input = planes.new_zeros(planes.shape) if self.needs_input_grad(0) else None
        grad_x = grad_y = 0
        height, width = plan.size
        for cx, cy, dx, dy in plan.corner_positions(xp):
            valid = (cx >= 0) & (cx <= width - 1) & (cy >= 0) & (cy <= height - 1)
            index = (xp.clip(cy, 0, height - 1) * width + xp.clip(cx, 0, width - 1))
            index = wrap(xp.broadcast_to(index.astype(xp.int64)[:, None, :],
                                         (batch, channels, plan.points)).copy(), device)
            mask = wrap(valid.astype(plan.x.dtype)[:, None, :], device)
            if dx is None:
                weight = mask
            else:
                wx = x - wrap(cx - 1, device) if dx else wrap(cx + 1, device) - x
                wy = y - wrap(cy - 1, device) if dy else wrap(cy + 1, device) - y
                weight = (wx * wy)[:, None, :] * mask
                values = planes.gather(2, index) * mask * grad
                grad_x = grad_x + (values * (wy if dx else -wy)[:, None, :]).sum(1)
                grad_y = grad_y + (values * (wx if dy else -wx)[:, None, :]).sum(1)
            if grad_input is not None:
                grad_input = grad_input.scatter_add(2, index, grad * weight)
        if grad_input is not None:
            grad_input = grad_input.reshape(input.shape)
        grad_grid = None
        if self.needs_input_grad(1):
            if dx is None:
                grad_grid = grid.new_zeros(grid.shape)
            else:
                grad_grid = stack([grad_x * wrap(plan.sx, device),
                                   grad_y * wrap(plan.sy, device)], -1).reshape(grid.shape)
        return grad_input, grad_grid
