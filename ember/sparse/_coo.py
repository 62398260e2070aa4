"""``SparseTensor``: PyTorch's sparse COO tensor as a small wrapper of two dense tensors.

A sparse tensor of ``size`` is ``indices`` (int64, ``(sparse_dim, nnz)``) and ``values``
(``(nnz, *size[sparse_dim:])``): entry ``k`` says ``dense[tuple(indices[:, k])] +=
values[k]``. Everything that computes on values goes through ember operators
(``index_add``, ``index_select``, advanced indexing), so gradients flow to ``values`` and to
the dense operands; index bookkeeping (sorting, de-duplicating) runs in numpy on the host.

Must always hold: ``indices`` and ``values`` are on one device and have the same nnz;
``is_coalesced()`` promises sorted, unique indices; a leaf built with ``requires_grad=True``
owns its ``values`` and its ``.grad`` is a coalesced SparseTensor holding the dense gradient
at its entries (PyTorch's). Not supported: sparse-sparse products, CSR/CSC/BSR layouts,
ember operators other than the methods here taking a SparseTensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ember
from ember.core.memory_format import layout
from ember.core.tensor import Size, Tensor

__all__ = ["SparseTensor", "sparse_coo", "linear_index"]

#: PyTorch's ``torch.sparse_coo`` layout
sparse_coo = layout("sparse_coo")


def linear_index(indices: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """Row-major position of each column of ``indices`` in an array of ``sizes``."""
    if indices.shape[0] == 0:
        return np.zeros(indices.shape[1], dtype=np.int64)
    return np.ravel_multi_index(tuple(indices), sizes).astype(np.int64)


def _indent(text: str, by: int) -> str:
    return text.replace("\n", "\n" + " " * by)


class SparseTensor:
    """A sparse COO tensor (made by ``ember.sparse_coo_tensor`` or ``Tensor.to_sparse()``).

    Examples:
        >>> import ember
        >>> from ember.sparse import sparse_coo_tensor
        >>> s = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
        >>> s.to_dense().tolist()
        [[0.0, 0.0, 3.0], [4.0, 0.0, 5.0]]
        >>> (s @ ember.ones(3, 1)).tolist(), s.is_sparse, s._nnz()
        ([[3.0], [9.0]], True, 3)
    """

    is_sparse = True
    is_sparse_csr = False
    is_quantized = False
    layout = sparse_coo
    __array_priority__ = 1001

    def __init__(self, indices: Tensor, values: Tensor, size: Any, coalesced: bool = False):
        self._idx, self._vals = indices, values
        self._size = Size(tuple(int(s) for s in size))
        self._coalesced = bool(coalesced)

    # -- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return self._size

    def size(self, dim: int | None = None) -> Any:
        return self._size if dim is None else self._size[dim]

    def dim(self) -> int:
        return len(self._size)

    @property
    def ndim(self) -> int:
        return len(self._size)

    def numel(self) -> int:
        return self._size.numel()

    def sparse_dim(self) -> int:
        return int(self._idx.shape[0])

    def dense_dim(self) -> int:
        return self._vals.dim() - 1

    def _nnz(self) -> int:
        return int(self._idx.shape[1])

    @property
    def dtype(self) -> Any:
        return self._vals.dtype

    @property
    def device(self) -> Any:
        return self._vals.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self._vals.is_floating_point()

    def _indices(self) -> Tensor:
        return self._idx

    def _values(self) -> Tensor:
        return self._vals

    def indices(self) -> Tensor:
        self._require_coalesced("indices")
        return self._idx

    def values(self) -> Tensor:
        self._require_coalesced("values")
        return self._vals

    def _require_coalesced(self, what: str) -> None:
        if not self._coalesced:
            raise RuntimeError(
                f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first"
            )

    def is_coalesced(self) -> bool:
        return self._coalesced

    # -- autograd -----------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._vals.requires_grad

    @property
    def is_leaf(self) -> bool:
        return self._vals.is_leaf

    @property
    def grad_fn(self) -> Any:
        return self._vals.grad_fn

    def requires_grad_(self, requires_grad: bool = True) -> SparseTensor:
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def grad(self) -> SparseTensor | None:
        """The dense gradient at this tensor's entries, as a coalesced SparseTensor."""
        g = self._vals.grad
        if g is None:
            return None
        if self._coalesced:
            return SparseTensor(self._idx, g, self._size, coalesced=True)
        # every duplicate of a position has that position's gradient: keep one of each
        lin = linear_index(np.asarray(self._idx), tuple(self._size[: self.sparse_dim()]))
        _, first = np.unique(lin, return_index=True)
        keep = ember.from_numpy(first.astype(np.int64)).to(self.device)
        return SparseTensor(self._idx[:, keep], g[keep], self._size, coalesced=True)

    def detach(self) -> SparseTensor:
        return SparseTensor(self._idx, self._vals.detach(), self._size, self._coalesced)

    def clone(self) -> SparseTensor:
        return SparseTensor(self._idx.clone(), self._vals.clone(), self._size, self._coalesced)

    # -- conversions --------------------------------------------------------------------------
    def coalesce(self) -> SparseTensor:
        """Sorted, unique indices; the values of duplicate indices summed (differentiably)."""
        if self._coalesced:
            return self
        sd = self.sparse_dim()
        idx = np.asarray(self._idx)
        uniq, inverse = np.unique(linear_index(idx, tuple(self._size[:sd])), return_inverse=True)
        new_idx = np.stack(np.unravel_index(uniq, tuple(self._size[:sd]))) if sd else idx[:, :0]
        inv = ember.from_numpy(inverse.reshape(-1).astype(np.int64)).to(self.device)
        zeros = ember.zeros(
            (len(uniq), *self._vals.shape[1:]), dtype=self.dtype, device=self.device
        )
        vals = zeros.index_add(0, inv, self._vals)
        out_idx = ember.from_numpy(new_idx.astype(np.int64).reshape(sd, -1)).to(self.device)
        return SparseTensor(out_idx, vals, self._size, coalesced=True)

    def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
        """The dense tensor (duplicates summed); differentiable in ``values``."""
        sd = self.sparse_dim()
        rows = int(np.prod(self._size[:sd], dtype=np.int64))
        lin = linear_index(np.asarray(self._idx), tuple(self._size[:sd]))
        flat = ember.zeros((rows, *self._vals.shape[1:]), dtype=self.dtype, device=self.device)
        if len(lin):
            flat = flat.index_add(0, ember.from_numpy(lin).to(self.device), self._vals)
        out = flat.reshape(tuple(self._size))
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args: Any, **kwargs: Any) -> SparseTensor:
        return self

    def to(self, *args: Any, **kwargs: Any) -> SparseTensor:
        vals = self._vals.to(*args, **kwargs)
        return SparseTensor(self._idx.to(vals.device), vals, self._size, self._coalesced)

    def cpu(self) -> SparseTensor:
        return self.to("cpu")

    def cuda(self, device: Any = None, non_blocking: bool = False) -> SparseTensor:
        vals = self._vals.cuda(device, non_blocking)
        return SparseTensor(self._idx.to(vals.device), vals, self._size, self._coalesced)

    def float(self) -> SparseTensor:
        return self.to(ember.float32)

    def double(self) -> SparseTensor:
        return self.to(ember.float64)

    # -- arithmetic ---------------------------------------------------------------------------
    def t(self) -> SparseTensor:
        if self.sparse_dim() != 2 or self.dense_dim():
            raise RuntimeError("t() expects a 2-D sparse tensor with no dense dimensions")
        idx = self._idx.flip(0)
        return SparseTensor(idx, self._vals, (self._size[1], self._size[0]))

    def mm(self, mat2: Tensor) -> Tensor:
        """``self (M, K) @ mat2 (K, N)`` as a dense ``(M, N)``; differentiable in both."""
        if isinstance(mat2, SparseTensor):
            raise RuntimeError("ember.sparse.mm: sparse @ sparse is not supported")
        if self.sparse_dim() != 2 or self.dense_dim() or mat2.dim() != 2:
            raise RuntimeError(
                f"mm: expected a 2-D sparse matrix and a 2-D dense matrix, got sparse "
                f"{list(self.shape)} (dense dims {self.dense_dim()}) and dense {list(mat2.shape)}"
            )
        if self.shape[1] != mat2.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
                f"{mat2.shape[0]}x{mat2.shape[1]})"
            )
        rows = ember.zeros(self.shape[0], mat2.shape[1], dtype=mat2.dtype, device=mat2.device)
        if not self._idx.shape[1]:
            return rows + 0 * self._vals.sum()  # no entry: keep the graph to values
        contrib = self._vals.unsqueeze(1) * mat2.index_select(0, self._idx[1])
        return rows.index_add(0, self._idx[0], contrib)

    def __matmul__(self, other: Tensor) -> Tensor:
        if isinstance(other, Tensor) and other.dim() == 1:
            return self.mm(other.unsqueeze(1)).squeeze(1)
        return self.mm(other)

    def sum(self, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
        """PyTorch's sparse sum: dense when every sparse dim is summed, else sparse."""
        if keepdim:
            raise RuntimeError("sum(): keepdim=True is not supported for sparse tensors")
        vals = self._vals if dtype is None else self._vals.to(dtype)
        if dim is None:
            return vals.sum()
        n, sd = self.dim(), self.sparse_dim()
        dims = sorted({d % n for d in ((dim,) if isinstance(dim, int) else dim)})
        dense = [d - sd + 1 for d in dims if d >= sd]
        if dense:
            vals = vals.sum(dense)
        summed = [d for d in dims if d < sd]
        if len(summed) == sd:
            return vals.sum(0)
        keep = [d for d in range(sd) if d not in summed]
        size = [self.shape[d] for d in keep] + [
            self.shape[d] for d in range(sd, n) if d not in dims
        ]
        idx = self._idx[ember.tensor(keep, dtype=ember.int64, device=self.device)]
        return SparseTensor(idx, vals, size).coalesce()

    def __mul__(self, other: Any) -> SparseTensor:
        if isinstance(other, Tensor) and other.dim() > 0:
            raise RuntimeError("ember.sparse: only a scalar times a sparse tensor is supported")
        return SparseTensor(self._idx, self._vals * other, self._size, self._coalesced)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> SparseTensor:
        return SparseTensor(self._idx, self._vals / other, self._size, self._coalesced)

    def __neg__(self) -> SparseTensor:
        return SparseTensor(self._idx, -self._vals, self._size, self._coalesced)

    def __add__(self, other: Any) -> Any:
        if isinstance(other, SparseTensor):
            if other._size != self._size:
                raise RuntimeError(
                    f"add: expected 'self' and 'other' to have same size, but self has size "
                    f"{list(self._size)} while other has size {list(other._size)}"
                )
            idx = ember.cat([self._idx, other._idx], 1)
            return SparseTensor(idx, ember.cat([self._vals, other._vals], 0), self._size)
        if isinstance(other, Tensor):
            raise RuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
            )
        raise TypeError(
            f"unsupported operand type(s) for +: 'SparseTensor' and '{type(other).__name__}'"
        )

    def __sub__(self, other: Any) -> Any:
        return self + (-other)

    def __repr__(self) -> str:
        grad = "" if self._vals.grad_fn is None else f", grad_fn=<{type(self.grad_fn).__name__}>"
        return (
            f"tensor(indices={_indent(repr(self._idx), 15)},\n"
            f"       values={_indent(repr(self._vals), 14)},\n"
            f"       size={tuple(self._size)}, nnz={self._nnz()}, layout=ember.sparse_coo{grad})"
        )
