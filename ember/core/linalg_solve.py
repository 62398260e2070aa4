# mypy: disable-error-code="operator, union-attr, attr-defined"
# (Tensor dunders are bound from ops.yaml at import time, so mypy cannot see them.)
"""Composite dense solvers: linalg.solve, linalg.inv and linalg.det by elimination with
partial pivoting, written in ember operators.

One Python step per column (n steps for n x n matrices, each a handful of batched
operators over every matrix of the batch: argmax for the pivot, a row swap by
``gather``, one rank-1 update), so any device with the primitive set runs them and
autograd differentiates them through the steps (exact for nonsingular matrices).
Singularity (an exactly zero pivot) is checked once, after the last step. These are
O(n^3) reference solvers: fine for the small systems of models and tests, not a
replacement for LAPACK on large ones.
"""

from __future__ import annotations

from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor

__all__ = ["linalg_solve", "linalg_inv", "linalg_det"]

_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16"}  # fmt: skip


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _check_square(name: str, a: Tensor) -> int:
    if a.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if a._shape[-1] != a._shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are "
            f"{a._shape[-2]} by {a._shape[-1]} matrices"
        )
    if a._dtype.category != dt.FLOAT:
        raise RuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got "
            f"{_NAMES[a._dtype.name]}"
        )
    if a._dtype in (dt.float16, dt.bfloat16):
        if name != "inv":  # PyTorch's LU kernel refuses them first
            raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_NAMES[a._dtype.name]}'")
        raise RuntimeError(
            f"linalg.{name}: Low precision dtypes not supported. Got {_NAMES[a._dtype.name]}"
        )
    return int(a._shape[-1])


def _pivot(m: Tensor, j: int, n: int, rows: Tensor) -> tuple[Tensor, Tensor]:
    """Swap row j with the row at or below j of largest |m[..., :, j]|; (m, swapped?)."""
    aten = _aten()
    col = m.narrow(-1, j, 1).narrow(-2, j, n - j).abs()
    p = col.argmax(-2, keepdim=True) + j  # (..., 1, 1)
    perm = aten.where.self(rows == j, p, aten.where.self(rows == p, j, rows))
    m = aten.gather.default(m, -2, perm.expand(m._shape))
    return m, p != j


def _eliminate(m: Tensor, n: int, below_only: bool) -> tuple[Tensor, Tensor, Tensor]:
    """Gauss(-Jordan) elimination on the augmented ``m``: (m, pivots, swap parity)."""
    aten = _aten()
    rows = aten.arange.start_step(0, n, 1, dtype=dt.int64, device=m._device).reshape(n, 1)
    pivots: list[Tensor] = []
    flips: Any = None
    for j in range(n):
        m, swapped = _pivot(m, j, n, rows)
        flips = swapped.to(dt.int64) if flips is None else flips + swapped.to(dt.int64)
        piv = m.narrow(-2, j, 1).narrow(-1, j, 1)  # (..., 1, 1)
        pivots.append(piv)
        safe = aten.where.self(piv == 0, aten.ones_like.default(piv), piv)
        row = m.narrow(-2, j, 1) / safe  # the pivot row, scaled to a unit pivot
        factor = m.narrow(-1, j, 1)
        keep = rows > j if below_only else rows != j
        factor = aten.where.self(keep, factor, aten.zeros_like.default(factor))
        m = m - factor * row
        if not below_only:
            m = aten.where.self(rows == j, row, m)
    return m, aten.cat(pivots, -1), flips


def _singular(pivots: Tensor) -> bool:
    return bool((pivots == 0).any()) if pivots.numel() else False


def linalg_solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:  # noqa: N803
    n = _check_square("solve", A)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return linalg_solve(A.mT, B.mT, True).mT
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B._shape) == tuple(A._shape[:-1]))
    b = B.unsqueeze(-1) if vector else B
    if b._shape[-2] != n:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({n}x{n} and {b._shape[-2]}x{b._shape[-1]})"
        )
    if b._dtype is not A._dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A._dtype.name} and B of type {b._dtype.name} instead"
        )
    from ember.core.structured import broadcast_shapes

    batch = tuple(broadcast_shapes(A._shape[:-2], b._shape[:-2]))
    a = A.expand(batch + (n, n))
    b = b.expand(batch + tuple(b._shape[-2:]))
    m, pivots, _ = _eliminate(_aten().cat([a, b], -1), n, below_only=False)
    if _singular(pivots):
        raise RuntimeError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        )
    x = m.narrow(-1, n, m._shape[-1] - n)
    return x.squeeze(-1) if vector else x


def linalg_inv(A: Tensor) -> Tensor:  # noqa: N803
    n = _check_square("inv", A)
    eye = _aten().eye.default(n, dtype=A._dtype, device=A._device)
    m, pivots, _ = _eliminate(
        _aten().cat([A, eye.expand(tuple(A._shape))], -1), n, below_only=False
    )
    if _singular(pivots):
        raise RuntimeError(
            "linalg.inv: The diagonal element is zero, the inversion could not be completed "
            "because the input matrix is singular."
        )
    return m.narrow(-1, n, n)


def linalg_det(A: Tensor) -> Tensor:  # noqa: N803
    n = _check_square("det", A)
    if n == 0:
        return _aten().ones.default(tuple(A._shape[:-2]), dtype=A._dtype, device=A._device)
    _, pivots, flips = _eliminate(A, n, below_only=True)
    sign = 1 - 2 * (flips % 2)
    return pivots.prod(-1).squeeze(-1) * sign.reshape(tuple(A._shape[:-2])).to(A._dtype)
