"""Connectionist temporal classification loss (``ctc_loss``), in ember operators.

The forward (alpha) recursion runs over time in log space, vectorised over the
batch and the 2S+1 positions of the blank-extended targets:
``alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), [alpha_{t-1}(s-2)]) + lp_t(l'_s)``,
the skip allowed where ``l'_s`` is not blank and differs from ``l'_{s-2}``. A
sample's alpha stops changing after its input length, and its loss is
``-logsumexp`` of the last two positions of its own extended target. Autograd
differentiates the recursion, so the gradient w.r.t. ``log_probs`` is the exact
one (``-occupancy / p``); PyTorch's kernel returns ``p - occupancy`` instead, which
agrees with it once composed with ``log_softmax`` (the usual input).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ember
from ember.core.tensor import Tensor

__all__ = ["ctc_loss"]


def _host_ints(v: Any) -> np.ndarray:
    if isinstance(v, Tensor):
        return np.asarray(v.detach().to("cpu").tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(list(v), dtype=np.int64).reshape(-1)


def _logsumexp(*xs: Tensor) -> Tensor:
    """Elementwise log(sum(exp(x))) over ``xs`` that is -inf (with zero gradient) when all are."""
    m = xs[0]
    for x in xs[1:]:
        m = ember.maximum(m, x)
    m = m.detach()
    finite = m.isfinite()
    m_safe = ember.where(finite, m, ember.zeros_like(m))
    total = (xs[0] - m_safe).exp()
    for x in xs[1:]:
        total = total + (x - m_safe).exp()
    positive = total > 0
    safe = ember.where(positive, total, ember.ones_like(total))
    neg_inf = ember.full((), float("-inf"), dtype=total.dtype, device=total.device)
    return ember.where(positive, safe.log() + m_safe, neg_inf)


def _shift(x: Tensor, k: int) -> Tensor:
    """``x`` moved ``k`` places right along dim 1, filled with -inf."""
    return ember.constant_pad_nd(x, [k, 0], float("-inf"))[:, : x.shape[1]]


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss of (T, N, C) (or (T, C)) log-probabilities against label sequences.

    ``targets`` is (N, S) padded or 1-D concatenated; ``reduction="mean"`` divides each
    sample's loss by its target length, then averages over the batch.

    See ``ember.nn.CTCLoss``.

    Args:
        log_probs: ``(T, N, C)`` or ``(T, C)`` log-probabilities (``log_softmax`` output).
        targets: ``(N, S)`` padded, or 1-D concatenated label sequences.
        input_lengths: ``(N,)`` lengths of the inputs (a tensor or a sequence).
        target_lengths: ``(N,)`` lengths of the targets.
        blank: the index of the blank class. Default: ``0``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        zero_infinity: replace infinite losses and their gradients by 0. Default: ``False``.

    Returns:
        A scalar, or ``(N,)`` with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> lp = ember.full((2, 1, 2), 0.5).log()  # T=2, N=1, C=2 (blank=0)
        >>> F = ember.nn.functional
        >>> round(F.ctc_loss(lp, ember.tensor([[1]]), [2], [1], reduction="sum").item(), 4)
        0.2877
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    steps, batch, classes = lp.shape
    in_lens = _host_ints(input_lengths)
    tg_lens = _host_ints(target_lengths)
    if len(in_lens) != batch or len(tg_lens) != batch:
        raise RuntimeError(
            f"input_lengths and target_lengths must have {batch} entries, got {len(in_lens)} "
            f"and {len(tg_lens)}"
        )
    for name, given in (("input_lengths", in_lens), ("target_lengths", tg_lens)):
        if len(given) and int(given.min()) < 0:
            raise RuntimeError(
                f"Expected {name} to have value at least 0, but got value {int(given.min())} "
                "(while checking arguments for ctc_loss)"
            )
    if (in_lens > steps).any():
        raise RuntimeError(
            f"Expected input_lengths to have value at most {steps}, but got value "
            f"{int(in_lens.max())}"
        )
    if targets.ndim == 1 and len(tg_lens) and int(tg_lens.sum()) > targets.shape[0]:
        raise RuntimeError(
            f"Expected tensor to have size {int(tg_lens.sum())} at dimension 0, but got "
            f"size {targets.shape[0]} for argument #2 'targets' (while checking arguments for "
            "ctc_loss)"
        )
    if targets.ndim == 2 and len(tg_lens) and int(tg_lens.max()) > targets.shape[1]:
        raise RuntimeError(
            f"Expected tensor to have size at least {int(tg_lens.max())} at dimension 1, but got "
            f"size {targets.shape[1]} for argument #2 'targets' (while checking arguments for "
            "ctc_loss)"
        )
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    # Targets as (N, S) padded with the blank.
    s_max = max(int(tg_lens.max()) if len(tg_lens) else 0, 1)
    tg = targets.reshape(1, -1) if unbatched and targets.ndim == 1 else targets
    if tg.ndim == 1:
        starts = np.concatenate([[0], np.cumsum(tg_lens)[:-1]])
        pos = starts[:, None] + np.arange(s_max)[None, :]
        valid = np.arange(s_max)[None, :] < tg_lens[:, None]
        flat = ember.from_numpy(np.where(valid, pos, 0).reshape(-1)).to(tg.device)
        picked = tg.index_select(0, flat).reshape(batch, s_max)
    else:
        picked = (
            tg[:, :s_max]
            if tg.shape[1] >= s_max
            else ember.constant_pad_nd(tg, [0, s_max - tg.shape[1]], blank)
        )
        valid = np.arange(s_max)[None, :] < tg_lens[:, None]
    keep = ember.from_numpy(valid).to(tg.device)
    labels = ember.where(keep, picked.to(ember.int64), ember.full((), blank, dtype=ember.int64))
    width = 2 * s_max + 1
    ext = ember.full((batch, width), blank, dtype=ember.int64, device=lp.device)
    ext[:, 1::2] = labels.to(lp.device)
    ext_prev2 = ember.constant_pad_nd(ext, [2, 0], blank)[:, :width]
    skip = (ext != blank) & (ext != ext_prev2)
    skip[:, :2] = False
    # Emissions of every step at every extended position: (T, N, 2S+1), then per step.
    emit = lp.gather(2, ext.unsqueeze(0).expand(steps, batch, width))
    per_step = emit.unbind(0)
    neg_inf = ember.full((), float("-inf"), dtype=lp.dtype, device=lp.device)
    start = ember.from_numpy(np.arange(width) < 2).to(lp.device).unsqueeze(0)
    alpha = ember.where(start, per_step[0], neg_inf)
    active = [
        ember.from_numpy((t < in_lens).reshape(batch, 1).copy()).to(lp.device) for t in range(steps)
    ]
    for t in range(1, steps):
        prev2 = ember.where(skip, _shift(alpha, 2), neg_inf)
        new = _logsumexp(alpha, _shift(alpha, 1), prev2) + per_step[t]
        alpha = ember.where(active[t], new, alpha)
    last = ember.from_numpy(2 * tg_lens).to(lp.device).unsqueeze(1)
    end = alpha.gather(1, last).squeeze(1)
    before = alpha.gather(1, (last - 1).clamp(min=0)).squeeze(1)
    has_label = ember.from_numpy(tg_lens > 0).to(lp.device)
    loss = -_logsumexp(end, ember.where(has_label, before, neg_inf))
    # An empty input explains only an empty target (loss 0); any label is impossible (inf).
    zero_length = ember.from_numpy(in_lens == 0).to(lp.device)
    empty = ember.where(has_label, ember.full_like(loss, float("inf")), ember.zeros_like(loss))
    loss = ember.where(zero_length, empty.detach(), loss)
    if zero_infinity:
        loss = ember.where(loss.isinf(), ember.zeros_like(loss), loss)
    if reduction == "none":
        return loss.reshape(()) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    lens = ember.from_numpy(np.maximum(tg_lens, 1).astype(np.float64)).to(
        dtype=lp.dtype, device=lp.device
    )
    return (loss / lens).mean()
