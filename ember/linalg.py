"""``ember.linalg``: PyTorch's ``torch.linalg`` names over ember's linear-algebra operators.

Each function calls one operator (``linalg_vector_norm``, ``linalg_cross``, ...),
whose Composite kernel lives in ``ember/core/linalg_ops.py``, so every device with
the primitive set runs them and autograd differentiates them.

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

__all__ = [
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
]


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
