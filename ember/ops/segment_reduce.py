"""segment_reduce: reductions over consecutive runs of `data` along one axis.

A run's extent comes from `lengths` (run sizes) or `offsets` (run boundaries); both
may carry leading batch dims, one row of runs per batch entry. Every element is given
the flat number of its run (a `searchsorted` over the runs' ends, shifted per batch row
so that all rows share one sorted key), and one `ufunc.at` reduces into the runs at
once, with no Python loop over runs or rows. The backward spreads the gradient back
through the same run numbers with PyTorch's formulas: amax/amin share it evenly among
the elements equal to the result (a positive gradient only, as PyTorch's CPU kernel), prod divides the result by the factor (a lone zero
takes the product of the others). PyTorch has no derivative for that backward, so
under `create_graph` its result carries the NotImplemented node, as PyTorch's does.
"""
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import attach, grad_state, wrap, wrap_dim
from ._elementwise import NotImplementedBackward

__all__ = ["segment_reduce"]

_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "max": "maximum",
           "amax": "maximum", "min": "minimum", "amin": "minimum"}
_IDENTITY = {"add": 0.0, "multiply": 1.0, "maximum": float("-inf"), "minimum": float("inf")}
_INDEX_TYPES = ("int32", "int64")


def _checked_runs(data, lengths, offsets, axis, unsafe):
    """(starts, ends) of every run as int64 arrays shaped (batch..., runs), after
    PyTorch's checks on lengths or offsets."""
    xp = data._device.xp
    given, kind = (lengths, "lengths") if lengths is not None else (offsets, "offsets")
    if given._data.dtype.name not in _INDEX_TYPES:
        raise NotImplementedError(f'"_segment_reduce_{kind}_cpu_kernel1" not implemented for '
                                  f"'{_errors.scalar_type_name(given.dtype)}'")
    if data.dim() < given.dim():
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    if axis != given.dim() - 1:
        raise RuntimeError("segment_reduce(): Expected axis to be the last dimension of "
                           f"lengths but got {axis}.")
    runs = given._data.astype(xp.int64)
    size = data.shape[axis]
    if lengths is not None:
        if (runs < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if not unsafe and (runs.sum(axis=-1) != size).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
        ends = xp.cumsum(runs, axis=-1)
        starts = ends - runs
    else:
        starts, ends = runs[..., :-1], runs[..., 1:]
        if (ends < starts).any():
            raise RuntimeError("Expected segment_length >= 0 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
    return starts, xp.minimum(ends, size)


def _run_numbers(xp, starts, ends, size):
    """For every element of a (batch, size) layout, the flat number (batch * runs + run)
    of the run holding it, or batch * runs (one spare slot) for an element in no run."""
    batch, count = starts.shape
    stride = size + 1  # rows' positions never overlap once shifted by a row's stride
    shift = (xp.arange(batch, dtype=xp.int64) * stride)[:, None]
    position = xp.arange(size, dtype=xp.int64)[None, :] + shift
    found = xp.searchsorted((ends + shift).reshape(-1), position.reshape(-1), side="right")
    found = found.reshape(batch, size)
    run = found - xp.arange(batch, dtype=xp.int64)[:, None] * count
    inside = run < count
    begin = xp.take_along_axis(starts, xp.minimum(run, count - 1), axis=1) if count else run
    inside &= position - shift >= begin
    return xp.where(inside, found, batch * count)


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """data reduced ("sum", "mean", "prod", "max"/"amax", "min"/"amin") over runs along
    `axis`; a run's result starts from `initial` when given."""
    axis = wrap_dim(axis, data.dim())
    if indices is not None and lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _UFUNCS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if not data.dtype.is_floating_point:
        raise NotImplementedError('"_segment_reduce_cpu" not implemented for '
                                  f"'{_errors.scalar_type_name(data.dtype)}'")
    starts, ends = _checked_runs(data, lengths, offsets, axis, unsafe)
    xp = data._device.xp
    x = data._data
    batch_shape, count = starts.shape[:-1], starts.shape[-1]
    rest = x.shape[axis + 1:]
    batch = int(xp.prod(xp.asarray(batch_shape, dtype=xp.int64))) if batch_shape else 1
    wide = x.astype(xp.float32) if x.dtype in _dtype.COMPUTED_IN_FLOAT32 else x
    flat = wide.reshape((batch * x.shape[axis], -1))
    runs = _run_numbers(xp, starts.reshape(batch, count), ends.reshape(batch, count),
                        x.shape[axis])
    ufunc = _UFUNCS[reduce]
    start_value = _IDENTITY[ufunc] if initial is None else float(initial)
    result = xp.full((batch * count + 1, flat.shape[1]), start_value, dtype=wide.dtype)
    getattr(xp, ufunc).at(result, runs.reshape(-1), flat)
    result = result[:-1]
    sizes = (ends - starts).reshape(-1, 1)
    if reduce == "mean":
        safe = xp.where(sizes > 0, sizes, 1).astype(wide.dtype)
        empty = result if initial is not None else xp.nan
        result = xp.where(sizes > 0, result / safe, empty)
    shape = tuple(batch_shape) + (count,) + tuple(rest)
    out = wrap(result.astype(x.dtype, copy=False).reshape(shape), data._device)
    if grad_state.enabled and data._requires_grad:
        node = SegmentReduceBackward0()
        node.runs, node.sizes, node.reduce, node.initial = runs, sizes, reduce, initial
        node.save(data)
        node.save_output(out)
        attach(out, node, data)
    return out


class SegmentReduceBackward0(Node):
    """The gradient spread over each run's elements (see the module's docstring)."""

    __slots__ = ("runs", "sizes", "reduce", "initial")

    def backward(self, grad):
        data, out = self.saved_tensors
        xp = data._device.xp
        x = data._data
        wide = x.dtype in _dtype.COMPUTED_IN_FLOAT32
        width = int(x.size // max(self.runs.size, 1)) if self.runs.size else 1
        flat_x = x.reshape(-1, width).astype(xp.float32) if wide else x.reshape(-1, width)
        pad = xp.zeros((1, width), dtype=flat_x.dtype)
        g = xp.concatenate([grad._data.reshape(-1, width).astype(flat_x.dtype), pad])
        o = xp.concatenate([out._data.reshape(-1, width).astype(flat_x.dtype), pad])
        runs = self.runs.reshape(-1)
        g_at, o_at = g[runs], o[runs]
        reduce = self.reduce
        if reduce == "mean":
            sizes = xp.concatenate([self.sizes, xp.ones((1, 1), dtype=self.sizes.dtype)])
            result = g_at / xp.maximum(sizes[runs], 1)
        elif reduce in ("max", "amax", "min", "amin"):
            hit = (flat_x == o_at) | xp.isnan(flat_x)
            share = xp.zeros(g.shape, dtype=flat_x.dtype)
            xp.add.at(share, runs, hit)
            # PyTorch's CPU kernel divides only positive gradients among tied elements;
            # a negative one reaches every tied element whole
            shared = xp.where(g_at > 0, g_at / xp.maximum(share[runs], 1), g_at)
            result = xp.where(hit, shared, 0)
        elif reduce == "prod":
            result = self._prod(xp, flat_x, runs, g, g_at, o_at)
        else:
            result = g_at
        result = result.astype(x.dtype, copy=False).reshape(x.shape)
        grad_input = wrap(result, data._device)
        if grad_state.enabled and (grad._requires_grad or data._requires_grad):
            attach(grad_input, NotImplementedBackward("_segment_reduce_backward"), grad, data)
        return (grad_input,)

    def _prod(self, xp, flat_x, runs, g, g_at, o_at):
        """grad * result / x, and for a run's lone zero the product of its other factors."""
        zero = flat_x == 0
        zeros = xp.zeros(g.shape, dtype=xp.int64)
        xp.add.at(zeros, runs, zero)
        others = xp.full(g.shape, 1.0 if self.initial is None else float(self.initial),
                         dtype=flat_x.dtype)
        xp.multiply.at(others, runs, xp.where(zero, 1, flat_x))
        safe = xp.where(zero, 1, flat_x)
        lone = xp.where(zeros[runs] == 1, g_at * others[runs], 0)
        return xp.where(zero, lone, g_at * o_at / safe)
