"""Composite searching and counting: searchsorted, bucketize, bincount, histc, unique_consecutive,
isin, nonzero_static.

All are built on the indexing primitives (``sort.stable``, ``scatter_reduce_``,
``index``, ``nonzero``) plus scans, with no per-element Python work:
``searchsorted`` merges the values into the boundaries with one stable sort and
counts the boundaries before each value with a cumulative sum (O((n + m) log)),
``bincount``/``histc`` are one ``scatter_add`` of ones (or weights) into the bins.
Their integer outputs carry no gradient; ``bincount``'s weights get one through
``scatter_add``.
"""

from __future__ import annotations

import math
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor, _wrap_dim

__all__ = [
    "searchsorted",
    "bucketize",
    "bincount",
    "histc",
    "histogram",
    "histogram_edges",
    "unique_consecutive",
    "isin",
    "nonzero_static",
]

_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
          "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool"}  # fmt: skip


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _empty(shape: Any, dtype: dt.dtype, like: Tensor) -> Tensor:
    from ember.operators.drivers import new_empty

    return new_empty(tuple(shape), dtype, like._device)


# -- searchsorted / bucketize -------------------------------------------------------------------
def _side(right: bool, side: str | None) -> bool:
    if side is None:
        return right
    if side not in ("left", "right"):
        raise RuntimeError(
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if right and side == "left":
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return side == "right"


def searchsorted(sorted_sequence: Tensor, self: Any, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Any = None) -> Tensor:  # fmt: skip
    bd = sorted_sequence
    r = _side(right, side)
    if bd.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if bd._dtype is dt.bool_ or (isinstance(self, Tensor) and self._dtype is dt.bool_):
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    scalar = not isinstance(self, Tensor)
    if scalar:
        from ember.operators.factories import scalar_tensor_like

        self = scalar_tensor_like(self, bd)
    if self.ndim == 0 and bd.ndim != 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({bd.ndim}) and input value's "
            f"dim({self.ndim}) numel({self.numel()})"
        )
    if (
        bd.ndim > 1
        and tuple(bd._shape[:-1]) != tuple(self._shape[:-1])
        or (bd.ndim > 1 and bd.ndim != self.ndim)
    ):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(bd._shape)} and input value tensor {list(self._shape)}"
        )
    if sorter is not None:
        if tuple(sorter._shape) != tuple(bd._shape):
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {list(bd._shape)}and got sorter tensor {list(sorter._shape)}"
            )
        bd = _aten().gather.default(bd, -1, sorter)
    out_dtype = dt.int32 if out_int32 else dt.int64
    shape = tuple(self._shape)
    vals = self.reshape(1) if self.ndim == 0 else self
    if bd.ndim == 1:
        flat_v = vals.reshape(1, -1)
        b2 = bd.reshape(1, -1)
    else:
        rows = math.prod(bd._shape[:-1])  # explicit: -1 is ambiguous for an empty last dim
        flat_v = vals.reshape(rows, vals._shape[-1])
        b2 = bd.reshape(rows, bd._shape[-1])
    if b2._dtype.category == dt.FLOAT and b2.numel() and bool(b2.isnan().any()):
        res = _bisect(b2, flat_v, r)
    else:
        res = _merge_counts(b2, flat_v, r)
    return res.reshape(shape).to(out_dtype)


def _bisect(bd: Tensor, v: Tensor, right: bool) -> Tensor:
    """PyTorch's binary search, step for step, for every value at once: NaN compares false,
    so where NaNs sit among the boundaries the answer depends on the probe sequence
    (``mid = lo + (hi - lo) // 2``; left: go right while not ``bd[mid] >= v``, right: while
    not ``bd[mid] > v``), which this reproduces exactly."""
    rows, m = bd._shape
    n = v._shape[1]
    ct = dt.promote_types(bd._dtype, v._dtype)
    b, vv = bd.to(ct), v.to(ct)
    lo = _empty((rows, n), dt.int64, v).fill_(0)
    hi = _empty((rows, n), dt.int64, v).fill_(m)
    for _ in range(m.bit_length() + 1):
        live = lo < hi
        mid = lo + (hi - lo) // 2
        probe = b.gather(1, mid.clamp(max=m - 1))
        hit = probe > vv if right else probe >= vv
        go = live & hit.logical_not()
        lo = (mid + 1).where(go, lo)
        hi = mid.where(live & hit, hi)
    return lo


def _merge_counts(bd: Tensor, v: Tensor, right: bool) -> Tensor:
    """For each row, how many boundaries sort before each value (ties: left/right)."""
    aten = _aten()
    rows, m = bd._shape
    n = v._shape[1]
    if n == 0:
        return _empty((rows, 0), dt.int64, v)
    ct = dt.promote_types(bd._dtype, v._dtype)
    b, vv = bd.to(ct), v.to(ct)
    # A stable sort keeps the concatenation order among equal keys: values first give
    # "left" (boundaries equal to a value come after it), boundaries first give "right".
    keys = aten.cat([b, vv], 1) if right else aten.cat([vv, b], 1)
    is_b = _empty((rows, m + n), dt.int64, v)
    is_b.narrow(1, 0 if right else n, m).fill_(1)
    is_b.narrow(1, m if right else 0, n).fill_(0)
    perm = aten.sort.stable(keys, stable=True, dim=1, descending=False)[1]
    seen = aten.gather.default(is_b, 1, perm).cumsum(1)  # boundaries at or before each slot
    # scatter the counts back to the original positions; read off the values' block
    counts = _empty((rows, m + n), dt.int64, v)
    counts.scatter_(1, perm, seen)
    return counts.narrow(1, m if right else 0, n)


def bucketize(self: Any, boundaries: Tensor, out_int32: bool = False, right: bool = False
              ) -> Tensor:  # fmt: skip
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, self, out_int32, right)


# -- counting -----------------------------------------------------------------------------------
def bincount(self: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    if self._dtype is dt.bool_ or self._dtype.category != dt.INT:
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{_NAMES[self._dtype.name]}'"
        )
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.ndim != 1 or (self.numel() and bool((self < 0).any())):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.numel() != self.numel()):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = self.numel()
    size = max(int(self.max().item()) + 1 if n else 0, minlength)
    idx = self.to(dt.int64)
    if weights is None:
        out = _empty((size,), dt.int64, self).fill_(0)
        return out.scatter_add_(0, idx, _empty((n,), dt.int64, self).fill_(1)) if n else out
    wd = weights._dtype if weights._dtype in (dt.float32, dt.float64) else dt.float64
    out = _empty((size,), wd, self).fill_(0)
    return _aten().scatter_add.default(out, 0, idx, weights.to(wd)) if n else out


def histc(self: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A002
    if self._dtype.category != dt.FLOAT:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{_NAMES[self._dtype.name]}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = self.detach().reshape(-1)
    if lo == hi and x.numel():
        lo, hi = float(x.amin().item()), float(x.amax().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (abs(lo) < float("inf") and abs(hi) < float("inf")):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    # Counts accumulate in float32 at least (float16 steps of 1 stop at 2048).
    acc = dt.float64 if self._dtype is dt.float64 else dt.float32
    out = _empty((bins,), acc, self).fill_(0)
    if x.numel():
        xf = x.to(acc)
        inside = (xf >= lo) & (xf <= hi)
        v = xf[inside]
        if v.numel():
            pos = ((v - lo) * bins / (hi - lo)).floor().to(dt.int64).clamp(0, bins - 1)
            out.scatter_add_(0, pos, _empty((v.numel(),), acc, self).fill_(1))
    return out.to(self._dtype)


def histogram(self: Tensor, bins: int = 100, range: Any = None,  # noqa: A002
              weight: Any = None, density: bool = False) -> tuple[Tensor, Tensor]:  # fmt: skip
    """(hist, bin_edges) over ``bins`` equal bins of ``range`` (the data's by default)."""
    if self._dtype.category != dt.FLOAT or self._dtype in (dt.float16, dt.bfloat16):
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{_NAMES[self._dtype.name]}'"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    x = self.detach()
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
        if lo > hi:
            raise RuntimeError(
                f"torch.histogram(): min should not exceed max, but got min {lo} max {hi}"
            )
    elif x.numel():
        lo, hi = float(x.amin().item()), float(x.amax().item())
    else:
        lo, hi = 0.0, 0.0
    if not (abs(lo) < float("inf") and abs(hi) < float("inf")):  # NaN too
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = _aten().linspace(lo, hi, bins + 1, dtype=self._dtype, device=self._device)
    return histogram_edges(self, edges, weight, density)


def histogram_edges(self: Tensor, bins: Tensor, weight: Any = None, density: bool = False
                    ) -> tuple[Tensor, Tensor]:  # fmt: skip
    """(hist, bins) for explicit, increasing bin edges (the last bin includes its right edge)."""
    if self._dtype.category != dt.FLOAT or self._dtype in (dt.float16, dt.bfloat16):
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{_NAMES[self._dtype.name]}'"
        )
    if bins.ndim != 1 or bins.numel() < 2:
        raise RuntimeError(
            "torch.histogram(): bins tensor should have one dimension and at least 2 elements"
        )
    nb = bins.numel() - 1
    x = self.detach().reshape(-1)
    edges = bins.detach().to(x._dtype)
    w = None if weight is None else weight.detach().reshape(-1).to(x._dtype)
    first, last = edges.narrow(0, 0, 1), edges.narrow(0, nb, 1)
    inside = (x >= first) & (x <= last)
    pos = (searchsorted(edges, x, right=True) - 1).clamp(0, nb - 1)
    out = _empty((nb,), x._dtype, x).fill_(0)
    ones = w if w is not None else _empty((x.numel(),), x._dtype, x).fill_(1)
    vals = _aten().where.self(inside, ones, _empty((), x._dtype, x).fill_(0))
    if x.numel():
        out.scatter_add_(0, pos, vals)
    if density:
        widths = edges.narrow(0, 1, nb) - edges.narrow(0, 0, nb)
        out = out / (out.sum() * widths)
    return out, edges


def _fmt(v: float) -> str:
    if v != v:
        return "-nan"
    return f"{v:g}"


# -- unique_consecutive ----------------------------------------------------------------------------
def unique_consecutive(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Any = None) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    aten = _aten()
    if dim is None:
        x = self.reshape(-1)
        n = x._shape[0]
        if n == 0:
            e = _empty((0,), dt.int64, self)
            return x, (e.reshape(self._shape) if return_inverse else e), e
        change = aten.ne.Tensor(x.narrow(0, 1, n - 1), x.narrow(0, 0, n - 1))
        rows, shape = x, tuple(self._shape)
    else:
        d = _wrap_dim(dim, self.ndim)
        moved = self.movedim(d, 0)
        n = moved._shape[0]
        if n == 0:
            e = _empty((0,), dt.int64, self)
            return self, e, e
        rows = moved.reshape(n, -1)
        change = aten.ne.Tensor(rows.narrow(0, 1, n - 1), rows.narrow(0, 0, n - 1))
        change = change.any(1) if rows._shape[1] else change.reshape(n - 1, -1).any(1)
        shape = (n,)
    first = _empty((1,), dt.bool_, self).fill_(True)
    flags = aten.cat([first, change])
    values = aten.index.Tensor(rows, [flags])
    if dim is not None:
        k = values._shape[0]
        values = values.reshape((k,) + tuple(moved._shape[1:])).movedim(0, d)
    inverse = _empty((0,), dt.int64, self)
    counts = _empty((0,), dt.int64, self)
    if return_inverse:
        inverse = (flags.to(dt.int64).cumsum(0) - 1).reshape(shape)
    if return_counts:
        starts = aten.nonzero.default(flags).reshape(-1)
        end = _empty((1,), dt.int64, self).fill_(n)
        counts = aten.cat([starts.narrow(0, 1, starts._shape[0] - 1), end]) - starts
    return values, inverse, counts


def nonzero_static(self: Tensor, size: int, fill_value: int = -1) -> Tensor:
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    idx = _aten().nonzero.default(self)
    n = idx._shape[0]
    if n >= size:
        return idx.narrow(0, 0, size).clone()
    pad = _aten().full.default(
        (size - n, self.ndim), fill_value, dtype=dt.int64, device=self._device
    )
    return _aten().cat([idx, pad], 0)


def isin(elements: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False
         ) -> Tensor:  # fmt: skip
    """Whether each element occurs in ``test_elements``: one sort of the test elements and
    a binary search (``searchsorted``) of every element."""
    from ember.operators.factories import scalar_tensor_like

    aten = _aten()
    e = elements if isinstance(elements, Tensor) else scalar_tensor_like(elements, test_elements)
    t = test_elements if isinstance(test_elements, Tensor) else scalar_tensor_like(test_elements, e)
    ct = dt.promote_types(e._dtype, t._dtype)
    if ct is dt.bool_:
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    e, t = e.to(ct), t.reshape(-1).to(ct)
    if t.numel() == 0:
        found = aten.zeros_like.default(e, dtype=dt.bool_)
    else:
        srt = aten.sort.stable(t, stable=False, dim=0, descending=False)[0]
        # the merge, not searchsorted: with NaNs sorted last it places every value exactly
        # (searchsorted reproduces PyTorch's NaN-confused binary search)
        counts = _merge_counts(srt.reshape(1, -1), e.reshape(1, -1), False)
        pos = counts.reshape(e._shape).clamp(max=t.numel() - 1)
        found = aten.eq.Tensor(aten.index.Tensor(srt, [pos.reshape(-1)]).reshape(e._shape), e)
    return found.logical_not() if invert else found
