# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""The data-dependent primitives: nonzero and sort.stable.

nonzero: the core has counted the nonzero elements and allocated the (count, ndim)
result. Block b counts its chunk of ``NZ_CHUNK`` elements (``nz_count``), one block scans
the counts into start positions (``nz_scan``), then block b walks its chunk again in
tiles of ``NZ_THREADS``, a shared-memory prefix sum of the tile's flags giving each
nonzero element its row: the rows come out in row-major order, as PyTorch's. A float is
nonzero when its bits without the sign bit are (NaN is, -0.0 is not), so one module per
element size serves every dtype.

sort: a stable merge sort of every row at once, as ceil(log2 n) passes of one kernel over
all elements: in pass w each element finds its place in the merged pair of runs by a
binary search in the other run (strictly-before elements of the right run for an element
of the left run, not-after elements of the left run for one of the right), so equal keys
keep their order and every pass is fully parallel, whatever the number or length of rows.
NaN sorts last ascending and first descending, as in PyTorch.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_cuda._runtime import CTYPE, UTYPE, device_of, ptr

__all__ = ["kernels", "nonzero", "sort", "nonzero_source", "sort_source", "SORT_DTYPES"]

_I64, _I32 = np.int64, np.int32
NZ_CHUNK = 4096
NZ_THREADS = 256
_SCAN = 1024
#: dtypes sort has a kernel for (the core sorts float16/bfloat16 in float32)
SORT_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")


def nonzero_source(isz: int) -> str:
    """The module of nonzero over ``isz``-byte elements (nz_count, nz_scan, nz_write)."""
    T = UTYPE[isz]
    return (
        f"""
#define T {T}
#define NZ_CHUNK {NZ_CHUNK}
#define NZ_THREADS {NZ_THREADS}
#define SCAN {_SCAN}
"""
        + r"""
/* meta: shape[nd], strides[nd] of x; element i in row-major order */
static __device__ __forceinline__ i64 em_offset(i64 i, const int nd, const i64* meta)
{
    i64 o = 0;
    for (int d = nd - 1; d >= 0; --d) { i64 s = meta[d], c = i % s; i /= s; o += c * meta[nd + d]; }
    return o;
}
extern "C" __global__ void nz_count(const i64 n, const int nd, const i64* meta, const T* x, const T mask, i64* counts)
{
    __shared__ int s[NZ_THREADS];
    const int t = threadIdx.x;
    const i64 i0 = (i64)blockIdx.x * NZ_CHUNK;
    int c = 0;
    for (int j = t; j < NZ_CHUNK; j += NZ_THREADS) {
        i64 i = i0 + j;
        if (i < n && (x[em_offset(i, nd, meta)] & mask) != 0) ++c;
    }
    s[t] = c; __syncthreads();
    for (int k = NZ_THREADS / 2; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }
    if (t == 0) counts[blockIdx.x] = s[0];
}
/* exclusive prefix sum of n counts in place: one block of SCAN threads */
extern "C" __global__ void nz_scan(const i64 n, i64* c)
{
    __shared__ i64 s[SCAN];
    const int t = threadIdx.x;
    const i64 per = (n + SCAN - 1) / SCAN, lo = t * per;
    i64 hi = lo + per; if (hi > n) hi = n;
    i64 sum = 0;
    for (i64 i = lo; i < hi; ++i) sum += c[i];
    s[t] = sum; __syncthreads();
    for (int k = 1; k < SCAN; k <<= 1) {
        i64 add = t >= k ? s[t - k] : 0;
        __syncthreads(); s[t] += add; __syncthreads();
    }
    i64 run = s[t] - sum;
    for (i64 i = lo; i < hi; ++i) { i64 v = c[i]; c[i] = run; run += v; }
}
extern "C" __global__ void nz_write(const i64 n, const int nd, const i64* meta, const T* x, const T mask,
                                    const i64* starts, const i64 total, i64* o)
{
    __shared__ int s[NZ_THREADS];
    const int t = threadIdx.x;
    const i64 i0 = (i64)blockIdx.x * NZ_CHUNK;
    i64 w = starts[blockIdx.x];
    for (int j0 = 0; j0 < NZ_CHUNK && i0 + j0 < n; j0 += NZ_THREADS) {
        i64 i = i0 + j0 + t;
        int f = (i < n && (x[em_offset(i, nd, meta)] & mask) != 0) ? 1 : 0;
        s[t] = f; __syncthreads();
        for (int k = 1; k < NZ_THREADS; k <<= 1) {
            int add = t >= k ? s[t - k] : 0;
            __syncthreads(); s[t] += add; __syncthreads();
        }
        i64 row = w + s[t] - 1;
        if (f && row < total) {  /* row < total: never past the result, even if x changed */
            i64 r = i;
            for (int d = nd - 1; d >= 0; --d) { o[row * nd + d] = r % meta[d]; r /= meta[d]; }
        }
        w += s[NZ_THREADS - 1];
        __syncthreads();
    }
}
"""
    )


def sort_source(dt: str) -> str:
    """The module sorting rows of ``dt`` (sort_init, sort_pass, sort_out)."""
    T = CTYPE[dt]
    if dt in ("float32", "float64"):
        less = "((a) < (b) || ((b) != (b) && (a) == (a)))"  # NaN after every number
    else:
        less = "((a) < (b))"
    return (
        f"""
#define T {T}
#define LESS(a, b) {less}
#define BEFORE(a, b) (desc ? LESS(b, a) : LESS(a, b))
"""
        + r"""
/* row r, position j of a (rows x n) problem; x contiguous, the sorted dim of stride `inner` */
extern "C" __global__ void sort_init(const i64 total, const i64 n, const i64 inner, const T* x, T* kv, i64* ki)
{
    i64 e = EM_GID; if (e >= total) return;
    i64 row = e / n, j = e % n;
    kv[e] = x[(row / inner) * n * inner + row % inner + j * inner];
    ki[e] = j;
}
/* merge the runs [s, s + w) and [s + w, s + 2w) of every row: each element computes its place */
extern "C" __global__ void sort_pass(const i64 total, const i64 n, const i64 w, const int desc,
                                     const T* sv, const i64* si, T* dv, i64* di)
{
    i64 e = EM_GID; if (e >= total) return;
    i64 j = e % n, rb = e - j;
    i64 start = (j / (2 * w)) * (2 * w), mid = start + w, end = start + 2 * w;
    if (mid > n) mid = n;
    if (end > n) end = n;
    T key = sv[e];
    i64 pos;
    if (j < mid) {  /* left run: after the right run's elements strictly before it */
        i64 lo = mid, hi = end;
        while (lo < hi) { i64 m = (lo + hi) >> 1; T b = sv[rb + m]; if (BEFORE(b, key)) lo = m + 1; else hi = m; }
        pos = (j - start) + (lo - mid);
    } else {        /* right run: after the left run's elements not after it (stability) */
        i64 lo = start, hi = mid;
        while (lo < hi) { i64 m = (lo + hi) >> 1; T a = sv[rb + m]; if (!BEFORE(key, a)) lo = m + 1; else hi = m; }
        pos = (j - mid) + (lo - start);
    }
    dv[rb + start + pos] = key;
    di[rb + start + pos] = si[e];
}
extern "C" __global__ void sort_out(const i64 total, const i64 n, const i64 inner, const T* kv, const i64* ki,
                                    T* ov, i64* oi)
{
    i64 e = EM_GID; if (e >= total) return;
    i64 row = e / n, j = e % n;
    i64 o = (row / inner) * n * inner + row % inner + j * inner;
    ov[o] = kv[e];
    oi[o] = ki[e];
}
"""
    )


_MASK = {  # element size -> bits that make a float nonzero (the sign bit is not one of them)
    2: np.uint16(0x7FFF),
    4: np.uint32(0x7FFFFFFF),
    8: np.uint64(0x7FFFFFFFFFFFFFFF),
}


def nonzero(out: Any, x: Any) -> None:
    import ember

    total = int(out._shape[0])
    nd = len(x._shape)
    if total == 0 or nd == 0:
        return  # nothing to write ((count, 0) for a 0-dim input)
    dev = device_of(out)
    n = x.numel()
    isz = x._dtype.itemsize
    utype = np.dtype(f"u{isz}").type
    mask = _MASK[isz] if x._dtype.name in ("float16", "bfloat16", "float32", "float64") else utype(-1 & ((1 << 8 * isz) - 1))  # fmt: skip
    key, src = ("nonzero", isz), partial(nonzero_source, isz)
    nb = -(-n // NZ_CHUNK)
    meta = dev.meta([*map(int, x._shape), *map(int, x._stride)])
    counts = ember.empty(nb, dtype=ember.int64, device=out.device)
    dst = out if out.is_contiguous() else ember.empty((total, nd), dtype=ember.int64, device=out.device)  # fmt: skip
    dev.launch_nd(dev.function(key, "nz_count", src), nb, NZ_THREADS, _I64(n), _I32(nd), meta, ptr(x), mask, ptr(counts))  # fmt: skip
    dev.launch_nd(dev.function(key, "nz_scan", src), 1, _SCAN, _I64(nb), ptr(counts))
    dev.launch_nd(dev.function(key, "nz_write", src), nb, NZ_THREADS, _I64(n), _I32(nd), meta, ptr(x), mask, ptr(counts), _I64(total), ptr(dst))  # fmt: skip
    if dst is not out:
        from ember_cuda.ops_copy import copy

        copy(out, dst)


def sort(
    values: Any, indices: Any, x: Any, dim: int, descending: bool = False, stable: Any = True
) -> None:
    import ember

    dt = x._dtype.name
    if dt not in SORT_DTYPES:
        raise TypeError(f"ember_cuda: 'sort' is not implemented for {dt}")
    total = values.numel()
    if total == 0:
        return
    dev = device_of(values)
    if not x.is_contiguous():
        from ember_cuda.ops_copy import copy

        c = ember.empty(tuple(x._shape), dtype=x._dtype, device=x.device)
        copy(c, x)
        x = c
    shape = tuple(int(s) for s in x._shape)
    n = shape[dim]
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    key, src = ("sort", dt), partial(sort_source, dt)
    kv = [ember.empty(total, dtype=x._dtype, device=x.device) for _ in range(2)]
    ki = [ember.empty(total, dtype=ember.int64, device=x.device) for _ in range(2)]
    dev.launch(dev.function(key, "sort_init", src), total, _I64(total), _I64(n), _I64(inner), ptr(x), ptr(kv[0]), ptr(ki[0]))  # fmt: skip
    step = dev.function(key, "sort_pass", src)
    cur, w = 0, 1
    while w < n:
        dev.launch(step, total, _I64(total), _I64(n), _I64(w), _I32(bool(descending)), ptr(kv[cur]), ptr(ki[cur]), ptr(kv[1 - cur]), ptr(ki[1 - cur]))  # fmt: skip
        cur, w = 1 - cur, 2 * w
    outs = [values, indices]
    tmp = [t if t.is_contiguous() else ember.empty(tuple(t._shape), dtype=t._dtype, device=t.device) for t in outs]  # fmt: skip
    dev.launch(dev.function(key, "sort_out", src), total, _I64(total), _I64(n), _I64(inner), ptr(kv[cur]), ptr(ki[cur]), ptr(tmp[0]), ptr(tmp[1]))  # fmt: skip
    for t, o in zip(tmp, outs):
        if t is not o:
            from ember_cuda.ops_copy import copy

            copy(o, t)


def kernels() -> dict[str, Any]:
    return {"nonzero.default": nonzero, "sort.stable": sort}
