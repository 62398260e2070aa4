"""``ember.sparse``: PyTorch's sparse COO tensors, minimally, with gradients.

Owns ``sparse_coo_tensor``, ``Tensor.to_sparse()``/``to_dense()`` (bound onto ``Tensor``
when this package is imported), and PyTorch's ``torch.sparse`` functions that training
scripts use: ``mm`` (also ``ember.spmm`` and ``sparse @ dense``), ``sum``, ``softmax``,
``log_softmax``, and the legacy ``FloatTensor(indices, values, size)`` constructors. A sparse
tensor is a ``SparseTensor`` (``ember.sparse._coo``): dense ``indices`` and ``values`` with a
size; gradients flow to ``values`` and to the dense operand of ``mm``.

Must always hold: results equal PyTorch's, gradients included (``SparseTensor.grad`` is
PyTorch's sparse gradient). Not supported: sparse-sparse products, CSR/CSC/BSR layouts,
``ember.mm``/``ember.matmul`` with a sparse operand (use ``ember.sparse.mm``, ``ember.spmm``
or ``sparse @ dense``), and ``dense @ sparse``.

Examples:
    >>> import ember
    >>> import ember.sparse
    >>> s = ember.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
    >>> s.indices().tolist(), s.values().tolist()
    ([[0, 1], [1, 0]], [2.0, 3.0])
    >>> ember.sparse.mm(s, ember.eye(2)).tolist()
    [[0.0, 2.0], [3.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ember
from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.sparse._coo import SparseTensor, linear_index, sparse_coo

__all__ = [
    "SparseTensor", "sparse_coo", "sparse_coo_tensor", "mm", "spmm", "addmm", "sum",
    "softmax", "log_softmax", "FloatTensor", "DoubleTensor", "LongTensor",
]  # fmt: skip


def sparse_coo_tensor(
    indices: Any,
    values: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
    is_coalesced: bool | None = None,
) -> SparseTensor:
    """PyTorch's ``torch.sparse_coo_tensor``: a sparse tensor from indices and values.

    ``size`` defaults to the smallest that holds every index. With ``requires_grad=True``
    the result is a leaf (its ``values`` a copy of yours); otherwise gradients reach
    ``values`` itself.

    Examples:
        >>> import ember
        >>> from ember.sparse import sparse_coo_tensor
        >>> s = sparse_coo_tensor([[0, 2]], [1.0, 2.0])
        >>> s.shape, s.to_dense().tolist()
        (ember.Size([3]), [1.0, 0.0, 2.0])
    """
    idx = indices if isinstance(indices, Tensor) else ember.tensor(indices, dtype=ember.int64)
    vals = values if isinstance(values, Tensor) else ember.tensor(values, dtype=dtype)
    if idx.dtype is not ember.int64:
        raise RuntimeError(f"indices must be an int64 tensor, but got {idx.dtype}")
    if idx.dim() != 2:
        raise RuntimeError(
            f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}"
        )  # fmt: skip
    if idx.shape[1] != vals.shape[0]:
        raise RuntimeError(
            "indices and values must have same nnz, but got nnz from indices: "
            f"{idx.shape[1]}, nnz from values: {vals.shape[0]}"
        )
    if dtype is not None or device is not None:
        vals = vals.to(dtype=dtype, device=device)
    idx = idx.to(vals.device)
    host = np.asarray(idx)
    sd = int(idx.shape[0])
    if size is None:
        sparse_size = tuple(int(m) + 1 for m in host.max(1)) if host.shape[1] else (0,) * sd
        size = (*sparse_size, *vals.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sd + vals.dim() - 1:
        raise RuntimeError(
            f"number of dimensions must be sparse_dim ({sd}) + dense_dim ({vals.dim() - 1}), "
            f"but got {len(size)}"
        )
    _check_bounds(host, size)  # always: cheap on the host, and an error here beats a wrong sum
    if requires_grad:
        vals = vals.detach().clone().requires_grad_(True)
    return SparseTensor(idx, vals, size, coalesced=bool(is_coalesced) or host.shape[1] <= 1)


def _check_bounds(host: np.ndarray, size: tuple[int, ...]) -> None:
    for d in range(host.shape[0]):
        if not host.shape[1]:
            return
        lo, hi = int(host[d].min()), int(host[d].max())
        if lo < 0:
            raise RuntimeError(f"found negative index {lo} for dim {d}")
        if hi >= size[d]:
            raise RuntimeError(
                f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                f"index {hi}"
            )


def _legacy(dtype: Any) -> Any:
    def constructor(*args: Any, device: Any = None) -> SparseTensor:
        if len(args) >= 2 and isinstance(args[0], Tensor):
            size = args[2] if len(args) > 2 else None
            return sparse_coo_tensor(args[0], args[1], size, dtype=dtype, device=device)
        size = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else args
        empty_idx = ember.zeros((len(size), 0), dtype=ember.int64)
        return sparse_coo_tensor(empty_idx, ember.zeros(0, dtype=dtype), size, device=device)

    return constructor


#: PyTorch's legacy ``torch.sparse.FloatTensor(indices, values, size)`` (and ``(*size)``)
FloatTensor = _legacy(dt.float32)
DoubleTensor = _legacy(dt.float64)
LongTensor = _legacy(dt.int64)


def mm(mat1: SparseTensor, mat2: Tensor) -> Tensor:
    """``sparse (M, K) @ dense (K, N)``, a dense ``(M, N)``; differentiable in both.

    Examples:
        >>> import ember
        >>> from ember.sparse import mm, sparse_coo_tensor
        >>> s = sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
        >>> mm(s, ember.tensor([[1.0], [10.0]])).tolist()
        [[20.0], [3.0]]
    """
    if not isinstance(mat1, SparseTensor):
        if isinstance(mat2, SparseTensor):
            raise RuntimeError("ember.sparse.mm: dense @ sparse is not supported")
        return ember.mm(mat1, mat2)
    return mat1.mm(mat2)


spmm = mm


def addmm(
    input: Tensor, mat1: SparseTensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` with a sparse ``mat1``."""
    return beta * input + alpha * mm(mat1, mat2)


def sum(input: SparseTensor, dim: Any = None, dtype: Any = None) -> Any:
    """PyTorch's ``torch.sparse.sum``: dense when every sparse dim is summed, else sparse.

    Examples:
        >>> import ember
        >>> from ember.sparse import sparse_coo_tensor, sum
        >>> s = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
        >>> sum(s).item(), sum(s, 0).to_dense().tolist()
        (12.0, [4.0, 0.0, 8.0])
    """
    return input.sum(dim, dtype=dtype)


def _grouped(input: SparseTensor, dim: int, log: bool) -> SparseTensor:
    s = input.coalesce()
    sd = s.sparse_dim()
    dim = dim % s.dim()
    vals = s._values()
    if dim >= sd:  # a dense dim: an ordinary softmax of the values
        fn = vals.log_softmax if log else vals.softmax
        return SparseTensor(s._indices(), fn(dim - sd + 1), s.shape, coalesced=True)
    others = [d for d in range(sd) if d != dim]
    host = np.asarray(s._indices())
    key = linear_index(host[others], tuple(s.shape[d] for d in others))
    _, inv_np = np.unique(key, return_inverse=True)
    inv_np = inv_np.reshape(-1)
    groups = int(inv_np.max()) + 1 if len(inv_np) else 0
    peak = np.full((groups, *vals.shape[1:]), -np.inf)
    np.maximum.at(peak, inv_np, np.asarray(vals.detach(), dtype=np.float64))
    inv = ember.from_numpy(inv_np.astype(np.int64)).to(s.device)
    # the group maximum only keeps exp() finite: softmax does not depend on it
    shifted = vals - ember.from_numpy(peak).to(dtype=vals.dtype, device=s.device)[inv]
    e = shifted.exp()
    den = ember.zeros((groups, *vals.shape[1:]), dtype=vals.dtype, device=s.device)
    den = den.index_add(0, inv, e)[inv]
    out = shifted - den.log() if log else e / den
    return SparseTensor(s._indices(), out, s.shape, coalesced=True)


def softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Softmax over ``dim`` of the specified entries (unspecified ones count as -inf).

    Examples:
        >>> import ember
        >>> from ember.sparse import softmax, sparse_coo_tensor
        >>> s = sparse_coo_tensor([[0, 0, 1], [0, 2, 1]], [1.0, 1.0, 5.0], (2, 3))
        >>> softmax(s, 1).to_dense().tolist()
        [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]]
    """
    return _grouped(input if dtype is None else input.to(dtype), dim, log=False)


def log_softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Log of ``softmax`` over ``dim`` of the specified entries."""
    return _grouped(input if dtype is None else input.to(dtype), dim, log=True)


# -- Tensor methods (bound when ember.sparse is imported) --------------------------------------
def _to_sparse(
    self: Tensor,
    sparse_dim: int | None = None,
    *,
    layout: Any = None,
    blocksize: Any = None,
    dense_dim: int | None = None,
) -> SparseTensor:
    """``Tensor.to_sparse()``: the nonzeros (or nonzero slices of the first ``sparse_dim``
    dims) as a coalesced sparse COO tensor; differentiable."""
    if layout not in (None, sparse_coo) or blocksize is not None:
        raise RuntimeError(f"to_sparse: only the sparse_coo layout is supported, got {layout}")
    n = self.dim()
    sd = n - (dense_dim or 0) if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= n:
        raise RuntimeError(f"sparse_dim must be in [0, {n}], got {sd}")
    mask = np.asarray(self.detach()) != 0
    if sd < n:
        mask = mask.any(axis=tuple(range(sd, n)))
    nz = np.stack(np.nonzero(mask)) if sd else np.zeros((0, 1 if mask else 0), np.int64)
    idx = ember.from_numpy(nz.astype(np.int64).reshape(sd, -1)).to(self.device)
    vals = self[tuple(idx[d] for d in range(sd))] if sd else self.unsqueeze(0)[: idx.shape[1]]
    return SparseTensor(idx, vals, self.shape, coalesced=True)


def _to_dense(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """``Tensor.to_dense()`` of a dense tensor: itself (or a cast)."""
    return self if dtype is None else self.to(dtype)


for _name, _fn in (
    ("to_sparse", _to_sparse),
    ("to_sparse_coo", _to_sparse),
    ("to_dense", _to_dense),
):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _fn)
del _name, _fn
