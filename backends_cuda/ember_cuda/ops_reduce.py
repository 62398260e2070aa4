# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""Parallel reductions as block trees: sum, prod, mean, amax, amin, argmax, argmin, all, any.

The input is viewed as (O outputs) x (R reduced elements). Block ``g`` of output ``o``
folds a chunk of the R elements, its threads striding through the chunk (adjacent
threads read adjacent addresses when the reduced dimension is contiguous), then combines
the threads' accumulators in shared memory in log2(block) steps. When there are few
outputs and many elements, each output is split over G blocks whose partial results a
second kernel (``fold2``) combines the same way, so every SM works on a full reduction.
When the outputs are adjacent in memory and the reduced dims are strided (a sum over
dim 0), ``fold_cols`` gives each thread one output instead, for coalesced reads.

Accumulation (PyTorch's CUDA rules): float16/bfloat16/float32 in float, float64 in double,
integers and bool in int64 (wrapping). argmax/argmin keep the first index among equal
values (and the first NaN); amax/amin propagate NaN. ``out`` has the keepdim shape.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_cuda._runtime import CTYPE, coalesce, device_of, load, ptr, store
from ember_cuda.ops_copy import fill

__all__ = ["reduce", "REDUCE", "ARG", "kernels", "fold_source", "arg_source", "reduce_dtypes"]

_H = ("float16", "bfloat16")
_F = ("float32", "float64") + _H
_I = ("uint8", "int8", "int16", "int32", "int64")
_N = _I + _F
_ALL = ("bool",) + _N
_AMAX = "(((v) > (c)) | ((v) != (v))) ? (v) : (c)"
_AMIN = "(((v) < (c)) | ((v) != (v))) ? (v) : (c)"

#: op -> (dtypes, accumulator rule, init, combine(c, v), final(c), result)
#:   accumulator "wide" = float/double/i64, "same" = the element's register type,
#:   "uchar"; result "same"/"bool".
REDUCE: dict[str, tuple[tuple[str, ...], str, str, str, str, str]] = {
    "sum": (_ALL, "wide", "0", "(c) + (v)", "c", "same"),
    "prod": (_ALL, "wide", "1", "(c) * (v)", "c", "same"),
    "mean": (_F, "wide", "0", "(c) + (v)", "c / (ACC)R", "same"),
    "amax": (_ALL, "same", "LOWEST", _AMAX, "c", "same"),
    "amin": (_ALL, "same", "HIGHEST", _AMIN, "c", "same"),
    "all": (("bool",), "uchar", "1", "(c) & (v)", "c", "bool"),
    "any": (("bool",), "uchar", "0", "(c) | (v)", "c", "bool"),
}
#: argmax/argmin: better(v, c) for floats (NaN is the best), for the rest.
ARG = {
    "argmax": ("((v) > (c)) | (((v) != (v)) & ((c) == (c)))", "(v) > (c)"),
    "argmin": ("((v) < (c)) | (((v) != (v)) & ((c) == (c)))", "(v) < (c)"),
}
LIMITS = {
    "bool": ("0", "1"),
    "uint8": ("0", "UCHAR_MAX"),
    "int8": ("CHAR_MIN", "CHAR_MAX"),
    "int16": ("SHRT_MIN", "SHRT_MAX"),
    "int32": ("INT_MIN", "INT_MAX"),
    "int64": ("LONG_MIN", "LONG_MAX"),
    "float16": ("-INFINITY", "INFINITY"),
    "bfloat16": ("-INFINITY", "INFINITY"),
    "float32": ("-INFINITY", "INFINITY"),
    "float64": ("-(double)INFINITY", "(double)INFINITY"),
}
LS = 256  # threads per block of a fold

#: the value a register holds for each dtype (half types as float)
_REG = {**CTYPE, "float16": "float", "bfloat16": "float"}

_PROLOGUE = r"""
    const int lid = threadIdx.x, ls = blockDim.x;
    i64 o = blockIdx.x / G, g = blockIdx.x % G;
    i64 base = 0, oo = 0, rem = o;
    for (int d = ndo - 1; d >= 0; --d) {
        i64 s = meta[d], c = rem % s; rem /= s;
        base += c * meta[ndo + d]; oo += c * meta[2 * ndo + d];
    }
    const i64* rm = meta + 3 * ndo;
"""
_OFFSET = r"""
        i64 off = base;
        if (ndr == 1) off += r * rm[1];
        else { i64 q = r; for (int d = ndr - 1; d >= 0; --d) { i64 s = rm[d]; off += (q % s) * rm[ndr + d]; q /= s; } }
"""


def reduce_dtypes(op: str) -> tuple[str, ...]:
    """The input dtypes ``op`` has a kernel for."""
    return tuple(d for d in _ALL if d != "bool") if op in ARG else REDUCE[op][0]


def _acc_type(rule: str, dt: str) -> str:
    if rule == "uchar":
        return "uchar"
    if rule == "same":
        return _REG[dt]
    if dt in _F:
        return "double" if dt == "float64" else "float"
    return "i64"


def fold_source(op: str, dt: str) -> str:
    """The module of reduction ``op`` over dtype ``dt`` (kernels fold, fold2, fold_cols)."""
    _, rule, init, comb, final, res = REDUCE[op]
    T, ACC = CTYPE[dt], _acc_type(rule, dt)
    odt = "bool" if res == "bool" else dt
    OT = CTYPE[odt]
    init = init.replace("LOWEST", LIMITS[dt][0]).replace("HIGHEST", LIMITS[dt][1])
    upd = comb.replace("(c)", "(acc)")
    merge = comb.replace("(c)", "(lv[lid])").replace("(v)", "(lv[lid + s])")
    fin = final.replace("c", "lv[0]") if final != "c" else "lv[0]"
    fin_acc = final.replace("c", "acc") if final != "c" else "acc"
    tree = (
        "    lv[lid] = acc; __syncthreads();\n"
        "    for (int s = ls / 2; s > 0; s >>= 1) {\n"
        f"        if (lid < s) lv[lid] = {merge};\n"
        "        __syncthreads();\n    }\n"
    )
    return (
        f"#define ACC {ACC}\n"
        f'extern "C" __global__ void fold(const i64 R, const i64 G, const i64 chunk, const int ndo, '
        f"const int ndr, const i64* __restrict__ meta, {OT}* p_o, const {T}* __restrict__ p_a, ACC* part)\n{{\n"
        f"    __shared__ ACC lv[{LS}];{_PROLOGUE}"
        f"    ACC acc = (ACC)({init});\n"
        "    i64 r1 = min(R, (g + 1) * chunk);\n"
        f"    for (i64 r = g * chunk + lid; r < r1; r += ls) {{{_OFFSET}"
        f"        ACC v = (ACC)({load(dt, 'p_a', 'off')}); acc = {upd};\n    }}\n"
        + tree
        + f"    if (lid == 0) {{ if (G == 1) {{ {store(odt, 'p_o', 'oo', fin)} }} else part[blockIdx.x] = lv[0]; }}\n}}\n"
        f'extern "C" __global__ void fold2(const i64 R, const i64 G, const int ndo, '
        f"const i64* __restrict__ meta, {OT}* p_o, const ACC* part)\n{{\n"
        f"    __shared__ ACC lv[{LS}];\n"
        "    const int lid = threadIdx.x, ls = blockDim.x;\n"
        "    i64 o = blockIdx.x, oo = 0, rem = o;\n"
        "    for (int d = ndo - 1; d >= 0; --d) { i64 s = meta[d], c = rem % s; rem /= s;"
        " oo += c * meta[2 * ndo + d]; }\n"
        f"    ACC acc = (ACC)({init});\n"
        f"    for (i64 g = lid; g < G; g += ls) {{ ACC v = part[o * G + g]; acc = {upd}; }}\n"
        + tree
        + f"    if (lid == 0) {{ {store(odt, 'p_o', 'oo', fin)} }}\n}}\n"
        f'extern "C" __global__ void fold_cols(const i64 R, const i64 O, const int ndo, const int ndr, '
        f"const i64* __restrict__ meta, {OT}* p_o, const {T}* __restrict__ p_a)\n{{\n"
        "    i64 o = EM_GID; if (o >= O) return;\n"
        "    i64 base = 0, oo = 0, rem = o;\n"
        "    for (int d = ndo - 1; d >= 0; --d) { i64 s = meta[d], c = rem % s; rem /= s;"
        " base += c * meta[ndo + d]; oo += c * meta[2 * ndo + d]; }\n"
        "    const i64* rm = meta + 3 * ndo;\n"
        f"    ACC acc = (ACC)({init});\n"
        f"    for (i64 r = 0; r < R; ++r) {{{_OFFSET}"
        f"        ACC v = (ACC)({load(dt, 'p_a', 'off')}); acc = {upd};\n    }}\n"
        f"    {store(odt, 'p_o', 'oo', fin_acc)}\n}}\n"
        "#undef ACC\n"
    )


def arg_source(op: str, dt: str) -> str:
    """The module of ``argmax``/``argmin`` over dtype ``dt`` (kernels fold, fold2)."""
    T, V = CTYPE[dt], _REG[dt]
    better = ARG[op][0] if dt in _F else ARG[op][1]

    def take(c: str, ci: str, v: str, vi: str) -> str:
        b1 = better.replace("(v)", f"({v})").replace("(c)", f"({c})")
        b2 = better.replace("(v)", f"({c})").replace("(c)", f"({v})")
        return f"({ci} < 0 || ({vi} >= 0 && (({b1}) || (!({b2}) && {vi} < {ci}))))"

    tree = (
        "    lv[lid] = acc; li[lid] = ai; __syncthreads();\n"
        "    for (int s = ls / 2; s > 0; s >>= 1) {\n"
        f"        if (lid < s && {take('lv[lid]', 'li[lid]', 'lv[lid + s]', 'li[lid + s]')}) "
        "{ lv[lid] = lv[lid + s]; li[lid] = li[lid + s]; }\n"
        "        __syncthreads();\n    }\n"
    )
    return (
        f'extern "C" __global__ void fold(const i64 R, const i64 G, const i64 chunk, const int ndo, '
        f"const int ndr, const i64* __restrict__ meta, i64* p_o, const {T}* __restrict__ p_a, "
        f"{V}* part, i64* parti)\n{{\n"
        f"    __shared__ {V} lv[{LS}]; __shared__ i64 li[{LS}];{_PROLOGUE}"
        f"    {V} acc = 0; i64 ai = -1;\n"
        "    i64 r1 = min(R, (g + 1) * chunk);\n"
        f"    for (i64 r = g * chunk + lid; r < r1; r += ls) {{{_OFFSET}"
        f"        {V} v = {load(dt, 'p_a', 'off')}; if ({take('acc', 'ai', 'v', 'r')}) {{ acc = v; ai = r; }}\n"
        "    }\n" + tree + "    if (lid == 0) { if (G == 1) p_o[oo] = li[0]; "
        "else { part[blockIdx.x] = lv[0]; parti[blockIdx.x] = li[0]; } }\n}\n"
        f'extern "C" __global__ void fold2(const i64 R, const i64 G, const int ndo, '
        f"const i64* __restrict__ meta, i64* p_o, const {V}* part, const i64* parti)\n{{\n"
        f"    __shared__ {V} lv[{LS}]; __shared__ i64 li[{LS}];\n"
        "    const int lid = threadIdx.x, ls = blockDim.x;\n"
        "    i64 o = blockIdx.x, oo = 0, rem = o;\n"
        "    for (int d = ndo - 1; d >= 0; --d) { i64 s = meta[d], c = rem % s; rem /= s;"
        " oo += c * meta[2 * ndo + d]; }\n"
        f"    {V} acc = 0; i64 ai = -1;\n"
        "    for (i64 g = lid; g < G; g += ls) {\n"
        f"        {V} v = part[o * G + g]; i64 vi = parti[o * G + g];\n"
        f"        if ({take('acc', 'ai', 'v', 'vi')}) {{ acc = v; ai = vi; }}\n    }}\n"
        + tree
        + "    if (lid == 0) p_o[oo] = li[0];\n}\n"
    )


_EMPTY = {"sum": 0, "prod": 1, "mean": float("nan"), "all": True, "any": False}


def _block(n: int) -> int:
    return 32 if n <= 64 else LS


def reduce(op: str, out: Any, a: Any, dims: Any) -> None:
    """Reduce ``a`` over ``dims`` into ``out`` (keepdim shape)."""
    dt = a._dtype.name
    is_arg = op in ARG
    if dt not in reduce_dtypes(op):
        raise TypeError(f"ember_cuda: {op!r} is not implemented for {dt}")
    shape = a._shape
    dims = sorted({d % max(len(shape), 1) for d in dims})
    keep = [d for d in range(len(shape)) if d not in dims]
    O = 1
    for d in keep:
        O *= shape[d]
    R = 1
    for d in dims:
        R *= shape[d]
    if O == 0:
        return
    if R == 0:
        if op not in _EMPTY:
            raise RuntimeError(f"ember_cuda: {op} of an empty tensor")
        fill(out, _EMPTY[op])
        return
    ost = out._stride if len(out._stride) == len(shape) else (0,) * len(shape)
    oshape, (oas, oos) = coalesce(
        [shape[d] for d in keep], [[a._stride[d] for d in keep], [ost[d] for d in keep]]
    )
    rshape, (ras,) = coalesce([shape[d] for d in dims], [[a._stride[d] for d in dims]])
    if not rshape:
        rshape, ras = [1], [0]
    dev = device_of(out)
    meta = dev.meta(oshape + oas + oos + rshape + ras)
    ndo, ndr = len(oshape), len(rshape)
    key = ("reduce", op, dt)
    src = partial(arg_source if is_arg else fold_source, op, dt)
    if not is_arg and O >= 1024 and oas and oas[-1] == 1 and all(st > 1 for st in ras):
        cols = dev.function(key, "fold_cols", src)
        args = (np.int64(R), np.int64(O), np.int32(ndo), np.int32(ndr), meta, ptr(out), ptr(a))
        dev.launch(cols, O, *args)
        return
    G = 1
    sms = max(dev.multi_processor_count, 1)
    if O < 4 * sms and R > 16384:
        G = int(min(max(1, (4 * sms) // O), -(-R // 8192), 1024))
    chunk = -(-R // G)
    ls = _block(chunk)
    fold = dev.function(key, "fold", src)
    keep_alive: list[Any] = []
    if G == 1:
        parts = [np.uint64(0)] * (2 if is_arg else 1)
    else:
        pv = dev.allocator.allocate(O * G * 8)
        keep_alive.append(pv)
        parts = [np.uint64(pv.ptr)]
        if is_arg:
            pi = dev.allocator.allocate(O * G * 8)
            keep_alive.append(pi)
            parts.append(np.uint64(pi.ptr))
    head = (np.int64(R), np.int64(G), np.int64(chunk), np.int32(ndo), np.int32(ndr), meta)
    dev.launch_nd(fold, O * G, ls, *head, ptr(out), ptr(a), *parts)
    if G > 1:
        fold2 = dev.function(key, "fold2", src)
        ls2 = _block(G)
        dev.launch_nd(
            fold2, O, ls2, np.int64(R), np.int64(G), np.int32(ndo), meta, ptr(out), *parts
        )
    # the partial buffers go back to the pool on the same stream: reuse waits for these kernels
    del keep_alive


_OVERLOADS = {
    "sum": "dim_IntList",
    "prod": "dim_IntList",
    "mean": "dim",
    "amax": "default",
    "amin": "default",
    "argmax": "default",
    "argmin": "default",
    "all": "dims",
    "any": "dims",
}


def kernels() -> dict[str, Any]:
    return {f"{op}.{ov}": partial(reduce, op) for op, ov in _OVERLOADS.items()}
