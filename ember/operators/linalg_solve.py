"""Dense solvers: linalg.solve, linalg.inv and linalg.det over the LU factorization.

``linalg_lu_factor_ex`` (LAPACK's getrf on the CPU, the host fallback elsewhere) and two
triangular solves (``linalg_lu_solve``) do the work; the determinant is the product of
U's diagonal with the pivots' sign. Each operator has its own gradient formula
(``ember/autograd/formulas/linalg.py``: ``-A^-T g X^T`` for solve, ``-X^T g X^T`` for
inv, ``g det(A) A^-T`` for det, through the SVD's adjugate when A is singular), so
autograd never differentiates the factorization. Singularity (an exactly zero pivot)
raises PyTorch's errors for solve and inv and gives a zero determinant.
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


def _vector_rhs(A: Tensor, B: Tensor) -> bool:  # noqa: N803
    """PyTorch's rule: B is a (batch of) vector(s) when 1-D or one dim short of A."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B._shape) == tuple(A._shape[:-1]))


def _singular(info: Tensor) -> bool:
    if info._device.type == "meta" or info.numel() == 0:
        return False
    return bool((info != 0).any())


def linalg_solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:  # noqa: N803
    n = _check_square("solve", A)
    vector = _vector_rhs(A, B)
    b = B.unsqueeze(-1) if vector else B
    if not left:
        if vector or b._shape[-1] != n:  # a vector right-hand side is a column (as PyTorch)
            raise RuntimeError(
                f"linalg.solve: Incompatible shapes of A and B for the equation XA = B "
                f"({n}x{n} and {b._shape[-2]}x{b._shape[-1]})"
            )
        return linalg_solve(A.mT, B.mT, True).mT  # X A = B  <=>  A^T X^T = B^T
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
    from ember.operators.linalg_factorizations import linalg_lu_solve

    lu, piv, info = _aten().linalg_lu_factor_ex.default(A)
    if _singular(info):
        raise RuntimeError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        )
    x = linalg_lu_solve(lu, piv, b)
    return x.squeeze(-1) if vector else x


def linalg_inv(A: Tensor) -> Tensor:  # noqa: N803
    n = _check_square("inv", A)
    from ember.operators.linalg_factorizations import linalg_lu_solve

    lu, piv, info = _aten().linalg_lu_factor_ex.default(A)
    if _singular(info):
        raise RuntimeError(
            "linalg.inv: The diagonal element is zero, the inversion could not be completed "
            "because the input matrix is singular."
        )
    eye = _aten().eye.default(n, dtype=A._dtype, device=A._device)
    return linalg_lu_solve(lu, piv, eye.expand(tuple(A._shape)))


def linalg_det(A: Tensor) -> Tensor:  # noqa: N803
    n = _check_square("det", A)
    if n == 0:
        return _aten().ones.default(tuple(A._shape[:-2]), dtype=A._dtype, device=A._device)
    from ember.operators.linalg_factorizations import lu_sign

    lu, piv, _ = _aten().linalg_lu_factor_ex.default(A)
    return lu.diagonal(0, -2, -1).prod(-1) * lu_sign(piv, A._dtype)  # type: ignore[no-any-return]
