"""torch.gradient: finite-difference derivatives of sampled values along chosen dims.

Second-order central differences inside, one-sided differences of order `edge_order`
at the two ends, with either uniform spacing or sample coordinates (the non-uniform
three-point formulas NumPy's `gradient` documents). It is composed of ember ops and
joined with `cat`, as PyTorch composes it, so its grad_fn is `CatBackward0` and its
gradients come from those ops.
"""
from .. import _dtype
from ._common import Tensor, wrap_dim
from .joining import cat
from .slicing import narrow

__all__ = ["gradient"]


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """One tensor per dim in `dim` (all dims if None): d input / d coordinate."""
    ndim = input._data.ndim
    if dim is None:
        dims = list(range(ndim))
    else:
        dims = [wrap_dim(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim)]
        seen = set()
        for d in dims:
            if d in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(d)
    spacings = _spacings(spacing, dims, dim, ndim)
    if edge_order not in (1, 2):
        raise RuntimeError("ember.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("ember.gradient expected each dimension size to be at least "
                               "edge_order+1")
    if not _dtype.is_floating(input._data.dtype):
        input = input.to(_dtype._defaults.float_dtype)
    return tuple(_along(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _spacings(spacing, dims, dim, ndim):
    """One spacing per dim: a number (uniform) or a 1-D tensor of coordinates."""
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError(
                    f"ember.gradient expected spacing to be unspecified, a scalar, or a list of "
                    f"length equal to 'self.dim() = {ndim}', since dim argument was not given, "
                    f"but got a list of length {len(spacing)}")
            raise RuntimeError(
                f"ember.gradient expected spacing to be unspecified, a scalar or it's spacing "
                f"and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        return [s.item() if isinstance(s, Tensor) and s._data.ndim == 0 else s
                for s in spacing]
    if isinstance(spacing, Tensor):
        spacing = spacing.item()
    return [spacing] * len(dims)


def _along(x, dim, h, edge_order):
    size = x._data.shape[dim]

    def part(start, length=1):
        return narrow(x, dim, start, length)

    if not isinstance(h, Tensor):
        inner = (part(2, size - 2) - part(0, size - 2)) / (2 * h)
        if edge_order == 1:
            first = (part(1) - part(0)) / h
            last = (part(size - 1) - part(size - 2)) / h
        else:
            first = (-1.5 * part(0) + 2 * part(1) - 0.5 * part(2)) / h
            last = (0.5 * part(size - 3) - 2 * part(size - 2) + 1.5 * part(size - 1)) / h
        return cat([first, inner, last], dim)
    shape = [1] * x._data.ndim
    shape[dim] = -1
    dx = h[1:] - h[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    inner = a * part(0, size - 2) + b * part(1, size - 2) + c * part(2, size - 2)
    if edge_order == 1:
        first = (part(1) - part(0)) / dx[0]
        last = (part(size - 1) - part(size - 2)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * part(0) + (d1 + d2) / (d1 * d2) * part(1)
                 - d1 / (d2 * (d1 + d2)) * part(2))
        d1, d2 = dx[-2], dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * part(size - 3) - (d1 + d2) / (d1 * d2) * part(size - 2)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * part(size - 1))
    return cat([first, inner, last], dim)
