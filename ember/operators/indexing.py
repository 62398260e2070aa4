"""Composite indexing, scatter, sort and sampling operators, over the indexing primitives.

Every function here is device-independent: it calls only primitives (gather,
scatter_reduce_, index, index_put_, nonzero, sort.stable, the elementwise and
reduction families) and views, so any device with those primitives runs it, and
autograd differentiates it through them.
"""

from __future__ import annotations

from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.operators.drivers import _TORCH_NAMES
from ember.operators.index_drivers import ValuesIndices, normalize_dim

__all__: list[str] = []


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _empty(shape: Any, dtype: dt.dtype, like: Tensor) -> Tensor:
    from ember.operators.drivers import new_empty

    return new_empty(tuple(shape), dtype, like._device)


def _scalar_src(self: Tensor, index: Tensor, value: Any) -> Tensor:
    from ember.operators.factories import scalar_tensor_like

    return scalar_tensor_like(value, self).to(self._dtype).expand(index._shape)


# -- scatter family ----------------------------------------------------------------------------
def scatter_(self: Tensor, dim: int, index: Tensor, src: Any) -> Tensor:
    if not isinstance(src, Tensor):
        src = _scalar_src(self, index, src)
    return _aten().scatter_reduce_.two(self, dim, index, src, "none")


def scatter(self: Tensor, dim: int, index: Tensor, src: Any) -> Tensor:
    return scatter_(self.clone(), dim, index, src)


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _aten().scatter_reduce_.two(self, dim, index, src, "sum")


def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return scatter_add_(self.clone(), dim, index, src)


def scatter_reduce(
    self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool = True
) -> Tensor:
    return _aten().scatter_reduce_.two(
        self.clone(), dim, index, src, reduce, include_self=include_self
    )


# -- index family ------------------------------------------------------------------------------
#: index dtypes each op accepts, and the error PyTorch raises for another (type, message).
_INDEX_DTYPES: dict[str, tuple[tuple[dt.dtype, ...], type[Exception], str]] = {
    "index_select": ((dt.int64, dt.int32), RuntimeError,
                     "index_select(): Expected dtype int32 or int64 for index"),
    "index_add": ((dt.int64, dt.int32), RuntimeError,
                  "index_add_(): Expected dtype int32/int64 for index but got: {}"),
    "index_copy": ((dt.int64,), RuntimeError,
                   "index_copy_(): Expected a long tensor for index, but got {}"),
    "index_fill": ((dt.int64,), IndexError, "index_fill_(): Expected dtype int64 for index."),
}  # fmt: skip

_LEGACY = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
           "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
           "bool": "Bool"}  # fmt: skip


def _dim_index(op: str, self: Tensor, dim: int, index: Tensor) -> tuple[int, list[Any]]:
    if index.ndim > 1:
        kind = RuntimeError if op == "index_fill" else IndexError  # as torch 2.13
        raise kind(
            f"{op}(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"{_LEGACY[index._dtype.name]} and size: {list(index._shape)}"
        )
    allowed, exc, msg = _INDEX_DTYPES[op]
    if index._dtype not in allowed:
        raise exc(msg.format(_LEGACY[index._dtype.name]))
    d = normalize_dim(dim, self.ndim)
    idx = index if index.ndim == 1 else index.reshape(-1)
    return d, [None] * d + [idx]


def _checked_put(op: str, self: Tensor, idx: list[Any], src: Tensor, accumulate: bool,
                 exc: type[Exception]) -> Tensor:  # fmt: skip
    """``index_put_`` with an out-of-range index reported as ``exc`` (PyTorch's type for op)."""
    try:
        return _aten().index_put_.default(self, idx, src, accumulate)  # type: ignore[no-any-return]
    except IndexError as e:
        if exc is IndexError:
            raise IndexError(f"{op}(): {e}") from None
        raise exc(str(e)) from None


def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    if not self._shape:
        _dim_index("index_select", self.view(1), dim, index)
        if index.numel() != 1:
            raise RuntimeError(
                f"index_select(): Index to scalar can have only 1 value, got {index.numel()} "
                "value(s)"
            )
        return index_select(self.view(1), 0, index).view(())
    d, idx = _dim_index("index_select", self, dim, index)
    # Unlike advanced indexing, index_select does not wrap negative indices: send them out of
    # range (no data check, no sync) and report what PyTorch does.
    i = idx[-1]
    idx[-1] = _aten().where.self(i < 0, -1 - self._shape[d], i)
    try:
        return _aten().index.Tensor(self, idx)  # type: ignore[no-any-return]
    except IndexError:
        # torch 2.13: an empty axis and any dim but 0 are RuntimeErrors, dim 0 an IndexError
        if self._shape[d] == 0:
            raise RuntimeError(
                "index_select(): self indexing axis dim should be positive (dimension "
                f"{d} of a tensor of shape {list(self._shape)} is empty)"
            ) from None
        kind = IndexError if d == 0 else RuntimeError
        raise kind(
            f"index_select(): index out of range in self: every index must be in "
            f"[0, {self._shape[d]}) for dimension {d} of a tensor of shape {list(self._shape)}"
        ) from None


def _source_for(self: Tensor, d: int, source: Tensor) -> Tensor:
    return source if source.ndim else source.view(1)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    d, idx = _dim_index("index_add", self, dim, index)
    if source._dtype is not self._dtype:
        raise RuntimeError(
            f"index_add_(): self ({_LEGACY[self._dtype.name]}) and source "
            f"({_LEGACY[source._dtype.name]}) must have the same scalar type"
        )
    src = source if alpha == 1 else source * alpha
    if src._dtype is not self._dtype:
        src = src.to(self._dtype)
    if idx[-1].numel() and bool((idx[-1] < 0).any()):
        bad = int(idx[-1].amin().item())
        raise RuntimeError(
            f"index_add_(): index {bad} is out of bounds for dimension {d} with size "
            f"{self._shape[d] if self._shape else 1}"
        )
    return _checked_put("index_add_", self, idx, _source_for(self, d, src), True, RuntimeError)


def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    return index_add_(self.clone(), dim, index, source, alpha)


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d, idx = _dim_index("index_copy", self, dim, index)
    if idx[-1].numel() and bool((idx[-1] < 0).any()):
        bad = int(idx[-1].amin().item())
        raise IndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {d} with size "
            f"{self._shape[d] if self._shape else 1}"
        )
    return _checked_put("index_copy_", self, idx, _source_for(self, d, source), False, IndexError)


def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return index_copy_(self.clone(), dim, index, source)


def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    from ember.operators.factories import scalar_tensor_like

    d, idx = _dim_index("index_fill", self, dim, index)
    v = value if isinstance(value, Tensor) else scalar_tensor_like(value, self)
    return _aten().index_put_.default(self, idx, v.to(self._dtype), False)


def index_fill(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return index_fill_(self.clone(), dim, index, value)


def index_put(self: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    return _aten().index_put_.default(self.clone(), indices, values, accumulate)


def take(self: Tensor, index: Tensor) -> Tensor:
    return _aten().index.Tensor(self.reshape(-1), [index])


def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        return _aten().gather.default(self.reshape(-1), 0, indices.reshape(-1))
    d = normalize_dim(dim, self.ndim)
    if indices.ndim != self.ndim:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {self.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    from ember.operators.drivers import broadcast_shapes

    # The two broadcast against each other in every dim but ``dim``.
    a, b = list(self._shape), list(indices._shape)
    a[d] = b[d] = 1
    sh = list(broadcast_shapes(tuple(a), tuple(b)))
    ssh, ish = list(sh), list(sh)
    ssh[d], ish[d] = self._shape[d], indices._shape[d]
    if self._shape[d] and indices.numel():
        # PyTorch reduces the indices modulo the size along ``dim`` (any int is in range),
        # so the gather below never sees one out of bounds
        indices = indices.remainder(self._shape[d])
    return _aten().gather.default(self.expand(ssh), d, indices.expand(ish))


# -- masks -------------------------------------------------------------------------------------
def _check_mask(op: str, mask: Tensor) -> None:
    if mask._dtype is not dt.bool_:
        raise RuntimeError(
            f"{op} only supports boolean masks, but got mask with dtype {mask._dtype.name}"
        )


def _value_tensor(op: str, self: Tensor, value: Any) -> Tensor:
    from ember.operators.factories import scalar_tensor_like

    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"{op} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return value.to(self._dtype)
    return scalar_tensor_like(value, self)


def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    _check_mask("masked_fill_", mask)
    v = _value_tensor("masked_fill_", self, value)
    if v._dtype is not self._dtype:  # the result keeps self's dtype (the value is cast)
        v = v.to(self._dtype)
    return _aten().where.self(mask, v, self)  # type: ignore[no-any-return]


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    _check_mask("masked_fill_", mask)
    v = _value_tensor("masked_fill_", self, value)
    return self.copy_(_aten().where.self(mask.expand(self._shape), v, self))


def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    _check_mask("masked_select", mask)
    from ember.operators.drivers import broadcast_shapes

    sh = broadcast_shapes(self._shape, mask._shape)
    s, m = self.expand(sh), mask.expand(sh)
    if not sh:
        s, m = s.view(1), m.view(1)
    return _aten().index.Tensor(s, [m])


def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    _check_mask("masked_scatter_", mask)
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{_TORCH_NAMES[self._dtype.name]} and {_TORCH_NAMES[source._dtype.name]}"
        )
    m = mask.expand(self._shape)
    n = int(m.sum().item())
    if n > source.numel():
        raise RuntimeError(
            "masked_scatter: expected source to have at least as many elements as ones in mask"
        )
    vals = source.reshape(-1).narrow(0, 0, n).to(self._dtype)
    out = self.clone()
    if n:
        _aten().index_put_.default(
            out if out.ndim else out.view(1), [m if m.ndim else m.view(1)], vals, False
        )
    return out


def argwhere(self: Tensor) -> Tensor:
    return _aten().nonzero.default(self)


def count_nonzero(self: Tensor, dim: Any) -> Tensor:
    return _aten().ne.Tensor(self, 0).sum(tuple(dim) if dim else None)


# -- sorting and selection ---------------------------------------------------------------------
def sort(self: Tensor, dim: int = -1, descending: bool = False) -> ValuesIndices:
    return _aten().sort.stable(self, stable=False, dim=dim, descending=descending)


def argsort_stable(self: Tensor, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    return _aten().sort.stable(self, stable=stable, dim=dim, descending=descending)[1]


def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    return argsort_stable(self, False, dim, descending)


def msort(self: Tensor) -> Tensor:
    return _aten().sort.stable(self, stable=False, dim=0, descending=False)[0]


def topk(
    self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> ValuesIndices:
    d = normalize_dim(dim, self.ndim)
    n = self._shape[d] if self._shape else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    v, i = _aten().sort.stable(self, stable=True, dim=d, descending=largest)
    if not self._shape:
        return ValuesIndices(v, i)
    return ValuesIndices(v.narrow(d, 0, k), i.narrow(d, 0, k))


def _select_kth(self: Tensor, k: int, dim: int, keepdim: bool, what: str) -> ValuesIndices:
    d = normalize_dim(dim, self.ndim)
    n = self._shape[d] if self._shape else 1
    if not 0 <= k < n:
        exc = RuntimeError if what == "kthvalue" else IndexError  # as PyTorch
        raise exc(f"{what}(): selected number k out of range for dimension {d}")
    v, i = _aten().sort.stable(self, stable=True, dim=d, descending=False)
    if not self._shape:
        return ValuesIndices(v, i)
    v, i = v.narrow(d, k, 1), i.narrow(d, k, 1)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return ValuesIndices(v, i)


def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> ValuesIndices:
    return _select_kth(self, k - 1, dim, keepdim, "kthvalue")


def median_dim(self: Tensor, dim: int, keepdim: bool = False) -> ValuesIndices:
    from ember.operators.reduction import median_dim as impl  # beside nanmedian (one sort)

    return impl(self, dim, keepdim)


def median(self: Tensor) -> Tensor:
    from ember.operators.reduction import median as impl

    return impl(self)


def _groups(v: Tensor, flags: Tensor, n: int, perm: Tensor, shape: Any,
            return_inverse: bool, return_counts: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    if return_inverse:
        grp = flags.to(dt.int64).cumsum(0) - 1
        inv = scatter_(_empty((n,), dt.int64, perm), 0, perm, grp).reshape(shape)
    else:
        inv = _empty((0,), dt.int64, perm)
    if return_counts:
        starts = _aten().nonzero.default(flags).reshape(-1)
        end = _empty((1,), dt.int64, perm).fill_(n)
        ends = _aten().cat([starts.narrow(0, 1, starts._shape[0] - 1), end])
        counts = ends - starts
    else:
        counts = _empty((0,), dt.int64, perm)
    return inv, counts


def unique2(
    self: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    flat = self.reshape(-1)
    n = flat._shape[0]
    v, perm = _aten().sort.stable(flat, stable=True, dim=0, descending=False)
    if n == 0:
        return v, perm.reshape(self._shape), perm
    flags = _aten().cat(
        [flags_true(v), _aten().ne.Tensor(v.narrow(0, 1, n - 1), v.narrow(0, 0, n - 1))]
    )
    uniq = _aten().index.Tensor(v, [flags])
    inv, counts = _groups(v, flags, n, perm, self._shape, return_inverse, return_counts)
    return uniq, inv, counts


def flags_true(v: Tensor) -> Tensor:
    return _empty((1,), dt.bool_, v).fill_(True)


def unique_dim(
    self: Tensor,
    dim: int,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    d = normalize_dim(dim, self.ndim)
    moved = self.movedim(d, 0)
    n = moved._shape[0]
    if n == 0:
        empty = _empty((0,), dt.int64, self)
        return self.clone(), empty, empty
    if self.numel() == 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    rows = moved.reshape(n, -1)
    m = rows._shape[1]
    # Lexicographic order of the rows: stable sorts from the last column to the first.
    perm = _arange(n, self)
    for j in range(m - 1, -1, -1):
        col = _aten().index.Tensor(rows.select(1, j), [perm])
        order = _aten().sort.stable(col, stable=True, dim=0, descending=False)[1]
        perm = _aten().index.Tensor(perm, [order])
    srt = _aten().index.Tensor(rows, [perm])
    if n == 0:
        return moved.movedim(0, d), perm, perm
    diff = _aten().ne.Tensor(srt.narrow(0, 1, n - 1), srt.narrow(0, 0, n - 1))
    diff = diff.any(1) if m else diff.reshape(n - 1, -1).any(1)
    flags = _aten().cat([flags_true(srt), diff])
    uniq_rows = _aten().index.Tensor(srt, [flags])
    k = uniq_rows._shape[0]
    uniq = uniq_rows.reshape((k,) + tuple(moved._shape[1:])).movedim(0, d)
    inv, counts = _groups(srt, flags, n, perm, (n,), return_inverse, return_counts)
    return uniq, inv, counts


def _arange(n: int, like: Tensor) -> Tensor:
    return _aten().arange.start_step(0, n, 1, dtype=dt.int64, device=like._device)


# -- sampling ----------------------------------------------------------------------------------
def bernoulli_(self: Tensor, p: Any = 0.5, generator: Any = None) -> Tensor:
    u = _empty(self._shape, dt.float64 if self._dtype is dt.float64 else dt.float32, self)
    u.uniform_(0.0, 1.0, generator=generator)
    if isinstance(p, Tensor):
        return self.copy_(u < p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return self.copy_(u < p)


def bernoulli(self: Tensor, generator: Any = None) -> Tensor:
    u = _empty(self._shape, dt.float64 if self._dtype is dt.float64 else dt.float32, self)
    u.uniform_(0.0, 1.0, generator=generator)
    return (u < self).to(self._dtype)


def multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, generator: Any = None
) -> Tensor:
    if self.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    probs = self if self.ndim == 2 else self.unsqueeze(0)
    ncat = probs._shape[1]
    if not replacement and num_samples > ncat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    p = probs.to(dt.float64)
    if bool(((p < 0) | p.isfinite().logical_not()).any().item()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = p.sum(1, keepdim=True)
    if bool((total <= 0).any().item()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    p = p / total
    rows = probs._shape[0]
    u = _empty((rows, num_samples), dt.float64, p).uniform_(0.0, 1.0, generator=generator)
    if replacement:
        cdf = p.cumsum(1)
        out = (u.unsqueeze(-1) > cdf.unsqueeze(1)).sum(-1).clamp(max=ncat - 1)
    else:
        # Exponential races: the k smallest E_i / p_i are a sample without replacement.
        e = _empty((rows, ncat), dt.float64, p).uniform_(0.0, 1.0, generator=generator)
        keys = -e.log() / p
        out = _aten().sort.stable(keys, stable=True, dim=1, descending=False)[1]
        out = out.narrow(1, 0, num_samples)
    out = out.to(dt.int64)
    return out if self.ndim == 2 else out.squeeze(0)


def randperm(
    n: int,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: Any = None,
) -> Tensor:
    keys = _aten().rand.default((n,), generator=generator, dtype=dt.float64, device=device)
    idx = _aten().sort.stable(keys, stable=True, dim=0, descending=False)[1]
    return idx if dtype is None or dtype is dt.int64 else idx.to(dtype)


# -- padding -----------------------------------------------------------------------------------
def _pad_pairs(op: str, self: Tensor, pad: Any) -> list[tuple[int, int]]:
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError(f"{op}: Padding length must be divisible by 2")
    if len(pad) // 2 > self.ndim:
        raise RuntimeError(
            f"{op}: Padding length should be less than or equal to two times the input "
            f"dimension but got padding length {len(pad)} and input of dimension {self.ndim}"
        )
    return [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]


def constant_pad_nd(self: Tensor, pad: Any, value: Any = 0) -> Tensor:
    pairs = _pad_pairs("constant_pad_nd", self, pad)
    src = self
    shape = list(self._shape)
    for i, (lo, hi) in enumerate(pairs):
        d = self.ndim - 1 - i
        # Negative padding crops.
        start, stop = max(-lo, 0), shape[d] - max(-hi, 0)
        if stop < start:
            raise RuntimeError(
                f"constant_pad_nd: The input size {shape[d]}, plus negative padding {lo} and "
                f"{hi} resulted in a negative output size, which is invalid. Check dimension {d} "
                "of your input."
            )
        src = src.narrow(d, start, stop - start)
    out_shape = list(src._shape)
    for i, (lo, hi) in enumerate(pairs):
        d = self.ndim - 1 - i
        out_shape[d] += max(lo, 0) + max(hi, 0)
    out = _aten().full(out_shape, value, dtype=self._dtype, device=self._device)
    dst = out
    for i, (lo, _hi) in enumerate(pairs):
        d = self.ndim - 1 - i
        dst = dst.narrow(d, max(lo, 0), src._shape[d])
    dst.copy_(src)  # also when empty: the output is still the input's function (requires grad)
    return out


def _host_index(idx: list[int], like: Tensor) -> Tensor:
    import numpy as np

    from ember.operators.factories import host_to_tensor

    return host_to_tensor(np.asarray(idx, dtype=np.int64), dt.int64, like._device)


def pad(self: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    if mode == "constant":
        return constant_pad_nd(self, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(
            f"Unrecognised padding mode {mode}; expected constant, reflect, replicate or circular"
        )
    pairs = _pad_pairs("pad", self, pad)
    if len(pairs) > max(self.ndim - 1, 0) or len(pairs) > 3:
        raise NotImplementedError(
            f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now "
            f"(got {len(pairs) * 2}-element padding for a {self.ndim}-D input)"
        )
    out = self
    for i, (lo, hi) in enumerate(pairs):
        d = self.ndim - 1 - i
        n = out._shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"{list(self._shape)}"
            )
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n == 0:
            raise RuntimeError(f"pad: input dimension {d} has size 0, cannot pad in mode {mode}")
        if mode == "circular" and (lo < 0 or hi < 0):
            # Negative pads crop first; the wrap-around then reads the cropped tensor.
            start = max(-lo, 0)
            out = out.narrow(d, start, n - start - max(-hi, 0))
            lo, hi, n = max(lo, 0), max(hi, 0), out._shape[d]
        idx = []
        for j in range(-lo, n + hi):
            if mode == "reflect":
                k = -j if j < 0 else (2 * (n - 1) - j if j >= n else j)
            elif mode == "replicate":
                k = min(max(j, 0), n - 1)
            else:
                k = j % n
            idx.append(k)
        out = _aten().index.Tensor(out, [None] * d + [_host_index(idx, self)])
    return out
