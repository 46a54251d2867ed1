"""Plumbing shared by every op family.

Operand wrapping and PyTorch's type promotion for binary ops, the device check,
result construction, graph recording (`attach`), un-broadcasting of gradients
(`sum_to_shape`), dimension wrapping, the one mechanism all in-place ops use
(`inplace`), and the weak record of a base's views (`track_view`) that lets an
in-place op give them a fresh history, as PyTorch does.
"""
from weakref import ref as _weak_ref

from .._dtype import is_floating as _is_floating
from .. import _diagnose, _dtype, _errors
from .._backend import generic as _np_generic, ndarray as _np_ndarray, numpy as _numpy
from .._meta import MetaArray as _MetaArray
from .._tensor import Tensor, make_tensor, make_view, _address, _canonical_dim
from ._dim_sum import float_sum
from ..autograd.grad_mode import state as grad_state
from ..autograd.graph import grad_accumulator, record_forward_trace
from ..autograd.grad_mode import anomaly

__all__ = ["Tensor", "make_tensor", "make_view", "grad_state", "wrap", "edge", "attach",
           "binary", "float_operand", "requires_grad", "any_requires_grad", "sum_to_shape",
           "wrap_dim", "wrap_dims", "dim_aliases", "inplace", "inplace_overlapping",
           "check_no_overlap", "check_same_device", "scalar_value", "scalar_number", "scalar_to",
           "scalar_array",
           "int_overflow", "check_uint64_promotion", "contiguous", "track_view", "plain"]

_NO_EDGE = (None, 0)
_FLOATING = _dtype.FLOATING
_INTEGRAL = _dtype.INTEGRAL
_BOOL = _dtype.BOOL
_CATEGORY = _dtype.CATEGORY  # shared: bfloat16 joins when ml_dtypes loads
_INT64 = _dtype.int64.np_dtype
_FROM_NUMPY = _dtype.FROM_NUMPY
_FLOAT32 = _numpy.float32
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_UINT64 = _numpy.dtype("uint64")
_np_bool, _np_integer = _numpy.bool_, _numpy.integer
_np_floating, _np_complex = _numpy.floating, _numpy.complexfloating
_INF = float("inf")
_PLAIN_SUM = {_numpy.dtype("float32"), _numpy.dtype("float64")}  # summed by ndarray.sum
_C_NAMES = {_dtype.uint8: "uint8_t", _dtype.int8: "int8_t", _dtype.int16: "int16_t",
            _dtype.int32: "int", _dtype.int64: "int64_t", _dtype.float16: "c10::Half",
            _dtype.bfloat16: "c10::BFloat16", _dtype.float32: "float", _dtype.float64: "double",
            _dtype.uint16: "uint16_t", _dtype.uint32: "uint32_t", _dtype.uint64: "uint64_t"}
_INT_BOUNDS = {d.np_dtype: (_dtype.iinfo(d).min, _dtype.iinfo(d).max)
               for d in (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64,
                         _dtype.uint16, _dtype.uint32, _dtype.uint64)}


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
    """Record `node` as the producer of `out`, with one edge per input.

    `edge` is written out inline: this runs once per recorded op. Only floating results
    can carry a gradient: an op asked for an integer or bool result of an input that
    requires grad (`x.sum(dtype=ember.int64)`) raises, as PyTorch's autograd does, save
    for nodes whose class says `any_dtype = True` (PyTorch's in-place comparisons).
    """
    if not _is_floating(out._data.dtype) and not getattr(node, "any_dtype", False):
        raise RuntimeError("Autograd not support dtype: "
                           f"{_FROM_NUMPY[out._data.dtype].tensor_type[:-6]}")
    edges = []
    for x in inputs:
        if x.__class__ is Tensor or isinstance(x, Tensor):
            if x.grad_fn is not None:
                edges.append((x.grad_fn, x._output_nr))
            elif x._requires_grad:
                edges.append((grad_accumulator(x), 0))
            else:
                edges.append(_NO_EDGE)
        else:
            edges.append(_NO_EDGE)
    node.next_functions = tuple(edges)
    if anomaly.enabled:
        record_forward_trace(node)
    out.grad_fn = node
    out._requires_grad = True
    base = out._base
    if base is not None and base.grad_fn is not None:
        track_view(out)
    return out


def plain(grad, *others):
    """Whether a backward formula may work on arrays directly instead of through ops.

    True when nothing is being recorded (a backward pass without `create_graph`) and
    `grad` and every tensor in `others` are plain float32/float64 Tensors of one dtype:
    then an op would only add its Python overhead to the NumPy call, and the node's
    array formula gives exactly the op's result. Anything else takes the op path.
    """
    if grad_state.enabled or grad.__class__ is not Tensor:
        return False
    dtype = grad._data.dtype
    if dtype not in _PLAIN_SUM:
        return False
    for x in others:
        if x._data.dtype != dtype or x._device is not grad._device:
            return False
    return True


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
    raise _diagnose.noted(RuntimeError(_errors.device_mismatch(a._device, b._device)), "device",
                          first=a._device, second=b._device)


def scalar_value(value):
    """The number PyTorch's `Scalar` holds for a Python argument, or its Python error.

    Python ints must fit int64 or uint64 (PyTorch's argument parser raises
    OverflowError beyond: `2**70`, `-2**63 - 1`); floats and bools pass; NumPy
    scalars become Python numbers, a `numpy.bool_` a float (PyTorch's parser reads
    it through `__float__`: `x + np.bool_(True)` is float32 even for an int `x`).
    """
    kind = type(value)
    if kind is int:
        if -0x8000000000000000 <= value <= 0xFFFFFFFFFFFFFFFF:
            return value
        raise int_overflow(value)
    if kind is float or kind is bool:
        return value
    if isinstance(value, _np_generic):
        if isinstance(value, _np_bool):
            return float(value)
        if isinstance(value, _np_floating):
            return float(value)
        if isinstance(value, _np_integer):
            return scalar_value(int(value))
        if isinstance(value, _np_complex):
            raise TypeError(_COMPLEX)
    elif isinstance(value, float):
        return float(value)
    elif isinstance(value, int):  # int subclasses (IntEnum); bool was caught above
        return scalar_value(int(value))
    elif isinstance(value, complex):
        raise TypeError(_COMPLEX)
    raise TypeError(f"unsupported operand type: '{type(value).__name__}'")


_COMPLEX = "complex numbers are not supported yet"


def int_overflow(value):
    """PyTorch's OverflowError for a Python int outside [-2**63, 2**64)."""
    if value < 0:
        return OverflowError("can't convert negative int to unsigned")
    return OverflowError("int too big to convert")


def scalar_number(value, dtype, name=None):
    """A Python number as PyTorch converts it into `dtype`, with c10's `checked_convert`.

    What fill_, full, clamp, masked_fill, index_fill, scatter and `x[i] = v` do with a
    number: RuntimeError when it overflows the dtype, except that an unsigned dtype
    takes negatives down to -max (they wrap: -1 is 255 in uint8), that inf and nan pass
    into floating dtypes, and that bool takes anything (nan is True). The result is a
    Python number that NumPy rounds into the dtype as C++ does (a float16 value is first
    rounded to float32, as c10::Half is built from a float), and that NumPy assigns and
    computes with as a weak scalar, several times cheaper than a NumPy scalar; bfloat16
    alone gets a NumPy scalar, since NumPy promotes a Python float with it to float32
    in `where`.
    `value` is a Python number (`scalar_value` converts the rest); `name` overrides the
    C type name in the message (`tensor(300, dtype=int8)` says 'int8').
    """
    category, low, high, make = _RULES[dtype]
    kind = value.__class__
    if kind is int and -0x20000000000000 <= value <= 0x20000000000000 and low <= value <= high:
        if category == _FLOATING:  # exact in a double: one rounding, as in C++
            return float(value) if make is None else make(value)
        if category == _INTEGRAL:
            return value
    if kind is float:
        if category == _FLOATING:
            if low <= value <= high or value != value or value == _INF or value == -_INF:
                return value if make is None else make(value)
        elif category == _INTEGRAL:
            if low <= value <= high:  # nan and inf fail here
                return int(value)  # C++ truncates toward zero, as int() does
        else:
            return value != 0.0  # nan is True
    elif category == _BOOL:
        return bool(value)
    else:
        if kind is not int:
            value = int(value)  # bool -> int
        if not -0x8000000000000000 <= value <= 0xFFFFFFFFFFFFFFFF:
            raise int_overflow(value)
        if low <= value <= high:
            if category == _INTEGRAL:
                return value
            if -0x20000000000000 <= value <= 0x20000000000000:  # exact in a double
                return float(value) if make is None else make(value)
            return _big_int_to_float(value, dtype)
        if low == 0 and -high <= value < 0:
            return value % (high + 1)
    raise RuntimeError(f"value cannot be converted to type {name or _C_NAMES[dtype]} "
                       "without overflow")


def _big_int_to_float(value, dtype):
    """An int beyond 2**53 rounded once into a float dtype, as C++ casts an int64 (Python's
    float() would round to a double first: 2**60 + 2**36 + 1 differs in float32)."""
    if dtype is _dtype.float64:
        return float(value)
    source = _INT64 if value <= 0x7FFFFFFFFFFFFFFF else _UINT64
    rounded = float(_numpy.asarray(value, dtype=source).astype(_numpy.float32))
    return rounded if dtype is _dtype.float32 else _RULES[dtype][3](rounded)


def _rules(d):
    if d.category == _BOOL:
        return (_BOOL, 0, 1, None)
    if d.category == _INTEGRAL:
        info = _dtype.iinfo(d)
        return (_INTEGRAL, info.min, info.max, None)
    info = _dtype.finfo(d)
    make = None
    if d.itemsize == 2:  # via float32, as c10 builds Half and BFloat16 from a float
        to_float32 = _numpy.float32
        if d is _dtype.bfloat16:
            make = lambda value, to=d.np_dtype.type: to(to_float32(value))  # noqa: E731
        else:
            make = lambda value: float(to_float32(value))  # noqa: E731
    return (_FLOATING, float(info.min), float(info.max), make)


class _RulesByDtype(dict):
    """Conversion rules per dtype; bfloat16's are made on first use, so that ml_dtypes
    loads only when a program uses bfloat16."""

    def __missing__(self, dtype):
        rules = self[dtype] = _rules(dtype)
        return rules


_RULES = _RulesByDtype((d, _rules(d)) for d in _dtype.ALL if d is not _dtype.bfloat16)


def scalar_to(value, dtype, name=None):
    """`scalar_number` as a NumPy scalar of `dtype` (where the dtype must travel with it)."""
    return dtype.np_dtype.type(scalar_number(value, dtype, name))


def scalar_array(value, dtype, xp):
    """`scalar_to` as a 0-dim array on the device of `xp`."""
    return xp.asarray(scalar_to(scalar_value(value), dtype))


def check_uint64_promotion(*values, other="Bool"):
    """PyTorch's refusal to promote a uint64 Scalar (a Python int in [2**63, 2**64))
    with bool or with another int Scalar."""
    for value in values:
        if type(value) is int and 0x7FFFFFFFFFFFFFFF < value <= 0xFFFFFFFFFFFFFFFF:
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote {other} and UInt64")


def _wrapped_int(value, np_dtype, xp):
    """A Python int cast into an integer dtype the way PyTorch casts a wrapped number
    (modulo 2**bits: `uint8 + 300` adds 44); NumPy would raise instead."""
    if value < -0x8000000000000000 or value > 0xFFFFFFFFFFFFFFFF:
        raise int_overflow(value)
    return xp.asarray(value & 0xFFFFFFFFFFFFFFFF, dtype=_UINT64).astype(np_dtype)[()]


def binary(input, other, name="op", floating=False):
    """Arrays for a binary op, cast to PyTorch's result dtype: `(a, b, device)`.

    A Python scalar stays a Python scalar: NumPy treats it as 'weak', which
    matches PyTorch once the tensor side has been cast to the result category.
    With `floating`, the op computes in floats (true division, atan2, ...): an
    integer tensor is cast to the default float dtype first, so a Python int
    keeps its value instead of wrapping into the tensor's dtype, as in PyTorch.
    """
    try:
        a = input._data
    except AttributeError:
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}") from None
    device = input._device
    kind = type(other)
    if kind is float:
        if _CATEGORY[a.dtype] != _FLOATING:
            a = a.astype(_dtype._defaults.float_dtype.np_dtype)
        elif a.dtype in _REDUCED:  # PyTorch rounds the number to float32 first
            other = float(_FLOAT32(other))
        return a, other, device
    if kind is int:
        category = _CATEGORY[a.dtype]
        if category == _FLOATING or floating:
            if not -0x20000000000000 <= other <= 0x20000000000000:  # beyond 2**53
                if not -0x8000000000000000 <= other <= 0xFFFFFFFFFFFFFFFF:
                    raise int_overflow(other)
                if category == _BOOL:
                    check_uint64_promotion(other)
                if category != _FLOATING:
                    a = a.astype(_dtype._defaults.float_dtype.np_dtype)
                return a, _big_int_to_float(other, _FROM_NUMPY[a.dtype]), device
            if category != _FLOATING:
                a = a.astype(_dtype._defaults.float_dtype.np_dtype)
        elif category == _INTEGRAL:
            low, high = _INT_BOUNDS[a.dtype]
            if other < low or other > high:
                other = _wrapped_int(other, a.dtype, device.xp)
        else:
            if other > 0x7FFFFFFFFFFFFFFF or other < -0x8000000000000000:
                if other > 0xFFFFFFFFFFFFFFFF or other < -0x8000000000000000:
                    raise int_overflow(other)
                check_uint64_promotion(other)
            a = a.astype(_INT64)
        return a, other, device
    if kind is bool:
        return a, other, device
    if isinstance(other, Tensor):
        b = other._data
        if other._device is not device:
            check_same_device(input, other)
            if device.type == "cpu" and a.ndim == 0:
                device = other._device
        if a.dtype != b.dtype:
            result = _result_dtype(a, b)
            if floating and result.category != _FLOATING:  # int8(-1) divides as -1.0
                result = _dtype._defaults.float_dtype
            result = result.np_dtype
            if a.dtype != result:
                a = a.astype(result)
            if b.dtype != result:
                b = b.astype(result)
        return a, b, device
    if isinstance(other, _np_ndarray):  # `x + array` treats the array as a tensor
        return binary(input, make_tensor(device.xp.asarray(_checked_array(other)), device),
                      name, floating)
    return binary(input, scalar_value(other), name, floating)


def _checked_array(array):
    _dtype.from_numpy_dtype(array.dtype)  # TypeError for a dtype PyTorch lacks
    return array


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
    if plain(grad):
        # Nothing is recorded (a backward pass without create_graph): one NumPy call
        # instead of sum + reshape as two ops; the same float sum `sum` computes.
        data = grad._data
        if dims:
            data = (float_sum(data, tuple(dims), True) if data.__class__ is _np_ndarray
                    else data.sum(axis=tuple(dims), keepdims=True))
        return make_tensor(data.reshape(shape), grad._device)
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
    """A non-negative dim; IndexError with PyTorch's text when out of range.

    PyTorch's parser refuses a bool where it wants an int dim; the TypeError raised here
    reaches a door (_arguments.door), which rewrites it in the exact words of the op."""
    if dim.__class__ is not int:
        if dim.__class__ is bool:
            raise TypeError("argument 'dim' must be int, not bool")
        dim = dim.__index__()
    return _canonical_dim(dim, ndim)


def wrap_dim_list(dims, ndim):
    """Dims from a list or tuple. PyTorch's parser checks the first element's type only
    and unpacks the rest as indices, so `amax([0, True])` reduces dims 0 and 1."""
    return tuple(wrap_dim(int(d) if i and d.__class__ is bool else d, ndim)
                 for i, d in enumerate(dims))


def wrap_dims(dims, ndim):
    """A tuple of non-negative dims, rejecting repeats as PyTorch does."""
    if isinstance(dims, int) or hasattr(dims, "__index__") and not isinstance(dims, (tuple, list)):
        return (wrap_dim(dims, ndim),)
    out = wrap_dim_list(dims, ndim)
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
    try:
        check_no_overlap(self._data)
    except RuntimeError:
        # PyTorch's op checks its arguments before the write refuses an expand (neg_ of
        # bool, cumsum_'s dim, clamp_ without bounds): run the op, which only computes, to
        # raise those; a kernel's dtype refusal (NotImplementedError) comes after the write's,
        # and autograd's leaf rule before everything
        check_leaf_write(self)
        try:
            op(self, *args, **kwargs)
        except NotImplementedError:
            pass
        raise
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
        try:
            _check_inplace_allowed(self)
        except RuntimeError:
            _check_int_arguments(args, kwargs)
            raise
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
        xp = self._device.xp
        if 0 in data.strides and data.size > 1:
            # Elements share memory (an expand): PyTorch writes only the positions the op
            # touches, so an untouched alias must not copy the old value back over them.
            changed = out != data
            if _is_floating(out.dtype):
                changed &= ~(xp.isnan(out) & xp.isnan(data))
            xp.copyto(data, out, casting="unsafe", where=changed)
        else:
            xp.copyto(data, out, casting="unsafe")
    self._storage.version += 1
    if recording and result.grad_fn is not None:
        if anomaly.enabled:
            _diagnose.record_inplace(self, op, result.grad_fn.name())
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
        if data.__class__ is _MetaArray:
            return  # zero strides are how a meta array holds no data, not an expand
        for size, stride in zip(data.shape, data.strides):
            if stride == 0 and size > 1:
                raise RuntimeError(_errors.INTERNAL_OVERLAP)


def _check_int_arguments(args, kwargs):
    """PyTorch's argument parser refuses a Python int outside [-2**63, 2**64) before
    autograd looks at the tensor written: asked only when a leaf write is refused."""
    for value in (*args, *kwargs.values()):
        if value.__class__ is int and not -0x8000000000000000 <= value <= 0xFFFFFFFFFFFFFFFF:
            raise int_overflow(value)


def check_leaf_write(self):
    """The leaf rules alone, first: for in-place ops with checks of their own (the samplers'
    bounds, an empty tensor's early return), which PyTorch's kernels run only after
    autograd has refused a write into a leaf."""
    if self._requires_grad and grad_state.enabled:
        _check_inplace_allowed(self)


def _check_inplace_allowed(self):
    """PyTorch's leaf rules for a recorded write into `self` (grad mode on).

    Only a tensor that requires grad is judged. A view whose base is a leaf is refused
    first, in its own words, whether or not the base requires grad: `b[1:]` of a leaf
    parameter, and `b.t().requires_grad_()` alike. Then a leaf itself.
    """
    if not self._requires_grad:
        return
    base = self._base
    if base is not None and base.grad_fn is None:
        raise RuntimeError(_errors.VIEW_OF_LEAF_INPLACE)
    if self.grad_fn is None:
        raise _diagnose.noted(RuntimeError(_errors.LEAF_INPLACE), "leaf_inplace",
                              shape=self.shape)


from . import _view_rebase  # noqa: E402 - its nodes build on the helpers above
