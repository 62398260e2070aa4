"""``embedding_bag`` and the ``max_norm``/``scale_grad_by_freq`` options of embeddings.

A bag reduction looks the rows up with the core's ``embedding``, numbers each
index with its bag (a cumulative sum of bag starts) and reduces with
``index_add`` (sum, mean) or ``scatter_reduce(amax)`` (max); empty bags give
zeros. ``padding_idx`` entries are dropped before the reduction, so they count
neither in a sum nor in a mean, as in PyTorch.

``max_norm`` renormalises the looked-up rows of the weight in place (under
no_grad) before the lookup. ``scale_grad_by_freq`` divides each row's gradient
by the index's count in the mini-batch with a value-preserving rescaling
``e * s + (e * (1 - s)).detach()``.
"""

from __future__ import annotations

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor

__all__ = ["embedding_bag"]


def _renorm_rows_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """Scale the rows of ``weight`` named in ``indices`` to norm at most ``max_norm``."""
    with no_grad():
        idx = indices.reshape(-1)
        if idx.numel() == 0:
            return
        rows = weight.index_select(0, idx)
        norms = rows.abs().pow(norm_type).sum(1, keepdim=True).pow(1.0 / norm_type)
        scale = ember.where(norms > max_norm, max_norm / (norms + 1e-7), ember.ones_like(norms))
        weight.index_put_((idx,), rows * scale)


def _scale_by_freq(rows: Tensor, indices: Tensor, num_embeddings: int) -> Tensor:
    """``rows`` unchanged, with gradients divided by each index's count in ``indices``."""
    flat = indices.reshape(-1)
    ones = ember.ones(flat.shape, dtype=rows.dtype, device=rows.device)
    counts = ember.zeros(num_embeddings, dtype=rows.dtype, device=rows.device).index_add(
        0, flat, ones
    )
    s = (1.0 / counts.index_select(0, flat)).reshape(*indices.shape, 1)
    return rows * s + (rows * (1.0 - s)).detach()


def _lookup(
    indices: Tensor, weight: Tensor, max_norm: float | None, norm_type: float,
    scale_grad_by_freq: bool,
) -> Tensor:  # fmt: skip
    if max_norm is not None:
        _renorm_rows_(weight, indices, max_norm, norm_type)
    rows = ember.embedding(weight, indices, -1)
    if scale_grad_by_freq:
        rows = _scale_by_freq(rows, indices, weight.shape[0])
    return rows


def _bag_ids(
    input: Tensor, offsets: Tensor | None, include_last_offset: bool
) -> tuple[Tensor, Tensor, int]:
    """Flattened indices, the bag of each, and the number of bags."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                "of fixed length sequences. However, found offsets of type "
                f"{type(offsets).__name__}"
            )
        b, length = input.shape
        flat = input.reshape(-1)
        bag = ember.arange(b * length, device=input.device) // max(length, 1)
        return flat, bag, b
    if input.ndim != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    n = input.shape[0]
    if offsets.numel() and int(offsets[0].item()) != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {int(offsets[0].item())}"
        )
    if offsets.numel():
        last, low = int(offsets[-1].item()), int(offsets.min().item())
        if last > n:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] "
                f"of {last}"
            )
        if low < 0:
            raise IndexError(
                f"embedding_bag: offsets must be in [0, {n}] (the input's length), but got "
                f"an offset of {low}"
            )
    starts = offsets[:-1] if include_last_offset else offsets
    bags = starts.shape[0]
    marks = ember.zeros(n + 1, dtype=ember.int64, device=input.device)
    marks = marks.index_add(0, starts.clamp(0, n), ember.ones_like(starts))
    bag = marks[:n].cumsum(0) - 1
    return input, bag, bags


def embedding_bag(
    input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
    norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
    sparse: bool = False, per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False, padding_idx: int | None = None,
) -> Tensor:  # fmt: skip
    """Reduce bags of embeddings to one vector each: their sum, mean or maximum.

    Sums, means or maxima of bags of embeddings, without building the per-index rows' tensor
    of every bag.

    ``input`` is (B, L) (B bags of L indices) or 1-D with ``offsets`` giving each bag's start.

    See ``ember.nn.EmbeddingBag``.

    Args:
        input: ``(B, L)`` indices, or 1-d indices with ``offsets``.
        weight: the table, ``(num_embeddings, embedding_dim)``.
        offsets: ``(B,)`` start of each bag in a 1-d ``input``. Default: ``None``.
        max_norm: the largest norm a looked-up row may keep. Default: ``None``.
        norm_type: the p of the norm for ``max_norm``. Default: ``2``.
        scale_grad_by_freq: scale gradients by inverse index frequency. Default: ``False``.
        mode: ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse: must be ``False``; ``True`` raises ``NotImplementedError``. Default: ``False``.
        per_sample_weights: weights like ``input``, with ``mode='sum'``. Default: ``None``.
        include_last_offset: ``offsets`` has one extra entry, the end of the last bag.
            Default: ``False``.
        padding_idx: a row left out of every bag. Default: ``None``.

    Returns:
        ``(B, embedding_dim)``.

    Examples:
        >>> import ember
        >>> w = ember.arange(6.0).reshape(3, 2)
        >>> F = ember.nn.functional
        >>> F.embedding_bag(ember.tensor([0, 2, 1]), w, ember.tensor([0, 2]), mode="sum").tolist()
        [[4.0, 6.0], [2.0, 3.0]]
    """
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                "on GitHub."
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is not "
                f"None, then it must have the same shape as the input ({list(input.shape)})"
            )
    if input.dtype.is_floating_point:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype} instead"
        )
    num, dim = weight.shape
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx = padding_idx % num
    flat, bag, bags = _bag_ids(input, offsets, include_last_offset)
    if flat.numel() and flat.device.type != "meta":
        bad = ((flat < 0) | (flat >= num)).nonzero()
        if bad.numel():
            i = int(bad[0, 0].item())
            raise RuntimeError(
                f"Index {i} of input takes value {int(flat[i].item())} which is not in the "
                f"valid range [0, {num})"
            )
    psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    if padding_idx is not None:
        keep = (flat != padding_idx).nonzero().reshape(-1)
        flat, bag = flat.index_select(0, keep), bag.index_select(0, keep)
        psw = psw.index_select(0, keep) if psw is not None else None
    rows = _lookup(flat, weight, max_norm, float(norm_type), scale_grad_by_freq)
    out = ember.zeros(bags, dim, dtype=weight.dtype, device=weight.device)
    if mode == "max":
        index = bag.unsqueeze(1).expand(bag.shape[0], dim)
        return out.scatter_reduce(0, index, rows, "amax", include_self=False)
    if psw is not None:
        rows = rows * psw.unsqueeze(1).to(rows.dtype)
    total = out.index_add(0, bag, rows)
    if mode == "sum":
        return total
    ones = ember.ones(bag.shape, dtype=weight.dtype, device=weight.device)
    count = ember.zeros(bags, dtype=weight.dtype, device=weight.device).index_add(0, bag, ones)
    return total / count.clamp(min=1.0).unsqueeze(1)
