# ruff: noqa: E501  (embedded OpenCL C keeps its natural line length)
"""Indexing primitives: gather, scatter_reduce_, index, index_put_, nonzero, sort.

Strided operands are first made contiguous with the copy kernel (in-place
operators work on a contiguous copy and copy it back), so the kernels index
plain row-major buffers. Parallel structure: gather and index run one work-item
per output element; scatter_reduce_ one per position off the scatter dim (its
targets never collide with another item's) and serially along the dim;
index_put_ one per trailing position, serially over the index rows (so the last
duplicate wins, as on the CPU); nonzero counts per block, takes the prefix sum
of the block counts on the host, then writes per block; sort runs a stable
bottom-up merge sort per row. Out-of-range indices set the device error words,
read back once per call, and raise IndexError with PyTorch's message.

Temporaries (contiguous copies, scratch rows) may die as soon as their kernel is
enqueued: the queue is in order, so whoever gets their pooled buffer next runs after.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_opencl._runtime import CTYPE, UTYPE, device_of
from ember_opencl.ops_copy import copy

__all__ = ["kernels"]

_I64 = np.int64
_MAXD = 16  # the shape/stride tables of gather/scatter live in private arrays of this size


def _contig(t: Any) -> Any:
    if t.is_contiguous():
        return t
    import ember

    out = ember.empty(tuple(t._shape), dtype=t._dtype, device=t.device)
    copy(out, t)
    return out


def _buf(t: Any) -> Any:
    return t._storage.data.buf


def _shape_meta(*shapes: Any) -> list[int]:
    return [int(s) for shape in shapes for s in shape]


# -- gather --------------------------------------------------------------------------------------
def _gather_source(isz: int) -> str:
    T = UTYPE[isz]
    return f"""
__kernel void gather(const long n, const int nd, const int dim, __global const long* meta,
                     __global {T}* o, __global const {T}* x, const long x_off,
                     __global const long* idx, const long i_off, __global long* err)
{{
    long e = get_global_id(0); if (e >= n) return;
    /* meta: index shape[nd], self shape[nd] */
    long r = e, xo = 0, xs = 1;
    long v = idx[i_off + e];
    long size = meta[nd + dim];
    if (v < 0 || v >= size) {{ err[0] = 1; err[1] = v; return; }}
    for (int d = nd - 1; d >= 0; --d) {{
        long c = r % meta[d]; r /= meta[d];
        xo += (d == dim ? v : c) * xs; xs *= meta[nd + d];
    }}
    o[e] = x[x_off + xo];
}}
"""


def gather(out: Any, x: Any, dim: int, index: Any, *_: Any) -> None:
    n = out.numel()
    if n == 0:
        return
    x, index = _contig(x), _contig(index)
    dev = device_of(out)
    isz = x._dtype.itemsize
    args = [_I64, np.int32, np.int32, None, None, None, _I64, None, _I64, None]
    k = dev.kernel(("gather", isz), "gather", partial(_gather_source, isz), args)
    nd = max(len(x._shape), 1)
    meta = dev.meta(_shape_meta(index._shape or (1,), x._shape or (1,)))
    err = dev.error_flag()
    dev.launch(
        k, n, n, nd, dim, meta, _buf(out), _buf(x), x._offset, _buf(index), index._offset, err
    )
    flag, v = dev.read_error_value()
    if flag:
        size = x._shape[dim] if x._shape else 1
        raise IndexError(
            f"gather(): index {v} is out of bounds for dimension {dim} with size {size}"
        )


# -- scatter_reduce_ -----------------------------------------------------------------------------
_SCATTER = {  # reduce -> (identity, combine(c, v)); "none" assigns
    "sum": ("0", "c + v"),
    "mean": ("0", "c + v"),
    "prod": ("1", "c * v"),
    "amax": ("LOWEST", "(v > c || v != v) ? v : c"),
    "amin": ("HIGHEST", "(v < c || v != v) ? v : c"),
}
_LIMITS = {
    "uint8": ("0", "UCHAR_MAX"),
    "int8": ("CHAR_MIN", "CHAR_MAX"),
    "int16": ("SHRT_MIN", "SHRT_MAX"),
    "int32": ("INT_MIN", "INT_MAX"),
    "int64": ("LONG_MIN", "LONG_MAX"),
    "float32": ("-INFINITY", "INFINITY"),
    "float64": ("-INFINITY", "INFINITY"),
}


def _scatter_source(dt: str, reduce: str, include_self: bool) -> str:
    T = UTYPE[np.dtype(dt).itemsize] if reduce == "none" else CTYPE[dt]
    if reduce == "none":
        ident, comb = "0", "v"
    else:
        ident, comb = _SCATTER[reduce]
        ident = ident.replace("LOWEST", _LIMITS[dt][0]).replace("HIGHEST", _LIMITS[dt][1])
    if dt not in ("float32", "float64"):
        comb = comb.replace(" || v != v", "")
    prep = post = count = ""
    if reduce != "none" and (not include_self or reduce == "mean"):
        reset = "" if include_self else f"s[t] = {ident}; "
        init = f"cnt[t] = {int(include_self)};" if reduce == "mean" else ""
        prep = (
            "    for (long j = 0; j < n; ++j) { long t = so + idx[io + j * isd] * ssd; "
            f"{reset}{init} }}"
        )
    if reduce == "mean":
        count = " cnt[t] += 1;"
    if reduce == "mean" and dt not in ("float32", "float64"):
        div = "{ long a = (long)s[t], b = cnt[t]; long q = a / b; if ((a % b) != 0 && ((a < 0) != (b < 0))) q--; s[t] = (T)q; }"
    else:
        div = "s[t] = s[t] / (T)cnt[t];"
    if reduce == "mean":
        post = (
            "\n    for (long j = 0; j < n; ++j) { long t = so + idx[io + j * isd] * ssd; "
            f"if (cnt[t] > 0) {{ {div} cnt[t] = 0; }} }}"
        )
    return f"""
#define T {T}
/* one work-item per position of `index` off `dim`; serial along dim (race-free) */
__kernel void scatter(const long P, const int nd, const int dim, const int include_self,
                      __global const long* meta, __global T* s, __global const long* idx,
                      __global const T* src, __global long* cnt, __global long* err)
{{
    long p = get_global_id(0); if (p >= P) return;
    /* meta: index shape[nd], self shape[nd], src shape[nd] */
    __global const long* ish = meta; __global const long* ssh = meta + nd; __global const long* rsh = meta + 2 * nd;
    long io = 0, so = 0, ro = 0, is = 1, ss = 1, rs = 1, isd = 1, ssd = 1, rsd = 1, r = p;
    for (int d = nd - 1; d >= 0; --d) {{
        if (d == dim) {{ isd = is; ssd = ss; rsd = rs; }}
        else {{ long c = r % ish[d]; r /= ish[d]; io += c * is; so += c * ss; ro += c * rs; }}
        is *= ish[d]; ss *= ssh[d]; rs *= rsh[d];
    }}
    const long n = ish[dim], size = ssh[dim];
    for (long j = 0; j < n; ++j) {{
        long v = idx[io + j * isd];
        if (v < 0 || v >= size) {{ err[0] = 1; err[1] = v; return; }}
    }}
{prep}
    for (long j = 0; j < n; ++j) {{
        long t = so + idx[io + j * isd] * ssd;
        T v = src[ro + j * rsd], c = s[t];
        s[t] = {comb};{count}
    }}{post}
}}
"""


def scatter_reduce_(
    self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True
) -> None:
    dt = self._dtype.name
    if reduce not in ("none", *_SCATTER):
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if reduce != "none" and dt not in _LIMITS:
        raise TypeError(f"ember_opencl: scatter_reduce_ ({reduce}) is not implemented for {dt}")
    n = index.numel()
    if n == 0:
        return
    import ember

    size = self._shape[dim] if self._shape else 1
    _refuse_out_of_range(
        index,
        0,
        size,
        f"scatter(): index {{}} is out of bounds for dimension {dim} with size {size}",
    )
    target = _sub_tensor(_contig(self))
    index, src = _sub_tensor(_contig(index)), _sub_tensor(_contig(src))
    dev = device_of(self)
    nd = max(len(self._shape), 1)
    ishape = index._shape or (1,)
    P = n // ishape[dim]
    cnt = (
        ember.empty(max(self.numel(), 1), dtype=ember.int64, device=self.device)
        if reduce == "mean"
        else None
    )
    args = [_I64, np.int32, np.int32, np.int32] + [None] * 6
    inc = bool(include_self)
    src_fn = partial(_scatter_source, dt, reduce, inc)
    k = dev.kernel(("scatter", dt, reduce, inc), "scatter", src_fn, args)
    meta = dev.meta(_shape_meta(ishape, self._shape or (1,), src._shape or (1,)))
    err = dev.error_flag()
    dev.launch(
        k, P, P, nd, dim, int(bool(include_self)), meta, _buf(target), _buf(index),
        _buf(src), _buf(cnt) if cnt is not None else dev._dummy, err,
    )  # fmt: skip
    flag, v = dev.read_error_value()
    if flag:
        size = self._shape[dim] if self._shape else 1
        raise IndexError(
            f"scatter(): index {v} is out of bounds for dimension {dim} with size {size}"
        )
    if target is not self:
        copy(self, target)


# -- index / index_put_ --------------------------------------------------------------------------
def _stack_indices(indices: list[Any], dev: Any) -> tuple[Any, tuple[int, ...]]:
    import ember

    B = tuple(indices[0]._shape)
    st = ember.empty((len(indices), *B), dtype=ember.int64, device=indices[0].device)
    for k, ix in enumerate(indices):
        copy(st[k], ix)
    return st, B


def _index_source(isz: int, accumulate: str) -> str:
    T = UTYPE[isz] if not accumulate else CTYPE[accumulate]
    op = (
        "s[t] = v[vo]"
        if not accumulate
        else ("s[t] = s[t] | v[vo]" if accumulate == "bool" else "s[t] = s[t] + v[vo]")
    )
    return f"""
#define T {T}
/* meta: self shape[K] (the indexed dims), then the trailing count R */
__kernel void index_get(const long n, const int K, const long Bn, const long R, __global const long* meta,
                        __global T* o, __global const T* s, __global const long* idx, __global long* err)
{{
    long e = get_global_id(0); if (e >= n) return;
    long b = e / R, r = e % R, off = 0;
    for (int k = 0; k < K; ++k) {{
        long v = idx[k * Bn + b], size = meta[k];
        if (v < 0) v += size;
        if (v < 0 || v >= size) {{ err[0] = 1; return; }}
        off = off * size + v;
    }}
    o[e] = s[off * R + r];
}}
__kernel void index_put(const int K, const long Bn, const long R, __global const long* meta,
                        __global T* s, __global const long* idx, __global const T* v, __global long* err)
{{
    long r = get_global_id(0); if (r >= R) return;
    for (long b = 0; b < Bn; ++b) {{
        long off = 0; int bad = 0;
        for (int k = 0; k < K; ++k) {{
            long x = idx[k * Bn + b], size = meta[k];
            if (x < 0) x += size;
            if (x < 0 || x >= size) {{ err[0] = 1; bad = 1; break; }}
            off = off * size + x;
        }}
        if (bad) return;
        long t = off * R + r, vo = b * R + r;
        {op};
    }}
}}
"""


def index(out: Any, x: Any, indices: list[Any]) -> None:
    n = out.numel()
    if n == 0:
        return
    dev = device_of(out)
    x = _contig(x)
    x = _sub_tensor(x)
    st, B = _stack_indices(indices, dev)
    K = len(indices)
    Bn = int(np.prod(B, dtype=np.int64))
    R = int(np.prod(x._shape[K:], dtype=np.int64))
    isz = x._dtype.itemsize
    args = [_I64, np.int32, _I64, _I64, None, None, None, None, None]
    k = dev.kernel(("index", isz, ""), "index_get", partial(_index_source, isz, ""), args)
    err = dev.error_flag()
    dev.launch(k, n, n, K, Bn, R, dev.meta(list(x._shape[:K])), _buf(out), _buf(x), _buf(st), err)
    _check_index(dev, x._shape, st, K, Bn)


def _check_index(dev: Any, shape: Any, st: Any, K: int, Bn: int) -> None:
    flag, _ = dev.read_error_value()
    if flag:  # find the first bad index on the host, for PyTorch's message
        vals = st.cpu().numpy().reshape(K, Bn)
        for k in range(K):
            bad = (vals[k] < -shape[k]) | (vals[k] >= shape[k])
            if bad.any():
                v = int(vals[k][bad.argmax()])
                raise IndexError(
                    f"index {v} is out of bounds for dimension {k} with size {shape[k]}"
                )


def _refuse_out_of_range(ix: Any, low: int, size: int, msg: str) -> None:
    """Raise IndexError(msg with the first bad value) if ``ix`` has a value outside
    [low, size), before any kernel writes: the in-place kernels (scatter_reduce_,
    index_put_) check each work-item's indices only, so a bad one would otherwise leave
    ``self`` partly written (the CPU backend leaves it unchanged; so does this one)."""
    bad = (ix < low) | (ix >= size)
    if bool(bad.any()):
        vals = ix.cpu().numpy().reshape(-1)
        b = bad.cpu().numpy().reshape(-1)
        raise IndexError(msg.format(int(vals[b.argmax()])))


def _sub_tensor(t: Any) -> Any:
    if t._offset == 0:
        return t
    import ember

    c = ember.empty(tuple(t._shape), dtype=t._dtype, device=t.device)
    copy(c, t)
    return c


def index_put_(self: Any, indices: list[Any], values: Any, accumulate: bool = False) -> None:
    dev = device_of(self)
    st, B = _stack_indices(indices, dev)
    K = len(indices)
    Bn = int(np.prod(B, dtype=np.int64))
    R = int(np.prod(self._shape[K:], dtype=np.int64))
    if Bn == 0 or R == 0:
        return
    for k in range(K):
        size = self._shape[k]
        _refuse_out_of_range(
            st[k], -size, size, f"index {{}} is out of bounds for dimension {k} with size {size}"
        )
    target = _sub_tensor(_contig(self))
    vals = _sub_tensor(_contig(values))
    dt = self._dtype.name
    acc = dt if accumulate else ""
    if accumulate and dt not in CTYPE or accumulate and dt in ("float16", "bfloat16"):
        raise TypeError(f"ember_opencl: index_put_ (accumulate) is not implemented for {dt}")
    isz = self._dtype.itemsize
    args = [np.int32, _I64, _I64, None, None, None, None, None]
    k = dev.kernel(("index", isz, acc), "index_put", partial(_index_source, isz, acc), args)
    err = dev.error_flag()
    dev.launch(
        k, R, K, Bn, R, dev.meta(list(self._shape[:K])), _buf(target), _buf(st), _buf(vals), err
    )
    _check_index(dev, self._shape, st, K, Bn)
    if target is not self:
        copy(self, target)


# -- nonzero -------------------------------------------------------------------------------------
_BLOCK = 4096


def _nonzero_source(dt: str) -> str:
    if dt in ("float16", "bfloat16"):
        T, test = "ushort", "((x[i] & 0x7FFF) != 0)"
    else:
        T, test = CTYPE[dt], "(x[i] != 0)"
    return f"""
__kernel void nz_count(const long n, __global const {T}* x, __global long* counts)
{{
    long b = get_global_id(0), i0 = b * {_BLOCK}; if (i0 >= n) return;
    long i1 = min(n, i0 + {_BLOCK}), c = 0;
    for (long i = i0; i < i1; ++i) c += {test};
    counts[b] = c;
}}
__kernel void nz_write(const long n, const int nd, __global const long* shape, __global const {T}* x,
                       __global const long* starts, __global long* o)
{{
    long b = get_global_id(0), i0 = b * {_BLOCK}; if (i0 >= n) return;
    long i1 = min(n, i0 + {_BLOCK}), w = starts[b];
    for (long i = i0; i < i1; ++i) if ({test}) {{
        long r = i;
        for (int d = nd - 1; d >= 0; --d) {{ o[w * nd + d] = r % shape[d]; r /= shape[d]; }}
        ++w;
    }}
}}
"""


def nonzero(out: Any, x: Any) -> None:
    import ember

    N = out._shape[0]
    if N == 0:
        return
    dev = device_of(out)
    x = _sub_tensor(_contig(x))
    n = x.numel()
    nd = len(x._shape)
    dt = x._dtype.name
    nb = -(-n // _BLOCK)
    if nd == 0:
        return  # out is (N, 0): nothing to write
    counts = ember.empty(nb, dtype=ember.int64, device=out.device)
    src = partial(_nonzero_source, dt)
    kc = dev.kernel(("nonzero", dt), "nz_count", src, [_I64, None, None])
    dev.launch(kc, nb, n, _buf(x), _buf(counts))
    c = counts.cpu().numpy()
    starts = np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.int64)
    sd = ember.from_numpy(starts).to(out.device)
    kw = dev.kernel(("nonzero", dt), "nz_write", src, [_I64, np.int32, None, None, None, None])
    dev.launch(kw, nb, n, nd, dev.meta(list(x._shape)), _buf(x), _buf(sd), _buf(out))


# -- sort ----------------------------------------------------------------------------------------
def _sort_source(dt: str) -> str:
    T = CTYPE[dt]
    if dt in ("float32", "float64"):
        less = "((a) < (b) || ((b) != (b) && (a) == (a)))"
    else:
        less = "((a) < (b))"
    return f"""
#define T {T}
#define LESS(a, b) {less}
/* one work-item per row: stable bottom-up merge sort, ping-pong between two scratch rows */
__kernel void sort_rows(const long rows, const long n, const long inner, const int desc,
                        __global const T* x, __global T* ov, __global long* oi,
                        __global T* av, __global long* ai, __global T* bv, __global long* bi)
{{
    long row = get_global_id(0); if (row >= rows) return;
    long base = (row / inner) * n * inner + row % inner;
    __global T* sv = av + row * n; __global long* si = ai + row * n;
    __global T* dv = bv + row * n; __global long* di = bi + row * n;
    for (long j = 0; j < n; ++j) {{ sv[j] = x[base + j * inner]; si[j] = j; }}
    for (long w = 1; w < n; w *= 2) {{
        for (long lo = 0; lo < n; lo += 2 * w) {{
            long mid = min(lo + w, n), hi = min(lo + 2 * w, n), p = lo, q = mid, k = lo;
            while (p < mid && q < hi) {{
                T a = sv[p], b = sv[q];
                int right = desc ? LESS(a, b) : LESS(b, a);  /* strictly before: keeps stability */
                if (right) {{ dv[k] = b; di[k++] = si[q++]; }} else {{ dv[k] = a; di[k++] = si[p++]; }}
            }}
            while (p < mid) {{ dv[k] = sv[p]; di[k++] = si[p++]; }}
            while (q < hi) {{ dv[k] = sv[q]; di[k++] = si[q++]; }}
        }}
        __global T* tv = sv; sv = dv; dv = tv;
        __global long* ti = si; si = di; di = ti;
    }}
    for (long j = 0; j < n; ++j) {{ ov[base + j * inner] = sv[j]; oi[base + j * inner] = si[j]; }}
}}
"""


def sort(
    values: Any, indices: Any, x: Any, dim: int, descending: bool = False, stable: Any = True
) -> None:
    import ember

    dt = x._dtype.name
    if dt in ("float16", "bfloat16"):
        raise TypeError(f"ember_opencl: 'sort' is not implemented for {dt}")
    shape = tuple(x._shape) or (1,)
    n = shape[dim]
    total = values.numel()
    if total == 0:
        return
    dev = device_of(values)
    x = _sub_tensor(_contig(x))
    rows = total // n
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    scratch = [
        ember.empty(total, dtype=x._dtype, device=x.device),
        ember.empty(total, dtype=ember.int64, device=x.device),
        ember.empty(total, dtype=x._dtype, device=x.device),
        ember.empty(total, dtype=ember.int64, device=x.device),
    ]
    k = dev.kernel(
        ("sort", dt),
        "sort_rows",
        partial(_sort_source, dt),
        [_I64, _I64, _I64, np.int32] + [None] * 7,
    )
    dev.launch(
        k, rows, rows, n, inner, int(bool(descending)), _buf(x), _buf(values), _buf(indices),
        *[_buf(s) for s in scratch],
    )  # fmt: skip


def kernels() -> dict[str, Any]:
    return {
        "gather.default": gather,
        "scatter_reduce_.two": scatter_reduce_,
        "index.Tensor": index,
        "index_put_.default": index_put_,
        "nonzero.default": nonzero,
        "sort.stable": sort,
    }
