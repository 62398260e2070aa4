# mypy: disable-error-code="operator, attr-defined, return-value, arg-type"
# (Tensor dunders are bound from ops.yaml at import time, so mypy cannot see them.)
"""Flattening parameters into one vector and back (``parameters_to_vector`` and inverse).

``parameters_to_vector`` is differentiable: it reshapes each parameter and
joins them by adding zero-padded copies (the core has no ``cat`` yet).
"""

from __future__ import annotations

from collections.abc import Iterable

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and joined into one 1-D tensor.

    Examples:
        >>> import ember
        >>> ps = [ember.ones(2), ember.zeros(1, 2)]
        >>> ember.nn.utils.parameters_to_vector(ps).tolist()
        [1.0, 1.0, 0.0, 0.0]
    """
    ps = list(parameters)
    total = sum(p.numel() for p in ps)
    out: Tensor | None = None
    offset = 0
    for p in ps:
        # Embed each flat parameter at its offset through a (n, total) selection matrix.
        n = p.numel()
        sel = ember.eye(n, total - offset, dtype=p.dtype, device=p.device)
        if offset:
            sel = ember.zeros(n, total, dtype=p.dtype, device=p.device)
            with no_grad():
                sel[:, offset : offset + n].copy_(ember.eye(n, dtype=p.dtype, device=p.device))
        piece = p.reshape(-1).matmul(sel)
        out = piece if out is None else out + piece
        offset += n
    return out if out is not None else ember.zeros(0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into ``parameters`` (in place, no grad)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset : offset + n].view_as(p))
            offset += n
