"""Reductions as work-group trees: sum, prod, mean, amax, amin, argmax, argmin, all, any.

The input is viewed as (O outputs) x (R reduced elements). Work-group ``g`` of
output ``o`` folds a chunk of the R elements, its work-items striding through
the chunk, then combines the items' accumulators in local memory in log2(group)
steps. When there are few outputs and many elements, each output is split over
G groups whose partial results a second kernel combines the same way, so every
compute unit works on a full reduction.

Accumulation: float32 in double where the device has float64, integers in int64
(wrapping), as the CPU backend. argmax/argmin keep the first index among equal
values (and the first NaN); amax/amin propagate NaN. ``out`` has the keepdim shape.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_opencl._runtime import CTYPE, coalesce, device_of
from ember_opencl.ops_copy import fill

__all__ = ["reduce", "REDUCE", "kernels"]

_F = ("float32", "float64")
_I = ("uint8", "int8", "int16", "int32", "int64")
_N = _I + _F
_ALL = ("bool",) + _N
_AMAX = "(((v) > (c)) | ((v) != (v))) ? (v) : (c)"
_AMIN = "(((v) < (c)) | ((v) != (v))) ? (v) : (c)"

#: op -> (dtypes, accumulator rule, init, combine(c, v), final(c), result)
#:   accumulator "wide" = double/long, "same" = the element type, "uchar"; result "same"/"bool".
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
_LIMITS = {
    "bool": ("0", "1"),
    "uint8": ("0", "UCHAR_MAX"),
    "int8": ("CHAR_MIN", "CHAR_MAX"),
    "int16": ("SHRT_MIN", "SHRT_MAX"),
    "int32": ("INT_MIN", "INT_MAX"),
    "int64": ("LONG_MIN", "LONG_MAX"),
    "float32": ("-INFINITY", "INFINITY"),
    "float64": ("-INFINITY", "INFINITY"),
}
_LS_MAX = 256

_PROLOGUE = r"""
    const int lid = get_local_id(0), ls = get_local_size(0);
    long o = get_group_id(0) / G, g = get_group_id(0) % G;
    long base = off_a, oo = off_o, rem = o;
    for (int d = ndo - 1; d >= 0; --d) {
        long s = meta[d], c = rem % s; rem /= s;
        base += c * meta[ndo + d]; oo += c * meta[2 * ndo + d];
    }
    __global const long* rm = meta + 3 * ndo;
"""
_OFFSET = r"""
        long off = base;
        if (ndr == 1) off += r * rm[1];
        else { long q = r; for (int d = ndr - 1; d >= 0; --d) { long s = rm[d]; off += (q % s) * rm[ndr + d]; q /= s; } }
"""  # noqa: E501


def _acc_type(rule: str, dt: str, fp64: bool) -> str:
    if rule == "uchar":
        return "uchar"
    if rule == "same":
        return CTYPE[dt]
    if dt in _F:
        return "double" if fp64 else "float"
    return "long"


def _fold_source(op: str, dt: str, fp64: bool) -> str:
    dts, rule, init, comb, final, res = REDUCE[op]
    T, ACC = CTYPE[dt], _acc_type(rule, dt, fp64)
    OT = "uchar" if res == "bool" else T
    init = init.replace("LOWEST", _LIMITS[dt][0]).replace("HIGHEST", _LIMITS[dt][1])
    upd = comb.replace("(c)", "(acc)")
    merge = comb.replace("(c)", "(lv[lid])").replace("(v)", "(lv[lid + s])")
    fin = final.replace("c", "lv[0]") if final != "c" else "lv[0]"
    head = (
        f"#define ACC {ACC}\n"
        f"__kernel void fold(const long R, const long G, const long chunk, const int ndo, "
        f"const int ndr, __global const long* meta, __global {OT}* p_o, const long off_o, "
        f"__global const {T}* p_a, const long off_a, __global ACC* part)\n{{\n"
        f"    __local ACC lv[{_LS_MAX}];{_PROLOGUE}"
        f"    ACC acc = ({ACC})({init});\n"
        f"    long r1 = min(R, (g + 1) * chunk);\n"
        f"    for (long r = g * chunk + lid; r < r1; r += ls) {{{_OFFSET}"
        f"        ACC v = (ACC)p_a[off]; acc = {upd};\n    }}\n"
    )
    tree = (
        "    lv[lid] = acc; barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int s = ls / 2; s > 0; s >>= 1) {\n"
        f"        if (lid < s) lv[lid] = {merge};\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n"
    )
    body = head + tree
    body += (
        "    if (lid == 0) { if (G == 1) p_o[oo] = (" + OT + ")(" + fin + "); "
        "else part[get_group_id(0)] = lv[0]; }\n}\n"
    )
    # stage 2: fold G partials per output
    body += (
        f"__kernel void fold2(const long R, const long G, const int ndo, "
        f"__global const long* meta, __global {OT}* p_o, const long off_o, "
        f"__global const ACC* part)\n{{\n"
        f"    __local ACC lv[{_LS_MAX}];\n"
        "    const int lid = get_local_id(0), ls = get_local_size(0);\n"
        "    long o = get_group_id(0), oo = off_o, rem = o;\n"
        "    for (int d = ndo - 1; d >= 0; --d) { long s = meta[d], c = rem % s; rem /= s;"
        " oo += c * meta[2 * ndo + d]; }\n"
        f"    ACC acc = ({ACC})({init});\n"
        "    for (long g = lid; g < G; g += ls) { ACC v = part[o * G + g]; acc = "
        + upd
        + "; }\n"
        + tree
        + "    if (lid == 0) p_o[oo] = ("
        + OT
        + ")("
        + fin
        + ");\n}\n"
    )
    # outputs adjacent in memory, reduced dims strided (sum over dim 0): one work-item per
    # output, serial over R, so neighbouring items read neighbouring addresses
    body += (
        f"__kernel void fold_cols(const long R, const long O, const int ndo, const int ndr, "
        f"__global const long* meta, __global {OT}* p_o, const long off_o, "
        f"__global const {T}* p_a, const long off_a)\n{{\n"
        "    long o = get_global_id(0); if (o >= O) return;\n"
        "    long base = off_a, oo = off_o, rem = o;\n"
        "    for (int d = ndo - 1; d >= 0; --d) { long s = meta[d], c = rem % s; rem /= s;"
        " base += c * meta[ndo + d]; oo += c * meta[2 * ndo + d]; }\n"
        "    __global const long* rm = meta + 3 * ndo;\n"
        f"    ACC acc = ({ACC})({init});\n"
        f"    for (long r = 0; r < R; ++r) {{{_OFFSET}"
        f"        ACC v = (ACC)p_a[off]; acc = {upd};\n    }}\n"
        f"    p_o[oo] = ({OT})({final.replace('c', 'acc') if final != 'c' else 'acc'});\n}}\n"
    )
    return body


def _arg_source(op: str, dt: str, fp64: bool) -> str:
    T = CTYPE[dt]
    better = ARG[op][0] if dt in _F else ARG[op][1]

    def take(c: str, ci: str, v: str, vi: str) -> str:
        b1 = better.replace("(v)", f"({v})").replace("(c)", f"({c})")
        b2 = better.replace("(v)", f"({c})").replace("(c)", f"({v})")
        return f"({ci} < 0 || ({vi} >= 0 && (({b1}) || (!({b2}) && {vi} < {ci}))))"

    tree = (
        "    lv[lid] = acc; li[lid] = ai; barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int s = ls / 2; s > 0; s >>= 1) {\n"
        f"        if (lid < s && {take('lv[lid]', 'li[lid]', 'lv[lid + s]', 'li[lid + s]')}) "
        "{ lv[lid] = lv[lid + s]; li[lid] = li[lid + s]; }\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n"
    )
    return (
        f"__kernel void fold(const long R, const long G, const long chunk, const int ndo, "
        f"const int ndr, __global const long* meta, __global long* p_o, const long off_o, "
        f"__global const {T}* p_a, const long off_a, __global {T}* part, "
        f"__global long* parti)\n{{\n"
        f"    __local {T} lv[{_LS_MAX}]; __local long li[{_LS_MAX}];{_PROLOGUE}"
        f"    {T} acc = 0; long ai = -1;\n"
        "    long r1 = min(R, (g + 1) * chunk);\n"
        f"    for (long r = g * chunk + lid; r < r1; r += ls) {{{_OFFSET}"
        f"        {T} v = p_a[off]; if ({take('acc', 'ai', 'v', 'r')}) {{ acc = v; ai = r; }}\n"
        "    }\n" + tree + "    if (lid == 0) { if (G == 1) p_o[oo] = li[0]; "
        "else { part[get_group_id(0)] = lv[0]; parti[get_group_id(0)] = li[0]; } }\n}\n"
        f"__kernel void fold2(const long R, const long G, const int ndo, "
        f"__global const long* meta, __global long* p_o, const long off_o, "
        f"__global const {T}* part, __global const long* parti)\n{{\n"
        f"    __local {T} lv[{_LS_MAX}]; __local long li[{_LS_MAX}];\n"
        "    const int lid = get_local_id(0), ls = get_local_size(0);\n"
        "    long o = get_group_id(0), oo = off_o, rem = o;\n"
        "    for (int d = ndo - 1; d >= 0; --d) { long s = meta[d], c = rem % s; rem /= s;"
        " oo += c * meta[2 * ndo + d]; }\n"
        f"    {T} acc = 0; long ai = -1;\n"
        "    for (long g = lid; g < G; g += ls) {\n"
        f"        {T} v = part[o * G + g]; long vi = parti[o * G + g];\n"
        f"        if ({take('acc', 'ai', 'v', 'vi')}) {{ acc = v; ai = vi; }}\n    }}\n"
        + tree
        + "    if (lid == 0) p_o[oo] = li[0];\n}\n"
    )


_EMPTY = {"sum": 0, "prod": 1, "mean": float("nan"), "all": True, "any": False}
_FOLD_ARGS = [np.int64, np.int64, np.int64, np.int32, np.int32, None]
_FOLD_ARGS += [None, np.int64, None, np.int64]
_COLS_ARGS = [np.int64, np.int64, np.int32, np.int32, None, None, np.int64, None, np.int64]
_FOLD2_ARGS = [np.int64, np.int64, np.int32, None, None, np.int64]


def _group_size(n: int) -> int:
    return 16 if n <= 64 else _LS_MAX


def reduce(op: str, out: Any, a: Any, dims: Any) -> None:
    """Reduce ``a`` over ``dims`` into ``out`` (keepdim shape)."""
    dt = a._dtype.name
    is_arg = op in ARG
    if not is_arg and dt not in REDUCE[op][0] or is_arg and dt == "bool":
        raise TypeError(f"ember_opencl: {op!r} is not implemented for {dt}")
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
            raise RuntimeError(f"ember_opencl: {op} of an empty tensor")
        fill(out, _EMPTY[op])
        return
    ost = out._stride if len(out._stride) == len(shape) else (0,) * len(shape)
    oshape, (oas, oos) = coalesce(
        [shape[d] for d in keep], [[a._stride[d] for d in keep], [ost[d] for d in keep]]
    )  # noqa: E501
    rshape, (ras,) = coalesce([shape[d] for d in dims], [[a._stride[d] for d in dims]])
    if not rshape:
        rshape, ras = [1], [0]
    dev = device_of(out)
    meta = dev.meta(oshape + oas + oos + rshape + ras)
    ndo, ndr = len(oshape), len(rshape)
    if not is_arg and O >= 1024 and oas and oas[-1] == 1 and all(st > 1 for st in ras):
        cols = dev.kernel(
            ("reduce", op, dt), "fold_cols", partial(_fold_source, op, dt, dev.fp64), _COLS_ARGS
        )
        dev.launch(
            cols, O, R, O, ndo, ndr, meta, out._storage.data.buf, out._offset,
            a._storage.data.buf, a._offset,
        )  # fmt: skip
        return
    G = 1
    if O < 16 and R > 16384:
        G = min(64, -(-R // 8192))
    chunk = -(-R // G)
    ls = _group_size(chunk)
    src = partial(_arg_source if is_arg else _fold_source, op, dt, dev.fp64)
    key = ("reduce", op, dt)
    fold = dev.kernel(key, "fold", src, _FOLD_ARGS + ([None, None] if is_arg else [None]))
    ob, ab = out._storage.data.buf, a._storage.data.buf
    if G == 1:
        parts = [dev._dummy, dev._dummy] if is_arg else [dev._dummy]
    else:
        acc_isz = 8
        pv = dev.allocator.allocate(O * G * acc_isz)
        parts = [pv.buf]
        if is_arg:
            pi = dev.allocator.allocate(O * G * 8)
            parts.append(pi.buf)
    dev.launch_nd(
        fold,
        (O * G * ls,),
        (ls,),
        R,
        G,
        chunk,
        ndo,
        ndr,
        meta,
        ob,
        out._offset,
        ab,
        a._offset,
        *parts,
    )
    if G > 1:
        fold2 = dev.kernel(key, "fold2", src, _FOLD2_ARGS + ([None, None] if is_arg else [None]))
        ls2 = _group_size(G)
        dev.launch_nd(fold2, (O * ls2,), (ls2,), R, G, ndo, meta, ob, out._offset, *parts)


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
