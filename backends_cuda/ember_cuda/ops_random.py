# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""Random primitives on the device: uniform_, normal_, random_.from, from Philox4x32-10.

Element ``i`` of a call takes the 128 random bits of Philox(key = seed, counter =
(i, offset)); the generator's offset advances by one per call. The numbers therefore
depend only on the seed, the call sequence and the element index: the same seed gives
the same tensor on the same device, whatever the launch geometry. Values are generated
into a contiguous float/double (int64 for random_) buffer and written into ``out``
through the cast kernel when ``out`` is strided or of another dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember_cuda._runtime import device_of, ptr
from ember_cuda.ops_copy import copy

__all__ = ["uniform_", "normal_", "random_", "kernels", "PHILOX", "source"]

PHILOX = r"""
static __device__ __forceinline__ uint4 em_philox(uint4 c, uint2 k)
{
    for (int r = 0; r < 10; ++r) {
        uint lo0 = 0xD2511F53u * c.x, hi0 = __umulhi(0xD2511F53u, c.x);
        uint lo1 = 0xCD9E8D57u * c.z, hi1 = __umulhi(0xCD9E8D57u, c.z);
        c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
        k.x += 0x9E3779B9u; k.y += 0xBB67AE85u;
    }
    return c;
}
#define EM_BITS uint4 u = em_philox(make_uint4((uint)i, (uint)(i >> 32), (uint)off, (uint)(off >> 32)), make_uint2((uint)seed, (uint)(seed >> 32)))
#define EM_U53(a, b) ((((double)((a) >> 5)) * 67108864.0 + (double)((b) >> 6)) * 0x1p-53)
"""


def source() -> str:
    """The random module (kernels uniform_f, uniform_d, normal_f, normal_d, random_l)."""
    head = 'extern "C" __global__ void {name}(const i64 n, {T}* o, const u64 seed, const u64 off, '
    return (
        PHILOX
        + head.format(name="uniform_f", T="float")
        + """const double lo, const double span)
{
    i64 i = EM_GID; if (i >= n) return; EM_BITS;
    o[i] = (float)((float)(u.x >> 8) * 0x1p-24f * (float)span + (float)lo);
}
"""
        + head.format(name="uniform_d", T="double")
        + """const double lo, const double span)
{
    i64 i = EM_GID; if (i >= n) return; EM_BITS;
    o[i] = EM_U53(u.x, u.y) * span + lo;
}
"""
        + head.format(name="normal_f", T="float")
        + """const double mean, const double std)
{
    i64 i = EM_GID; if (i >= n) return; EM_BITS;
    float u1 = 1.0f - (float)(u.x >> 8) * 0x1p-24f, u2 = (float)(u.z >> 8) * 0x1p-24f;
    o[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2) * (float)std + (float)mean;
}
"""
        + head.format(name="normal_d", T="double")
        + """const double mean, const double std)
{
    i64 i = EM_GID; if (i >= n) return; EM_BITS;
    double u1 = 1.0 - EM_U53(u.x, u.y), u2 = EM_U53(u.z, u.w);
    o[i] = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2) * std + mean;
}
"""
        + head.format(name="random_l", T="i64")
        + """const i64 lo, const u64 span)
{
    i64 i = EM_GID; if (i >= n) return; EM_BITS;
    u64 x = ((u64)u.x << 32) | (u64)u.y;
    o[i] = lo + (i64)__umul64hi(x, span);
}
"""
    )


def _run(out: Any, kname: str, dtype: str, gen: Any, scalars: tuple) -> None:
    import ember

    dev = device_of(out)
    n = out.numel()
    if n == 0:
        return
    direct = out._dtype.name == dtype and out.is_contiguous()
    tmp = (
        out
        if direct
        else ember.empty(tuple(out._shape), dtype=getattr(ember, dtype), device=out.device)
    )
    k = dev.function(("random",), kname, source)
    seed, off = np.uint64(gen.initial_seed()), np.uint64(gen.next_offset())
    dev.launch(k, n, np.int64(n), ptr(tmp), seed, off, *scalars)
    if not direct:
        copy(out, tmp)


def uniform_(out: Any, low: float, high: float, gen: Any) -> None:
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    kn, dt = ("uniform_d", "float64") if out._dtype.name == "float64" else ("uniform_f", "float32")
    _run(out, kn, dt, gen, (np.float64(low), np.float64(float(high) - float(low))))


def normal_(out: Any, mean: float, std: float, gen: Any) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    kn, dt = ("normal_d", "float64") if out._dtype.name == "float64" else ("normal_f", "float32")
    _run(out, kn, dt, gen, (np.float64(mean), np.float64(std)))


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
    _run(out, "random_l", "int64", gen, (np.int64(low), np.uint64(high - low)))


def kernels() -> dict[str, Any]:
    return {"uniform_.default": uniform_, "normal_.default": normal_, "random_.from": random_}
