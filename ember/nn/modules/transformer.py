"""nn.Transformer and its encoder/decoder stacks and layers (Vaswani et al., 2017).

The layers are MultiheadAttention, a two-Linear feed-forward block, LayerNorms and
Dropouts, registered in PyTorch's order so that a seed gives PyTorch's weights and a
training step draws PyTorch's dropout masks. PyTorch's CPU build has two inference
shortcuts whose results users can see, and ember reproduces what they show rather than
how they run:
- an encoder layer in eval mode without autograd (batch_first, packed projections with
  bias, an even head count, ...) runs a fused kernel: it ignores the is_causal hint and a
  query row whose keys are all masked comes out NaN (the explicit-weights softmax);
- an encoder stack given a left-aligned key padding mask under the same conditions packs
  the batch into a nested tensor, so padded positions come out as zeros.
"""
import copy
import warnings

from ...autograd.grad_mode import state as _grad_state
from ...ops.attention_mha import _canonical_mask, _none_or_dtype
from ...ops.creation import full
from ...ops.ranges import arange
from .. import functional as F
from ..init import xavier_uniform_
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module, _store_options
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]

_NESTED_WARNING = (
    "The PyTorch API of nested tensors is in prototype stage and will change in the near "
    "future. We recommend specifying layout=torch.jagged when constructing a nested tensor, "
    "as this layout receives active development, has better operator coverage, and works "
    "with torch.compile. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/NestedTensorImpl.cpp:177.)")
_nested_warned = [False]  # PyTorch gives this warning once per process


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """-inf above the diagonal, 0 on and below it (True above it for a bool dtype)."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """The is_causal hint as given; without one, whether `mask` equals the causal mask."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = _generate_square_subsequent_mask(size if size is not None else mask.size(-2),
                                              device=mask.device, dtype=mask.dtype)
    return mask.shape == causal.shape and bool((mask == causal).all())


def _get_clones(module, N):
    """N independent deep copies: the stacked layers start equal but share nothing."""
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _requires_grad(tensors):
    return _grad_state.enabled and any(t is not None and t.requires_grad for t in tensors)


class Transformer(Module):
    """An encoder stack over `src` and a decoder stack over `tgt` attending to it."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        options = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*layer_args, **options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*layer_args, **options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        _store_options(self, d_model=d_model, nhead=nhead, batch_first=batch_first)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode `src` into a memory, then decode `tgt` against it."""
        batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if src.size(batch_dim) != tgt.size(batch_dim) and batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A causal (sz, sz) float mask: -inf where a position would see its future."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        """Xavier-uniform on every matrix, after the layers' own initialisation."""
        for parameter in self.parameters():
            if parameter.dim() > 1:
                xavier_uniform_(parameter)


class TransformerEncoder(Module):
    """`num_layers` copies of an encoder layer applied in turn, then an optional norm."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.norm = norm
        why_not = _why_not_nested(encoder_layer) if enable_nested_tensor else ""
        if why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why_not}", stacklevel=2)
        _store_options(self, num_layers=num_layers, enable_nested_tensor=enable_nested_tensor,
                       use_nested_tensor=enable_nested_tensor and not why_not,
                       mask_check=mask_check)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Run the layers; with a causal `mask` (or the hint) each layer attends causally."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(mask), "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        padded = None
        if mask is None and src_key_padding_mask is not None:
            padding = src_key_padding_mask != 0  # what PyTorch's logical_not() leaves out
            if self._packs_nested(src, padding):
                # a nested tensor keeps each row's first (number of kept) positions, which
                # are the kept ones when the padding is left-aligned (as mask_check checks)
                kept = (~padding).sum(1, keepdim=True)
                padded = arange(padding.size(1), device=src.device) >= kept
                src_key_padding_mask = _canonical_mask(padded, "src_key_padding_mask", None,
                                                       "", src.dtype)
                if not _nested_warned[0]:
                    _nested_warned[0] = True
                    warnings.warn(_NESTED_WARNING, UserWarning)
        first = self.layers[0]
        is_causal = _detect_is_causal_mask(mask, is_causal,
                                           _get_seq_len(src, first.self_attn.batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if padded is not None:  # a nested tensor padded back: zeros past each length
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        return output if self.norm is None else self.norm(output)

    def _packs_nested(self, src, padding):
        """PyTorch's conditions for packing the batch into a nested tensor."""
        first = self.layers[0]
        if not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3:
            return False
        if getattr(self, "mask_check", True) and not _left_aligned(padding):
            return False
        return not _requires_grad((src, *first._fast_path_tensors()))


def _left_aligned(padded):
    """Each row: kept positions first, padding after (no kept position after a pad)."""
    return not bool((padded[:, :-1] & ~padded[:, 1:]).any())


def _why_not_nested(layer):
    """Why an encoder built from `layer` cannot use nested tensors ('' when it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better "
                f"inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerDecoder(Module):
    """`num_layers` copies of a decoder layer applied in turn, then an optional norm."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.norm = norm
        _store_options(self, num_layers=num_layers)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Run the layers over `tgt`, each attending to the same `memory`."""
        tgt_is_causal = _detect_is_causal_mask(
            tgt_mask, tgt_is_causal, _get_seq_len(tgt, self.layers[0].self_attn.batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm
    (after the residual sum, or before the block with norm_first)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        options = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **options)
        _feed_forward(self, d_model, dim_feedforward, dropout, bias, options)
        _norms_and_dropouts(self, 2, norm_first, d_model, layer_norm_eps, bias, dropout, options)
        activation = _get_activation_fn(activation) if isinstance(activation, str) else activation
        self.activation_relu_or_gelu = _fused_activation_code(activation)
        self.activation = activation

    def __setstate__(self, state):
        state.setdefault("activation", F.relu)  # pickles from before the option existed
        super().__setstate__(state)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """One encoder layer over (S, N, E), (N, S, E) with batch_first, or (S, E)."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype,
                                   check_other=False)
        if self._takes_fast_path(src):
            return self._fused_forward(src, src_mask, src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask,
                                   is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask,
                                              is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _fused_forward(self, src, src_mask, src_key_padding_mask):
        """What PyTorch's fused inference kernel gives: its masked softmax reads every
        nonzero mask value as "masked out" and ignores the is_causal hint, and a row with
        every key masked comes out NaN (as the explicit-weights softmax gives)."""
        src_mask, src_key_padding_mask = (
            None if mask is None else _canonical_mask(mask != 0, "", None, "", src.dtype)
            for mask in (src_mask, src_key_padding_mask))

        def attend(x):
            return self.self_attn(x, x, x, attn_mask=src_mask,
                                  key_padding_mask=src_key_padding_mask, need_weights=True)[0]
        x = src
        if self.norm_first:
            x = x + attend(self.norm1(x))
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + attend(x))
        return self.norm2(x + self._ff_block(x))

    def _fast_path_tensors(self):
        attn = self.self_attn
        return (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                attn.out_proj.bias, self.norm1.weight, self.norm1.bias, self.norm2.weight,
                self.norm2.bias, self.linear1.weight, self.linear1.bias, self.linear2.weight,
                self.linear2.bias)

    def _takes_fast_path(self, src):
        """PyTorch's conditions for its fused encoder-layer kernel, in its order."""
        attn = self.self_attn
        if src.dim() != 3 or self.training or not attn.batch_first:
            return False
        if attn.in_proj_bias is None or not attn._qkv_same_embed_dim:
            return False
        if not self.activation_relu_or_gelu or self.norm1.eps != self.norm2.eps:
            return False
        if attn.num_heads % 2 == 1:
            return False
        if any(m._forward_hooks or m._forward_pre_hooks for m in self.modules()):
            return False
        return not _requires_grad((src, *self._fast_path_tensors()))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        hidden = self.dropout(self.activation(self.linear1(x)))
        return self.dropout2(self.linear2(hidden))


def _feed_forward(layer, d_model, dim_feedforward, dropout, bias, options):
    """linear1, dropout, linear2: registered between the attention and the norms."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)


def _norms_and_dropouts(layer, count, norm_first, d_model, eps, bias, dropout, options):
    """norm1..normN then dropout1..dropoutN, in PyTorch's registration order."""
    layer.norm_first = norm_first
    for i in range(1, count + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, **options))
    for i in range(1, count + 1):
        setattr(layer, f"dropout{i}", Dropout(dropout))


def _fused_activation_code(activation):
    """1 for relu, 2 for gelu, 0 for anything else: the fused kernels know only two."""
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


class TransformerDecoderLayer(Module):
    """Self-attention over the target, attention to the encoder's memory, then a
    feed-forward block; each with a residual and a LayerNorm."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        options = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **options)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **options)
        _feed_forward(self, d_model, dim_feedforward, dropout, bias, options)
        _norms_and_dropouts(self, 3, norm_first, d_model, layer_norm_eps, bias, dropout, options)
        self.activation = (_get_activation_fn(activation) if isinstance(activation, str)
                           else activation)

    def __setstate__(self, state):
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """One decoder layer: `tgt` attends to itself, then to `memory`."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        hidden = self.dropout(self.activation(self.linear1(x)))
        return self.dropout3(self.linear2(hidden))
