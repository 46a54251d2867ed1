"""dtype objects, their NumPy equivalents, and PyTorch's type-promotion rules.

NumPy promotes differently from PyTorch (int32 * 2.5 is float64 in NumPy,
float32 in PyTorch; a float64 0-dim array wins in NumPy, not in PyTorch), so
every op asks this module for its result dtype and casts before computing.
"""
import builtins

import numpy as np

# NumPy has no bfloat16; ml_dtypes (a core dependency) adds it. Importing ml_dtypes takes
# longer than importing the rest of ember, so it loads on the first use of bfloat16's NumPy
# dtype (load_bfloat16). Without ml_dtypes ember still imports and everything else works;
# bfloat16 arrays then raise BFLOAT16_MISSING.
BFLOAT16_NP = None  # bfloat16's NumPy dtype, once ml_dtypes is loaded
BFLOAT16_MISSING = ("ember.bfloat16 needs the ml_dtypes package (a core dependency of ember "
                    "that is not installed): pip install ml_dtypes")

__all__ = ["dtype", "float16", "half", "bfloat16", "float32", "float", "float64", "double",
           "int8", "int16", "short", "int32", "int", "int64", "long", "uint8", "uint16", "uint32",
           "uint64", "bool",
           "get_default_dtype", "set_default_dtype", "finfo", "iinfo", "promote_types",
           "result_type", "can_cast"]

BOOL, INTEGRAL, FLOATING = 0, 1, 2


class dtype:
    """A tensor element type, printed as PyTorch prints it (`ember.float32`)."""

    __slots__ = ("name", "np_dtype", "itemsize", "is_floating_point", "is_signed", "category",
                 "tensor_type", "__weakref__")

    is_complex = False

    def __init__(self, name, np_dtype, category, is_signed, tensor_type):
        self.name = name
        if np_dtype is not None:
            self.np_dtype = np_dtype
        self.itemsize = np_dtype.itemsize if np_dtype is not None else 2
        self.category = category
        self.is_floating_point = category == FLOATING
        self.is_signed = is_signed
        self.tensor_type = tensor_type

    def __getattr__(self, name):
        # Reached only for an unset slot: bfloat16's np_dtype before ml_dtypes is loaded.
        if name == "np_dtype" and self.name == "bfloat16":
            return load_bfloat16()
        raise AttributeError(f"'dtype' object has no attribute '{name}'")

    def __repr__(self):
        return "ember." + self.name

    def to_real(self):
        return self

    def to_complex(self):
        raise RuntimeError(f"complex dtypes are not supported yet (from {self!r})")

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name):
    return _BY_NAME[name]


bool = dtype("bool", np.dtype(np.bool_), BOOL, False, "BoolTensor")
uint8 = dtype("uint8", np.dtype(np.uint8), INTEGRAL, False, "ByteTensor")
int8 = dtype("int8", np.dtype(np.int8), INTEGRAL, True, "CharTensor")
int16 = dtype("int16", np.dtype(np.int16), INTEGRAL, True, "ShortTensor")
int32 = dtype("int32", np.dtype(np.int32), INTEGRAL, True, "IntTensor")
int64 = dtype("int64", np.dtype(np.int64), INTEGRAL, True, "LongTensor")
float16 = dtype("float16", np.dtype(np.float16), FLOATING, True, "HalfTensor")
bfloat16 = dtype("bfloat16", None, FLOATING, True, "BFloat16Tensor")  # np_dtype: on first use
float32 = dtype("float32", np.dtype(np.float32), FLOATING, True, "FloatTensor")
float64 = dtype("float64", np.dtype(np.float64), FLOATING, True, "DoubleTensor")
# PyTorch's 'limited support' unsigned types: they store, copy, cast and compare for
# equality, but most kernels refuse them and they promote only with floating types.
uint16 = dtype("uint16", np.dtype(np.uint16), INTEGRAL, False, "UInt16Tensor")
uint32 = dtype("uint32", np.dtype(np.uint32), INTEGRAL, False, "UInt32Tensor")
uint64 = dtype("uint64", np.dtype(np.uint64), INTEGRAL, False, "UInt64Tensor")

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
       uint16, uint32, uint64)
LIMITED_UNSIGNED = (uint16, uint32, uint64)
# How PyTorch's C++ ScalarType names each dtype in its messages.
SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                "int8": "Char", "uint8": "Byte", "bool": "Bool", "uint16": "UInt16",
                "uint32": "UInt32", "uint64": "UInt64"}
_BY_NAME = {d.name: d for d in ALL}
# NumPy dtype (and scalar type) -> ember dtype; bfloat16 joins when ml_dtypes loads. These
# tables are shared, not copied, by the op modules, so bfloat16 joins them there too.
FROM_NUMPY = {d.np_dtype: d for d in ALL if d is not bfloat16}
FROM_NUMPY.update({d.np_dtype.type: d for d in ALL if d is not bfloat16})
CATEGORY = {np_dtype: d.category for np_dtype, d in FROM_NUMPY.items()}
# The 16-bit float NumPy dtypes that PyTorch's CPU kernels compute in float32, mapped to it.
COMPUTED_IN_FLOAT32 = {float16.np_dtype: float32.np_dtype}


def load_bfloat16():
    """Import ml_dtypes and register its bfloat16 (once); without it, say what to install."""
    global BFLOAT16_NP
    try:
        import ml_dtypes  # noqa: PLC0415 - lazy on purpose (see BFLOAT16_NP)
    except ImportError:
        raise ModuleNotFoundError(BFLOAT16_MISSING, name="ml_dtypes") from None
    np_dtype = np.dtype(ml_dtypes.bfloat16)
    FROM_NUMPY[np_dtype] = FROM_NUMPY[np_dtype.type] = bfloat16
    CATEGORY[np_dtype] = CATEGORY[np_dtype.type] = FLOATING
    COMPUTED_IN_FLOAT32[np_dtype] = float32.np_dtype
    bfloat16.np_dtype = BFLOAT16_NP = np_dtype
    return np_dtype


def is_bfloat16(np_dtype):
    """Whether a NumPy dtype is ml_dtypes' bfloat16 (False without ml_dtypes: note that
    `np.dtype('float64') == None` is True, so comparing with a missing BFLOAT16_NP lies)."""
    return BFLOAT16_NP is not None and np_dtype == BFLOAT16_NP


def is_floating(np_dtype):
    """Whether an array dtype holds a PyTorch floating type. NumPy's own floats have kind
    'f'; ml_dtypes' bfloat16 has kind 'V' and must be asked for by name, so ops test
    floating-ness here rather than through `dtype.kind`."""
    kind = np_dtype.kind
    return kind == "f" or kind == "V" and is_bfloat16(np_dtype)


def from_numpy_dtype(np_dtype):
    """The ember dtype for a NumPy dtype; TypeError for one PyTorch lacks."""
    found = FROM_NUMPY.get(np_dtype)
    if found is None:
        found = FROM_NUMPY.get(np.dtype(np_dtype))
        if found is None and np.dtype(np_dtype).name == "bfloat16":
            load_bfloat16()  # an ml_dtypes array made before ember needed bfloat16
            found = FROM_NUMPY.get(np.dtype(np_dtype))
        if found is None:
            raise TypeError(
                f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
                "supported types are: float64, float32, float16, complex64, complex128, int64, "
                "int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return found


_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool}


def as_dtype(value):
    """A `dtype=` argument as a dtype: PyTorch also takes Python's own types there
    (`float` is float64, `int` int64, `bool` bool; `complex` would be complex128,
    which ember lacks). Anything else passes through for the caller to judge."""
    if value.__class__ is dtype:
        return value
    found = _PYTHON_TYPES.get(value) if value.__class__ is type else None
    if found is not None:
        return found
    if value is complex:
        raise RuntimeError("complex dtypes are not supported yet (from complex)")
    return value


# ---------------------------------------------------------------- defaults
class _Defaults:
    __slots__ = ("float_dtype",)


_defaults = _Defaults()
_defaults.float_dtype = float32


def get_default_dtype():
    """The dtype Python floats become (float32 unless changed)."""
    return _defaults.float_dtype


def set_default_dtype(d):
    """Set the dtype Python floats become; only floating dtypes are allowed, as in PyTorch."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _defaults.float_dtype = d


# ---------------------------------------------------------------- promotion
def _promote_pair(a, b):
    """PyTorch's promoteTypes for two dtypes (a lattice, not NumPy's table); None where
    PyTorch refuses (a limited unsigned type with any other integral or bool type)."""
    if a is b:
        return a
    if a.category != b.category:
        if a in LIMITED_UNSIGNED and b.category != FLOATING or \
                b in LIMITED_UNSIGNED and a.category != FLOATING:
            return None
        return a if a.category > b.category else b
    if a.category == FLOATING:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize > b.itemsize else b
    if a.category == INTEGRAL:
        if a in LIMITED_UNSIGNED or b in LIMITED_UNSIGNED:
            return None
        if a is uint8 or b is uint8:
            other = b if a is uint8 else a
            return int16 if other is int8 else other
        return a if a.itemsize > b.itemsize else b
    return a


class _PromotionTable(dict):
    """(dtype, dtype) -> promoted dtype. The pairs PyTorch refuses are absent, so a lookup
    of one raises PyTorch's RuntimeError (every op promoting through this table does)."""

    def __missing__(self, key):
        a, b = key
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {SCALAR_NAMES[a.name]} and "
                           f"{SCALAR_NAMES[b.name]}")


_PROMOTE = _PromotionTable(((a, b), _promote_pair(a, b)) for a in ALL for b in ALL
                           if _promote_pair(a, b) is not None)


def promote_types(type1, type2):
    """The smallest dtype both may be cast to, by PyTorch's table."""
    return _PROMOTE[(type1, type2)]


def scalar_dtype(value):
    """The dtype a Python scalar takes part in promotion as (a 'wrapped number')."""
    t = type(value)
    if t is builtins.float:
        return _defaults.float_dtype
    if t is builtins.int:
        return int64
    if t is builtins.bool:
        return bool
    if isinstance(value, (np.generic,)):
        return from_numpy_dtype(value.dtype)
    if isinstance(value, builtins.float):
        return _defaults.float_dtype
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, complex):
        raise RuntimeError("complex numbers are not supported yet")
    raise TypeError(f"unsupported scalar type {t.__name__}")


def _combine(higher, lower):
    # PyTorch's combine_categories: a lower-priority group only wins across a category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == FLOATING:
        return higher
    if higher is bool or lower.category == FLOATING:
        return _PROMOTE[(higher, lower)]
    return higher


def result_type_of(dim_result, zero_result, wrapped_result):
    """Combine the three priority groups of PyTorch's result_type."""
    return _combine(dim_result, _combine(zero_result, wrapped_result))


def result_type(tensor1, tensor2):
    """ember.result_type: the dtype an arithmetic op on these operands returns.

    A Python int must fit PyTorch's Scalar (int64, or uint64 above it) even here, where
    only its kind matters."""
    for value in (tensor1, tensor2):
        if value.__class__ is builtins.int and not -2**63 <= value < 2**64:
            raise OverflowError("can't convert negative int to unsigned" if value < 0
                                else "int too big to convert")
    return _result_type_many((tensor1, tensor2))


def _result_type_many(operands):
    dim_result = zero_result = wrapped_result = None
    for op in operands:
        d = getattr(op, "_data", None)
        if d is None:
            s = scalar_dtype(op)
            wrapped_result = s if wrapped_result is None else _PROMOTE[(wrapped_result, s)]
        else:
            t = FROM_NUMPY[d.dtype]
            if d.ndim:
                dim_result = t if dim_result is None else _PROMOTE[(dim_result, t)]
            else:
                zero_result = t if zero_result is None else _PROMOTE[(zero_result, t)]
    return result_type_of(dim_result, zero_result, wrapped_result)


def can_cast(from_, to):
    """Whether PyTorch allows casting `from_` to `to` in an in-place op or `out=`."""
    return from_.category <= to.category


# ---------------------------------------------------------------- finfo / iinfo
def _fmt(x):
    return f"{x:.6g}"


class _BFloat16Info:
    """bfloat16's limits (8 exponent bits, 7 stored mantissa bits), known without ml_dtypes."""

    eps = 2.0 ** -7
    max = (2.0 - 2.0 ** -7) * 2.0 ** 127
    min = -max
    smallest_normal = 2.0 ** -126
    precision = 2


class finfo:
    """Machine limits of a floating dtype, printed as PyTorch prints them."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        type = _defaults.float_dtype if type is None else type
        if type.__class__ is not dtype:  # PyTorch's argument parser, in its words
            raise TypeError("finfo(): argument 'type' (position 1) must be ember.dtype, not "
                            f"{builtins.type(type).__name__}")
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'".replace("torch.", "ember."))
        info = np.finfo(type.np_dtype) if type is not bfloat16 else _BFloat16Info
        self.bits = type.itemsize * 8
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = builtins.float(info.smallest_normal)
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -builtins.int(info.precision)
        self.dtype = type.name

    def __repr__(self):
        return (f"finfo(resolution={_fmt(self.resolution)}, min={_fmt(self.min)}, "
                f"max={_fmt(self.max)}, eps={_fmt(self.eps)}, "
                f"smallest_normal={_fmt(self.smallest_normal)}, tiny={_fmt(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype, printed as PyTorch prints them."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type):
        if type.__class__ is not dtype:  # PyTorch's argument parser, in its words
            raise TypeError("iinfo(): argument 'type' (position 1) must be ember.dtype, not "
                            f"{builtins.type(type).__name__}")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'".replace("torch.", "ember."))
        info = np.iinfo(type.np_dtype) if type is not bool else None
        self.bits = type.itemsize * 8
        self.min = builtins.int(info.min) if info else 0
        self.max = builtins.int(info.max) if info else 1
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={_fmt(self.min)}, max={_fmt(self.max)}, dtype={self.dtype})"
