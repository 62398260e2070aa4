"""Composite in-place operators: resizing, writes through flat indices (put_), masked
scatter, the in-place fused products (addmm_ ...), and the in-place view methods.

Must always hold: a metadata change (``squeeze_``, ``t_``, ``resize_`` ...) touches only
``self``'s shape, strides and offset (and, for ``resize_`` past the storage's end, its
storage), never the values another view sees. The in-place view methods are plain
Tensor methods (``METHODS``), not operators: with autograd on, ``self`` takes the
history of the equivalent view op, so gradients flow as through ``squeeze``/``transpose``
(an in-place *operator* would be recorded as a write into its base). In-place writes go
through ``copy_``/``index_put_``, which bump the version counter and rebase history.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, contiguous_strides
from ember.dispatcher.grad_mode import is_grad_enabled

__all__ = [
    "resize_",
    "resize_as_",
    "type_as",
    "new_empty_strided",
    "masked_scatter_",
    "put_",
    "put",
    "tril_",
    "triu_",
    "addmm_",
    "addmv_",
    "addr_",
    "baddbmm_",
    "addbmm_",
]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _adopt(self: Tensor, view: Tensor) -> Tensor:
    """Give ``self`` the geometry (and, under autograd, the history) of ``view``."""
    if self._requires_grad and self.grad_fn is None and is_grad_enabled():
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    self._shape, self._stride, self._offset = view._shape, view._stride, view._offset
    if view.grad_fn is not None and view.grad_fn is not self.grad_fn:
        self.grad_fn = view.grad_fn
        self.__dict__.pop("_output_nr", None)
    return self


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _adopt(self, _aten().unsqueeze.default(self, dim))


def t_(self: Tensor) -> Tensor:
    return _adopt(self, _aten().t.default(self))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _adopt(self, _aten().transpose.int(self, dim0, dim1))


def _squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return _adopt(self, _aten().squeeze.default(self))
    if isinstance(dim, (tuple, list)):
        return _adopt(self, _aten().squeeze.dims(self, tuple(dim)))
    return _adopt(self, _aten().squeeze.dim(self, dim))


#: Tensor methods that change ``self``'s view in place (bound by ``registration.load``).
METHODS: dict[str, Callable[..., Tensor]] = {
    "squeeze_": _squeeze_,
    "unsqueeze_": unsqueeze_,
    "t_": t_,
    "transpose_": transpose_,
    "swapaxes_": transpose_,
    "swapdims_": transpose_,
}


def resize_(self: Tensor, size: Any, memory_format: Any = None) -> Tensor:
    """New shape with contiguous strides over the same storage; grows the storage (keeping its
    contents) when the new shape needs more elements than it holds, as PyTorch does."""
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{list(shape)}")  # fmt: skip
    need = (self._offset + math.prod(shape)) * self._dtype.itemsize
    if need > self._storage.nbytes:
        from ember.operators.drivers import new_empty

        cap = self._storage.nbytes // self._dtype.itemsize
        fresh = new_empty((self._offset + math.prod(shape),), self._dtype, self._device)
        if cap:
            old = _aten().as_strided.default(self.detach(), (cap,), (1,), 0)
            fresh.narrow(0, 0, cap).copy_(old)
        self._storage = fresh._storage
    self._shape = type(self._shape)(shape)
    self._stride = contiguous_strides(shape)
    return self


def resize_as_(self: Tensor, the_template: Tensor, memory_format: Any = None) -> Tensor:
    return resize_(self, the_template._shape)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return self.to(other._dtype)


def new_empty_strided(self: Tensor, size: Any, stride: Any, dtype: Any = None, layout: Any = None,
                      device: Any = None, pin_memory: Any = None) -> Tensor:  # fmt: skip
    return _aten().empty_strided.default(
        tuple(size), tuple(stride), dtype=dtype or self._dtype, device=device or self._device
    )


# -- writes ----------------------------------------------------------------------------------------
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    if mask._dtype is not dt.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask._dtype.name}"
        )
    from ember.operators.drivers import broadcast_shapes

    if tuple(broadcast_shapes(self._shape, mask._shape)) != tuple(self._shape):
        raise RuntimeError(
            f"masked_scatter_: mask of shape {list(mask._shape)} cannot be broadcast to self "
            f"of shape {list(self._shape)}"
        )
    return self.copy_(_aten().masked_scatter.default(self, mask, source))


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    if index._dtype is not dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index._dtype.name}")
    if source._dtype is not self._dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got "
            f"self.dtype = {self._dtype.name} and source.dtype = {source._dtype.name}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = self.numel()
    if index.numel():
        lo, hi = int(index.amin().item()), int(index.amax().item())
        bad = hi if hi >= n else (lo if lo < -n else None)
        if bad is not None:
            raise IndexError(
                f"out of range: tried to access index {bad} on a tensor of {n} elements."
            )
    if index.numel() == 0:
        return self
    flat_idx = [index.reshape(-1)]
    vals = source.reshape(-1)
    if self.is_contiguous():
        _aten().index_put_.default(self.view(-1), flat_idx, vals, accumulate)
        return self
    tmp = self.contiguous()
    _aten().index_put_.default(tmp.view(-1), flat_idx, vals, accumulate)
    return self.copy_(tmp)


def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return put_(self.clone(), index, source, accumulate)


def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    return self.copy_(_aten().tril.default(self, diagonal))


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    return self.copy_(_aten().triu.default(self, diagonal))


def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return self.copy_(_aten().addmm.default(self, mat1, mat2, beta=beta, alpha=alpha))


def addmv_(self: Tensor, mat: Tensor, vec: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return self.copy_(_aten().addmv.default(self, mat, vec, beta=beta, alpha=alpha))


def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return self.copy_(_aten().addr.default(self, vec1, vec2, beta=beta, alpha=alpha))


def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1
             ) -> Tensor:  # fmt: skip
    return self.copy_(_aten().baddbmm.default(self, batch1, batch2, beta=beta, alpha=alpha))


def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1
            ) -> Tensor:  # fmt: skip
    return self.copy_(_aten().addbmm.default(self, batch1, batch2, beta=beta, alpha=alpha))
