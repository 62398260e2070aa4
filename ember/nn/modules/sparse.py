"""EmbeddingBag: sums, means or maxima of bags of embeddings (over ``F.embedding_bag``).

The weight starts N(0, 1) with the ``padding_idx`` row zeroed, as PyTorch's.
"""

from __future__ import annotations

from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["EmbeddingBag"]


class EmbeddingBag(Module):
    """A lookup table whose forward reduces each bag of indices to one vector.

    Each bag is a run of indices; its vectors are reduced by ``mode`` without materialising
    the ``(*, embedding_dim)`` lookup. Bags are given either as a 2-d ``input`` (one bag per
    row) or as a 1-d ``input`` with ``offsets`` (the start of each bag).

    Input: ``(B, L)`` indices, or ``(n,)`` indices with ``offsets`` of shape ``(B,)``
    (``(B + 1,)`` with ``include_last_offset``); ``per_sample_weights`` like ``input`` (with
    ``mode='sum'`` only). Output: ``(B, embedding_dim)``.

    Args:
        num_embeddings: the number of rows of the table.
        embedding_dim: the size of each vector.
        max_norm: renormalise looked-up rows whose norm exceeds this. Default: ``None``.
        norm_type: the p of the norm for ``max_norm``. Default: ``2.0``.
        scale_grad_by_freq: divide gradients by index frequency. Default: ``False``.
        mode: ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse: must stay ``False``; sparse gradients are not supported. Default: ``False``.
        include_last_offset: ``offsets`` has one extra entry, the end of the last bag.
            Default: ``False``.
        padding_idx: a row that is initialised to zeros and left out of every bag.
            Default: ``None``.
        device: where to create ``weight``. Default: the default device.
        dtype: its dtype. Default: the default dtype.

    Note:
        ``sparse=True`` raises ``NotImplementedError`` in forward: ember has no sparse
        gradients.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> bag = ember.nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(ember.tensor([1, 2, 4, 5]), ember.tensor([0, 2])).shape
        ember.Size([2, 3])
        >>> bag
        EmbeddingBag(10, 3, mode='sum')
    """

    def __init__(
        self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
        sparse: bool = False, _weight: Tensor | None = None, include_last_offset: bool = False,
        padding_idx: int | None = None, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx += num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            w = ember.empty(num_embeddings, embedding_dim, device=device, dtype=dtype)
            self.weight = Parameter(w)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Draw ``weight`` from ``N(0, 1)`` again, zeroing the ``padding_idx`` row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(
        self, input: Tensor, offsets: Tensor | None = None,
        per_sample_weights: Tensor | None = None,
    ) -> Tensor:  # fmt: skip
        return F.embedding_bag(
            input, self.weight, offsets, self.max_norm, self.norm_type,
            self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
            self.include_last_offset, self.padding_idx,
        )  # fmt: skip

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, max_norm: float | None = None,
        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
        sparse: bool = False, include_last_offset: bool = False, padding_idx: int | None = None,
    ) -> EmbeddingBag:  # fmt: skip
        """An EmbeddingBag whose weight is ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(
            rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
            include_last_offset, padding_idx,
        )  # fmt: skip
        bag.weight.requires_grad_(not freeze)
        return bag
