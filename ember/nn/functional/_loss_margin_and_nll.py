"""Margin, ranking, triplet, Poisson and Gaussian losses of ``ember.nn.functional``.

Compositions of ember operators, with PyTorch's reductions (``none``/``mean``/
``sum`` and the legacy ``size_average``/``reduce`` pair). Class-index targets
pick their scores with ``gather``; multi-label margins compare every
(target class, non-target class) pair of a sample in one broadcast product.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.nn.functional._activation import logsigmoid
from ember.nn.functional._distance import pairwise_distance
from ember.nn.functional._loss import _legacy, _reduce

__all__ = [
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "soft_margin_loss",
    "multilabel_soft_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
]


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
    size_average: Any = None, reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Margin ranking loss: ``input1`` should rank above ``input2`` where ``target`` is 1.

    ``max(0, -target * (input1 - input2) + margin)``.

    See ``ember.nn.MarginRankingLoss``.

    Args:
        input1: any shape.
        input2: the same shape.
        target: the same shape, of 1 and -1.
        margin: the required gap. Default: ``0.0``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.margin_ranking_loss(ember.tensor([1.0]), ember.tensor([2.0]), ember.tensor([1.0]))
        tensor(1.)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce((-target * (input1 - input2) + margin).relu(), reduction)


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
    reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Hinge embedding loss for distances ``x`` labelled 1 (similar) or -1 (dissimilar).

    ``x`` where ``target == 1`` and ``max(0, margin - x)`` where ``target == -1``.

    See ``ember.nn.HingeEmbeddingLoss``.

    Args:
        input: any shape.
        target: the input's shape, of 1 and -1.
        margin: the distance beyond which a -1 pair costs nothing. Default: ``1.0``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> x, y = ember.tensor([0.3, 0.3]), ember.tensor([1.0, -1.0])
        >>> ember.nn.functional.hinge_embedding_loss(x, y, reduction='none')
        tensor([0.3000, 0.7000])
    """
    reduction = _legacy(size_average, reduce, reduction)
    zeros = ember.zeros_like(input)
    hinge = ember.where(target != 1, (margin - input).relu(), zeros)
    self_term = ember.where(target != -1, input, zeros)
    return _reduce(hinge + self_term, reduction)


def soft_margin_loss(
    input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Soft margin loss: the logistic loss of targets of 1 and -1.

    ``log(1 + exp(-target * input))`` (two-class logistic loss), overflow-free.

    Args:
        input: any shape.
        target: the input's shape, of 1 and -1.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> x, y = ember.tensor([2.0, -1.0]), ember.tensor([1.0, -1.0])
        >>> round(ember.nn.functional.soft_margin_loss(x, y).item(), 4)
        0.2201
    """
    reduction = _legacy(size_average, reduce, reduction)
    z = -target * input
    return _reduce(z.relu() + (-z.abs()).exp().log1p(), reduction)


def multilabel_soft_margin_loss(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
    reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Per-class logistic loss averaged over the classes (last dim) of each sample.

    See ``ember.nn.MultiLabelSoftMarginLoss``.

    Args:
        input: ``(N, C)``.
        target: ``(N, C)`` of 0 and 1.
        weight: a weight per class, ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or ``(N,)`` with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> y = ember.tensor([[1.0, 0.0, 1.0]])
        >>> ember.nn.functional.multilabel_soft_margin_loss(ember.zeros(1, 3), y, reduction='none')
        tensor([0.6931])
    """
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1.0 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.ndim - 1
    loss = loss.sum(cdim) / input.shape[cdim]
    if reduction == "none":
        return loss
    return _reduce(loss, reduction)


def _check_class_target(input: Tensor, target: Tensor, op: str) -> tuple[Tensor, Tensor, bool]:
    if input.ndim > 2 or input.ndim == 0:
        raise RuntimeError(f"{op}: expected 1D or 2D input, but got input of size {input.shape}")
    unbatched = input.ndim == 1
    x = input.unsqueeze(0) if unbatched else input
    t = target.reshape(1) if unbatched else target
    if t.ndim != 1 or t.shape[0] != x.shape[0]:
        raise RuntimeError(
            f"inconsistent target size, expected {x.shape[0]} but got {list(target.shape)}"
        )
    if t.numel() and bool(((t < 0) | (t >= x.shape[1])).any()):
        raise RuntimeError("target out of range")
    return x, t, unbatched


def multi_margin_loss(
    input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
    weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Multi-class hinge loss: the true class's score should beat the others by ``margin``.

    Multi-class hinge: ``sum_{j != y} max(0, margin - x[y] + x[j])^p / C`` per sample.

    See ``ember.nn.MultiMarginLoss``.

    Args:
        input: ``(N, C)`` or ``(C,)``.
        target: class indices ``(N,)`` or ``()``.
        p: 1 or 2. Default: ``1``.
        margin: the required gap. Default: ``1.0``.
        weight: a weight per class, ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or ``(N,)`` with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> round(ember.nn.functional.multi_margin_loss(x, ember.tensor([3])).item(), 4)
        0.325
    """
    reduction = _legacy(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, t, unbatched = _check_class_target(input, target, "multi_margin_loss")
    c = x.shape[1]
    picked = x.gather(1, t.unsqueeze(1))
    z = (margin - picked + x).relu()
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[t].unsqueeze(1)
    not_target = t.unsqueeze(1) != ember.arange(c, device=x.device)
    loss = ember.where(not_target, z, ember.zeros_like(z)).sum(1) / c
    if unbatched:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Multi-label hinge loss over (target, non-target) class pairs.

    Multi-label hinge: ``target`` lists each sample's classes, ended by the first -1;
    ``sum over (target j, non-target k) of max(0, 1 - (x[j] - x[k])) / C``.

    See ``ember.nn.MultiLabelMarginLoss``.

    Args:
        input: ``(N, C)`` or ``(C,)``.
        target: integer class indices of the input's shape, padded with -1.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or ``(N,)`` with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> y = ember.tensor([[3, 0, -1, 1]])
        >>> round(ember.nn.functional.multilabel_margin_loss(x, y).item(), 4)
        0.85
    """
    reduction = _legacy(size_average, reduce, reduction)
    if input.ndim > 2 or input.ndim == 0 or target.shape != input.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    unbatched = input.ndim == 1
    x = input.unsqueeze(0) if unbatched else input
    t = target.unsqueeze(0) if unbatched else target
    c = x.shape[1]
    if t.numel() and bool(((t < -1) | (t >= c)).any()):
        raise RuntimeError("target out of range")
    valid = ember.ne(t, -1).to(ember.int64).cumprod(1) > 0  # entries before the first -1
    safe = ember.where(valid, t, ember.zeros_like(t))
    hits = ember.zeros(x.shape, dtype=ember.int64, device=x.device)
    hits = hits.scatter_add(1, safe, valid.to(ember.int64))
    is_target = hits > 0
    picked = x.gather(1, safe)  # (N, C): score of the j-th listed target
    pair = (1.0 - picked.unsqueeze(2) + x.unsqueeze(1)).relu()  # (N, j, k)
    mask = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = ember.where(mask, pair, ember.zeros_like(pair)).sum((1, 2)) / c
    if unbatched:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def _check_triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p == n):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


def triplet_margin_loss(
    anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
    eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Triplet margin loss: an anchor should be nearer its positive than its negative.

    ``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the p-norm pairwise distance.

    See ``ember.nn.TripletMarginLoss``.

    Args:
        anchor: ``(N, D)`` or ``(D,)``.
        positive: the same shape.
        negative: the same shape.
        margin: the required gap, greater than 0. Default: ``1.0``.
        p: the norm degree. Default: ``2``.
        eps: added to differences for stability. Default: ``1e-6``.
        swap: use the distance swap. Default: ``False``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or ``(N,)`` with ``reduction='none'``.

    Raises:
        ValueError: if ``margin`` is not positive.

    Examples:
        >>> import ember
        >>> a, n = ember.zeros(1, 2), ember.tensor([[3.0, 4.0]])
        >>> round(ember.nn.functional.triplet_margin_loss(a, n, a).item(), 4)
        6.0
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_triplet_dims(anchor, positive, negative)
    if margin <= 0:
        raise ValueError(
            f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ember.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).relu(), reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor, positive: Tensor, negative: Tensor, *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None, margin: float = 1.0,
    swap: bool = False, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Triplet margin loss with any distance function.

    ``triplet_margin_loss`` with any distance function (default: pairwise_distance).

    See ``ember.nn.TripletMarginWithDistanceLoss``.

    Args:
        anchor: what ``distance_function`` accepts.
        positive: the same.
        negative: the same.
        distance_function: returns one distance per sample. Default: ``None``
            (``pairwise_distance``).
        margin: the required gap, greater than 0. Default: ``1.0``.
        swap: use the distance swap. Default: ``False``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or one loss per sample with ``reduction='none'``.

    Raises:
        ValueError: if ``margin`` is not positive.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> a, n = ember.zeros(1, 2), ember.tensor([[3.0, 4.0]])
        >>> l1 = lambda x, y: (x - y).abs().sum(-1)
        >>> F.triplet_margin_with_distance_loss(a, n, a, distance_function=l1).item()
        8.0
    """
    if margin <= 0:
        raise ValueError(
            f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
            "instead"
        )
    _check_triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = ember.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).relu(), reduction)


def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
    size_average: Any = None, eps: float = 1e-8, reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Poisson negative log likelihood loss of a predicted rate and observed counts.

    Negative log likelihood of ``target ~ Poisson(rate)``, ``rate = exp(input)`` with
    ``log_input`` else ``input``; ``full`` adds Stirling's term where ``target > 1``.

    See ``ember.nn.PoissonNLLLoss``.

    Args:
        input: the predicted rate, or its log with ``log_input``.
        target: the observed counts, the input's shape.
        log_input: the input is the log of the rate. Default: ``True``.
        full: add Stirling's approximation term. Default: ``False``.
        size_average: deprecated; use ``reduction``.
        eps: keeps ``log`` finite when ``log_input=False``. Default: ``1e-8``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.poisson_nll_loss(ember.tensor([0.0]), ember.tensor([1.0])).item()
        1.0
    """
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        safe = ember.where(target > 1, target, ember.ones_like(target))
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + ember.where(target > 1, stirling, ember.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Gaussian negative log likelihood loss of a predicted mean and variance.

    ``0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps))`` (+ ``0.5 log 2 pi``
    with ``full``); ``var`` is per element, per sample (one fewer dim) or a float.

    See ``ember.nn.GaussianNLLLoss``.

    Args:
        input: the predicted mean, ``(N, *)``.
        target: the observed values, the input's shape.
        var: the predicted variance: the input's shape, one fewer dim (or a final size 1), or
            a float.
        full: add the constant ``0.5 * log(2 pi)``. Default: ``False``.
        eps: the lower clamp of ``var``. Default: ``1e-6``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.gaussian_nll_loss(ember.tensor([1.0]), ember.tensor([3.0]), ember.tensor([1.0]))
        tensor(2.)
    """
    if not isinstance(var, Tensor):
        if float(var) < 0:
            raise ValueError("var has negative entry/entries")
        var = ember.full(input.shape, float(var), dtype=input.dtype, device=input.device)
    v: Tensor = var
    if tuple(v.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(v.shape):
            v = v.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(v.shape[:-1]) and v.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    if v.numel() and bool((v < 0).any()):
        raise ValueError("var has negative entry/entries")
    # PyTorch clamps a copy of var under no_grad: the gradient passes as if unclamped.
    v = v + (v.clamp(min=eps) - v).detach()
    d = input - target
    loss = 0.5 * (v.log() + d * d / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
