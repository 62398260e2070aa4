"""Distance layers: CosineSimilarity and PairwiseDistance (over ``ember.nn.functional``)."""

from __future__ import annotations

from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """Cosine similarity of two inputs along ``dim``.

    ``x1 . x2 / max(||x1|| * ||x2||, eps)`` along ``dim``; the inputs broadcast.

    Input: ``x1`` and ``x2`` broadcastable, with ``dim`` present. Output: the broadcast shape
    without ``dim``.

    Args:
        dim: the dimension to reduce. Default: ``1``.
        eps: the lower bound of the norms' product. Default: ``1e-8``.

    Examples:
        >>> import ember
        >>> cos = ember.nn.CosineSimilarity(dim=0)
        >>> cos(ember.tensor([1.0, 0.0]), ember.tensor([2.0, 0.0])).item()
        1.0
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """Compute the p-norm distance between the rows of two inputs.

    p-norm distance of ``x1 - x2 + eps`` over the last dim.

    Input: ``(N, D)`` or ``(D,)``, broadcastable. Output: ``(N,)`` or ``()`` (``(N, 1)`` with
    ``keepdim``).

    Args:
        p: the norm degree. Default: ``2.0``.
        eps: added to the difference to avoid a zero norm. Default: ``1e-6``.
        keepdim: keep the reduced dim. Default: ``False``.

    Examples:
        >>> import ember
        >>> dist = ember.nn.PairwiseDistance()
        >>> dist(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
