"""torch.masked's functional reductions and normalizations on strided tensors.

Every op follows one rule (PyTorch's masked-reduction RFC): the masked-out elements
are replaced by the operation's identity (0 for sums, 1 for products, -inf for amax
and logsumexp, +inf for amin, nan for median, which then runs as nanmedian), and the
ordinary op runs on the result. Mean, var and std count the masked-in elements
instead, so a fully masked-out slice gives nan. The mask broadcasts to the input and
is read as bool. All arithmetic is ember ops (where, sum, ...), so gradients and
grad_fn names come out as PyTorch's.
"""
import math

from .. import _dtype
from ..ops.creation import ones, tensor
from ..ops.cumulative import cumsum as _cumsum, cumprod as _cumprod
from ..ops.nn_activation import log_softmax as _log_softmax, softmax as _softmax, \
    softmin as _softmin
from ..ops.norms import vector_norm
from ..ops.pointwise import divide, subtract
from ..ops.pointwise_binary import logaddexp as _logaddexp
from ..ops.pointwise_math import sqrt
from ..ops.pointwise_select import maximum, where
from ..ops.reduction import logsumexp as _logsumexp, sum as _sum
from ..ops.sorting import amax as _amax, amin as _amin, argmax as _argmax, argmin as _argmin
from ..ops.sorting_more import nanmedian
from ..ops.views import broadcast_to

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean",
           "median", "norm", "var", "std", "logsumexp", "logaddexp", "softmax", "log_softmax",
           "softmin", "normalize"]

_WIDENED = ("uint8", "bool", "int8", "int16", "int32")


def _canonical_dims(dim, ndim):
    """dim as a sorted tuple of non-negative dims; None (or ()) means all of them."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    seen = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in seen:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if not -ndim <= d < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        seen.append(d % ndim)
    return tuple(sorted(seen))


def _input_mask(input, mask):
    """The mask broadcast to input's shape, as bool."""
    if tuple(mask.shape) != tuple(input.shape):
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=_dtype.bool)


def _identity(kind, input, ord=2):
    """The value that leaves the reduction `kind` unchanged, in input's dtype."""
    dtype = input.dtype
    if kind in ("sum", "norm") and not (kind == "norm" and ord == -math.inf):
        value = 0
    elif kind == "prod":
        value = 1
    elif kind in ("max", "min", "norm"):
        high = kind == "min" or kind == "norm"
        if dtype.is_floating_point:
            value = math.inf if high else -math.inf
        else:
            info = _dtype.iinfo(dtype)
            value = info.max if high else info.min
    else:  # median: nan, which nanmedian skips
        return tensor(math.nan, dtype=dtype if dtype.is_floating_point else _dtype.float32)
    return tensor(value, dtype=dtype, device=input.device)


def _filled(kind, input, mask, ord=2):
    """input with masked-out elements replaced by the identity of `kind`."""
    data, given = _unwrap(input, mask)
    if given is None:
        return data
    return where(_input_mask(data, given), data, _identity(kind, data, ord))


def _unwrap(input, mask):
    """(data, mask): a MaskedTensor brings its own mask."""
    if getattr(input, "_masked_data", None) is not None:
        return input._masked_data, input._masked_mask
    return input, mask


def _integer_wide(input, dtype):
    if dtype is None:
        return _dtype.int64 if input.dtype.name in _WIDENED else input.dtype
    return dtype


# ---------------------------------------------------------------- reductions
def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the masked-in elements (0 where none)."""
    dtype = _integer_wide(input, dtype)
    dims = _canonical_dims(dim, input.dim())
    return _sum(_filled("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the masked-in elements (1 where none), one dim at a time from the last."""
    dtype = _integer_wide(input, dtype)
    result = _filled("prod", input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dims(dim, input.dim())):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _cumsum(_filled("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _cumprod(_filled("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("max", input, mask)
    return _amax(filled, _canonical_dims(dim, filled.dim()), bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("min", input, mask)
    return _amin(filled, _canonical_dims(dim, filled.dim()), bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _argmax(_filled("max", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _argmin(_filled("min", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def _count_and_total(input, dim, keepdim, dtype, mask):
    """(number of masked-in elements, their sum) over dim."""
    if mask is None:
        count = sum(ones(input.shape, dtype=_dtype.int64, device=input.device), dim,
                    keepdim=keepdim)
        return count, sum(input, dim, keepdim=keepdim, dtype=dtype), None
    inmask = _input_mask(input, mask)
    count = inmask.sum(dim=dim, keepdim=bool(keepdim))
    return count, sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask), inmask


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum over count of the masked-in elements (nan where none)."""
    input, mask = _unwrap(input, mask)
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not dtype.is_floating_point:
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    count, total, _ = _count_and_total(input, dim, keepdim, dtype, mask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """nanmedian of the input with masked-out elements made nan."""
    input, mask = _unwrap(input, mask)
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    floating = input.dtype.is_floating_point
    if not floating:
        input = input.to(dtype=_dtype.float32)
    result = nanmedian(_filled("median", input, mask), d, keepdim).values
    if floating:
        return result
    if result.isnan().any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return result.to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """vector_norm of the masked-in elements (masked-out ones count as 0; +inf for -inf)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("norm", input, mask, ord)
    return vector_norm(filled, ord, _canonical_dims(dim, input.dim()),
                                    bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, root):
    input, mask = _unwrap(input, mask)
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    offset = 1.0 if unbiased is None else (1.0 if unbiased else 0.0)
    if correction is not None:
        offset = float(correction)
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else _dtype.float32
    compute = dtype if dtype.is_floating_point else _dtype.float32
    count, total, inmask = _count_and_total(input, dim, True, dtype, mask)
    centered = subtract(input, divide(total, count))
    squares = sum(centered * centered.conj(), dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(squares.shape)
    if offset != 0:
        count = subtract(count.to(compute), offset)
        count = maximum(count, count.new_zeros([]))
    result = divide(squares, count).to(dtype=dtype)
    return sqrt(result) if root else result


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the masked-in elements, with Bessel's correction unless told."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dims(dim, input.dim())
    return _logsumexp(_filled("max", input, mask), dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _logaddexp(_filled("max", input, input_mask),
                           _filled("max", other, other_mask)).to(dtype=dtype)


# ---------------------------------------------------------------- normalizations
def softmax(input, dim, *, dtype=None, mask=None):
    """softmax over the masked-in elements (masked-out ones get 0)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _softmax(_filled("max", input, mask), d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _log_softmax(_filled("max", input, mask), d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _softmin(_filled("min", input, mask), d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input over its masked norm along dim (at least eps); masked-out elements give 0."""
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("sum", input, mask)
    size = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return divide(filled, maximum(size, size.new_full([], eps)))
