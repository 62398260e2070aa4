"""Composites over the factorizations: triangular and Cholesky solves, the pseudo-inverse,
rank, least squares, condition numbers and the singular-value matrix norms.

Each is a few ember operators around one decomposition primitive
(``linalg_factorizations.py``), so every device runs them and autograd differentiates them
through the primitives' formulas. Must always hold: arguments are checked here, with
PyTorch's messages, before any primitive runs; tolerances follow PyTorch's defaults
(``rtol = eps * max(m, n)`` when neither ``atol`` nor ``rtol`` is given).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.operators.linalg_factorizations import _is_meta, check_matrix, linalg_svdvals
from ember.operators.linalg_products import _NAMES, _aten

__all__ = [
    "solve_triangular",
    "triangular_solve",
    "cholesky_solve",
    "cholesky_inverse",
    "linalg_pinv",
    "pinverse",
    "linalg_matrix_rank",
    "linalg_lstsq",
    "linalg_cond",
    "singular_value_norm",
]


class TriangularSolveResult(NamedTuple):
    solution: Tensor
    cloned_coefficient: Tensor


class LstsqResult(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _common(fn: str, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """Both operands in their promoted floating dtype."""
    t = dt.promote_types(a._dtype, b._dtype)
    if t.category != dt.FLOAT:
        raise NotImplementedError(
            f"\"triangular_solve_cpu\" not implemented for '{_NAMES[t.name]}'"
        )
    return a.to(t), b.to(t)


def solve_triangular(A: Tensor, B: Tensor, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> Tensor:  # fmt: skip
    """``linalg.solve_triangular``: checks, promotion, then the primitive."""
    fn = "linalg.solve_triangular"
    check_matrix(fn, A, "triangular")
    if not isinstance(B, Tensor) or B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    n = A._shape[-1]
    k = B._shape[-2] if left else B._shape[-1]
    if k != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
            f"{B._shape[-2]}x{B._shape[-1]})"
        )
    a, b = _common(fn, A, B)
    return _aten().linalg_solve_triangular.default(  # type: ignore[no-any-return]
        a, b, upper=upper, left=left, unitriangular=unitriangular
    )


def triangular_solve(self: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,  # noqa: N803
                     unitriangular: bool = False) -> TriangularSolveResult:  # fmt: skip
    """``torch.triangular_solve(b, A)``: ``X`` with ``op(A) X = b``, and a copy of ``A``."""
    if A.ndim >= 2 and self.ndim >= 2 and A._shape[-1] != self._shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {A._shape[-2]} "
            f"by {A._shape[-1]} but each b matrix is {self._shape[-2]} by {self._shape[-1]}"
        )
    a = A.mT if transpose else A
    x = solve_triangular(a, self, upper=upper != transpose, unitriangular=unitriangular)
    from ember.operators.drivers import broadcast_shapes

    batch = tuple(broadcast_shapes(A._shape[:-2], self._shape[:-2]))
    return TriangularSolveResult(x, A.expand(batch + tuple(A._shape[-2:])).clone())


def cholesky_solve(self: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """``X`` with ``A X = B`` for ``A = L L^H`` (``U^H U`` when ``upper``) given its factor."""
    if input2.ndim >= 2 and self.ndim >= 2 and input2._shape[-1] != self._shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2._shape[-2]}"
            f" by {input2._shape[-1]} but each b matrix is {self._shape[-2]} by "
            f"{self._shape[-1]}"
        )
    f = input2
    y = solve_triangular(f.mT if upper else f, self, upper=False)
    return solve_triangular(f if upper else f.mT, y, upper=True)


def cholesky_inverse(self: Tensor, upper: bool = False) -> Tensor:
    """``A^-1`` for ``A = L L^H`` (``U^H U`` when ``upper``) given its Cholesky factor."""
    check_matrix("cholesky_inverse", self, "cholesky")
    n = self._shape[-1]
    eye = _aten().eye.default(n, dtype=self._dtype, device=self._device)
    return cholesky_solve(eye.expand(tuple(self._shape)), self, upper)


def _tolerance(S: Tensor, atol: Any, rtol: Any, m: int, n: int) -> Tensor:  # noqa: N803
    """PyTorch's cut-off ``max(atol, rtol * sigma_max)`` per matrix, shape (*, 1)."""
    aten = _aten()
    if S._shape[-1]:
        smax = S.amax(-1, keepdim=True)
    else:
        smax = aten.zeros_like.default(S.sum(-1, keepdim=True))
    if rtol is None:
        given = isinstance(atol, Tensor) or (atol is not None and atol > 0)
        rtol = 0.0 if given else _EPS[S._dtype.name] * max(m, n)
    tol = smax * (rtol.to(S._dtype).unsqueeze(-1) if isinstance(rtol, Tensor) else rtol)
    if isinstance(atol, Tensor):
        return aten.maximum.default(tol, atol.to(S._dtype).unsqueeze(-1))  # type: ignore[no-any-return]
    return tol.clamp_min(atol) if atol is not None else tol


def linalg_pinv(self: Tensor, atol: Any = None, rtol: Any = None,
                hermitian: bool = False) -> Tensor:  # fmt: skip
    """The Moore-Penrose pseudo-inverse from the SVD (``eigh`` when ``hermitian``)."""
    if (
        self._dtype.category != dt.FLOAT
        or self.ndim < 2
        or self._dtype in (dt.float16, dt.bfloat16)
    ):
        shape = list(self._shape)
        raise RuntimeError(
            f"linalg.pinv({_NAMES[self._dtype.name]}{{{shape}}}): expected a tensor with 2 or "
            "more dimensions of float, double, cfloat or cdouble types"
        )
    aten = _aten()
    m, n = self._shape[-2:]
    if hermitian:
        e, v = aten._linalg_eigh.default(self, "L", True)
        tol = _tolerance(e.abs(), atol, rtol, m, n)
        keep = e.abs() > tol
        inv = aten.where.self(keep, aten.where.self(keep, e, e * 0 + 1).reciprocal(), e * 0)
        return (v * inv.unsqueeze(-2)) @ v.mT
    u, s, vh = aten._linalg_svd.default(self, False, True)
    tol = _tolerance(s, atol, rtol, m, n)
    keep = s > tol
    inv = aten.where.self(keep, aten.where.self(keep, s, s * 0 + 1).reciprocal(), s * 0)
    return (vh.mT * inv.unsqueeze(-2)) @ u.mT


def pinverse(self: Tensor, rcond: float = 1e-15) -> Tensor:
    return linalg_pinv(self, rtol=rcond)


def linalg_matrix_rank(self: Tensor, atol: Any = None, rtol: Any = None,
                       hermitian: bool = False) -> Tensor:  # fmt: skip
    """The number of singular values (|eigenvalues| when ``hermitian``) above the tolerance."""
    if self._dtype not in (dt.float32, dt.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    check_matrix("linalg.matrix_rank", self, "svd", square=hermitian)
    aten = _aten()
    m, n = self._shape[-2:]
    if hermitian:
        s = aten._linalg_eigh.default(self, "L", False)[0].abs()
    else:
        s = aten._linalg_svd.default(self, False, False)[1]
    tol = _tolerance(s, atol, rtol, m, n)
    return (s > tol).sum(-1)  # type: ignore[no-any-return]


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def linalg_lstsq(self: Tensor, b: Tensor, rcond: float | None = None,
                 driver: str | None = None) -> LstsqResult:  # fmt: skip
    """Least squares ``min ||A X - B||`` through the pseudo-inverse (the minimum-norm solution,
    as LAPACK's gelsd); ``rank`` for every driver but gels, ``singular_values`` for gelsd and
    gelss, ``residuals`` for all but gelsy when m > n and every matrix has full rank
    (PyTorch's rules)."""
    fn = "torch.linalg.lstsq"
    check_matrix("linalg.lstsq", self, "svd", square=False)
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    drv = driver or "gelsy"
    vector = b.ndim == self.ndim - 1
    bb = b.unsqueeze(-1) if vector else b
    if bb.ndim < 2 or bb._shape[-2] != self._shape[-2]:
        raise RuntimeError(
            f"{fn}: input.size(-2) should match other.size(-2). Got {self._shape[-2]} and "
            f"{b._shape[-2] if b.ndim >= 2 else b._shape[-1]}"
        )
    aten = _aten()
    m, n = self._shape[-2:]
    rtol = rcond if rcond is not None and rcond > 0 else _EPS[self._dtype.name] * max(m, n)
    u, s, vh = aten._linalg_svd.default(self, False, True)
    tol = _tolerance(s, None, rtol, m, n)
    keep = s > tol
    inv = aten.where.self(keep, aten.where.self(keep, s, s * 0 + 1).reciprocal(), s * 0)
    x = (vh.mT * inv.unsqueeze(-2)) @ (u.mT @ bb.to(self._dtype))
    rank = keep.sum(-1)
    empty = _aten().empty.memory_format([0], dtype=self._dtype, device=self._device)
    residuals = empty
    if drv != "gelsy" and m > n and not _is_meta(self) and bool((rank == n).all()):
        r = self @ x - bb
        residuals = (r * r).sum(-2)
    return LstsqResult(
        x.squeeze(-1) if vector else x,
        residuals,
        rank if drv != "gels" else empty.to(dt.int64),
        s if drv in ("gelsd", "gelss") else empty,
    )


def linalg_cond(self: Tensor, p: Any = None) -> Tensor:
    """The condition number ``norm(A, p) * norm(inv(A), p)``; the ratio of the extreme
    singular values for p None, 2 and -2 (any shape; +inf for singular matrices)."""
    check_matrix("linalg.cond", self, "svd", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = linalg_svdvals(self)
        hi, lo = s.amax(-1), s.amin(-1)
        return hi / lo if p in (None, 2) else lo / hi  # type: ignore[no-any-return]
    from ember.operators.linalg_norms import matrix_norm

    inv = _aten().linalg_inv.default(self)
    return matrix_norm(self, p) * matrix_norm(inv, p)  # type: ignore[no-any-return]


def singular_value_norm(x: Tensor, ord: Any, d0: int, d1: int, keepdim: bool) -> Tensor:
    """``matrix_norm`` for ord 2 (largest singular value), -2 (smallest) and 'nuc' (sum) over
    the dims ``d0``, ``d1``."""
    m = x.movedim((d0, d1), (-2, -1))
    s = linalg_svdvals(m)
    r = s.amax(-1) if ord == 2 else s.amin(-1) if ord == -2 else s.sum(-1)
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.unsqueeze(d)
    return r
