"""Reductions: sum, prod, mean, amax, amin, argmax, argmin, all, any.

``out`` has the keepdim shape (reduced dims have size 1); ``dims`` are the
reduced dims.  sum/prod/mean/amax/amin keep the input dtype (the core casts
beforehand), argmax/argmin write int64, all/any write bool.

Accumulation: float32 sums/means accumulate in float SIMD lanes inside blocks of 1024
elements and in float64 across blocks (a 16M-element float32 sum lands within ~2e-8
relative of the exact value, torch's cascade within ~4e-8); float64 in float64;
integers in int64 (wrapping); products in float64. Contiguous segments are folded by
``omp simd`` reductions, blocks combined sequentially. Rows (a reduced contiguous last
dim under one kept dim: ``sum(-1)`` of a matrix) go to a per-op row loop with the fold
inlined. Reductions over an outer dim sweep rows into blocks of 256 accumulators.
"""

from __future__ import annotations

from ._common import _CONTIG, SPECS, contig_info, ffi, lib, raise_error, reduce_plan, unsupported
from ._common import SHORT as _SHORT
from .ops_copy import fill

__all__ = ["reduce", "REDUCE_OPS"]

_RED = {
    (op, dt): getattr(lib, f"em_r_{op}_{_SHORT[dt]}")
    for op, dts in SPECS["reduce"].items()
    for dt in dts
}
REDUCE_OPS = {op: tuple(dts) for op, dts in SPECS["reduce"].items()}

_EMPTY = {"sum": 0, "prod": 1, "mean": float("nan"), "all": True, "any": False}


def reduce(op: str, out, a, dims) -> None:
    dt = a._dtype.name
    fn = _RED.get((op, dt))
    if fn is None:
        raise unsupported(op, dt)
    shape = a._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    oci = _CONTIG.get(out._shape) or contig_info(out._shape)
    if oci[1] == 0:
        return
    if ci[1] == 0:
        if op not in _EMPTY:
            raise RuntimeError(f"ember_cpu: {op} of an empty tensor")
        fill(out, _EMPTY[op])
        return
    so = out._storage
    ho = so.handle
    if ho is None:
        ho = so.handle = ffi.from_buffer(so.data)
    sa = a._storage
    ha = sa.handle
    if ha is None:
        ha = sa.handle = ffi.from_buffer(sa.data)
    ndim = len(shape)
    if len(dims) == ndim and a._stride == ci[0]:
        # full reduction of a contiguous tensor: one contiguous segment
        rc = fn(1, (ci[1], 1, 0), ho, out._offset, ha, a._offset)
    else:
        if dims and (dims[0] < 0 or dims[-1] < 0):
            dims = tuple(sorted(d % ndim for d in dims))
        ost = out._stride
        if len(ost) != ndim:  # out given without the kept size-1 dims
            it = iter(ost)
            ost = tuple(0 if d in dims else next(it) for d in range(ndim))
        nd, meta = reduce_plan(shape, a._stride, ost, tuple(dims))
        rc = fn(nd, meta, ho, out._offset, ha, a._offset)
    if rc:
        raise_error(rc)
