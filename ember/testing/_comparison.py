"""`ember.testing.assert_close`: compare (nests of) tensors, arrays and numbers.

The walk has two passes, as PyTorch's has: first the two inputs are paired leaf by leaf
(sequences by position, mappings by key), which is where structural and type problems
and a half-given tolerance are reported, each without the user's `msg`; then each pair
is compared in order and the first mismatch is raised, its text replaced or rewritten by
`msg`. Each message is PyTorch's text exactly.
"""
import collections.abc
import math

from .. import _dtype
from .._backend import numpy
from .._tensor import Tensor
from ..ops.creation import as_tensor
from ..ops.pointwise_logic import isclose

__all__ = ["assert_close", "default_tolerances"]

# (rtol, atol) per dtype; every other dtype compares exactly
_PRECISIONS = {_dtype.float16: (0.001, 1e-5), _dtype.bfloat16: (0.016, 1e-5),
               _dtype.float32: (1.3e-6, 1e-5), _dtype.float64: (1e-7, 1e-7)}
# the dtype a Python number is measured as
_NUMBER_DTYPES = {int: _dtype.int64, float: _dtype.float64}


class _Failure(Exception):
    """A failed check: the exception type to raise, PyTorch's text, and where it was."""

    def __init__(self, kind, text, path=()):
        super().__init__(text)
        self.kind, self.text, self.path = kind, text, path

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.text
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([p]) for p in self.path)
        return self.kind(msg(text) if callable(msg) else text)


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest (rtol, atol) over the inputs' dtypes."""
    table = dtype_precisions or _PRECISIONS
    rtols, atols = [], []
    for item in inputs:
        dtype = item.dtype if isinstance(item, Tensor) else item
        rtol, atol = table.get(dtype, (0.0, 0.0))
        rtols.append(rtol)
        atols.append(atol)
    return max(rtols), max(atols)


def _tolerances(dtypes, rtol, atol, path):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                                   f"omitted, but got no {missing}.", path)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*dtypes)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError (PyTorch's text) unless `actual` is close to `expected`."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                   equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        checks = list(_pairs(actual, expected, (), options))
    except _Failure as failure:
        raise failure.error() from None
    for check in checks:
        try:
            check()
        except _Failure as failure:
            raise failure.error(msg) from None


# ---------------------------------------------------------------- pairing
def _is_sequence(value):
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str)


def _pairs(actual, expected, path, options):
    """One comparison thunk per leaf pair, depth first."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                                           f"{len(actual)} != {len(expected)}", path)
        for index in range(len(actual)):
            yield from _pairs(actual[index], expected[index], (*path, index), options)
        return
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        yield from _mapping_pairs(actual, expected, path, options)
        return
    yield _leaf(actual, expected, path, options)


def _mapping_pairs(actual, expected, path, options):
    keys, other = set(actual.keys()), set(expected.keys())
    if keys != other:
        raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                       f"Missing keys in the actual mapping: {sorted(other - keys)}\n"
                                       f"Additional keys in the actual mapping: "
                                       f"{sorted(keys - other)}", path)
    try:
        keys = sorted(keys)
    except TypeError:
        pass
    for key in keys:
        yield from _pairs(actual[key], expected[key], (*path, key), options)


def _leaf(actual, expected, path, options):
    """The comparison for one leaf pair, by the first kind that takes both values."""
    if actual is None or expected is None:
        return lambda: _compare_none(actual, expected, path)
    booleans = (bool, numpy.bool_)
    if isinstance(actual, booleans) and isinstance(expected, booleans):
        return lambda: _compare_booleans(bool(actual), bool(expected), path)
    numbers = (int, float, numpy.number)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        return _number_check(actual, expected, path, options)
    tensors = _as_tensors(actual, expected, options["allow_subclasses"])
    if tensors is None:
        raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                                  f"{_class_text(actual)} and {_class_text(expected)}.", path)
    rtol, atol = _tolerances([t.dtype for t in tensors], options["rtol"], options["atol"],
                             path)
    return lambda: _compare_tensors(*tensors, rtol, atol, path, options)


def _class_text(value):
    """repr of value's class, ember.Tensor under its public name as PyTorch's shows."""
    return "<class 'ember.Tensor'>" if type(value) is Tensor else repr(type(value))


def _compare_none(actual, expected, path):
    if not (actual is None and expected is None):
        raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)


def _compare_booleans(actual, expected, path):
    if actual is not expected:
        raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)


def _as_tensors(actual, expected, allow_subclasses):
    """Both as tensors when they are tensor-likes of related types, else None."""
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        return None
    if not allow_subclasses and type(actual) is not type(expected):
        return None
    if not isinstance(actual, (Tensor, numpy.ndarray)):
        return None
    return tuple(v if isinstance(v, Tensor) else as_tensor(v) for v in (actual, expected))


# ---------------------------------------------------------------- numbers
def _number_check(actual, expected, path, options):
    actual, expected = (v.item() if isinstance(v, numpy.number) else v
                        for v in (actual, expected))
    dtypes = [_NUMBER_DTYPES[type(v)] for v in (actual, expected)]
    rtol, atol = _tolerances(dtypes, options["rtol"], options["atol"], path)
    equal_nan, check_dtype = options["equal_nan"], options["check_dtype"]

    def check():
        if check_dtype and type(actual) is not type(expected):
            raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != "
                                           f"{type(expected)}.", path)
        if actual == expected or equal_nan and math.isnan(actual) and math.isnan(expected):
            return
        difference = abs(actual - expected)
        if math.isfinite(difference) and difference <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_message(actual, expected, rtol, atol), path)
    return check


def _scalar_message(actual, expected, rtol, atol):
    difference = abs(actual - expected)
    relative = float("inf") if expected == 0 else difference / abs(expected)
    return _message("Scalars", rtol, atol, f"Expected {expected} but got {actual}.",
                    (difference, None), (relative, None))


def _message(what, rtol, atol, extra, absolute, relative):
    """PyTorch's mismatch report: a title, `extra`, then the two differences (with their
    allowances unless the comparison is exact)."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "", extra.strip()]
    for name, (value, index), allowed in (("absolute", absolute, atol),
                                          ("relative", relative, rtol)):
        line = (f"{name.title()} difference: {value}" if index is None
                else f"Greatest {name} difference: {value} at index {index}")
        lines.append(line if exact else f"{line} (up to {allowed} allowed)")
    return "\n".join(lines)


# ---------------------------------------------------------------- tensors
def _compare_tensors(actual, expected, rtol, atol, path, options):
    _compare_attributes(actual, expected, path, options)
    if actual.device.type == "meta" or expected.device.type == "meta":
        return
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = _dtype.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    actual, expected = actual.detach(), expected.detach()
    matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    if bool(matches.all()):
        return
    if actual.ndim == 0:
        text = _scalar_message(actual.item(), expected.item(), rtol, atol)
    else:
        text = _tensor_message(actual, expected, matches, rtol, atol)
    raise _Failure(AssertionError, text, path)


def _compare_attributes(actual, expected, path, options):
    def differ(name, mine, theirs):
        raise _Failure(AssertionError, f"The values for attribute '{name}' do not match: "
                                       f"{mine} != {theirs}.", path)
    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if actual.layout != expected.layout:
        if options["check_layout"]:
            differ("layout", actual.layout, expected.layout)
    elif options["check_stride"] and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        differ("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)


def _tensor_message(actual, expected, matches, rtol, atol):
    """The mismatch count and the greatest differences among the mismatched elements."""
    total = matches.numel()
    wrong = total - int(matches.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    shape = tuple(matches.shape)
    actual, expected, matches = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        # integers (and booleans) are compared in int64 so the difference cannot overflow
        actual, expected = actual.to(_dtype.int64), expected.to(_dtype.int64)
    absolute = (actual - expected).abs()
    absolute[matches] = 0
    relative = absolute / expected.abs()
    relative[matches] = 0
    return _message("Tensor-likes", rtol, atol, extra, _greatest(absolute, shape),
                    _greatest(relative, shape))


def _greatest(values, shape):
    """(the largest value, its index in `shape`), NaN counting as largest."""
    value, flat = values.max(0)
    return value.item(), _unravel(int(flat), shape)


def _unravel(flat, shape):
    index = []
    for size in reversed(shape):
        flat, rest = divmod(flat, size)
        index.append(rest)
    return tuple(reversed(index))
