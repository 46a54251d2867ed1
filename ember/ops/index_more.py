"""Index bookkeeping that PyTorch exposes as functions: unravel_index (flat positions to
coordinates), nonzero_static (nonzero with a fixed row count, for shape-static code), and
the function form of index_put_.
"""
from .. import _dtype
from ._common import Tensor, wrap
from .indexing import index_put_  # noqa: F401 - exported here as ember.index_put_

__all__ = ["unravel_index", "nonzero_static", "index_put_"]

_INT64 = _dtype.int64.np_dtype


def unravel_index(indices, shape):
    """One int64 tensor per dim of `shape`: the coordinates of each flat index, computed
    as PyTorch does (floor-divide by the row-major strides, then modulo each size), so
    out-of-range and negative indices wrap rather than raise."""
    if indices.dtype.is_floating_point or indices.dtype == _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    elif not isinstance(shape, (list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for size in shape:
        if not isinstance(size, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(size)}")
    shape = tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    data = indices._data
    if 0 in shape and data.size:
        raise RuntimeError("ZeroDivisionError")
    xp = indices._device.xp
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    flat = data.astype(_INT64)
    return tuple(wrap(flat // stride % size if data.size else flat.copy(), indices._device)
                 for stride, size in zip(strides, shape))


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's (count, ndim) coordinates cut or padded with `fill_value` to `size` rows."""
    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero_static(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    data = input._data
    xp = input._device.xp
    found = xp.argwhere(data).astype(_INT64, copy=False)[:size]
    out = xp.full((size, data.ndim), fill_value, dtype=_INT64)
    out[:found.shape[0]] = found
    return wrap(out, input._device)
