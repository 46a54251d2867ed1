"""multi_head_attention_forward: nn.MultiheadAttention's computation as a function.

Inputs are sequence-first, (L, N, E) or unbatched (L, E). Masks are made additive
(bool True means "masked out", the opposite of scaled_dot_product_attention's
convention) and merged into one (N * heads, L, S) mask. When the caller wants the
attention weights, they are formed explicitly (baddbmm, softmax, dropout, bmm) as
PyTorch does, so a row masked everywhere gives NaN; otherwise the heads go through
scaled_dot_product_attention, whose fused route gives zeros for such rows.
"""
import math
import warnings

from .. import _dtype
from .attention import scaled_dot_product_attention
from .creation import zeros, zeros_like
from .joining import cat
from .linalg import baddbmm, bmm
from .nn_linear import dropout, linear
from .nn_ops import softmax
from .nn_resize import pad

__all__ = ["multi_head_attention_forward"]


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Project query/key/value, attend with `num_heads` heads, project the result back."""
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:  # work on a batch of one, and drop it again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer purely causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, "
                             f"but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        q, k, v = _project_separately(query, key, value, q_proj_weight, k_proj_weight,
                                      v_proj_weight, in_proj_bias)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _project_packed(query, key, value, in_proj_weight, in_proj_bias)
    heads = bsz * num_heads
    attn_mask = _mask_as_3d(attn_mask, tgt_len, src_len, heads)
    if (bias_k is None) != (bias_v is None):
        present, missing = ("bias_k", "bias_v") if bias_v is None else ("bias_v", "bias_k")
        raise AssertionError(f"{present} is set but {missing} is None")
    if bias_k is not None:  # one learned key/value more, shared by the whole batch
        for name, static in (("key", static_k), ("value", static_v)):
            if static is not None:
                raise AssertionError(f"bias cannot be added to static {name}.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _one_more_key(attn_mask, key_padding_mask)
    q = q.view(tgt_len, heads, head_dim).transpose(0, 1)
    k = _split_heads(k, static_k, "static_k", heads, head_dim)
    v = _split_heads(v, static_v, "static_v", heads, head_dim)
    if add_zero_attn:  # one extra all-zero key and value every query may attend to
        k = cat([k, zeros((heads, 1, head_dim), dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros((heads, 1, head_dim), dtype=v.dtype, device=v.device)], dim=1)
        attn_mask, key_padding_mask = _one_more_key(attn_mask, key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    if not training:
        dropout_p = 0.0
    if need_weights:
        output, weights = _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal,
                                               num_heads)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    else:
        output, weights = _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, bsz,
                                        num_heads), None
    output = linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not batched:
        output = output.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return output, weights


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the call is batched; PyTorch's AssertionErrors for inconsistent ranks."""
    ndim = query.dim()
    if ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{ndim}-D query tensor")
    kind = "batched (3-D)" if ndim == 3 else "unbatched (2-D)"
    if key.dim() != ndim or value.dim() != ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {ndim}-D "
                             f"but found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{ndim - 1}-D but found {key_padding_mask.dim()}-D tensor "
                             f"instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        if ndim == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
    return ndim == 3


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as an additive float mask (True -> -inf) in `target_type`; float masks
    pass through. A bool/float mismatch with the other mask is deprecated, not refused."""
    if mask is None:
        return None
    floating = mask.dtype.is_floating_point
    if mask.dtype != _dtype.bool and not floating:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      f"same type for both instead.", stacklevel=2)
    if floating:
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def _none_or_dtype(input):
    if input is None:
        return None
    if hasattr(input, "dtype") and hasattr(input, "grad_fn"):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _project_packed(query, key, value, weight, bias):
    """q, k, v through one (3E, E) weight: one matrix product when they are one tensor."""
    width = query.size(-1)
    if key is value and query is key:
        packed = _leading_parts(linear(query, weight, bias), 3, width)
        return packed[0], packed[1], packed[2]
    if key is value:
        weight_q, weight_kv = weight.split([width, 2 * width])
        bias_q, bias_kv = (None, None) if bias is None else bias.split([width, 2 * width])
        pair = _leading_parts(linear(key, weight_kv, bias_kv), 2, width)
        return linear(query, weight_q, bias_q), pair[0], pair[1]
    weights = weight.chunk(3)
    biases = (None, None, None) if bias is None else bias.chunk(3)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _leading_parts(projected, parts, width):
    """(..., parts * width) -> (parts, ..., width), contiguous, through the same view ops
    PyTorch uses, so the recorded graph is the same."""
    split = projected.unflatten(-1, (parts, width)).unsqueeze(0)
    return split.transpose(0, -2).squeeze(-2).contiguous()


def _project_separately(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                        in_proj_bias):
    """q, k, v through their own weights, (E, E), (E, kdim) and (E, vdim)."""
    for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
        if weight is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 f"None")
    biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    width = query.size(-1)
    checks = (("query", query, q_proj_weight), ("key", key, k_proj_weight),
              ("value", value, v_proj_weight))
    for name, x, weight in checks:
        if weight.shape != (width, x.size(-1)):
            raise AssertionError(f"expecting {name} weights shape of {(width, x.size(-1))}, "
                                 f"but got {weight.shape}")
    for (name, _, _), bias in zip(checks, biases):
        if bias is not None and bias.shape != (width,):
            raise AssertionError(f"expecting {name} bias shape of {(width,)}, but got "
                                 f"{bias.shape}")
    return tuple(linear(x, w, b) for (_, x, w), b in zip(checks, biases))


def _mask_as_3d(attn_mask, tgt_len, src_len, heads):
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        if attn_mask.shape != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if attn_mask.shape != (heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _one_more_key(attn_mask, key_padding_mask):
    """Masks widened by one unmasked column for an appended key (bias_k or zero attention)."""
    return tuple(None if mask is None else pad(mask, (0, 1))
                 for mask in (attn_mask, key_padding_mask))


def _split_heads(projected, static, name, heads, head_dim):
    """(S, N, E) -> (N * heads, S, head_dim), or the caller's precomputed `static` tensor."""
    if static is None:
        return projected.view(projected.shape[0], heads, head_dim).transpose(0, 1)
    if static.size(0) != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len):
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")
    padding = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
               .reshape(bsz * num_heads, 1, src_len))
    return padding if attn_mask is None else attn_mask + padding


def _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal, num_heads):
    """Explicit weights, (N * heads, L, S), and the (L * N, E) output they give."""
    tgt_len, heads, head_dim = q.shape[1], q.shape[0], q.shape[2]
    q = q * math.sqrt(1.0 / float(head_dim))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is None:
        weights = bmm(q, k.transpose(-2, -1))
    else:
        weights = baddbmm(attn_mask, q, k.transpose(-2, -1))
    weights = softmax(weights, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    output = bmm(weights, v)
    bsz = heads // num_heads
    output = output.transpose(0, 1).reshape(tgt_len * bsz, num_heads * head_dim)
    return output, weights


def _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, bsz, num_heads):
    """The heads as (N, heads, L, head_dim) through scaled_dot_product_attention."""
    tgt_len, head_dim = q.shape[1], q.shape[2]
    if attn_mask is not None:
        # a mask shared by every head and batch element stays broadcastable: (1, 1, L, S)
        shared = attn_mask.dim() == 3 and attn_mask.shape[0] == 1
        attn_mask = attn_mask[None] if shared else attn_mask.view(bsz, num_heads, -1,
                                                                  attn_mask.shape[-1])
    per_head = (bsz, num_heads, -1, head_dim)
    output = scaled_dot_product_attention(q.view(per_head), k.view(per_head), v.view(per_head),
                                          attn_mask, dropout_p, is_causal)
    return output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, num_heads * head_dim)
