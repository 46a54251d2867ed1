"""nanmedian and mode: the selections sorting.py leaves out.

Both sort along the dim with NumPy's stable sort and pick a position, so their
gradients are sorting.py's: scattered back to the picked index along a dim
(NanmedianBackward1, ModeBackward0), shared evenly among ties without one
(NanmedianBackward0).
"""
from .._dtype import is_floating as _is_floating
from .. import return_types as _rt
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ._common import attach, grad_state, wrap
from .sorting import (_EvenlyBackward, _SelectBackward, _dim_along, _empty_median,
                      _index_array, _kth_along, _not_for_bool, _selected)

__all__ = ["nanmedian", "mode"]


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the non-NaN values (NaN only where every value is NaN)."""
    data = input._data
    xp = input._device.xp
    if dim is None:
        _not_for_bool(data, "median_cpu")
        flat = data.reshape(-1)
        if _is_floating(data.dtype):
            flat = flat[~xp.isnan(flat)]
        if flat.size == 0:
            value = xp.asarray(_empty_median(input), data.dtype)
        else:
            value = xp.sort(flat)[(flat.size - 1) // 2]
        out = wrap(xp.asarray(value), input._device)
        if grad_state.enabled and input._requires_grad:
            node = NanmedianBackward0()
            node.save(input)
            node.save_output(out)
            attach(out, node, input)
        return out
    d = _dim_along(input, dim, "median")  # PyTorch's message says median()
    _not_for_bool(data, "median_out")  # after the dim's checks, as PyTorch's kernel
    position = None
    if data.ndim:
        size = data.shape[d]
        position = (size - 1) // 2
        if _is_floating(data.dtype):  # NaN sorts last: count only the numbers before it
            numbers = size - xp.isnan(data).sum(axis=d, keepdims=True)
            position = xp.maximum((numbers - 1) // 2, 0).astype(xp.int64)
    values, indices = _kth_along(input, d, position, keepdim)
    return _selected(_rt.nanmedian, NanmedianBackward1, input, values, indices, d, keepdim)


class NanmedianBackward0(_EvenlyBackward):
    __slots__ = ()


class NanmedianBackward1(_SelectBackward):
    __slots__ = ()


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along `dim` (the smallest among equally frequent ones) and
    the index of its last occurrence."""
    data = input._data
    if data.dtype in _LIMITED:
        raise _refusal("mode_cpu", data.dtype)
    xp = input._device.xp
    d = _dim_along(input, dim, "mode")
    if not data.ndim:
        values, indices = data.copy(), _index_array(xp, ())
    else:
        moved = xp.moveaxis(data, d, -1)
        order = xp.argsort(moved, axis=-1, kind="stable")
        ordered = xp.take_along_axis(moved, order, -1)
        size = ordered.shape[-1]
        positions = xp.arange(size)
        starts = xp.ones(ordered.shape, dtype=bool)
        starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
        # each position's run length so far: distance from the start of its run of equals
        run_start = xp.maximum.accumulate(xp.where(starts, positions, 0), axis=-1)
        run_length = positions - run_start
        # the first maximum ends the longest run of the smallest such value; stable sorting
        # puts that value's last occurrence at the run's end
        best = xp.argmax(run_length, axis=-1)[..., None]
        values = xp.moveaxis(xp.take_along_axis(ordered, best, -1), -1, d)
        indices = xp.moveaxis(xp.take_along_axis(order, best, -1), -1, d)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    return _selected(_rt.mode, ModeBackward0, input, values, indices, d, keepdim)


class ModeBackward0(_SelectBackward):
    __slots__ = ()
