"""Scatter-style writes: index_reduce(_), fill_diagonal_ and as_strided_scatter.

Each is one call into the indexing primitives (``scatter_reduce_``, ``index_put_``) or a
view followed by a copy into it, so every device with the primitive set runs them;
autograd differentiates them through those calls.
"""

from __future__ import annotations

from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, _wrap_dim

__all__ = [
    "index_reduce",
    "index_reduce_",
    "fill_diagonal_",
    "as_strided_scatter",
]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                  include_self: bool = True) -> Tensor:  # fmt: skip
    if reduce not in _REDUCES:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    if self._dtype is dt.bool_:
        if self.ndim <= 1:  # PyTorch's 1-d kernel has no bool case (its n-d one does)
            raise NotImplementedError("\"index_func_\" not implemented for 'Bool'")
        tmp = self.to(dt.uint8)
        index_reduce_(tmp, dim, index, source.to(dt.uint8), reduce, include_self)
        return self.copy_(tmp)
    if index.ndim > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim}"
        )
    if index._dtype not in (dt.int64, dt.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, self.ndim)
    src = source if source.ndim else source.reshape(1)
    if src.ndim != max(self.ndim, 1) or src._shape[d] != index.numel():
        raise RuntimeError(
            "index_reduce_(): Number of indices and the size of source along dim should match "
            f"(got {index.numel()} indices, source of shape {list(source._shape)})"
        )
    # Each source slice i along ``dim`` goes to self's slice index[i]: a scatter along dim.
    shape = [1] * src.ndim
    shape[d] = -1
    idx = index.to(dt.int64).reshape(shape).expand(tuple(src._shape))
    target = self if self.ndim else self.reshape(1)
    _aten().scatter_reduce_.two(target, d, idx, src, reduce, include_self=include_self)
    return self


def index_reduce(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                 include_self: bool = True) -> Tensor:  # fmt: skip
    return index_reduce_(self.clone(), dim, index, source, reduce, include_self)


def _diagonal_positions(self: Tensor, wrap: bool) -> Tensor:
    """Row-major flat positions of the main diagonal (wrapping for tall matrices)."""
    n = self.ndim
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    if n > 2 and len(set(self._shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    step = 0
    prod = 1
    for s in reversed(self._shape):
        step += prod
        prod *= s
    numel = self.numel()
    if n == 2 and wrap:
        count = (numel + step - 1) // step
    else:
        count = min(self._shape)
    return _aten().arange.start_step(0, count * step, step, dtype=dt.int64, device=self._device)


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    pos = _diagonal_positions(self, wrap)
    if not pos.numel():
        return self
    from ember.operators.factories import scalar_tensor_like

    v = scalar_tensor_like(fill_value, self).to(self._dtype)
    if self.is_contiguous():
        _aten().index_put_.default(self.view(-1), [pos], v, False)
        return self
    tmp = self.contiguous()
    _aten().index_put_.default(tmp.view(-1), [pos], v, False)
    return self.copy_(tmp)


def as_strided_scatter(self: Tensor, src: Tensor, size: Any, stride: Any,
                       storage_offset: Any = None) -> Tensor:  # fmt: skip
    out = self.clone()
    view = _aten().as_strided.default(out, tuple(size), tuple(stride), storage_offset)
    if tuple(view._shape) != tuple(src._shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src._shape)}, slice size = {list(view._shape)}"
        )
    view.copy_(src)
    return out
