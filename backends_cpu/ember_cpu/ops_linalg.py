"""Batched matrix multiply: ``bmm(out, a, b)`` with out (B, M, N), a (B, M, K),
b (B, K, N), one dtype, any strides (batch strides may be 0).

float32 / float64 go to OpenBLAS ``scipy_cblas_{s,d}gemm`` (operands that are
row- or column-contiguous are passed with the matching transpose flag, others
are packed to a contiguous temporary in C); tiny products (M*N*K <= 4096) and
integer dtypes use a blocked C loop (OpenMP over batches x row blocks;
integer accumulation wraps like torch).  K == 0 gives zeros.
"""

from __future__ import annotations

from ._common import SHORT as _SHORT
from ._common import SPECS, ffi, lib, raise_error, unsupported

__all__ = ["bmm", "BMM_DTYPES"]

_BMM = {dt: getattr(lib, f"em_bmm_{_SHORT[dt]}") for dt in SPECS["bmm"]}
BMM_DTYPES = tuple(SPECS["bmm"])


def bmm(out, a, b) -> None:
    dt = a._dtype.name
    fn = _BMM.get(dt)
    if fn is None:
        raise unsupported("bmm", dt)
    B, M, N = out._shape
    K = a._shape[2]
    if B == 0 or M == 0 or N == 0:
        return
    hs = []
    for t in (out, a, b):
        st = t._storage
        h = st.handle
        if h is None:
            h = st.handle = ffi.from_buffer(st.data)
        hs.append(h)
    rc = fn(
        B,
        M,
        N,
        K,
        out._stride + a._stride + b._stride,
        hs[0],
        out._offset,
        hs[1],
        a._offset,
        hs[2],
        b._offset,
    )
    if rc:
        raise_error(rc)
