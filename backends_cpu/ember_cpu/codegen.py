"""C code generation for the compiler's fused kernels: the CPU's ``compile_kernel(s)``.

Owns: turning ``ember.compiler.kernel.FusedKernel``s into one C translation unit, building
it into a shared library with the toolchain and flags of the package's own kernels
(``_build.compile_args()``), loading it through CFFI's ABI mode (``ffi.dlopen``), the disk
and in-process caches of those libraries, and the ``fn(inputs, outputs)`` wrappers around
the generated functions (Note [Fused kernels] in ``ember.compiler.kernel``).

What always holds:

- the C expressions are those of ``_build.py`` (its UNARY/BINARY tables, ``conv`` and the
  helpers of ``csrc/em_common.h``), so a fused kernel computes what eager ember computes;
  ``EXTRA`` holds the few operators those tables lack;
- a kernel this module cannot generate (an operator or dtype outside the tables) or
  cannot build (no compiler, a compiler error: warned once per compiler) gives None,
  never an exception, and the compiler runs its operators one by one;
- a cached library is written atomically (temporary file, then ``os.replace``) and one
  that fails to load is rebuilt, so two processes may build the same library at once.

Examples:
    >>> import numpy as np, ember
    >>> from ember.compiler.kernel import Apply, FusedKernel, Load
    >>> from ember_cpu import codegen
    >>> k = FusedKernel(inputs=("float32", "float32"),
    ...                 body=(Load(0), Load(1), Apply("mul", (0, 1), "float32", "float32")),
    ...                 outputs=(2,), out_dtypes=("float32",))
    >>> fn = codegen.compile_kernels([k])[0]
    >>> a, out = ember.tensor(np.array([1.0, 2.0], np.float32)), ember.empty(2)
    >>> fn([a, a], [out])
    >>> out.numpy()
    array([1., 4.], dtype=float32)
"""

from __future__ import annotations

import hashlib
import importlib
import os
import platform
import shlex
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import types
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod
from string import Template
from typing import Any

from ember.compiler.kernel import Apply, Cast, Const, FusedKernel, Load

from ._common import _CONTIG, NULL, _coalesce, contig_info, plan, raise_error

__all__ = ["compile_kernels", "stats", "clear_memory_cache", "cache_dir", "EXTRA"]

# Note [CPU code generation]
#     One ``compile_kernels`` call gives one C translation unit, built by one compiler run:
#
#     - a prelude, the same in every library: em_common.h and the scalar helpers of
#       _build.py pasted verbatim, the ``omp declare reduction``s of amax/amin, and the
#       drivers (compiled at -O2: they loop per row, not per element). ``fk_walk`` runs a
#       flat range [lo, hi) of a coalesced n-d index with an odometer and hands rows on in
#       pieces of at most 256 elements, gathering an input whose inner stride is not one
#       item into a buffer first; ``fk_ew`` and ``fk_red`` split the work over threads
#       (``#pragma omp parallel`` once n reaches _build.py's grain: 32768 elements, 4096
#       with a transcendental op, one thread in a forked child as the eager kernels).
#     - per elementwise kernel, ``fk<i>_body(m, ptrs)``: the SSA body in one flat loop
#       over unit-stride pointers that the compiler vectorises, and the entry
#       ``int fk<i>(n, nd, meta, in0, off0, ..., out0, off0, ...)``. ``nd == 0`` (every
#       input contiguous: the fast path) calls the body on each thread's slice of the
#       flat index directly; otherwise meta is ``_common.plan``'s coalesced shape, output
#       strides, input strides, and fk_walk feeds the body row pieces. Outputs are
#       contiguous, so threads split elements, not rows (a broadcast scalar is no worse).
#     - per reduction kernel, ``int fk<i>(nk, nr, ndk, ndr, meta, ...)``: kept dims (nk
#       outputs) and folded dims (nr elements) are coalesced apart; ``fk<i>_seg`` folds a
#       row piece into an accumulator struct (``omp simd reduction``), and init, merge and
#       store complete the ``fk_redops`` that fk_red drives. Threads split the outputs or,
#       with fewer outputs than threads, the folded range into partials merged in thread
#       order (deterministic for a thread count). Sums and products of floats accumulate
#       in double, of integers in int64, as the eager sum kernel; amax/amin propagate NaN
#       with _build's expressions.
#
#     Values live in registers in their own C type, except float16/bfloat16, which live
#     as floats holding a representable half value (a Load widens, a Cast to half rounds
#     with em_f32_to_f16/bf16 and widens back, a store narrows exactly). Integer
#     arithmetic wraps (``-fwrapv``), conversions are ``_build.conv``, and
#     ``-ffp-contract=off`` keeps a*b+c of two operators from becoming one fma.
#
#     Libraries are cached on disk under sha256(source, compiler path and version, flags,
#     CPU identity, EMBER_CPU_ARCH); each kernel's Python wrapper is generated source for
#     its arity, so a call reads attributes and calls C: one to three microseconds.

#: Operators of ``ELEMENTWISE`` the eager tables of _build.py lack: op -> (out kind, cheap,
#: C expression, argument names). ``c`` is the first argument in its own dtype, ``!= 0``.
EXTRA: dict[str, tuple[str, bool, str, tuple[str, ...]]] = {
    "where": ("same", True, "c ? x : y", ("c", "x", "y")),
}
_HALF = {"float16": "em_f16_to_f32", "bfloat16": "em_bf16_to_f32"}
_SIMD_FOLD = {"sum": "+", "prod": "*"}  # amax/amin: the declared reductions fkr_<op>_<short>
#: before _build's flags: no a*b+c contracted into an fma across fused operators, so every
#: operator rounds as its eager kernel does (fused == eager bit for bit; a test checks it)
_FLAGS = ["-ffp-contract=off"]

#: what the cache did in this process (tests read it): libraries compiled, libraries
#: loaded from disk, kernels served from memory.
stats: dict[str, int] = {"compiled": 0, "disk_hits": 0, "memory_hits": 0}

_MEMORY: dict[FusedKernel, Callable[..., None] | None] = {}
_FAILED: set[str] = set()  # library keys whose build failed (not retried in this process)
_WARNED: set[str] = set()  # compilers already warned about
_LIBS: list[Any] = []  # loaded libraries stay open for the process
_RPLANS: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_WRAPPERS: dict[str, types.CodeType] = {}
_B: Any = None
_OPS: dict[tuple[str, str], tuple[str, bool, str, tuple[str, ...]]] = {}
_IDENT: dict[Any, Any] = {}  # per-process facts: the prelude, compilers, the CPU


class _Unsupported(Exception):
    """The kernel uses an operator/dtype pair outside the tables."""


def _tables() -> Any:
    """_build.py's tables and helpers, without building its cffi module.

    Importing ``_build`` parses every cdef of the eager module (0.9 s), so the part above
    ``ffibuilder = make_ffibuilder()`` is executed alone (10 ms) when the line is there.
    """
    global _B
    if _B is None:
        b = sys.modules.get("ember_cpu._build")
        if b is None:
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build.py")
            with open(path) as f:
                head, sep, _ = f.read().partition("\nffibuilder = make_ffibuilder()")
            if sep:
                b = types.ModuleType("ember_cpu._build_tables")
                b.__file__ = path
                exec(compile(head, path, "exec"), b.__dict__)
            else:  # pragma: no cover - _build.py changed shape
                b = importlib.import_module("ember_cpu._build")
        for op, outk, cheap, dt, expr, chk in b._ew_table_entries({**b.UNARY, **b.BINARY}):
            if chk is None:  # ops that report errors (integer division) are not fused
                args: tuple[str, ...] = ("x",) if op in b.UNARY else ("x", "y")
                _OPS[op, dt] = (outk, cheap, b.subst(expr, dt), args)
        for op, (outk, cheap, expr, args) in EXTRA.items():
            for dt in b.ALL:
                _OPS[op, dt] = (outk, cheap, b.subst(expr, dt), args)
        _B = b
    return _B


# ---------------------------------------------------------------------------------------
# C expressions for values


def _reg(dt: str) -> str:
    """The C type a value of ``dt`` has in the generated code."""
    return "float" if dt in _HALF else _B.DTYPES[dt][1]


def _cvt(src: str, dst: str, x: str) -> str:
    """``x`` (a register value of ``src``) as a register value of ``dst``, torch's rules."""
    if src == dst:
        return x
    s = "float32" if src in _HALF else src
    if dst in _HALF:
        return f"{_HALF[dst]}({_B.conv(s, dst, x)})"
    return _B.conv(s, dst, x)


def _store(src: str, dst: str, x: str) -> str:
    """``x`` (a register value of ``src``) in the storage format of ``dst``."""
    if dst in _HALF:
        return _B.conv("float32" if src in _HALF else src, dst, x)
    return _cvt(src, dst, x)


def _const(value: Any, dt: str) -> str:
    if _B.DTYPES[dt][2] in ("float", "half"):
        v = float(value)
        lit = "NAN" if v != v else {float("inf"): "INFINITY", -float("inf"): "-INFINITY"}.get(v)
        return _cvt("float64", dt, lit or f"({v.hex()})")
    try:
        v = (int(value) + 2**63) % 2**64 - 2**63  # wraps like a cast to int64
    except (OverflowError, ValueError):
        raise _Unsupported(f"constant {value!r} as {dt}") from None
    return _cvt("int64", dt, "INT64_MIN" if v == -(2**63) else f"INT64_C({v})")


def _body(k: FusedKernel, load: Callable[[int], str]) -> tuple[list[str], list[str], bool]:
    """C statements computing ``k.body`` (value i is ``v<i>``), the value dtypes, cheapness."""
    lines: list[str] = []
    dts: list[str] = []
    cheap = True
    for i, ins in enumerate(k.body):
        if isinstance(ins, Load):
            dt = k.inputs[ins.input]
            raw = load(ins.input)
            val = f"{_HALF[dt]}({raw})" if dt in _HALF else raw
        elif isinstance(ins, Const):
            dt, val = ins.dtype, _const(ins.value, ins.dtype)
        elif isinstance(ins, Cast):
            dt, val = ins.dtype, _cvt(dts[ins.arg], ins.dtype, f"v{ins.arg}")
        elif isinstance(ins, Apply):
            dt, cdt = ins.dtype, ins.cdtype
            tdt = "float32" if cdt in _HALF else cdt  # half ops compute in float, round once
            entry = _OPS.get((ins.op, tdt))
            if entry is None or len(entry[3]) != len(ins.args) or dt not in _B.DTYPES:
                raise _Unsupported(f"{ins.op} in {cdt}")
            outk, ok, expr, names = entry
            cheap = cheap and ok
            decl = " ".join(
                f"const int c = (v{a} != 0);"
                if n == "c"
                else f"const {_reg(cdt)} {n} = {_cvt(dts[a], cdt, f'v{a}')};"
                for n, a in zip(names, ins.args)
            )
            if outk == "bool":
                res = _cvt("bool", dt, f"(uint8_t)({expr})")
            else:
                res = _cvt(cdt, dt, _cvt(tdt, cdt, f"({_reg(tdt)})({expr})"))
            lines.append(f"{_reg(dt)} v{i}; {{ {decl} v{i} = {res}; }}")
            dts.append(dt)
            continue
        else:
            raise _Unsupported(type(ins).__name__)
        lines.append(f"const {_reg(dt)} v{i} = {val};")
        dts.append(dt)
    return lines, dts, cheap


# ---------------------------------------------------------------------------------------
# C templates

_PRELUDE_TAIL = r"""
/* The drivers below are the same in every library and their loops run once per row, not
 * per element: -O2 compiles them in a third of the time -O3 takes (0.1 s of each build). */
#pragma GCC push_options
#pragma GCC optimize("O2")
#define FK_ROW 256
#define FK_MAXIN 64
#define FK_MAXOP 128
/* a body: m elements at pointers p (inputs, then outputs) */
typedef void (*fk_fn_t)(int64_t m, char *const *p, void *ctx);

static inline int fk_threads(int64_t n, int64_t grain)
{
    if (n < grain) return 1;
    int nth = em_max_threads();
    int64_t most = n / (grain / 2);
    return nth > most ? (int)most : nth;
}
static inline int fk_tid(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
/* this thread's share of [0, n), boundaries rounded to 64 elements */
static inline void fk_range(int64_t n, int64_t *lo, int64_t *hi)
{
#ifdef _OPENMP
    int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    int t = 0, T = 1;
#endif
    *lo = (int64_t)((double)n * t / T) & ~(int64_t)63;
    *hi = t == T - 1 ? n : (int64_t)((double)n * (t + 1) / T) & ~(int64_t)63;
}

/* m items of size isz at stride s (bytes) from q, packed into buf */
static __attribute__((noinline)) char *fk_gather(char *buf, const char *q, int64_t s,
                                                 int64_t isz, int64_t m)
{
    switch (isz) {
    case 1: for (int64_t j = 0; j < m; j++) buf[j] = q[j * s]; break;
    case 2: for (int64_t j = 0; j < m; j++) memcpy(buf + 2 * j, q + j * s, 2); break;
    case 4: for (int64_t j = 0; j < m; j++) memcpy(buf + 4 * j, q + j * s, 4); break;
    default: for (int64_t j = 0; j < m; j++) memcpy(buf + 8 * j, q + j * s, 8); break;
    }
    return buf;
}

/* [lo, hi) of the row-major index over shape[nd]: input k starts at base[k], has element
 * strides st[k * nd + d] and items of isz[k] bytes; the nout outputs that follow in base
 * and isz are contiguous. Calls fn(m, pointers, ctx) on pieces of at most FK_ROW elements
 * of the innermost dim; an input whose inner stride is not one item is gathered first. */
static __attribute__((noinline, noclone)) void fk_walk(
    int64_t lo, int64_t hi, int nd, const int64_t *shape, const int64_t *st, int nin, int nout,
    char *const *base, const int64_t *isz, fk_fn_t fn, void *ctx)
{
    char buf[FK_MAXIN][FK_ROW * 8] __attribute__((aligned(64)));
    char *p[FK_MAXOP];
    int64_t idx[EM_MAXDIM], f[FK_MAXIN], s[FK_MAXIN], rem = lo;
    for (int k = 0; k < nin; k++) f[k] = 0;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = rem % shape[d];
        rem /= shape[d];
        for (int k = 0; k < nin; k++) f[k] += idx[d] * st[k * nd + d] * isz[k];
    }
    for (int k = 0; k < nin; k++) s[k] = st[k * nd + nd - 1] * isz[k];
    const int64_t inner = shape[nd - 1];
    for (int64_t i = lo; i < hi;) {
        int64_t cnt = inner - idx[nd - 1];
        if (cnt > hi - i) cnt = hi - i;
        for (int64_t j0 = 0; j0 < cnt; j0 += FK_ROW) {
            const int64_t m = cnt - j0 < FK_ROW ? cnt - j0 : FK_ROW;
            for (int k = 0; k < nin; k++) {
                char *q = base[k] + f[k] + j0 * s[k];
                p[k] = s[k] == isz[k] ? q : fk_gather(buf[k], q, s[k], isz[k], m);
            }
            for (int k = nin; k < nin + nout; k++) p[k] = base[k] + (i + j0) * isz[k];
            fn(m, p, ctx);
        }
        i += cnt;
        if (i >= hi) break;
        for (int k = 0; k < nin; k++) f[k] += cnt * s[k];
        idx[nd - 1] += cnt;
        for (int d = nd - 1; d > 0 && idx[d] >= shape[d]; d--) {
            for (int k = 0; k < nin; k++)
                f[k] += (st[k * nd + d - 1] - shape[d] * st[k * nd + d]) * isz[k];
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

/* elementwise: meta is NULL (nd == 0, all contiguous) or plan()'s shape, output strides,
 * input strides */
static void fk_ew_part(int64_t lo, int64_t hi, int nd, const int64_t *meta, int nin,
                       int nout, char *const *base, const int64_t *isz, fk_fn_t fn)
{
    if (nd > 0) {
        fk_walk(lo, hi, nd, meta, meta + 2 * nd, nin, nout, base, isz, fn, NULL);
        return;
    }
    char *p[FK_MAXOP];
    for (int k = 0; k < nin + nout; k++) p[k] = base[k] + lo * isz[k];
    fn(hi - lo, p, NULL);
}
static int fk_ew(int64_t n, int nd, const int64_t *meta, int nin, int nout, char *const *base,
                 const int64_t *isz, fk_fn_t fn, int64_t grain)
{
    if (n <= 0) return 0;
    if (nd > EM_MAXDIM) return EM_ERR_NDIM;
    const int nth = fk_threads(n, grain);
    if (nth <= 1) {
        fk_ew_part(0, n, nd, meta, nin, nout, base, isz, fn);
        return 0;
    }
#pragma omp parallel num_threads(nth)
    {
        int64_t lo, hi;
        fk_range(n, &lo, &hi);
        if (hi > lo) fk_ew_part(lo, hi, nd, meta, nin, nout, base, isz, fn);
    }
    return 0;
}

/* a fold: its accumulator (a struct of at most 16 scalars) and how to fill, merge, store it */
typedef struct {
    int64_t accsize;
    void (*init)(void *acc);
    fk_fn_t seg; /* fold m contiguous elements into ctx */
    void (*merge)(void *acc, const void *later);
    void (*store)(char *const *outs, int64_t k, const void *acc);
} fk_redops;

/* input pointers at kept index k: meta = kept shape, folded shape, kept strides per input */
static inline void fk_kept(int64_t k, int ndk, const int64_t *ks, const int64_t *kst, int nin,
                           char *const *base, const int64_t *isz, char **b)
{
    for (int i = 0; i < nin; i++) b[i] = base[i];
    for (int d = ndk - 1; d >= 0; d--) {
        const int64_t ix = k % ks[d];
        k /= ks[d];
        for (int i = 0; i < nin; i++) b[i] += ix * kst[i * ndk + d] * isz[i];
    }
}
static int fk_red(int64_t nk, int64_t nr, int ndk, int ndr, const int64_t *meta, int nin,
                  int nout, char *const *base, const int64_t *isz, const fk_redops *ops,
                  int64_t grain)
{
    if (nk <= 0) return 0;
    if (ndk > EM_MAXDIM || ndr > EM_MAXDIM) return EM_ERR_NDIM;
    const int64_t *ks = meta, *rs = meta + ndk, *kst = meta + ndk + ndr;
    const int64_t *rst = kst + nin * ndk;
    char *const *outs = base + nin;
    const int64_t A = ops->accsize;
    const int nth = fk_threads(nk * nr, grain);
    if (nth > 1 && nk < nth) {
        /* few outputs: threads split the folded range, partials merged in thread order */
        char *W = (char *)malloc((size_t)(A * nth * nk));
        if (!W) return EM_ERR_ALLOC;
        for (int64_t q = 0; q < nth * nk; q++) ops->init(W + q * A);
#pragma omp parallel num_threads(nth)
        {
            int64_t lo, hi;
            fk_range(nr, &lo, &hi);
            const int t = fk_tid();
            char *b[FK_MAXIN + 1];
            for (int64_t k = 0; k < nk && hi > lo; k++) {
                fk_kept(k, ndk, ks, kst, nin, base, isz, b);
                fk_walk(lo, hi, ndr, rs, rst, nin, 0, b, isz, ops->seg, W + (t * nk + k) * A);
            }
        }
        for (int64_t k = 0; k < nk; k++) {
            for (int t = 1; t < nth; t++) ops->merge(W + k * A, W + (t * nk + k) * A);
            ops->store(outs, k, W + k * A);
        }
        free(W);
        return 0;
    }
#pragma omp parallel for num_threads(nth) schedule(static) if(nth > 1)
    for (int64_t k = 0; k < nk; k++) {
        double acc[16];
        char *b[FK_MAXIN + 1];
        ops->init(acc);
        fk_kept(k, ndk, ks, kst, nin, base, isz, b);
        if (nr > 0) fk_walk(0, nr, ndr, rs, rst, nin, 0, b, isz, ops->seg, acc);
        ops->store(outs, k, acc);
    }
    return 0;
}
#pragma GCC pop_options
"""

_EW = Template(r"""
static __attribute__((noinline)) void ${K}_body(int64_t m, char *const *p, void *ctx)
{
    ${ptrs}
#pragma GCC ivdep
    for (int64_t i = 0; i < m; i++) {
${body}
    }
}
int ${K}(int64_t n, int nd, const int64_t *meta${rparams})
{
    char *base[] = {${bases}};
    static const int64_t isz[] = {${iszs}};
    return fk_ew(n, nd, meta, ${nin}, ${nout}, base, isz, ${K}_body, ${grain});
}
""")

_RED = Template(r"""
typedef struct { ${fields} } ${K}_acc;
static void ${K}_init(void *acc)
{
    ${K}_acc *A = (${K}_acc *)acc;
    ${init}
}
static __attribute__((noinline)) void ${K}_seg(int64_t m, char *const *p, void *acc)
{
    ${K}_acc *A = (${K}_acc *)acc;
    ${ptrs}
    ${acc_in}
#pragma omp simd ${simd}
    for (int64_t j = 0; j < m; j++) {
${body}
    }
    ${acc_out}
}
static void ${K}_merge(void *acc, const void *later)
{
    ${K}_acc *A = (${K}_acc *)acc;
    const ${K}_acc *L = (const ${K}_acc *)later;
    ${merge}
}
static void ${K}_store(char *const *o, int64_t k, const void *acc)
{
    const ${K}_acc *A = (const ${K}_acc *)acc;
    ${store}
}
static const fk_redops ${K}_ops = {sizeof(${K}_acc), ${K}_init, ${K}_seg, ${K}_merge, ${K}_store};
int ${K}(int64_t nk, int64_t nr, int ndk, int ndr, const int64_t *meta${rparams})
{
    char *base[] = {${bases}};
    static const int64_t isz[] = {${iszs}};
    return fk_red(nk, nr, ndk, ndr, meta, ${nin}, ${nout}, base, isz, &${K}_ops, ${grain});
}
""")


@dataclass(frozen=True)
class _Gen:
    """One kernel's C source, cdef line, and what its Python wrapper needs."""

    name: str
    source: str
    cdef: str
    nin: int
    nout: int
    reduce: str | None
    rdim: int
    scalars: frozenset[int] = frozenset()


def _generate(k: FusedKernel, name: str) -> _Gen:
    B = _B
    nin, nout = len(k.inputs), len(k.outputs)
    if any(d not in B.DTYPES for d in k.inputs + k.out_dtypes):
        raise _Unsupported("dtype")
    if nin > 64 or not 0 < nout <= 64 or (k.reduce is not None and nout > 16):
        raise _Unsupported("arity")
    mem = [B.DTYPES[d][1] for d in k.inputs]
    omem = [B.DTYPES[d][1] for d in k.out_dtypes]
    scalars = set(getattr(k, "scalars", ()))
    rparams = "".join(f", char *b{i}, int64_t c{i}" for i in range(nin))
    rparams += "".join(f", char *q{j}, int64_t r{j}" for j in range(nout))
    common: dict[str, Any] = dict(
        K=name,
        rparams=rparams,
        bases=", ".join(
            [f"b{i} + c{i} * (int64_t)sizeof({t})" for i, t in enumerate(mem)]
            + [f"q{j} + r{j} * (int64_t)sizeof({t})" for j, t in enumerate(omem)]
        ),
        # a broadcast scalar input has item size 0 to the drivers: no offset, no gather
        iszs=", ".join("0" if i in scalars else f"sizeof({t})" for i, t in enumerate(mem + omem)),
        nin=nin,
        nout=nout,
        ptrs=" ".join(f"const {t} *a{i} = (const {t} *)p[{i}];" for i, t in enumerate(mem)),
    )
    red = k.reduce
    if red is None:
        body, dts, cheap = _body(k, lambda i: f"a{i}[0]" if i in scalars else f"a{i}[i]")
        body += [
            f"o{j}[i] = {_store(dts[o], d, f'v{o}')};"
            for j, (o, d) in enumerate(zip(k.outputs, k.out_dtypes))
        ]
        common["ptrs"] += "".join(f" {t} *o{j} = ({t} *)p[{nin + j}];" for j, t in enumerate(omem))
        source = _EW.substitute(
            common,
            body="\n".join(" " * 8 + s for s in body),
            grain=B.GRAIN_CHEAP if cheap else B.GRAIN_TRANSC,
        )
        cdef = f"int {name}(int64_t n, int nd, const int64_t *meta{rparams});"
        return _Gen(name, source, cdef, nin, nout, None, 0, frozenset(scalars))
    if red.op not in B.REDUCE or red.op in ("mean", "all", "any") or nin == 0:
        raise _Unsupported(f"reduction {red.op}")
    body, dts, cheap = _body(k, lambda i: f"a{i}[0]" if i in scalars else f"a{i}[j]")
    kinds = [B.DTYPES[d][2] in ("float", "half") for d in k.out_dtypes]
    accs = [
        ("float64" if f or B.DTYPES[dts[o]][2] in ("float", "half") else "int64")
        if red.op in _SIMD_FOLD
        else ("float32" if dts[o] in _HALF else dts[o])
        for o, f in zip(k.outputs, kinds)
    ]
    js = [(j, B.DTYPES[a][1]) for j, a in enumerate(accs)]
    spec = B.REDUCE[red.op]
    body += [
        f"{{ const {t} v = {_cvt(dts[o], a, f'v{o}')}; const {t} c = w{j}; "
        f"w{j} = {_fold_expr(spec[4], a)}; }}"
        for (j, t), o, a in zip(js, k.outputs, accs)
    ]
    source = _RED.substitute(
        common,
        fields=" ".join(f"{t} w{j};" for j, t in js),
        init=" ".join(f"A->w{j} = {_fold_expr(spec[2], a)};" for j, a in enumerate(accs)),
        acc_in=" ".join(f"{t} w{j} = A->w{j};" for j, t in js),
        acc_out=" ".join(f"A->w{j} = w{j};" for j, _ in js),
        simd=" ".join(
            f"reduction({_SIMD_FOLD.get(red.op) or f'fkr_{red.op}_{B.DTYPES[a][0]}'} : w{j})"
            for j, a in enumerate(accs)
        ),
        body="\n".join(" " * 8 + s for s in body),
        merge=" ".join(
            f"{{ const {t} c = A->w{j}, v = L->w{j}; A->w{j} = {_fold_expr(spec[5], a)}; }}"
            for (j, t), a in zip(js, accs)
        ),
        store=" ".join(
            f"(({t} *)o[{j}])[k] = {_store(a, d, f'A->w{j}')};"
            for j, (a, d, t) in enumerate(zip(accs, k.out_dtypes, omem))
        ),
        grain=B.GRAIN_CHEAP if cheap else B.GRAIN_TRANSC,
    )
    cdef = f"int {name}(int64_t nk, int64_t nr, int ndk, int ndr, const int64_t *meta{rparams});"
    return _Gen(name, source, cdef, nin, nout, red.op, red.ndim, frozenset(scalars))


def _fold_expr(expr: str, acc: str) -> str:
    """A REDUCE expression of _build.py (init, update, merge) for accumulator dtype acc."""
    B = _B
    kind = B.DTYPES[acc][2]
    lo, hi = ("-INFINITY", "INFINITY") if kind in ("float", "half") else B.INT_MIN_MAX[acc]
    rep = {
        "@ACC": B.DTYPES[acc][1],
        "@LOWEST": lo,
        "@HIGHEST": hi,
        "@AMAX": B._AMAX_F if kind == "float" else "v > c ? v : c",
        "@AMIN": B._AMIN_F if kind == "float" else "v < c ? v : c",
    }
    for key in sorted(rep, key=len, reverse=True):
        expr = expr.replace(key, rep[key])
    return expr


def _prelude() -> str:
    """em_common.h, _build.py's scalar helpers, the thread helpers, the declared folds."""
    if "prelude" not in _IDENT:
        B = _B
        with open(os.path.join(B.CSRC, "em_common.h")) as f:
            parts = [f.read(), B.SPECIAL_HELPERS]
        parts += [B.subst(B.FLOAT_HELPERS, dt) for dt in B.F]
        for dt in B.I:
            tpl = B.INT_HELPERS_UNSIGNED if dt == "uint8" else B.INT_HELPERS_SIGNED
            parts.append(B.subst(tpl.replace("@U", B.UNSIGNED[dt]), dt))
        parts.append(_PRELUDE_TAIL)
        for op in ("amax", "amin"):
            for dt in B.ALL:
                s, t = B.DTYPES[dt][0], B.DTYPES[dt][1]
                merge, init = _fold_expr(B.REDUCE[op][5], dt), _fold_expr(B.REDUCE[op][2], dt)
                parts.append(
                    f"#define FKM_{op}_{s}(c, v) ({merge})\n"
                    f"#pragma omp declare reduction(fkr_{op}_{s} : {t} : "
                    f"omp_out = FKM_{op}_{s}(omp_out, omp_in)) initializer(omp_priv = {init})"
                )
        _IDENT["prelude"] = "\n".join(parts) + "\n"
    return _IDENT["prelude"]


# ---------------------------------------------------------------------------------------
# Python wrappers: generated per arity so that a call only reads attributes and calls C

_HANDLE = """    s = {t}._storage
    h{t} = s.handle
    if h{t} is None:
        h{t} = s.handle = from_buffer(s.data)
"""
_EW_PY = """def run(inputs, outputs):
    {unpack}
    shape = {first}._shape
    ci = _CONTIG.get(shape) or contig_info(shape)
    n = ci[1]
    if n == 0:
        return
{handles}    cs = ci[0]
    if {contig}:
        rc = cfn(n, 0, NULL{args})
    else:
        nd, meta = plan(shape, cs{strides})
        rc = cfn(n, nd, meta{args})
    if rc:
        raise_error(rc)
"""
_RED_PY = """def run(inputs, outputs):
    {unpack}
    key = ({rdim}, i0._shape{strides})
    p = _RPLANS.get(key)
    if p is None:
        p = rplan(key)
    nk, nr, ndk, ndr, meta = p
    if nk == 0:
        return
    if nr == 0 and {needs_data}:
        raise RuntimeError("ember_cpu: {op} of an empty tensor")
{handles}    rc = cfn(nk, nr, ndk, ndr, meta{args})
    if rc:
        raise_error(rc)
"""


def _rplan(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """(nk, nr, ndk, ndr, meta) of a reduction of the last key[0] dims of shape key[1] over
    inputs of strides key[2:]: kept and folded dims coalesced apart."""
    rdim, shape, strides = key[0], key[1], key[2:]
    kd = len(shape) - rdim
    ks, kst = _coalesce(shape[:kd], [s[:kd] for s in strides], False)
    rs, rst = _coalesce(shape[kd:], [s[kd:] for s in strides], False)
    if not rs:
        rs, rst = [1], [[0] for _ in strides]
    meta = tuple(ks) + tuple(rs) + tuple(x for s in kst for x in s)
    meta += tuple(x for s in rst for x in s)
    if len(_RPLANS) > 8192:
        _RPLANS.clear()
    r = _RPLANS[key] = (prod(shape[:kd]), prod(shape[kd:]), len(ks), len(rs), meta)
    return r


def _wrap(g: _Gen, cfn: Any, from_buffer: Callable[[Any], Any]) -> Callable[..., None]:
    ins = [f"i{i}" for i in range(g.nin)]
    outs = [f"o{j}" for j in range(g.nout)]
    unpack = "\n    ".join(
        f"{', '.join(v)}, = {n}" for v, n in ((ins, "inputs"), (outs, "outputs")) if v
    )
    handles = "".join(_HANDLE.format(t=t) for t in ins + outs)
    args = "".join(f", h{t}, {t}._offset" for t in ins + outs)
    strides = "".join(f", {t}._stride" for t in ins)
    if g.reduce is None:
        contig = (
            " and ".join(f"{t}._stride == cs" for i, t in enumerate(ins) if i not in g.scalars)
            or "True"
        )
        src = _EW_PY.format(
            unpack=unpack,
            first=(ins + outs)[0],
            handles=handles,
            contig=contig,
            args=args,
            strides=strides,
        )
    else:
        src = _RED_PY.format(
            unpack=unpack,
            strides=strides,
            rdim=g.rdim,
            op=g.reduce,
            handles=handles,
            args=args,
            needs_data=g.reduce not in _SIMD_FOLD,
        )
    ns: dict[str, Any] = {
        "cfn": cfn,
        "NULL": NULL,
        "_CONTIG": _CONTIG,
        "contig_info": contig_info,
        "plan": plan,
        "raise_error": raise_error,
        "from_buffer": from_buffer,
        "_RPLANS": _RPLANS,
        "rplan": _rplan,
    }
    code = _WRAPPERS.get(src)
    if code is None:  # one per arity: kernels of the same shape share it
        code = _WRAPPERS[src] = compile(src, "<ember_cpu fused kernel>", "exec")
    exec(code, ns)
    run = ns["run"]
    run.source = g.source  # the kernel's C, for EMBER_COMPILE_DEBUG
    return run  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------
# building and caching


def cache_dir() -> str:
    """Where built libraries are kept: $EMBER_CACHE_DIR, else $XDG_CACHE_HOME/ember or
    ~/.cache/ember; in its ``cpu-kernels`` folder."""
    root = os.environ.get("EMBER_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "ember",
    )
    return os.path.join(root, "cpu-kernels")


def _compiler() -> tuple[list[str], str]:
    """The compiler's argv ($EMBER_CPU_CC, else Python's CC, else cc) and its identity."""
    cmd = os.environ.get("EMBER_CPU_CC") or ""
    if not cmd:
        cmd = sysconfig.get_config_var("CC") or "cc"
        if shutil.which(shlex.split(cmd)[0]) is None:
            cmd = "cc"
    if ("cc", cmd) not in _IDENT:
        argv = shlex.split(cmd)
        try:
            r = subprocess.run(argv + ["--version"], capture_output=True, text=True, timeout=60)
            version = r.stdout
        except (OSError, subprocess.SubprocessError):
            version = ""
        _IDENT["cc", cmd] = (argv, f"{shutil.which(argv[0]) or argv[0]}\n{version}")
    return _IDENT["cc", cmd]


def _cpu() -> str:
    if "cpu" not in _IDENT:
        lines = []
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith(("model name", "flags")) and line not in lines:
                        lines.append(line)
                    if len(lines) >= 2:
                        break
        except OSError:
            pass
        _IDENT["cpu"] = platform.machine() + "\n" + "".join(lines)
    return _IDENT["cpu"]


def _warn(cc: list[str], why: str) -> None:
    name = " ".join(cc)
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(
            f"ember_cpu: the fused-kernel compiler {name!r} failed ({why}); compiled graphs "
            "run their operators one by one",
            RuntimeWarning,
            stacklevel=4,
        )


#: ELF class -> (e_shoff format, its offset, offset of e_shentsize and e_shnum)
_ELF_SHDR = {1: ("I", 32, 46), 2: ("Q", 40, 58)}


def _complete(path: str) -> bool:
    """Whether the ELF file at path is as long as its headers say (a truncated library
    would pass dlopen and fault on first use)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return False
    if head[:4] != b"\x7fELF" or len(head) < 64:
        return not sys.platform.startswith("linux")
    end = "<" if head[5] == 1 else ">"
    fmt, at_off, at_num = _ELF_SHDR.get(head[4], ("Q", 40, 58))
    (shoff,) = struct.unpack_from(end + fmt, head, at_off)
    shentsize, shnum = struct.unpack_from(end + "HH", head, at_num)
    return shoff > 0 and size >= shoff + shentsize * shnum


def _ffi_source(cdef: str) -> str:
    """Python source creating the ``ffi`` of cdef (CFFI's out-of-line ABI mode): loading it
    from the disk cache needs no C parser (importing pycparser alone takes 20-60 ms)."""
    import io

    import cffi
    from cffi.recompiler import make_py_source

    ffi = cffi.FFI()
    ffi.cdef(cdef)
    out = io.StringIO()
    make_py_source(ffi, "ember_cpu_fused", out)
    return out.getvalue()


def _open(path: str, names: Sequence[str]) -> list[Any] | None:
    """The functions ``names`` of the library at path (its ffi beside it in ``.ffi.py``),
    or None if either file is missing, incomplete or does not load."""
    if not _complete(path):
        return None
    ns: dict[str, Any] = {}
    try:
        with open(path[:-3] + ".ffi.py") as f:
            exec(compile(f.read(), path[:-3] + ".ffi.py", "exec"), ns)
        ffi = ns["ffi"]
        lib = ffi.dlopen(path)
        fns = [getattr(lib, n) for n in names]
    except Exception:  # a damaged cache entry of any kind is rebuilt
        return None
    _LIBS.append((ffi, lib))
    return fns


def _build(gens: list[_Gen]) -> list[Any] | None:
    """Compile (or load from the disk cache) one library holding ``gens``."""
    source = _prelude() + "".join(g.source for g in gens)
    cc, ident = _compiler()
    flags = _FLAGS + _B.compile_args() + ["-shared", "-fPIC"]
    key = hashlib.sha256(
        "\0".join(
            [source, ident, " ".join(flags), _cpu(), os.environ.get("EMBER_CPU_ARCH", "")]
        ).encode()
    ).hexdigest()[:40]
    if key in _FAILED:
        return None
    folder = cache_dir()
    path = os.path.join(folder, key + ".so")
    names = [g.name for g in gens]
    if os.path.exists(path):
        fns = _open(path, names)
        if fns is not None:
            stats["disk_hits"] += 1
            return fns  # else a truncated or foreign file: rebuilt below
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp_c = tempfile.mkstemp(suffix=".c", prefix=key[:12] + ".", dir=folder)
    except OSError:
        folder = tempfile.mkdtemp(prefix="ember-cpu-kernels-")
        path = os.path.join(folder, key + ".so")
        fd, tmp_c = tempfile.mkstemp(suffix=".c", dir=folder)
    tmp_so, tmp_py = tmp_c[:-2] + ".so", tmp_c[:-2] + ".py"
    try:
        with os.fdopen(fd, "w") as f:
            f.write(source)
        try:
            r = subprocess.run(
                cc + flags + ["-o", tmp_so, tmp_c, "-lm"], capture_output=True, text=True
            )
            why = f"exit {r.returncode}: {r.stderr[-600:].strip()}" if r.returncode else ""
        except OSError as exc:
            why = str(exc)
        if why or not os.path.exists(tmp_so):
            _FAILED.add(key)
            _warn(cc, why or "no output")
            return None
        with open(tmp_py, "w") as f:
            f.write(_ffi_source("\n".join(g.cdef for g in gens)))
        # the library last: a reader that finds it finds its ffi and source too
        os.replace(tmp_py, path[:-3] + ".ffi.py")
        os.replace(tmp_c, path[:-3] + ".c")  # kept for reading
        os.replace(tmp_so, path)
    finally:
        for p in (tmp_c, tmp_so, tmp_py):
            if os.path.exists(p):
                os.unlink(p)
    stats["compiled"] += 1
    fns = _open(path, names)
    if fns is None:
        _FAILED.add(key)
        _warn(cc, f"{path} does not load")
    return fns


def compile_kernels(kernels: Sequence[FusedKernel]) -> list[Callable[..., None] | None]:
    """One ``fn(inputs, outputs)`` per kernel (None where it cannot be generated or built).

    Kernels not seen before in this process are generated into one C translation unit and
    built with one compiler invocation, or loaded from the disk cache (``cache_dir()``).
    """
    _tables()
    from ._common import ffi

    todo: dict[FusedKernel, _Gen] = {}
    for k in kernels:
        if k in _MEMORY:
            stats["memory_hits"] += 1
        elif k not in todo:
            try:
                todo[k] = _generate(k, f"fk{len(todo)}")
            except _Unsupported:
                _MEMORY[k] = None
    if todo:
        gens = list(todo.values())
        fns = _build(gens)
        for (k, g), cfn in zip(todo.items(), fns or [None] * len(gens)):
            if cfn is not None:
                _MEMORY[k] = _wrap(g, cfn, ffi.from_buffer)
    return [_MEMORY.get(k) for k in kernels]


def clear_memory_cache() -> None:
    """Forget the kernels built in this process (the disk cache stays)."""
    _MEMORY.clear()
    _FAILED.clear()
