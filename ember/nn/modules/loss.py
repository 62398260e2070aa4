"""Loss modules: each stores its options (``reduction`` etc.) and calls one functional.

Class weights and ``pos_weight`` are buffers, so they follow ``.to()`` and
appear in ``state_dict`` like PyTorch's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.functional._loss import _legacy
from ember.nn.modules.distance import PairwiseDistance
from ember.nn.modules.module import Module

__all__ = [
    "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
    "HingeEmbeddingLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
    "MultiLabelMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "PoissonNLLLoss",
    "GaussianNLLLoss", "CTCLoss", "NLLLoss2d",
]  # fmt: skip


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__()
        self.reduction = _legacy(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(
        self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
        reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error loss: ``(x - y) ** 2`` per element, reduced by ``reduction``.

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> ember.nn.MSELoss()(ember.tensor([2.0]), ember.tensor([0.0])).item()
        4.0
        >>> ember.nn.MSELoss(reduction="none")(ember.tensor([2.0, 1.0]), ember.tensor([0.0, 1.0]))
        tensor([4., 0.])
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Return the loss between ``input`` and ``target``."""
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error: ``|x - y|`` per element, reduced by ``reduction``.

    The gradient is ``sign(x - y)`` (0 where they are equal).

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.L1Loss()
        >>> loss(ember.tensor([1.0, 3.0]), ember.tensor([2.0, 2.0])).item()
        1.0
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Smooth L1 loss: squared error below ``beta``, absolute error above.

    ``0.5 * d ** 2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta``, for ``d = x - y``;
    ``beta=0`` gives the L1 loss. ``HuberLoss`` is the same loss scaled by ``beta``.

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        beta: where the loss turns from quadratic to linear. Default: ``1.0``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.SmoothL1Loss(reduction='none')
        >>> loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
        tensor([0.1250, 2.5000])
    """

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: squared error below ``delta``, linear error above.

    ``0.5 * d ** 2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 * delta)``, for
    ``d = x - y``.

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        delta: where the loss turns from quadratic to linear. Default: ``1.0``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.HuberLoss(reduction='none', delta=2.0)
        >>> loss(ember.tensor([1.0, 4.0]), ember.tensor([0.0, 0.0]))
        tensor([0.5000, 6.0000])
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood loss for classification from log-probabilities.

    The loss of sample ``n`` is ``-weight[y_n] * x[n, y_n]``; feed it ``log_softmax`` output
    (``CrossEntropyLoss`` does both). With ``'mean'`` the sum is divided by the total weight of
    the targets that are not ``ignore_index``.

    Input: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``. Target: class indices ``(N,)``, ``()`` or
    ``(N, d1, ...)``. Output: a scalar, or the target's shape with ``reduction='none'``.

    Args:
        weight: a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        ignore_index: a target value that contributes nothing. Default: ``-100``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> logp = ember.tensor([[0.5, 0.5], [0.25, 0.75]]).log()
        >>> ember.nn.NLLLoss()(logp, ember.tensor([0, 1]))
        tensor(0.4904)
    """

    def __init__(
        self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
        reduce: Any = None, reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy loss between logits and class indices or class probabilities.

    Equivalent to ``NLLLoss`` applied to ``log_softmax(input, 1)``. The target is either class
    indices (an integer tensor) or probabilities of the input's shape. ``label_smoothing``
    mixes the target with the uniform distribution.

    Input: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` logits. Target: indices ``(N,)``, ``()`` or
    ``(N, d1, ...)``, or probabilities of the input's shape. Output: a scalar, or one loss per
    sample with ``reduction='none'``.

    Args:
        weight: a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        ignore_index: a target index that contributes nothing. Default: ``-100``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing: the amount of smoothing, in ``[0, 1]``. Default: ``0.0``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.CrossEntropyLoss()
        >>> logits = ember.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
        >>> round(loss(logits, ember.tensor([0, 2])).item(), 4)
        0.6691
        >>> round(loss(logits, ember.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])).item(), 4)
        0.6691
    """

    def __init__(
        self, weight: Tensor | None = None, size_average: Any = None, ignore_index: int = -100,
        reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0,
    ) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input, target, self.weight, ignore_index=self.ignore_index,
            reduction=self.reduction, label_smoothing=self.label_smoothing,
        )  # fmt: skip


class BCELoss(_WeightedLoss):
    """Binary cross-entropy between probabilities and binary targets.

    ``l = -w * (y * log(x) + (1 - y) * log(1 - x))``, with the logarithms clamped at -100 so
    the loss stays finite. Use ``BCEWithLogitsLoss`` on raw scores; it is more stable.

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        weight: a rescaling weight broadcast to the input. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.BCELoss()
        >>> round(loss(ember.tensor([0.8, 0.1]), ember.tensor([1.0, 0.0])).item(), 4)
        0.1643
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits: a sigmoid and ``BCELoss`` in one stable step.

    ``l = -w * (p * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x)))``, where ``p`` is
    ``pos_weight`` (1 by default), computed without overflow for large ``|x|``.

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        weight: a rescaling weight broadcast to the input. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        pos_weight: a weight for the positive class, broadcast along the last dim.
            Default: ``None``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.BCEWithLogitsLoss()
        >>> round(loss(ember.tensor([2.0, -1.0]), ember.tensor([1.0, 0.0])).item(), 4)
        0.2201
    """

    def __init__(
        self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
        reduction: str = "mean", pos_weight: Tensor | None = None,
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence loss: ``target * (log(target) - input)`` per element.

    ``input`` holds log-probabilities; ``target`` holds probabilities, or log-probabilities
    with ``log_target=True``. ``'batchmean'`` divides the sum by the batch size, which gives
    the true KL divergence; ``'mean'`` divides by the number of elements.

    Input: any shape. Target: the same shape. Output: a scalar, or the input's shape with
    ``reduction='none'``.

    Args:
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'batchmean'``, ``'sum'`` or ``'mean'``. Default: ``'mean'``.
        log_target: ``target`` is given as log-probabilities. Default: ``False``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.KLDivLoss(reduction='batchmean')
        >>> p = ember.tensor([[0.5, 0.5]])
        >>> loss(p.log(), p).item()
        0.0
    """

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
        log_target: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineEmbeddingLoss(_Loss):
    """Cosine embedding loss: pull pairs labelled 1 together and push pairs labelled -1 apart.

    ``1 - cos(x1, x2)`` where ``y = 1`` and ``max(0, cos(x1, x2) - margin)`` where ``y = -1``.

    Input1, Input2: ``(N, D)`` or ``(D,)``. Target: ``(N,)`` or ``()`` of 1 and -1. Output: a
    scalar, or ``(N,)`` with ``reduction='none'``.

    Args:
        margin: between -1 and 1; 0 to 0.5 is typical. Default: ``0.0``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.CosineEmbeddingLoss(reduction='none')
        >>> a = ember.tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> loss(a, ember.tensor([[1.0, 0.0], [1.0, 0.0]]), ember.tensor([1, -1]))
        tensor([0., 1.])
    """

    def __init__(
        self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
        reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """Margin ranking loss: make ``x1`` rank above ``x2`` where ``y = 1`` (below where -1).

    ``max(0, -y * (x1 - x2) + margin)``.

    Input1, Input2, Target: the same shape. Output: a scalar, or that shape with
    ``reduction='none'``.

    Args:
        margin: the required gap. Default: ``0.0``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.MarginRankingLoss(margin=0.5)
        >>> loss(ember.tensor([1.0]), ember.tensor([2.0]), ember.tensor([-1.0])).item()
        0.0
    """

    def __init__(
        self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
        reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """Hinge embedding loss for labels of 1 (similar) and -1 (dissimilar).

    ``x`` for ``y == 1`` and ``max(0, margin - x)`` for ``y == -1``.

    Use it to learn embeddings from a distance ``x`` and a label ``y`` of 1 (similar) or -1.

    Input: any shape. Target: the same shape. Output: a scalar, or that shape with
    ``reduction='none'``.

    Args:
        margin: the distance beyond which dissimilar pairs cost nothing. Default: ``1.0``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.HingeEmbeddingLoss(reduction='none')
        >>> loss(ember.tensor([0.3, 0.3]), ember.tensor([1.0, -1.0]))
        tensor([0.3000, 0.7000])
    """

    def __init__(
        self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
        reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Soft margin loss: the logistic loss of two-class targets of 1 and -1.

    ``log(1 + exp(-y x))``.

    The two-class logistic loss for targets ``y`` of 1 or -1; ``'mean'`` averages over every
    element.

    Input: any shape. Target: the same shape. Output: a scalar, or that shape with
    ``reduction='none'``.

    Args:
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.SoftMarginLoss()
        >>> round(loss(ember.tensor([2.0, -1.0]), ember.tensor([1.0, -1.0])).item(), 4)
        0.2201
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over classes.

    For each sample, ``-mean_c(w_c * (y_c * log(sigmoid(x_c)) + (1 - y_c) * log(sigmoid(-x_c))))``
    with multi-hot targets ``y`` of 0 and 1.

    Input: ``(N, C)``. Target: ``(N, C)`` of 0 and 1. Output: a scalar, or ``(N,)`` with
    ``reduction='none'``.

    Args:
        weight: a rescaling weight per class, shape ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.MultiLabelSoftMarginLoss(reduction='none')
        >>> loss(ember.zeros(1, 3), ember.tensor([[1.0, 0.0, 1.0]]))
        tensor([0.6931])
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss with ``p`` in {1, 2}.

    For sample ``x`` with class ``y``: ``sum_{i != y} max(0, margin - x[y] + x[i]) ** p / C``,
    each term multiplied by ``weight[y]`` when given.

    Input: ``(N, C)`` or ``(C,)``. Target: class indices ``(N,)`` or ``()``. Output: a scalar,
    or ``(N,)`` with ``reduction='none'``.

    Args:
        p: 1 or 2. Default: ``1``.
        margin: the required gap. Default: ``1.0``.
        weight: a weight per class, shape ``(C,)``. Default: ``None``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Raises:
        ValueError: if ``p`` is not 1 or 2, or ``weight`` is not 1-dimensional.

    Examples:
        >>> import ember
        >>> loss = ember.nn.MultiMarginLoss()
        >>> loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([3])).item()
        0.32499998807907104
    """

    def __init__(
        self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
        size_average: Any = None, reduce: Any = None, reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.ndim}D "
                "instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input, target, self.p, self.margin, self.weight, reduction=self.reduction
        )


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss over (target, non-target) class pairs.

    The target row lists the sample's classes and ends at the first -1. The loss sums
    ``max(0, 1 - (x[j] - x[i]))`` over target classes ``j`` and other classes ``i``, divided
    by ``C``.

    Input: ``(N, C)`` or ``(C,)``. Target: the input's shape, integer class indices padded with
    -1. Output: a scalar, or ``(N,)`` with ``reduction='none'``.

    Args:
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.MultiLabelMarginLoss()
        >>> x = ember.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> round(loss(x, ember.tensor([[3, 0, -1, 1]])).item(), 4)
        0.85
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet margin loss: an anchor should be nearer its positive than its negative.

    ``max(0, margin + d(a, p) - d(a, n))`` with the p-norm distance.

    ``a`` is the anchor, ``p`` a positive and ``n`` a negative sample; ``d`` is the p-norm
    distance (``pairwise_distance``). With ``swap`` the negative's distance is the smaller of
    ``d(a, n)`` and ``d(p, n)``.

    Input: anchor, positive and negative of shape ``(N, D)`` or ``(D,)``. Output: a scalar, or
    ``(N,)`` with ``reduction='none'``.

    Args:
        margin: the required gap, greater than 0. Default: ``1.0``.
        p: the norm degree. Default: ``2.0``.
        eps: added to the difference for stability. Default: ``1e-6``.
        swap: use the distance swap. Default: ``False``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Raises:
        ValueError: if ``margin`` is not positive.

    Examples:
        >>> import ember
        >>> loss = ember.nn.TripletMarginLoss(margin=1.0)
        >>> a, p, n = ember.zeros(1, 2), ember.zeros(1, 2), ember.tensor([[3.0, 4.0]])
        >>> loss(a, p, n).item(), round(loss(a, n, p).item(), 4)
        (0.0, 6.0)
    """

    def __init__(
        self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
        size_average: Any = None, reduce: Any = None, reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
            swap=self.swap, reduction=self.reduction,
        )  # fmt: skip


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance function (default: ``PairwiseDistance()``).

    ``max(0, margin + d(a, p) - d(a, n))`` where ``d`` is ``distance_function``.

    Input: anchor, positive and negative that ``distance_function`` accepts (``(N, D)`` for
    the default). Output: a scalar, or ``(N,)`` with ``reduction='none'``.

    Args:
        distance_function: a callable returning one distance per sample. Default:
            ``PairwiseDistance()``.
        margin: the required gap, greater than 0. Default: ``1.0``.
        swap: use the distance swap (see ``TripletMarginLoss``). Default: ``False``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Raises:
        ValueError: if ``margin`` is not positive.

    Examples:
        >>> import ember
        >>> cos = lambda x, y: 1.0 - ember.nn.functional.cosine_similarity(x, y)
        >>> loss = ember.nn.TripletMarginWithDistanceLoss(distance_function=cos, margin=0.5)
        >>> a = ember.tensor([[1.0, 0.0]])
        >>> loss(a, a, ember.tensor([[0.0, 1.0]])).item()
        0.0
    """

    def __init__(
        self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction,
        )  # fmt: skip


class PoissonNLLLoss(_Loss):
    """Negative log likelihood of a Poisson target.

    With ``log_input`` (the default) the loss is ``exp(x) - y * x``; otherwise it is
    ``x - y * log(x + eps)``. ``full`` adds the Stirling term ``y * log(y) - y + 0.5 * log(2 pi y)``
    (for ``y > 1``).

    Input: any shape. Target: the same shape. Output: a scalar, or that shape with
    ``reduction='none'``.

    Args:
        log_input: the input is the log of the rate. Default: ``True``.
        full: add the Stirling approximation term. Default: ``False``.
        size_average: deprecated; use ``reduction``.
        reduce: deprecated; use ``reduction``.
        eps: keeps ``log`` finite when ``log_input=False``. Default: ``1e-8``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.PoissonNLLLoss(reduction='none')
        >>> loss(ember.tensor([0.0, 1.0]), ember.tensor([1.0, 2.0]))
        tensor([1.0000, 0.7183])
    """

    def __init__(
        self, log_input: bool = True, full: bool = False, size_average: Any = None,
        eps: float = 1e-8, reduce: Any = None, reduction: str = "mean",
    ) -> None:  # fmt: skip
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
            reduction=self.reduction,
        )  # fmt: skip


class GaussianNLLLoss(_Loss):
    """Negative log likelihood of a Gaussian target with predicted variance ``var``.

    ``0.5 * (log(max(var, eps)) + (x - y) ** 2 / max(var, eps))`` per element, plus
    ``0.5 * log(2 pi)`` with ``full``. ``var`` is the input's shape, or that shape with one
    fewer (or a final size-1) dimension for one variance per sample, or a float.

    Input: ``(N, *)``. Target: the same shape. Var: see above. Output: a scalar, or ``(N, *)``
    with ``reduction='none'``.

    Args:
        full: add the constant term. Default: ``False``.
        eps: the lower clamp of ``var``. Default: ``1e-6``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    Examples:
        >>> import ember
        >>> loss = ember.nn.GaussianNLLLoss()
        >>> loss(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 4.0]), ember.ones(2)).item()
        1.0
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss (which handles (N, C, H, W) input).

    Examples:
        >>> import ember
        >>> logp = ember.full((1, 2, 2, 2), 0.5).log()
        >>> round(ember.nn.NLLLoss2d()(logp, ember.zeros(1, 2, 2, dtype=ember.int64)).item(), 4)
        0.6931
    """


class CTCLoss(_Loss):
    """Connectionist temporal classification loss over (T, N, C) log-probabilities.

    ``log_probs`` are ``log_softmax`` outputs over ``C`` classes, class ``blank`` included. The
    loss of a sample is the negative log of the total probability of every alignment that
    collapses (repeats merged, blanks dropped) to its target. ``'mean'`` divides each loss by
    its target length, then averages over the batch.

    Input: log_probs ``(T, N, C)`` or ``(T, C)``; targets ``(N, S)`` padded or 1-D concatenated;
    input_lengths and target_lengths ``(N,)`` (tensors or sequences). Output: a scalar, or
    ``(N,)`` with ``reduction='none'``.

    Args:
        blank: the index of the blank class. Default: ``0``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        zero_infinity: replace infinite losses (impossible alignments) and their gradients
            by 0. Default: ``False``.

    Examples:
        >>> import ember
        >>> ctc = ember.nn.CTCLoss()
        >>> lp = ember.full((3, 1, 2), 0.5).log()
        >>> round(ctc(lp, ember.tensor([[1]]), [3], [1]).item(), 4)
        0.2877
    """

    def __init__(
        self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
    ) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any
    ) -> Tensor:
        return F.ctc_loss(
            log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
            self.zero_infinity,
        )  # fmt: skip
