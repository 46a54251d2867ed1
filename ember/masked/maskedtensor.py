"""MaskedTensor: a tensor that carries a bool mask of which elements are specified.

ember's MaskedTensor is a Tensor subclass (so `isinstance(mt, ember.Tensor)` holds and
shape, dtype, device, dim read as usual) whose values live in a plain tensor,
`_masked_data`, that also holds the autograd history; the wrapper delegates
`requires_grad`, `grad_fn`, `backward` and `grad` (given back as a MaskedTensor, as
PyTorch gives it) to that tensor. Its methods are the doors PyTorch's prototype
offers: elementwise unary and binary ops keep the mask (two MaskedTensors must share
theirs), reductions run the matching ember.masked function and mask a result whose
slice had no specified element, indexing slices data and mask alike. Top-level
ember functions do not dispatch on it (ember has no __torch_function__): they see
the raw data, so use the methods or ember.masked.*.
"""
import warnings

from .._dtype import bool as _bool
from .._tensor import Tensor

from . import _ops

__all__ = ["MaskedTensor", "is_masked_tensor", "masked_tensor", "as_masked_tensor"]

_PROTOTYPE = ("The PyTorch API of MaskedTensors is in prototype stage and will change in the "
              "near future. Please open a Github issue for features requests and see our "
              "documentation on the torch.masked module for further information about the "
              "project.")
_SUPPORTED = ("float16", "float32", "float64", "bool", "int8", "int16", "int32", "int64")


def is_masked_tensor(obj, /):
    return isinstance(obj, MaskedTensor)


def _wrapper(cls, data):
    """An instance of `cls` whose own Tensor state aliases data's array (never recorded)."""
    t = object.__new__(cls)
    for slot, value in (("_data", data._data), ("_device", data._device),
                        ("_storage", data._storage), ("_base", None), ("_output_nr", 0),
                        ("_grad_accumulator", None), ("_extras", None), ("_grad", None)):
        object.__setattr__(t, slot, value)
    Tensor._requires_grad.__set__(t, False)
    Tensor.grad_fn.__set__(t, None)
    return t


class MaskedTensor(Tensor):
    """`MaskedTensor(data, mask, requires_grad=False)`: data's specified elements are
    where `mask` (bool, data's shape) is True."""

    def __new__(cls, data, mask, requires_grad=False):
        if is_masked_tensor(data) or not isinstance(data, Tensor):
            raise TypeError("data must be a Tensor")
        if is_masked_tensor(mask) or not isinstance(mask, Tensor):
            raise TypeError("mask must be a Tensor")
        warnings.warn(_PROTOTYPE, UserWarning, stacklevel=2)
        if data.requires_grad:
            warnings.warn("It is not recommended to create a MaskedTensor with a tensor that "
                          "requires_grad. To avoid this, you can use data.detach().clone()",
                          UserWarning, stacklevel=2)
        if mask.dtype is not _bool:
            raise TypeError("mask must have dtype bool.")
        if data.dtype.name not in _SUPPORTED:
            raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if tuple(data.shape) != tuple(mask.shape):
            raise ValueError("data.size() must equal mask.size()")
        values = data.clone()
        if requires_grad:
            values = values.detach().requires_grad_()
        return cls._from(values, mask.clone(), warn=False)

    @classmethod
    def _from(cls, values, mask, warn=True):
        """Wrap a (possibly recorded) values tensor and its mask, without copies or checks;
        PyTorch's prototype warning comes with every MaskedTensor made, results included."""
        if warn:
            warnings.warn(_PROTOTYPE, UserWarning, stacklevel=3)
        t = _wrapper(cls, values)
        t.__dict__["_masked_data"] = values
        t.__dict__["_masked_mask"] = mask
        return t

    # ------------------------------------------------------------ autograd, delegated
    @property
    def requires_grad(self):
        return self._masked_data.requires_grad

    @property
    def grad_fn(self):
        return self._masked_data.grad_fn

    @property
    def grad(self):
        grad = self._masked_data.grad
        return None if grad is None else MaskedTensor._from(grad, self._masked_mask, False)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if is_masked_tensor(gradient):
            gradient = gradient._masked_data
        self._masked_data.backward(gradient, retain_graph, create_graph, inputs)

    # ------------------------------------------------------------ accessors
    def get_data(self):
        return self._masked_data

    def get_mask(self):
        return self._masked_mask

    def to_tensor(self, value):
        """The data with unspecified elements set to `value`."""
        return self._masked_data.masked_fill(~self._masked_mask, value)

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return False

    @property
    def is_sparse(self):
        return False

    def __getitem__(self, key):
        return MaskedTensor._from(self._masked_data[key], self._masked_mask[key])

    # ------------------------------------------------------------ printing
    def __repr__(self):
        data, mask = self._masked_data.detach(), self._masked_mask
        if data.dim() == 0:
            value = data.item()
            shown = f"{value:8.4f}" if isinstance(value, float) else str(value)
            return f"MaskedTensor({shown if mask.item() else '--'}, {mask.item()})"
        body = _rows(data, mask)
        return "MaskedTensor(\n" + "\n".join("  " + line for line in body.split("\n")) + "\n)"

    __str__ = __repr__

    # ------------------------------------------------------------ reductions
    def _reduce(self, name, dim=None, keepdim=False, dtype=None):
        mask = self._masked_mask
        if dim is None:
            values = getattr(_ops, name)(self._masked_data, mask=mask)
            return MaskedTensor._from(values, mask.any())
        values = getattr(_ops, name)(self._masked_data, dim, keepdim=keepdim, dtype=dtype,
                                     mask=mask)
        dims = [dim] if isinstance(dim, int) else list(dim)
        for d in sorted(dims, reverse=True):
            mask = mask.any(dim=d, keepdim=keepdim)
        return MaskedTensor._from(values, mask)

    def sum(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("sum", dim, keepdim, dtype)

    def mean(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("mean", dim, keepdim, dtype)

    def prod(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("prod", dim, keepdim, dtype)

    def amax(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("amax", dim, keepdim, dtype)

    def amin(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("amin", dim, keepdim, dtype)

    def argmax(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("argmax", dim, keepdim, dtype)

    def argmin(self, dim=None, keepdim=False, dtype=None):
        return self._reduce("argmin", dim, keepdim, dtype)

    # ------------------------------------------------------------ elementwise
    def _unary(self, name, *args):
        if any(isinstance(a, Tensor) for a in args):
            raise TypeError("MaskedTensor unary ops do not support additional Tensor arguments")
        return MaskedTensor._from(getattr(self._masked_data, name)(*args), self._masked_mask)

    def _binary(self, name, other, reflected=False):
        if is_masked_tensor(other):
            if not self._masked_mask.equal(other._masked_mask):
                raise ValueError("Input masks must match. If you need support for this, please "
                                 "open an issue on Github.")
            other = other._masked_data
        if reflected:  # the data tensor's own reflected operator (2 - t, 1 / t)
            values = getattr(self._masked_data, reflected)(other)
        else:
            values = getattr(self._masked_data, name)(other)
        return MaskedTensor._from(values, self._masked_mask.expand_as(values))


def _unary_door(name):
    def door(self, *args):
        return self._unary(name, *args)
    door.__name__ = name
    return door


def _binary_door(name, reflected=False):
    def door(self, other):
        return self._binary(name, other, reflected)
    door.__name__ = name
    return door


_UNARY = ("abs", "absolute", "acos", "arccos", "acosh", "arccosh", "asin", "arcsin", "asinh",
          "arcsinh", "atan", "arctan", "atanh", "arctanh", "bitwise_not", "ceil", "clamp",
          "clip", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp", "exp2",
          "expm1", "fix", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "logit",
          "i0", "isnan", "nan_to_num", "neg", "negative", "positive", "pow", "rad2deg",
          "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sgn", "signbit", "sin", "sinc",
          "sinh", "sqrt", "square", "tan", "tanh", "trunc")
_BINARY = ("add", "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor", "div",
           "divide", "floor_divide", "fmod", "logaddexp", "logaddexp2", "mul", "multiply",
           "nextafter", "remainder", "sub", "subtract", "true_divide", "eq", "ne", "le", "ge",
           "greater", "greater_equal", "gt", "less_equal", "lt", "less", "maximum", "minimum",
           "fmin", "fmax", "not_equal")
for _name in _UNARY:
    setattr(MaskedTensor, _name, _unary_door(_name))
for _name in _BINARY:
    setattr(MaskedTensor, _name, _binary_door(_name))
for _dunder, _name, _reflected in (
        ("__add__", "add", False), ("__radd__", "add", "__radd__"), ("__sub__", "sub", False),
        ("__mul__", "mul", False), ("__rmul__", "mul", "__rmul__"),
        ("__truediv__", "div", False), ("__rtruediv__", "div", "__rtruediv__"),
        ("__floordiv__", "floor_divide", False), ("__mod__", "remainder", False),
        ("__pow__", "pow", False), ("__eq__", "eq", False), ("__ne__", "ne", False),
        ("__lt__", "lt", False), ("__le__", "le", False), ("__gt__", "gt", False),
        ("__ge__", "ge", False)):
    setattr(MaskedTensor, _dunder, _binary_door(_name, _reflected))
MaskedTensor.__neg__ = _unary_door("neg")
# PyTorch's prototype has no rule for rsub / rpow: Python's own TypeError results
MaskedTensor.__rsub__ = MaskedTensor.__rpow__ = lambda self, other: NotImplemented
MaskedTensor.__abs__ = _unary_door("abs")
MaskedTensor.__hash__ = Tensor.__hash__
del _name, _dunder, _reflected


def _rows(data, mask):
    """PyTorch's MaskedTensor layout: 1-dim rows of '{:8.4f}' values ('--' where
    unspecified, right-aligned to eight), nested in brackets two spaces per level."""
    if data.dim() == 1:
        values = [v.item() for v in data]
        shown = [f"{v:8.4f}" if isinstance(v, float) else str(v) for v in values]
        hidden = [not bool(m) for m in mask]
        width = max((8 if h else len(s) for s, h in zip(shown, hidden)), default=0)
        return "[" + ", ".join("--".rjust(width) if h else s
                               for s, h in zip(shown, hidden)) + "]"
    parts = [_rows(d, m) for d, m in zip(data, mask)]
    parts = ["\n".join("  " + line for line in part.split("\n")) for part in parts]
    return "[\n" + ",\n".join(parts) + "\n]"


def masked_tensor(data, mask, requires_grad=False):
    """A MaskedTensor of `data` (a copy) and `mask`."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask):
    """A MaskedTensor over `data` that stays differentiable with respect to it."""
    return MaskedTensor._from(data, mask)
