"""PyTorch's argument-parser TypeErrors, rebuilt only after an op has already failed.

PyTorch checks every call against its signatures in C++ before running it; ember
does not pay for that on the success path. Instead a door into an op catches the
AttributeError or TypeError that a wrong argument type provokes deep inside, and
asks `explain` for the error PyTorch would have raised: either
"relu(): argument 'input' (position 1) must be Tensor, not str" or the
"received an invalid combination of arguments" listing of every signature. When
the arguments do fit a signature, the original error was a genuine one and is
returned unchanged.

Signatures are written as PyTorch prints them (`FunctionSignature::toString`),
with `ember.` where PyTorch says `torch.`; `SIGNATURES` holds the ones ember's
doors use.
"""
import re as _re
from types import FunctionType as _FunctionType

from . import _dtype
from ._layout import layout as _layout_class
from ._memory_format import memory_format as _memory_format_class
from ._device import device as _device_class
from ._size import Size
from ._storage import TypedStorage as _TypedStorage, UntypedStorage as _UntypedStorage
from ._tensor import Tensor as _Tensor
from . import _signatures

__all__ = ["check", "door", "wire", "screen", "explain", "explain_with", "typename", "SIGNATURES"]

_BUILTIN_MODULES = {"builtins"}


def typename(obj):
    """The name PyTorch prints for an argument's type (CPython's tp_name)."""
    kind = type(obj)
    if kind is _dtype.dtype or kind is Size or kind is _device_class or kind is _layout_class \
            or kind is _memory_format_class:
        return "ember." + kind.__name__
    module = kind.__module__
    if module in _BUILTIN_MODULES:
        return kind.__name__
    if module == "ember._random" and kind.__name__ == "Generator":
        return "ember._C.Generator"  # torch._C.Generator, as PyTorch's C type is named
    if module == "numpy":
        return "numpy." + kind.__name__
    return kind.__name__


class _Param:
    __slots__ = ("type_name", "name", "optional", "allow_none", "keyword_only", "numbers",
                 "sized")

    def __init__(self, text, keyword_only, numbers_as_tensors=False):
        text, _, default = text.partition(" = ")
        type_name, _, self.name = text.rpartition(" ")
        # "int? dim": PyTorch's parser lets None through, but prints the type as "int"
        nullable = type_name.endswith("?")
        type_name = type_name[:-1] if nullable else type_name
        # "tuple of ints[2] kernel_size": a list of known length also takes a single int
        # (PyTorch's IntArrayRef[2]); "tuple of ints dims" refuses one
        self.sized = type_name.endswith("]")
        self.type_name = type_name[:type_name.index("[")] if self.sized else type_name
        self.optional = bool(default)
        self.allow_none = nullable or default == "None"
        self.keyword_only = keyword_only
        self.numbers = numbers_as_tensors and self.type_name == "Tensor"

    def check(self, obj):
        """(matches, index of the first bad element of a list or -1)."""
        if self.numbers:
            return _tensor_or_number(obj)
        if self.type_name == "tuple of ints" and not self.sized:
            return _unsized_int_list(obj)
        return _CHECKS.get(self.type_name, _never)(obj)


# The ops whose Tensor parameters PyTorch's parser lets a Python number fill
# (x.add_(1.5) reaches the op, which then refuses the cast with a RuntimeError).
_NUMBERS_AS_TENSORS = {"add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_",
                       "multiply", "multiply_", "sub", "sub_", "subtract", "subtract_",
                       "true_divide", "true_divide_", "to", "copy_", "floor_divide",
                       "floor_divide_"}


class _Signature:
    __slots__ = ("name", "text", "params", "min_args", "max_args", "max_pos_args", "hidden")

    def __init__(self, name, text, hidden=False):
        self.name = name
        self.text = _SIZE.sub("", text.replace("? ", " "))  # as printed
        self.hidden = hidden
        params = []
        keyword_only = False
        numbers = name in _NUMBERS_AS_TENSORS
        for part in text[1:-1].split(", ") if text != "()" else ():
            if part == "*":
                keyword_only = True
                continue
            params.append(_Param(part, keyword_only, numbers))
        self.params = params
        self.min_args = sum(1 for p in params if not p.optional)
        self.max_args = len(params)
        self.max_pos_args = sum(1 for p in params if not p.keyword_only)

    def parse(self, args, kwargs, raise_exception, lists=None):
        """PyTorch's FunctionSignature::parse: True when the arguments fit; with
        `raise_exception`, a TypeError naming the first argument that does not. The int
        lists it accepted (on their first element only) go to `lists` for `unpack`."""
        nargs = len(args)
        params = self.params
        # a lone positional int list may be given as varargs: view(2, 3) is view((2, 3))
        varargs = (self.max_pos_args == 1 and params[0].type_name == "tuple of ints" and nargs
                   and _is_int(args[0])[0])
        if nargs > self.max_pos_args and not varargs:
            return self._fail(raise_exception, self._extra_args(nargs))
        arg_pos = 0
        remaining = len(kwargs)
        for i, param in enumerate(params):
            is_keyword = arg_pos >= nargs
            if not is_keyword:
                if param.keyword_only:
                    return self._fail(raise_exception, self._extra_args(nargs))
                present, obj = True, args[arg_pos]
            else:
                present, obj = param.name in kwargs, kwargs.get(param.name)
            if not present and param.optional or present and obj is None and param.allow_none:
                pass
            elif not present:
                return self._fail(raise_exception, self._missing_args(i))
            else:
                matches, failed = param.check(obj)
                if not matches and varargs and arg_pos == 0 and not is_keyword:
                    # tried only after the argument itself failed: std(1, x) is no varargs
                    matches, obj, arg_pos = True, args, nargs - 1
                if failed != -1 and param.type_name == "tuple of Tensors":
                    # PyTorch's tensor-list check raises at once, whatever the overloads
                    raise TypeError(f"expected Tensor as element {failed} in argument {i}, "
                                    f"but got {typename(obj[failed])}")
                if matches:
                    if lists is not None and param.type_name == "tuple of ints":
                        lists.append((param, obj))
                elif not raise_exception:
                    return False
                else:
                    raise TypeError(self._type_mismatch(param, obj, arg_pos, is_keyword,
                                                        failed, args))
            if not is_keyword:
                arg_pos += 1
            elif present:
                remaining -= 1
        if remaining > 0:
            return self._fail(raise_exception, self._extra_kwargs(kwargs, nargs))
        return True

    def unpack(self, lists):
        """The TypeError PyTorch raises after choosing this signature, when an int list
        it accepted on its first element holds a later element that is no integer (a
        later bool is one: `amax([0, True])` works, `amax([True, 0])` does not)."""
        for param, obj in lists:
            if not isinstance(obj, (tuple, list)):
                continue
            for i in range(1, len(obj)):
                item = obj[i]
                if not (item.__class__ is bool or _is_int(item)[0]):
                    return TypeError(f"{self.name}(): argument '{param.name}' failed to unpack "
                                     f"the object at pos {i + 1} with error \"type must be "
                                     f"tuple of ints,but got {typename(item)}\"")
        return None

    @staticmethod
    def _fail(raise_exception, message):
        if raise_exception:
            raise TypeError(message)
        return False

    def _extra_args(self, nargs):
        if self.min_args != self.max_pos_args:
            return (f"{self.name}() takes from {self.min_args} to {self.max_pos_args} "
                    f"positional arguments but {nargs} were given")
        plural = "" if self.max_pos_args == 1 else "s"
        verb = "was" if nargs == 1 else "were"
        return (f"{self.name}() takes {self.max_pos_args} positional argument{plural} but "
                f"{nargs} {verb} given")

    def _missing_args(self, index):
        missing = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        plural = "s" if len(missing) == 1 else ""  # sic: PyTorch's plural is inverted
        return (f"{self.name}() missing {len(missing)} required positional argument{plural}: "
                + ", ".join(missing))

    def _extra_kwargs(self, kwargs, nargs):
        names = [p.name for p in self.params]
        for key in kwargs:
            if key not in names:
                return f"{self.name}() got an unexpected keyword argument '{key}'"
            if names.index(key) < nargs:
                return f"{self.name}() got multiple values for argument '{key}'"
        return "invalid keyword arguments"

    def _type_mismatch(self, param, obj, arg_pos, is_keyword, failed, args):
        if is_keyword:
            return (f"{self.name}(): argument '{param.name}' must be {param.type_name}, not "
                    f"{typename(obj)}")
        if failed != -1:
            sequence = obj if isinstance(obj, (tuple, list)) else args
            return (f"{self.name}(): argument '{param.name}' (position {arg_pos + 1}) must be "
                    f"{param.type_name}, but found element of type "
                    f"{typename(sequence[failed])} at pos {failed}")
        return (f"{self.name}(): argument '{param.name}' (position {arg_pos + 1}) must be "
                f"{param.type_name}, not {typename(obj)}")


def check(name, args, kwargs=None):
    """Raise PyTorch's TypeError when `name(*args, **kwargs)` fits none of its signatures.

    Called from an `except` clause after an op failed; when the arguments do fit, it
    returns and the caller re-raises the original error (it was not about types).
    """
    error = explain(name, args, kwargs or {})
    if error is not None:
        raise error from None


_NO_DIM = object()


def screen(name, args, kwargs, leading=()):
    """Before a reduction runs: PyTorch refuses a bool `dim` and a non-bool `keepdim` that
    ember's ops would quietly accept; two class checks, a full parse only when one fails.
    `args` start at dim; `leading` are the arguments before it (a function's input). A
    keepdim without a dim is refused too (sum(keepdim=True): no signature takes it)."""
    dim = args[0] if args else kwargs.get("dim", kwargs.get("axis", _NO_DIM))  # NumPy's name
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    if dim.__class__ is bool or keepdim.__class__ is not bool or dim is _NO_DIM:
        check(name, leading + args, kwargs)


def explain(name, args, kwargs):
    """PyTorch's TypeError for `name(*args, **kwargs)`, or None when the arguments fit.

    `name` is "Tensor.sum" for a method (self is not an argument) or "sum" for a function.
    """
    parsed = _PARSED.get(name) or _parsed(name)
    return None if parsed is None else _explain(parsed, args, kwargs)


def _parsed(name):
    """The parsed signatures of "Tensor.sum" or "sum" (cached), or None for a name
    PyTorch's parser does not check."""
    kind, _, short = name.rpartition(".")
    table = _signatures.METHODS if kind == "Tensor" else _signatures.FUNCTIONS
    texts = table.get(short) or SIGNATURES.get(name)
    if texts is None:
        return None
    parsed = _PARSED[name] = _parse_all(short, texts)
    return parsed


def explain_with(name, texts, args, kwargs):
    """`explain` for signatures given as text (tools/gen_signatures.py checks them)."""
    return _explain(_parse_all(name, texts), args, kwargs)


def _parse_all(name, texts):
    if texts == ("noargs",):
        return [_Signature(name, "(noargs)")]
    return [_Signature(name, text[:-len("|hidden")], True) if text.endswith("|hidden")
            else _Signature(name, text) for text in texts]


def _explain(parsed, args, kwargs):
    name = parsed[0].name
    if parsed[0].text == "(noargs)":  # a CPython METH_NOARGS method: CPython's own words
        if kwargs:
            return TypeError(f"Tensor.{name}() takes no keyword arguments")
        return TypeError(f"Tensor.{name}() takes no arguments ({len(args)} given)") if args else None
    try:
        lists = []
        if len(parsed) == 1:
            parsed[0].parse(args, kwargs, True, lists)
            return parsed[0].unpack(lists)
        for signature in parsed:
            if signature.parse(args, kwargs, False, lists):
                return signature.unpack(lists)
            lists.clear()
        count = len(args) + len(kwargs)
        plausible = [s for s in parsed if s.min_args <= count <= s.max_args and not s.hidden]
        if len(plausible) == 1:
            plausible[0].parse(args, kwargs, True)
    except TypeError as mismatch:
        return mismatch
    return TypeError(_invalid_combination(name, [s.text for s in parsed if not s.hidden],
                                          args, kwargs))


_PARSED = {}
_SIZE = _re.compile(r"\[\d+\]")


# ---------------------------------------------------------------- format_invalid_args
# PyTorch lists the signatures with a cruder parser of its own (invalid_arguments.cpp):
# it splits each printed signature at ", ", so "*" and "bool keepdim = False" (named
# "False") count as arguments. Its quirks decide which "didn't match" lines appear.

def _invalid_combination(name, options, args, kwargs):
    message = f"{name}() received an invalid combination of arguments - "
    if len(options) == 1:
        option = _option(options[0])
        unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        given = (_marked_args(option, args, kwargs) if _count_matches(option, args, kwargs)
                 else _plain_args(args, kwargs))
        return message + f"got {given}, but expected {options[0]}"
    lines = [message + f"got {_plain_args(args, kwargs)}, but expected one of:"]
    for text in options:
        option = _option(text)
        lines.append(f" * {text}")
        if _count_matches(option, args, kwargs):
            unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
            if unmatched:
                lines.append("      didn't match because some of the keywords were incorrect: "
                             + ", ".join(unmatched))
            else:
                lines.append("      didn't match because some of the arguments have invalid "
                             "types: " + _marked_args(option, args, kwargs))
    return "\n".join(lines) + "\n"


def _option(text):
    """[(name, accepted type names or None for 'exactly this name', nullable)] plus
    whether it is variadic, parsed the way invalid_arguments.cpp does."""
    arguments = []
    for part in text[1:-1].split(", "):
        nullable = part.startswith("[")
        if nullable:
            part = part[1:-len(" or None]")]
        cut = part.rfind(" ")
        type_name, argument_name = part[:max(cut, 0)] if cut >= 0 else part, part[cut + 1:]
        if "..." in part:
            type_name = part[:cut - 4]
        arguments.append((argument_name, _LOOSE_TYPES.get(type_name, (type_name,)), nullable))
    return arguments, "..." in text


_LOOSE_TYPES = {"float": ("float", "int", "long"), "int": ("int", "long")}


def _loose_match(accepted, nullable, obj):
    return nullable and obj is None or typename(obj) in accepted


def _count_matches(option, args, kwargs):
    arguments, variadic = option
    expected, got = len(arguments), len(args) + len(kwargs)
    return got == expected or variadic and got > expected


def _unmatched_kwargs(option, kwargs):
    arguments = option[0]
    start = max(len(arguments) - len(kwargs), 0)
    names = [a[0] for a in arguments[start:]]
    return [key for key in _keyword_order(kwargs) if key not in names]


def _describe(obj):
    if isinstance(obj, (tuple, list)):
        inner = ", ".join(typename(item) for item in obj)
        if isinstance(obj, tuple):
            return f"{typename(obj)} of ({inner}{',' if len(obj) == 1 else ''})"
        return f"{typename(obj)} of [{inner}]"
    return typename(obj)


def _marked_args(option, args, kwargs):
    arguments, variadic = option
    parts = []
    for i in range(len(args) + len(kwargs)):
        is_keyword = i >= len(args)
        obj = kwargs[arguments[i][0]] if is_keyword else args[i]
        if i < len(arguments):
            matches = _loose_match(arguments[i][1], arguments[i][2], obj)
        else:
            matches = variadic and _loose_match(arguments[-1][1], arguments[-1][2], obj)
        text = (arguments[i][0] + "=" if is_keyword else "") + _describe(obj)
        parts.append(text if matches else f"!{text}!")
    return _join(parts, bool(args))


def _plain_args(args, kwargs):
    parts = [typename(a) for a in args] + [
        f"{key}={typename(kwargs[key])}" for key in _keyword_order(kwargs)]
    return _join(parts, bool(args))


# PyTorch copies the keywords into a C++ std::unordered_map<std::string, ...> before
# listing them, so they come out in libstdc++'s iteration order: usually last to first,
# except where two names share a bucket. Reproduced here from libstdc++'s documented
# behaviour: std::hash<std::string> (64-bit MurmurHash2, seed 0xc70f6907), 13 buckets
# on the first insertion, a new key put first in its bucket, and an empty bucket's key
# put first in the list.
_MASK64 = (1 << 64) - 1
_MURMUR = 0xc6a4a7935bd1e995
_SMALL_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def _keyword_order(kwargs):
    if len(kwargs) < 2:
        return list(kwargs)
    hashes = {key: _string_hash(key) for key in kwargs}
    buckets, grow_at, order = 1, 0, []
    for key in kwargs:
        if len(order) + 1 > grow_at:
            wanted = max(len(order) + 1, 0 if grow_at else 11)
            if wanted >= buckets:
                wanted = max(wanted + 1, buckets * 2)
                buckets = (_SMALL_BUCKETS[wanted] if wanted < len(_SMALL_BUCKETS)
                           else _next_prime(wanted))
                order = _rebucket(order, hashes, buckets)
            grow_at = buckets
        order = _bucket_insert(order, key, hashes, buckets)
    return order


def _bucket_insert(order, key, hashes, buckets):
    bucket = hashes[key] % buckets
    for i, other in enumerate(order):
        if hashes[other] % buckets == bucket:
            return order[:i] + [key] + order[i:]
    return [key] + order


def _rebucket(order, hashes, buckets):
    rebuilt = []
    for key in order:
        rebuilt = _bucket_insert(rebuilt, key, hashes, buckets)
    return rebuilt


def _next_prime(n):
    while any(n % d == 0 for d in range(2, int(n ** 0.5) + 1)):
        n += 1
    return n


def _string_hash(text):
    data = text.encode()
    size = len(data)
    value = (0xc70f6907 ^ size * _MURMUR) & _MASK64
    whole = size & ~7
    for i in range(0, whole, 8):
        word = int.from_bytes(data[i:i + 8], "little") * _MURMUR & _MASK64
        value = (value ^ (word ^ word >> 47) * _MURMUR & _MASK64) * _MURMUR & _MASK64
    if size & 7:
        value = (value ^ int.from_bytes(data[whole:], "little")) * _MURMUR & _MASK64
    value = (value ^ value >> 47) * _MURMUR & _MASK64
    return value ^ value >> 47


def _join(parts, trim):
    # PyTorch appends ", " after every item and trims the last one only when there were
    # positional arguments: "(dim=str, )".
    text = "".join(p + ", " for p in parts)
    return "(" + (text[:-2] if trim else text) + ")"


# ---------------------------------------------------------------- parameter types
def _never(obj):
    return False, -1


def _is_tensor(obj):
    return isinstance(obj, _Tensor), -1


def _tensor_or_number(obj):
    return isinstance(obj, (_Tensor, int, float, complex)) or (
        type(obj).__module__ == "numpy" and hasattr(obj, "__float__")), -1


def _is_int(obj):
    if isinstance(obj, bool):
        return False, -1
    if isinstance(obj, int):
        return True, -1
    if isinstance(obj, _Tensor):  # through __index__: any one-element integer tensor
        return obj.numel() == 1 and obj.dtype.category == _dtype.INTEGRAL, -1
    return hasattr(obj, "__index__") and not isinstance(obj, float), -1


def _is_float(obj):
    if isinstance(obj, (int, float)):
        return True, -1
    if isinstance(obj, _Tensor):  # a 0-dim tensor that needs no gradient reads as a number
        return obj.ndim == 0 and not obj.requires_grad, -1
    return type(obj).__module__ == "numpy" and hasattr(obj, "__float__"), -1


def _is_number(obj):
    if isinstance(obj, (int, float, complex)):
        return True, -1
    if isinstance(obj, _Tensor):
        return obj.ndim == 0 and not obj.requires_grad, -1
    return type(obj).__module__ == "numpy" and hasattr(obj, "__float__"), -1


def _is_bool(obj):
    return isinstance(obj, bool) or typename(obj) == "numpy.bool_", -1


def _unsized_int_list(obj):
    return _int_list(obj) if isinstance(obj, (tuple, list)) else (False, -1)


def _int_list(obj):
    # PyTorch looks at the first element only; the others are checked when unpacking
    if isinstance(obj, (tuple, list)):
        return (True, -1) if not obj or _is_int(obj[0])[0] else (False, 0)
    return _is_int(obj)


def _tensor_list(obj):
    if isinstance(obj, (tuple, list)):
        for i, item in enumerate(obj):
            if not isinstance(item, _Tensor):
                return False, i
        return True, -1
    return False, -1


_PYTHON_DTYPES = (float, int, bool, complex)  # PyTorch reads these classes as dtypes


def _is_dtype(obj):
    # identity, not `in`: `tensor in (float, ...)` would compare elementwise
    return isinstance(obj, _dtype.dtype) or any(obj is cls for cls in _PYTHON_DTYPES), -1


def _is_str(obj):
    return isinstance(obj, str), -1


def _is_device(obj):
    return isinstance(obj, (str, int, _device_class)) and not isinstance(obj, bool), -1


def _always(obj):
    return True, -1


def _is_complex(obj):
    return isinstance(obj, (int, float, complex)) and not isinstance(obj, bool) or (
        isinstance(obj, _Tensor) and obj.ndim == 0), -1


def _float_list(obj):
    if isinstance(obj, (tuple, list)):
        for i, item in enumerate(obj):
            if not _is_float(item)[0]:
                return False, i
        return True, -1
    return _is_float(obj)


def _is_storage(obj):
    return isinstance(obj, (_TypedStorage, _UntypedStorage)), -1


def _named(type_name):
    return lambda obj: (typename(obj) == type_name, -1)


_CHECKS = {"Tensor": _is_tensor, "int": _is_int, "SymInt": _is_int, "float": _is_float,
           "Number": _is_number, "complex": _is_complex, "bool": _is_bool,
           "tuple of ints": _int_list, "tuple of Tensors": _tensor_list,
           "tuple of floats": _float_list, "tuple of Scalars": _float_list,
           "ember.dtype": _is_dtype, "str": _is_str, "c10::string_view": _is_str,
           "Device": _is_device, "ember.device": _is_device, "object": _always,
           "ember.layout": _named("ember.layout"),
           "ember.memory_format": _named("ember.memory_format"),
           "ember.Generator": _named("ember._C.Generator"), "ember.Storage": _is_storage}


# ---------------------------------------------------------------- signatures
# Generated ones live in _signatures (tools/gen_signatures.py); these are the C++
# functions behind nn.functional doors whose names ember does not export.
_T = "Tensor input"
SIGNATURES = {
    "cross_entropy_loss": (f"({_T}, Tensor target, Tensor weight = None, int reduction = 1, "
                           "SymInt ignore_index = -100, float label_smoothing = 0.0)",),
    "nll_loss_nd": (f"({_T}, Tensor target, Tensor weight = None, int reduction = 1, "
                    "SymInt ignore_index = -100)",),
    "kl_div": (f"({_T}, Tensor target, int reduction = 1, *, bool log_target = False)",),
    # the C++ functions behind PyTorch's Python-level Tensor.split / torch.split (the tool
    # probes torch.split, a Python function, and so cannot find them)
    "split": (f"({_T}, int split_size, int dim = 0)",
              f"({_T}, tuple of ints split_size, int dim = 0)"),
    # behind PyTorch's Python-level unique / unique_consecutive (flags passed by keyword)
    "_unique2": (f"({_T}, bool sorted = True, bool return_inverse = False, "
                 "bool return_counts = False)",),
    "unique_dim": (f"({_T}, int dim, bool sorted = True, bool return_inverse = False, "
                   "bool return_counts = False)",),
    "unique_consecutive": (f"({_T}, bool return_inverse = False, bool return_counts = False, "
                           "int dim = None)",),
    # Tensor.unflatten is Python in PyTorch too, around this C++ method
    "Tensor.unflatten": ("(int dim, tuple of ints sizes)",),
    # the C++ functions behind PyTorch's Python-level ones (_arguments_python.STEPS)
    "einsum": ("(str equation, tuple of Tensors tensors, *, tuple of ints path = None)",),
    "cdist": ("(Tensor x1, Tensor x2, float p = 2, int compute_mode = None)",),
    "tensordot": (f"({_T}, Tensor other, tuple of ints dims_self, tuple of ints dims_other, "
                  "*, Tensor out = None)",),
    "chain_matmul": ("(tuple of Tensors matrices, *, Tensor out = None)",),
    "broadcast_tensors": ("(tuple of Tensors tensors)",),
    "block_diag": ("(tuple of Tensors tensors)",),
    "cartesian_prod": ("(tuple of Tensors tensors)",),
    "atleast_1d": (f"({_T})", "(tuple of Tensors tensors)"),
    "atleast_2d": (f"({_T})", "(tuple of Tensors tensors)"),
    "atleast_3d": (f"({_T})", "(tuple of Tensors tensors)"),
    "linalg_vector_norm": (f"({_T}, Number ord = 2, tuple of ints[1] dim = None, bool keepdim "
                           "= False, *, ember.dtype dtype = None, Tensor out = None)",),
    "_lu_with_info": (f"({_T}, bool pivot = True, bool check_errors = True)",),
    "embedding_renorm_": (f"({_T}, Tensor indices, float max_norm, float norm_type)",),
    "ctc_loss": ("(Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
                 "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool "
                 "zero_infinity = False)",
                 "(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
                 "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = "
                 "False)"),
}


def door(name, function, out_call=None):
    """`function` behind a try that turns a wrong-typed call into PyTorch's TypeError.

    For the doors that are not hot: the wrapper costs one Python frame per call;
    hot Tensor methods write the same try inline instead, which costs nothing until
    something raises. Whatever the op raises (NumPy's ValueError for `masked_fill(b, 'a')`,
    a RuntimeError from a shape check that ran before ember looked at the types, Python's
    own TypeError for a missing argument) becomes PyTorch's TypeError when the arguments
    fit no signature, as PyTorch parses them before anything runs; when they do fit, the
    original error is re-raised.

    Where ember's op would quietly accept what PyTorch's parser refuses (True as an int,
    1 as a bool, 1.5 as a dim), the door first compares the class of each argument in a
    non-tensor position with the classes that position usually takes (`_plan`); only an
    unusual one costs a full parse.
    """
    method = name.startswith("Tensor.")
    positions, keywords = _plan(name, 1 if method else 0)
    if out_call is not None and not method and _takes_out(name):
        wrapped = _out_door(name, function, positions, keywords, out_call)
    elif positions or keywords:
        wrapped = _screening_door(name, function, method, positions, keywords)
    else:
        wrapped = _plain_door(name, function, method)
    wrapped.__name__, wrapped.__qualname__ = function.__name__, function.__qualname__
    wrapped.__doc__, wrapped.__wrapped__ = function.__doc__, function
    wrapped.__module__ = function.__module__
    return wrapped


def _plain_door(name, function, method):
    def wrapped(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception:
            check(name, args[1:] if method else args, kwargs)
            raise
    return wrapped


def _screening_door(name, function, method, positions, keywords):
    first = positions[0][0] if positions else 1 << 30

    def wrapped(*args, **kwargs):
        if kwargs or len(args) > first:
            _screen(name, method, args, kwargs, positions, keywords)
        try:
            return function(*args, **kwargs)
        except Exception:
            check(name, args[1:] if method else args, kwargs)
            raise
    return wrapped


def _out_door(name, function, positions, keywords, out_call):
    """The screening door of a function whose PyTorch signature takes `out`: a call
    that passes one is parsed in full and handed to `out_call` (ops/_out.call), which
    runs `function` without it and writes the result; other calls pay nothing more."""
    first = positions[0][0] if positions else 1 << 30

    def wrapped(*args, **kwargs):
        if kwargs or len(args) > first:
            if kwargs.get("out") is not None:
                check(name, args, kwargs)
                rest = dict(kwargs)
                out = rest.pop("out")
                try:
                    return out_call(name, function, args, rest, out)
                except Exception:
                    check(name, args, kwargs)
                    raise
            _screen(name, False, args, kwargs, positions, keywords)
        try:
            return function(*args, **kwargs)
        except Exception:
            check(name, args, kwargs)
            raise
    return wrapped


def _takes_out(name):
    """Whether one of PyTorch's signatures for `name` has an `out` parameter."""
    parsed = _parsed(name)
    return parsed is not None and parsed[0].text != "(noargs)" and any(
        param.name == "out" for signature in parsed for param in signature.params)


def _screen(name, method, args, kwargs, positions, keywords):
    """PyTorch's TypeError when an argument is not what its position usually takes and a
    full parse refuses it; nothing when the parse accepts it. Inline and cheap: every
    door call that passes a screened position goes through here."""
    count = len(args)
    for i, usual, kind in positions:
        if i >= count:
            break
        if _usual(args[i], usual, kind):
            continue
        check(name, args[1:] if method else args, kwargs)
        return
    given = count - method + len(kwargs)
    for key, value in kwargs.items():
        found = keywords.get(key)
        # a tensor parameter named by keyword takes a tensor: pow(input=2.0, ...) fits only
        # an overload that names it otherwise (self), so the parse refuses it; a keyword
        # only some overloads take rules out the others' positions (sort(x, 0, stable=True))
        if found is not None and (given < found[2] or count - method > found[3] or
                                  found[0] is not None and (
                not _usual(value, found[0], found[1]) or
                found[1] is _TENSOR and not isinstance(value, _Tensor))):
            check(name, args[1:] if method else args, kwargs)
            return


def _usual(obj, usual, kind):
    if kind is _TENSOR:  # the op refuses other wrong values; a None it may take as unset
        return obj is not None
    cls = obj.__class__
    if cls in usual:
        # PyTorch judges an int list by its first element ([True] is refused), then
        # unpacks the rest, where a bool passes and a float does not
        return kind not in _INT_LISTS or cls not in _SEQUENCES or not obj or \
            obj[0].__class__ is int and all(item.__class__ in _INT_OR_BOOL for item in obj)
    return kind in _TENSOR_ORS and isinstance(obj, _Tensor)


# What a screened position holds (the third field of `_plan`'s entries)
_CLASSES, _INT_LIST, _TENSOR = "classes", "int list", "tensor"
_TENSOR_OR, _TENSOR_OR_INT_LIST = "tensor or classes", "tensor or int list"
_INT_LISTS = frozenset({_INT_LIST, _TENSOR_OR_INT_LIST})
_TENSOR_ORS = frozenset({_TENSOR_OR, _TENSOR_OR_INT_LIST})
_NONE = type(None)
_INT_OR_BOOL = frozenset({int, bool})
_SEQUENCES = frozenset({tuple, list})
_NUMBERS = frozenset({int, float, bool, complex})
# The classes a parameter type usually receives; anything else (a numpy integer, a
# 0-dim tensor for a Number, a bool for an int) is decided by a full parse. Types whose
# wrong values ember's ops refuse on their own (generators, ...) are absent.
_USUAL = {"int": frozenset({int}), "SymInt": frozenset({int}), "bool": frozenset({bool}),
          "float": frozenset({float, int, bool}), "Number": _NUMBERS, "complex": _NUMBERS,
          "tuple of ints": frozenset({tuple, list, Size, int}),
          "tuple of floats": frozenset({tuple, list, float, int}),
          "tuple of Scalars": frozenset({tuple, list, float, int}),
          "ember.dtype": frozenset({_dtype.dtype}), "str": frozenset({str}),
          "c10::string_view": frozenset({str}),
          "Device": frozenset({str, int, _device_class}),
          "ember.device": frozenset({str, int, _device_class}),
          "ember.layout": frozenset({_layout_class}),
          "ember.memory_format": frozenset({_memory_format_class}),
          "Tensor": _TENSOR, "tuple of Tensors": _TENSOR}


_UNSIZED_INT_LIST = frozenset({tuple, list, Size})
_VARARGS_INT_LIST = _UNSIZED_INT_LIST | {int}


def _usual_for(param):
    """The classes `param` usually takes: a frozenset, _TENSOR (anything but None), or
    None (anything: not screened)."""
    usual = _USUAL.get(param.type_name)
    if param.type_name == "tuple of ints" and not param.sized:
        usual = _UNSIZED_INT_LIST
    if usual is None or not param.allow_none:
        return usual
    return None if usual is _TENSOR else usual | {_NONE}


def _merge(entries):
    """(usual classes, kind) of a position over every signature's (usual, int list?),
    or None when one signature takes anything there, or None where another would not."""
    found = [usual for usual, _ in entries]
    if None in found:
        return None
    others = [usual for usual in found if usual is not _TENSOR]
    if len(others) < len(found):
        if any(_NONE in usual for usual in others):
            return None
        if not others:
            return _TENSOR, _TENSOR
        int_list = any(e[1] for e in entries)
        return frozenset({_Tensor}).union(*others), \
            _TENSOR_OR_INT_LIST if int_list else _TENSOR_OR
    return frozenset().union(*found), _INT_LIST if any(e[1] for e in entries) else _CLASSES


def _plan(name, offset):
    """((index into the call's args, usual classes, kind), ...) and
    {keyword: (usual classes or None, kind, need, most)} for the positions every signature of
    `name` types as a screenable class (kinds: see _usual). `need` is the fewest arguments
    a call naming that keyword must pass to fit a signature that has it: max(keepdim=True)
    passes one where (int dim, bool keepdim) needs two, so it gets a full parse; `most` is
    the most positional arguments such a signature takes (sort(x, 0, stable=True) passes
    two where the overload with `stable` takes one: a full parse)."""
    parsed = _parsed(name)
    if parsed is None or parsed[0].text == "(noargs)":
        return (), {}
    by_position, by_keyword, needs, most = {}, {}, {}, {}
    last_position = None
    for signature in parsed:
        params = signature.params
        positional = signature.max_pos_args
        if (signature.max_pos_args == 1 and params[0].type_name == "tuple of ints"
                and not params[0].sized):
            # view(2, True): later positions are unpacked, not parsed (a sized list takes
            # the int itself: std(1, 2) is no varargs call)
            last_position = 0
            positional = 1 << 30
        position = 0
        for param in params:
            entry = (_usual_for(param), param.type_name == "tuple of ints")
            if last_position == 0 and position == 0 and entry[0] is _UNSIZED_INT_LIST:
                # randn(8): a varargs size's first int is usual (a full parse costs 20 µs)
                entry = (_VARARGS_INT_LIST, True)
            if not param.keyword_only:
                by_position.setdefault(position, []).append(entry)
                position += 1
            by_keyword.setdefault(param.name, []).append(entry)
            need = signature.min_args + param.optional
            needs[param.name] = min(needs.get(param.name, need), need)
            most[param.name] = max(most.get(param.name, 0), positional)
    widest = max(most.values(), default=0)
    positions, keywords = [], {}
    for i, entries in sorted(by_position.items()):
        merged = _merge(entries)
        if merged is not None and (last_position is None or i <= last_position):
            positions.append((i + offset,) + merged)
    for key, entries in by_keyword.items():
        merged = _merge(entries)
        if merged is not None or needs[key] > 1 or most[key] < widest:
            keywords[key] = (merged or (None, None)) + (needs[key], most[key])
    return tuple(positions), keywords


_DOOR_CODES = (_plain_door("", abs, False).__code__,
               _screening_door("", abs, False, (), {}).__code__,
               _out_door("", abs, (), {}, None).__code__)


def wire(namespace, names, out_call=None, own_out=()):
    """Put a `door` around each plain Python function `namespace[name]` for `name` in
    `names`: the one place each public namespace (ember.*, nn.functional) is wired,
    called at the end of its module. Idempotent; classes and builtins are left alone.

    With `out_call`, functions whose PyTorch signature takes `out` get it through
    `out_call` (ember passes ops/_out.call; this layer sits below the ops), except the
    `own_out` ones, which write their `out` themselves."""
    for name in names:
        function = namespace.get(name)
        if type(function) is _FunctionType and function.__code__ not in _DOOR_CODES:
            namespace[name] = door(name, function, None if name in own_out else out_call)
