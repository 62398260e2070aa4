"""Composite shape operators: moving dims, stacking, splitting, diagonals, repeats, windows.

Every kernel here is device-independent: it calls operators (through ``ops.aten``, so
autograd records the views it makes) and never a device, and none has a formula of
its own: autograd differentiates each through its parts (views, ``cat``, ``copy_``
into views of a fresh tensor, ``index``). Must always hold: a view operator
here (movedim, swapaxes, broadcast_to, atleast_*, unfold, adjoint, ravel of a
contiguous tensor, tensor_split) returns a view; every other returns new memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, _wrap_dim

__all__ = [
    "movedim",
    "swapaxes",
    "adjoint",
    "ravel",
    "narrow_copy",
    "rot90",
    "fliplr",
    "flipud",
    "vstack",
    "hstack",
    "dstack",
    "column_stack",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_to",
    "meshgrid",
    "cartesian_prod",
    "combinations",
    "block_diag",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal_scatter",
    "select_scatter",
    "slice_scatter",
    "repeat_interleave",
    "repeat_interleave_tensor",
    "diff",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "unfold",
    "tril_indices",
    "triu_indices",
]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _empty(shape: Sequence[int], dtype: dt.dtype, like: Tensor) -> Tensor:
    from ember.operators.drivers import new_empty

    return new_empty(tuple(shape), dtype, like._device)


def _zeros(shape: Sequence[int], dtype: dt.dtype, like: Tensor) -> Tensor:
    return _empty(shape, dtype, like).fill_(False if dtype is dt.bool_ else 0)


def _arange(n: int, like: Tensor) -> Tensor:
    return _aten().arange.start_step(0, n, 1, dtype=dt.int64, device=like._device)


def _tname(t: Tensor) -> str:
    from ember.operators.drivers import _TORCH_NAMES

    return str(_TORCH_NAMES[t._dtype.name])


# -- moving and swapping dims (views) -----------------------------------------------------------
def movedim(self: Tensor, source: Any, destination: Any) -> Tensor:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = self.ndim
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)"
        )
    src = [_wrap_dim(s, n) for s in src]
    dst = [_wrap_dim(d, n) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    if n == 0:  # dims 0 and -1 name the one (absent) dim
        return _aten().permute.default(self, [])
    order = [-1] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o >= 0 else next(rest) for o in order]
    return _aten().permute.default(self, order)


def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return _aten().transpose.int(self, axis0, axis1)


def adjoint(self: Tensor) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got "
            f"{self.ndim}-D tensor."
        )
    return _aten().transpose.int(self, -2, -1)


def ravel(self: Tensor) -> Tensor:
    return _aten().reshape.default(self, (-1,))


def narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return _aten().narrow.default(self, dim, start, length).clone()


def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return _aten().expand.default(self, tuple(size))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` along ``dimension``, ``step`` apart, as a new last dim (a view)."""
    n = self.ndim
    d = _wrap_dim(dimension, n)
    length = self._shape[d] if n else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if n == 0:
        return _aten().as_strided.default(self, (size,), (1,), self._offset)
    shape, stride = list(self._shape), list(self._stride)
    shape[d] = (length - size) // step + 1
    shape.append(size)
    stride.append(stride[d])
    stride[d] *= step
    return _aten().as_strided.default(self, tuple(shape), tuple(stride), self._offset)


# -- flips and rotations --------------------------------------------------------------------------
def fliplr(self: Tensor) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _aten().flip.default(self, [1])


def flipud(self: Tensor) -> Tensor:
    if self.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _aten().flip.default(self, [0])


def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    dims = list(dims)
    n = self.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == n:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    for i, d in enumerate(dims):
        if not -n <= d < n:
            raise RuntimeError(f"Rotation dim{i} out of range, dim{i} = {d}")
    k %= 4
    aten = _aten()
    if k == 1:
        return aten.transpose.int(aten.flip.default(self, [dims[1]]), dims[0], dims[1])
    if k == 2:
        return aten.flip.default(self, dims)
    if k == 3:
        return aten.transpose.int(aten.flip.default(self, [dims[0]]), dims[0], dims[1])
    return aten.clone.default(self)


# -- stacking -----------------------------------------------------------------------------------
def atleast_1d(self: Tensor) -> Tensor:
    return _aten().reshape.default(self, (1,)) if self.ndim == 0 else self


def atleast_2d(self: Tensor) -> Tensor:
    if self.ndim == 0:
        return _aten().reshape.default(self, (1, 1))
    return _aten().unsqueeze.default(self, 0) if self.ndim == 1 else self


def atleast_3d(self: Tensor) -> Tensor:
    aten = _aten()
    if self.ndim == 0:
        return aten.reshape.default(self, (1, 1, 1))
    if self.ndim == 1:
        return aten.unsqueeze.default(aten.unsqueeze.default(self, 0), -1)
    return aten.unsqueeze.default(self, -1) if self.ndim == 2 else self


def _nonempty(name: str, tensors: Sequence[Tensor]) -> list[Tensor]:
    ts = list(tensors)
    if not ts:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return ts


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    ts = _nonempty("vstack", tensors)
    return _aten().cat([atleast_2d(t) for t in ts], 0)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    ts = [atleast_1d(t) for t in _nonempty("hstack", tensors)]
    return _aten().cat(ts, 0 if ts[0].ndim == 1 else 1)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    ts = _nonempty("dstack", tensors)
    return _aten().cat([atleast_3d(t) for t in ts], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    ts = _nonempty("column_stack", tensors)
    aten = _aten()
    cols = [aten.reshape.default(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in ts]
    return aten.cat(cols, 1)


# -- grids and products of index sets -------------------------------------------------------------
def meshgrid(tensors: Sequence[Tensor], indexing: str = "ij") -> list[Tensor]:
    ts = list(tensors)
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t!r}"
            )
        if t._dtype is not ts[0]._dtype or t._device != ts[0]._device:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype and device")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    aten = _aten()
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(aten.expand.default(aten.reshape.default(t, tuple(view)), tuple(shape)))
    if swap:  # the grids of the swapped inputs, handed back in the caller's order
        out[0], out[1] = out[1], out[0]
    return out


def cartesian_prod(tensors: Sequence[Tensor]) -> Tensor:
    ts = list(tensors)
    for t in ts:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(ts, "ij")
    aten = _aten()
    return aten.stack([aten.reshape.default(g, (-1,)) for g in grids], 1)


def combinations(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    if self.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(self._shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    aten = _aten()
    if r == 0:
        return _empty((0,), self._dtype, self)
    n = self._shape[0]
    # Index tuples i1 < i2 < ... (or <=) in lexicographic order: a mask over the index grid.
    grids = meshgrid([_arange(n, self)] * r, "ij")
    keep = None
    for a, b in zip(grids, grids[1:]):
        c = a <= b if with_replacement else a < b
        keep = c if keep is None else aten.logical_and.default(keep, c)
    picks = [g if keep is None else aten.masked_select.default(g, keep) for g in grids]
    return aten.stack([aten.index.Tensor(self, [p]) for p in picks], 1)


def block_diag(tensors: Sequence[Tensor]) -> Tensor:
    ts = list(tensors)
    if not ts:
        raise RuntimeError("torch.block_diag: expected a non-empty list of tensors")
    mats = []
    for i, t in enumerate(ts):
        if t.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.ndim} dimensions"
            )
        mats.append(t.reshape(1, -1) if t.ndim < 2 else t)
    out_dtype = mats[0]._dtype
    for m in mats[1:]:
        out_dtype = dt.promote_types(out_dtype, m._dtype)
    rows = sum(m._shape[0] for m in mats)
    cols = sum(m._shape[1] for m in mats)
    out = _zeros((rows, cols), out_dtype, mats[0])
    r = c = 0
    for m in mats:
        h, w = m._shape
        if h and w:
            out.narrow(0, r, h).narrow(1, c, w).copy_(m)
        r, c = r + h, c + w
    return out


# -- diagonals ----------------------------------------------------------------------------------
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    n = self.ndim + 1
    a, b = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    last = self._shape[-1] if self.ndim else 1
    side = last + abs(offset)
    rest = list(self._shape[:-1])
    shape = []
    for i in range(n):
        shape.append(side if i in (a, b) else rest.pop(0))
    out = _zeros(shape, self._dtype, self)
    src = self if self.ndim else self.reshape(1)
    _aten().diagonal.default(out, offset, a, b).copy_(src)
    return out


def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    if self.ndim == 1:
        return diag_embed(self, diagonal, 0, 1)
    if self.ndim == 2:
        return _aten().diagonal.default(self, diagonal, 0, 1).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")


def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    return diag_embed(self.reshape(-1), offset, 0, 1)


def _embed(name: str, self: Tensor, src: Tensor, view: Tensor) -> Tensor:
    if tuple(src._shape) != tuple(view._shape):
        raise RuntimeError(
            f"{name}: expected src to have a size equal to the slice of self. src size = "
            f"{list(src._shape)}, slice size = {list(view._shape)}"
        )
    view.copy_(src)
    return view


def diagonal_scatter(
    self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    out = self.clone()
    _embed("diagonal_scatter", self, src, _aten().diagonal.default(out, offset, dim1, dim2))
    return out


def select_scatter(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    out = self.clone()
    _embed("select_scatter", self, src, _aten().select.int(out, dim, index))
    return out


def slice_scatter(self: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:  # fmt: skip
    out = self.clone()
    _embed("slice_scatter", self, src, _aten().slice.Tensor(out, dim, start, end, step))
    return out


# -- repeats and differences ----------------------------------------------------------------------
def _repeat_index(repeats: Tensor, total: int) -> Tensor:
    """[0]*r0 + [1]*r1 + ...: a 1 at each group's start, then a running sum."""
    aten = _aten()
    n = repeats._shape[0]
    ends = repeats.to(dt.int64).cumsum(0)
    marks = _zeros((total + 1,), dt.int64, repeats)
    if n > 1:
        starts = ends.narrow(0, 0, n - 1)
        marks.scatter_add_(0, starts, aten.ones_like.default(starts))
    return marks.narrow(0, 0, total).cumsum(0)


def repeat_interleave_tensor(repeats: Tensor, output_size: Any = None) -> Tensor:
    """``repeat_interleave(repeats)``: each index ``i`` repeated ``repeats[i]`` times."""
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats._dtype not in (dt.int64, dt.int32):
        raise RuntimeError("repeats has to be Long or Int tensor")
    if repeats.numel() and bool((repeats < 0).any()):
        raise RuntimeError("repeats can not be negative")
    total = int(repeats.sum()) if output_size is None else int(output_size)
    return _repeat_index(repeats, total)


def repeat_interleave(self: Tensor, repeats: Any, dim: Any = None, output_size: Any = None
                      ) -> Tensor:  # fmt: skip
    aten = _aten()
    x = self
    if dim is None:
        x, d = aten.reshape.default(self, (-1,)), 0
    else:
        d = _wrap_dim(dim, self.ndim)
        if x.ndim == 0:
            x = aten.reshape.default(x, (1,))
    size = x._shape[d]
    if isinstance(repeats, Tensor) and repeats.ndim == 1 and repeats._shape[0] != 1:
        if repeats._shape[0] != size:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats._shape[0]} and input.size({d}) = {size}"
            )
        idx = repeat_interleave_tensor(repeats, output_size)
        return aten.index.Tensor(x, [None] * d + [idx])
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        repeats = int(repeats.reshape(()).item())
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    # A scalar count: an expanded view of a new dim after ``d``, copied once by reshape.
    shape = list(x._shape)
    big = shape[: d + 1] + [repeats] + shape[d + 1 :]
    y = aten.expand.default(aten.unsqueeze.default(x, d + 1), tuple(big))
    shape[d] *= repeats
    return aten.reshape.default(y.contiguous(), tuple(shape))


def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None
         ) -> Tensor:  # fmt: skip
    if self.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, self.ndim)
    aten = _aten()
    parts = []
    for name, t in (("prepend", prepend), ("append", append)):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            from ember.operators.factories import scalar_tensor_like

            shape = list(self._shape)
            shape[d] = 1
            t = scalar_tensor_like(t, self).expand(tuple(shape))
        if t.ndim != self.ndim:
            raise RuntimeError(
                f"diff expects {name} or append to be the same dimension as input"
                if name == "prepend"
                else "diff expects prepend or append to be the same dimension as input"
            )
        parts.append((name, t))
    x = self
    if parts and n > 0:  # n = 0 returns the input (a copy) without prepend/append, as PyTorch
        seq = [t for nm, t in parts if nm == "prepend"] + [self]
        seq += [t for nm, t in parts if nm == "append"]
        x = aten.cat(seq, d)
    for _ in range(n):
        m = x._shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = aten.logical_xor.default(hi, lo) if x._dtype is dt.bool_ else hi - lo
    return x if x is not self else self.clone()


# -- splitting (views) ---------------------------------------------------------------------------
def tensor_split(self: Tensor, indices_or_sections: Any, dim: int = 0) -> list[Tensor]:
    if self.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, self.ndim)
    size = self._shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._dtype is not dt.int64 or ios.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long and be "
                f"a 0D or 1D tensor, but got a tensor with dtype {_tname(ios)} and "
                f"{ios.ndim} dims"
            )
        ios = int(ios.item()) if ios.ndim == 0 else [int(v) for v in ios.tolist()]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        base, extra = divmod(size, ios)
        bounds, start = [], 0
        for i in range(ios):
            n = base + (1 if i < extra else 0)
            bounds.append((start, n))
            start += n
    else:
        # Piece i is self[..., idx[i-1]:idx[i]] with Python's slice semantics for each bound.
        cuts = [int(i) for i in ios]
        starts = [0] + cuts
        stops: list[int | None] = [*cuts, None]
        return [_aten().slice.Tensor(self, d, a, b, 1) for a, b in zip(starts, stops)]
    return [_aten().slice.Tensor(self, d, s, s + n, 1) for s, n in bounds]


def _dir_split(name: str, self: Tensor, sections: Any, dim: int, need: int) -> list[Tensor]:
    if self.ndim < need:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
            f"with {self.ndim} dimensions!"
        )
    if isinstance(sections, int):
        size = self._shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {sections}!"
            )
    return tensor_split(self, sections, dim)


def hsplit(self: Tensor, sections: Any) -> list[Tensor]:
    if self.ndim == 0:
        raise RuntimeError(
            "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 "
            "dimensions!"
        )
    return _dir_split("hsplit", self, sections, 1 if self.ndim > 1 else 0, 1)


def vsplit(self: Tensor, sections: Any) -> list[Tensor]:
    return _dir_split("vsplit", self, sections, 0, 2)


def dsplit(self: Tensor, sections: Any) -> list[Tensor]:
    return _dir_split("dsplit", self, sections, 2, 3)


# -- triangle indices (factories) -----------------------------------------------------------------
def _tri_indices(row: int, col: int, offset: int, lower: bool, dtype: Any, device: Any) -> Tensor:
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{name} must be non-negative, got{v}")
    aten = _aten()
    r = aten.arange.start_step(0, row, 1, dtype=dt.int64, device=device).unsqueeze(1)
    c = aten.arange.start_step(0, col, 1, dtype=dt.int64, device=device).unsqueeze(0)
    mask = (c - r <= offset) if lower else (c - r >= offset)
    out = aten.nonzero.default(mask).t().contiguous()
    d = dt.int64 if dtype is None else dtype
    return out if d is dt.int64 else out.to(d)


def tril_indices(row: int, col: int, offset: int = 0, dtype: Any = None, layout: Any = None,
                 device: Any = None, pin_memory: Any = None) -> Tensor:  # fmt: skip
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, dtype: Any = None, layout: Any = None,
                 device: Any = None, pin_memory: Any = None) -> Tensor:  # fmt: skip
    return _tri_indices(row, col, offset, False, dtype, device)
