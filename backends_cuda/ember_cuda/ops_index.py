# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""Indexing primitives: gather, scatter_reduce_, index (advanced indexing), index_put_.

One thread per element of the index (gather, scatter) or of the result (index,
index_put_); operands keep their strides (``meta`` carries shapes and strides), only
index tensors are made contiguous (``index``/``index_put_`` stack their K index tensors
into one (K, B) block). Reductions into ``self`` are atomic: ``atomicAdd`` where the
hardware has it (float32, float64, int32, int64 sums), a compare-and-swap loop on the
aligned 32- or 64-bit word otherwise, so every dtype and reduce works at any contention.
As in PyTorch's CUDA kernels, the order of a float sum over duplicate indices is not
fixed, and which duplicate wins a plain assignment (``scatter`` without reduce,
``index_put_`` without accumulate) is unspecified.

Must always hold: no kernel reads or writes outside an operand. Every index is checked
against its dimension on the device; a bad one raises PyTorch's ``IndexError`` message
naming the first bad value (found on the host, on the error path only). The in-place
operators check every index before any write (``check_range``), so a bad index leaves
``self`` unchanged, as on the CPU.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_cuda._runtime import CTYPE, UTYPE, device_of, ptr
from ember_cuda.ops_copy import copy

__all__ = ["kernels", "gather", "scatter_reduce_", "index", "index_put_"]
__all__ += ["move_source", "common_source", "scatter_source", "SCATTER_DTYPES", "SCATTER"]

_I64, _I32 = np.int64, np.int32

#: reduce -> combine(c, v): c is the current value of the target, v the scattered one.
SCATTER = {
    "sum": "(c) + (v)",
    "prod": "(c) * (v)",
    "amax": "(((v) > (c)) || ((v) != (v))) ? (v) : (c)",
    "amin": "(((v) < (c)) || ((v) != (v))) ? (v) : (c)",
}
#: dtypes with a scatter module (half types reduce in float32: the core casts them)
SCATTER_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")
_FLOAT = ("float32", "float64")

#: (target offset, value offset) of thread e of index_put_ (and the check of its indices)
_PUT_OFFSETS = r"""
/* meta: self sizes[nd], self strides[nd], values sizes[nv], values strides[nv] */
static __device__ __forceinline__ i64 em_put_offsets(i64 e, const int K, const int nd, const int nv, const i64 Bn,
                                                     const i64 R, const i64* meta, const i64* idx, i64* vo, i64* err)
{
    i64 b = e / R, r = e % R, off = 0;
    for (int k = 0; k < K; ++k) {
        i64 x = idx[k * Bn + b], size = meta[k];
        if (x < 0) x += size;
        if (x < 0 || x >= size) { err[0] = 1; return -1; }
        off += x * meta[nd + k];
    }
    for (int d = nd - 1; d >= K; --d) { i64 s = meta[d], c = r % s; r /= s; off += c * meta[nd + d]; }
    const i64* vm = meta + 2 * nd;
    i64 q = e, o = 0;
    for (int d = nv - 1; d >= 0; --d) { i64 s = vm[d], c = q % s; q /= s; o += c * vm[nv + d]; }
    *vo = o;
    return off;
}
"""
#: (target offset, source offset) of thread e of a scatter (index contiguous)
_SCATTER_OFFSETS = r"""
/* meta: index shape[nd], self strides[nd], src strides[nd] */
static __device__ __forceinline__ i64 em_scatter_offsets(i64 e, const int nd, const int dim, const i64 size,
                                                         const i64* meta, const i64* idx, i64* ro, i64* err)
{
    i64 v = idx[e];
    if (v < 0 || v >= size) { err[0] = 1; return -1; }
    i64 r = e, so = 0, o = 0;
    for (int d = nd - 1; d >= 0; --d) {
        i64 s = meta[d], c = r % s; r /= s;
        so += (d == dim ? v : c) * meta[nd + d]; o += c * meta[2 * nd + d];
    }
    *ro = o;
    return so;
}
"""


def common_source() -> str:
    """The dtype-free module: ``check_range`` over stacked index rows."""
    return r"""
/* flag any index outside [lo, size) of its row's dimension; rows of Bn, one size per row */
extern "C" __global__ void check_range(const i64 n, const i64 Bn, const i64* sizes, const int neg_ok,
                                       const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 size = sizes[e / Bn], v = idx[e];
    if (v < (neg_ok ? -size : 0) || v >= size) err[0] = 1;
}
"""


def move_source(isz: int) -> str:
    """The module moving ``isz``-byte elements by index: gather, scatter_set, index_get, index_put."""
    T = UTYPE[isz]
    return (
        f"#define T {T}\n"
        + _PUT_OFFSETS
        + _SCATTER_OFFSETS
        + r"""
/* meta: index shape[nd], self strides[nd], out strides[nd]; idx contiguous */
extern "C" __global__ void gather(const i64 n, const int nd, const int dim, const i64 size, const i64* meta,
                                  T* o, const T* x, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 v = idx[e];
    if (v < 0 || v >= size) { err[0] = 1; return; }
    i64 r = e, xo = 0, oo = 0;
    for (int d = nd - 1; d >= 0; --d) {
        i64 s = meta[d], c = r % s; r /= s;
        xo += (d == dim ? v : c) * meta[nd + d]; oo += c * meta[2 * nd + d];
    }
    o[oo] = x[xo];
}
extern "C" __global__ void scatter_set(const i64 n, const int nd, const int dim, const i64 size, const i64* meta,
                                       T* s, const T* src, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 ro, so = em_scatter_offsets(e, nd, dim, size, meta, idx, &ro, err);
    if (so >= 0) s[so] = src[ro];
}
/* meta: x sizes[nd] (the first K indexed), x strides[nd]; out contiguous, B + x.shape[K:] */
extern "C" __global__ void index_get(const i64 n, const int K, const int nd, const i64 Bn, const i64 R,
                                     const i64* meta, T* o, const T* x, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 b = e / R, r = e % R, off = 0;
    for (int k = 0; k < K; ++k) {
        i64 v = idx[k * Bn + b], size = meta[k];
        if (v < 0) v += size;
        if (v < 0 || v >= size) { err[0] = 1; return; }
        off += v * meta[nd + k];
    }
    for (int d = nd - 1; d >= K; --d) { i64 s = meta[d], c = r % s; r /= s; off += c * meta[nd + d]; }
    o[e] = x[off];
}
extern "C" __global__ void index_put(const i64 n, const int K, const int nd, const int nv, const i64 Bn,
                                     const i64 R, const i64* meta, T* s, const T* v, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 vo, t = em_put_offsets(e, K, nd, nv, Bn, R, meta, idx, &vo, err);
    if (t >= 0) s[t] = v[vo];
}
"""
    )


def _atomic(dt: str, name: str, comb: str) -> str:
    """``em_<name>(T* p, T v)``: ``*p = comb(*p, v)`` atomically, by CAS on the aligned word."""
    T, isz = CTYPE[dt], np.dtype(dt).itemsize
    if isz >= 4:
        U = "uint" if isz == 4 else "u64"
        return f"""
static __device__ __forceinline__ void em_{name}({T}* p, {T} v)
{{
    {U}* a = ({U}*)p; {U} old = *a, as;
    do {{
        as = old;
        union {{ {U} u; {T} t; }} cv; cv.u = as; {T} c = cv.t;
        cv.t = ({T})({comb});
        if (cv.u == as) break;
        old = atomicCAS(a, as, cv.u);
    }} while (old != as);
}}
"""
    UT, mask = UTYPE[isz], "0xFFu" if isz == 1 else "0xFFFFu"
    return f"""
static __device__ __forceinline__ void em_{name}({T}* p, {T} v)
{{   /* a 1- or 2-byte element: swap the aligned 32-bit word holding it */
    uint* a = (uint*)((u64)p & ~(u64)3); const uint sh = (uint)(((u64)p & 3) * 8), m = {mask} << sh;
    uint old = *a, as;
    do {{
        as = old;
        union {{ {UT} u; {T} t; }} cv; cv.u = ({UT})((as & m) >> sh); {T} c = cv.t;
        cv.t = ({T})({comb});
        uint nw = (as & ~m) | (((uint)cv.u) << sh);
        if (nw == as) break;
        old = atomicCAS(a, as, nw);
    }} while (old != as);
}}
"""


def _sum_atomic(dt: str) -> str:
    """``em_sum``: the hardware's atomicAdd where there is one, else the CAS loop."""
    fast = {
        "float32": "atomicAdd(p, v);",
        "int32": "atomicAdd(p, v);",
        "int64": "atomicAdd((u64*)p, (u64)v);",
    }
    if dt in fast:
        return f"static __device__ __forceinline__ void em_sum({CTYPE[dt]}* p, {CTYPE[dt]} v) {{ {fast[dt]} }}\n"
    cas = _atomic(dt, "sum", SCATTER["sum"])
    if dt == "float64":  # atomicAdd(double*) needs sm_60; older devices keep the CAS loop
        fast_d = "static __device__ __forceinline__ void em_sum(double* p, double v) { atomicAdd(p, v); }\n"
        return f"#if __CUDA_ARCH__ >= 600\n{fast_d}#else\n{cas}#endif\n"
    return cas


def scatter_source(dt: str) -> str:
    """The module of ``dt`` reductions into ``self``: scatter_reduce_ (every reduce), the
    reset of include_self=False, mean's division, and index_put_ with accumulate (bool:
    logical or)."""
    T = CTYPE[dt]
    head = f"#define T {T}\n" + _PUT_OFFSETS
    if dt == "bool":
        return (
            head
            + r"""
extern "C" __global__ void put_acc(const i64 n, const int K, const int nd, const int nv, const i64 Bn,
                                   const i64 R, const i64* meta, T* s, const T* v, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 vo, t = em_put_offsets(e, K, nd, nv, Bn, R, meta, idx, &vo, err);
    if (t >= 0 && v[vo]) s[t] = 1;  /* bool addition is logical or: every writer stores 1 */
}
"""
        )
    parts = [head, _SCATTER_OFFSETS, _sum_atomic(dt)]
    for red in ("prod", "amax", "amin"):
        comb = SCATTER[red]
        if dt not in _FLOAT:
            comb = comb.replace(" || ((v) != (v))", "")
        parts.append(_atomic(dt, red, comb))
    sig = "(const i64 n, const int nd, const int dim, const i64 size, const i64* meta, T* s, const T* src, const i64* idx, u64* cnt, i64* err)"
    for red in ("sum", "prod", "amax", "amin", "mean"):
        op = "sum" if red == "mean" else red
        count = " atomicAdd(&cnt[so], (u64)1);" if red == "mean" else ""
        parts.append(
            f'extern "C" __global__ void sr_{red}{sig}\n{{\n'
            "    i64 e = EM_GID; if (e >= n) return;\n"
            "    i64 ro, so = em_scatter_offsets(e, nd, dim, size, meta, idx, &ro, err);\n"
            f"    if (so >= 0) {{ em_{op}(&s[so], src[ro]);{count} }}\n}}\n"
        )
    if dt in _FLOAT:
        div = "s[o] = s[o] / (T)c;"
    else:  # PyTorch's integer mean rounds toward minus infinity
        div = (
            "i64 a = (i64)s[o], q = a / c; if (a % c != 0 && (a < 0) != (c < 0)) --q; s[o] = (T)q;"
        )
    parts.append(
        r"""
/* include_self=False: the targets start from the reduction's identity */
extern "C" __global__ void sr_reset(const i64 n, const int nd, const int dim, const i64 size, const i64* meta,
                                    T* s, const T ident, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 ro, so = em_scatter_offsets(e, nd, dim, size, meta, idx, &ro, err);
    if (so >= 0) s[so] = ident;
}
/* mean: divide every target that received values by its count (+1 with include_self) */
extern "C" __global__ void sr_mean_div(const i64 n, const int nd, const i64* meta, T* s, const u64* cnt,
                                       const int include_self)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 r = e, o = 0;
    for (int d = nd - 1; d >= 0; --d) { i64 sz = meta[d], c = r % sz; r /= sz; o += c * meta[nd + d]; }
    if (cnt[o] == 0) return;
    i64 c = (i64)cnt[o] + include_self;
    """
        + div
        + r"""
}
extern "C" __global__ void put_acc(const i64 n, const int K, const int nd, const int nv, const i64 Bn,
                                   const i64 R, const i64* meta, T* s, const T* v, const i64* idx, i64* err)
{
    i64 e = EM_GID; if (e >= n) return;
    i64 vo, t = em_put_offsets(e, K, nd, nv, Bn, R, meta, idx, &vo, err);
    if (t >= 0) em_sum(&s[t], v[vo]);
}
"""
    )
    return "".join(parts)


# -- helpers -------------------------------------------------------------------------------------
def _contig(t: Any) -> Any:
    if t.is_contiguous():
        return t
    import ember

    out = ember.empty(tuple(t._shape), dtype=t._dtype, device=t.device)
    copy(out, t)
    return out


def _strides(t: Any) -> list[int]:
    return [int(s) for s in t._stride]


def _extent(t: Any) -> int:
    """Elements from ``t``'s first to one past its last (strides are never negative)."""
    return 1 + sum((int(n) - 1) * int(s) for n, s in zip(t._shape, t._stride))


def _first_bad(index: Any, sizes: list[int], neg_ok: bool) -> tuple[int, int]:
    """(row, value) of the first index outside its row's range (host side, error path only)."""
    rows = index.cpu().numpy().reshape(len(sizes), -1)
    for k, size in enumerate(sizes):
        bad = (rows[k] < (-size if neg_ok else 0)) | (rows[k] >= size)
        if bad.any():
            return k, int(rows[k][bad.argmax()])
    return 0, 0  # pragma: no cover - only called when the device saw a bad index


def _check_range(dev: Any, index: Any, sizes: list[int], neg_ok: bool, msg: str) -> None:
    """Raise IndexError(msg) if any row k of the contiguous ``index`` leaves [lo, sizes[k])."""
    n = index.numel()
    if n == 0:
        return
    fn = dev.function(("index_common",), "check_range", common_source)
    err = dev.error_flag()
    bn = n // len(sizes)
    dev.launch(fn, n, _I64(n), _I64(bn), dev.meta(sizes), _I32(neg_ok), ptr(index), err)
    if dev.read_error():
        _raise(index, sizes, neg_ok, msg)


def _raise(index: Any, sizes: list[int], neg_ok: bool, msg: str) -> None:
    k, v = _first_bad(index, sizes, neg_ok)
    raise IndexError(msg.format(v=v, k=k, size=sizes[k]))


# -- gather / scatter ----------------------------------------------------------------------------
_GATHER_MSG = "gather(): index {v} is out of bounds for dimension {dim} with size {size}"
_SCATTER_MSG = "scatter(): index {v} is out of bounds for dimension {dim} with size {size}"
_INDEX_MSG = "index {v} is out of bounds for dimension {k} with size {size}"


def gather(out: Any, x: Any, dim: int, index: Any, *_: Any) -> None:
    n = out.numel()
    if n == 0:
        return
    dev = device_of(out)
    index = _contig(index)
    size = int(x._shape[dim])
    isz = x._dtype.itemsize
    fn = dev.function(("index_move", isz), "gather", partial(move_source, isz))
    meta = dev.meta([*map(int, index._shape), *_strides(x), *_strides(out)])
    err = dev.error_flag()
    nd = len(index._shape)
    dev.launch(fn, n, _I64(n), _I32(nd), _I32(dim), _I64(size), meta, ptr(out), ptr(x), ptr(index), err)  # fmt: skip
    if dev.read_error():
        _raise(index, [size], False, _GATHER_MSG.replace("{dim}", str(dim)))


def scatter_reduce_(
    self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True
) -> None:
    dt = self._dtype.name
    if reduce != "none" and reduce != "mean" and reduce not in SCATTER:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if reduce != "none" and dt not in SCATTER_DTYPES:
        raise TypeError(f"ember_cuda: scatter_reduce_ ({reduce}) is not implemented for {dt}")
    n = index.numel()
    if n == 0:
        return
    dev = device_of(self)
    index = _contig(index)
    size = int(self._shape[dim])
    _check_range(dev, index, [size], False, _SCATTER_MSG.replace("{dim}", str(dim)))
    nd = len(index._shape)
    meta = dev.meta([*map(int, index._shape), *_strides(self), *_strides(src)])
    head = (_I64(n), _I32(nd), _I32(dim), _I64(size), meta, ptr(self))
    err = dev.error_flag()
    if reduce == "none":
        isz = self._dtype.itemsize
        fn = dev.function(("index_move", isz), "scatter_set", partial(move_source, isz))
        dev.launch(fn, n, *head, ptr(src), ptr(index), err)
        return
    mod = ("scatter", dt)
    source = partial(scatter_source, dt)
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if ident is None:
            info = np.finfo(dt) if dt in _FLOAT else np.iinfo(dt)
            lo, hi = (-np.inf, np.inf) if dt in _FLOAT else (info.min, info.max)
            ident = lo if reduce == "amax" else hi
        reset = dev.function(mod, "sr_reset", source)
        dev.launch(reset, n, *head, np.dtype(dt).type(ident), ptr(index), err)
    cnt = None
    if reduce == "mean":
        import ember

        cnt = ember.zeros(_extent(self), dtype=ember.int64, device=self.device)
    fn = dev.function(mod, f"sr_{reduce}", source)
    dev.launch(fn, n, *head, ptr(src), ptr(index), ptr(cnt) if cnt is not None else np.uint64(0), err)  # fmt: skip
    if cnt is not None:
        m = self.numel()
        div = dev.function(mod, "sr_mean_div", source)
        smeta = dev.meta([*map(int, self._shape), *_strides(self)])
        dev.launch(div, m, _I64(m), _I32(len(self._shape)), smeta, ptr(self), ptr(cnt), _I32(bool(include_self)))  # fmt: skip


# -- index / index_put_ --------------------------------------------------------------------------
def _stack(indices: list[Any]) -> tuple[Any, int]:
    """The K index tensors (one shape B, maybe expanded) as one contiguous (K, B) block."""
    import ember

    B = tuple(indices[0]._shape)
    st = ember.empty((len(indices), *B), dtype=ember.int64, device=indices[0].device)
    for k, ix in enumerate(indices):
        copy(st[k], ix)
    return st, int(np.prod(B, dtype=np.int64))


def index(out: Any, x: Any, indices: list[Any]) -> None:
    n = out.numel()
    if n == 0:
        return
    dev = device_of(out)
    target = out if out.is_contiguous() else _contig(out)
    st, bn = _stack(indices)
    K = len(indices)
    R = n // bn
    isz = x._dtype.itemsize
    fn = dev.function(("index_move", isz), "index_get", partial(move_source, isz))
    meta = dev.meta([*map(int, x._shape), *_strides(x)])
    err = dev.error_flag()
    nd = len(x._shape)
    dev.launch(fn, n, _I64(n), _I32(K), _I32(nd), _I64(bn), _I64(R), meta, ptr(target), ptr(x), ptr(st), err)  # fmt: skip
    if dev.read_error():
        _raise(st, [int(s) for s in x._shape[:K]], True, _INDEX_MSG)
    if target is not out:
        copy(out, target)


def index_put_(self: Any, indices: list[Any], values: Any, accumulate: bool = False) -> None:
    dev = device_of(self)
    st, bn = _stack(indices)
    K = len(indices)
    R = int(np.prod(self._shape[K:], dtype=np.int64))
    n = bn * R
    if n == 0:
        return
    dt = self._dtype.name
    if accumulate and dt not in (*SCATTER_DTYPES, "bool"):
        raise TypeError(f"ember_cuda: index_put_ (accumulate) is not implemented for {dt}")
    _check_range(dev, st, [int(s) for s in self._shape[:K]], True, _INDEX_MSG)
    meta = dev.meta([*map(int, self._shape), *_strides(self), *map(int, values._shape), *_strides(values)])  # fmt: skip
    if accumulate:
        fn = dev.function(("scatter", dt), "put_acc", partial(scatter_source, dt))
    else:
        isz = self._dtype.itemsize
        fn = dev.function(("index_move", isz), "index_put", partial(move_source, isz))
    err = dev.error_flag()
    nd, nv = len(self._shape), len(values._shape)
    dev.launch(fn, n, _I64(n), _I32(K), _I32(nd), _I32(nv), _I64(bn), _I64(R), meta, ptr(self), ptr(values), ptr(st), err)  # fmt: skip


def kernels() -> dict[str, Any]:
    return {
        "gather.default": gather,
        "scatter_reduce_.two": scatter_reduce_,
        "index.Tensor": index,
        "index_put_.default": index_put_,
    }
