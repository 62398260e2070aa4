"""Kernels of the linear-algebra decomposition primitives over LAPACK (the ops_lapack family).

``linalg_cholesky_ex``, ``linalg_qr``, ``_linalg_eigh``, ``_linalg_svd``,
``linalg_lu_factor_ex`` and ``linalg_solve_triangular`` are primitives without a
structured driver: the kernel gets the schema's arguments (the core has checked shapes,
dtypes and options), makes the input a contiguous batch, allocates the outputs through
``ember.empty`` and calls the C entry point of ``_build_lapack.py`` for its dtype
(float32 or float64). LAPACK's per-matrix ``info`` comes back as an int32 tensor; the
kernels that PyTorch lets fail (eigh, svd) raise its ``LinAlgError`` text here, the
others return ``info`` for the core to check.
"""

from __future__ import annotations

import math
from typing import Any

import ember

from ._common import NULL, handle, lib, raise_error, unsupported

__all__ = [
    "linalg_cholesky_ex",
    "linalg_qr",
    "linalg_eigh",
    "linalg_svd",
    "linalg_lu_factor_ex",
    "linalg_solve_triangular",
    "kernels",
]

_FLOATS = {"float32": "f32", "float64": "f64"}


def _table(prefix: str) -> dict[str, Any]:
    return {dt: getattr(lib, f"em_la_{prefix}_{s}") for dt, s in _FLOATS.items()}


_POTRF = _table("potrf")
_QR = _table("qr")
_SYEVD = _table("syevd")
_GESDD = _table("gesdd")
_GETRF = _table("getrf")
_TRSM = _table("trsm")


def _fn(table: dict[str, Any], op: str, t: Any) -> Any:
    fn = table.get(t.dtype.name)
    if fn is None:
        raise unsupported(op, t.dtype.name)
    return fn


def _batch(a: Any, op: str = "", square: bool = False) -> tuple[Any, tuple[int, ...], int]:
    """(contiguous a, batch shape, batch count), after the shape checks the C code relies on.

    The LAPACK wrappers index ``nb`` matrices of the sizes they are given: a matrix that
    is not what they are told (fewer than 2 dimensions, not square where the routine
    needs it) would make them read and write outside the buffer, so it raises here.
    """
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )
    batch = tuple(a.shape[:-2])
    return a.contiguous(), batch, math.prod(batch)


def _empty(shape: tuple[int, ...], like: Any, dtype: Any = None) -> Any:
    return ember.empty(shape, dtype=dtype or like.dtype, device=like.device)


def _ptr(t: Any) -> tuple[Any, int]:
    return handle(t), t._offset


def _check(rc: int) -> None:
    if rc:
        raise_error(rc)


def _failed(op: str, info: Any, what: str) -> None:
    """Raise PyTorch's LinAlgError text for the first matrix whose ``info`` is non-zero."""
    bad = (info != 0).nonzero()
    if bad.shape[0] == 0:
        return
    from ember.linalg import LinAlgError

    first = int(bad[0, 0]) if info.ndim else 0
    code = int(info.reshape(-1)[first])
    where = f"(Batch element {first}): " if info.ndim and info.numel() > 1 else ""
    raise LinAlgError(f"{op}: {where}{what} (error code: {code}).")


def linalg_cholesky_ex(self: Any, upper: bool = False, check_errors: bool = False) -> Any:
    fn = _fn(_POTRF, "linalg_cholesky_ex", self)
    a, batch, nb = _batch(self, "linalg.cholesky", square=True)
    n = a.shape[-1]
    out = _empty(a.shape, a)
    info = _empty(batch, a, ember.int32)
    _check(fn(nb, n, *_ptr(a), *_ptr(out), *_ptr(info), int(bool(upper))))
    return out, info


_QR_MODES = {"reduced": 0, "complete": 1, "r": 2}


def linalg_qr(A: Any, mode: str = "reduced") -> Any:  # noqa: N803
    fn = _fn(_QR, "linalg_qr", A)
    a, batch, nb = _batch(A, "linalg.qr")
    m, n = a.shape[-2:]
    k = min(m, n)
    code = _QR_MODES[mode]
    q = _empty(batch + ((m, m) if code == 1 else (m, k)) if code != 2 else (0,), a)
    r = _empty(batch + ((m, n) if code == 1 else (k, n)), a)
    qh, qo = _ptr(q) if code != 2 else (NULL, 0)
    _check(fn(nb, m, n, *_ptr(a), qh, qo, *_ptr(r), code))
    return q, r


def linalg_eigh(A: Any, UPLO: str = "L", compute_v: bool = True) -> Any:  # noqa: N803
    fn = _fn(_SYEVD, "_linalg_eigh", A)
    a, batch, nb = _batch(A, "linalg.eigh", square=True)
    n = a.shape[-1]
    e = _empty(batch + (n,), a)
    v = _empty(a.shape if compute_v else (0,), a)
    info = _empty(batch, a, ember.int32)
    vh, vo = _ptr(v) if compute_v else (NULL, 0)
    _check(fn(nb, n, *_ptr(a), *_ptr(e), vh, vo, *_ptr(info), int(UPLO == "L"), int(compute_v)))
    _failed(
        "linalg.eigh",
        info,
        "The algorithm failed to converge because the input matrix is ill-conditioned or has "
        "too many repeated eigenvalues",
    )
    return e, v


def linalg_svd(A: Any, full_matrices: bool = False, compute_uv: bool = True,
               driver: str | None = None) -> Any:  # noqa: N803  # fmt: skip
    fn = _fn(_GESDD, "_linalg_svd", A)
    a, batch, nb = _batch(A, "linalg.svd")
    m, n = a.shape[-2:]
    k = min(m, n)
    jobz = b"N" if not compute_uv else b"A" if full_matrices else b"S"
    s = _empty(batch + (k,), a)
    if compute_uv:
        u = _empty(batch + ((m, m) if full_matrices else (m, k)), a)
        vh = _empty(batch + ((n, n) if full_matrices else (k, n)), a)
        up, vp = _ptr(u), _ptr(vh)
    else:
        u = vh = _empty((0,), a)
        up = vp = (NULL, 0)
    info = _empty(batch, a, ember.int32)
    _check(fn(nb, m, n, *_ptr(a), *up, *_ptr(s), *vp, *_ptr(info), jobz))
    if bool((info != 0).any()) and not bool(a.isfinite().all()):
        from ember.linalg import LinAlgError

        raise LinAlgError(
            "linalg.svd: The algorithm failed to converge because the input matrix contained "
            "non-finite values."
        )
    _failed(
        "linalg.svd",
        info,
        "The algorithm failed to converge because the input matrix is ill-conditioned or has "
        "too many repeated singular values",
    )
    return u, s, vh


def linalg_lu_factor_ex(A: Any, pivot: bool = True, check_errors: bool = False) -> Any:  # noqa: N803
    fn = _fn(_GETRF, "linalg_lu_factor_ex", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    a, batch, nb = _batch(A, "linalg.lu_factor")
    m, n = a.shape[-2:]
    lu = _empty(a.shape, a)
    piv = _empty(batch + (min(m, n),), a, ember.int32)
    info = _empty(batch, a, ember.int32)
    _check(fn(nb, m, n, *_ptr(a), *_ptr(lu), *_ptr(piv), *_ptr(info)))
    return lu, piv, info


def linalg_solve_triangular(self: Any, B: Any, upper: bool, left: bool = True,  # noqa: N803
                            unitriangular: bool = False) -> Any:  # fmt: skip
    fn = _fn(_TRSM, "linalg_solve_triangular", self)
    if self.ndim < 2 or B.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensors must have at least 2 dimensions."
        )
    side = B.shape[-2] if left else B.shape[-1]
    if tuple(self.shape[-2:]) != (side, side):
        raise RuntimeError(
            f"linalg.solve_triangular: A must be batches of {side} by {side} matrices to "
            f"solve {'A X = B' if left else 'X A = B'} with B of shape {list(B.shape)}, but "
            f"A has shape {list(self.shape)}"
        )
    batch = tuple(ember.broadcast_shapes(tuple(self.shape[:-2]), tuple(B.shape[:-2])))
    a = self.expand(batch + tuple(self.shape[-2:])).contiguous()
    x = _empty(batch + tuple(B.shape[-2:]), a).copy_(B)  # solved in place
    m, n = x.shape[-2:]
    nb = math.prod(batch)
    _check(fn(nb, m, n, *_ptr(a), *_ptr(x), int(left), int(upper), int(unitriangular), 0))
    return x


def kernels() -> dict[str, Any]:
    """Operator overload -> kernel, for the ops_lapack family."""
    return {
        "linalg_cholesky_ex.default": linalg_cholesky_ex,
        "linalg_qr.default": linalg_qr,
        "_linalg_eigh.default": linalg_eigh,
        "_linalg_svd.default": linalg_svd,
        "linalg_lu_factor_ex.default": linalg_lu_factor_ex,
        "linalg_solve_triangular.default": linalg_solve_triangular,
    }
