# ruff: noqa: E501  (embedded OpenCL C keeps its natural line length)
"""Random primitives on the device: uniform_, normal_, random_.from, from Philox4x32-10.

Element ``i`` of a call takes the 128 random bits of Philox(key = seed,
counter = (i, offset)); the generator's offset advances by one per call. The
numbers therefore depend only on the seed, the call sequence and the element
index: the same seed gives the same tensor on the same device, whatever the
launch geometry. Values are generated into a contiguous buffer of float/double
(int64 for random_) and written into ``out`` through the cast kernel when
``out`` is strided or of another dtype.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_opencl._runtime import device_of
from ember_opencl.ops_copy import copy

__all__ = ["uniform_", "normal_", "random_", "kernels", "PHILOX"]

PHILOX = r"""
static inline uint4 em_philox(uint4 c, uint2 k)
{
    for (int r = 0; r < 10; ++r) {
        uint lo0 = 0xD2511F53u * c.x, hi0 = mul_hi(0xD2511F53u, c.x);
        uint lo1 = 0xCD9E8D57u * c.z, hi1 = mul_hi(0xCD9E8D57u, c.z);
        c = (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
        k += (uint2)(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}
#define EM_BITS uint4 u = em_philox((uint4)((uint)i, (uint)(i >> 32), (uint)off, (uint)(off >> 32)), (uint2)((uint)seed, (uint)(seed >> 32)))
"""


def _source(fp64: bool) -> str:
    F = "double" if fp64 else "float"
    u53 = (
        "(((double)(u.x >> 5) * 67108864.0 + (double)(u.y >> 6)) * 0x1p-53)"
        if fp64
        else "((float)(u.x >> 8) * 0x1p-24f)"
    )
    u53b = (
        "(((double)(u.z >> 5) * 67108864.0 + (double)(u.w >> 6)) * 0x1p-53)"
        if fp64
        else "((float)(u.z >> 8) * 0x1p-24f)"
    )
    head = "const long n, __global {T}* o, const ulong seed, const ulong off"
    return (
        PHILOX
        + f"""
__kernel void uniform_f({head.format(T="float")}, const double lo, const double span)
{{
    long i = get_global_id(0); if (i >= n) return; EM_BITS;
    o[i] = (float)((float)(u.x >> 8) * 0x1p-24f * (float)span + (float)lo);
}}
__kernel void normal_f({head.format(T=F)}, const double mean, const double std)
{{
    long i = get_global_id(0); if (i >= n) return; EM_BITS;
    {F} u1 = ({F})1 - {u53}, u2 = {u53b};
    o[i] = ({F})(sqrt(({F})-2 * log(u1)) * cospi(({F})2 * u2) * ({F})std + ({F})mean);
}}
__kernel void random_l({head.format(T="long")}, const long lo, const ulong span)
{{
    long i = get_global_id(0); if (i >= n) return; EM_BITS;
    ulong x = ((ulong)u.x << 32) | (ulong)u.y;
    o[i] = lo + (long)mul_hi(x, span);
}}
"""
        + (
            f"""
__kernel void uniform_d({head.format(T="double")}, const double lo, const double span)
{{
    long i = get_global_id(0); if (i >= n) return; EM_BITS;
    o[i] = {u53} * span + lo;
}}
"""
            if fp64
            else ""
        )
    )


def _run(out: Any, kname: str, dtype: str, gen: Any, scalars: tuple, sc_types: list) -> None:
    import ember

    dev = device_of(out)
    n = out.numel()
    if n == 0:
        return
    isz = np.dtype(dtype).itemsize
    direct = out._dtype.name == dtype and out.is_contiguous()
    if direct:
        block, off = out._storage.data, out._offset
    else:
        tmp = ember.empty(tuple(out._shape), dtype=getattr(ember, dtype), device=out.device)
        block, off = tmp._storage.data, 0
    argtypes = [np.int64, None, np.uint64, np.uint64, *sc_types]
    k = dev.kernel(("random", dev.fp64), kname, partial(_source, dev.fp64), argtypes)
    if off:
        sub = dev.allocator.allocate(n * isz)
        dev.launch(k, n, n, sub.buf, gen.initial_seed(), gen.next_offset(), *scalars)
        dev.copy_device(block, off * isz, sub, 0, n * isz)
    else:
        dev.launch(k, n, n, block.buf, gen.initial_seed(), gen.next_offset(), *scalars)
    if not direct:
        copy(out, tmp)


def uniform_(out: Any, low: float, high: float, gen: Any) -> None:
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    dev = device_of(out)
    if out._dtype.name == "float64" or (dev.fp64 and out._dtype.name != "float32"):
        kn, dt = "uniform_d", "float64"
    else:
        kn, dt = "uniform_f", "float32"
    _run(out, kn, dt, gen, (float(low), float(high) - float(low)), [np.float64, np.float64])


def normal_(out: Any, mean: float, std: float, gen: Any) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    dt = "float64" if device_of(out).fp64 else "float32"
    _run(out, "normal_f", dt, gen, (float(mean), float(std)), [np.float64, np.float64])


_INT_RANGE = {
    "bool": (0, 2),
    "uint8": (0, 256),
    "int8": (-128, 128),
    "int16": (-(2**15), 2**15),
    "int32": (-(2**31), 2**31),
    "int64": (-(2**63), 2**63 - 1),
    "float16": (-(2**11), 2**11 + 1),
    "bfloat16": (-(2**8), 2**8 + 1),
    "float32": (-(2**24), 2**24 + 1),
    "float64": (-(2**53), 2**53 + 1),
}


def random_(out: Any, low: int, high: int | None, gen: Any) -> None:
    lo, hi = _INT_RANGE[out._dtype.name]
    if high is None:
        low, high = max(low, lo), hi
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    _run(out, "random_l", "int64", gen, (int(low), int(high - low)), [np.int64, np.uint64])


def kernels() -> dict[str, Any]:
    return {"uniform_.default": uniform_, "normal_.default": normal_, "random_.from": random_}
