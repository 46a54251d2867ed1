"""torch.histogramdd: counts of points (the input's innermost dim holds the coordinates)
in a grid of bins, with the per-dim bin edges.

Equal-width edges are laid out in the input's dtype first and the points are then binned
against those very edges (right-open bins, the last one closed), so a point on an edge
lands where the printed edges say it does, as in PyTorch. NumPy's histogramdd does the
binning against explicit edges.
"""
import builtins

from .. import _dtype, return_types
from ._common import Tensor, wrap
from ._elementwise import unsupported

__all__ = ["histogramdd"]

_FLOAT64 = _dtype.float64.np_dtype


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): a D-dimensional histogram of the (..., D) points in `input`."""
    data = input._data
    if not _dtype.is_floating(data.dtype):
        raise unsupported("histogramdd", data)
    if data.ndim < 2:
        raise RuntimeError("ember.histogramdd: input tensor should have at least 2 dimensions")
    count = data.shape[-1]
    xp = input._device.xp
    points = data.reshape(-1, count)
    if isinstance(bins, int):
        bins = [bins] * count
    if len(bins) != count:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if range is not None and len(range) != 2 * count:
        raise RuntimeError(f"ember.histogramdd: for a {count}-dimensional histogram range "
                           f"should have {2 * count} elements, but got {len(range)}")
    weights = None
    if weight is not None:
        if tuple(weight.shape) != data.shape[:-1]:
            raise RuntimeError(
                f"ember.histogramdd: if weight tensor is provided it should have the same shape "
                f"as the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(data.shape)} and weight with shape {list(weight.shape)}")
        weights = weight._data.reshape(-1).astype(_FLOAT64)
    edges = [_edges(xp, points[:, d], b, range, d, data.dtype) for d, b in enumerate(bins)]
    hist, _ = xp.histogramdd(points.astype(_FLOAT64), bins=[e.astype(_FLOAT64) for e in edges],
                             weights=weights)
    if density:
        total = hist.sum()
        for d, e in enumerate(edges):
            widths = xp.diff(e.astype(_FLOAT64))
            hist = hist / widths.reshape([-1 if i == d else 1 for i in builtins.range(count)])
        hist = hist / total
    device = input._device
    return return_types.histogramdd(wrap(hist.astype(data.dtype), device),
                                    tuple(wrap(e, device) for e in edges))



def _edges(xp, values, bins, range, d, np_dtype):
    """Dimension d's edges: the given tensor, or `bins` equal bins over the range."""
    if isinstance(bins, Tensor):
        edges = bins._data
        if edges.ndim != 1:
            raise RuntimeError(f"ember.histogramdd: bins tensor should have one dimension, but "
                               f"got {edges.ndim} dimensions in the bins tensor for dimension "
                               f"{d}")
        return edges.astype(np_dtype)
    if bins <= 0:
        raise RuntimeError(f"ember.histogram(): bins must be > 0, but got {bins} for dimension "
                           f"{d}")
    if range is not None:
        low, high = float(range[2 * d]), float(range[2 * d + 1])
    elif values.size:
        low, high = float(values.min()), float(values.max())
    else:
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(f"ember.histogramdd: min should not exceed max, but got min {low:g} "
                           f"max {high:g} for dimension {d}")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return xp.linspace(low, high, bins + 1).astype(np_dtype)
