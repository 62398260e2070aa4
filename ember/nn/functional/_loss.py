"""Loss functions of ``ember.nn.functional``, composed from ember operators.

``nll_loss`` picks each target's log-probability with one ``gather``; on the
common path (``ignore_index`` outside ``[0, C)``) that gather's own bounds check
proves no target is ignored or out of range, so there is no mask and no host
sync; otherwise ignored targets are masked, and targets are checked on the host
only when the gather fails (to raise PyTorch's "Target 3 is out of bounds.").
Reductions follow PyTorch: weighted ``mean`` divides by the sum of the weights
of non-ignored targets.
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.nn.functional._activation import log_softmax, logsigmoid

__all__ = [
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "nll_loss",
    "cross_entropy",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "cosine_embedding_loss",
]


def _legacy(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "mean" if (size_average and reduce) else ("sum" if reduce else "none")


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _weighted(loss: Tensor, weight: Tensor | None, input: Tensor, reduction: str) -> Tensor:
    """Reduce ``loss * weight``; a weighted mean divides by the sum of the weights (PyTorch's
    mse_loss/l1_loss), and the weight must have the input's shape."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def mse_loss(
    input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean", weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """Mean squared error.

    Args:
        input: any shape.
        target: the input's shape.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        weight: a weight per element (the input's shape); a weighted mean divides by the
            weights' sum. Default: ``None``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> ember.nn.functional.mse_loss(ember.tensor([1.0, 3.0]), ember.tensor([0.0, 0.0]))
        tensor(5.)
    """
    d = input - target
    return _weighted(d * d, weight, input, _legacy(size_average, reduce, reduction))


def l1_loss(
    input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean", weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """Mean absolute error: ``|input - target|`` per element, then reduced.

    See ``ember.nn.L1Loss``.

    Args:
        input: any shape.
        target: the input's shape.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        weight: a weight per element (the input's shape); a weighted mean divides by the
            weights' sum. Default: ``None``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.l1_loss(ember.tensor([1.0, 3.0]), ember.tensor([2.0, 2.0]))
        tensor(1.)
    """
    return _weighted(
        (input - target).abs(), weight, input, _legacy(size_average, reduce, reduction)
    )


def smooth_l1_loss(
    input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean", beta: float = 1.0,
) -> Tensor:  # fmt: skip
    """Smooth L1 loss: squared error below ``beta``, absolute error above.

    ``0.5 * d ** 2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta``. See
    ``ember.nn.SmoothL1Loss``.

    Args:
        input: any shape.
        target: the input's shape.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        beta: where the loss turns linear; 0 gives the L1 loss. Default: ``1.0``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.smooth_l1_loss(ember.tensor([0.5, 3.0]), ember.zeros(2), reduction='none')
        tensor([0.1250, 2.5000])
    """
    d = (input - target).abs()
    if beta == 0.0:
        loss = d
    else:
        loss = ember.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """Huber loss: squared error below ``delta``, linear error above.

    ``0.5 * d ** 2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 * delta)``. See
    ``ember.nn.HuberLoss``.

    Args:
        input: any shape.
        target: the input's shape.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        delta: where the loss turns linear. Default: ``1.0``.
        weight: a weight per element, applied before the reduction. Default: ``None``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.huber_loss(ember.tensor([1.0, 4.0]), ember.zeros(2), reduction='none', delta=2.0)
        tensor([0.5000, 6.0000])
    """
    d = (input - target).abs()
    loss = ember.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _reduce(loss * weight if weight is not None else loss, reduction)


def _class_mask(target: Tensor, c: int, ndim: int) -> Tensor:
    """Bool (N, C, d1, ...) mask with True at each target's class (all False when ignored)."""
    cls = ember.arange(c, device=target.device).reshape(1, c, *([1] * (ndim - 2)))
    return target.unsqueeze(1) == cls


def _batched(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor, bool]:
    if input.ndim == 1:
        return input.unsqueeze(0), target.reshape(1), True
    return input, target, False


def nll_loss(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
    ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Negative log likelihood loss of log-probabilities and class indices.

    The loss of sample ``n`` is ``-weight[t_n] * input[n, t_n]``; a ``'mean'`` divides by the
    sum of the weights of the targets that are not ``ignore_index``. See ``ember.nn.NLLLoss``.

    Args:
        input: log-probabilities ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target: class indices ``(N,)``, ``()`` or ``(N, d1, ...)``.
        weight: a weight per class, ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        ignore_index: a target value that contributes nothing. Default: ``-100``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the target's shape with ``reduction='none'``.

    Raises:
        ValueError: if the batch sizes differ.
        RuntimeError: for a floating-point target or a target out of ``[0, C)``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> logp = ember.tensor([[0.5, 0.5], [0.25, 0.75]]).log()
        >>> F.nll_loss(logp, ember.tensor([0, 1]))
        tensor(0.4904)
    """
    reduction = _legacy(size_average, reduce, reduction)
    x, t, unbatched = _batched(input, target)
    if x.shape[0] != t.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]})."
        )
    c = x.shape[1]
    if t.dtype.is_floating_point or t.dtype == ember.bool:
        raise RuntimeError(
            f"expected scalar type Long but found {str(t.dtype).replace('ember.', '').capitalize()}"
        )
    if tuple(t.shape[1:]) != tuple(x.shape[2:]):
        raise RuntimeError(
            f"Expected target size {[x.shape[0], *x.shape[2:]]}, got {list(t.shape)}"
        )
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if weight is not None and tuple(weight.shape) != (c,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {c} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    n = t.numel()
    if n and not 0 <= ignore_index < c:
        # No valid target equals ignore_index, so one gather whose own bounds check passes
        # proves that no target is ignored or out of range: no mask, no host sync.
        try:
            picked = x.gather(1, t.unsqueeze(1))
        except RuntimeError:
            pass  # an ignored or a bad target: the general path below sorts out which
        else:
            if weight is None:
                if reduction == "mean":
                    return picked.sum() * (-1.0 / n)
                if reduction == "sum":
                    return -picked.sum()
                loss = -picked.squeeze(1)
                return loss.reshape(()) if unbatched else loss
            return _weighted_nll(picked.squeeze(1), weight.gather(0, t.reshape(-1)).view(t.shape),
                                 reduction, unbatched)  # fmt: skip
    keep = t != ignore_index
    safe = ember.where(keep, t, 0)
    try:
        picked = x.gather(1, safe.unsqueeze(1)).squeeze(1)
    except RuntimeError:
        bad = keep & ((t < 0) | (t >= c))  # only now: PyTorch's message names the target
        if bool(bad.any()):
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.") from None
        raise
    # an ignored row contributes exactly 0, even when it holds -inf or NaN (0 * inf is NaN)
    picked = ember.where(keep, picked, 0.0)
    w = keep.to(x.dtype)
    if weight is not None:
        w = w * weight.gather(0, safe.reshape(-1)).view(t.shape)
    if reduction == "none":
        loss = ember.where(keep, -(picked * w), 0.0)  # +0.0 for ignored rows, as PyTorch's
        return loss.reshape(()) if unbatched else loss
    return _weighted_nll(picked, w, reduction, unbatched)


def _weighted_nll(picked: Tensor, w: Tensor, reduction: str, unbatched: bool) -> Tensor:
    """``-picked * w`` reduced; a mean divides by the sum of the weights (PyTorch's rule)."""
    if reduction == "none":
        loss = -(picked * w)
        return loss.reshape(()) if unbatched else loss
    total = -(picked * w).sum()
    if reduction == "sum":
        return total
    den = w.sum()
    # every target ignored: NaN, with zero gradients (PyTorch's) rather than 0/0's NaN ones
    none = den == 0
    return ember.where(none, math.nan, total / ember.where(none, 1.0, den))


def cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
    ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:  # fmt: skip
    """Cross entropy of logits with class indices or class probabilities.

    Args:
        input: logits ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target: class indices ``(N,)``, ``()`` or ``(N, d1, ...)``, or class probabilities of
            the input's shape.
        weight: a weight per class, ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        ignore_index: an index target that contributes nothing. Default: ``-100``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing: mix the target with the uniform distribution by this amount.
            Default: ``0.0``.

    Returns:
        A scalar, or one loss per sample with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> round(F.cross_entropy(ember.zeros(2, 4), ember.tensor([1, 3])).item(), 4)
        1.3863
    """
    reduction = _legacy(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = 0 if input.ndim == 1 else 1
    c = input.shape[cdim]
    logp = log_softmax(input, cdim)
    wshape = (c,) if cdim == 0 else (1, c, *([1] * (input.ndim - 2)))
    if target.dtype.is_floating_point:  # class probabilities
        if target.shape != input.shape:
            raise RuntimeError(
                f"Expected target size {list(input.shape)}, got {list(target.shape)}"
            )
        if label_smoothing > 0:
            target = target * (1.0 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // c) if input.numel() else loss.sum()
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0.0:
        return nll
    x, t, unbatched = _batched(logp, target)
    kept = t != ignore_index
    keep = kept.to(x.dtype)
    per_class = x * weight.reshape(1, c, *([1] * (x.ndim - 2))) if weight is not None else x
    smooth = ember.where(kept, -per_class.sum(1), 0.0)  # an ignored row adds 0, even -inf/NaN
    if reduction == "none":
        smooth = smooth.reshape(()) if unbatched else smooth
    elif reduction == "sum":
        smooth = smooth.sum()
    elif weight is not None:
        hot = _class_mask(t, c, x.ndim).to(x.dtype) * weight.reshape(1, c, *([1] * (x.ndim - 2)))
        smooth = smooth.sum() / (hot.sum(1) * keep).sum()
    else:
        smooth = smooth.sum() / keep.sum()
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / c)


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
    reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Binary cross-entropy between probabilities and targets in ``[0, 1]``.

    ``-w * (y * log(x) + (1 - y) * log(1 - x))``, the logarithms clamped at -100. See
    ``ember.nn.BCELoss``.

    Args:
        input: probabilities, any shape.
        target: the input's shape.
        weight: a weight broadcast to the input. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Raises:
        ValueError: if the target's shape differs from the input's.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> x, y = ember.tensor([0.8, 0.1]), ember.tensor([1.0, 0.0])
        >>> round(F.binary_cross_entropy(x, y).item(), 4)
        0.1643
    """
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    loss = ember.ops.aten._binary_cross_entropy.default(input, target)  # PyTorch's gradients
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
    reduce: Any = None, reduction: str = "mean", pos_weight: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """Binary cross-entropy on logits: ``sigmoid`` and ``binary_cross_entropy`` in one stable step.

    See ``ember.nn.BCEWithLogitsLoss``.

    Args:
        input: logits, any shape.
        target: the input's shape.
        weight: a weight broadcast to the input. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        pos_weight: a weight of the positive class, broadcast along the last dim.
            Default: ``None``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Raises:
        ValueError: if the target's shape differs from the input's.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> x, y = ember.tensor([2.0, -1.0]), ember.tensor([1.0, 0.0])
        >>> round(F.binary_cross_entropy_with_logits(x, y).item(), 4)
        0.2201
    """
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    # log(1 + exp(-x)) without overflow, with PyTorch's slope -1/2 at exactly x = 0
    log1pexp = -logsigmoid(input)
    if pos_weight is not None:
        loss = (1.0 - target) * input + (1.0 + (pos_weight - 1.0) * target) * log1pexp
    else:
        loss = (1.0 - target) * input + log1pexp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, _legacy(size_average, reduce, reduction))


def kl_div(
    input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
    reduction: str = "mean", log_target: bool = False,
) -> Tensor:  # fmt: skip
    """Kullback-Leibler divergence loss: ``target * (log(target) - input)`` per element.

    ``input`` holds log-probabilities; ``target`` probabilities, or log-probabilities with
    ``log_target``. Use ``reduction='batchmean'`` for the true divergence. See
    ``ember.nn.KLDivLoss``.

    Args:
        input: any shape.
        target: the input's shape.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'batchmean'``, ``'sum'`` or ``'mean'``. Default: ``'mean'``.
        log_target: ``target`` is given as log-probabilities. Default: ``False``.

    Returns:
        A scalar, or the input's shape with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> p = ember.tensor([[0.5, 0.5]])
        >>> q = ember.tensor([[0.25, 0.75]])
        >>> round(F.kl_div(q.log(), p, reduction='batchmean').item(), 4)
        0.1438
    """
    reduction = _legacy(size_average, reduce, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = ember.where(target > 0, target, ember.ones_like(target))
        loss = target * safe.log() - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
    size_average: Any = None, reduce: Any = None, reduction: str = "mean",
) -> Tensor:  # fmt: skip
    """Cosine embedding loss: ``1 - cos`` for pairs labelled 1, ``max(0, cos - margin)`` for -1.

    See ``ember.nn.CosineEmbeddingLoss``.

    Args:
        input1: ``(N, D)`` or ``(D,)``.
        input2: the same shape.
        target: ``(N,)`` or ``()`` of 1 and -1.
        margin: the similarity above which a -1 pair costs. Default: ``0.0``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Returns:
        A scalar, or ``(N,)`` with ``reduction='none'``.

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> a = ember.tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> F.cosine_embedding_loss(a, a, ember.tensor([1, -1]), reduction='none')
        tensor([0., 1.])
    """
    eps = 1e-12
    dim = input1.ndim - 1
    prod = (input1 * input2).sum(dim)
    denom = (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    cos = prod / denom
    zeros = ember.zeros_like(cos)
    pos = ember.where(target == 1, 1.0 - cos, zeros)
    neg = ember.where(target == -1, (cos - margin).relu(), zeros)
    return _reduce(pos + neg, _legacy(size_average, reduce, reduction))
