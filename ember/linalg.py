"""``ember.linalg``: PyTorch's ``torch.linalg`` names over ember's linear-algebra operators.

Each function calls one operator (``linalg_vector_norm``, ``linalg_cross``, ...),
whose Composite kernel lives in ``ember/core/linalg_*.py``, so every device with
the primitive set runs them and autograd differentiates them. The factorizations
(``cholesky``, ``qr``, ``eigh``, ``svd``, ``lu_factor``, ``solve_triangular``) are
primitives with LAPACK kernels on the CPU that other devices run through the CPU
(``ember/operators/linalg_factorizations.py``, Note [Linalg host fallback]).

Examples:
    >>> import ember
    >>> ember.linalg.vector_norm(ember.tensor([3.0, 4.0]))
    tensor(5.)
    >>> ember.linalg.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ember.core.tensor import Tensor
from ember.dispatcher.namespace import ops
from ember.operators.linalg_factorizations import (
    LinAlgError,
    check_matrix,
    check_qr_mode,
    raise_cholesky,
    raise_lu,
)

__all__ = [
    "matrix_power",
    "norm",
    "vector_norm",
    "matrix_norm",
    "cross",
    "multi_dot",
    "vecdot",
    "matmul",
    "diagonal",
    "det",
    "inv",
    "solve",
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "qr",
    "eigh",
    "eigvalsh",
    "svd",
    "svdvals",
    "slogdet",
    "lu_factor",
    "lu_factor_ex",
    "lu",
    "lu_solve",
    "solve_triangular",
    "pinv",
    "matrix_rank",
    "lstsq",
    "cond",
]


def matrix_power(A: Tensor, n: int) -> Tensor:  # noqa: N803
    """``A`` to the integer power ``n`` (batched; ``n < 0`` inverts first).

    Examples:
        >>> import ember
        >>> ember.linalg.matrix_power(ember.tensor([[1., 1.], [0., 1.]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    return ops.aten.matrix_power.default(A, n)  # type: ignore[no-any-return]


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:  # fmt: skip
    """The ``ord``-norm of ``x`` over ``dim`` (every element when None) as a vector.

    Examples:
        >>> import ember
        >>> ember.linalg.vector_norm(ember.tensor([[1.0, -2.0], [0.0, 2.0]]), ord=1, dim=1)
        tensor([3., 2.])
    """
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' must be Number, not str")
    d = (dim,) if isinstance(dim, int) else dim
    return ops.aten.linalg_vector_norm.default(x, ord, d, keepdim, dtype=dtype)  # type: ignore[no-any-return]


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Sequence[int] = (-2, -1),  # noqa: N803
                keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # fmt: skip
    """'fro', 1, -1, inf or -inf norm of the matrices over the two ``dim``.

    Examples:
        >>> import ember
        >>> ember.linalg.matrix_norm(ember.tensor([[1.0, -2.0], [0.0, 2.0]]), ord=1)
        tensor(4.)
    """
    overload = ops.aten.linalg_matrix_norm.str_ord if isinstance(ord, str) else (
        ops.aten.linalg_matrix_norm.default
    )  # fmt: skip
    return overload(A, ord, tuple(dim), keepdim, dtype=dtype)  # type: ignore[no-any-return]


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803
         dtype: Any = None) -> Tensor:  # fmt: skip
    """A vector norm (``dim`` an int, or 1-D input) or a matrix norm (two dims, or 2-D input
    with ``ord`` given); the 2-norm of every element by default.

    Examples:
        >>> import ember
        >>> ember.linalg.norm(ember.tensor([[3.0, 0.0], [0.0, 4.0]]))
        tensor(5.)
    """
    d = (dim,) if isinstance(dim, int) else dim
    overload = (
        ops.aten.linalg_norm.ord_str if isinstance(ord, str) else ops.aten.linalg_norm.default
    )
    return overload(A, ord, d, keepdim, dtype=dtype)  # type: ignore[no-any-return]


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (the inputs broadcast)."""
    return ops.aten.linalg_cross.default(input, other, dim=dim)  # type: ignore[no-any-return]


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of a chain of matrices in the cheapest order (first/last may be 1-D).

    Examples:
        >>> import ember
        >>> a, b = ember.ones(2, 3), ember.ones(3)
        >>> ember.linalg.multi_dot([a, b]).tolist()
        [3.0, 3.0]
    """
    return ops.aten.linalg_multi_dot.default(list(tensors))  # type: ignore[no-any-return]


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of ``x`` and ``y`` along ``dim`` (broadcast)."""
    return ops.aten.linalg_vecdot.default(x, y, dim=dim)  # type: ignore[no-any-return]


def matmul(input: Tensor, other: Tensor) -> Tensor:
    return ops.aten.matmul.default(input, other)  # type: ignore[no-any-return]


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    return ops.aten.diagonal.default(A, offset, dim1, dim2)  # type: ignore[no-any-return]


def det(A: Tensor) -> Tensor:  # noqa: N803
    """The determinant of each square matrix (LU with partial pivoting, in ember ops)."""
    return ops.aten.linalg_det.default(A)  # type: ignore[no-any-return]


def inv(A: Tensor) -> Tensor:  # noqa: N803
    """The inverse of each square matrix (Gauss-Jordan with partial pivoting, in ember ops)."""
    return ops.aten.linalg_inv.default(A)  # type: ignore[no-any-return]


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803
    """``X`` with ``A @ X = B`` (or ``X @ A = B`` when ``left=False``)."""
    return ops.aten.linalg_solve.default(A, B, left=left)  # type: ignore[no-any-return]


# -- factorizations ----------------------------------------------------------------------
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    """``L`` with ``A = L L^T`` (``U`` with ``A = U^T U`` when ``upper``) for symmetric
    positive-definite ``A``; LinAlgError names the first leading minor that is not.

    Examples:
        >>> import ember
        >>> ember.linalg.cholesky(ember.tensor([[4.0, 2.0], [2.0, 5.0]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    return ops.aten.linalg_cholesky.default(A, upper=upper)  # type: ignore[no-any-return]


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:  # noqa: N803
    """``(L, info)``: the Cholesky factor and, per matrix, 0 or the order of the first leading
    minor that is not positive-definite (raised instead when ``check_errors``).

    Examples:
        >>> import ember
        >>> ember.linalg.cholesky_ex(ember.tensor([[1.0, 2.0], [2.0, 1.0]])).info
        tensor(2, dtype=ember.int32)
    """
    check_matrix("linalg.cholesky_ex", A, "cholesky")
    res = ops.aten.linalg_cholesky_ex.default(A, upper=upper, check_errors=check_errors)
    if check_errors:
        raise_cholesky("linalg.cholesky_ex", res[1])
    return _named("L info", res)


def qr(A: Tensor, mode: str = "reduced") -> Any:  # noqa: N803
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal columns, ``R`` upper triangular;
    ``mode`` 'reduced' (k = min(m, n) columns), 'complete' (m) or 'r' (``Q`` empty).

    Examples:
        >>> import ember
        >>> q, r = ember.linalg.qr(ember.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> (q @ r).round(decimals=4).abs().tolist()
        [[3.0, 1.0], [4.0, 2.0]]
    """
    check_matrix("linalg.qr", A, "qr", square=False)
    check_qr_mode(mode)
    return _named("Q R", ops.aten.linalg_qr.default(A, mode))


def eigh(A: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    """``(eigenvalues, eigenvectors)`` of symmetric ``A`` (read from its ``UPLO`` triangle),
    eigenvalues ascending, eigenvectors as columns.

    Examples:
        >>> import ember
        >>> ember.linalg.eigh(ember.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
        tensor([1., 3.])
    """
    return ops.aten.linalg_eigh.default(A, UPLO)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    """The ascending eigenvalues of symmetric ``A``.

    Examples:
        >>> import ember
        >>> ember.linalg.eigvalsh(ember.tensor([[2.0, 0.0], [0.0, -1.0]]))
        tensor([-1.,  2.])
    """
    return ops.aten.linalg_eigvalsh.default(A, UPLO)  # type: ignore[no-any-return]


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> Any:  # noqa: N803
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, ``S`` descending; ``full_matrices=False``
    keeps k = min(m, n) columns of ``U`` and rows of ``Vh``.

    Examples:
        >>> import ember
        >>> ember.linalg.svd(ember.tensor([[0.0, 2.0], [3.0, 0.0]])).S
        tensor([3., 2.])
    """
    return ops.aten.linalg_svd.default(A, full_matrices, driver=driver)


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:  # noqa: N803
    """The singular values of ``A``, descending.

    Examples:
        >>> import ember
        >>> ember.linalg.svdvals(ember.tensor([[0.0, 2.0], [3.0, 0.0]]))
        tensor([3., 2.])
    """
    return ops.aten.linalg_svdvals.default(A, driver=driver)  # type: ignore[no-any-return]


def slogdet(A: Tensor) -> Any:  # noqa: N803
    """``(sign, logabsdet)``: the determinant as ``sign * exp(logabsdet)``, from the LU factors.

    Examples:
        >>> import ember
        >>> ember.linalg.slogdet(ember.tensor([[0.0, 2.0], [3.0, 0.0]])).sign
        tensor(-1.)
    """
    return ops.aten.linalg_slogdet.default(A)


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:  # noqa: N803
    """``(LU, pivots)``: ``L`` (unit diagonal, below) and ``U`` packed, LAPACK's 1-based row
    interchanges; raises for an exactly singular matrix (``lu_factor_ex`` does not).

    Examples:
        >>> import ember
        >>> ember.linalg.lu_factor(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots
        tensor([2, 2], dtype=ember.int32)
    """
    return ops.aten.linalg_lu_factor.default(A, pivot=pivot)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:  # noqa: N803
    """``(LU, pivots, info)``; ``info`` is k > 0 where ``U[k-1, k-1]`` is exactly zero."""
    check_matrix("torch.linalg.lu_factor_ex", A, "lu", square=False, int_is_kernel_error=True)
    res = ops.aten.linalg_lu_factor_ex.default(A, pivot=pivot, check_errors=check_errors)
    if check_errors:
        raise_lu("torch.linalg.lu_factor_ex", res[2])
    return _named("LU pivots info", res)


def lu(A: Tensor, *, pivot: bool = True) -> Any:  # noqa: N803
    """``(P, L, U)`` with ``A = P @ L @ U``.

    Examples:
        >>> import ember
        >>> P, L, U = ember.linalg.lu(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> (P @ L @ U).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    return ops.aten.linalg_lu.default(A, pivot=pivot)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,  # noqa: N803
             adjoint: bool = False) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` from ``A``'s LU factors (``X A = B`` when not ``left``, ``A^T``
    when ``adjoint``)."""
    return ops.aten.linalg_lu_solve.default(LU, pivots, B, left=left, adjoint=adjoint)  # type: ignore[no-any-return]


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for triangular ``A`` (only its
    ``upper`` or lower triangle is read; a unit diagonal assumed when ``unitriangular``).

    Examples:
        >>> import ember
        >>> A = ember.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> ember.linalg.solve_triangular(A, ember.tensor([[3.0], [4.0]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    from ember.operators.linalg_derived import solve_triangular as solve

    return solve(A, B, upper, left, unitriangular)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:  # noqa: N803
    """The Moore-Penrose pseudo-inverse; singular values at most ``max(atol, rtol * max(S))``
    count as zero (``rtol`` defaults to ``eps * max(m, n)`` when ``atol`` is not given).

    Examples:
        >>> import ember
        >>> ember.linalg.pinv(ember.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    tensors = isinstance(atol, Tensor) or isinstance(rtol, Tensor)
    op = ops.aten.linalg_pinv.atol_rtol_tensor if tensors else ops.aten.linalg_pinv.atol_rtol_float
    return op(A, atol=atol, rtol=rtol, hermitian=hermitian)  # type: ignore[no-any-return]


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None,  # noqa: N803
                hermitian: bool = False) -> Tensor:  # fmt: skip
    """The number of singular values above ``max(atol, rtol * max(S))``.

    Examples:
        >>> import ember
        >>> ember.linalg.matrix_rank(ember.ones(3, 3))
        tensor(1)
    """
    tensors = isinstance(atol, Tensor) or isinstance(rtol, Tensor)
    op = (ops.aten.linalg_matrix_rank.atol_rtol_tensor if tensors
          else ops.aten.linalg_matrix_rank.atol_rtol_float)  # fmt: skip
    return op(A, atol=atol, rtol=rtol, hermitian=hermitian)  # type: ignore[no-any-return]


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:  # noqa: N803
    """``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||`` (minimum-norm
    solution from the SVD).

    Examples:
        >>> import ember
        >>> A = ember.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> ember.linalg.lstsq(A, ember.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [2.]])
    """
    return ops.aten.linalg_lstsq.default(A, B, rcond, driver=driver)


def cond(A: Tensor, p: Any = None) -> Tensor:  # noqa: N803
    """The condition number of ``A`` in the ``p``-norm (2 by default: the ratio of the extreme
    singular values).

    Examples:
        >>> import ember
        >>> ember.linalg.cond(ember.tensor([[4.0, 0.0], [0.0, 2.0]]))
        tensor(2.)
    """
    op = ops.aten.linalg_cond.p_str if isinstance(p, str) else ops.aten.linalg_cond.default
    return op(A, p)  # type: ignore[no-any-return]


_RESULTS: dict[str, Any] = {}


def _named(fields: str, values: Any) -> Any:
    """``values`` as a named tuple with ``fields`` (PyTorch's ``torch.return_types``)."""
    from collections import namedtuple

    cls = _RESULTS.get(fields)
    if cls is None:
        cls = _RESULTS[fields] = namedtuple("_".join(fields.split()), fields.split())  # type: ignore[misc]
    return cls(*values)
