"""Plumbing shared by every op family.

Operand wrapping and PyTorch's type promotion for binary ops, the device check,
result construction, graph recording (`attach`), un-broadcasting of gradients
(`sum_to_shape`), dimension wrapping, the one mechanism all in-place ops use
(`inplace`), and the weak record of a base's views (`track_view`) that lets an
in-place op give them a fresh history, as PyTorch does.
"""
from weakref import ref as _weak_ref

from .. import _dtype, _errors
from .._backend import generic as _np_generic
from .._tensor import Tensor, make_tensor, make_view, _address, _canonical_dim
from ..autograd.grad_mode import state as grad_state
from ..autograd.graph import grad_accumulator, record_forward_trace
from ..autograd.grad_mode import anomaly

__all__ = ["Tensor", "make_tensor", "make_view", "grad_state", "wrap", "edge", "attach",
           "binary", "float_operand", "requires_grad", "any_requires_grad", "sum_to_shape",
           "wrap_dim", "wrap_dims", "dim_aliases", "inplace", "inplace_overlapping",
           "check_no_overlap", "check_same_device", "scalar_value", "contiguous", "track_view"]

_NO_EDGE = (None, 0)
_FLOATING = _dtype.FLOATING
_INTEGRAL = _dtype.INTEGRAL
_BOOL = _dtype.BOOL
_CATEGORY = _dtype.CATEGORY  # shared: bfloat16 joins when ml_dtypes loads
_INT64 = _dtype.int64.np_dtype
_INT_BOUNDS = {d.np_dtype: (_dtype.iinfo(d).min, _dtype.iinfo(d).max)
               for d in (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64)}


def wrap(result, device):
    """A new Tensor around an op's result array (NumPy returns scalars for 0-dim results)."""
    if isinstance(result, _np_generic):
        result = device.xp.asarray(result)
    return make_tensor(result, device)


def edge(x):
    """The `(node, output_nr)` edge through which a gradient reaches `x`."""
    if x.__class__ is not Tensor and not isinstance(x, Tensor):
        return _NO_EDGE
    if x.grad_fn is not None:
        return (x.grad_fn, x._output_nr)
    if x._requires_grad:
        return (grad_accumulator(x), 0)
    return _NO_EDGE


def attach(out, node, *inputs):
    """Record `node` as the producer of `out`, with one edge per input."""
    node.next_functions = tuple([edge(x) for x in inputs])
    if anomaly.enabled:
        record_forward_trace(node)
    out.grad_fn = node
    out._requires_grad = True
    base = out._base
    if base is not None and base.grad_fn is not None:
        track_view(out)
    return out


def track_view(view):
    """Remember (weakly) a recorded view of a base that has history, so that an in-place
    op on the base or another of its views can regenerate the view's history."""
    base = view._base
    if base.grad_fn is None:
        return  # a leaf's views cannot be written to while recording
    extras = base._extras
    if extras is None:
        extras = base._extras = {}
    views = extras.get("views")
    if views is None:
        extras["views"] = _TrackedViews(view)
    else:
        views.add(view)


class _TrackedViews(list):
    """Weak references to a base's views; dead ones are dropped whenever the list doubles."""

    __slots__ = ("limit",)

    def __init__(self, view):
        super().__init__((_weak_ref(view),))
        self.limit = 16

    def add(self, view):
        self.append(_weak_ref(view))
        if len(self) >= self.limit:
            self[:] = [ref for ref in self if ref() is not None]
            self.limit = 2 * len(self) + 16


def requires_grad(x):
    """True for a Tensor that takes part in the graph (False for Python scalars)."""
    return isinstance(x, Tensor) and x._requires_grad


def any_requires_grad(*xs):
    """Whether an op on these operands must record a node (grad mode on, one requires grad)."""
    if not grad_state.enabled:
        return False
    for x in xs:
        if isinstance(x, Tensor) and x._requires_grad:
            return True
    return False


def check_same_device(a, b):
    """PyTorch's device-mismatch error; 0-dim CPU tensors may meet any device."""
    if a._device == b._device:
        return
    if a._device.type == "cpu" and a._data.ndim == 0 or b._device.type == "cpu" and b._data.ndim == 0:
        return
    raise RuntimeError(_errors.device_mismatch(a._device, b._device))


def scalar_value(value):
    """A Python number from a Python or NumPy scalar; TypeError for anything else."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, _np_generic):
        return value.item()
    raise TypeError(f"unsupported operand type: '{type(value).__name__}'")


def binary(input, other, name="op"):
    """Arrays for a binary op, cast to PyTorch's result dtype: `(a, b, device)`.

    A Python scalar stays a Python scalar: NumPy treats it as 'weak', which
    matches PyTorch once the tensor side has been cast to the result category.
    """
    try:
        a = input._data
    except AttributeError:
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}") from None
    device = input._device
    if isinstance(other, Tensor):
        b = other._data
        if other._device is not device:
            check_same_device(input, other)
            if device.type == "cpu" and a.ndim == 0:
                device = other._device
        if a.dtype != b.dtype:
            result = _result_dtype(a, b).np_dtype
            if a.dtype != result:
                a = a.astype(result)
            if b.dtype != result:
                b = b.astype(result)
        return a, b, device
    kind = type(other)
    if kind is float:
        if _CATEGORY[a.dtype] != _FLOATING:
            a = a.astype(_dtype._defaults.float_dtype.np_dtype)
        return a, other, device
    if kind is int:
        category = _CATEGORY[a.dtype]
        if category == _BOOL:
            a = a.astype(_INT64)
        elif category == _INTEGRAL:
            low, high = _INT_BOUNDS[a.dtype]
            if other < low or other > high:
                # PyTorch wraps an out-of-range Python int; NumPy would raise.
                other = device.xp.asarray(other & 0xFFFFFFFFFFFFFFFF).astype(a.dtype)[()]
        return a, other, device
    if kind is bool:
        return a, other, device
    return binary(input, scalar_value(other), name)


def _result_dtype(a, b):
    ta = _dtype.FROM_NUMPY[a.dtype]
    tb = _dtype.FROM_NUMPY[b.dtype]
    if a.ndim and b.ndim or not a.ndim and not b.ndim:
        return _dtype.promote_types(ta, tb)
    if a.ndim:
        return _dtype.result_type_of(ta, tb, None)
    return _dtype.result_type_of(tb, ta, None)


def float_operand(input):
    """The array of `input`, cast to the default float dtype if it is integral or bool.

    PyTorch's unary float ops (exp, sqrt, sin, ...) promote integers this way.
    """
    a = input._data
    if _CATEGORY[a.dtype] != _FLOATING:
        a = a.astype(_dtype._defaults.float_dtype.np_dtype)
    return a


def sum_to_shape(grad, shape):
    """Sum a broadcast gradient back down to an input's shape (with ember ops)."""
    grad_shape = grad._data.shape
    if grad_shape == shape:
        return grad
    lead = len(grad_shape) - len(shape)
    dims = list(range(lead))
    for i, size in enumerate(shape):
        if size == 1 and grad_shape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = grad.sum(tuple(dims), keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    return grad


def contiguous(array, xp):
    """`array` with PyTorch's contiguous strides: NumPy gives empty arrays zero strides
    and leaves other strides on size-1 dims of some advanced-indexing results."""
    strides = _c_strides(array.shape, array.itemsize)
    if array.strides == strides:
        return array
    if array.size == 0:
        return xp.lib.stride_tricks.as_strided(xp.empty(0, dtype=array.dtype), array.shape,
                                               strides)
    return array.copy(order="C")


def _c_strides(shape, itemsize):
    strides = []
    step = itemsize
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def dim_aliases(dim, keepdim, aliases):
    """Resolve NumPy-style `axis=` / `keepdims=` (PyTorch accepts both) into dim, keepdim."""
    aliases = dict(aliases)
    if "axis" in aliases:
        dim = aliases.pop("axis")
    if "keepdims" in aliases:
        keepdim = aliases.pop("keepdims")
    if aliases:
        raise TypeError(f"got an unexpected keyword argument '{next(iter(aliases))}'")
    return dim, keepdim


def wrap_dim(dim, ndim):
    """A non-negative dim; IndexError with PyTorch's text when out of range."""
    if dim.__class__ is not int:
        dim = dim.__index__()
    return _canonical_dim(dim, ndim)


def wrap_dims(dims, ndim):
    """A tuple of non-negative dims, rejecting repeats as PyTorch does."""
    if isinstance(dims, int) or hasattr(dims, "__index__") and not isinstance(dims, (tuple, list)):
        return (wrap_dim(dims, ndim),)
    out = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        for d in out:
            if out.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def inplace(self, op, *args, **kwargs):
    """Apply `op(self, *args, **kwargs)` and write the result into `self`'s memory.

    Validates first (leaf rules, memory overlap, broadcast shape, dtype cast), so a
    failing call leaves `self` and its version untouched. When the graph is recorded,
    `op` sees a snapshot of the old values, so whatever its node saves stays valid;
    `self` then takes over the new node as its `grad_fn` (its history is rebased).
    """
    check_no_overlap(self._data)
    return inplace_overlapping(self, op, *args, **kwargs)


def inplace_overlapping(self, op, *args, **kwargs):
    """`inplace` without the overlap check, for the ops PyTorch lets write into an
    expanded tensor (fill_, zero_, masked_fill_, index_fill_, index_put_, tril_, triu_)."""
    if self._extras is not None and self._extras.get("inference") and not grad_state.inference:
        raise RuntimeError(_errors.INFERENCE_INPLACE)
    check_no_partial_overlap(self, args)
    recording = grad_state.enabled and (self._requires_grad or any_requires_grad(*args))
    source = self
    if recording:
        _check_inplace_allowed(self)
        source = make_tensor(self._data.copy(), self._device)
        source.grad_fn = self.grad_fn
        source._requires_grad = self._requires_grad
        source._output_nr = self._output_nr
        if self.grad_fn is None and self._requires_grad:
            source._grad_accumulator = self._grad_accumulator
    result = op(source, *args, **kwargs)
    data = self._data
    out = result._data
    if out.shape != data.shape:
        raise RuntimeError(_errors.inplace_broadcast(data.shape, out.shape))
    if out.dtype != data.dtype:
        result_dtype = _dtype.FROM_NUMPY[out.dtype]
        self_dtype = _dtype.FROM_NUMPY[data.dtype]
        if not _dtype.can_cast(result_dtype, self_dtype):
            raise RuntimeError(_errors.cannot_cast(result_dtype, self_dtype))
    if data.size:  # NumPy refuses to copy into some read-only empty arrays
        self._device.xp.copyto(data, out, casting="unsafe")
    self._storage.version += 1
    if recording and result.grad_fn is not None:
        if self._base is not None:
            _view_rebase.rebase_view_history(self, result)
            _view_rebase.regenerate_views(self)
        else:
            self.grad_fn = result.grad_fn
            self._requires_grad = True
            self._output_nr = result._output_nr
            if self._extras is not None:
                _view_rebase.regenerate_views(self)
    return self


def check_no_partial_overlap(self, operands):
    """PyTorch's refusal to read an operand that partly overlaps the memory being written
    (`x[1:] += x[:-1]`); the very same memory (`x += x`) is fine. Like PyTorch, only
    dense (contiguous in some order) pairs are judged; interleaved strides pass."""
    storage = self._storage
    for x in operands:
        if isinstance(x, Tensor) and x._storage is storage:
            a, b = self._data, x._data
            if not (_dense(a) and _dense(b)) or not a.size or not b.size:
                continue
            same = (a.shape == b.shape and a.strides == b.strides
                    and _address(a) == _address(b))
            if not same and self._device.xp.may_share_memory(a, b):
                raise RuntimeError(_errors.PARTIAL_OVERLAP)


def _dense(array):
    flags = array.flags
    return flags.c_contiguous or flags.f_contiguous


def check_no_overlap(data):
    """PyTorch's refusal to write into a tensor whose elements share memory (an expand)."""
    if 0 in data.strides and data.size:
        for size, stride in zip(data.shape, data.strides):
            if stride == 0 and size > 1:
                raise RuntimeError(_errors.INTERNAL_OVERLAP)


def _check_inplace_allowed(self):
    if self.grad_fn is None and self._requires_grad:
        raise RuntimeError(_errors.LEAF_INPLACE)
    base = self._base
    if base is not None:
        if base.grad_fn is None and base._requires_grad:
            raise RuntimeError(_errors.VIEW_OF_LEAF_INPLACE)


from . import _view_rebase  # noqa: E402 - its nodes build on the helpers above
