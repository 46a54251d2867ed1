"""Run one drawn call in ember and in torch; compare outcomes; check ember's invariants.

What counts as the same (the one place the fuzzer's relaxations live):
- Exceptions: the same class name, and the same message with `torch.` read as `ember.`
  (except `torch.cat():`, which ember keeps word for word, as tests/test_joining.py pins).
  Where torch's message runs over several lines (argument-parser listings of every
  overload, C++ notes), only the first line is compared.
- Tensors: type, dtype, shape, requires_grad and grad_fn name exactly; values exactly for
  integer and bool dtypes, within TOLERANCES for floats (NaN positions equal, infinities
  equal in sign); repr exactly, but only where every value agrees bit for bit (a last-ulp
  difference may legitimately change a printed digit). Random ops: values and reprs skipped.
- Python scalars: the same type; floats within float64's tolerance. Other results
  (dtypes, Size, None, strings): the same repr with `torch.` read as `ember.`.
- Inputs after the call: compared like results (catches in-place differences).
Invariants of ember alone: every result Tensor's `_data` is an ndarray (never a NumPy
scalar); a call that raises leaves every input tensor's values, shape, strides and
`_version` as they were; `x.op_(...)` leaves x equal to `x.copy_(x.op(...))` where x.op
keeps x's shape (a view op in place, squeeze_ or as_strided_, reshapes x instead).
"""
import dataclasses
import operator
import re
import types
import warnings

import numpy as np
import torch

import ember

from .inputs import materialize

# (rtol, atol) per result dtype: about 2 ulp for the half types, a few ulp for float32 and
# float64 (torch's vectorised kernels and NumPy's differ in the last bits; small
# reductions may sum in another order). Measured over the long searches, see the report.
TOLERANCES = {
    "float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2),
    "float32": (4e-6, 1e-6), "float64": (1e-12, 1e-12),
}


# Messages of PyTorch's argument parser and Python's own call checks: a bad argument type
# or count, not an op's semantics (the 'argcheck' and 'scalars' work).
ARGUMENT_MESSAGES = re.compile(
    r"must be [\w ,\[\]]+, not |received an invalid combination of arguments|positional "
    r"argument|unexpected keyword argument|takes no keyword arguments|missing \d+ required|"
    r"object is not iterable|object has no attribute|unsupported operand type|object cannot be "
    r"interpreted|expected Tensor as element|must be real number|can't convert|"
    r"not supported between instances|too big to convert|out of bounds for|Overflow when "
    r"unpacking|cannot be converted to type|Could not infer dtype|is not a valid|must be a "
    r"Tensor|only integer tensors|value cannot be converted|failed to unpack the object")
DTYPE_MESSAGES = re.compile(r"not implemented for|not supported for the input types|"
                            r"can't be cast to the desired|expected scalar type|must have the "
                            r"same dtype|should be the same|Found dtype|mixed dtype|"
                            r"expected dtype|is not supported for|Expected .* dtype")


@dataclasses.dataclass
class Mismatch(Exception):
    kind: str
    detail: str

    def __str__(self):
        return f"{self.kind}: {self.detail}"

    @property
    def cause(self):
        """A coarse group for reports and the known list (see test_fuzz.KNOWN)."""
        if self.kind in ("exception type", "message", "raises in torch only",
                         "raises in ember only", "construct"):
            if ARGUMENT_MESSAGES.search(self.detail):
                return "argument checking"
            if DTYPE_MESSAGES.search(self.detail):
                return "dtype support"
            if "MemoryError" in self.detail or "allocate" in self.detail:
                return "huge sizes"
            if self.kind in ("exception type", "message"):
                return "error precedence or text"
            return "accepts what torch refuses" if self.kind == "raises in torch only" \
                else "refuses what torch accepts"
        return self.kind


def run_case(entry, spec):
    """Run `spec` in torch and in ember; raise Mismatch on the first difference."""
    t_args, t_kwargs = materialize(torch, spec.args), materialize(torch, spec.kwargs)
    e_args, e_kwargs = materialize(ember, spec.args), materialize(ember, spec.kwargs)
    before = snapshot((e_args, e_kwargs))
    t_result, t_error = outcome(torch, entry, t_args, t_kwargs)
    e_result, e_error = outcome(ember, entry, e_args, e_kwargs)
    if e_error is not None:
        check_unchanged(before, (e_args, e_kwargs))
    if t_error is not None and e_error is not None:
        return compare_errors(e_error, t_error)
    if t_error is not None:
        raise Mismatch("raises in torch only", f"torch {type(t_error).__name__}: "
                       f"{first_line(str(t_error))} | ember returned {safe_repr(e_result)}")
    if e_error is not None:
        raise Mismatch("raises in ember only", f"ember {type(e_error).__name__}: {e_error} "
                       f"| torch returned {t_result!r}")
    compare_results(e_result, t_result, random=entry.random)
    if t_args and t_result is t_args[0] and e_result is not e_args[0]:
        raise Mismatch("result", "torch returns its receiver itself, ember another object")
    compare_results(e_args, t_args, "inputs after the call", entry.random)
    compare_results(e_kwargs, t_kwargs, "keyword inputs after the call", entry.random)
    if entry.kind == "method" and entry.name.endswith("_") and not entry.name.startswith("__") \
            and not entry.random:
        check_inplace(entry, spec, e_args)


def safe_repr(value):
    """repr for messages: a broken ember result must not hide the mismatch."""
    try:
        return repr(value)
    except Exception as error:   # noqa: BLE001
        return f"<repr raised {type(error).__name__}: {error}>"


def outcome(lib, entry, args, kwargs):
    """(result, None) or (None, exception) of one call, warnings silenced."""
    return call_quietly(lib, lambda lib: invoke(lib, entry, args, kwargs))


def call_quietly(lib, fn):
    """(fn(lib), None) or (None, exception), warnings silenced; a Mismatch (a comparison
    failing inside fn) is not an outcome and propagates."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return fn(lib), None
    except Mismatch:
        raise
    except Exception as error:   # noqa: BLE001 - every exception is an outcome to compare
        return None, error


def check_inplace(entry, spec, e_args):
    """`x.op_(...)` must leave x as `x.copy_(x.op(...))` would, where torch agrees."""
    base = entry.name[:-1]
    if not hasattr(torch.Tensor, base) or not hasattr(ember.Tensor, base):
        return
    first = e_args[0] if e_args else None
    if isinstance(first, ember.Tensor) and first.numel() > 1 and 0 in first.stride():
        return      # an expanded x: torch writes only the touched aliases, copy_ all of them
    refs = {}
    for lib in (torch, ember):
        args, kwargs = materialize(lib, spec.args), materialize(lib, spec.kwargs)
        with torch.no_grad(), ember.no_grad():
            out, error = outcome(lib, _as_method(base), args, kwargs)
            if error is not None or not isinstance(out, lib.Tensor):
                return
            if tuple(out.shape) != tuple(args[0].shape):
                return  # a shape-changing view op (squeeze_, as_strided_): copy_ would broadcast
            x = args[0].detach().clone()
            _, error = outcome(lib, _as_method("copy_"), [x, out], {})
            if error is not None:
                return
        refs[lib] = x
    got = e_args[0]
    expected = _numpy(refs[torch])
    if not np.array_equal(_numpy(refs[ember]), expected, equal_nan=True):
        return      # the out-of-place op already differs; compare_results reported it
    if not np.array_equal(_numpy(got), expected, equal_nan=True):
        raise Mismatch("inplace consistency", f"x.{entry.name}(...) gave {_numpy(got).tolist()}"
                       f", x.copy_(x.{base}(...)) gives {expected.tolist()}")


def _as_method(name):
    from .catalog import Entry
    return Entry(name, "method")


def invoke(lib, entry, args, kwargs):
    if entry.kind == "function":
        return getattr(lib, entry.name)(*args, **kwargs)
    if entry.kind == "functional":
        return getattr(lib.nn.functional, entry.name)(*args, **kwargs)
    if entry.kind == "property":
        return getattr(args[0], entry.name)
    if entry.kind == "method":
        if entry.name in OPERATORS and len(args) == OPERATORS[entry.name][1] and not kwargs:
            fn, _, reflected = OPERATORS[entry.name]
            return fn(*(args[::-1] if reflected else args))
        if not args:
            return getattr(lib.Tensor, entry.name)(**kwargs)
        return getattr(args[0], entry.name)(*args[1:], **kwargs)
    raise AssertionError(entry.kind)


def _operators():
    """Dunder methods are called as operators (`x + y`), the way users reach them."""
    table = {}
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or",
                 "xor", "lshift", "rshift", "matmul"):
        op = getattr(operator, name + "_" if name in ("and", "or") else name)
        table[f"__{name}__"] = (op, 2, False)
        table[f"__r{name}__"] = (op, 2, True)
        table[f"__i{name}__"] = (getattr(operator, "i" + name), 2, False)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        table[f"__{name}__"] = (getattr(operator, name), 2, False)
    for name, fn in (("abs", abs), ("neg", operator.neg), ("pos", operator.pos),
                     ("invert", operator.invert), ("bool", bool), ("float", float),
                     ("int", int), ("index", operator.index), ("len", len)):
        table[f"__{name}__"] = (fn, 1, False)
    return table


OPERATORS = _operators()


def first_line(message):
    return message.split("\n", 1)[0]


def compare_errors(ember_error, torch_error):
    # torch.linalg.LinAlgError is torch._C._LinAlgError: the public name is compared
    if type(ember_error).__name__.lstrip("_") != type(torch_error).__name__.lstrip("_"):
        raise Mismatch("exception type", f"ember {type(ember_error).__name__}: {ember_error} "
                       f"| torch {type(torch_error).__name__}: {torch_error}")
    # "(torch Tensor or None required)": a message naming the library names ember; but
    # "torch.cat(): ..." is kept word for word (ember's choice, pinned in test_joining.py)
    expected = str(torch_error).replace("torch.", "ember.").replace("torch Tensor",
                                                                    "ember Tensor")
    expected = expected.replace("ember.cat(): ", "torch.cat(): ")
    got = str(ember_error)
    if "\n" in expected:
        expected, got = first_line(expected), first_line(got)
    if got != expected:
        raise Mismatch("message", f"ember {got!r} | torch {expected!r}")


def _numpy(t):
    t = t.detach()
    if t.dtype in (torch.bfloat16, ember.bfloat16):
        t = t.float()
    return np.asarray(t.numpy())


def compare_tensors(e, t, path, random):
    if not isinstance(e, ember.Tensor):
        raise Mismatch("result type", f"{path}: ember {type(e).__name__} {e!r}, torch Tensor")
    if not isinstance(e._data, np.ndarray):
        raise Mismatch("invariant", f"{path}: _data is {type(e._data).__name__}")
    if str(e.dtype) != str(t.dtype).replace("torch.", "ember."):
        raise Mismatch("dtype", f"{path}: ember {e.dtype} | torch {t.dtype}")
    if tuple(e.shape) != tuple(t.shape):
        raise Mismatch("shape", f"{path}: ember {tuple(e.shape)} | torch {tuple(t.shape)}")
    if e.requires_grad != t.requires_grad:
        raise Mismatch("requires_grad", f"{path}: ember {e.requires_grad} | torch "
                       f"{t.requires_grad}")
    e_fn = e.grad_fn.name() if e.grad_fn is not None else None
    t_fn = (t.grad_fn.name().replace("torch::", "ember::") if t.grad_fn is not None
            else None)
    if e_fn != t_fn:
        raise Mismatch("grad_fn", f"{path}: ember {e_fn} | torch {t_fn}")
    if random:
        return
    got, expected = _numpy(e), _numpy(t)
    if expected.dtype.kind == "f":
        rtol, atol = TOLERANCES[str(t.dtype).split(".")[-1]]
        g, x = got.astype(np.float64), expected.astype(np.float64)
        same_special = np.array_equal(np.isnan(g), np.isnan(x)) and np.array_equal(
            np.where(np.isinf(x), x, 0), np.where(np.isinf(g), g, 0))
        finite = np.isfinite(x) & np.isfinite(g)
        close = np.abs(g[finite] - x[finite]) <= atol + rtol * np.abs(x[finite])
        if not same_special or not close.all():
            raise Mismatch("value", f"{path}: ember {got.tolist()} | torch {expected.tolist()}")
        exact = np.array_equal(g, x, equal_nan=True) and np.array_equal(np.signbit(g),
                                                                         np.signbit(x))
    else:
        if not np.array_equal(got, expected):
            raise Mismatch("value", f"{path}: ember {got.tolist()} | torch {expected.tolist()}")
        exact = True
    if exact:
        e_repr, t_repr = repr(e), repr(t).replace("torch.", "ember.")
        if e_repr != t_repr:
            raise Mismatch("repr", f"{path}: ember {e_repr!r} | torch {t_repr!r}")


def compare_results(e, t, path="result", random=False):
    if isinstance(t, torch.Tensor):
        return compare_tensors(e, t, path, random)
    if isinstance(t, torch.Size):
        if type(e).__name__ != "Size" or tuple(e) != tuple(t):
            raise Mismatch("result", f"{path}: ember {e!r} | torch {t!r}")
        return
    if isinstance(t, (tuple, list)):
        if type(e).__name__ != type(t).__name__ and not (
                hasattr(t, "_fields") and getattr(e, "_fields", None) == t._fields):
            raise Mismatch("result type", f"{path}: ember {type(e).__name__} | torch "
                           f"{type(t).__name__}")
        if len(e) != len(t):
            raise Mismatch("result", f"{path}: length ember {len(e)} | torch {len(t)}")
        for i, (a, b) in enumerate(zip(e, t)):
            compare_results(a, b, f"{path}[{i}]", random)
        return
    if isinstance(t, (bool, int, float)) and not isinstance(t, np.generic):
        if type(e) is not type(t):
            raise Mismatch("result type", f"{path}: ember {type(e).__name__} {e!r} | torch "
                           f"{type(t).__name__} {t!r}")
        if random:
            return
        if isinstance(t, float):
            if not (np.isnan(t) and np.isnan(e)) and not (
                    e == t or abs(e - t) <= 1e-12 + 1e-12 * abs(t)):
                raise Mismatch("value", f"{path}: ember {e!r} | torch {t!r}")
        elif e != t:
            raise Mismatch("value", f"{path}: ember {e!r} | torch {t!r}")
        return
    if isinstance(e, ember.Tensor):
        raise Mismatch("result type", f"{path}: ember Tensor | torch {type(t).__name__}")
    if isinstance(t, types.ModuleType):   # get_device_module: the same module, by name
        if getattr(e, "__name__", None) != t.__name__.replace("torch", "ember", 1):
            raise Mismatch("result", f"{path}: ember {e!r} | torch {t!r}")
        return
    if repr(e) != repr(t).replace("torch.", "ember."):
        raise Mismatch("result", f"{path}: ember {e!r} | torch {t!r}")


# ---------------------------------------------------------------- invariants
def _tensors(value):
    if isinstance(value, ember.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def snapshot(values):
    """Each ember tensor's bytes, shape, strides and version counter."""
    out = []
    for t in _tensors(values):
        out.append((np.ascontiguousarray(t._data).tobytes(), tuple(t.shape), t.stride(),
                    t._version))
    return out


def check_unchanged(before, values):
    after = snapshot(values)
    for i, (a, b) in enumerate(zip(before, after)):
        for label, x, y in zip(("values", "shape", "strides", "_version"), a, b):
            if x != y:
                raise Mismatch("invariant", f"input {i}: {label} changed by a call that raised")
