"""Elementwise comparisons, logical and bitwise ops, and value tests (isnan, isclose...).

None of these is differentiable: their outputs are bool or integer, so they record no
node; only the in-place comparisons do, as PyTorch's, with a zero gradient. Comparisons promote both sides to PyTorch's common dtype first
(`uint8_tensor == -1` compares against 255, as PyTorch does).
"""
from .._dtype import is_floating as _is_floating
from .. import _dtype, _errors
from ._limited_uint import LIMITED as _LIMITED, refusal as _refusal
from ..autograd.graph import Node
from ._common import Tensor, attach, binary, grad_state, inplace, wrap
from .creation import zeros
from ._elementwise import broadcast_error, dtype_of, require_tensor, unsupported

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal",
           "isclose", "allclose", "equal"]


def _apply(function, a, b, device):
    try:
        return wrap(function(a, b), device)
    except ValueError:
        raise broadcast_error(a, b) from None


# ---------------------------------------------------------------- comparisons
def _compare(input, other, name, function):
    if other is None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(Tensor, NoneType)")
    a, b, device = binary(input, other, name)
    if a.dtype in _LIMITED and name in _ORDERINGS:
        raise _refusal(f"{name}_cpu", a.dtype)
    return _apply(function, a, b, device)


_ORDERINGS = {"lt", "le", "gt", "ge"}  # eq and ne have kernels for every dtype


def eq(input, other):
    """input == other, elementwise, as a bool tensor."""
    return _compare(input, other, "eq", input._device.xp.equal)


def ne(input, other):
    return _compare(input, other, "ne", input._device.xp.not_equal)


def lt(input, other):
    return _compare(input, other, "lt", input._device.xp.less)


def le(input, other):
    return _compare(input, other, "le", input._device.xp.less_equal)


def gt(input, other):
    return _compare(input, other, "gt", input._device.xp.greater)


def ge(input, other):
    return _compare(input, other, "ge", input._device.xp.greater_equal)


not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


# ---------------------------------------------------------------- logical
def _logical(input, other, name, function):
    require_tensor(other, name)
    for array in (input._data, other._data):
        if array.dtype in _LIMITED:
            raise _refusal(f"{name}_cpu", array.dtype)
    return _apply(function, input._data, other._data, input._device)


def logical_and(input, other):
    """Both nonzero, as bool."""
    return _logical(input, other, "logical_and", input._device.xp.logical_and)


def logical_or(input, other):
    return _logical(input, other, "logical_or", input._device.xp.logical_or)


def logical_xor(input, other):
    return _logical(input, other, "logical_xor", input._device.xp.logical_xor)


def logical_not(input):
    if input._data.dtype in _LIMITED:
        raise _refusal("logical_not_cpu", input._data.dtype)
    return wrap(input._device.xp.logical_not(input._data), input._device)


# ---------------------------------------------------------------- bitwise
def _bitwise(input, other, kernel, function, allow_bool=True):
    a, b, device = binary(input, other, kernel)
    if _is_floating(a.dtype) or a.dtype.kind == "b" and not allow_bool:
        raise unsupported(kernel, a)
    if not allow_bool and a.dtype in _LIMITED:  # the shifts; and / or / xor have kernels
        raise _refusal(kernel, a.dtype)
    return _apply(function, a, b, device)


def bitwise_and(input, other):
    """AND of the bits (logical AND for bool)."""
    return _bitwise(input, other, "bitwise_and_cpu", input._device.xp.bitwise_and)


def bitwise_or(input, other):
    return _bitwise(input, other, "bitwise_or_cpu", input._device.xp.bitwise_or)


def bitwise_xor(input, other):
    return _bitwise(input, other, "bitwise_xor_cpu", input._device.xp.bitwise_xor)


def bitwise_not(input):
    """NOT of the bits (logical NOT for bool)."""
    a = input._data
    if _is_floating(a.dtype) or a.dtype in _LIMITED:
        raise unsupported("bitwise_not_cpu", a)
    return wrap(input._device.xp.invert(a), input._device)


def _invert(input):
    """The `~` operator: PyTorch refuses floats with a TypeError here."""
    if _is_floating(input._data.dtype):
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(input)


def bitwise_left_shift(input, other):
    """input << other; shifting by the bit width or more (or a negative count) gives 0."""
    return _bitwise(input, other, "lshift_cpu", input._device.xp.left_shift, False)


def bitwise_right_shift(input, other):
    """input >> other, arithmetic for signed types."""
    return _bitwise(input, other, "rshift_cpu", input._device.xp.right_shift, False)


def rlshift(input, other):
    """other << input, for `2 << x`."""
    return _bitwise(input, other, "lshift_cpu", _swapped(input._device.xp.left_shift), False)


def rrshift(input, other):
    """other >> input, for `2 >> x`."""
    return _bitwise(input, other, "rshift_cpu", _swapped(input._device.xp.right_shift), False)


def _swapped(function):
    return lambda a, b: function(b, a)


# ---------------------------------------------------------------- value tests
def _float_test(input, function, default):
    a = input._data
    xp = input._device.xp
    if _is_floating(a.dtype):
        return wrap(function(a), input._device)
    return wrap(xp.full(a.shape, default, bool), input._device)


def isnan(input):
    return _float_test(input, input._device.xp.isnan, False)


def isinf(input):
    return _float_test(input, input._device.xp.isinf, False)


def isfinite(input):
    return _float_test(input, input._device.xp.isfinite, True)


def isposinf(input):
    return _float_test(input, lambda a: a == input._device.xp.inf, False)


def isneginf(input):
    return _float_test(input, lambda a: a == -input._device.xp.inf, False)


def isreal(input):
    """Always True for ember's real dtypes."""
    return _float_test(input, lambda a: input._device.xp.ones(a.shape, bool), True)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (same dtypes required)."""
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_name(a)} did not match {_name(b)}")
    if not rtol >= 0:    # NaN too
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {float(rtol):g}")
    if not atol >= 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {float(atol):g}")
    xp = input._device.xp
    try:
        close = a == b
    except ValueError:
        raise broadcast_error(a, b) from None
    if not _is_floating(a.dtype):
        if rtol == 0 and atol == 0:
            return wrap(close, input._device)
        a = a.astype(_dtype._defaults.float_dtype.np_dtype)
        b = b.astype(a.dtype)
    elif equal_nan:
        close = close | (xp.isnan(a) & xp.isnan(b))
    if rtol or atol:
        error = xp.abs(a - b)
        close = close | (xp.isfinite(error) & (error <= atol + rtol * xp.abs(b)))
    return wrap(close, input._device)


def _name(array):
    return _errors._scalar_type_name(dtype_of(array))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere (a Python bool)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    """True when both have the same shape and the same values."""
    if input._data.shape != other._data.shape:
        return False
    a, b, _ = binary(input, other, "equal")
    return bool((a == b).all())


# ---------------------------------------------------------------- in place
def _inplace_binary(op):
    def method(input, other):
        return inplace(input, op, other)
    method.__name__ = op.__name__ + "_"
    return method


def _untracked_inplace(op):
    """PyTorch records no gradient through the logical ops, so their in-place forms write
    even into a leaf that requires grad, and leave grad_fn (and requires_grad) as it was."""
    def method(input, *args):
        enabled = grad_state.enabled
        grad_state.enabled = False
        try:
            return inplace(input, op, *args)
        finally:
            grad_state.enabled = enabled
    method.__name__ = op.__name__ + "_"
    return method


(bitwise_and_, bitwise_or_, bitwise_xor_, bitwise_left_shift_, bitwise_right_shift_) = [
    _inplace_binary(op) for op in (bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift,
                                   bitwise_right_shift)]
logical_and_, logical_or_, logical_xor_, logical_not_ = [
    _untracked_inplace(op) for op in (logical_and, logical_or, logical_xor, logical_not)]


def bitwise_not_(input):
    return inplace(input, bitwise_not)


def _inplace_compare(op, nodes):
    """`x.gt_(other)`: unlike `gt`, PyTorch records the in-place form (GtBackward0 for a
    number, GtBackward1 for a tensor) whenever x or other requires grad, even when x is
    an integer tensor; its gradient is zero for each input."""
    def recorded(source, other):
        out = op(source, other)
        tensor_other = isinstance(other, Tensor)
        if grad_state.enabled and (source._requires_grad or tensor_other
                                   and other._requires_grad):
            return nodes[tensor_other]().record(out, source, other)
        return out

    def method(input, other):
        return inplace(input, recorded, other)
    method.__name__ = op.__name__ + "_"
    return method


class _CompareBackward(Node):
    """A comparison is flat where it is defined: a zero gradient for each tensor input."""

    __slots__ = ("inputs",)

    def record(self, out, *inputs):
        self.inputs = [(x.shape, x.dtype, x.device) if isinstance(x, Tensor) else None
                       for x in inputs]
        return attach(out, self, *inputs)

    def backward(self, grad):
        return tuple(None if edge[0] is None else zeros(spec[0], dtype=spec[1], device=spec[2])
                     for edge, spec in zip(self.next_functions, self.inputs))


class EqBackward0(_CompareBackward):
    __slots__ = ()


class EqBackward1(_CompareBackward):
    __slots__ = ()


class NeBackward0(_CompareBackward):
    __slots__ = ()


class NeBackward1(_CompareBackward):
    __slots__ = ()


class LtBackward0(_CompareBackward):
    __slots__ = ()


class LtBackward1(_CompareBackward):
    __slots__ = ()


class LeBackward0(_CompareBackward):
    __slots__ = ()


class LeBackward1(_CompareBackward):
    __slots__ = ()


class GtBackward0(_CompareBackward):
    __slots__ = ()


class GtBackward1(_CompareBackward):
    __slots__ = ()


class GeBackward0(_CompareBackward):
    __slots__ = ()


class GeBackward1(_CompareBackward):
    __slots__ = ()


eq_ = _inplace_compare(eq, (EqBackward0, EqBackward1))
ne_ = _inplace_compare(ne, (NeBackward0, NeBackward1))
lt_ = _inplace_compare(lt, (LtBackward0, LtBackward1))
le_ = _inplace_compare(le, (LeBackward0, LeBackward1))
gt_ = _inplace_compare(gt, (GtBackward0, GtBackward1))
ge_ = _inplace_compare(ge, (GeBackward0, GeBackward1))
