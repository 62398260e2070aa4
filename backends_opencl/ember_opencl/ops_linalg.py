"""bmm as a tiled kernel: out[b] = a[b] @ mat2[b] on (B,M,N) = (B,M,K) x (B,K,N).

Each work-group computes a TS x TS tile of one batch's output; every K step it
stages a TS x TS tile of ``a`` and of ``mat2`` in local memory (so each global
element is read M/TS or N/TS times instead of M or N times), then every
work-item accumulates its dot product from local memory. Inputs may be strided
(any batch/row/column strides, broadcast batches included). float32 accumulates
in float32 (as BLAS does), integers in their own type with wraparound.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_opencl._runtime import CTYPE, device_of

__all__ = ["bmm", "kernels", "TS"]

TS = 16
_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")


def _source(dt: str) -> str:
    T = CTYPE[dt]
    return f"""
__kernel void bmm(const long M, const long N, const long K,
                  __global {T}* o, const long o_off, const long osb, const long osm, const long osn,
                  __global const {T}* a, const long a_off, const long asb, const long asm_, const long ask,
                  __global const {T}* b, const long b_off, const long bsb, const long bsk, const long bsn)
{{
    __local {T} ta[{TS}][{TS}];
    __local {T} tb[{TS}][{TS}];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const long n = get_group_id(0) * {TS} + tx, m = get_group_id(1) * {TS} + ty;
    const long z = get_global_id(2);
    a += a_off + z * asb; b += b_off + z * bsb;
    {T} acc = 0;
    for (long k0 = 0; k0 < K; k0 += {TS}) {{
        long ka = k0 + tx, kb = k0 + ty;
        ta[ty][tx] = (m < M && ka < K) ? a[m * asm_ + ka * ask] : ({T})0;
        tb[ty][tx] = (kb < K && n < N) ? b[kb * bsk + n * bsn] : ({T})0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < {TS}; ++k) acc += ta[ty][k] * tb[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (m < M && n < N) o[o_off + z * osb + m * osm + n * osn] = ({T})acc;
}}
"""  # noqa: E501


_ARGS = [np.int64] * 3 + ([None] + [np.int64] * 4) * 3


def bmm(out: Any, a: Any, b: Any) -> None:
    dt = out._dtype.name
    if dt not in _DTYPES:
        raise TypeError(f"ember_opencl: 'bmm' is not implemented for {dt}")
    B, M, N = out._shape
    K = a._shape[2]
    if B == 0 or M == 0 or N == 0:
        return
    dev = device_of(out)
    if K == 0:
        from ember_opencl.ops_copy import fill

        fill(out, 0)
        return
    k = dev.kernel(("bmm", dt), "bmm", partial(_source, dt), _ARGS)
    gs = (-(-N // TS) * TS, -(-M // TS) * TS, B)
    dev.launch_nd(
        k,
        gs,
        (TS, TS, 1),
        M,
        N,
        K,
        out._storage.data.buf,
        out._offset,
        *out._stride,
        a._storage.data.buf,
        a._offset,
        *a._stride,
        b._storage.data.buf,
        b._offset,
        *b._stride,
    )


def kernels() -> dict[str, Any]:
    return {"bmm.default": bmm}
