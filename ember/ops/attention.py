"""scaled_dot_product_attention, taking the two routes PyTorch's CPU build takes.

PyTorch's CPU dispatcher runs a fused "flash" kernel when it can (4-D inputs, no
dropout, equal head sizes, a 2-D or 4-D mask that needs no gradient, ...) and a
composite of ordinary ops otherwise. Users see the difference in `grad_fn`
(ScaledDotProductFlashAttentionForCpuBackward0 against UnsafeViewBackward0) and in
the random stream (only the composite draws a dropout mask), so ember makes the same
choice. The fused route is one node whose backward is written out by hand on the
arrays, through the attention weights saved in the forward: it is the hot path of
every small GPT. The composite route is built from ember ops exactly as PyTorch
composes it, with `_safe_softmax` (zeros for rows that are masked everywhere).
"""
import math

from . import _autocast
from .. import _arguments, _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, make_tensor
from ._elementwise import NotImplementedBackward
from ._scalar_ops import mul_scalar
from .combinatorics import repeat_interleave
from .creation import ones, zeros
from .linalg import matmul
from .nn_linear import dropout
from .nn_ops import _by_rows, _row_kernels, _row_max
from .pointwise_select import where

__all__ = ["scaled_dot_product_attention"]

_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype
_FLASH_DTYPES = (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.bfloat16)
_NEG_INF = float("-inf")
_FLASH_BACKWARD = "_scaled_dot_product_flash_attention_for_cpu_backward"
_SIGNATURE = ("(Tensor query, Tensor key, Tensor value, Tensor attn_mask = None, "
              "float dropout_p = 0.0, bool is_causal = False, *, float scale = None, "
              "bool enable_gqa = False)")
_OPTIONS = ("attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
_NUMBERS = (float, int)
_SCALES = (float, int, type(None))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, *, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value, with optional dropout on the weights."""
    if (is_causal.__class__ is not bool or enable_gqa.__class__ is not bool
            or dropout_p.__class__ not in _NUMBERS or scale.__class__ not in _SCALES):
        _refuse_arguments(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    if _autocast.on:  # on PyTorch's CPU lower-precision list
        return _autocast.lower_precision(scaled_dot_product_attention, query, key, value,
                                         attn_mask, dropout_p, is_causal, scale=scale,
                                         enable_gqa=enable_gqa)
    _validate(query, key, value, attn_mask)
    if query.numel() == 0 or key.numel() == 0 or value.numel() == 0:
        return _empty_attention(query, key, value)
    if _flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _flash_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)
    return _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale,
                           enable_gqa)


def _refuse_arguments(*args):
    """PyTorch's argument-parser TypeError for a call whose arguments fit no signature.
    The options after value are described as passed by keyword, their usual form (the
    parser's text then names no position)."""
    keywords = dict(zip(_OPTIONS, args[3:]))
    error = _arguments.explain_with("scaled_dot_product_attention", (_SIGNATURE,), args[:3],
                                    keywords)
    if error is not None:
        raise error


def _validate(query, key, value, attn_mask):
    if not (isinstance(query, Tensor) and isinstance(key, Tensor) and isinstance(value, Tensor)
            and (attn_mask is None or isinstance(attn_mask, Tensor))):
        _refuse_arguments(query, key, value, attn_mask, 0.0, False, None, False)
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_errors.cpp_type_name(query.dtype)} key.dtype: {_errors.cpp_type_name(key.dtype)} and value.dtype: "
            f"{_errors.cpp_type_name(value.dtype)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            f"instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dtype.bool, _dtype.float32,
                                                         query.dtype):
        raise RuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_errors.cpp_type_name(attn_mask.dtype)} and  query.dtype: "
            f"{_errors.cpp_type_name(query.dtype)} instead.")


def _flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa):
    """PyTorch's gate for its fused CPU kernel, condition for condition."""
    if dropout_p > 0.0 or query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return False
    qshape, kshape, vshape = query.shape, key.shape, value.shape
    if not qshape[0] == kshape[0] == vshape[0]:
        return False
    if enable_gqa:
        if kshape[1] != vshape[1] or qshape[1] % kshape[1]:
            return False
    elif not qshape[1] == kshape[1] == vshape[1]:
        return False
    if attn_mask is not None and not _mask_fits(attn_mask, qshape, kshape[2]):
        return False
    if not qshape[3] == kshape[3] == vshape[3]:
        return False
    if query.stride(-1) != 1 or key.stride(-1) != 1 or value.stride(-1) != 1:
        return False
    return query.dtype in _FLASH_DTYPES


def _mask_fits(mask, qshape, source):
    """Whether the fused kernel takes this mask: (L|1, S|1), or 4-D with batch and head
    sizes 1 or the query's. PyTorch reads its last two sizes first, so a mask of fewer
    dims raises here, and only on 4-D inputs."""
    ndim = mask.dim()
    if ndim == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    if ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                         "got -2)")
    if mask.requires_grad or mask.shape[-2] not in (qshape[2], 1):
        return False
    if mask.shape[-1] not in (source, 1):
        return False
    if ndim == 2:
        return True
    return ndim == 4 and mask.shape[0] in (1, qshape[0]) and mask.shape[1] in (1, qshape[1])


def _scale(query, scale):
    return 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)


# ---------------------------------------------------------------- the fused route
def _flash_attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    if dropout_p < 0.0:
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not "
                           "support dropout > 0")
    scale = _scale(query, scale)
    xp = query._device.xp
    dtype = query._data.dtype
    compute = _FLOAT32 if dtype in _REDUCED else dtype
    q, k, v = (t._data.astype(compute, copy=False) for t in (query, key, value))
    group = query.shape[1] // key.shape[1]
    if group > 1:  # grouped-query attention: key/value head h serves query heads h*g..h*g+g-1
        k, v = xp.repeat(k, group, axis=1), xp.repeat(v, group, axis=1)
    scores = q @ k.swapaxes(-1, -2)
    scores *= scale
    if attn_mask is not None:
        mask = attn_mask._data
        if mask.dtype == bool:
            xp.copyto(scores, _NEG_INF, where=~mask)
        else:
            scores += mask.astype(compute, copy=False)
    if is_causal:
        xp.copyto(scores, _NEG_INF, where=_above_diagonal(xp, *scores.shape[-2:]))
    weights = _softmax_rows(xp, scores)
    result = xp.empty_like(q)  # laid out as the query is (order "K"), as PyTorch's kernel
    xp.matmul(weights, v, out=result)
    out = make_tensor(result.astype(dtype, copy=False), query._device)
    if grad_state.enabled and (query._requires_grad or key._requires_grad
                               or value._requires_grad):
        node = ScaledDotProductFlashAttentionForCpuBackward0()
        node.save(query, key, value)
        node.weights, node.result, node.scale, node.group = weights, result, scale, group
        attach(out, node, query, key, value)
    return out


_CAUSAL = {}


def _above_diagonal(xp, length, source):
    """The entries a causal query may not see (j > i), kept per size: a GPT asks each step."""
    mask = _CAUSAL.get((xp, length, source))
    if mask is None:
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        mask = _CAUSAL[(xp, length, source)] = ~xp.tri(length, source, dtype=bool)
    return mask


def _softmax_rows(xp, scores):
    """Softmax over the last axis (in place, or a new array from the compiled kernels);
    a row masked everywhere gives zeros, not NaN.

    Large float32 scores take `_compiled.softmax_kernels` (one pass a row, PyTorch's
    softmax kernel replayed). Otherwise: a row's total is at least 1 (its maximum
    contributes exp(0)) unless every entry is -inf, when it is 0: raising totals to 1
    turns exactly those rows into zeros. Row sums go through a matrix-vector product,
    several times faster than NumPy's sum over a short last axis."""
    kernels = _row_kernels(scores, scores.ndim - 1)
    if kernels is not None:
        return _by_rows(kernels.softmax_forward, scores, flags=(True,))
    peak = _row_max(xp, scores)
    xp.maximum(peak, xp.finfo(scores.dtype).min, out=peak)  # -inf rows: no inf - inf
    scores -= peak
    xp.exp(scores, out=scores)
    total = scores @ xp.ones(scores.shape[-1], scores.dtype)
    xp.maximum(total, 1.0, out=total)
    scores /= total[..., None]
    return scores


class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    """With P the saved weights and dO the incoming gradient:
    dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)), dQ = s dS K, dK = s dS^T Q."""

    __slots__ = ("weights", "result", "scale", "group")

    def release(self):
        """The attention weights and output go with the saved tensors after backward."""
        Node.release(self)
        self.weights = self.result = None

    def backward(self, grad):
        query, key, value = self.saved_tensors
        xp = query._device.xp
        dtype = query._data.dtype
        compute = self.weights.dtype
        weights, scale, group = self.weights, self.scale, self.group
        q, k, v = (t._data.astype(compute, copy=False) for t in (query, key, value))
        if group > 1:
            k, v = xp.repeat(k, group, axis=1), xp.repeat(v, group, axis=1)
        g = grad._data.astype(compute, copy=False)
        grad_weights = g @ v.swapaxes(-1, -2)
        # rowsum(dP * P) equals rowsum(dO * O), which is the cheaper of the two
        grad_weights -= ((g * self.result) @ xp.ones(g.shape[-1], compute))[..., None]
        grad_weights *= weights
        grad_weights *= scale
        grad_query = grad_weights @ k
        grad_key = grad_weights.swapaxes(-1, -2) @ q
        grad_value = weights.swapaxes(-1, -2) @ g
        if group > 1:  # each key/value head gathers the gradients of the heads it served
            grad_key = _sum_groups(grad_key, group)
            grad_value = _sum_groups(grad_value, group)
        device = query._device
        grads = tuple(make_tensor(a.astype(dtype, copy=False), device)
                      for a in (grad_query, grad_key, grad_value))
        if grad_state.enabled and (grad._requires_grad or query._requires_grad
                                   or key._requires_grad or value._requires_grad):
            for result in grads:  # PyTorch has no double backward for this kernel
                attach(result, NotImplementedBackward(_FLASH_BACKWARD),
                       grad, query, key, value)
        return grads


def _sum_groups(array, group):
    shape = array.shape
    return array.reshape(shape[0], shape[1] // group, group, *shape[2:]).sum(axis=2)


# ---------------------------------------------------------------- the composite route
def _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """PyTorch's composite: scale q and k by sqrt(scale) each, matmul, add the mask,
    _safe_softmax, dropout, matmul. float16/bfloat16 run in float32 and are cast back."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found "
                           f"{_errors.scalar_type_name(query.dtype)}")
    if dropout_p > 1.0:  # at::dropout's check, with C++'s shortest number format
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got "
                           f"{dropout_p:g}")
    original = query.dtype
    if original in (_dtype.float16, _dtype.bfloat16):
        query, key, value = query.float(), key.float(), value.float()
    scale = _scale(query, scale)
    root = math.sqrt(abs(scale))
    query = mul_scalar(query, -root if scale < 0 else root)
    if is_causal:
        causal = ones((query.shape[-2], key.shape[-2]), dtype=_dtype.bool,
                      device=query.device).tril()
        attn_mask = _additive_mask(causal, query.dtype)
    elif attn_mask is not None and attn_mask.dtype == _dtype.bool:
        attn_mask = _additive_mask(attn_mask, query.dtype)
    key, value = _expand_groups(query, key, value, enable_gqa)
    attn = matmul(query, mul_scalar(key.transpose(-2, -1), root))
    if attn_mask is not None:
        attn = attn.add_(attn_mask)  # in place, as PyTorch: a mask may not widen the scores
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    out = matmul(attn, value)
    return out if out.dtype == original else out.to(original)


def _additive_mask(mask, dtype):
    """A boolean mask (True: attend) as 0 / -inf in the query's dtype."""
    zero = zeros((), dtype=dtype, device=mask.device)
    return where(mask, zero, _NEG_INF)


def _expand_groups(query, key, value, enable_gqa):
    """Grouped-query attention: each key/value head repeated for the query heads it serves."""
    if not enable_gqa:
        return key, value
    heads, key_heads, value_heads = query.shape[-3], key.shape[-3], value.shape[-3]
    if heads % key_heads or heads % value_heads:
        raise RuntimeError("Number of heads in key and value must divide the number of "
                           "heads in ")
    if key_heads != heads:
        key = repeat_interleave(key, heads // key_heads, -3)
    if value_heads != heads:
        value = repeat_interleave(value, heads // value_heads, -3)
    return key, value


def _safe_softmax(input, dim):
    """softmax along `dim` that gives 0 (not NaN) where every entry of a row is -inf."""
    xp = input._device.xp
    dtype = input._data.dtype
    scores = input._data.astype(_FLOAT32 if dtype in _REDUCED else dtype)  # a fresh copy
    if dim not in (-1, scores.ndim - 1):
        scores = xp.moveaxis(scores, dim, -1)
    weights = _softmax_rows(xp, scores)
    if dim not in (-1, scores.ndim - 1):
        weights = xp.moveaxis(weights, -1, dim)
    out = make_tensor(weights.astype(dtype, copy=False), input._device)
    if grad_state.enabled and input._requires_grad:
        node = SafeSoftmaxBackward0()
        node.dim = dim
        node.save_output(out)
        attach(out, node, input)
    return out


class SafeSoftmaxBackward0(Node):
    """softmax's backward: y * (g - sum(g * y)); masked rows have y = 0, hence grad 0."""

    __slots__ = ("dim",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (result * (grad - (grad * result).sum(self.dim, keepdim=True)),)


def _empty_attention(query, key, value):
    """An empty problem: zeros of the output's shape, still connected to every input."""
    shape = tuple(query.shape[:-1]) + (value.shape[-1],)
    if query.dim() == 4 and key.dim() == 4 and value.dim() == 4:
        shape = (max(query.shape[0], key.shape[0]),) + shape[1:]
    out = zeros(shape, dtype=query.dtype, device=query.device)
    if grad_state.enabled and (query.requires_grad or key.requires_grad
                               or value.requires_grad):
        out = out + mul_scalar(query.sum() + key.sum() + value.sum(), 0.0)
    return out
