"""Attention layers: MultiheadAttention, TransformerEncoder(Layer), TransformerDecoder(Layer)
and Transformer.

Written over ``ember.nn.functional.multi_head_attention_forward``. Parameter
names, their order and default initialisation are PyTorch's, so a PyTorch
``state_dict`` loads unchanged:

* ``in_proj_weight`` (3E, E), or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight``
  when ``kdim``/``vdim`` differ from ``embed_dim``, all ``xavier_uniform_``;
* ``in_proj_bias`` (3E) and ``out_proj.bias`` start at zero; ``bias_k``/``bias_v``
  (with ``add_bias_kv``) are ``xavier_normal_``; ``out_proj`` is a Linear;
* the encoder and decoder layers register their submodules in PyTorch's order
  (attention blocks, linear1, dropout, linear2, norms, dropouts), and
  ``Transformer`` re-initialises every matrix with ``xavier_uniform_``.

There is no fused "fast path": eval-mode outputs equal training-mode ones with
dropout off (PyTorch's nested-tensor path zeroes padded positions instead).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.dispatcher.compiling import is_compiling
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.activation import Dropout
from ember.nn.modules.container import ModuleList
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import LayerNorm
from ember.nn.parameter import Parameter

__all__ = [
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerDecoderLayer",
    "TransformerDecoder",
    "Transformer",
    "generate_square_subsequent_mask",
]


def generate_square_subsequent_mask(
    sz: int, device: Any = None, dtype: Any = None
) -> Tensor:  # fmt: skip
    """A float (sz, sz) mask: ``-inf`` above the diagonal, 0 elsewhere.

    Examples:
        >>> import ember
        >>> ember.nn.modules.transformer.generate_square_subsequent_mask(2).tolist()
        [[0.0, -inf], [0.0, 0.0]]
    """
    full = ember.full((sz, sz), float("-inf"), device=device, dtype=dtype)
    return full.triu(1)


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under PyTorch's name for ``MultiheadAttention.out_proj`` (same repr)."""


class MultiheadAttention(Module):
    """Multi-head attention ``softmax(Q K^T / sqrt(d)) V`` over ``num_heads`` heads.

    Queries, keys and values are projected by learnt matrices, split into ``num_heads`` heads
    of ``embed_dim // num_heads`` features, attended separately and joined by ``out_proj``.

    Input: ``query`` ``(L, N, E)``, ``key`` ``(S, N, kdim)``, ``value`` ``(S, N, vdim)``
    (batch first with ``batch_first``; unbatched ``(L, E)`` also works). Output:
    ``(attn_output, attn_weights)``: ``(L, N, E)`` and, with ``need_weights``, ``(N, L, S)``
    averaged over the heads (``(N, num_heads, L, S)`` with ``average_attn_weights=False``).

    Args:
        embed_dim: ``E``, the model size.
        num_heads: the number of heads; divides ``embed_dim``.
        dropout: dropout probability on the attention weights. Default: ``0.0``.
        bias: learn input and output projection biases. Default: ``True``.
        add_bias_kv: append a learnt bias to the keys and values. Default: ``False``.
        add_zero_attn: append a zero key and value. Default: ``False``.
        kdim: the key size. Default: ``None`` (``embed_dim``).
        vdim: the value size. Default: ``None`` (``embed_dim``).
        batch_first: inputs and outputs are ``(N, L, E)``. Default: ``False``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> mha = ember.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = ember.zeros(3, 5, 8)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (ember.Size([3, 5, 8]), ember.Size([3, 5, 5]))
    """

    def __init__(
        self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
        add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
        vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(ember.empty(3 * embed_dim, embed_dim, **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(ember.empty(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(ember.empty(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(ember.empty(embed_dim, self.vdim, **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(ember.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        self.bias_k: Parameter | None = None
        self.bias_v: Parameter | None = None
        if add_bias_kv:
            self.bias_k = Parameter(ember.empty(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(ember.empty(1, 1, embed_dim, **kw))
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
        need_weights: bool = True, attn_mask: Tensor | None = None,
        average_attn_weights: bool = True, is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:  # fmt: skip
        """Attend from ``query`` to ``key``/``value``; returns ``(attn_output, attn_weights)``.

        Args:
            query: ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or ``(L, E)``.
            key: ``(S, N, kdim)`` or ``(S, kdim)``.
            value: ``(S, N, vdim)`` or ``(S, vdim)``.
            key_padding_mask: ``(N, S)``; True (or ``-inf``) marks keys to ignore. Default:
                ``None``.
            need_weights: also return the attention weights. Default: ``True``.
            attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)``; True (or ``-inf``) forbids a
                position, float values are added to the scores. Default: ``None``.
            average_attn_weights: average the weights over the heads. Default: ``True``.
            is_causal: a hint that ``attn_mask`` is the causal mask. Default: ``False``.
        """
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads,
            self.in_proj_weight, self.in_proj_bias, self.bias_k, self.bias_v,
            self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask,
            need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )  # fmt: skip
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        return out, weights


_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {"relu": F.relu, "gelu": F.gelu}


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm.

    ``norm_first=False`` (post-norm): ``x = norm1(x + sa(x)); x = norm2(x + ff(x))``;
    ``norm_first=True`` (pre-norm): ``x = x + sa(norm1(x)); x = x + ff(norm2(x))``.

    Input: ``src`` ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or ``(L, E)``. Output: the
    same shape.

    Args:
        d_model: the embedding size ``E``.
        nhead: the number of attention heads; divides ``d_model``.
        dim_feedforward: the hidden size of the feed-forward block. Default: ``2048``.
        dropout: the dropout probability. Default: ``0.1``.
        activation: ``'relu'``, ``'gelu'`` or a callable, inside the feed-forward block.
            Default: ``relu``.
        layer_norm_eps: the LayerNorms' ``eps``. Default: ``1e-5``.
        batch_first: inputs and outputs are ``(N, L, E)`` instead of ``(L, N, E)``.
            Default: ``False``.
        norm_first: pre-norm instead of post-norm. Default: ``False``.
        bias: learn biases in the Linear and LayerNorm layers. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> layer = ember.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
        >>> layer(ember.zeros(3, 5, 8)).shape
        ember.Size([3, 5, 8])
    """

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
        batch_first: bool = False, norm_first: bool = False, bias: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(
        self, src: Tensor, src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None, is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        """Run ``src`` through the attention and feed-forward blocks.

        Args:
            src: the input sequence.
            src_mask: an ``(L, L)`` attention mask. Default: ``None``.
            src_key_padding_mask: ``(N, L)``, True at padding positions. Default: ``None``.
            is_causal: a hint that ``src_mask`` is the causal mask. Default: ``False``.
        """
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(
        self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool
    ) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
            need_weights=False, is_causal=is_causal,
        )[0]  # fmt: skip
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _is_causal_mask(mask: Tensor) -> bool:
    """Whether ``mask`` is exactly the square subsequent mask (float or bool form).

    Only a hint (the mask is applied either way): under ``ember.compile`` capture it is not
    checked, since reading the comparison back would end the graph."""
    if is_compiling():
        return False
    n = mask.shape[-1]
    if mask.ndim != 2 or mask.shape[0] != n:
        return False
    if mask.dtype == ember.bool:
        reference = ember.ones(n, n, dtype=ember.bool, device=mask.device).triu(1)
    else:
        reference = generate_square_subsequent_mask(n, device=mask.device, dtype=mask.dtype)
    return bool((mask == reference).all().item())


class TransformerEncoder(Module):
    """A stack of ``TransformerEncoderLayer`` copies.

    ``num_layers`` deep copies of ``encoder_layer`` applied in turn, then ``norm``.

    Input: ``src`` as for the layer. Output: the same shape.

    Args:
        encoder_layer: the layer to copy (its parameters are not shared).
        num_layers: the number of copies.
        norm: a final normalisation module. Default: ``None``.
        enable_nested_tensor: accepted for compatibility; ember has no nested tensors.
            Default: ``True``.
        mask_check: accepted for compatibility. Default: ``True``.

    Examples:
        >>> import ember
        >>> layer = ember.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
        >>> enc = ember.nn.TransformerEncoder(layer, num_layers=2)
        >>> enc(ember.zeros(5, 3, 8)).shape
        ember.Size([5, 3, 8])
    """

    def __init__(
        self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
        enable_nested_tensor: bool = True, mask_check: bool = True,
    ) -> None:  # fmt: skip
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(
        self, src: Tensor, mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None, is_causal: bool | None = None,
    ) -> Tensor:  # fmt: skip
        """Run ``src`` through every layer in turn, then ``norm``.

        Args:
            src: the input sequence.
            mask: an ``(L, L)`` attention mask. Default: ``None``.
            src_key_padding_mask: ``(N, L)``, True at padding positions. Default: ``None``.
            is_causal: a hint that ``mask`` is the causal mask; ``None`` detects it. Default:
                ``None``.
        """
        if is_causal is None:
            is_causal = mask is not None and _is_causal_mask(mask)
        out = src
        for layer in self.layers:
            out = layer(
                out, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask
            )
        return self.norm(out) if self.norm is not None else out


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")
        return _ACTIVATIONS[activation]
    return activation


class TransformerDecoderLayer(Module):
    """Self-attention, attention over ``memory``, then a feed-forward block, each with a
    residual and a LayerNorm (post-norm, or pre-norm with ``norm_first``).

    Input: ``tgt`` ``(T, N, E)`` and ``memory`` ``(S, N, E)`` (batch first with
    ``batch_first``). Output: the shape of ``tgt``.

    Args:
        d_model: the embedding size ``E``.
        nhead: the number of attention heads; divides ``d_model``.
        dim_feedforward: the hidden size of the feed-forward block. Default: ``2048``.
        dropout: the dropout probability. Default: ``0.1``.
        activation: ``'relu'``, ``'gelu'`` or a callable, inside the feed-forward block.
            Default: ``relu``.
        layer_norm_eps: the LayerNorms' ``eps``. Default: ``1e-5``.
        batch_first: inputs and outputs are ``(N, L, E)`` instead of ``(L, N, E)``.
            Default: ``False``.
        norm_first: pre-norm instead of post-norm. Default: ``False``.
        bias: learn biases in the Linear and LayerNorm layers. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> layer = ember.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, batch_first=True)
        >>> layer(ember.zeros(3, 4, 8), ember.zeros(3, 6, 8)).shape
        ember.Size([3, 4, 8])
    """

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
        batch_first: bool = False, norm_first: bool = False, bias: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        """Run ``tgt`` through self-attention, attention over ``memory`` and the feed-forward block.

        Args:
            tgt: the target sequence.
            memory: the encoder's output.
            tgt_mask: a ``(T, T)`` self-attention mask. Default: ``None``.
            memory_mask: a ``(T, S)`` mask over ``memory``. Default: ``None``.
            tgt_key_padding_mask: ``(N, T)``, True at padding. Default: ``None``.
            memory_key_padding_mask: ``(N, S)``, True at padding. Default: ``None``.
            tgt_is_causal: a hint that ``tgt_mask`` is causal. Default: ``False``.
            memory_is_causal: a hint that ``memory_mask`` is causal. Default: ``False``.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            )  # fmt: skip
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(
        self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool
    ) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
            is_causal=is_causal, need_weights=False,
        )[0]  # fmt: skip
        return self.dropout1(out)

    def _mha_block(
        self, x: Tensor, mem: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
        is_causal: bool,
    ) -> Tensor:  # fmt: skip
        out = self.multihead_attn(
            x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
            is_causal=is_causal, need_weights=False,
        )[0]  # fmt: skip
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """A stack of ``TransformerDecoderLayer`` copies.

    ``num_layers`` deep copies of ``decoder_layer`` applied in turn, then ``norm``.

    Input: ``tgt`` and ``memory`` as for the layer. Output: the shape of ``tgt``.

    Args:
        decoder_layer: the layer to copy (its parameters are not shared).
        num_layers: the number of copies.
        norm: a final normalisation module. Default: ``None``.

    Examples:
        >>> import ember
        >>> layer = ember.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)
        >>> dec = ember.nn.TransformerDecoder(layer, num_layers=2)
        >>> dec(ember.zeros(4, 3, 8), ember.zeros(6, 3, 8)).shape
        ember.Size([4, 3, 8])
    """

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        """Run ``tgt`` through every layer in turn (each attending to ``memory``), then ``norm``.

        Takes ``TransformerDecoderLayer.forward``'s arguments; ``tgt_is_causal=None`` detects a
        causal ``tgt_mask``.
        """
        if tgt_is_causal is None:
            tgt_is_causal = tgt_mask is not None and _is_causal_mask(tgt_mask)
        out = tgt
        for layer in self.layers:
            out = layer(
                out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )  # fmt: skip
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need".

    An encoder stack reads ``src``; a decoder stack reads ``tgt`` and attends to the
    encoder's output. Each stack ends with a LayerNorm.

    Input: ``src`` ``(S, N, E)`` and ``tgt`` ``(T, N, E)`` (batch first with ``batch_first``).
    Output: ``(T, N, E)``.

    Args:
        d_model: the embedding size ``E``. Default: ``512``.
        nhead: the number of attention heads. Default: ``8``.
        num_encoder_layers: the encoder depth. Default: ``6``.
        num_decoder_layers: the decoder depth. Default: ``6``.
        dim_feedforward: the feed-forward hidden size. Default: ``2048``.
        dropout: the dropout probability. Default: ``0.1``.
        activation: ``'relu'``, ``'gelu'`` or a callable. Default: ``relu``.
        custom_encoder: a module to use as the encoder. Default: ``None``.
        custom_decoder: a module to use as the decoder. Default: ``None``.
        layer_norm_eps: the LayerNorms' ``eps``. Default: ``1e-5``.
        batch_first: inputs and outputs are batch first. Default: ``False``.
        norm_first: pre-norm layers. Default: ``False``.
        bias: learn biases in the Linear and LayerNorm layers. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> model = ember.nn.Transformer(8, 2, 1, 1, dim_feedforward=16, batch_first=True)
        >>> src, tgt = ember.zeros(3, 5, 8), ember.zeros(3, 4, 8)
        >>> mask = model.generate_square_subsequent_mask(4)
        >>> model(src, tgt, tgt_mask=mask).shape
        ember.Size([3, 4, 8])
    """

    def __init__(
        self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
        num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu, custom_encoder: Any = None,
        custom_decoder: Any = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
        norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            enc_layer = TransformerEncoderLayer(
                d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, bias, **kw,
            )  # fmt: skip
            enc_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(enc_layer, num_encoder_layers, enc_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            dec_layer = TransformerDecoderLayer(
                d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, bias, **kw,
            )  # fmt: skip
            dec_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(dec_layer, num_decoder_layers, dec_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """A float (sz, sz) mask: ``-inf`` above the diagonal, 0 elsewhere."""
        return generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def forward(
        self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None, src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None, memory_is_causal: bool = False,
    ) -> Tensor:  # fmt: skip
        """Encode ``src``, decode ``tgt`` against it, and return the decoder's output.

        Takes ``src``, ``tgt`` and the masks ``src_mask``, ``tgt_mask``, ``memory_mask``,
        ``src_key_padding_mask``, ``tgt_key_padding_mask``, ``memory_key_padding_mask`` (see the
        encoder and decoder layers), and the hints ``src_is_causal``, ``tgt_is_causal`` and
        ``memory_is_causal``.
        """
        batched = src.ndim == 3
        if not self.batch_first and batched and src.shape[1] != tgt.shape[1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and batched and src.shape[0] != tgt.shape[0]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )  # fmt: skip
