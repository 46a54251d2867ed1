"""nn.MultiheadAttention, PyTorch's attention layer (exported from nn.modules.activation).

Its parameters, their names and their registration order are PyTorch's, and so is the
order of the random draws at construction (out_proj's own Linear initialisation, then
xavier_uniform_ on the input projections, xavier_normal_ on bias_k and bias_v), so a
seed gives torch's weights. In eval mode without autograd PyTorch takes a fused "fast
path" for self-attention whose fully masked rows give NaN even without weights; ember
computes that case through the explicit-weights route, which gives the same values.
"""
from ...autograd.grad_mode import state as _grad_state
from ...ops.attention_mha import (_canonical_mask, _none_or_dtype,
                                  multi_head_attention_forward)
from ...ops.creation import empty
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module, _store_options

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention over `num_heads` heads of size embed_dim // num_heads, with learned input
    and output projections (Vaswani et al., "Attention Is All You Need")."""

    __constants__ = ["batch_first"]
    __module__ = "ember.nn.modules.activation"  # where PyTorch defines it

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        options = {"device": device, "dtype": dtype}
        super().__init__()
        kdim = embed_dim if kdim is None else kdim
        vdim = embed_dim if vdim is None else vdim
        _store_options(self, embed_dim=embed_dim, kdim=kdim, vdim=vdim,
                       _qkv_same_embed_dim=(kdim == vdim == embed_dim), num_heads=num_heads,
                       dropout=dropout, batch_first=batch_first,
                       head_dim=embed_dim // num_heads)
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **options))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **options))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **options))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **options))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **options))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **options)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **options))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **options))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """Xavier-uniform projections, zero biases, Xavier-normal bias_k/bias_v."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                init.xavier_normal_(extra)

    def __setstate__(self, state):
        state.setdefault("_qkv_same_embed_dim", True)  # pickles from before kdim/vdim
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """(output, weights or None); inputs (L, N, E), (N, L, E) with batch_first, or
        unbatched (L, E)."""
        float_masks = ((attn_mask is not None and attn_mask.dtype.is_floating_point)
                       or (key_padding_mask is not None
                           and key_padding_mask.dtype.is_floating_point))
        batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        fast = not float_masks and batched and self._takes_fast_path(query, key, value)
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query = query.transpose(1, 0)
                    key = value = key.transpose(1, 0)
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights or fast,
            attn_mask=attn_mask, use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal and not fast)
        if fast and not need_weights:
            weights = None
        if self.batch_first and batched:
            output = output.transpose(1, 0)
        return output, weights

    def _takes_fast_path(self, query, key, value):
        """PyTorch's conditions for its fused inference kernel (self-attention, eval mode,
        no autograd, even head count, packed projections with bias, ...)."""
        if query is not key or key is not value or self.training or not self.batch_first:
            return False
        if self.in_proj_weight is None or self.in_proj_bias is None:
            return False
        if query.dtype != self.in_proj_weight.dtype or query.dtype != self.in_proj_bias.dtype:
            return False
        if self.num_heads % 2 or self.bias_k is not None or self.bias_v is not None:
            return False
        if self.add_zero_attn:
            return False
        tensors = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
                   self.out_proj.bias)
        return not (_grad_state.enabled and any(t.requires_grad for t in tensors))
