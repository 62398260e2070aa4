"""Copy / cast / fill kernels.

Cast rules (checked against torch 2.x on x86-64):
  * float -> int64 / int32: truncation toward zero; NaN, +-inf and out-of-range
    values give INT64_MIN / INT32_MIN (the x86 'integer indefinite' value);
  * float -> int16 / int8 / uint8: truncated to int32 as above, then wrapped
    (-1.5 -> uint8 255, 300.0 -> uint8 44, NaN -> 0);
  * float -> bool: ``x != 0`` (NaN -> True);
  * int -> narrower int: wraparound;
  * float64 / int -> float16 / bfloat16: via float32 (as torch: double
    rounding), round-to-nearest-even, overflow -> inf;
  * NaN -> float16: quiet NaN keeping sign and the top payload bits (the x86
    F16C pattern, as torch); NaN -> bfloat16: quiet NaN keeping sign
    (torch's vectorised path writes 0xFFFF instead: both are NaN);
    float16 NaN -> float32: quiet NaN keeping sign/payload (torch gives
    0x7FFFFFFF: both are NaN); bfloat16 -> float32 is exact (bit shift).
"""

from __future__ import annotations

import math

import numpy as np

from ._common import _CONTIG, NULL, SPECS, contig_info, ffi, lib, plan, raise_error, unsupported
from ._common import SHORT as _SHORT

__all__ = ["copy", "fill"]

_CAST = {(s, d): getattr(lib, f"em_x_{_SHORT[s]}_{_SHORT[d]}") for s, d in SPECS["cast"]}
_COPY = {isz: getattr(lib, f"em_c_copy_{isz}") for isz in SPECS["copy"]}
_FILL = {dt: getattr(lib, f"em_fill_{_SHORT[dt]}") for dt in SPECS["fill"]}


def copy(out, src) -> None:
    """out[...] = src converted to out's dtype; same shape (src may have
    stride-0 dims); both sides arbitrarily strided."""
    sd, dd = src._dtype.name, out._dtype.name
    if sd == dd:
        fn = _COPY[out._dtype.itemsize]
    else:
        fn = _CAST.get((sd, dd))
        if fn is None:
            raise unsupported(f"copy {sd} ->", dd)
    shape = out._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    n = ci[1]
    if n == 0:
        return
    so = out._storage
    ho = so.handle
    if ho is None:
        ho = so.handle = ffi.from_buffer(so.data)
    ss = src._storage
    hs = ss.handle
    if hs is None:
        hs = ss.handle = ffi.from_buffer(ss.data)
    cs = ci[0]
    if out._stride == cs and src._stride == cs:
        rc = fn(n, 0, NULL, ho, out._offset, hs, src._offset)
    else:
        nd, meta = plan(shape, out._stride, src._stride)
        rc = fn(n, nd, meta, ho, out._offset, hs, src._offset)
    if rc:
        raise_error(rc)


# torch's overflow check for fill_ / full (value -> dtype)
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
    "uint8": (0, 255),
    "int8": (-128, 127),
    "int16": (-32768, 32767),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
_FMAX = {
    "float16": 65504.0,
    "bfloat16": 3.3895313892515355e38,
    "float32": 3.4028234663852886e38,
    "float64": math.inf,
}


def _overflow(dt):
    return RuntimeError(f"value cannot be converted to type {_CNAME[dt]} without overflow")


def _from_int(dt, v):
    if not (-(2**63) <= v < 2**64):
        raise OverflowError("int too big to convert")
    if dt == "bool":
        return 0.0, int(v != 0), 1
    r = _IRANGE.get(dt)
    if r is not None:
        lo, hi = r
        if dt == "uint8":
            lo = -hi  # torch accepts -255..255 for uint8 (wraps)
        if not lo <= v <= hi:
            raise _overflow(dt)
        return 0.0, v, 1
    if abs(v) > _FMAX[dt]:
        raise _overflow(dt)
    if v >= 2**63:
        return float(v), 0, 0
    return 0.0, v, 1


def _from_float(dt, v):
    if dt == "bool":
        return v, 0, 0
    r = _IRANGE.get(dt)
    if r is not None:
        if not (r[0] <= v <= r[1]):  # also rejects NaN / inf
            raise _overflow(dt)
        return v, 0, 0
    if math.isfinite(v) and abs(v) > _FMAX[dt]:
        raise _overflow(dt)
    return v, 0, 0


def _scalar_args(dt, value):
    """(fv, iv, use_int) for em_fill_*, with torch's overflow checks."""
    if type(value) is float:
        return _from_float(dt, value)
    if type(value) is int:
        return _from_int(dt, value)
    if isinstance(value, (bool, np.bool_)):
        return 0.0, int(bool(value)), 1
    if isinstance(value, (int, np.integer)):
        return _from_int(dt, int(value))
    if isinstance(value, (float, np.floating)):
        return _from_float(dt, float(value))
    raise TypeError(f"ember_cpu: fill value must be bool, int or float, got {type(value).__name__}")


def fill(out, value) -> None:
    """out[...] = value (bool/int/float, converted like torch's fill_)."""
    dt = out._dtype.name
    fn = _FILL.get(dt)
    if fn is None:
        raise unsupported("fill", dt)
    fv, iv, use_int = _scalar_args(dt, value)
    shape = out._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    n = ci[1]
    if n == 0:
        return
    so = out._storage
    ho = so.handle
    if ho is None:
        ho = so.handle = ffi.from_buffer(so.data)
    if out._stride == ci[0]:
        rc = fn(n, 0, NULL, ho, out._offset, fv, iv, use_int)
    else:
        nd, meta = plan(shape, out._stride)
        rc = fn(n, nd, meta, ho, out._offset, fv, iv, use_int)
    if rc:
        raise_error(rc)
