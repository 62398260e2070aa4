"""Attention in ember operators: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``.

Both are compositions of matmul, softmax, ``where`` and ``cat``, so autograd
differentiates them and every device that runs those operators runs attention.

Mask conventions, as PyTorch's (they differ between the two functions):

* ``scaled_dot_product_attention``: a bool ``attn_mask`` is True where a query
  MAY attend; a float mask is added to the scores. A query row with every key
  masked gives a zero output and zero gradients (PyTorch 2.x does the same).
* ``multi_head_attention_forward``: bool ``attn_mask`` / ``key_padding_mask``
  are True where attention is NOT allowed; float masks are added. With
  ``need_weights=True`` a fully masked row is NaN, as in PyTorch.
"""

from __future__ import annotations

import math

import ember
from ember.core.tensor import Tensor
from ember.nn.functional._layers import dropout, linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _neg_inf(like: Tensor) -> Tensor:
    return ember.full((), float("-inf"), dtype=like.dtype, device=like.device)


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the last dim whose fully ``-inf`` rows give zeros instead of NaN."""
    row_max = scores.detach().amax(-1, keepdim=True)
    zero = ember.zeros((), dtype=scores.dtype, device=scores.device)
    row_max = ember.where(row_max.isfinite(), row_max, zero)
    e = (scores - row_max).exp()
    total = e.sum(-1, keepdim=True)
    return e / ember.where(total == 0, ember.ones_like(zero), total)


def _repeat_heads(t: Tensor, groups: int) -> Tensor:
    """``t.repeat_interleave(groups, dim=-3)`` built from a view, expand and reshape."""
    if groups == 1:
        return t
    shape = tuple(t.shape)
    expanded = t.unsqueeze(-3).expand(*shape[:-2], groups, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * groups, *shape[-2:])


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """Attend from queries to keys and values: ``softmax(Q K^T * scale + mask) V``.

    ``softmax(Q K^T * scale + mask) V`` over the last two dims (..., L, E) x (..., S, E).

    ``attn_mask`` broadcasts to (..., L, S): bool (True = attend) or float (added).
    ``is_causal`` masks out keys after each query (top-left aligned, as PyTorch); it may
    not be combined with ``attn_mask``.
    ``enable_gqa`` repeats the key/value heads (dim -3) to match the query's heads.

    Args:
        query: ``(..., L, E)``.
        key: ``(..., S, E)``.
        value: ``(..., S, E_v)``.
        attn_mask: broadcastable to ``(..., L, S)``; bool (True = attend) or float (added to
            the scores). Default: ``None``.
        dropout_p: dropout probability on the attention weights. Default: ``0.0``.
        is_causal: mask out keys after each query. Default: ``False``.
        scale: the score scale. Default: ``None`` (``1 / sqrt(E)``).
        enable_gqa: repeat the key/value heads to match the query's. Default: ``False``.

    Returns:
        ``(..., L, E_v)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> q = k = v = ember.ones(1, 2, 3, 4)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        ember.Size([1, 2, 3, 4])
    """
    if is_causal and attn_mask is not None:
        # As PyTorch documents (its no-grad 4-d CPU kernel quietly applies both instead).
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if enable_gqa and query.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in query"
            )
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    scale_factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        length, source = query.shape[-2], key.shape[-2]
        causal = ember.ones(length, source, dtype=ember.bool, device=query.device).tril()
        scores = ember.where(causal, scores, _neg_inf(scores))
    if attn_mask is not None:
        if attn_mask.dtype == ember.bool:
            scores = ember.where(attn_mask, scores, _neg_inf(scores))
        else:
            scores = scores + attn_mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


# -- multi-head attention ---------------------------------------------------------------------


def _canonical_mask(mask: Tensor | None, name: str, like: Tensor) -> Tensor | None:
    """A bool mask (True = masked out) as a float mask of ``like``'s dtype; floats pass."""
    if mask is None:
        return None
    if mask.dtype == ember.bool:
        zero = ember.zeros((), dtype=like.dtype, device=like.device)
        return ember.where(mask, _neg_inf(like), zero)
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _shape_check(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """Validate the input ranks like PyTorch; return whether the input is batched."""
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.ndim}-D and {value.ndim}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.ndim}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.ndim}-D tensor instead"
            )
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.ndim}-D and {value.ndim}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.ndim}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.ndim}-D tensor instead"
                )
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                )
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
        "tensor"
    )


def _pad_last(mask: Tensor | None) -> Tensor | None:
    """Append one zero column (an always-visible key) to a float mask."""
    if mask is None:
        return None
    zeros = ember.zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)
    return ember.cat([mask, zeros], -1)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """PyTorch's functional multi-head attention on sequence-first inputs (L, N, E).

    Returns ``(output, weights)``; ``weights`` is (N, L, S) averaged over heads, or
    (N, num_heads, L, S) with ``average_attn_weights=False``, or None unless
    ``need_weights``. Unbatched inputs (L, E) drop the batch dim of both.

    This is what ``ember.nn.MultiheadAttention`` calls; most code should use the module.

    Args:
        query: ``(L, N, E)`` or ``(L, E)``.
        key: ``(S, N, E_k)`` or ``(S, E_k)``.
        value: ``(S, N, E_v)`` or ``(S, E_v)``.
        embed_dim_to_check: ``E``, checked against the query.
        num_heads: the number of heads; divides ``E``.
        in_proj_weight: the packed ``(3 * E, E)`` query/key/value projection, or ``None``
            with ``use_separate_proj_weight``.
        in_proj_bias: the packed ``(3 * E,)`` bias, or ``None``.
        bias_k: a ``(1, 1, E)`` bias appended to the keys, or ``None``.
        bias_v: a ``(1, 1, E)`` bias appended to the values, or ``None``.
        add_zero_attn: append a zero key and value.
        dropout_p: dropout probability on the attention weights.
        out_proj_weight: ``(E, E)``.
        out_proj_bias: ``(E,)``, or ``None``.
        training: apply dropout. Default: ``True``.
        key_padding_mask: ``(N, S)``, True (or ``-inf``) where a key is ignored. Default: ``None``.
        need_weights: also return the attention weights. Default: ``True``.
        attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)``, boolean or additive. Default: ``None``.
        use_separate_proj_weight: use ``q_proj_weight``, ``k_proj_weight`` and
            ``v_proj_weight`` instead of ``in_proj_weight``. Default: ``False``.
        q_proj_weight: the separate query projection. Default: ``None``.
        k_proj_weight: the separate key projection. Default: ``None``.
        v_proj_weight: the separate value projection. Default: ``None``.
        static_k: precomputed ``(N * num_heads, S, E / num_heads)`` keys. Default: ``None``.
        static_v: precomputed values, shaped like ``static_k``. Default: ``None``.
        average_attn_weights: average the weights over the heads. Default: ``True``.
        is_causal: a hint that ``attn_mask`` is the causal mask. Default: ``False``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> E, heads = 4, 2
        >>> q = ember.ones(3, 2, E)
        >>> out, w = F.multi_head_attention_forward(
        ...     q, q, q, E, heads, ember.ones(3 * E, E), None, None, None, False, 0.0,
        ...     ember.eye(E), None)
        >>> out.shape, w.shape
        (ember.Size([3, 2, 4]), ember.Size([2, 3, 3]))
    """
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint lets scaled_dot_product_attention build the mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query)
        is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # input projections
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but a projection weight is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    q = linear(query, w_q, b_q)
    k = linear(key, w_k, b_k)
    v = linear(value, w_v, b_v)

    if attn_mask is not None:
        source = key.shape[0]
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, source):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, source)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, source):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                    f"{(bsz * num_heads, tgt_len, source)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ember.cat([k, bias_k.expand(1, bsz, embed_dim)], 0)
        v = ember.cat([v, bias_v.expand(1, bsz, embed_dim)], 0)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    # (L, N, E) -> (N * H, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz * num_heads, head_dim, "static_k")
    v = _heads(v, static_v, bsz * num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = ember.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = ember.cat([k, zeros], 1), ember.cat([v, zeros], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{key_padding_mask.shape}"
            )
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p, True)
        out = weights.matmul(v)  # (N * H, L, head_dim)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        w = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            w = w.mean(1)
        if not batched:
            return out.squeeze(1), w.squeeze(0)
        return out, w

    if attn_mask is not None:
        # (1, L, S) from a 2-D mask is shared by every batch and head; (N * H, L, S) is not.
        lead = (1, 1) if attn_mask.shape[0] == 1 else (bsz, num_heads)
        attn_mask = attn_mask.reshape(*lead, attn_mask.shape[-2], src_len)
        attn_mask = attn_mask.expand(bsz, num_heads, attn_mask.shape[-2], src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None


def _heads(t: Tensor, static: Tensor | None, bh: int, head_dim: int, name: str) -> Tensor:
    """(S, N, E) -> (N * H, S, head_dim), or the given pre-shaped ``static`` tensor."""
    if static is None:
        return t.reshape(t.shape[0], bh, head_dim).transpose(0, 1)
    if static.shape[0] != bh:
        raise AssertionError(f"expecting {name}.size(0) of {bh}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
