"""`out=`: PyTorch's rules for writing an op's result into a caller's tensor, in one place.

An op that takes `out=` calls `check_out` before computing (out= ops are not
differentiable, and the dtype must be the op's) and `write_out` after: an `out` of
another shape is resized, with PyTorch's deprecation warning when it held elements,
then the values are copied in and its version bumped.
"""
import warnings

from .. import _errors, return_types
from .. import _dtype
from .._dtype import can_cast
from .._arguments import typename
from .._tensor import Tensor as _Tensor, _Storage
from ..autograd.grad_mode import state as grad_state

__all__ = ["check_out", "write_out", "call", "namespace_door", "wire_linalg", "wire_special",
           "wire_where"]

_RESIZED = ("An output with one or more elements was resized since it had shape {}, which does "
            "not match the required output shape {}. This behavior is deprecated, and in a "
            "future PyTorch release outputs will not be resized unless they have zero elements. "
            "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
            "with t.resize_(0).")


def check_out(name, out, dtype, dtype_message, *inputs):
    """Refuse `out` before any work: it may not take part in autograd, and must hold `dtype`
    (`dtype_message` is the op's own wording of that error)."""
    if grad_state.enabled and (out._requires_grad or any(
            getattr(x, "_requires_grad", False) for x in inputs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if out.dtype is not dtype:
        raise RuntimeError(dtype_message)


def write_out(result, out, stacklevel=3, warn=True):
    """Copy `result`'s values into `out`, resizing `out` first when the shapes differ
    (the warning, unless not `warn`, points `stacklevel` frames up: the caller's line)."""
    data = result._data
    if out._data.shape != data.shape:
        if warn and out._data.size:
            warnings.warn(_RESIZED.format(_errors.shape_list(out._data.shape),
                                          _errors.shape_list(data.shape)), UserWarning,
                          stacklevel=stacklevel)
        version = out._storage.version
        out._data = out._device.xp.empty(data.shape, out._data.dtype)
        out._storage = _Storage(out._data)
        out._storage.version = version
        out._base = None
    if data.size:
        out._device.xp.copyto(out._data, data, casting="unsafe")
    out._storage.version += 1
    return out


# ---------------------------------------------------------------- the generic door's half
# Every ember.* function whose PyTorch signature takes `out` reaches `call` through its
# argument door (ember/_arguments.py) when a caller passes one; the op itself never sees
# `out`. PyTorch's families differ in how they judge out's dtype, named here by function.

# The aten name PyTorch's autograd message prints for an alias.
_ATEN = {"absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin",
         "arcsinh": "asinh", "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh",
         "clip": "clamp", "concat": "cat", "concatenate": "cat", "divide": "div",
         "true_divide": "div", "fix": "trunc", "multiply": "mul", "negative": "neg",
         "subtract": "sub", "row_stack": "vstack", "ger": "outer"}

# Ops that must write exactly their result's dtype ("Expected out tensor to have dtype").
_STRICT = frozenset({
    "mm", "bmm", "matmul", "mv", "inner", "addmm", "addmv", "baddbmm", "kron", "sort",
    "argsort", "msort", "topk", "max", "min", "softmax", "log_softmax", "argmax", "argmin",
    "take_along_dim", "aminmax", "diag", "tril", "triu", "cross", "inverse", "det",
    "slogdet", "cholesky", "qr", "svd", "triangular_solve", "cholesky_inverse",
    "cholesky_solve", "lu_unpack", "matrix_power", "searchsorted", "bucketize", "renorm",
    "histc", "quantile", "nanquantile", "index_add", "scatter", "scatter_add",
    "logcumsumexp"})

# Reductions whose result takes out's dtype when no dtype is given (sum(x, out=long)).
_TAKES_DTYPE = frozenset({"sum", "nansum", "prod", "cumsum", "cumprod"})

# Factories: the result is made in out's dtype.
_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "eye", "arange", "range",
                        "linspace", "logspace", "rand", "randn", "randint", "randperm",
                        "empty_strided", "scalar_tensor"})

# Ops whose result is never differentiable: PyTorch lets them write grad-requiring inputs'
# results into out.
_NO_GRAD = frozenset({"eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt",
                      "greater", "ge", "greater_equal", "logical_and", "logical_or",
                      "logical_xor", "logical_not", "isin", "isneginf", "isposinf",
                      "signbit", "argmax", "argmin", "bucketize", "searchsorted", "argsort",
                      "histc", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
                      "bitwise_left_shift", "bitwise_right_shift"})

# Ops that must write exactly their result's dtype and say so in words of their own
# ({have}/{want}: the result's and out's dtype as 'Float'; {name}: the function).
_SAME = "Found dtype {want} but expected {have}"
_OWN_WORDS = dict.fromkeys(
    ("abs", "absolute", "neg", "negative", "floor", "ceil", "round", "trunc", "fix", "frac",
     "sign", "sgn", "clamp", "clip", "clamp_min", "clamp_max", "bitwise_not"), _SAME)
_OWN_WORDS.update({
    "nan_to_num": "nan_to_num: dtype of out: {want} should be same as input: {have}",
    "amax": "Expected the dtype for input and out to match, but got {have} for input's dtype "
            "and {want} for out's dtype.",
    "take": "take(): self and out expected to have the same dtype, but got self.dtype = {have} "
            "and out.dtype = {want}",
    "dot": "result dtype {want} does not match input dtype {have}",
    "median": "Expected tensor for 'values' to have the same type as tensor for argument #2 "
              "'self'; but type ember.{want}Tensor does not equal ember.{have}Tensor (while "
              "checking arguments for median)",
    "kthvalue": "output values must be of same type as input",
    "cummax": "expected scalar_type {have} but found {want}"})
for _alias, _source in (("amin", "amax"), ("vdot", "dot"), ("nanmedian", "median"),
                        ("cummin", "cummax")):
    _OWN_WORDS[_alias] = _OWN_WORDS[_source]
_BOOL_ONLY = {"all": "{name} only supports bool tensor for result, got: {want}",
              "any": "{name} only supports bool tensor for result, got: {want}",
              "signbit": "{name} does not support non-boolean outputs.",
              "isposinf": "{name} does not support non-boolean outputs.",
              "isneginf": "{name} does not support non-boolean outputs."}

_NAMED_OUT = {}


def call(name, function, args, kwargs, out):
    """`name(*args, **kwargs, out=out)` with PyTorch's out= rules: checked before any work,
    computed as without `out`, then written into `out` (a tuple of tensors for an op that
    returns several), which is returned."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    factory = name in _FACTORIES
    if grad_state.enabled and name not in _NO_GRAD and _any_requires_grad(outs, args, kwargs):
        label = "aten::" + name if factory else _ATEN.get(name, name)
        if label == "vdot" and any(getattr(a, "ndim", 1) != 1 for a in args):
            label = "sum"  # linalg.vecdot is vdot for vectors only, a sum of products else
        raise RuntimeError(f"{label}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    wanted = outs[0].dtype
    if factory:
        dtype = kwargs.get("dtype")
        if dtype is not None and dtype is not wanted:
            raise RuntimeError(f"dtype {_short(dtype)} does not match dtype of out "
                               f"parameter ({_short(wanted)})")
        kwargs["dtype"] = wanted
    elif name in _TAKES_DTYPE and kwargs.get("dtype") is None:
        kwargs["dtype"] = wanted
    result = function(*args, **kwargs)
    results = tuple(result) if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"expected tuple of {len(results)} elements but got {len(outs)}")
    checks = list(enumerate(zip(results, outs)))
    if name in ("median", "nanmedian"):
        checks.reverse()  # PyTorch looks at the indices first
    for position, (value, target) in checks:
        _check_dtype(name, value.dtype, target.dtype, position)
    if factory:
        _write_factory(name, result, out)
        return out
    for value, target in zip(results, outs):
        write_out(value, target, 4)
        if name in _COMPOSITE and value._requires_grad and grad_state.enabled:
            target.copy_(value)  # a composite's out= is its copy_: the graph goes with it
    if isinstance(result, tuple):
        return _named_out(type(result))(*outs)
    return out


def _write_factory(name, result, out):
    """Factories resize `out` without the deprecation warning; the ranges (arange, range,
    linspace, logspace) keep out's shape when it holds as many elements (arange warns in its
    own words when it does not)."""
    size = result._data.size
    if name in ("arange", "range", "linspace", "logspace") and out._data.size == size:
        result = result.reshape(out._data.shape)
    elif name == "arange" and out._data.size:
        warnings.warn(f"The number of elements in the out tensor of shape "
                      f"{_errors.shape_list(out._data.shape)} is {out._data.size} which does "
                      f"not match the computed number of elements {size}. Note that this may "
                      "occur as a result of rounding error. The out tensor will be resized to "
                      f"a tensor of shape ({size},).", UserWarning, stacklevel=4)
    write_out(result, out, warn=False)


def _any_requires_grad(outs, args, kwargs):
    for value in (*outs, *args, *kwargs.values()):
        if getattr(value, "_requires_grad", False):
            return True
        if isinstance(value, (tuple, list)) and any(
                getattr(item, "_requires_grad", False) for item in value):
            return True
    return False


def _check_dtype(name, have, want, position):
    words = _BOOL_ONLY.get(name)
    if words is not None and want is not _dtype.bool:
        raise RuntimeError(words.format(name=name, want=_short(want)))
    if want is _dtype.bool and name in ("cumsum", "cumprod"):
        raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
    if name == "logsumexp" and want.category != _dtype.FLOATING:
        raise RuntimeError("logsumexp(): Expected floating point type for result tensor, "
                           f"but got: {_short(want)}")
    if have is want:
        return
    words = _CASTABLE.get(name)
    if words is not None and position == 0:
        if not can_cast(have, want):
            raise RuntimeError(words.format(have=_short(have), want=_short(want)))
        if name != "linalg_matrix_power":
            return
    words = _CPP_WORDS.get(name)
    if words is not None:
        raise RuntimeError(words.format(have=_errors.cpp_type_name(have),
                                        want=_errors.cpp_type_name(want)))
    words = _OWN_WORDS.get(name)
    if words is not None:
        if position == 1 and name == "kthvalue":
            raise RuntimeError("output indices must be of scalar type Long")
        if position == 1 and name in ("median", "nanmedian"):
            raise RuntimeError("Expected tensor for argument #1 'indices' to have scalar type "
                               f"Long; but got ember.{want.tensor_type} instead (while checking "
                               "arguments for median)")
        raise RuntimeError(words.format(have=_short(have), want=_short(want)))
    if name in _STRICT:
        raise RuntimeError(f"Expected out tensor to have dtype {_errors.cpp_type_name(have)}, "
                           f"but got {_errors.cpp_type_name(want)} instead")
    if not can_cast(have, want):
        if name in ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
                    "row_stack", "column_stack"):
            raise TypeError("torch.cat(): input types can't be cast to the desired output "
                            f"type {_short(want)}")
        raise RuntimeError(f"result type {_short(have)} can't be cast to the "
                           f"desired output type {_short(want)}")


def _short(dtype):
    """'Float', 'Long', ...: the ScalarType name PyTorch's out= messages print."""
    return dtype.tensor_type[:-len("Tensor")]


def _named_out(kind):
    """PyTorch returns `return_types.max_out` (same fields) for max(..., out=...)."""
    named = _NAMED_OUT.get(kind)
    if named is None:
        named = _NAMED_OUT[kind] = return_types._structseq(kind.__name__ + "_out", kind._fields)
    return named


# ---------------------------------------------------------------- torch.linalg, torch.special
# These namespaces (and `where`, whose parser ember's generated doors leave out) take
# `out` through `namespace_door`: PyTorch's parser refuses an `out` of the wrong kind
# (a tuple for one result, a tensor for several) before any work; then `call` runs under
# the aten name that PyTorch's autograd and dtype messages print.

# linalg function -> (results, aten name PyTorch's autograd refusal prints; None where
# the function is composite: it writes out through copy_, grad and all)
LINALG = {
    "matmul": (1, "matmul"), "matrix_norm": (1, None), "norm": (1, None),
    "vecdot": (1, "vdot"), "vector_norm": (1, "linalg_vector_norm"),
    "cholesky": (1, "linalg_cholesky_ex"), "cholesky_ex": (2, "linalg_cholesky_ex"),
    "cond": (1, None), "cross": (1, "linalg_cross"), "det": (1, "_linalg_det"),
    "eigh": (2, "_linalg_eigh"), "eigvalsh": (1, "_linalg_eigh"),
    "inv": (1, "linalg_inv_ex"), "inv_ex": (2, "linalg_inv_ex"),
    "lstsq": (4, "linalg_lstsq"), "lu": (3, "linalg_lu"),
    "lu_factor": (2, "linalg_lu_factor_ex"), "lu_factor_ex": (3, "linalg_lu_factor_ex"),
    "lu_solve": (1, "linalg_lu_solve"), "matrix_power": (1, "matmul"),
    "matrix_rank": (1, None), "multi_dot": (1, None), "pinv": (1, "linalg_pinv"),
    "qr": (2, "linalg_qr"), "slogdet": (2, "_linalg_slogdet"),
    "solve": (1, "_linalg_solve_ex"), "solve_ex": (2, "_linalg_solve_ex"),
    "solve_triangular": (1, "linalg_solve_triangular"), "svd": (3, "_linalg_svd"),
    "svdvals": (1, "_linalg_svd")}

# special function -> the aten name its out= runs under (its autograd refusal, its dtype
# rule); the ones named special_* have no top-level twin
SPECIAL = {
    "bessel_j0": "special_bessel_j0", "bessel_j1": "special_bessel_j1",
    "digamma": "digamma", "psi": "digamma", "entr": "special_entr", "erf": "erf",
    "erfc": "erfc", "erfcx": "special_erfcx", "erfinv": "erfinv", "exp2": "exp2",
    "expit": "sigmoid", "expm1": "expm1", "gammainc": "igamma", "gammaincc": "igammac",
    "gammaln": "lgamma", "i0": "i0", "i0e": "special_i0e", "i1": "special_i1",
    "i1e": "special_i1e", "log1p": "log1p", "log_ndtr": "special_log_ndtr", "logit": "logit",
    "logsumexp": "logsumexp", "multigammaln": "mvlgamma", "ndtr": "special_ndtr",
    "ndtri": "special_ndtri", "polygamma": "polygamma", "round": "round", "sinc": "sinc",
    "xlog1py": "special_xlog1py", "xlogy": "xlogy", "zeta": "special_zeta"}

# Composite functions: their out= is a copy_ of the result (CopyBackwards when it has grad)
_COMPOSITE = frozenset({"linalg_matrix_norm", "linalg_norm", "linalg_cond",
                        "linalg_matrix_rank", "linalg_multi_dot", "special_ndtr"})
_NO_GRAD |= {"special_bessel_j0", "special_bessel_j1"} | _COMPOSITE
_ATEN.update({"linalg_" + name: aten for name, (_, aten) in LINALG.items() if aten})
_STRICT |= {"linalg_" + name for name in (
    "matmul", "vector_norm", "cholesky", "cholesky_ex", "cross", "det", "eigh", "eigvalsh",
    "inv", "inv_ex", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "qr", "slogdet", "solve",
    "solve_ex", "svd", "svdvals", "matrix_power")}
_OWN_WORDS.update({
    "linalg_matrix_norm": "linalg.matrix_norm expected out tensor dtype {have} but got: {want}",
    "linalg_norm": "linalg.norm expected out tensor dtype {have} but got: {want}",
    "linalg_vecdot": "linalg.vecdot: Expected out of dtype{have} but found {want}",
    "linalg_solve_triangular": "expected scalar type {have} but found {want}",
    "where": "Expected out type to be {have} but got {want}"})
# ... and the ones that only ask that the result cast safely, in words of their own
_CASTABLE = {"linalg_cond": "linalg.cond: Expected result to be safely castable from {have} "
                            "dtype, but got result with dtype {want}",
             "linalg_pinv": "linalg.pinv: Expected result to be safely castable from {have} "
                            "dtype, but got result with dtype {want}",
             "linalg_lstsq": "torch.linalg.lstsq: Expected solution to be safely castable from "
                             "{have} dtype, but got solution with dtype {want}",
             "linalg_matrix_power": "matrix_power: Expected result to be safely castable from "
                                    "{have} dtype, but got result with dtype {want}",
             "mvlgamma": "mvlgamma: result type {have} can't be cast to the desired output "
                         "type {have}"}
_CPP_WORDS = {"linalg_multi_dot": "multi_dot(): expected out tensor to have dtype {have} but "
                                  "got {want}"}


def namespace_door(name, function, results=1, parsed_as=None):
    """`function` taking PyTorch's keyword `out`, handled by `call` under `name`;
    `parsed_as` is the name PyTorch's parser prints (`linalg_inv`)."""
    parsed_as = parsed_as or name

    def wrapped(*args, out=None, **kwargs):
        if out is None:
            return function(*args, **kwargs)
        _check_out_kind(parsed_as, out, results)
        return call(name, function, args, kwargs, out)

    wrapped.__name__, wrapped.__qualname__ = function.__name__, function.__qualname__
    wrapped.__doc__, wrapped.__wrapped__ = function.__doc__, function
    wrapped.__module__ = function.__module__
    return wrapped


def wire_linalg(namespace):
    for short, (results, _) in LINALG.items():
        namespace[short] = namespace_door("linalg_" + short, namespace[short], results)


def wire_special(namespace):
    for short, aten in SPECIAL.items():
        namespace[short] = namespace_door(aten, namespace[short], 1, "special_" + short)


def _check_out_kind(parsed_as, out, results):
    if results == 1:
        if not isinstance(out, _Tensor):
            raise TypeError(f"{parsed_as}(): argument 'out' must be Tensor, not "
                            f"{typename(out)}")
    elif not isinstance(out, (tuple, list)) or not all(isinstance(t, _Tensor) for t in out):
        raise TypeError(f"{parsed_as}(): argument 'out' must be tuple of Tensors, not "
                        f"{typename(out)}")


def wire_where(namespace):
    """`where(condition, input, other, out=...)`: only the all-tensor form takes `out`."""
    function = namespace["where"]

    def where(condition, input=None, other=None, *, out=None):
        if out is None:
            return function(condition, input, other)
        for position, (label, value) in enumerate(
                (("condition", condition), ("input", input), ("other", other)), 1):
            if not isinstance(value, _Tensor):
                raise TypeError(f"where(): argument '{label}' (position {position}) must be "
                                f"Tensor, not {typename(value)}")
        _check_out_kind("where", out, 1)
        return call("where", function, (condition, input, other), {}, out)

    where.__doc__, where.__wrapped__, where.__module__ = \
        function.__doc__, function, function.__module__
    namespace["where"] = where
