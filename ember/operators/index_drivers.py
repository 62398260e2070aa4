"""Drivers for the indexing primitives: gather, scatter, index, index_put, nonzero, sort.

Like the structured families in ``drivers.py``, the core validates the
arguments (PyTorch's errors), allocates the outputs and normalises what the
kernel sees, so a device kernel does only the data movement:

=============  ================================================  =========================
kind           kernel call                                        the core guarantees
=============  ================================================  =========================
gather         ``k(out, self, dim, index)``                       out has index's shape
scatter        ``k(self, dim, index, src, reduce, include_self)``  in place; src is self's dtype
index          ``k(out, self, indices)``                          K int64 tensors of one shape B
                                                                  index self's first K dims;
                                                                  out is B + self.shape[K:]
index_put      ``k(self, indices, values, accumulate)``           as index; values has shape
                                                                  B + self.shape[K:]
nonzero        ``k(out, self)``                                   out is (count, ndim) int64
sort           ``k(values, indices, self, dim, descending,        stable ascending/descending
               stable)``                                          sort along dim
=============  ================================================  =========================

Index tensors are int64 and may be strided or expanded (stride 0). PyTorch's
index semantics (``None`` entries, boolean masks, broadcasting, the placement of
the indexed dims in the result) are resolved here, once for every device:
``_plan_indices`` permutes the indexed dims to the front and turns masks into
coordinates.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher import registry
from ember.dispatcher.registry import OpOverload
from ember.operators.drivers import Kernel, broadcast_shapes, cast, new_empty

__all__ = ["ValuesIndices", "plan_indices", "normalize_dim"]

_HALF = (dt.float16, dt.bfloat16)


class ValuesIndices(NamedTuple):
    """``(values, indices)``, as ``torch.return_types.sort``/``topk``/``max``."""

    values: Tensor
    indices: Tensor


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def normalize_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _index_int64(op: str, index: Tensor) -> Tensor:
    """gather/scatter take int64 or int32 indices (as PyTorch); kernels see int64."""
    if index._dtype is dt.int64:
        return index
    if index._dtype is not dt.int32:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index, got {index._dtype.name}")
    return cast(index, dt.int64)


def _run_checked(kernel: Kernel, *args: Any) -> None:
    """Run a gather/scatter kernel; an index out of range is a RuntimeError there, as in
    PyTorch (kernels raise IndexError, which advanced indexing keeps)."""
    try:
        kernel(*args)
    except IndexError as e:
        raise RuntimeError(str(e)) from None


def _as1d(t: Tensor) -> Tensor:
    return t.view(1) if not t._shape else t


# -- gather / scatter --------------------------------------------------------------------------
def _check_like(op: str, self: Tensor, dim: int, index: Tensor, other: Tensor | None) -> None:
    nd = max(self.ndim, 1)
    if max(index.ndim, 1) != nd or (other is not None and max(other.ndim, 1) != nd):
        raise RuntimeError(
            "Index tensor must have the same number of dimensions as "
            + ("input tensor" if other is None else "self tensor")
        )
    ish, ssh = _as1d(index)._shape, _as1d(self)._shape
    for d in range(nd):
        if d != dim and ish[d] > ssh[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index._shape)} "
                f"to be no larger than self {list(self._shape)} apart from dimension {dim}"
            )
        if other is not None and ish[d] > _as1d(other)._shape[d]:
            raise RuntimeError(
                f"Expected index {list(index._shape)} to be no larger than self "
                f"{list(self._shape)} apart from dimension {dim} and to be no larger size than "
                f"src {list(other._shape)}"
            )


def _gather_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def gather(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
        index = _index_int64("gather", index)
        d = normalize_dim(dim, self.ndim)
        _check_like("gather", self, d, index, None)
        out = new_empty(index._shape, self._dtype, self._device)
        if out.numel():
            _run_checked(kernel, _as1d(out), _as1d(self), d, _as1d(index))
        return out

    return gather


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _scatter_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def scatter_reduce_(
        self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool = True
    ) -> Tensor:
        if reduce not in _REDUCES and reduce != "none":
            raise RuntimeError(
                "reduce argument must be either sum, prod, mean, amax or amin, got " + reduce
            )
        index = _index_int64("scatter", index)
        if src._dtype is not self._dtype:
            raise RuntimeError(
                f"scatter(): Expected self.dtype to be equal to src.dtype, got "
                f"{self._dtype.name} and {src._dtype.name}"
            )
        d = normalize_dim(dim, self.ndim)
        _check_like("scatter", self, d, index, src)
        if index.numel() == 0:
            return self
        if reduce != "none" and self._dtype is dt.bool_:
            raise RuntimeError(f"scatter_reduce(): reduce={reduce!r} is not supported for bool")
        if reduce != "none" and self._dtype in _HALF:
            tmp = cast(self, dt.float32)
            f32 = _as1d(cast(src, dt.float32))
            _run_checked(kernel, _as1d(tmp), d, _as1d(index), f32, reduce, include_self)
            self.copy_(tmp)
        else:
            _run_checked(kernel, _as1d(self), d, _as1d(index), _as1d(src), reduce, include_self)
        self._storage.version += 1
        return self

    return scatter_reduce_


# -- advanced indexing -------------------------------------------------------------------------
class IndexPlan(NamedTuple):
    """What a kernel sees for ``self[indices]``: see ``plan_indices``."""

    view: Tensor  # self with the indexed dims permuted to the front
    indices: list[Tensor]  # K int64 tensors, all of shape ``bshape``
    bshape: tuple[int, ...]
    rest: tuple[int, ...]  # the non-indexed dims' sizes, in order
    perm: tuple[int, ...] | None  # permutation from kernel order (B + rest) to PyTorch's
    order: tuple[int, ...]  # self.permute(order) is ``view``


def _mask_coords(mask: Tensor, sizes: tuple[int, ...], pos: int) -> list[Tensor]:
    if tuple(mask._shape) != sizes:
        raise IndexError(
            f"The shape of the mask {list(mask._shape)} at index {pos} does not match the shape "
            f"of the indexed tensor {list(sizes)} at index {pos}"
        )
    coords = _aten().nonzero.default(mask)
    return [coords.select(1, j) for j in range(mask.ndim)]


def plan_indices(self: Tensor, indices: Any) -> IndexPlan:
    """Resolve PyTorch's advanced-index semantics for ``self[indices]``.

    Boolean (and uint8) masks become the coordinates of their True elements, the
    index tensors broadcast to one shape B, and the indexed dims move to the
    front; ``perm`` says how to move the B dims back when the indexed dims were
    adjacent and not leading (PyTorch puts them in place of the first indexed dim).
    """
    items: list[Tensor | None] = []
    for i in indices:
        if i is None:
            items.append(None)
            continue
        if not isinstance(i, Tensor):
            raise TypeError(f"index(): expected Tensor or None, got {type(i).__name__}")
        if i._dtype is dt.bool_ or i._dtype is dt.uint8:
            pos = len(items)
            if pos + i.ndim > self.ndim:
                raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
            sizes = tuple(self._shape[pos : pos + i.ndim])
            if i.ndim == 0:
                # A 0-dim mask adds a dim of size 1 (True) or 0 (False).
                raise IndexError("index(): 0-dim boolean masks are handled by the caller")
            items.extend(_mask_coords(i, sizes, pos))
        elif i._dtype.category == dt.INT:
            items.append(i if i._dtype is dt.int64 else cast(i, dt.int64))
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if len(items) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} (got {len(items)})")
    adv = [k for k, t in enumerate(items) if t is not None]
    if not adv:
        raise IndexError("index(): at least one index must be a tensor")
    tens = [t for t in items if t is not None]
    bshape: tuple[int, ...] = tuple(tens[0]._shape)
    try:
        for t in tens[1:]:
            bshape = tuple(broadcast_shapes(bshape, t._shape))
    except RuntimeError:
        shapes = ", ".join(str(list(t._shape)) for t in tens)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    dev = self._device
    tens = [(t if t._device is dev else t.to(dev)).expand(bshape) for t in tens]
    others = [k for k in range(self.ndim) if k not in adv]
    order = adv + others
    view = self if order == list(range(self.ndim)) else self.permute(order)
    rest = tuple(self._shape[k] for k in others)
    perm = None
    a0 = adv[0]
    if adv == list(range(a0, adv[-1] + 1)) and a0 > 0:
        nb = len(bshape)
        perm = (
            tuple(nb + j for j in range(a0))
            + tuple(range(nb))
            + tuple(nb + j for j in range(a0, len(rest)))
        )
    return IndexPlan(view, tens, bshape, rest, perm, tuple(order))


def _index_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def index(self: Tensor, indices: Any) -> Tensor:
        p = plan_indices(self, indices)
        out = new_empty(p.bshape + p.rest, self._dtype, self._device)
        if out.numel():
            kernel(out, p.view, p.indices)
        return out if p.perm is None else out.permute(p.perm)

    return index


def _is_mask_fill(indices: Any, values: Tensor) -> bool:
    """One boolean mask and a 0-dim value: PyTorch fills (casting the value)."""
    idx = [i for i in indices if i is not None]
    return (
        values.ndim == 0
        and len(idx) == 1
        and len(indices) == 1
        and isinstance(idx[0], Tensor)
        and idx[0]._dtype is dt.bool_
    )


def _index_put_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def index_put_(self: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
        if values._dtype is not self._dtype and _is_mask_fill(indices, values):
            values = cast(values, self._dtype)  # PyTorch takes this path as masked_fill_
        if values._dtype is not self._dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{self._dtype.name.capitalize()} for the destination and "
                f"{values._dtype.name.capitalize()} for the source."
            )
        p = plan_indices(self, indices)
        shape = p.bshape + p.rest
        final = shape if p.perm is None else tuple(shape[k] for k in p.perm)
        try:
            v = values.expand(final)
        except RuntimeError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(values._shape)} cannot be broadcast "
                f"to indexing result of shape {list(final)}"
            ) from None
        if p.perm is not None:
            inv = [0] * len(p.perm)
            for i, k in enumerate(p.perm):
                inv[k] = i
            v = v.permute(inv)
        if v.numel() == 0:
            return self
        if values._device is not self._device:
            v = v.to(self._device)
        if accumulate and self._dtype in _HALF:
            tmp = cast(self, dt.float32)
            kernel(tmp.permute(p.order), p.indices, cast(v, dt.float32), True)
            self.copy_(tmp)
        else:
            kernel(p.view, p.indices, v, accumulate)
        self._storage.version += 1
        return self

    return index_put_


# -- nonzero and sort --------------------------------------------------------------------------
def _nonzero_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def nonzero(self: Tensor) -> Tensor:
        aten = _aten()
        n = int(aten.sum.dim_IntList(aten.ne.Tensor(self, 0), (), False).item())
        out = new_empty((n, self.ndim), dt.int64, self._device)
        if n:
            kernel(out, self)
        return out

    return nonzero


def _sort_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def sort(
        self: Tensor, stable: bool | None = None, dim: int = -1, descending: bool = False
    ) -> ValuesIndices:
        d = normalize_dim(dim, self.ndim)
        src = cast(self, dt.float32) if self._dtype in _HALF else self
        values = new_empty(self._shape, src._dtype, self._device)
        indices = new_empty(self._shape, dt.int64, self._device)
        if values.numel():
            kernel(_as1d(values), _as1d(indices), _as1d(src), d, bool(descending), bool(stable))
        return ValuesIndices(cast(values, self._dtype), indices)

    return sort


registry.register_driver("gather", _gather_driver)
registry.register_driver("scatter", _scatter_driver)
registry.register_driver("index", _index_driver)
registry.register_driver("index_put", _index_put_driver)
registry.register_driver("nonzero", _nonzero_driver)
registry.register_driver("sort", _sort_driver)
