"""copy_ (every dtype pair, strided to strided) and fill_.

Cast rules, as PyTorch on x86-64: float -> int64/int32 truncates toward zero and
gives the minimum value for NaN, infinities and out-of-range values; float ->
narrower integers goes through int32 then wraps; float -> bool is ``x != 0``;
integers narrow by wrapping; float64 -> float16/bfloat16 rounds through float32;
float16 uses OpenCL's ``vload_half``/``vstore_half_rte`` (no cl_khr_fp16 needed),
bfloat16 is bit arithmetic.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from ember_opencl._runtime import CTYPE, UTYPE, device_of, index_code, load, store
from ember_opencl.ops_elementwise import plan

__all__ = ["copy", "fill", "conv"]

_DTYPES = list(CTYPE)
_FLOATISH = ("float16", "bfloat16", "float32", "float64")


def conv(src: str, dst: str, v: str) -> str:
    """OpenCL C expression converting ``v`` (as ``load`` returns it) from ``src`` to ``dst``."""
    if dst == "bool":
        return f"({v} != 0)"
    if dst in _FLOATISH:
        return f"({'double' if dst == 'float64' else 'float'})({v})"
    if src in _FLOATISH:
        sfx = "d" if src == "float64" else "f"
        if dst == "int64":
            return f"em_f2l_{sfx}({v})"
        return f"({CTYPE[dst]})em_f2i_{sfx}({v})"
    return f"({CTYPE[dst]})({v})"


def _cast_source(src: str) -> str:
    parts = []
    for dst in _DTYPES:
        if dst == src:
            continue
        v = conv(src, dst, load(src, "p_a", "i_a"))
        parts.append(
            f"__kernel void c_{dst}(const long n, const int nd, __global const long* meta, "
            f"__global {CTYPE[dst]}* p_o, const long off_o, "
            f"__global const {CTYPE[src]}* p_a, const long off_a)\n{{\n"
            f"    long i = get_global_id(0); if (i >= n) return;\n"
            f"    {index_code(['o', 'a'])}\n    {store(dst, 'p_o', 'i_o', v)}\n}}\n"
        )
    return "\n".join(parts)


def _move_source(isz: int) -> str:
    T = UTYPE[isz]
    return (
        "__kernel void mv(const long n, const int nd, __global const long* meta, "
        f"__global {T}* p_o, const long off_o, __global const {T}* p_a, const long off_a)\n"
        "{\n    long i = get_global_id(0); if (i >= n) return;\n"
        f"    {index_code(['o', 'a'])}\n    p_o[i_o] = p_a[i_a];\n}}\n"
        "__kernel void fill(const long n, const int nd, __global const long* meta, "
        f"__global {T}* p_o, const long off_o, const ulong bits)\n"
        "{\n    long i = get_global_id(0); if (i >= n) return;\n"
        f"    {index_code(['o'])}\n    p_o[i_o] = ({T})bits;\n}}\n"
    )


_ARGS2 = [np.int64, np.int32, None, None, np.int64, None, np.int64]


def copy(out: Any, src: Any) -> None:
    """out[...] = src converted to out's dtype; same shape (src may be broadcast)."""
    dev = device_of(out)
    n, nd, meta = plan(out, src)
    if n == 0:
        return
    sd, dd = src._dtype.name, out._dtype.name
    if sd == dd:
        isz = out._dtype.itemsize
        if nd == 0:
            dev.copy_device(
                out._storage.data, out._offset * isz, src._storage.data, src._offset * isz, n * isz
            )
            return
        k = dev.kernel(("move", isz), "mv", partial(_move_source, isz), _ARGS2)
    else:
        k = dev.kernel(("cast", sd), f"c_{dd}", partial(_cast_source, sd), _ARGS2)
    dev.launch(
        k,
        n,
        n,
        nd,
        dev.meta(meta),
        out._storage.data.buf,
        out._offset,
        src._storage.data.buf,
        src._offset,
    )


_CNAME = {
    "bool": "bool",
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
}
_IRANGE = {
    "uint8": (-255, 255),  # PyTorch accepts negative uint8 fill values and wraps them
    "int8": (-128, 127),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
_FMAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}


def _bf16_bits(v: float) -> int:
    u = int(np.array(v, np.float32).view(np.uint32))
    if v != v:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def fill_bits(dt: str, value: Any) -> int:
    """The bit pattern of ``value`` as one element of ``dt``, with PyTorch's overflow checks."""
    if isinstance(value, (bool, np.bool_)):
        value = int(bool(value))
    elif isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, np.floating):
        value = float(value)
    elif not isinstance(value, (int, float)):
        raise TypeError(f"fill_ value must be bool, int or float, got {type(value).__name__}")
    if dt == "bool":
        return int(value != 0)
    r = _IRANGE.get(dt)
    if r is not None:
        if isinstance(value, float) and not math.isfinite(value) or not r[0] <= value <= r[1]:
            raise RuntimeError(f"value cannot be converted to type {_CNAME[dt]} without overflow")
        return int(value) & ((1 << (8 * np.dtype(dt).itemsize)) - 1)
    if isinstance(value, int) and abs(value) >= 2**1024:
        raise RuntimeError(f"value cannot be converted to type {_CNAME[dt]} without overflow")
    fv = float(value)
    if dt in _FMAX and math.isfinite(fv) and abs(fv) > _FMAX[dt]:
        raise RuntimeError(f"value cannot be converted to type {_CNAME[dt]} without overflow")
    if dt == "bfloat16":
        return _bf16_bits(fv)
    arr = np.array(np.float32(fv) if dt == "float16" else fv, dtype=dt)
    return int(arr.view(f"u{arr.itemsize}"))


def fill(out: Any, value: Any) -> None:
    """out[...] = value, strided."""
    bits = fill_bits(out._dtype.name, value)
    dev = device_of(out)
    n, nd, meta = plan(out)
    if n == 0:
        return
    isz = out._dtype.itemsize
    argtypes = [np.int64, np.int32, None, None, np.int64, np.uint64]
    k = dev.kernel(("move", isz), "fill", partial(_move_source, isz), argtypes)
    dev.launch(k, n, n, nd, dev.meta(meta), out._storage.data.buf, out._offset, bits)


def kernels() -> dict[str, Any]:
    return {"copy_.default": copy, "fill_.Scalar": fill}
