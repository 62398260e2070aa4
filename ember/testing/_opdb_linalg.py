"""OpInfos of the factorization primitives (``linalg_cholesky_ex``, ``linalg_qr``,
``_linalg_eigh``, ``_linalg_svd``, ``linalg_lu_factor_ex``, ``linalg_solve_triangular``).

A factorization is unique only up to signs (eigenvectors, singular vectors), so each
row compares what is determined: the Cholesky factor, ``Q`` (Householder QR fixes its
signs), eigenvalues and singular values (through ``linalg.eigvalsh``/``svdvals``, which
run ``_linalg_eigh``/``_linalg_svd``), the packed LU factors (partial pivoting picks the
same rows everywhere), the triangular solution. A row's ``op`` picks the first output of
a tuple; rows are not offered to the generic gradient checks, which would differentiate
a non-symmetric input (``tests/linalg`` checks the formulas).
Must always hold: samples are well conditioned (positive-definite for Cholesky, distinct
eigenvalues and singular values) and include batched and strided inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ember.testing._creation import make_tensor
from ember.testing._opinfo import OpInfo, SampleInput

__all__ = ["linalg_infos"]

F32_64 = ("float32", "float64")
Build = Callable[[str, str, Any], Iterable[SampleInput]]


def _mats(*shapes: tuple[int, ...], spd: bool = False, **kw: Any) -> Build:
    """One matrix argument per shape (positive-definite with ``spd``): contiguous, strided."""

    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        import ember

        for nc in (False, True):
            for s in shapes:
                a = make_tensor(s, dtype, dev, low=-1, high=1, generator=rng, noncontiguous=nc)
                if spd:
                    a = a @ a.mT + ember.eye(s[-1], dtype=a.dtype, device=dev).mul(s[-1])
                yield SampleInput((a,), dict(kw), f"{s}{' strided' if nc else ''}")

    return build


def _triangular(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    import ember

    for upper in (True, False):
        a = make_tensor((2, 4, 4), dtype, dev, low=-1, high=1, generator=rng)
        a = a + ember.eye(4, dtype=a.dtype, device=dev).mul(4)
        b = make_tensor((4, 3), dtype, dev, generator=rng, noncontiguous=True)
        yield SampleInput((a, b), {"upper": upper}, f"upper={upper}, broadcast B")


def _gen(build: Build) -> Callable[[OpInfo, str, str, Any], Iterable[SampleInput]]:
    return lambda info, dtype, dev, rng: build(dtype, dev, rng)


def _pick(op: Any, index: int) -> Any:
    return lambda *args, **kwargs: op(*args, **kwargs)[index]


def _np_lu(a: np.ndarray) -> np.ndarray:
    """Packed LU factors with partial pivoting (LAPACK's getrf), matrix by matrix."""
    a = np.array(a, dtype=np.float64)
    m, n = a.shape[-2:]
    flat = a.reshape(-1, m, n)
    for x in flat:
        for j in range(min(m, n)):
            p = j + int(np.argmax(np.abs(x[j:, j])))
            x[[j, p]] = x[[p, j]]
            if x[j, j] != 0:
                x[j + 1 :, j] /= x[j, j]
                x[j + 1 :, j + 1 :] -= np.outer(x[j + 1 :, j], x[j, j + 1 :])
    return flat.reshape(a.shape)


def _np_solve_triangular(a: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    t = np.triu(a) if upper else np.tril(a)
    return np.linalg.solve(t, np.broadcast_to(b, t.shape[:-2] + b.shape))


ROWS: list[tuple[str, Build, Callable[..., Any], int, bool]] = [
    # (operator, samples, numpy reference of the compared part, output index, primitive)
    ("linalg_cholesky_ex", _mats((3, 3), (2, 4, 4), spd=True), np.linalg.cholesky, 0, True),
    # Householder QR fixes the signs: LAPACK's Q and R everywhere
    ("linalg_qr", _mats((5, 3), (2, 3, 4)), lambda a: np.linalg.qr(a)[0], 0, True),
    # the composites that run _linalg_eigh / _linalg_svd and return what is unique
    ("linalg_eigvalsh", _mats((4, 4), (2, 3, 3), spd=True), np.linalg.eigvalsh, -1, False),
    ("linalg_svdvals", _mats((5, 3), (2, 3, 4)), lambda a: np.linalg.svd(a, compute_uv=False),
     -1, False),
    ("linalg_lu_factor_ex", _mats((4, 4), (2, 3, 5), (5, 3)), _np_lu, 0, True),
    ("linalg_solve_triangular", _triangular, _np_solve_triangular, -1, True),
]  # fmt: skip


def linalg_infos() -> list[OpInfo]:
    """The OpInfos of the table above."""
    from ember.library import lookup

    infos = []
    for name, build, ref, index, primitive in ROWS:
        op = lookup(name)
        infos.append(
            OpInfo(
                name=name,
                op=op if index < 0 else _pick(op, index),
                ref=ref,
                dtypes=F32_64,
                sample_inputs=_gen(build),
                differentiable=False,
                primitive=primitive,
                kind="composite",
                tols={"float32": (1e-4, 1e-4)},
            )
        )
    return infos
