"""Matrix factorizations: the decomposition primitives' checks, host fallback and meta
shapes, and the composites PyTorch users call over them.

The primitives ``linalg_cholesky_ex``, ``linalg_qr``, ``_linalg_eigh``, ``_linalg_svd``,
``linalg_lu_factor_ex`` and ``linalg_solve_triangular`` have native kernels on the CPU
(LAPACK through the CPU backend's OpenBLAS). Their Composite kernel is the host fallback
(Note [Linalg host fallback]). Over them, in ember operators: ``linalg.cholesky``
(PyTorch's not-positive-definite error), ``eigh``/``eigvalsh``, ``svd``/``svdvals`` and
the old ``torch.svd``/``torch.qr``, ``slogdet``/``logdet`` from the LU factors, and
``lu``/``lu_unpack``/``lu_solve``. Must always hold: every public entry checks its
arguments here (``check_matrix``) before a primitive runs, so every device raises the
same errors, and data-dependent checks are skipped on the meta device.

Note [Linalg host fallback]
    Factorizations are sequential, pivoting and (eigh, svd) iterative algorithms with
    convergence tests; written in ember operators they would take O(n) Python steps of
    batched operators per matrix, converge worse and still be slow. So they are the one
    family whose Composite kernel does not decompose: a device without a native kernel
    copies the arguments to the CPU device, runs LAPACK there and copies the results
    back (O(n^2) transfers for O(n^3) work). The meta device gets outputs of the right
    shapes. Autograd is unaffected: the formulas (``ember/autograd/formulas/linalg.py``)
    are written in ember operators and run on the tensors' own device.

A native factorization kernel allocates and returns its outputs, so the core cannot
hand it the right ones: the first call of each device's kernel is checked against the
meta function (count, shapes, dtypes, device) and a mismatch raises naming the operator,
the kernel and its plugin; once a call has passed, dispatch calls the bare kernel
(``guard_kernels``, Note [Kernel contract checks] in ``ember/core/backend.py``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

from ember.core import backend as contract
from ember.core import dispatch_key as dk
from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher import registry
from ember.dispatcher.grad_mode import is_grad_enabled
from ember.operators.linalg_products import _NAMES, _aten

__all__ = [
    "linalg_cholesky_ex_host",
    "linalg_qr_host",
    "linalg_eigh_host",
    "linalg_svd_host",
    "linalg_lu_factor_ex_host",
    "linalg_solve_triangular_host",
    "linalg_cholesky",
    "cholesky",
    "linalg_eigh",
    "linalg_eigvalsh",
    "linalg_svd",
    "linalg_svdvals",
    "svd",
    "qr",
    "linalg_slogdet",
    "logdet",
    "linalg_lu_factor",
    "linalg_lu",
    "lu_unpack",
    "linalg_lu_solve",
    "lu_solve",
]


class LinAlgError(RuntimeError):
    """A matrix is singular, not positive-definite, or an algorithm failed to converge
    (``torch.linalg.LinAlgError``)."""


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class OldSVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    V: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class LUFactorResult(NamedTuple):
    LU: Tensor
    pivots: Tensor


class LUResult(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


# -- checks ------------------------------------------------------------------------------
#: the PyTorch kernel whose "not implemented for 'Half'" a low-precision input gets
_KERNEL = {
    "cholesky": "cholesky_cpu",
    "qr": "geqrf_cpu",
    "eigh": "linalg_eigh_cpu",
    "svd": "linalg_svd_cpu",
    "lu": "lu_cpu",
    "triangular": "triangular_solve_cpu",
}


def check_matrix(fn: str, A: Tensor, kernel: str, *, square: bool = True,  # noqa: N803
                 name: str = "A", int_is_kernel_error: bool = False) -> None:  # fmt: skip
    """PyTorch's argument errors for a batch of matrices given to ``fn``."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if square and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{fn}: {name} must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    tname = _NAMES[A._dtype.name]
    if A._dtype.category != dt.FLOAT:
        if int_is_kernel_error:
            raise NotImplementedError(f"\"{_KERNEL[kernel]}\" not implemented for '{tname}'")
        raise RuntimeError(
            f"{fn}: Expected a floating point or complex tensor as input. Got {tname}"
        )
    if A._dtype in (dt.float16, dt.bfloat16):
        raise NotImplementedError(f"\"{_KERNEL[kernel]}\" not implemented for '{tname}'")


def _is_meta(t: Tensor) -> bool:
    return t._device.type == "meta"


def _first_bad(info: Tensor) -> tuple[int, int] | None:
    """(batch element, info value) of the first non-zero ``info``, or None."""
    if _is_meta(info) or info.numel() == 0:
        return None
    flat = info.reshape(-1)
    bad = (flat != 0).nonzero()
    if bad._shape[0] == 0:
        return None
    i = int(bad[0, 0])
    return i, int(flat[i])


def _batch_prefix(info: Tensor, i: int) -> str:
    return f"(Batch element {i}): " if info.ndim > 0 else ""


def raise_cholesky(fn: str, info: Tensor) -> None:
    """PyTorch's error for the first matrix that is not positive-definite."""
    bad = _first_bad(info)
    if bad is not None:
        i, order = bad
        raise LinAlgError(
            f"{fn}: {_batch_prefix(info, i)}The factorization could not be completed because "
            f"the input is not positive-definite (the leading minor of order {order} is not "
            "positive-definite)."
        )


def _wants_grad(A: Tensor) -> bool:
    return bool(A._requires_grad) and is_grad_enabled()


# -- host fallback (Note [Linalg host fallback]) ------------------------------------------
def _empty(shape: tuple[int, ...], like: Tensor, dtype: Any = None) -> Tensor:
    return _aten().empty.memory_format(list(shape), dtype=dtype or like._dtype, device=like._device)


def _meta_cholesky(A: Tensor, *_: Any) -> Any:  # noqa: N803
    return _empty(A._shape, A), _empty(A._shape[:-2], A, dt.int32)


def _meta_qr(A: Tensor, mode: str = "reduced") -> Any:  # noqa: N803
    *b, m, n = A._shape
    k = min(m, n)
    q = (m, m) if mode == "complete" else (m, k) if mode == "reduced" else (0,)
    r = (m, n) if mode == "complete" else (k, n)
    return _empty(tuple(b) + q if mode != "r" else q, A), _empty(tuple(b) + r, A)


def _meta_eigh(A: Tensor, UPLO: str = "L", compute_v: bool = True) -> Any:  # noqa: N803
    v = A._shape if compute_v else (0,)
    return _empty(A._shape[:-1], A), _empty(v, A)


def _meta_svd(A: Tensor, full_matrices: bool = False, compute_uv: bool = True,  # noqa: N803
              driver: Any = None) -> Any:  # fmt: skip
    *b, m, n = A._shape
    k = min(m, n)
    s = _empty(tuple(b) + (k,), A)
    if not compute_uv:
        return _empty((0,), A), s, _empty((0,), A)
    u, v = ((m, m), (n, n)) if full_matrices else ((m, k), (k, n))
    return _empty(tuple(b) + u, A), s, _empty(tuple(b) + v, A)


def _meta_lu(A: Tensor, *_: Any) -> Any:  # noqa: N803
    *b, m, n = A._shape
    return (_empty(A._shape, A), _empty(tuple(b) + (min(m, n),), A, dt.int32),
            _empty(tuple(b), A, dt.int32))  # fmt: skip


def _meta_trsm(A: Tensor, B: Tensor, *_: Any) -> Any:  # noqa: N803
    from ember.operators.drivers import broadcast_shapes

    batch = tuple(broadcast_shapes(A._shape[:-2], B._shape[:-2]))
    return _empty(batch + tuple(B._shape[-2:]), B)


def _host(name: str, meta: Callable[..., Any]) -> Callable[..., Any]:
    """The Composite kernel of primitive ``name``: run it on the CPU device (or, on the
    meta device, make outputs of the right shapes)."""

    def fallback(*args: Any) -> Any:
        dev = next(a._device for a in args if isinstance(a, Tensor))
        if dev.type == "meta":
            return meta(*args)
        if dev.type == "cpu":
            raise NotImplementedError(
                f"{name}: the CPU device has no kernel for this factorization (the ember-cpu "
                "plugin provides them; is it installed and up to date?)"
            )
        op = getattr(_aten(), name).default
        pos, kw = [], {}
        for spec, a in zip(op.schema.arguments, args):
            v = a.to("cpu") if isinstance(a, Tensor) else a
            if spec.kwarg_only:
                kw[spec.name] = v
            else:
                pos.append(v)
        out = op(*pos, **kw)
        if isinstance(out, Tensor):
            return out.to(dev)
        return tuple(o.to(dev) for o in out)

    fallback.__name__ = f"{name}_host"
    fallback.__doc__ = f"``{name}`` on the CPU device for a device without its kernel."
    return fallback


linalg_cholesky_ex_host = _host("linalg_cholesky_ex", _meta_cholesky)
linalg_qr_host = _host("linalg_qr", _meta_qr)
linalg_eigh_host = _host("_linalg_eigh", _meta_eigh)
linalg_svd_host = _host("_linalg_svd", _meta_svd)
linalg_lu_factor_ex_host = _host("linalg_lu_factor_ex", _meta_lu)
linalg_solve_triangular_host = _host("linalg_solve_triangular", _meta_trsm)


# -- native kernels: the first call checked (Note [Kernel contract checks]) ----------------
#: each factorization primitive's meta function: what its native kernels must return
_META: dict[str, Callable[..., Any]] = {
    "aten::linalg_cholesky_ex": _meta_cholesky,
    "aten::linalg_qr": _meta_qr,
    "aten::_linalg_eigh": _meta_eigh,
    "aten::_linalg_svd": _meta_svd,
    "aten::linalg_lu_factor_ex": _meta_lu,
    "aten::linalg_solve_triangular": _meta_trsm,
}


def _describe(outs: Any) -> str:
    if isinstance(outs, Tensor):
        outs = (outs,)
    if not isinstance(outs, (tuple, list)):
        return f"a {type(outs).__name__}"
    parts = [
        f"Tensor{list(o._shape)} {o._dtype.name} on {o._device}"
        if isinstance(o, Tensor)
        else type(o).__name__
        for o in outs
    ]
    return f"({', '.join(parts)})"


def _check_outputs(op: Any, kernel: Any, plugin: str, args: tuple[Any, ...], got: Any) -> None:
    """Raise unless ``got`` has the count, shapes, dtypes and device of the meta outputs."""
    dev = next(a._device for a in args if isinstance(a, Tensor))
    meta_args = [
        _aten().empty.memory_format(list(a._shape), dtype=a._dtype, device="meta")
        if isinstance(a, Tensor)
        else a
        for a in args
    ]
    want = _META[op.qualname](*meta_args)
    want = (want,) if isinstance(want, Tensor) else tuple(want)
    outs = (got,) if isinstance(got, Tensor) else got
    # the wrong kind or number of outputs is a TypeError, wrong metadata a RuntimeError
    form = isinstance(outs, (tuple, list)) and len(outs) == len(want)
    form = form and all(isinstance(o, Tensor) for o in outs)
    meta = form and all(
        o._shape == w._shape and o._dtype is w._dtype and o._device == dev
        for o, w in zip(outs, want)
    )
    if not meta:
        name = f"{getattr(kernel, '__module__', '?')}.{getattr(kernel, '__qualname__', kernel)}"
        expected = _describe(want).replace("on meta", f"on {dev}")
        error = RuntimeError if form else TypeError
        raise error(
            f"{op.qualname}: the '{dev.type}' kernel {name} ({plugin}) returned "
            f"{_describe(got)}; expected {expected} for inputs {_describe(args)} "
            "(docs/vendors.md lists what each factorization kernel returns)"
        )


def _first_call_checked(op: Any, key: Any, kernel: Any, plugin: str) -> Any:
    """A stand-in for ``kernel`` that validates one call's outputs, then puts it back."""

    @functools.wraps(kernel)
    def first_call(*args: Any) -> Any:
        out = kernel(*args)
        _check_outputs(op, kernel, plugin, args, out)
        if op.kernels.get(key) is first_call:
            registry.set_kernel(op, key, kernel, allow_override=True)
        return out

    first_call._ember_first_call = True  # type: ignore[attr-defined]
    return first_call


def guard_kernels(device_type: str, plugin: str) -> None:
    """Check the first call of each factorization kernel ``device_type`` has registered.

    Each kernel is swapped for a stand-in that validates one call's outputs
    (``_check_outputs``) and then puts the bare kernel back, so a validated kernel
    costs nothing. Run by the plugin loader after a plugin registers its kernels
    (``ember.core.backend.kernel_checks``).
    """
    key = dk.device_key(device_type)
    for qualname in _META:
        op = registry.lookup(qualname)
        kernel = op.kernels.get(key)
        if kernel is not None and not getattr(kernel, "_ember_first_call", False):
            checked = _first_call_checked(op, key, kernel, plugin)
            registry.set_kernel(op, key, checked, allow_override=True)


contract.kernel_checks.append(guard_kernels)


# -- Cholesky -----------------------------------------------------------------------------
def _cholesky(fn: str, A: Tensor, upper: bool) -> Tensor:  # noqa: N803
    check_matrix(fn, A, "cholesky")
    L, info = _aten().linalg_cholesky_ex.default(A, upper=upper)  # noqa: N806
    raise_cholesky(fn, info)
    return L  # type: ignore[no-any-return]


def linalg_cholesky(self: Tensor, upper: bool = False) -> Tensor:
    return _cholesky("linalg.cholesky", self, upper)


def cholesky(self: Tensor, upper: bool = False) -> Tensor:
    return _cholesky("cholesky", self, upper)


# -- eigh and svd --------------------------------------------------------------------------
def _check_uplo(UPLO: str) -> None:  # noqa: N803
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def linalg_eigh(self: Tensor, UPLO: str = "L") -> EighResult:  # noqa: N803
    check_matrix("linalg.eigh", self, "eigh", int_is_kernel_error=True)
    _check_uplo(UPLO)
    e, v = _aten()._linalg_eigh.default(self, UPLO.upper(), True)
    return EighResult(e, v)


def linalg_eigvalsh(self: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    check_matrix("linalg.eigh", self, "eigh", int_is_kernel_error=True)
    _check_uplo(UPLO)
    # the eigenvectors are needed only to differentiate (as PyTorch)
    return _aten()._linalg_eigh.default(self, UPLO.upper(), _wants_grad(self))[0]  # type: ignore[no-any-return]


def _check_driver(fn: str, driver: Any) -> None:
    if driver is not None:
        raise RuntimeError(
            f"torch.{fn}: keyword argument `driver=` is only supported on CUDA inputs with "
            "cuSOLVER backend."
        )


def linalg_svd(A: Tensor, full_matrices: bool = True, driver: Any = None) -> SVDResult:  # noqa: N803
    check_matrix("linalg.svd", A, "svd", square=False)
    _check_driver("linalg.svd", driver)
    u, s, vh = _aten()._linalg_svd.default(A, full_matrices, True)
    return SVDResult(u, s, vh)


def linalg_svdvals(A: Tensor, driver: Any = None) -> Tensor:  # noqa: N803
    check_matrix("linalg.svd", A, "svd", square=False)
    _check_driver("linalg.svdvals", driver)
    return _aten()._linalg_svd.default(A, False, _wants_grad(A))[1]  # type: ignore[no-any-return]


def svd(self: Tensor, some: bool = True, compute_uv: bool = True) -> OldSVDResult:
    """``torch.svd``: V (not Vh); zero-filled (m, m) and (n, n) U and V without compute_uv."""
    check_matrix("linalg.svd", self, "svd", square=False)
    if not compute_uv:
        s = linalg_svdvals(self)
        *b, m, n = self._shape
        z = _aten().zeros.default
        kw = {"dtype": self._dtype, "device": self._device}
        return OldSVDResult(z(tuple(b) + (m, m), **kw), s, z(tuple(b) + (n, n), **kw))
    u, s, vh = _aten()._linalg_svd.default(self, not some, True)
    return OldSVDResult(u, s, vh.mT)


def check_qr_mode(mode: str) -> None:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )


def qr(self: Tensor, some: bool = True) -> QRResult:
    check_matrix("linalg.qr", self, "qr", square=False)
    q, r = _aten().linalg_qr.default(self, "reduced" if some else "complete")
    return QRResult(q, r)


# -- LU, determinants ----------------------------------------------------------------------
def _permutation(pivots: Tensor, m: int) -> Tensor:
    """The row order ``perm`` (int64, (*, m)) with ``(P^T A)[i] = A[perm[i]]`` for LAPACK's
    1-based sequential row interchanges ``pivots``.

    The interchanges are applied in order on the host (pivots are a few integers per
    matrix; one numpy step per interchange covers the whole batch).
    """
    import numpy as np

    batch = tuple(pivots._shape[:-1])
    if _is_meta(pivots):
        return _empty(batch + (m,), pivots, dt.int64)
    piv = pivots.to("cpu").numpy().astype(np.int64).reshape(-1, pivots._shape[-1]) - 1
    perm = np.broadcast_to(np.arange(m, dtype=np.int64), (piv.shape[0], m)).copy()
    rows = np.arange(piv.shape[0])
    for i in range(piv.shape[1]):
        p = piv[:, i]
        perm[rows, i], perm[rows, p] = perm[rows, p], perm[rows, i].copy()
    from ember.operators.factories import from_numpy

    out = from_numpy(perm.reshape(batch + (m,)))
    return out if pivots._device.type == "cpu" else out.to(pivots._device)


def lu_sign(pivots: Tensor, dtype: Any) -> Tensor:
    """The determinant of the permutation of LAPACK ``pivots``: (-1)^(interchanges)."""
    n = pivots._shape[-1]
    rows = _aten().arange.start_step(1, n + 1, 1, dtype=dt.int32, device=pivots._device)
    swaps = (pivots != rows).to(dt.int64).sum(-1)
    return (1 - 2 * (swaps % 2)).to(dtype)  # type: ignore[no-any-return]


def linalg_lu_factor(A: Tensor, pivot: bool = True) -> LUFactorResult:  # noqa: N803
    check_matrix("torch.linalg.lu_factor", A, "lu", square=False, int_is_kernel_error=True)
    lu, piv, info = _aten().linalg_lu_factor_ex.default(A, pivot=pivot)
    raise_lu("torch.linalg.lu_factor", info)
    return LUFactorResult(lu, piv)


def raise_lu(fn: str, info: Tensor) -> None:
    """PyTorch's error for the first exactly singular matrix of an LU factorization."""
    bad = _first_bad(info)
    if bad is not None:
        i, k = bad
        raise RuntimeError(
            f"{fn}: {_batch_prefix(info, i)}U[{k - 1},{k - 1}] is zero and using it on "
            "lu_solve would result in a division by zero. If you still want to perform the "
            "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
            "pivot)"
        )


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> LUResult:  # fmt: skip
    """P, L, U with ``A = P @ L @ U`` from packed LU factors and LAPACK pivots."""
    aten = _aten()
    *b, m, n = LU_data._shape
    k = min(m, n)
    empty = _empty((0,), LU_data)
    if unpack_data:
        eye = aten.eye.default(m, k, dtype=LU_data._dtype, device=LU_data._device)
        L = LU_data.narrow(-1, 0, k).tril(-1) + eye  # noqa: N806
        U = LU_data.narrow(-2, 0, k).triu()  # noqa: N806
    else:
        L = U = empty  # noqa: N806
    if unpack_pivots:
        perm = _permutation(LU_pivots, m)
        eye_m = aten.eye.default(m, dtype=LU_data._dtype, device=LU_data._device)
        # P[perm[i], i] = 1: column i of P is row perm[i] of the identity
        P = eye_m.index_select(0, perm.reshape(-1)).reshape(tuple(b) + (m, m)).mT  # noqa: N806
    else:
        P = empty  # noqa: N806
    return LUResult(P, L, U)


def linalg_lu(A: Tensor, pivot: bool = True) -> LUResult:  # noqa: N803
    check_matrix("linalg.lu", A, "lu", square=False, int_is_kernel_error=True)
    lu, piv, _ = _aten().linalg_lu_factor_ex.default(A, pivot=pivot)
    return lu_unpack(lu, piv)


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, left: bool = True,  # noqa: N803
                    adjoint: bool = False) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``; ``A^H`` when ``adjoint``) for
    ``A = P L U`` given as ``linalg.lu_factor`` returns it."""
    check_matrix("linalg.lu_solve", LU, "lu", name="LU")
    check_matrix("linalg.lu_solve", B, "lu", square=False, name="B")
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return linalg_lu_solve(LU, pivots, B.mT, True, not adjoint).mT
    n = LU._shape[-1]
    if B._shape[-2] != n:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
            f"({n}x{n} and {B._shape[-2]}x{B._shape[-1]})"
        )
    aten = _aten()
    from ember.operators.drivers import broadcast_shapes

    batch = tuple(broadcast_shapes(LU._shape[:-2], B._shape[:-2]))
    perm = _permutation(pivots, n)
    perm = perm.expand(batch + (n,)).unsqueeze(-1)
    st = aten.linalg_solve_triangular.default
    if not adjoint:  # X = U^-1 L^-1 P^T B
        pb = aten.gather.default(B.expand(batch + tuple(B._shape[-2:])), -2,
                                 perm.expand(batch + tuple(B._shape[-2:])))  # fmt: skip
        y = st(LU, pb, upper=False, unitriangular=True)
        return st(LU, y, upper=True)  # type: ignore[no-any-return]
    # A^T X = B: U^T L^T P^T X = B  ->  X = P L^-T U^-T B
    y = st(LU.mT, B, upper=False)
    z = st(LU.mT, y, upper=True, unitriangular=True)
    shape = tuple(z._shape)
    out = aten.zeros_like.default(z)
    return out.scatter(-2, perm.expand(shape), z)  # type: ignore[no-any-return]


def lu_solve(self: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:  # noqa: N803
    return linalg_lu_solve(LU_data, LU_pivots, self)


def linalg_slogdet(A: Tensor) -> SlogdetResult:  # noqa: N803
    check_matrix("linalg.slogdet", A, "lu")
    return _slogdet(A)


def _slogdet(A: Tensor) -> SlogdetResult:  # noqa: N803
    lu, piv, _ = _aten().linalg_lu_factor_ex.default(A)
    d = lu.diagonal(0, -2, -1)
    sign = d.sign().prod(-1) * lu_sign(piv, A._dtype)
    return SlogdetResult(sign, d.abs().log().sum(-1))


def logdet(self: Tensor) -> Tensor:
    """``log(det(A))``: NaN where the determinant is negative, -inf where it is zero."""
    check_matrix("logdet", self, "lu")
    sign, logabs = _aten().linalg_slogdet.default(self)
    nan = _aten().full_like.default(logabs, math.nan)
    return _aten().where.self(sign < 0, nan, logabs)  # type: ignore[no-any-return]
