"""Norms and distances of ``ember.nn.functional``: normalize, cosine_similarity,
pairwise_distance, pdist.

All go through ``_vector_norm``, a p-norm whose gradient is 0 (not NaN) at a
zero vector, as PyTorch's ``linalg.vector_norm``: the root is taken of a sum
that is replaced by 1 where it is 0, and the result masked back to 0.
"""

from __future__ import annotations

import numpy as np

import ember
from ember.core.tensor import Tensor

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "pdist"]


def _vector_norm(x: Tensor, p: float, dim: int | tuple[int, ...], keepdim: bool = False) -> Tensor:
    """``||x||_p`` over ``dim`` with a zero gradient at zero vectors, NaN where ``x`` has one
    (``linalg.vector_norm``, whose roots and powers are guarded where the input is 0)."""
    return ember.linalg.vector_norm(x, float(p), dim, keepdim)  # type: ignore[no-any-return]


def _clamp_min_no_grad(t: Tensor, lo: float) -> Tensor:
    """``max(t, lo)`` whose gradient is the identity's (PyTorch clamps under no_grad there)."""
    return t + (t.clamp(min=lo) - t).detach()


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """Scale slices along ``dim`` to unit p-norm: ``x / max(||x||_p, eps)``.

    ``x / max(||x||_p, eps)`` along ``dim``.

    Args:
        input: any shape.
        p: the norm degree. Default: ``2.0``.
        dim: the dimension to normalise. Default: ``1``.
        eps: the smallest norm divided by. Default: ``1e-12``.
        out: a tensor to write the result into. Default: ``None``.

    Returns:
        A tensor of the input's shape.

    Examples:
        >>> import ember
        >>> ember.nn.functional.normalize(ember.tensor([[3.0, 4.0]], dtype=ember.float64)).tolist()
        [[0.6, 0.8]]
    """
    denom = _vector_norm(input, p, dim, keepdim=True).clamp(min=eps)
    result = input / denom
    return out.copy_(result) if out is not None else result


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Compute the cosine of the angle between ``x1`` and ``x2`` along ``dim``.

    ``sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps))`` along ``dim`` (broadcasting).

    Args:
        x1: the first input.
        x2: the second input, broadcastable with ``x1``.
        dim: the dimension to reduce. Default: ``1``.
        eps: the smallest norm divided by. Default: ``1e-8``.

    Returns:
        The broadcast shape without ``dim``; values in ``[-1, 1]``.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1.0, 0.0]])
        >>> ember.nn.functional.cosine_similarity(a, ember.tensor([[1.0, 1.0]])).tolist()
        [0.7071067690849304]
    """
    x1, x2 = ember.broadcast_tensors(x1, x2)
    n1 = _clamp_min_no_grad(_vector_norm(x1, 2.0, dim, keepdim=True), eps)
    n2 = _clamp_min_no_grad(_vector_norm(x2, 2.0, dim, keepdim=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """Compute the p-norm distance between ``x1`` and ``x2`` over the last dim.

    ``||x1 - x2 + eps||_p`` over the last dim (broadcasting).

    Args:
        x1: ``(N, D)`` or ``(D,)``.
        x2: broadcastable with ``x1``.
        p: the norm degree. Default: ``2.0``.
        eps: added to the difference to avoid a zero norm. Default: ``1e-6``.
        keepdim: keep the reduced dim. Default: ``False``.

    Returns:
        ``(N,)`` or ``()`` (``(N, 1)`` with ``keepdim``).

    Examples:
        >>> import ember
        >>> F = ember.nn.functional
        >>> F.pairwise_distance(ember.tensor([[3.0, 0.0]]), ember.tensor([[0.0, 4.0]]), eps=0.0)
        tensor([5.])
    """
    dim = max(x1.ndim, x2.ndim) - 1
    if dim < 0:
        return _vector_norm((x1 - x2 + eps).reshape(1), p, 0, keepdim=False)
    return _vector_norm(x1 - x2 + eps, p, dim, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between all row pairs ``i < j`` of an (N, M) input, in row-major
    order of the upper triangle: N * (N - 1) / 2 values.

    Args:
        input: ``(N, M)``.
        p: the norm degree. Default: ``2.0``.

    Returns:
        ``(N * (N - 1) / 2,)``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])
        >>> ember.nn.functional.pdist(x).tolist()
        [5.0, 1.0, 4.242640495300293]
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    rows, cols = np.triu_indices(n, 1)
    i = ember.from_numpy(rows.astype(np.int64)).to(input.device)
    j = ember.from_numpy(cols.astype(np.int64)).to(input.device)
    diff = input.index_select(0, i) - input.index_select(0, j)
    return _vector_norm(diff, p, 1)
