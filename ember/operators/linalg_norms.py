"""Composite norms and distances: linalg.vector_norm/matrix_norm/norm/vecdot and cdist.

All are reductions over elementwise operators (and, for large ``cdist``, one matrix
product), so every device with the primitive set runs them. Where the derivative is
singular at zero (``sqrt`` of a sum of squares, ``s ** (1/p)``) ``_safe_root`` gives
PyTorch's zero subgradient instead of NaN. The singular-value norms (ord 2, -2, 'nuc')
come from ``linalg.svdvals`` (``linalg_derived.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, _wrap_dim
from ember.operators.linalg_products import _NAMES, _aten, _is_float, _scalar

__all__ = ["vector_norm", "matrix_norm", "linalg_norm", "vecdot", "cdist"]


# -- norms -----------------------------------------------------------------------------------------
def _safe_root(s: Tensor, p: float) -> Tensor:
    """``s ** (1/p)`` for ``s >= 0`` whose gradient is 0 (not NaN/inf) where ``s == 0``."""
    aten = _aten()
    zero = s == 0  # not ``s > 0``: a NaN sum must stay NaN
    safe = aten.where.self(zero, _scalar(1, s), s)
    root = safe.sqrt() if p == 2 else safe.pow(_scalar(1.0 / p, s))
    return aten.where.self(zero, _scalar(0, s), root)


def _dims(dim: Any, ndim: int) -> list[int]:
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return [_wrap_dim(d, ndim) for d in dims] if dims else list(range(ndim))


def vector_norm(self: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False,
                dtype: Any = None) -> Tensor:  # fmt: skip
    if not _is_float(self):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_NAMES[self._dtype.name]}"
        )
    x = self
    if dtype is not None:
        if dt.promote_types(self._dtype, dtype) is not dtype:
            raise RuntimeError(
                f"linalg.vector_norm: the dtype of the input ({_NAMES[self._dtype.name]}) should "
                f"be convertible without narrowing to the specified dtype "
                f"({_NAMES[dtype.name]})"
            )
        x = self.to(dtype)
    dims = _dims(dim, x.ndim) if x.ndim else []
    p = float(ord)
    if p < 0 or math.isinf(p):
        empty = [d for d in dims if x._shape[d] == 0]
        if (dim is None and x.numel() == 0) or empty:
            where = " on an empty tensor" if dim is None else f" on the dimension {empty[0]}"
            name = "inf" if p == math.inf else ("-inf" if p == -math.inf else f"{ord}")
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {name} norm{where}"
                + ("" if dim is None else "")
                + " because the operation does not have an identity"
            )
    a = x.abs()
    if p == math.inf:
        return a.amax(dims, keepdim) if x.ndim else a.clone()
    if p == -math.inf:
        return a.amin(dims, keepdim) if x.ndim else a.clone()
    if p == 0:
        count = (x != 0).to(x._dtype).sum(dims or None, keepdim)
        if not x._requires_grad:
            return count
        # a count has a zero gradient but is still the input's function, as PyTorch's: add
        # the sum of x with every element replaced by 0 (exactly 0, even for inf and NaN)
        nothing = x.masked_fill(_aten().ones.default((), dtype=dt.bool_, device=x._device), 0)
        return count + nothing.sum(dims or None, keepdim)
    if p == 1:
        return a.sum(dims or None, keepdim)
    if p == 2:
        return _safe_root((x * x).sum(dims or None, keepdim), 2)
    s = _safe_pow(a, p).sum(dims or None, keepdim)
    if p < 0:
        return s.pow(_scalar(1.0 / p, s))
    return _safe_root(s, p)


def _safe_pow(a: Tensor, p: float) -> Tensor:
    """``a ** p`` for ``a >= 0`` whose gradient is 0 (not NaN) where ``a == 0``, as PyTorch's
    p-norm backward (``p < 1`` would give ``0 * inf`` there)."""
    aten = _aten()
    zero = a == 0  # not ``a > 0``: NaN elements must stay NaN
    safe = aten.where.self(zero, _scalar(1, a), a)
    return aten.where.self(zero, _scalar(0 if p > 0 else math.inf, a), safe.pow(_scalar(p, a)))


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(self: Tensor, ord: Any = "fro", dim: Sequence[int] = (-2, -1),
                keepdim: bool = False, dtype: Any = None) -> Tensor:  # fmt: skip
    if self.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d0, d1 = (_wrap_dim(d, self.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord == "fro":
        return vector_norm(self, 2, (d0, d1), keepdim, dtype)
    x = self if dtype is None else self.to(dtype)
    if not _is_float(x):
        raise RuntimeError(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
            f"{_NAMES[x._dtype.name]}"
        )
    if ord in ("nuc", 2, -2):
        from ember.operators.linalg_derived import singular_value_norm

        return singular_value_norm(x, ord, d0, d1, keepdim)
    # ord 1: max over columns of the column sums; inf: max over rows of the row sums.
    inner_dim, outer_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    s = x.abs().sum(inner_dim, True)
    r = s.amax(outer_dim, True) if ord > 0 else s.amin(outer_dim, True)
    return r if keepdim else r.squeeze((d0, d1))


def linalg_norm(self: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False,
                dtype: Any = None) -> Tensor:  # fmt: skip
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
            )
        if len(dims) == 2:
            return matrix_norm(self, "fro" if ord is None else ord, dims, keepdim, dtype)
        return vector_norm(self, 2 if ord is None else ord, dims, keepdim, dtype)
    if ord is None:
        return vector_norm(self, 2, None, keepdim, dtype)
    if self.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{self.ndim}D."
        )
    if self.ndim == 2:
        return matrix_norm(self, ord, (-2, -1), keepdim, dtype)
    return vector_norm(self, ord, None, keepdim, dtype)


def vecdot(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_NAMES[x._dtype.name]} and y of type {_NAMES[y._dtype.name]} instead"
        )
    if not _is_float(x):
        raise RuntimeError(
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
            f"{_NAMES[x._dtype.name]}"
        )
    return (x * y).sum(dim)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Any = None) -> Tensor:
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
        if not _is_float(t):
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {_NAMES[t._dtype.name]}"
            )
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: "
            f"{x2._shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._dtype in (dt.float16, dt.bfloat16):
        raise NotImplementedError(f"\"cdist\" not implemented for '{_NAMES[x1._dtype.name]}'")
    if x1._dtype is not x2._dtype:
        raise RuntimeError(
            f"expected scalar type {_NAMES[x1._dtype.name]} but found {_NAMES[x2._dtype.name]}"
        )
    r1, r2 = x1._shape[-2], x2._shape[-2]
    mm = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode in (None, "use_mm_for_euclid_dist_if_necessary") and (r1 > 25 or r2 > 25)
    )
    if p == 2 and mm:
        # |a - b|^2 = |a|^2 + |b|^2 - 2 a.b: one matrix product instead of a P x R x M tensor.
        n1 = (x1 * x1).sum(-1, True)
        n2 = (x2 * x2).sum(-1, True)
        d2 = n1 - 2 * (x1 @ x2.mT) + n2.mT
        return _safe_root(d2.clamp(min=0), 2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return vector_norm(diff, p, -1, False)
