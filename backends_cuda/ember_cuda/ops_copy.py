"""copy_ (every dtype pair, strided to strided) and fill_.

Cast rules, as PyTorch on x86-64: float -> int64/int32 truncates toward zero and gives
the minimum value for NaN, infinities and out-of-range values; float -> narrower
integers goes through int32 then wraps; float -> bool is ``x != 0``; integers narrow by
wrapping; float64 -> float16/bfloat16 rounds through float32 (as the other backends).
Same-dtype contiguous copies are one ``cudaMemcpyAsync`` on the current stream.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from ember_cuda._runtime import CTYPE, UTYPE, device_of, index_code, load, ptr, store
from ember_cuda.ops_elementwise import plan

__all__ = ["copy", "fill", "conv", "cast_source", "move_source", "fill_bits", "DTYPES"]

DTYPES = tuple(CTYPE)
_FLOATISH = ("float16", "bfloat16", "float32", "float64")


def conv(src: str, dst: str, v: str) -> str:
    """CUDA C expression converting ``v`` (as ``load`` returns it) from ``src`` to ``dst``.

    Examples:
        >>> conv("float32", "int64", "v"), conv("int32", "bool", "v")
        ('em_f2l_f(v)', '(v != 0)')
    """
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


def cast_source(src: str) -> str:
    """The module converting ``src`` elements to every other dtype (kernels ``c_<dst>``)."""
    parts = []
    for dst in DTYPES:
        if dst == src:
            continue
        v = conv(src, dst, load(src, "p_a", "i_a"))
        parts.append(
            f'extern "C" __global__ void c_{dst}(const i64 n, const int nd, const i64* meta, '
            f"{CTYPE[dst]}* p_o, const {CTYPE[src]}* p_a)\n{{\n"
            f"    i64 i = EM_GID; if (i >= n) return;\n"
            f"    {index_code(['o', 'a'])}\n    {store(dst, 'p_o', 'i_o', v)}\n}}\n"
        )
    return "\n".join(parts)


def move_source(isz: int) -> str:
    """The module moving (``mv``) and filling (``fill``) elements of ``isz`` bytes as bits."""
    T = UTYPE[isz]
    return (
        'extern "C" __global__ void mv(const i64 n, const int nd, const i64* meta, '
        f"{T}* p_o, const {T}* p_a)\n"
        "{\n    i64 i = EM_GID; if (i >= n) return;\n"
        f"    {index_code(['o', 'a'])}\n    p_o[i_o] = p_a[i_a];\n}}\n"
        'extern "C" __global__ void fill(const i64 n, const int nd, const i64* meta, '
        f"{T}* p_o, const u64 bits)\n"
        "{\n    i64 i = EM_GID; if (i >= n) return;\n"
        f"    {index_code(['o'])}\n    p_o[i_o] = ({T})bits;\n}}\n"
    )


def copy(out: Any, src: Any) -> None:
    """out[...] = src converted to out's dtype; same shape (src may be broadcast)."""
    dev = device_of(out)
    if src._device != out._device:  # between two GPUs: peer copy through a contiguous staging
        src = _to_device(src, out)
    n, nd, meta = plan(out, src)
    if n == 0:
        return
    sd, dd = src._dtype.name, out._dtype.name
    if sd == dd:
        isz = out._dtype.itemsize
        if nd == 0:
            with dev.device:
                dev.cp.cuda.runtime.memcpyAsync(
                    int(ptr(out)), int(ptr(src)), n * isz, 3, dev.stream().ptr
                )
            return
        k = dev.function(("move", isz), "mv", partial(move_source, isz))
    else:
        k = dev.function(("cast", sd), f"c_{dd}", partial(cast_source, sd))
    dev.launch(k, n, np.int64(n), np.int32(nd), dev.meta(meta), ptr(out), ptr(src))


def _to_device(src: Any, like: Any) -> Any:
    """``src`` (on another GPU) as a contiguous tensor on ``like``'s device."""
    import ember

    c = src.contiguous()
    dst = ember.empty(tuple(c._shape), dtype=c._dtype, device=like.device)
    nbytes = c.numel() * c._dtype.itemsize
    if nbytes:
        cp = device_of(like).cp
        cp.cuda.runtime.memcpyPeer(
            int(ptr(dst)), like._device.index or 0, int(ptr(c)), c._device.index or 0, nbytes
        )
    return dst


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


def bf16_bits(v: float) -> int:
    """The bfloat16 bit pattern of ``v`` (round to nearest even).

    Examples:
        >>> hex(bf16_bits(1.0))
        '0x3f80'
    """
    u = int(np.array(v, np.float32).view(np.uint32))
    if v != v:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def fill_bits(dt: str, value: Any) -> int:
    """The bit pattern of ``value`` as one element of ``dt``, with PyTorch's overflow checks.

    Examples:
        >>> fill_bits("int8", -1), fill_bits("float16", 1.0)
        (255, 15360)
        >>> fill_bits("int8", 300)
        Traceback (most recent call last):
        RuntimeError: value cannot be converted to type int8_t without overflow
    """
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
        return bf16_bits(fv)
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
    k = dev.function(("move", isz), "fill", partial(move_source, isz))
    dev.launch(k, n, np.int64(n), np.int32(nd), dev.meta(meta), ptr(out), np.uint64(bits))


def kernels() -> dict[str, Any]:
    return {"copy_.default": copy, "fill_.Scalar": fill}
