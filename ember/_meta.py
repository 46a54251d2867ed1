"""The `meta` device: tensors with a shape, a dtype and strides, but no data.

A meta tensor holds a `MetaArray`: a NumPy array whose strides are all zero, so a
billion-element weight occupies one element of memory. Every op then runs unchanged on
meta tensors, because NumPy hands the computation back to the array class:

- a ufunc (`+`, `exp`, `matmul`, `a.sum()` through `add.reduce`) is answered by running
  it on one-element stand-ins of the operands' dtypes, which gives the result dtype with
  NumPy's own promotion, and by a shape rule (broadcasting, matmul's, a reduction's);
- a NumPy function (`concatenate`, `sum`, `where`...) is answered by a shape rule where one
  is written below, and otherwise run on the zero-stride arrays themselves, whose result
  is then replaced by a zero-stride array of its shape and dtype (time and memory of the
  output only; the inputs are never expanded);
- writes (`a[...] = v`, `copyto`, `out=`) are accepted and do nothing.

Functions whose result depends on the values (`nonzero`, `unique`) raise
NotImplementedError, as PyTorch does. `xp` below is the array module the meta device
hands to ops: NumPy, except that its factories make MetaArrays.

Where ember differs from PyTorch's meta tensors: strides are reported dense for the
shape (`Tensor.stride` cannot see a view's layout through zero strides, so `x.T` of a
meta tensor says contiguous); a check that an op makes on values sees zeros (linalg.inv
calls a meta matrix singular, multinomial finds no probability mass); and a CPU op
handed a meta operand refuses with the device-check text where PyTorch's CPU kernel
would read memory that was never allocated.
"""
import numpy as _np

__all__ = ["MetaArray", "meta_array", "to_meta", "xp", "is_meta_array"]


NO_DATA = "Cannot copy out of meta tensor; no data!"
NONZERO = ("The register_meta function for ember.nonzero() raises unimplemented by default, "
           "as a correct data-independent implementation does not exist. This implementation "
           "returns a fake value, assuming all elements of the tensor are non-zero. To enable "
           "this registration, please set "
           "'ember.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")


def meta_array(shape, dtype):
    """A zero-stride MetaArray of `shape` and `dtype`: one element of memory, whatever
    the shape (writable, so code that writes into it writes that one element)."""
    shape = tuple(int(size) for size in shape)
    cell = _np.zeros((), dtype)
    return _np.ndarray.__new__(MetaArray, shape, cell.dtype, buffer=cell.data,
                               strides=(0,) * len(shape))


def to_meta(array):
    """A MetaArray with `array`'s shape and dtype (itself when it already is one)."""
    if array.__class__ is MetaArray:
        return array
    return meta_array(array.shape, array.dtype)


def is_meta_array(array):
    return array.__class__ is MetaArray


def _standin(value):
    """A one-element array of an operand's dtype (Python scalars stay weak scalars)."""
    if isinstance(value, _np.ndarray):
        return _np.zeros((), value.dtype)
    return value


def _plain(value):
    """The zero-stride ndarray view behind a MetaArray (other values unchanged)."""
    if value.__class__ is MetaArray:
        return value.view(_np.ndarray)
    if isinstance(value, (list, tuple)):
        return value.__class__(_plain(item) for item in value)
    return value


def _metas(result):
    """Replace every array in a NumPy result by a MetaArray of its shape and dtype."""
    if isinstance(result, _np.ndarray):
        return to_meta(result)
    if isinstance(result, _np.generic):
        return meta_array((), result.dtype)
    if isinstance(result, tuple):
        return result.__class__(*map(_metas, result)) if hasattr(result, "_fields") \
            else tuple(map(_metas, result))
    if isinstance(result, list):
        return [_metas(item) for item in result]
    return result


def _shape(value):
    return value.shape if isinstance(value, (_np.ndarray, _np.generic)) else ()


class MetaArray(_np.ndarray):
    """An ndarray that answers computations with shape and dtype only (see the module)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        kwargs.pop("where", None)
        if method == "at":
            return None  # scatter into meta memory: nothing to write
        with _np.errstate(all="ignore"):
            if method == "__call__":
                if ufunc.signature is None:  # matmul's devices are checked by its callers
                    _check_one_device(inputs)
                shape = _call_shape(ufunc, inputs)
                if ufunc.signature is None:
                    sample = ufunc(*map(_standin, inputs), **kwargs)
                else:  # matmul and kin: core dimensions of one
                    sample = ufunc(*[_np.zeros((1,) * max(x.ndim, 1), x.dtype)
                                     for x in inputs], **kwargs)
            elif method in ("reduce", "accumulate"):
                shape, sample = _reduce(ufunc, method, inputs, kwargs)
            elif method == "outer":
                shape = _shape(inputs[0]) + _shape(inputs[1])
                sample = ufunc(*map(_standin, inputs), **kwargs)
            else:
                return _metas(getattr(ufunc, method)(*_plain(inputs), **_plain(kwargs)))
        if out is not None:
            return out[0] if len(out) == 1 else out
        if isinstance(sample, tuple):
            return tuple(meta_array(shape, part.dtype) for part in sample)
        return meta_array(shape, _np.asarray(sample).dtype)

    def __array_function__(self, func, types, args, kwargs):
        rule = _RULES.get(func)
        if rule is not None:
            return rule(*args, **kwargs)
        if func in _NONZERO:
            raise NotImplementedError(NONZERO)
        if func in _DATA_DEPENDENT:
            raise NotImplementedError(
                f"{func.__name__}: the result's shape depends on the values, and a meta "
                "tensor has none")
        # CPU integer arrays may index meta ones (embedding of CPU token ids, as PyTorch)
        _check_one_device([a for arg in args for a in (arg if isinstance(arg, (list, tuple))
                                                        else (arg,))
                           if not (isinstance(a, _np.ndarray) and a.dtype.kind in "iu")])
        with _np.errstate(all="ignore"):
            return _metas(func(*_plain(args), **_plain(kwargs)))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return meta_array(self.shape, _np.dtype(dtype))

    def copy(self, order="C"):
        return meta_array(self.shape, self.dtype)

    def __getitem__(self, key):
        for part in key if isinstance(key, tuple) else (key,):
            if isinstance(part, _np.ndarray) and part.dtype == bool and part.ndim:
                raise NotImplementedError(NONZERO)  # a mask selects as many as are True
        return _metas(self.view(_np.ndarray)[_plain(key)])

    def __setitem__(self, key, value):
        pass

    def nonzero(self):
        raise NotImplementedError(NONZERO)

    def fill(self, value):
        pass

    def item(self, *args):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def tolist(self):
        raise NotImplementedError(NO_DATA)

    def get(self):
        """CuPy's copy to the host: a meta array has nothing to copy, and reading from
        what is returned (item, tolist) raises PyTorch's errors."""
        return self

    def __reduce__(self):
        return (meta_array, (self.shape, self.dtype))


def _check_one_device(values):
    """PyTorch's device error when a meta array meets a CPU array of one or more dims (a
    CPU tensor's data; 0-dim CPU tensors may meet any device, as in PyTorch). The first
    array's device is the one expected, as PyTorch checks operands against the first."""
    for value in values:
        if value.__class__ is not MetaArray and isinstance(value, _np.ndarray) and value.ndim:
            first = next(v for v in values if isinstance(v, _np.ndarray))
            expected, found = ("meta", "cpu") if first.__class__ is MetaArray else ("cpu", "meta")
            raise RuntimeError(f"Tensor on device {found} is not on the expected device "
                               f"{expected}!")


def _call_shape(ufunc, inputs):
    """The broadcast shape of a ufunc call, or matmul's shape rule."""
    shapes = [_shape(value) for value in inputs]
    if ufunc.signature is None:
        return _np.broadcast_shapes(*shapes)
    if ufunc is _np.matmul:
        return _matmul_shape(*shapes)
    # another generalized ufunc: ask it, on arrays of ones where its core dimensions are
    return _np.asarray(ufunc(*[_np.zeros(s) for s in shapes])).shape


def _matmul_shape(a, b):
    if not a or not b:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    left = a if len(a) > 1 else (1,) + a
    right = b if len(b) > 1 else b + (1,)
    if left[-1] != right[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0 "
                         f"(size {right[-2]} is different from {left[-1]})")
    shape = _np.broadcast_shapes(left[:-2], right[:-2]) + (left[-2], right[-1])
    if len(a) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(b) == 1:
        shape = shape[:-1]
    return shape


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        return tuple(a % ndim for a in axis) if ndim else ()
    return (axis % ndim,) if ndim else ()


def _reduced(shape, axis, keepdims):
    axes = _axes(axis, len(shape))
    if keepdims:
        return tuple(1 if d in axes else size for d, size in enumerate(shape))
    return tuple(size for d, size in enumerate(shape) if d not in axes)


def _reduce(ufunc, method, inputs, kwargs):
    """Shape and a dtype sample for `ufunc.reduce` / `ufunc.accumulate`."""
    array = inputs[0]
    axis = inputs[1] if len(inputs) > 1 else kwargs.get("axis", 0)
    if len(inputs) > 2 and inputs[2] is not None:
        kwargs["dtype"] = inputs[2]
    shape = _shape(array)
    sample_kwargs = {k: v for k, v in kwargs.items() if k in ("dtype",)}
    sample = getattr(ufunc, method)(_np.zeros((1,), array.dtype), **sample_kwargs)
    if method == "accumulate":
        return shape, sample
    return _reduced(shape, axis, kwargs.get("keepdims", False)), sample


# ---------------------------------------------------------------- shape rules of functions
def _reduction(func):
    """A NumPy reduction (`sum(a, axis, dtype, out, keepdims)` and kin) by its shape rule."""
    def rule(a, axis=None, *args, keepdims=False, out=None, **kwargs):
        sample = func(_np.zeros((1,) * a.ndim, a.dtype), axis, *args, keepdims=keepdims,
                      **kwargs)
        if out is not None:
            return out
        return meta_array(_reduced(a.shape, axis, keepdims), _np.asarray(sample).dtype)
    return rule


def _argreduction(func):
    def rule(a, axis=None, out=None, *, keepdims=False):
        if axis is None and not keepdims:
            return meta_array((), _np.intp)
        return meta_array(_reduced(a.shape, axis, keepdims), _np.intp)
    return rule


def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    _check_one_device(arrays)
    sample = _np.concatenate([_np.zeros((1,), a.dtype) for a in arrays], dtype=dtype,
                             casting=casting)
    if axis is None:
        return meta_array((sum(a.size for a in arrays),), sample.dtype)
    first = arrays[0].shape
    axis = axis % len(first)
    length = sum(a.shape[axis] for a in arrays)
    return meta_array(first[:axis] + (length,) + first[axis + 1:], sample.dtype)


def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    shape = arrays[0].shape
    axis = axis % (len(shape) + 1)
    sample = _np.concatenate([_np.zeros((1,), a.dtype) for a in arrays], dtype=dtype,
                             casting=casting)
    return meta_array(shape[:axis] + (len(arrays),) + shape[axis:], sample.dtype)


def _where(condition, *values):
    if not values:
        raise NotImplementedError("where(condition): the result's shape depends on the "
                                  "values, and a meta tensor has none")
    _check_one_device((condition,) + values)
    shape = _np.broadcast_shapes(*map(_shape, (condition,) + values))
    return meta_array(shape, _np.where(True, *map(_standin, values)).dtype)


def _copyto(dst, src, casting="same_kind", where=True):
    return None


def _like(a, dtype=None, *args, shape=None, **kwargs):
    return meta_array(a.shape if shape is None else shape,
                      a.dtype if dtype is None else _np.dtype(dtype))


def _full_like(a, fill_value, dtype=None, *args, shape=None, **kwargs):
    return _like(a, dtype, shape=shape)


def _as_is(a, dtype=None, *args, **kwargs):
    if dtype is None or _np.dtype(dtype) == a.dtype:
        return a if isinstance(a, MetaArray) else to_meta(a)
    return meta_array(a.shape, dtype)


def _copy(a, *args, **kwargs):
    return meta_array(a.shape, a.dtype)


def _broadcast_to(array, shape, subok=False):
    _np.broadcast_shapes(array.shape, tuple(shape))
    return meta_array(tuple(shape), array.dtype)


def _einsum(*operands, out=None, **kwargs):
    """Shape of an einsum from its subscripts (run on one-element stand-ins of every
    label, then every label given its real size)."""
    subscripts, arrays = operands[0], operands[1:]
    inputs, _, output = subscripts.replace(" ", "").partition("->")
    sizes = {}
    for labels, array in zip(inputs.split(","), arrays):
        if "." in labels:
            return _metas(_np.einsum(subscripts, *_plain(arrays), **kwargs))
        for label, size in zip(labels, array.shape):
            sizes[label] = max(sizes.get(label, 1), size)
    sample = _np.einsum(subscripts, *[_np.zeros((1,) * a.ndim, a.dtype) for a in arrays],
                        **{k: v for k, v in kwargs.items() if k == "dtype"})
    if not output and "->" not in subscripts:
        output = "".join(sorted(label for label in sizes if inputs.count(label) == 1))
    return meta_array(tuple(sizes[label] for label in output), _np.asarray(sample).dtype)


_RULES = {
    _np.concatenate: _concatenate, _np.stack: _stack, _np.where: _where,
    _np.copyto: _copyto, _np.empty_like: _like, _np.zeros_like: _like, _np.ones_like: _like,
    _np.full_like: _full_like, _np.asarray: _as_is, _np.ascontiguousarray: _as_is,
    _np.asfortranarray: _as_is, _np.array: _copy, _np.copy: _copy,
    _np.broadcast_to: _broadcast_to, _np.einsum: _einsum,
    _np.argmax: _argreduction(_np.argmax), _np.argmin: _argreduction(_np.argmin),
}
for _name in ("sum", "prod", "mean", "max", "min", "amax", "amin", "any", "all", "std", "var",
              "nansum", "nanprod", "nanmean", "nanmax", "nanmin"):
    _RULES[getattr(_np, _name)] = _reduction(getattr(_np, _name))
_NONZERO = {_np.nonzero, _np.flatnonzero, _np.argwhere, _np.extract, _np.compress}
_DATA_DEPENDENT = {_np.unique, _np.array_equal}


class _MetaNumpy:
    """The array module of the meta device: NumPy, whose factories make MetaArrays."""

    def __getattr__(self, name):
        return getattr(_np, name)

    @staticmethod
    def empty(shape, dtype=float, *args, **kwargs):
        return meta_array(_tuple(shape), _np.dtype(dtype))

    zeros = ones = empty

    @staticmethod
    def full(shape, fill_value, dtype=None, *args, **kwargs):
        if dtype is None:
            dtype = _np.asarray(fill_value).dtype
        return meta_array(_tuple(shape), _np.dtype(dtype))

    @staticmethod
    def eye(n, m=None, k=0, dtype=float, *args, **kwargs):
        return meta_array((n, n if m is None else m), _np.dtype(dtype))

    @staticmethod
    def asarray(a, dtype=None, *args, **kwargs):
        if isinstance(a, _np.ndarray):
            return _as_is(a, dtype)
        return to_meta(_np.asarray(a, dtype))

    @staticmethod
    def array(a, dtype=None, *args, **kwargs):
        return to_meta(_np.asarray(a, dtype))

    ascontiguousarray = asarray

    @staticmethod
    def arange(*args, dtype=None, **kwargs):
        return to_meta(_np.arange(*args, dtype=dtype, **kwargs))


class _StrideTricks:
    """`xp.lib.stride_tricks` of the meta device: any strided view of a meta array is
    another zero-stride one (real strides over its one element would read past it)."""

    @staticmethod
    def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
        return meta_array(x.shape if shape is None else shape, x.dtype)

    @staticmethod
    def sliding_window_view(x, window_shape, axis=None, **kwargs):
        return _metas(_np.lib.stride_tricks.sliding_window_view(_plain(x), window_shape, axis,
                                                                **kwargs))


class _Lib:
    stride_tricks = _StrideTricks()

    def __getattr__(self, name):
        return getattr(_np.lib, name)


def _tuple(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


_MetaNumpy.lib = _Lib()
xp = _MetaNumpy()
