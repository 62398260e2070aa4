"""Shared plumbing of the kernel wrappers: the compiled module, storage
handles, contiguity caches and dimension coalescing.

Tensors handed to kernels only need ``_storage`` (with ``.data``, a 1-D uint8
numpy array, and a ``.handle`` slot initialised to None), ``_shape``,
``_stride`` (elements), ``_offset`` (elements) and ``_dtype`` (with ``.name``
and ``.itemsize``).  Nothing here imports ember.
"""

from __future__ import annotations

import json

from ._tuning import blas_core

with blas_core():  # Note [BLAS kernel set]: OpenBLAS picks its kernels when it loads
    try:
        from ._C import ffi, lib
    except ImportError as _exc:  # pragma: no cover - only when the rpath does not resolve
        if "openblas" not in str(_exc):
            raise
        import ctypes
        import os

        import scipy_openblas32 as _ob

        ctypes.CDLL(
            os.path.join(_ob.get_lib_dir(), _ob.get_library(fullname=True)),
            mode=ctypes.RTLD_GLOBAL,
        )
        from ._C import ffi, lib

__all__ = [
    "SHORT",
    "ffi",
    "lib",
    "NULL",
    "SPECS",
    "handle",
    "contig_info",
    "plan",
    "unsupported",
    "ERRORS",
    "raise_error",
    "num_threads",
    "set_num_threads",
]

# bmm runs OpenBLAS single-threaded inside its own OpenMP regions: one thread pool
# (see em_blas_init in _build.py).
lib.em_blas_init()

NULL = ffi.NULL
#: what the compiled module implements: {"unary": {op: [dtype, ...]}, ...}
SPECS = json.loads(ffi.string(lib.em_specs()).decode())

ERRORS = {
    1: "ZeroDivisionError",
    2: "ember_cpu: out of memory",
    3: "ember_cpu: too many dimensions after coalescing (max 64)",
}

#: dtype name -> the suffix of its C kernels (em_b_add_f32, em_x_f16_f32, ...).
SHORT = {
    "bool": "b",
    "uint8": "u8",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
}


def raise_error(rc: int) -> None:
    if rc == 2:
        raise MemoryError(ERRORS[2])
    raise RuntimeError(ERRORS.get(rc, f"ember_cpu: kernel error {rc}"))


def unsupported(op: str, dtype_name: str) -> TypeError:
    return TypeError(f"ember_cpu: {op!r} is not implemented for {dtype_name}")


def handle(t):
    """Cached ``char[]`` cdata over the tensor's storage bytes."""
    st = t._storage
    h = st.handle
    if h is None:
        h = st.handle = ffi.from_buffer(st.data)
    return h


def num_threads() -> int:
    return lib.em_num_threads()


def set_num_threads(n: int) -> None:
    lib.em_set_num_threads(int(n))


# ---------------------------------------------------------------------------
# shape -> (contiguous strides, numel, all-zero strides)
_CONTIG: dict = {}


def contig_info(shape):
    r = _CONTIG.get(shape)
    if r is None:
        st = []
        acc = 1
        for s in reversed(shape):
            st.append(acc)
            acc *= s
        if len(_CONTIG) > 8192:
            _CONTIG.clear()
        r = _CONTIG[shape] = (tuple(reversed(st)), acc, (0,) * len(shape))
    return r


# ---------------------------------------------------------------------------
# coalescing
_PLANS: dict = {}


def _coalesce(shape, strides, reorder):
    """Drop size-1 dims and merge adjacent dims that are contiguous with
    respect to each other for every operand.  With ``reorder`` the dims are
    first sorted by operand 0's strides (descending), i.e. iterated in the
    memory order of the output.  Returns (shape, [strides per operand])."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if reorder and len(dims) > 1:
        s0 = strides[0]
        if any(s0[dims[i]] < s0[dims[i + 1]] for i in range(len(dims) - 1)):
            dims.sort(key=lambda d: -s0[d])
    out_shape = []
    out_st = [[] for _ in strides]
    for d in dims:
        n = shape[d]
        if out_shape and all(ost[-1] == st[d] * n for ost, st in zip(out_st, strides)):
            out_shape[-1] *= n
            for ost, st in zip(out_st, strides):
                ost[-1] = st[d]
        else:
            out_shape.append(n)
            for ost, st in zip(out_st, strides):
                ost.append(st[d])
    return out_shape, out_st


def plan(shape, *strides):
    """(nd, meta) for the C drivers; nd == 0 means 'all contiguous'
    (meta is then NULL and the caller passes numel)."""
    key = (shape,) + strides
    r = _PLANS.get(key)
    if r is None:
        sh, sts = _coalesce(shape, strides, True)
        if not sh:
            r = (0, NULL)
        elif len(sh) == 1 and all(s[0] == 1 for s in sts):
            r = (0, NULL)
        else:
            meta = tuple(sh)
            for s in sts:
                meta += tuple(s)
            r = (len(sh), meta)
        if len(_PLANS) > 8192:
            _PLANS.clear()
        _PLANS[key] = r
    return r


def reduce_plan(shape, a_stride, o_stride, dims):
    """Coalesced (nd, meta) for a reduction: meta = shape + a strides + out
    strides, with out stride 0 on reduced dims.  Dim order is kept (argmax
    indices are C-order linear indices over the reduced dims)."""
    key = (shape, a_stride, o_stride, dims)
    r = _PLANS.get(key)
    if r is None:
        ost = list(o_stride)
        for d in dims:
            ost[d] = 0
        sh, (sa, so) = _coalesce(shape, (a_stride, tuple(ost)), False)
        if not any(s == 0 for s in so):
            sh.append(1)
            sa.append(0)
            so.append(0)
        r = (len(sh), tuple(sh) + tuple(sa) + tuple(so))
        if len(_PLANS) > 8192:
            _PLANS.clear()
        _PLANS[key] = r
    return r
