"""Default formulas for the matrix factorizations and the solvers over them
(``ember/operators/linalg_factorizations.py``, ``linalg_solve.py``).

Cholesky, QR, the symmetric eigendecomposition, the SVD, LU, the triangular solve,
solve/inv/det and slogdet, written in ember operators (triangular solves, products,
masks), so they run on every device and differentiate again. eigh, svd and qr rules
receive the gradients of all their outputs (``rule.outputs``, Note [Formula
parameters]). As in PyTorch: the gradients of eigh and svd are defined for distinct
eigenvalues / singular values (they divide by their differences), qr's for ``m >= n``
or reduced/complete with ``m <= n``, and the gradient of a symmetric input (cholesky,
eigh) is returned symmetrized. det's gradient is the transposed adjugate, from the SVD
when the matrix is singular (where ``det(A) A^-T`` is undefined).
"""

from __future__ import annotations

from typing import Any

from ember.autograd.formulas._helpers import aten

__all__ = ["FORMULAS"]


def _outputs(which: Any) -> Any:
    """Mark a joint rule as receiving every output's gradient (``which``: "all" or indices)."""

    def mark(fn: Any) -> Any:
        fn.outputs = which
        return fn

    return mark


def _st(a: Any, b: Any, upper: bool, left: bool = True, unit: bool = False) -> Any:
    return aten().linalg_solve_triangular.default(a, b, upper=upper, left=left, unitriangular=unit)


def _eye(n: int, like: Any) -> Any:
    return aten().eye.default(n, dtype=like.dtype, device=like.device)


def _sym(x: Any) -> Any:
    return (x + x.mT) * 0.5


def _or_zeros(g: Any, like: Any) -> Any:
    return aten().zeros_like.default(like) if g is None else g


# -- Cholesky ------------------------------------------------------------------------------
def _cholesky_back(grad: Any, upper: bool, result: Any) -> Any:
    """A = L L^T:  gA = sym(L^-T phi(L^T gL) L^-1), phi = lower triangle, halved diagonal."""
    L, gL = (result.mT, grad.mT) if upper else (result, grad)  # noqa: N806
    p = (L.mT @ gL).tril()
    p = p - 0.5 * p * _eye(p.shape[-1], p)
    g = _st(L, _st(L.mT, p, upper=True), upper=False, left=False)
    return _sym(g)


# -- QR ------------------------------------------------------------------------------------
def _qr_tall(gq: Any, gr: Any, q: Any, r: Any) -> Any:
    """m >= n (reduced): gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    m = r @ gr.mT - gq.mT @ q
    m = m.tril() + m.tril(-1).mT
    return _st(r.mT, gq + q @ m, upper=False, left=False)


@_outputs("all")
def _qr_back(grads: Any, A_shape: Any, mode: str, result: Any, result1: Any) -> Any:  # noqa: N803
    m, n = A_shape[-2:]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
            "through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    q, r = result, result1
    gq, gr = _or_zeros(grads[0], q), _or_zeros(grads[1], r)
    if m >= n:
        return _qr_tall(gq, gr, q, r)
    # A = [X | Y] = Q [U | V]: Y's gradient is Q gV, and it feeds back into gQ
    u, v = r.narrow(-1, 0, m), r.narrow(-1, m, n - m)
    gu, gv = gr.narrow(-1, 0, m), gr.narrow(-1, m, n - m)
    gx = _qr_tall(gq + (q @ v) @ gv.mT, gu, q, u)
    return aten().cat([gx, q @ gv], -1)


# -- eigh ----------------------------------------------------------------------------------
def _inv_gaps(e: Any) -> Any:
    """F[i, j] = 1 / (e[j] - e[i]) off the diagonal, 0 on it."""
    n = e.shape[-1]
    eye = _eye(n, e)
    gaps = e.unsqueeze(-2) - e.unsqueeze(-1) + eye
    return (1 - eye) / gaps


@_outputs("all")
def _eigh_back(grads: Any, compute_v: bool, result: Any, result1: Any) -> Any:
    """gA = V (diag(gL) + F o skew(V^T gV)) V^T."""
    ge, gv = grads
    if not compute_v:
        raise RuntimeError(
            "linalg.eigh: the eigenvectors were not computed (compute_v=False), so the "
            "eigenvalues cannot be differentiated; call linalg.eigh or linalg.eigvalsh"
        )
    e, v = result, result1
    inner = aten().zeros_like.default(v) if ge is None else aten().diag_embed.default(ge)
    if gv is not None:
        s = v.mT @ gv
        inner = inner + _inv_gaps(e) * ((s - s.mT) * 0.5)
    return v @ inner @ v.mT


# -- SVD -----------------------------------------------------------------------------------
@_outputs("all")
def _svd_back(grads: Any, A_shape: Any, full_matrices: bool, compute_uv: bool,  # noqa: N803
              result: Any, result1: Any, result2: Any) -> Any:  # fmt: skip
    """A = U S V^T:  gA = U [diag(gS) + (F o (U^T gU - gU^T U)) S + S (F o (V^T gV - gV^T V))]
    V^T + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T),  F[i, j] = 1 / (s_j^2 - s_i^2)."""
    if not compute_uv:
        raise RuntimeError(
            "torch.linalg.svd: Setting compute_uv=False in torch.linalg.svd is not "
            "differentiable; use torch.linalg.svdvals or compute_uv=True"
        )
    gu, gs, gvh = grads
    m, n = A_shape[-2:]
    k = min(m, n)
    u, s, vh = result, result1, result2
    if full_matrices:  # the extra columns are not determined by A (as PyTorch)
        u, vh = u.narrow(-1, 0, k), vh.narrow(-2, 0, k)
        gu = None if gu is None else gu.narrow(-1, 0, k)
        gvh = None if gvh is None else gvh.narrow(-2, 0, k)
    v = vh.mT
    inner = aten().zeros_like.default(v.mT @ v) if gs is None else aten().diag_embed.default(gs)
    if gu is None and gvh is None:
        return u @ inner @ vh
    f = _inv_gaps(s * s)
    sd = s.unsqueeze(-2)  # right-multiplying by diag(s) scales columns
    out = None
    if gu is not None:
        utgu = u.mT @ gu
        inner = inner + (f * (utgu - utgu.mT)) * sd
        if m > k:
            out = ((gu - u @ utgu) / sd) @ vh
    if gvh is not None:
        gv = gvh.mT
        vtgv = v.mT @ gv
        inner = inner + (f * (vtgv - vtgv.mT)) * s.unsqueeze(-1)
        if n > k:
            extra = (u / sd) @ (gv - v @ vtgv).mT
            out = extra if out is None else out + extra
    res = u @ inner @ vh
    return res if out is None else res + out


# -- LU and triangular solves --------------------------------------------------------------
def _unpermute(w: Any, pivots: Any) -> Any:
    """``P @ w`` for ``A = P L U`` (rows of ``w`` go back to their original positions)."""
    from ember.operators.linalg_factorizations import _permutation

    m = w.shape[-2]
    perm = _permutation(pivots, m).unsqueeze(-1).expand(tuple(w.shape))
    return aten().zeros_like.default(w).scatter(-2, perm, w)


def _lu_square(gl: Any, gu: Any, lu: Any) -> Any:
    """P^T A = L U (square): L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T."""
    n = lu.shape[-1]
    low = lu.tril(-1) + _eye(n, lu)
    up = lu.triu()
    y = (low.mT @ gl).tril(-1) + (gu @ up.mT).triu()
    z = _st(lu.mT, y, upper=True, unit=True)
    return _st(lu.mT, z, upper=False, left=False)


def _lu_back(grad: Any, A_shape: Any, result: Any, result1: Any) -> Any:  # noqa: N803
    m, n = A_shape[-2:]
    lu, g = result, grad
    if m == n:
        return _unpermute(_lu_square(g.tril(-1), g.triu(), lu), result1)
    if m < n:  # A = P L [U1 | U2]
        lu1, u2 = lu.narrow(-1, 0, m), lu.narrow(-1, m, n - m)
        g1, gu2 = g.narrow(-1, 0, m), g.narrow(-1, m, n - m)
        ga2 = _st(lu1.mT, gu2, upper=True, unit=True)  # L^-T gU2
        gl = g1.tril(-1) - ga2 @ u2.mT
        ga1 = _lu_square(gl, g1.triu(), lu1)
        return _unpermute(aten().cat([ga1, ga2], -1), result1)
    # m > n: A = P [L1; L2] U
    lu1, l2 = lu.narrow(-2, 0, n), lu.narrow(-2, n, m - n)
    g1, gl2 = g.narrow(-2, 0, n), g.narrow(-2, n, m - n)
    ga2 = _st(lu1.mT, gl2, upper=False, left=False)  # X U^T = gL2  ->  X = gL2 U^-T
    gu = g1.triu() - l2.mT @ ga2
    ga1 = _lu_square(g1.tril(-1), gu, lu1)
    return _unpermute(aten().cat([ga1, ga2], -2), result1)


def _mask(g: Any, upper: bool, unit: bool) -> Any:
    if upper:
        return g.triu(1 if unit else 0)
    return g.tril(-1 if unit else 0)


def _solve_triangular_back(grad: Any, self: Any, upper: bool, left: bool, unitriangular: bool,
                           result: Any) -> tuple[Any, Any]:  # fmt: skip
    """X = A^-1 B (left) or B A^-1:  gB = A^-T g (g A^-T),  gA = -gB X^T (-X^T gB) masked."""
    gb = _st(self.mT, grad, upper=not upper, left=left, unit=unitriangular)
    ga = -(gb @ result.mT) if left else -(result.mT @ gb)
    return _mask(ga, upper, unitriangular), gb


# -- slogdet -------------------------------------------------------------------------------
@_outputs((1,))
def _slogdet_back(grads: Any, A: Any) -> Any:  # noqa: N803
    """d logabsdet = g A^-T (the sign is not differentiable)."""
    g = grads[1]
    if g is None:
        return aten().zeros_like.default(A)
    from ember.operators.linalg_factorizations import linalg_lu_solve

    lu, piv, _ = aten().linalg_lu_factor_ex.default(A)
    n = A.shape[-1]
    inv_t = linalg_lu_solve(lu, piv, _eye(n, A).expand(tuple(A.shape)), True, True)
    return g.unsqueeze(-1).unsqueeze(-1) * inv_t


# -- solve, inverse, determinant -----------------------------------------------------------
def _solve_back(grad: Any, A: Any, B: Any, left: bool, result: Any) -> tuple[Any, Any]:  # noqa: N803
    """X = A^-1 B:  gB = A^-T g,  gA = -gB X^T  (X = B A^-1: gB = g A^-T, gA = -X^T gB)."""
    solve = aten().linalg_solve.default
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    gb = solve(A.mT, grad, left=left)
    if vector:  # B and X are (batches of) vectors: the outer product
        ga = (
            -(gb.unsqueeze(-1) * result.unsqueeze(-2))
            if left
            else -(result.unsqueeze(-1) * gb.unsqueeze(-2))
        )
    else:
        ga = -(gb @ result.mT) if left else -(result.mT @ gb)
    return ga, gb


def _inv_back(grad: Any, result: Any) -> Any:
    return -(result.mT @ grad @ result.mT)


def _det_back(grad: Any, A: Any, result: Any) -> Any:  # noqa: N803
    """d det(A) = det(A) A^-T = adj(A)^T; for singular A the adjugate comes from the SVD,
    ``adj(A)^T = det(U) det(V) U diag(prod_{j != i} s_j) V^T``."""
    g = grad.unsqueeze(-1).unsqueeze(-1)
    singular = bool((result == 0).any()) if result.numel() else False
    if not singular:
        return g * result.unsqueeze(-1).unsqueeze(-1) * aten().linalg_inv.default(A).mT
    u, s, vh = aten()._linalg_svd.default(A, False, True)
    ones = aten().ones_like.default(s.narrow(-1, 0, 1))
    before = aten().cat([ones, s.narrow(-1, 0, s.shape[-1] - 1)], -1).cumprod(-1)
    after = aten().cat([s.narrow(-1, 1, s.shape[-1] - 1), ones], -1).flip(-1).cumprod(-1).flip(-1)
    sign = aten().linalg_det.default(u) * aten().linalg_det.default(vh)
    adj_t = (u * (before * after).unsqueeze(-2)) @ vh
    return g * sign.unsqueeze(-1).unsqueeze(-1) * adj_t


FORMULAS: dict[str, Any] = {
    "aten::linalg_solve": _solve_back,
    "aten::linalg_inv": (_inv_back,),
    "aten::inverse": (_inv_back,),
    "aten::linalg_det": (_det_back,),
    "aten::det": (lambda grad, self, result: _det_back(grad, self, result),),
    "aten::linalg_cholesky_ex": (_cholesky_back,),
    "aten::linalg_qr": _qr_back,
    "aten::_linalg_eigh": _eigh_back,
    "aten::_linalg_svd": _svd_back,
    "aten::linalg_lu_factor_ex": (_lu_back,),
    "aten::linalg_solve_triangular": _solve_triangular_back,
    "aten::linalg_slogdet": _slogdet_back,
}
