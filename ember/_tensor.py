"""The Tensor: a backend array plus what autograd needs to know about it.

A Tensor holds an array (`_data`, possibly a strided view into a buffer shared
with other tensors), its device, a storage record shared by all views of the
same memory (the root array and the version counter), and the autograd fields.
It does no arithmetic itself: every method below is a one-line door into the op
that defines it in `ember/ops/`, grouped by family.
"""
import warnings
import weakref
from types import FunctionType as _FunctionType

from . import _backend, _diagnose, _dtype, _errors, _parallel
from ._device import CPU as _CPU, META as _META
from ._layout import strided as _strided
from ._meta import MetaArray as _MetaArray
from ._size import Size
from .autograd import graph as _graph
from .autograd.grad_mode import state as _grad_state

__all__ = ["Tensor"]


class _Storage:
    """Shared by a tensor and all its views: the root array and the version counter."""

    __slots__ = ("root", "version")

    def __init__(self, root):
        self.root = root
        self.version = 0


_new = object.__new__
_ndarray = _backend.ndarray
_generic = _backend.generic


def make_tensor(data, device=_CPU):
    """Wrap a backend array in a fresh Tensor with its own storage (no copy).

    NumPy hands back scalars, not 0-dim arrays, from many reductions; a Tensor always
    holds an array, so one is made here (a class test on the success path).
    """
    if data.__class__ is not _ndarray:
        if isinstance(data, _generic):
            data = _backend.numpy.asarray(data)
        elif data.__class__ is _MetaArray and device is not _META:
            raise _meta_leak(device)
    t = _new(Tensor)
    t._data = data
    t._device = device
    t._storage = _Storage(data)
    t._base = None
    t.grad_fn = None
    t._requires_grad = False
    t._grad = None
    t._output_nr = 0
    t._grad_accumulator = None
    t._extras = _INFERENCE_EXTRAS() if _grad_state.inference else None
    return t


def _meta_leak(device):
    """An op on `device` tensors met a meta operand (its array computed as meta): PyTorch's
    CPU kernels would read memory that was never allocated; ember refuses with the
    device check's text."""
    return _diagnose.noted(RuntimeError(_errors.device_mismatch(device, _META)), "device",
                           first=device, second=_META)


def _dense_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _INFERENCE_EXTRAS():
    return {"inference": True}


def make_view(data, base):
    """Wrap `data`, a view of `base`'s memory: it shares storage and version counter."""
    t = _new(Tensor)
    t._data = data
    t._device = base._device
    t._storage = base._storage
    t._base = base if base._base is None else base._base
    t.grad_fn = None
    t._requires_grad = False
    t._grad = None
    t._output_nr = 0
    t._grad_accumulator = None
    t._extras = base._extras if base._extras and base._extras.get("inference") else None
    return t


class Tensor:
    """A multi-dimensional array on a device that can record how it was computed.

    `ember.Tensor(...)` is PyTorch's legacy constructor: always float32, and
    `Tensor(2, 3)` makes an uninitialised 2x3 tensor.
    """

    __slots__ = ("_data", "_device", "_storage", "_base", "grad_fn", "_requires_grad", "_grad",
                 "_output_nr", "_grad_accumulator", "_extras", "__weakref__")

    __hash__ = object.__hash__
    __array_priority__ = 1000  # NumPy defers `ndarray op Tensor` to our reflected operators

    def __new__(cls, *args, **kwargs):
        return _creation.legacy_constructor(cls, *args, **kwargs)

    # ================================================================ attributes
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape, or the length of one dimension."""
        shape = self._data.shape
        if dim is None:
            return Size(shape)
        if not shape:  # not the wrap rule of ops: size(0) of a 0-dim tensor has no answer
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return shape[_canonical_dim(dim, len(shape))]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        return _dtype.FROM_NUMPY[self._data.dtype]

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def is_cpu(self):
        return self._device.type == "cpu"

    @property
    def is_meta(self):
        return self._device is _META

    @property
    def layout(self):
        return _strided

    def stride(self, dim=None):
        """Strides in elements, from the array's strides in bytes."""
        itemsize = self._data.itemsize
        if self._device is _META:  # no memory behind a meta array: report a dense layout
            strides = _dense_strides(self._data.shape)
        else:
            strides = tuple(s // itemsize for s in self._data.strides)
        if dim is None:
            return strides
        if not strides:  # as size(dim): a 0-dim tensor has no dim to ask about
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return strides[_canonical_dim(dim, self._data.ndim)]

    def storage_offset(self):
        """Elements between the start of the shared storage and this tensor's first element."""
        root = self._storage.root
        if self._data.size == 0:
            return 0
        return (_address(self._data) - _address(root)) // self._data.itemsize

    def data_ptr(self):
        return 0 if self._device is _META else _address(self._data)

    def is_contiguous(self, *, memory_format=None):
        """C-contiguity as PyTorch defines it (size-1 dimensions may have any stride)."""
        if memory_format is not None:
            return _conversion.is_contiguous_as(self, memory_format)
        if self._data.size == 0:
            return True
        expected = 1
        for size, stride in zip(reversed(self._data.shape), reversed(self.stride())):
            if size == 1:
                continue
            if stride != expected:
                return False
            expected *= size
        return True

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def is_floating_point(self):
        return self._data.dtype.kind == "f" or self.dtype is _dtype.bfloat16

    def is_complex(self):
        return False

    def is_inference(self):
        """True for tensors created under `inference_mode` (they can't enter autograd)."""
        return bool(self._extras and self._extras.get("inference"))

    @property
    def _version(self):
        return self._storage.version

    def get_device(self):
        return self._device.index if self._device.type == "cuda" else -1

    # ================================================================ autograd state
    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if value and self.grad_fn is None and not self.is_floating_point():
            raise _diagnose.noted(RuntimeError(_errors.ONLY_FLOAT_REQUIRES_GRAD_SETTER),
                                  "integer_requires_grad", dtype=self.dtype)
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records ops on this leaf; returns self."""
        if requires_grad.__class__ is not bool:
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {_arguments.typename(requires_grad)}")
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(_errors.NON_LEAF_REQUIRES_GRAD)
            return self
        if requires_grad and not self.is_floating_point():
            raise _diagnose.noted(RuntimeError(_errors.ONLY_FLOAT_REQUIRES_GRAD),
                                  "integer_requires_grad", dtype=self.dtype)
        if requires_grad and self.is_inference() and not _grad_state.inference:
            raise RuntimeError(_errors.INFERENCE_REQUIRES_GRAD)
        self._requires_grad = requires_grad
        return self

    @property
    def grad(self):
        if self.grad_fn is not None and not self.retains_grad and self._grad is None:
            warnings.warn(_errors.NON_LEAF_GRAD_ACCESS, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value.dtype is not self.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return bool(self._extras and self._extras.get("retains_grad"))

    def retain_grad(self):
        """Keep `.grad` for this non-leaf tensor after backward (a no-op on leaves)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self.retains_grad:
            return
        node = self.grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)
        self._extra_dict()["retains_grad"] = True

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_pre_hook(self._output_nr, hook)
        hooks = self._extra_dict().setdefault("hooks", [])
        hooks.append(hook)
        return _graph._RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call `hook(tensor)` after this leaf's `.grad` has been accumulated."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hooks = self._extra_dict().setdefault("post_accumulate_hooks", [])
        hooks.append(hook)
        return _graph._RemovableHandle(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves."""
        _autograd_api.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        """A new tensor sharing this one's memory, cut from the graph.

        Like PyTorch's, the result is no view (`_base` is None) even where this tensor is
        one: it shares memory and version counter, but writes through it touch no graph.
        """
        out = self._alias()
        out._base = None
        return out

    def detach_(self):
        """Cut this tensor from the graph in place, making it a leaf.

        PyTorch refuses every view here, whether or not its base is in a graph.
        """
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def data(self):
        """This tensor's values as a tensor outside the graph (shares memory, not a view)."""
        out = self._alias()
        out._base = None
        return out

    @data.setter
    def data(self, value):
        self._data = value._data
        self._storage = value._storage
        self._device = value._device

    # ---------------------------------------------------------------- internals
    def _alias(self):
        """A tensor over the same memory and version counter, without history."""
        t = _new(Tensor)
        t._data = self._data
        t._device = self._device
        t._storage = self._storage
        t._base = self._base
        t.grad_fn = None
        t._requires_grad = False
        t._grad = None
        t._output_nr = 0
        t._grad_accumulator = None
        t._extras = None
        return t

    def _owned_copy(self):
        """A detached copy with fresh memory (what `.grad` keeps); a large one is copied on
        every thread."""
        data = self._data
        if data.__class__ is _backend.ndarray:
            return make_tensor(_parallel.copy(data), self._device)
        return make_tensor(data.copy(), self._device)

    def _accumulate_(self, other):
        """self += other on the raw arrays, for gradient accumulation."""
        data = self._data
        data += other._data
        self._storage.version += 1

    def _extra_dict(self):
        if self._extras is None:
            self._extras = {}
        return self._extras

    # ================================================================ Python protocol
    def __repr__(self, *, tensor_contents=None):
        return _tensor_str.tensor_repr(self, tensor_contents)

    __str__ = __repr__

    def __format__(self, format_spec):
        # As PyTorch: only a plain 0-dim Tensor formats as its number (Parameter does not).
        if self._data.ndim == 0 and type(self) is Tensor and self._device is not _META:
            return self.detach().item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(_views.unbind(self, 0))

    def __bool__(self):
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError(_errors.AMBIGUOUS_BOOL)
        return bool(self._data.reshape(()).item())

    def __int__(self):
        return int(_interop.one_element_scalar(self))

    def __float__(self):
        return float(_interop.one_element_scalar(self))

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._data.reshape(()).item())

    def __complex__(self):
        return complex(self.item())

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise _diagnose.noted(RuntimeError(f"a Tensor with {self._data.size} elements "
                                               "cannot be converted to Scalar"),
                                  "item", shape=self.shape, numel=self._data.size)
        return _interop.to_python_scalar(self)

    def tolist(self):
        """Nested Python lists of Python numbers."""
        return _interop.tolist(self)

    def numpy(self, *, force=False):
        """The NumPy array behind this CPU tensor (shared memory, no copy)."""
        return _interop.numpy(self, force=force)

    def __array__(self, dtype=None, copy=None):
        return _interop.array(self, dtype, copy)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return _dlpack.dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return _dlpack.dlpack_device(self)

    def __deepcopy__(self, memo):
        return _conversion.deepcopy(self, memo)

    def __reduce_ex__(self, protocol):
        return _conversion.reduce_ex(self, protocol)

    # ================================================================ creation (ops/creation.py)
    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        return _creation.new_tensor(self, data, dtype=dtype, device=device,
                                    requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return _creation.new_zeros(self, *size, dtype=dtype, device=device,
                                   requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return _creation.new_ones(self, *size, dtype=dtype, device=device,
                                  requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return _creation.new_empty(self, *size, dtype=dtype, device=device,
                                   requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        return _creation.new_full(self, size, fill_value, dtype=dtype, device=device,
                                  requires_grad=requires_grad)

    # ================================================================ conversion (ops/conversion.py)
    def to(self, *args, **kwargs):
        return _conversion.to(self, *args, **kwargs)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        return _conversion.type(self, dtype, non_blocking, **kwargs)

    def type_as(self, other):
        return _conversion.to(self, other.dtype)

    def cpu(self, *, memory_format=None):
        return _conversion.converted(self, "cpu", memory_format, "cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return _conversion.to(self, "cuda" if device is None else device)

    def float(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.float32, memory_format, "float")

    def double(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.float64, memory_format, "double")

    def half(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.float16, memory_format, "half")

    def bfloat16(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.bfloat16, memory_format, "bfloat16")

    def long(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.int64, memory_format, "long")

    def int(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.int32, memory_format, "int")

    def short(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.int16, memory_format, "short")

    def char(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.int8, memory_format, "char")

    def byte(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.uint8, memory_format, "byte")

    def bool(self, *, memory_format=None):
        return _conversion.converted(self, _dtype.bool, memory_format, "bool")

    def clone(self, *, memory_format=None):
        return _conversion.clone(self, memory_format=memory_format)

    def contiguous(self, *, memory_format=None):
        return _conversion.contiguous(self, memory_format)

    def copy_(self, src, non_blocking=False):
        return _conversion.copy_(self, src)

    # ================================================================ pointwise (ops/pointwise.py)
    # PyTorch's operators turn its parser's TypeError into NotImplemented, so Python itself
    # words the refusal ("unsupported operand type(s) for +: 'Tensor' and 'NoneType'")
    # after trying the other operand; an in-place one does so before its leaf checks.
    def __add__(self, other):
        try:
            return _pointwise.add(self, other)
        except TypeError:
            return NotImplemented

    def __radd__(self, other):
        try:
            return _pointwise.add(self, other)
        except TypeError:
            return NotImplemented

    def __iadd__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.add_(self, other)

    def __sub__(self, other):
        try:
            return _pointwise.sub(self, other)
        except TypeError:
            return NotImplemented

    def __rsub__(self, other):
        try:
            return _pointwise.rsub(self, other)
        except TypeError:
            return NotImplemented

    def __isub__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.sub_(self, other)

    def __mul__(self, other):
        try:
            return _pointwise.mul(self, other)
        except TypeError:
            return NotImplemented

    def __rmul__(self, other):
        try:
            return _pointwise.mul(self, other)
        except TypeError:
            return NotImplemented

    def __imul__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.mul_(self, other)

    def __truediv__(self, other):
        try:
            return _pointwise.div(self, other)
        except TypeError:
            return NotImplemented

    def __rtruediv__(self, other):
        try:
            return _pointwise.rdiv(self, other)
        except TypeError:
            return NotImplemented

    def __itruediv__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.div_(self, other)

    def __floordiv__(self, other):
        try:
            return _pointwise.floor_divide(self, other)
        except TypeError:
            return NotImplemented

    def __rfloordiv__(self, other):
        try:
            return _pointwise.rfloordiv(self, other)
        except TypeError:
            return NotImplemented

    def __ifloordiv__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.floor_divide_(self, other)

    def __mod__(self, other):
        try:
            return _pointwise.remainder(self, other)
        except TypeError:
            return NotImplemented

    def __rmod__(self, other):
        try:
            return _pointwise.rremainder(self, other)
        except TypeError:
            return NotImplemented

    def __imod__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.remainder_(self, other)

    def __pow__(self, exponent):
        try:
            return _pointwise.pow(self, exponent)
        except TypeError:
            return NotImplemented

    def __rpow__(self, other):
        try:
            return _pointwise.rpow(self, other)
        except TypeError:
            return NotImplemented

    def __ipow__(self, exponent):
        if _not_operand(exponent):
            return NotImplemented
        return _pointwise.pow_(self, exponent)

    def __neg__(self):
        return _pointwise.neg(self)

    def __pos__(self):
        return _pointwise.positive(self)

    def __abs__(self):
        return _pointwise.abs(self)

    def __invert__(self):
        return _pointwise._invert(self)

    def __and__(self, other):
        try:
            return _pointwise.bitwise_and(self, other)
        except TypeError:
            return NotImplemented

    __rand__ = __and__

    def __iand__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.bitwise_and_(self, other)

    def __or__(self, other):
        try:
            return _pointwise.bitwise_or(self, other)
        except TypeError:
            return NotImplemented

    __ror__ = __or__

    def __ior__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.bitwise_or_(self, other)

    def __xor__(self, other):
        try:
            return _pointwise.bitwise_xor(self, other)
        except TypeError:
            return NotImplemented

    __rxor__ = __xor__

    def __ixor__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.bitwise_xor_(self, other)

    def __lshift__(self, other):
        try:
            return _pointwise.bitwise_left_shift(self, other)
        except TypeError:
            return NotImplemented

    def __rlshift__(self, other):
        try:
            return _pointwise.rlshift(self, other)
        except TypeError:
            return NotImplemented

    def __ilshift__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.bitwise_left_shift_(self, other)

    def __rshift__(self, other):
        try:
            return _pointwise.bitwise_right_shift(self, other)
        except TypeError:
            return NotImplemented

    def __rrshift__(self, other):
        try:
            return _pointwise.rrshift(self, other)
        except TypeError:
            return NotImplemented

    def __irshift__(self, other):
        if _not_operand(other):
            return NotImplemented
        return _pointwise.bitwise_right_shift_(self, other)

    def __eq__(self, other):
        try:
            return _pointwise.eq(self, other)
        except TypeError:
            return NotImplemented  # Python then compares identities: x == "a" is False

    def __ne__(self, other):
        try:
            return _pointwise.ne(self, other)
        except TypeError:
            return NotImplemented  # Python then compares identities: x == "a" is True

    def __lt__(self, other):
        try:
            return _pointwise.lt(self, other)
        except TypeError:
            return NotImplemented

    def __le__(self, other):
        try:
            return _pointwise.le(self, other)
        except TypeError:
            return NotImplemented

    def __gt__(self, other):
        try:
            return _pointwise.gt(self, other)
        except TypeError:
            return NotImplemented

    def __ge__(self, other):
        try:
            return _pointwise.ge(self, other)
        except TypeError:
            return NotImplemented

    def add(self, other, *, alpha=1):
        return _pointwise.add(self, other, alpha=alpha)

    def add_(self, other, *, alpha=1):
        return _pointwise.add_(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return _pointwise.sub(self, other, alpha=alpha)

    def sub_(self, other, *, alpha=1):
        return _pointwise.sub_(self, other, alpha=alpha)

    subtract, subtract_ = sub, sub_

    def mul(self, other):
        return _pointwise.mul(self, other)

    def mul_(self, other):
        return _pointwise.mul_(self, other)

    multiply, multiply_ = mul, mul_

    # **rounding_mode: PyTorch's node tells rounding_mode=None (DivBackward2) from no mode given
    def div(self, other, **rounding_mode):
        return _pointwise.div(self, other, **rounding_mode)

    def div_(self, other, **rounding_mode):
        return _pointwise.div_(self, other, **rounding_mode)

    divide, divide_ = div, div_

    def true_divide(self, other):
        return _pointwise.div(self, other)

    def true_divide_(self, other):
        return _pointwise.div_(self, other)

    def floor_divide(self, other):
        return _pointwise.floor_divide(self, other)

    def floor_divide_(self, other):
        return _pointwise.floor_divide_(self, other)

    def remainder(self, other):
        return _pointwise.remainder(self, other)

    def remainder_(self, other):
        return _pointwise.remainder_(self, other)

    def fmod(self, other):
        return _pointwise.fmod(self, other)

    def fmod_(self, other):
        return _pointwise.fmod_(self, other)

    def pow(self, exponent):
        return _pointwise.pow(self, exponent)

    def pow_(self, exponent):
        return _pointwise.pow_(self, exponent)

    def float_power(self, exponent):
        return _pointwise.float_power(self, exponent)

    def neg(self):
        return _pointwise.neg(self)

    def neg_(self):
        return _pointwise.neg_(self)

    negative, negative_ = neg, neg_

    def positive(self):
        return _pointwise.positive(self)

    def abs(self):
        return _pointwise.abs(self)

    def abs_(self):
        return _pointwise.abs_(self)

    absolute, absolute_ = abs, abs_

    def sign(self):
        return _pointwise.sign(self)

    def sign_(self):
        return _pointwise.sign_(self)

    def sgn(self):
        return _pointwise.sgn(self)

    def signbit(self):
        return _pointwise.signbit(self)

    def sqrt(self):
        return _pointwise.sqrt(self)

    def sqrt_(self):
        return _pointwise.sqrt_(self)

    def rsqrt(self):
        return _pointwise.rsqrt(self)

    def rsqrt_(self):
        return _pointwise.rsqrt_(self)

    def square(self):
        return _pointwise.square(self)

    def square_(self):
        return _pointwise.square_(self)

    def exp(self):
        return _pointwise.exp(self)

    def exp_(self):
        return _pointwise.exp_(self)

    def exp2(self):
        return _pointwise.exp2(self)

    def exp2_(self):
        return _pointwise.exp2_(self)

    def expm1(self):
        return _pointwise.expm1(self)

    def expm1_(self):
        return _pointwise.expm1_(self)

    def log(self):
        return _pointwise.log(self)

    def log_(self):
        return _pointwise.log_(self)

    def log1p(self):
        return _pointwise.log1p(self)

    def log1p_(self):
        return _pointwise.log1p_(self)

    def log2(self):
        return _pointwise.log2(self)

    def log2_(self):
        return _pointwise.log2_(self)

    def log10(self):
        return _pointwise.log10(self)

    def log10_(self):
        return _pointwise.log10_(self)

    def sin(self):
        return _pointwise.sin(self)

    def sin_(self):
        return _pointwise.sin_(self)

    def cos(self):
        return _pointwise.cos(self)

    def cos_(self):
        return _pointwise.cos_(self)

    def tan(self):
        return _pointwise.tan(self)

    def tan_(self):
        return _pointwise.tan_(self)

    def asin(self):
        return _pointwise.asin(self)

    def asin_(self):
        return _pointwise.asin_(self)

    def acos(self):
        return _pointwise.acos(self)

    def acos_(self):
        return _pointwise.acos_(self)

    def atan(self):
        return _pointwise.atan(self)

    def atan_(self):
        return _pointwise.atan_(self)

    arcsin, arccos, arctan = asin, acos, atan

    def atan2(self, other):
        return _pointwise.atan2(self, other)

    def atan2_(self, other):
        return _pointwise.atan2_(self, other)

    arctan2 = atan2

    def sinh(self):
        return _pointwise.sinh(self)

    def sinh_(self):
        return _pointwise.sinh_(self)

    def cosh(self):
        return _pointwise.cosh(self)

    def cosh_(self):
        return _pointwise.cosh_(self)

    def tanh(self):
        return _pointwise.tanh(self)

    def tanh_(self):
        return _pointwise.tanh_(self)

    def asinh(self):
        return _pointwise.asinh(self)

    def acosh(self):
        return _pointwise.acosh(self)

    def atanh(self):
        return _pointwise.atanh(self)

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def sigmoid(self):
        return _pointwise.sigmoid(self)

    def sigmoid_(self):
        return _pointwise.sigmoid_(self)

    def logit(self, eps=None):
        return _pointwise.logit(self, eps)

    def relu(self):
        return _pointwise.relu(self)

    def relu_(self):
        return _pointwise.relu_(self)

    def clamp(self, min=None, max=None):
        return _pointwise.clamp(self, min, max)

    def clamp_(self, min=None, max=None):
        return _pointwise.clamp_(self, min, max)

    clip, clip_ = clamp, clamp_

    def clamp_min(self, min):
        return _pointwise.clamp_min(self, min)

    def clamp_min_(self, min):
        return _pointwise.clamp_min_(self, min)

    def clamp_max(self, max):
        return _pointwise.clamp_max(self, max)

    def clamp_max_(self, max):
        return _pointwise.clamp_max_(self, max)

    def floor(self):
        return _pointwise.floor(self)

    def floor_(self):
        return _pointwise.floor_(self)

    def ceil(self):
        return _pointwise.ceil(self)

    def ceil_(self):
        return _pointwise.ceil_(self)

    def round(self, *, decimals=0):
        return _pointwise.round(self, decimals=decimals)

    def round_(self, *, decimals=0):
        return _pointwise.round_(self, decimals=decimals)

    def trunc(self):
        return _pointwise.trunc(self)

    def trunc_(self):
        return _pointwise.trunc_(self)

    fix, fix_ = trunc, trunc_

    def frac(self):
        return _pointwise.frac(self)

    def frac_(self):
        return _pointwise.frac_(self)

    def reciprocal(self):
        return _pointwise.reciprocal(self)

    def reciprocal_(self):
        return _pointwise.reciprocal_(self)

    def maximum(self, other):
        return _pointwise.maximum(self, other)

    def minimum(self, other):
        return _pointwise.minimum(self, other)

    def fmax(self, other):
        return _pointwise.fmax(self, other)

    def fmin(self, other):
        return _pointwise.fmin(self, other)

    def lerp(self, end, weight):
        return _pointwise.lerp(self, end, weight)

    def lerp_(self, end, weight):
        return _pointwise.lerp_(self, end, weight)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return _pointwise.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return _pointwise.addcmul_(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return _pointwise.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return _pointwise.addcdiv_(self, tensor1, tensor2, value=value)

    def erf(self):
        return _pointwise.erf(self)

    def erf_(self):
        return _pointwise.erf_(self)

    def erfc(self):
        return _pointwise.erfc(self)

    def erfinv(self):
        return _pointwise.erfinv(self)

    def hypot(self, other):
        return _pointwise.hypot(self, other)

    def logaddexp(self, other):
        return _pointwise.logaddexp(self, other)

    def xlogy(self, other):
        return _pointwise.xlogy(self, other)

    def copysign(self, other):
        return _pointwise.copysign(self, other)

    def deg2rad(self):
        return _pointwise.deg2rad(self)

    def rad2deg(self):
        return _pointwise.rad2deg(self)

    def where(self, condition, other):
        return _pointwise.where(condition, self, other)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _pointwise.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        return _pointwise.nan_to_num_(self, nan, posinf, neginf)

    def logical_and(self, other):
        return _pointwise.logical_and(self, other)

    def logical_or(self, other):
        return _pointwise.logical_or(self, other)

    def logical_xor(self, other):
        return _pointwise.logical_xor(self, other)

    def logical_not(self):
        return _pointwise.logical_not(self)

    def bitwise_and(self, other):
        return _pointwise.bitwise_and(self, other)

    def bitwise_or(self, other):
        return _pointwise.bitwise_or(self, other)

    def bitwise_xor(self, other):
        return _pointwise.bitwise_xor(self, other)

    def bitwise_not(self):
        return _pointwise.bitwise_not(self)

    def bitwise_left_shift(self, other):
        return _pointwise.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other):
        return _pointwise.bitwise_right_shift(self, other)

    def eq(self, other):
        return _pointwise.eq(self, other)

    def ne(self, other):
        return _pointwise.ne(self, other)

    def lt(self, other):
        return _pointwise.lt(self, other)

    def le(self, other):
        return _pointwise.le(self, other)

    def gt(self, other):
        return _pointwise.gt(self, other)

    def ge(self, other):
        return _pointwise.ge(self, other)

    not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _pointwise.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _pointwise.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other):
        return _pointwise.equal(self, other)

    def isnan(self):
        return _pointwise.isnan(self)

    def isinf(self):
        return _pointwise.isinf(self)

    def isfinite(self):
        return _pointwise.isfinite(self)

    def isposinf(self):
        return _pointwise.isposinf(self)

    def isneginf(self):
        return _pointwise.isneginf(self)

    def fill_(self, value):
        return _pointwise.fill_(self, value)

    def zero_(self):
        return _pointwise.zero_(self)

    def asinh_(self):
        return _pointwise.asinh_(self)

    def acosh_(self):
        return _pointwise.acosh_(self)

    def atanh_(self):
        return _pointwise.atanh_(self)

    def erfc_(self):
        return _pointwise.erfc_(self)

    def erfinv_(self):
        return _pointwise.erfinv_(self)

    def deg2rad_(self):
        return _pointwise.deg2rad_(self)

    def rad2deg_(self):
        return _pointwise.rad2deg_(self)

    def sgn_(self):
        return _pointwise.sgn_(self)

    def logical_not_(self):
        return _pointwise.logical_not_(self)

    def bitwise_not_(self):
        return _pointwise.bitwise_not_(self)

    def logit_(self, eps=None):
        return _pointwise.logit_(self, eps=eps)

    def hypot_(self, other):
        return _pointwise.hypot_(self, other)

    def copysign_(self, other):
        return _pointwise.copysign_(self, other)

    def xlogy_(self, other):
        return _pointwise.xlogy_(self, other)

    def logical_and_(self, other):
        return _pointwise.logical_and_(self, other)

    def logical_or_(self, other):
        return _pointwise.logical_or_(self, other)

    def logical_xor_(self, other):
        return _pointwise.logical_xor_(self, other)

    def bitwise_and_(self, other):
        return _pointwise.bitwise_and_(self, other)

    def bitwise_or_(self, other):
        return _pointwise.bitwise_or_(self, other)

    def bitwise_xor_(self, other):
        return _pointwise.bitwise_xor_(self, other)

    def bitwise_left_shift_(self, other):
        return _pointwise.bitwise_left_shift_(self, other)

    def bitwise_right_shift_(self, other):
        return _pointwise.bitwise_right_shift_(self, other)

    def eq_(self, other):
        return _pointwise.eq_(self, other)

    def ne_(self, other):
        return _pointwise.ne_(self, other)

    def lt_(self, other):
        return _pointwise.lt_(self, other)

    def le_(self, other):
        return _pointwise.le_(self, other)

    def gt_(self, other):
        return _pointwise.gt_(self, other)

    def ge_(self, other):
        return _pointwise.ge_(self, other)

    def logaddexp2(self, other):
        return _pointwise.logaddexp2(self, other)

    def float_power_(self, exponent):
        return _pointwise.float_power_(self, exponent)

    def isreal(self):
        return _pointwise.isreal(self)

    arcsin_, arccos_, arctan_, arctan2_ = asin_, acos_, atan_, atan2_
    arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_
    not_equal_, less_, less_equal_, greater_, greater_equal_ = ne_, lt_, le_, gt_, ge_

    # ================================================================ reductions (ops/reduction.py)
    def sum(self, *args, **kwargs):
        if args or kwargs:
            _arguments.screen("Tensor.sum", args, kwargs)
        try:
            return _reduction.sum(self, *args, **kwargs)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.sum", args, kwargs)
            raise

    def nansum(self, dim=None, keepdim=False, *, dtype=None, **aliases):
        return _reduction.nansum(self, dim, keepdim, dtype=dtype, **aliases)

    def mean(self, *args, **kwargs):
        if args or kwargs:
            _arguments.screen("Tensor.mean", args, kwargs)
        try:
            return _reduction.mean(self, *args, **kwargs)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.mean", args, kwargs)
            raise

    def nanmean(self, dim=None, keepdim=False, *, dtype=None, **aliases):
        return _reduction.nanmean(self, dim, keepdim, dtype=dtype, **aliases)

    def prod(self, dim=None, keepdim=False, *, dtype=None, **aliases):
        return _reduction.prod(self, dim, keepdim, dtype=dtype, **aliases)

    def amax(self, dim=(), keepdim=False, **aliases):
        return _reduction.amax(self, dim, keepdim, **aliases)

    def amin(self, dim=(), keepdim=False, **aliases):
        return _reduction.amin(self, dim, keepdim, **aliases)

    def aminmax(self, *, dim=None, keepdim=False):
        return _reduction.aminmax(self, dim=dim, keepdim=keepdim)

    def max(self, dim=None, keepdim=False, **aliases):
        return _reduction.max(self, dim, keepdim, **aliases)

    def min(self, dim=None, keepdim=False, **aliases):
        return _reduction.min(self, dim, keepdim, **aliases)

    def argmax(self, dim=None, keepdim=False, **aliases):
        return _reduction.argmax(self, dim, keepdim, **aliases)

    def argmin(self, dim=None, keepdim=False, **aliases):
        return _reduction.argmin(self, dim, keepdim, **aliases)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None, **aliases):
        return _reduction.std(self, dim, unbiased, keepdim, correction=correction, **aliases)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None, **aliases):
        return _reduction.var(self, dim, unbiased, keepdim, correction=correction, **aliases)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _reduction.norm(self, p, dim, keepdim, dtype=dtype)

    def logsumexp(self, dim, keepdim=False, **aliases):
        return _reduction.logsumexp(self, dim, keepdim, **aliases)

    def cumsum(self, dim=None, *, dtype=None, **aliases):
        return _reduction.cumsum(self, dim, dtype=dtype, **aliases)

    def cumsum_(self, dim, *, dtype=None):
        return _reduction.cumsum_(self, dim, dtype=dtype)

    def cumprod(self, dim=None, *, dtype=None, **aliases):
        return _reduction.cumprod(self, dim, dtype=dtype, **aliases)

    def cummax(self, dim):
        return _reduction.cummax(self, dim)

    def cummin(self, dim):
        return _reduction.cummin(self, dim)

    def all(self, dim=None, keepdim=False, **aliases):
        return _reduction.all(self, dim, keepdim, **aliases)

    def any(self, dim=None, keepdim=False, **aliases):
        return _reduction.any(self, dim, keepdim, **aliases)

    def count_nonzero(self, dim=None):
        return _reduction.count_nonzero(self, dim)

    def median(self, dim=None, keepdim=False, **aliases):
        return _reduction.median(self, dim, keepdim, **aliases)

    def sort(self, dim=-1, descending=False, stable=None):
        return _reduction.sort(self, dim, descending, stable=stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return _reduction.argsort(self, dim, descending, stable=stable)

    def msort(self):
        return _reduction.msort(self)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return _reduction.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return _reduction.kthvalue(self, k, dim, keepdim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return _reduction.unique(self, sorted, return_inverse, return_counts, dim)

    # ================================================================ views and shapes (ops/views.py)
    def view(self, *shape, **kwargs):
        if kwargs or shape and shape[0].__class__ is bool:  # view(True) is refused, not 1
            _arguments.check("Tensor.view", shape, kwargs)
            shape += tuple(kwargs.values())  # the one keyword PyTorch's signatures allow
        try:
            return _views.view(self, *shape)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.view", shape)
            raise

    def view_as(self, other):
        return _views.view(self, other.shape)

    def reshape(self, *shape, **kwargs):
        if kwargs or shape and shape[0].__class__ is bool:  # view(True) is refused, not 1
            _arguments.check("Tensor.reshape", shape, kwargs)
            shape += tuple(kwargs.values())  # the one keyword PyTorch's signatures allow
        try:
            return _views.reshape(self, *shape)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.reshape", shape)
            raise

    def reshape_as(self, other):
        return _views.reshape(self, other.shape)

    def transpose(self, *args, **kwargs):  # (dim0, dim1); a wrong call gets PyTorch's words
        try:
            return _views.transpose(self, *args, **kwargs)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.transpose", args, kwargs)
            raise

    def transpose_(self, dim0, dim1):
        return _views.transpose_(self, dim0, dim1)

    swapaxes = swapdims = transpose

    def t(self):
        return _views.t(self)

    def t_(self):
        return _views.t_(self)

    @property
    def T(self):
        return _views.T(self)

    @property
    def mT(self):
        return _views.mT(self)

    @property
    def H(self):
        return _views.H(self)

    @property
    def mH(self):
        return _views.mH(self)

    def adjoint(self):
        return _views.adjoint(self)

    def permute(self, *dims):
        return _views.permute(self, *dims)

    def movedim(self, source, destination):
        return _views.movedim(self, source, destination)

    moveaxis = movedim

    def squeeze(self, dim=None, *dims):  # squeeze(0, 1) is squeeze((0, 1)), as in PyTorch
        return _views.squeeze(self, (dim,) + dims if dims else dim)

    def squeeze_(self, dim=None, *dims):
        return _views.squeeze_(self, (dim,) + dims if dims else dim)

    def unsqueeze(self, dim):
        return _views.unsqueeze(self, dim)

    def unsqueeze_(self, dim):
        return _views.unsqueeze_(self, dim)

    def flatten(self, start_dim=0, end_dim=-1):
        return _views.flatten(self, start_dim, end_dim)

    def ravel(self):
        return _views.ravel(self)

    def unflatten(self, dim, sizes):
        # PyTorch's Python method refuses empty sizes before its C++ parser looks at types
        if not sizes:
            raise RuntimeError("unflatten: sizes must be non-empty")
        if dim.__class__ is not int or sizes.__class__ not in _SHAPES:
            _arguments.check("Tensor.unflatten", (dim, sizes))
        try:
            return _views.unflatten(self, dim, sizes)
        except Exception:
            _arguments.check("Tensor.unflatten", (dim, sizes))
            raise

    def expand(self, *sizes):
        return _views.expand(self, *sizes)

    def expand_as(self, other):
        return _views.expand(self, other.shape)

    def broadcast_to(self, size):
        return _views.expand(self, size)

    def repeat(self, *repeats):
        return _views.repeat(self, *repeats)

    def tile(self, *dims):
        return _views.tile(self, *dims)

    def narrow(self, dim, start, length):
        return _views.narrow(self, dim, start, length)

    def select(self, dim, index):
        return _views.select(self, dim, index)

    def unbind(self, dim=0):
        return _views.unbind(self, dim)

    def split(self, split_size, dim=0):
        return _views.split(self, split_size, dim)

    def tensor_split(self, indices_or_sections, dim=0):
        return _views.tensor_split(self, indices_or_sections, dim)

    def chunk(self, chunks, dim=0):
        return _views.chunk(self, chunks, dim)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _views.diagonal(self, offset, dim1, dim2)

    def as_strided(self, size, stride, storage_offset=None):
        return _views.as_strided(self, size, stride, storage_offset)

    def unfold(self, dimension, size, step):
        return _views.unfold(self, dimension, size, step)

    def flip(self, *dims):
        return _views.flip(self, *dims)

    def fliplr(self):
        return _views.fliplr(self)

    def flipud(self):
        return _views.flipud(self)

    def roll(self, shifts, dims=None):
        return _views.roll(self, shifts, dims)

    def rot90(self, k=1, dims=(0, 1)):
        return _views.rot90(self, k, dims)

    # ================================================================ indexing (ops/indexing.py)
    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    def gather(self, *args, **kwargs):  # (dim, index, *, sparse_grad=False)
        try:
            return _indexing.gather(self, *args, **kwargs)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.gather", args, kwargs)
            raise

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        return _indexing.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        return _indexing.scatter_(self, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        return _indexing.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        return _indexing.scatter_add_(self, dim, index, src)

    def index_select(self, *args, **kwargs):  # (dim, index)
        try:
            return _indexing.index_select(self, *args, **kwargs)
        except Exception:  # whatever the op raised, PyTorch parses first
            _arguments.check("Tensor.index_select", args, kwargs)
            raise

    def index_add(self, dim, index, source, *, alpha=1):
        return _indexing.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        return _indexing.index_add_(self, dim, index, source, alpha=alpha)

    def index_fill_(self, dim, index, value):
        return _indexing.index_fill_(self, dim, index, value)

    def index_put_(self, indices, values, accumulate=False):
        return _indexing.index_put_(self, indices, values, accumulate)

    def index_put(self, indices, values, accumulate=False):
        return _indexing.index_put(self, indices, values, accumulate)

    def index_fill(self, dim, index, value):
        return _indexing.index_fill(self, dim, index, value)

    def masked_scatter(self, mask, source):
        return _indexing.masked_scatter(self, mask, source)

    def masked_fill(self, mask, value):
        return _indexing.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        return _indexing.masked_fill_(self, mask, value)

    def masked_select(self, mask):
        return _indexing.masked_select(self, mask)

    def masked_scatter_(self, mask, source):
        return _indexing.masked_scatter_(self, mask, source)

    def take(self, index):
        return _indexing.take(self, index)

    def nonzero(self, *, as_tuple=False):
        return _indexing.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return _indexing.nonzero(self)

    # ================================================================ matrices (ops/linalg.py)
    def __matmul__(self, other):
        try:
            return _linalg.matmul(self, other)
        except TypeError:
            return NotImplemented

    def __rmatmul__(self, other):
        try:
            return _linalg.matmul(other, self)
        except TypeError:
            return NotImplemented

    def matmul(self, other):
        return _linalg.matmul(self, other)

    def mm(self, mat2):
        return _linalg.mm(self, mat2)

    def bmm(self, mat2):
        return _linalg.bmm(self, mat2)

    def mv(self, vec):
        return _linalg.mv(self, vec)

    def dot(self, other):
        return _linalg.dot(self, other)

    def vdot(self, other):
        return _linalg.vdot(self, other)

    def inner(self, other):
        return _linalg.inner(self, other)

    def outer(self, vec2):
        return _linalg.outer(self, vec2)

    ger = outer

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return _linalg.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _linalg.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def trace(self):
        return _linalg.trace(self)

    def tril(self, diagonal=0):
        return _linalg.tril(self, diagonal)

    def tril_(self, diagonal=0):
        return _linalg.tril_(self, diagonal)

    def triu(self, diagonal=0):
        return _linalg.triu(self, diagonal)

    def triu_(self, diagonal=0):
        return _linalg.triu_(self, diagonal)

    def diag(self, diagonal=0):
        return _linalg.diag(self, diagonal)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1):
        return _linalg.diag_embed(self, offset, dim1, dim2)

    # ================================================================ neural-net ops (ops/nn_ops.py)
    def softmax(self, dim, dtype=None):
        return _nn_ops.softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim, dtype=None):
        return _nn_ops.log_softmax(self, dim, dtype=dtype)

    # ================================================================ random (ops/random.py)
    def uniform_(self, *args, generator=None, **kwargs):
        # PyTorch's keyword is `from` (a Python keyword, so it comes through **kwargs)
        if kwargs:
            args, kwargs = _from_keyword("uniform_", args, kwargs)
        return _random_ops.uniform_(self, *args, generator=generator, **kwargs)

    def normal_(self, mean=0, std=1, *, generator=None):
        return _random_ops.normal_(self, mean, std, generator=generator)

    def random_(self, *args, generator=None, **kwargs):
        return _random_ops.random_(self, *args, generator=generator, **kwargs)

    def exponential_(self, lambd=1, *, generator=None):
        return _random_ops.exponential_(self, lambd, generator=generator)

    def geometric_(self, p, *, generator=None):
        return _random_ops.geometric_(self, p, generator=generator)

    def log_normal_(self, mean=1, std=2, *, generator=None):
        return _random_ops.log_normal_(self, mean, std, generator=generator)

    def cauchy_(self, median=0, sigma=1, *, generator=None):
        return _random_ops.cauchy_(self, median, sigma, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        return _random_ops.bernoulli(self, p, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        return _random_ops.bernoulli_(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return _random_ops.multinomial(self, num_samples, replacement, generator=generator)

    # ---- linalg11: matrix inverses, determinants and decompositions (ops/linalg_*.py)
    def inverse(self):
        return _linalg_solve.inverse(self)

    def det(self):
        return _linalg_solve.det(self)

    def logdet(self):
        return _linalg_solve.logdet(self)

    def slogdet(self):
        return _linalg_solve.torch_slogdet(self)

    def cholesky(self, upper=False):
        return _linalg_solve.torch_cholesky(self, upper)

    def cholesky_solve(self, input2, upper=False):
        return _linalg_solve.cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        return _linalg_solve.cholesky_inverse(self, upper)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        return _linalg_solve.triangular_solve(self, A, upper, transpose, unitriangular)

    def svd(self, some=True, compute_uv=True):
        return _linalg_decomp.torch_svd(self, some, compute_uv)

    def qr(self, some=True):
        return _linalg_decomp.torch_qr(self, some)

    def pinverse(self, rcond=1e-15):
        return _linalg_decomp.pinverse(self, rcond)

    def matrix_power(self, n):
        return _linalg_functions.matrix_power(self, n)

    def matrix_exp(self):
        return _linalg_functions.matrix_exp(self)

    def cross(self, other, dim=None):
        return _linalg_functions.torch_cross(self, other, dim)


    # ---- ops11: counting, searching, combining and special functions
    def bincount(self, weights=None, minlength=0):
        return _searching.bincount(self, weights, minlength)

    def histc(self, bins=100, min=0, max=0):
        return _searching.histc(self, bins, min, max)

    def histogram(self, bins, *, range=None, weight=None, density=False):
        return _searching.histogram(self, bins, range=range, weight=weight, density=density)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return _combinatorics.repeat_interleave(self, repeats, dim, output_size=output_size)

    def take_along_dim(self, indices, dim=None):
        return _combinatorics.take_along_dim(self, indices, dim)

    def kron(self, other):
        return _combinatorics.kron(self, other)

    def lgamma(self):
        return _special.lgamma(self)

    def lgamma_(self):
        return _special.lgamma_(self)

    def digamma(self):
        return _special.digamma(self)

    def digamma_(self):
        return _special.digamma_(self)

    def polygamma(self, n):
        return _special.polygamma(n, self)

    def polygamma_(self, n):
        return _special.polygamma_(self, n)

    def mvlgamma(self, p):
        return _special.mvlgamma(self, p)

    def mvlgamma_(self, p):
        return _special.mvlgamma_(self, p)

    def i0(self):
        return _special.i0(self)

    def i0_(self):
        return _special.i0_(self)

    def sinc(self):
        return _special.sinc(self)

    def sinc_(self):
        return _special.sinc_(self)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _searching.unique_consecutive(self, return_inverse, return_counts, dim)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        return _differences.diff(self, n, dim, prepend, append)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        return _differences.cov(self, correction=correction, fweights=fweights,
                                aweights=aweights)

    def corrcoef(self):
        return _differences.corrcoef(self)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _quantile.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _quantile.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def logcumsumexp(self, dim):
        return _quantile.logcumsumexp(self, dim)

    def renorm(self, p, dim, maxnorm):
        return _quantile.renorm(self, p, dim, maxnorm)

    def renorm_(self, p, dim, maxnorm):
        return _quantile.renorm_(self, p, dim, maxnorm)

    # ---- ops12: fused add-products, index reductions, splits, scatters into views, queries
    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return _linalg_products.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        return _linalg_products.addr_(self, vec1, vec2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _linalg_products.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return _linalg_products.addbmm_(self, batch1, batch2, beta=beta, alpha=alpha)

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return _linalg_products.addmm_(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        return _linalg_products.addmv_(self, mat, vec, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return _linalg_products.baddbmm_(self, batch1, batch2, beta=beta, alpha=alpha)

    def cumprod_(self, dim, *, dtype=None):
        return _linalg_products.cumprod_(self, dim, dtype=dtype)

    def dist(self, other, p=2):
        return _linalg_products.dist(self, other, p)

    def gcd(self, other):
        return _pointwise_more.gcd(self, other)

    def gcd_(self, other):
        return _pointwise_more.gcd_(self, other)

    def lcm(self, other):
        return _pointwise_more.lcm(self, other)

    def lcm_(self, other):
        return _pointwise_more.lcm_(self, other)

    def heaviside(self, values):
        return _pointwise_more.heaviside(self, values)

    def heaviside_(self, values):
        return _pointwise_more.heaviside_(self, values)

    def ldexp(self, other):
        return _pointwise_more.ldexp(self, other)

    def ldexp_(self, other):
        return _pointwise_more.ldexp_(self, other)

    def frexp(self):
        return _pointwise_more.frexp(self)

    def nextafter(self, other):
        return _pointwise_more.nextafter(self, other)

    def nextafter_(self, other):
        return _pointwise_more.nextafter_(self, other)

    def igamma(self, other):
        return _pointwise_more.igamma(self, other)

    def igamma_(self, other):
        return _pointwise_more.igamma_(self, other)

    def igammac(self, other):
        return _pointwise_more.igammac(self, other)

    def igammac_(self, other):
        return _pointwise_more.igammac_(self, other)

    def mode(self, dim=-1, keepdim=False):
        return _sorting_more.mode(self, dim, keepdim)

    def nanmedian(self, dim=None, keepdim=False):
        return _sorting_more.nanmedian(self, dim, keepdim)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _index_reduce.scatter_reduce(self, dim, index, src, reduce,
                                            include_self=include_self)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        return _index_reduce.scatter_reduce_(self, dim, index, src, reduce,
                                             include_self=include_self)

    def index_reduce(self, dim, index, source, reduce, *, include_self=True):
        return _index_reduce.index_reduce(self, dim, index, source, reduce,
                                          include_self=include_self)

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        return _index_reduce.index_reduce_(self, dim, index, source, reduce,
                                           include_self=include_self)

    def index_copy(self, dim, index, source):
        return _index_reduce.index_copy(self, dim, index, source)

    def index_copy_(self, dim, index, source):
        return _index_reduce.index_copy_(self, dim, index, source)

    def put(self, index, source, accumulate=False):
        return _index_reduce.put(self, index, source, accumulate)

    def put_(self, index, source, accumulate=False):
        return _index_reduce.put_(self, index, source, accumulate)

    def hsplit(self, indices_or_sections):
        return _slicing_more.hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        return _slicing_more.vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        return _slicing_more.dsplit(self, indices_or_sections)

    def split_with_sizes(self, split_sizes, dim=0):
        return _slicing_more.split_with_sizes(self, split_sizes, dim)

    def unsafe_split(self, split_size, dim=0):
        return _slicing_more.unsafe_split(self, split_size, dim)

    def unsafe_chunk(self, chunks, dim=0):
        return _slicing_more.unsafe_chunk(self, chunks, dim)

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        return _slicing_more.unsafe_split_with_sizes(self, split_sizes, dim)

    def select_scatter(self, src, dim, index):
        return _slicing_more.select_scatter(self, src, dim, index)

    def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
        return _slicing_more.slice_scatter(self, src, dim, start, end, step)

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return _slicing_more.diagonal_scatter(self, src, offset, dim1, dim2)

    def as_strided_scatter(self, src, size, stride, storage_offset=None):
        return _slicing_more.as_strided_scatter(self, src, size, stride, storage_offset)

    def diagflat(self, offset=0):
        return _slicing_more.diagflat(self, offset)

    def fill_diagonal_(self, fill_value, wrap=False):
        return _slicing_more.fill_diagonal_(self, fill_value, wrap)

    def swapaxes_(self, axis0, axis1):
        return self.transpose_(axis0, axis1)

    def swapdims_(self, dim0, dim1):
        return self.transpose_(dim0, dim1)

    def sum_to_size(self, *size):
        return _queries.sum_to_size(self, *size)

    def is_nonzero(self):
        return _queries.is_nonzero(self)

    def is_same_size(self, other):
        return _queries.is_same_size(self, other)

    def is_signed(self):
        return _queries.is_signed(self)

    def hardshrink(self, lambd=0.5):
        return _nn_activation.hardshrink(self, lambd)

    def prelu(self, weight):
        return _nn_activation.prelu(self, weight)

    # ================================================================ ops13
    def new(self, *args, device=None):
        return _creation_more.new(self, *args, device=device)

    def nonzero_static(self, *, size, fill_value=-1):
        return _index_more.nonzero_static(self, size=size, fill_value=fill_value)

    def resize_(self, *sizes, memory_format=None):
        return _tensor_memory.resize_(self, *sizes, memory_format=memory_format)

    def resize_as_(self, the_template, *, memory_format=None):
        return _tensor_memory.resize_as_(self, the_template, memory_format=memory_format)

    def resize(self, *sizes):
        return _tensor_memory.resize(self, *sizes)

    def resize_as(self, tensor):
        return _tensor_memory.resize_as(self, tensor)

    def apply_(self, callable):
        return _tensor_memory.apply_(self, callable)

    def map_(self, tensor, callable):
        return _tensor_memory.map_(self, tensor, callable)

    def map2_(self, x, y, callable):
        return _tensor_memory.map2_(self, x, y, callable)

    def untyped_storage(self):
        return _tensor_memory.untyped_storage(self)

    def storage(self):
        return _tensor_memory.storage(self)

    def storage_type(self):
        return _tensor_memory.storage_type(self)

    def _typed_storage(self):
        return _tensor_memory.storage(self)

    def is_pinned(self, device=None):
        return _tensor_memory.is_pinned(self, device)

    def pin_memory(self, device=None):
        return _tensor_memory.pin_memory(self, device)

    def share_memory_(self):
        return _tensor_memory.share_memory_(self)

    def is_shared(self):
        return _tensor_memory.is_shared(self)

    # ---------------------------------------------------------------- geometry in place
    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        return _tensor_geometry.set_(self, source, storage_offset, size, stride)

    def is_set_to(self, tensor):
        return _tensor_geometry.is_set_to(self, tensor)

    def as_strided_(self, size, stride, storage_offset=None):
        return _tensor_geometry.as_strided_(self, size, stride, storage_offset)

    def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                          pin_memory=False, requires_grad=False):
        return _tensor_geometry.new_empty_strided(self, size, stride, dtype=dtype,
                                                  device=device, requires_grad=requires_grad)

    def dim_order(self, *, ambiguity_check=False):
        return _tensor_geometry.dim_order(self, ambiguity_check=ambiguity_check)

    @property
    def output_nr(self):
        return _tensor_geometry.output_nr(self)

    # ---------------------------------------------------------------- complex vocabulary
    @property
    def real(self):
        return _real_parts.real(self)

    @property
    def imag(self):
        return _real_parts.imag(self)

    def conj(self):
        return _real_parts.conj(self)

    def conj_physical(self):
        return _real_parts.conj_physical(self)

    def conj_physical_(self):
        return _real_parts.conj_physical_(self)

    def resolve_conj(self):
        return _real_parts.resolve_conj(self)

    def resolve_neg(self):
        return _real_parts.resolve_neg(self)

    def is_conj(self):
        return _real_parts.is_conj(self)

    def is_neg(self):
        return _real_parts.is_neg(self)

    def angle(self):
        return _real_parts.angle(self)

    def lu(self, pivot=True, get_infos=False):
        # the method returns a plain tuple where torch.lu returns _lu_with_info
        return tuple(_legacy_ops.lu(self, pivot, get_infos))

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        return _other_devices.xpu(self, device, non_blocking, memory_format)

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        return _other_devices.ipu(self, device, non_blocking, memory_format)

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        return _other_devices.mtia(self, device, non_blocking, memory_format)

    def record_stream(self, stream):
        return _other_devices.record_stream(self, stream)

    def lu_solve(self, LU_data, LU_pivots):
        return _legacy_ops.lu_solve(self, LU_data, LU_pivots)

    def eig(self, eigenvectors=False):
        return _removed_ops.eig(self, eigenvectors)

    def lstsq(self, other):
        return _removed_ops.lstsq(self, other)

    def solve(self, other):
        return _removed_ops.solve(self, other)

    def symeig(self, eigenvectors=False):
        return _removed_ops.symeig(self, eigenvectors)

    def slice_inverse(self, src, dim=0, start=None, end=None, step=1):
        return _slice_inverse.slice_inverse(self, src, dim, start, end, step)

    def hash_tensor(self, dim=(), *, keepdim=False, mode=0):
        return _hash_tensor.hash_tensor(self, dim, keepdim=keepdim, mode=mode)

    def geqrf(self):
        return _householder.geqrf(self)

    def orgqr(self, input2):
        return _householder.orgqr(self, input2)

    def ormqr(self, input2, input3, left=True, transpose=False):
        return _householder.ormqr(self, input2, input3, left, transpose)

    def narrow_copy(self, dim, start, length):
        return _view_copies.narrow_copy(self, dim, start, length)

    def module_load(self, other, assign=False):
        return _tensor_geometry.module_load(self, other, assign)

    def as_subclass(self, cls):
        return _tensor_geometry.as_subclass(self, cls)

    def const_data_ptr(self):
        return _address(self._data)

    def to_dense(self, dtype=None, *, masked_grad=None):
        return _tensor_geometry.to_dense(self, dtype)

    @property
    def grad_dtype(self):
        return self.dtype

    @property
    def name(self):
        return None  # (named tensors: ember's are all unnamed)

    @property
    def volatile(self):
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    # ---------------------------------------------------------------- kinds ember never makes
    # (sparse, quantized, nested, MKL-DNN and other backends' tensors)
    is_sparse = is_sparse_csr = is_quantized = is_nested = is_mkldnn = False
    is_xpu = is_mps = is_xla = is_ipu = is_vulkan = is_maia = is_mtia = False

    def is_distributed(self):
        return False


_OPERANDS = frozenset({int, float, bool, complex})
_SHAPES = frozenset({tuple, list, Size})


def _not_operand(other):
    """Whether an operator's other operand is neither a tensor nor a number (NumPy's
    scalars count): the in-place operators' early NotImplemented."""
    if other.__class__ in _OPERANDS or isinstance(other, Tensor):
        return False
    try:
        _ops_common.scalar_value(other)
    except TypeError:
        return True
    return False


def _from_keyword(name, args, kwargs):
    """`from=` (PyTorch's keyword, spelt through **kwargs) as the first positional bound;
    `to=` stays a keyword; any other keyword is Python's TypeError, as in PyTorch."""
    kwargs = dict(kwargs)
    if "from" in kwargs:
        args = (kwargs.pop("from"),) + args
    for key in kwargs:
        if key != "to":
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return args, kwargs


def _canonical_dim(dim, ndim):
    """Wrap a negative dim; IndexError with PyTorch's text when out of range."""
    bound = ndim if ndim > 0 else 1
    if dim < -bound or dim >= bound:
        raise IndexError(_errors.dim_out_of_range(dim, ndim))
    return dim + bound if dim < 0 else dim


_address = _backend.address


# The op families, imported once, after Tensor exists (they build Tensors); _arguments
# (PyTorch's TypeErrors) checks arguments against Tensor, so it belongs to the same tie.
from . import _arguments, _dlpack, _tensor_str  # noqa: E402
from .autograd import api as _autograd_api  # noqa: E402
from .ops import _common as _ops_common  # noqa: E402
from .ops import conversion as _conversion  # noqa: E402
from .ops import creation as _creation  # noqa: E402
from .ops import indexing as _indexing  # noqa: E402
from .ops import interop as _interop  # noqa: E402
from .ops import linalg as _linalg  # noqa: E402
from .ops import linalg_decomp as _linalg_decomp  # noqa: E402
from .ops import linalg_functions as _linalg_functions  # noqa: E402
from .ops import linalg_solve as _linalg_solve  # noqa: E402
from .ops import nn_ops as _nn_ops  # noqa: E402
from .ops import pointwise as _pointwise  # noqa: E402
from .ops import random as _random_ops  # noqa: E402
from .ops import reduction as _reduction  # noqa: E402
from .ops import views as _views  # noqa: E402
from .ops import combinatorics as _combinatorics  # noqa: E402
from .ops import searching as _searching  # noqa: E402
from .ops import special as _special  # noqa: E402
from .ops import differences as _differences  # noqa: E402
from .ops import quantile as _quantile  # noqa: E402
from .ops import index_reduce as _index_reduce  # noqa: E402
from .ops import linalg_products as _linalg_products  # noqa: E402
from .ops import nn_activation as _nn_activation  # noqa: E402
from .ops import pointwise_more as _pointwise_more  # noqa: E402
from .ops import queries as _queries  # noqa: E402
from .ops import slicing_more as _slicing_more  # noqa: E402
from .ops import sorting_more as _sorting_more  # noqa: E402
from .ops import creation_more as _creation_more  # noqa: E402
from .ops import index_more as _index_more  # noqa: E402
from .ops import tensor_memory as _tensor_memory  # noqa: E402
from .ops import tensor_geometry as _tensor_geometry  # noqa: E402
from .ops import real_parts as _real_parts  # noqa: E402
from .ops import legacy_ops as _legacy_ops  # noqa: E402
from .ops import other_devices as _other_devices  # noqa: E402
from .ops import view_copies as _view_copies  # noqa: E402
from .ops import removed_ops as _removed_ops  # noqa: E402
from .ops import householder as _householder  # noqa: E402
from .ops import slice_inverse as _slice_inverse  # noqa: E402
from .ops import hash_tensor as _hash_tensor  # noqa: E402


# Every other method PyTorch's parser checks gets PyTorch's TypeErrors through one wrapper
# (a frame per call); the hot ones above write the try inline.
_INLINE_DOORS = {"sum", "mean", "view", "reshape", "transpose", "gather", "index_select",
                 "index_put", "index_put_"}  # (indices: PyTorch words list<optional<Tensor>> apart)
# record_stream: PyTorch's parser cannot print a Stream's type and raises its internal
# RuntimeError('unknown parameter type'), which the method raises itself
_NO_DOOR = {"record_stream"}
for _name in _arguments._signatures.METHODS:
    _method = Tensor.__dict__.get(_name)
    if _name not in _INLINE_DOORS and _name not in _NO_DOOR and type(_method) is _FunctionType:
        setattr(Tensor, _name, _arguments.door("Tensor." + _name, _method))
del _name, _method
