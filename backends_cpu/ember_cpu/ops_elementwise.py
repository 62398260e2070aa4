"""Elementwise kernels: ``unary``, ``binary``, ``where``.

The core has already broadcast inputs to ``out``'s shape (stride-0 views),
cast them to the compute dtype and allocated ``out``; these functions only
pick the C kernel and describe the memory layout to it.
"""

from __future__ import annotations

from ._common import _CONTIG, NULL, SPECS, contig_info, ffi, lib, plan, raise_error, unsupported
from ._common import SHORT as _SHORT

__all__ = ["unary", "binary", "where", "UNARY_OPS", "BINARY_OPS"]

_FLOATS = ("float32", "float64")


def _table(prefix, family):
    return {
        (op, dt): getattr(lib, f"em_{prefix}_{op}_{_SHORT[dt]}")
        for op, dts in SPECS[family].items()
        for dt in dts
    }


_UN = _table("u", "unary")
_BIN = _table("b", "binary")
_BINA = _table("ba", "binary_alpha")
_WHERE = {isz: getattr(lib, f"em_w_where_{isz}") for isz in SPECS["where"]}

#: op -> tuple of supported input dtype names
UNARY_OPS = {op: tuple(dts) for op, dts in SPECS["unary"].items()}
BINARY_OPS = {op: tuple(dts) for op, dts in SPECS["binary"].items()}


def unary(op: str, out, a) -> None:
    """out = op(a); out has a's shape; dtype == a's (bool for predicates)."""
    fn = _UN.get((op, a._dtype.name))
    if fn is None:
        raise unsupported(op, a._dtype.name)
    shape = out._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    n = ci[1]
    if n == 0:
        return
    so = out._storage
    ho = so.handle
    if ho is None:
        ho = so.handle = ffi.from_buffer(so.data)
    sa = a._storage
    ha = sa.handle
    if ha is None:
        ha = sa.handle = ffi.from_buffer(sa.data)
    cs = ci[0]
    if out._stride == cs and a._stride == cs:
        rc = fn(n, 0, NULL, ho, out._offset, ha, a._offset)
    else:
        nd, meta = plan(shape, out._stride, a._stride)
        rc = fn(n, nd, meta, ho, out._offset, ha, a._offset)
    if rc:
        raise_error(rc)


def binary(op: str, out, a, b, alpha=1) -> None:
    """out = op(a, b) (for add/sub: a +/- alpha*b); a, b share the compute
    dtype and out's shape."""
    dt = a._dtype.name
    if alpha == 1:
        fn = _BIN.get((op, dt))
        if fn is None:
            raise unsupported(op, dt)
        extra = None
    else:
        fn = _BINA.get((op, dt))
        if fn is None:
            if (op, dt) in _BIN and op in ("add", "sub"):
                raise unsupported(op + " with alpha", dt)
            raise unsupported(op, dt)
        if dt in _FLOATS:
            extra = float(alpha)
        elif isinstance(alpha, float):
            raise RuntimeError(
                "For integral input tensors, argument alpha must not be a floating point number."
            )
        else:
            extra = int(alpha)
    shape = out._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    n = ci[1]
    if n == 0:
        return
    so = out._storage
    ho = so.handle
    if ho is None:
        ho = so.handle = ffi.from_buffer(so.data)
    sa = a._storage
    ha = sa.handle
    if ha is None:
        ha = sa.handle = ffi.from_buffer(sa.data)
    sb = b._storage
    hb = sb.handle
    if hb is None:
        hb = sb.handle = ffi.from_buffer(sb.data)
    cs = ci[0]
    ost, ast, bst = out._stride, a._stride, b._stride
    if ost == cs and ast == cs:
        if bst == cs:
            nd, meta = 0, NULL
        elif bst == ci[2]:
            nd, meta = -1, NULL
        else:
            nd, meta = plan(shape, ost, ast, bst)
    elif ost == cs and bst == cs and ast == ci[2]:
        nd, meta = -2, NULL
    else:
        nd, meta = plan(shape, ost, ast, bst)
    if extra is None:
        rc = fn(n, nd, meta, ho, out._offset, ha, a._offset, hb, b._offset)
    else:
        rc = fn(n, nd, meta, ho, out._offset, ha, a._offset, hb, b._offset, extra)
    if rc:
        raise_error(rc)


def where(out, cond, a, b) -> None:
    """out = cond ? a : b; cond bool, a/b/out one dtype (any of the 10)."""
    fn = _WHERE.get(out._dtype.itemsize)
    if fn is None:
        raise unsupported("where", out._dtype.name)
    if cond._dtype.name != "bool":
        raise unsupported("where (condition)", cond._dtype.name)
    shape = out._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    n = ci[1]
    if n == 0:
        return
    hs = []
    for t in (out, cond, a, b):
        st = t._storage
        h = st.handle
        if h is None:
            h = st.handle = ffi.from_buffer(st.data)
        hs.append(h)
    cs = ci[0]
    if out._stride == cs and cond._stride == cs and a._stride == cs and b._stride == cs:
        nd, meta = 0, NULL
    else:
        nd, meta = plan(shape, out._stride, cond._stride, a._stride, b._stride)
    rc = fn(
        n, nd, meta, hs[0], out._offset, hs[1], cond._offset, hs[2], a._offset, hs[3], b._offset
    )
    if rc:
        raise_error(rc)
