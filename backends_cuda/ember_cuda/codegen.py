# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""CUDA C for the compiler's fused kernels (``ember.compiler.kernel.FusedKernel``).

Owns the translation of a ``FusedKernel`` into one ``__global__`` function, the module that
holds every kernel of one ``compile_kernels`` call (compiled by NVRTC through
``cupy.RawModule``, which keeps the binary in CuPy's on-disk cache), and the callable
``CUDAFusedKernel`` the compiler runs (``fn(inputs, outputs)``, Note [Fused kernels]).

Must always hold: a fused kernel computes what eager ember's CUDA kernels compute, op by
op: the expressions come from ``ops_elementwise.UNARY``/``BINARY`` (``_EXTRA`` adds only
what they lack), conversions from ``ops_copy.conv``, half-type loads and stores from
``_runtime.load``/``store``, reduction rules from ``ops_reduce.REDUCE``. Sizes and strides
are arguments, never constants, so one build serves every shape. Nothing here raises at
compile time for a kernel it cannot handle: it gives None and the compiler runs the
operators one by one.

Note [CUDA code generation]
    The same scheme as the OpenCL backend's generator (Note [OpenCL code generation] in
    ember_opencl.codegen), in CUDA C: every SSA value ``%i`` becomes a register ``v<i>``
    (float16/bfloat16 held as a float already rounded to its dtype); elementwise kernels
    take ``(n, nd, meta, outputs..., inputs...)`` with each pointer at its tensor's first
    element; reductions run blocks of P outputs x Q threads (Q a power of two) folding in
    shared memory. ``generate`` needs no device, so the tests compile its output offline.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ember.compiler.kernel import Apply, Cast, Const, FusedKernel, Load
from ember_cuda import _runtime as rt
from ember_cuda.ops_copy import bf16_bits, conv
from ember_cuda.ops_elementwise import ALL, BINARY, UNARY, _pick, helpers, subst
from ember_cuda.ops_reduce import LIMITS as _LIMITS
from ember_cuda.ops_reduce import REDUCE

__all__ = [
    "CUDAFusedKernel",
    "CUDAUnsupportedKernel",
    "generate",
    "program_source",
    "compile_kernels",
]

_HALF = ("float16", "bfloat16")
_FLOAT = ("float16", "bfloat16", "float32", "float64")
#: dtype -> C type of a value held in a register (half types compute as rounded floats).
REG = {**rt.CTYPE, "float16": "float", "bfloat16": "float"}
#: dtype -> function rounding a float to it (round to nearest even).
_ROUND = {"float16": "em_rnd_f16", "bfloat16": "em_rnd_bf16"}
#: dtype -> what ``_runtime.store`` takes for it (it rounds half types itself).
_STORED = {"float16": "float32", "bfloat16": "float32"}
#: what ``ops_elementwise`` has no kernel for: op -> (result, [(dtypes, expression)]).
_EXTRA: dict[str, tuple[str, list[tuple]]] = {"where": ("same", [(ALL, "c != 0 ? x : y")])}
#: argument names of an op's expression; ``c`` is passed unconverted.
_ARGNAMES = {"where": "cxy"}
_FOLDS = ("sum", "prod", "amax", "amin")  # the rules of ops_reduce.REDUCE a kernel may use
_REDUCE_LIMITS = {**_LIMITS, "float16": ("-INFINITY", "INFINITY")}
_REDUCE_LIMITS["bfloat16"] = _REDUCE_LIMITS["float16"]
_INT_RANGE = {"uint8": (0, 8), "int8": (1, 8), "int16": (1, 16), "int32": (1, 32), "int64": (1, 64)}

_PRELUDE = r"""
static __device__ __forceinline__ float em_rnd_f16(float v)
{ return em_h2f(em_f2h(v)); }
static __device__ __forceinline__ float em_rnd_bf16(float v) { return em_bf2f(em_f2bf(v)); }
"""


class CUDAUnsupportedKernel(Exception):
    """A kernel this generator has no code for (unknown op, dtype or reduction);
    ``compile_kernels`` turns it into None."""


def _conv(src: str, dst: str, v: str) -> str:
    """C expression converting register value ``v`` of dtype ``src`` to ``dst``'s register."""
    if src == dst or (src in _HALF and dst == "float32"):
        return v
    e = conv(src, dst, v)
    return f"{_ROUND[dst]}({e})" if dst in _ROUND else e


def _literal(value: Any, dt: str) -> str:
    """C literal of ``value`` as ``dt`` (rounded as ``np.asarray(value, dt)`` would)."""
    if dt == "bool":
        return "(uchar)1" if value else "(uchar)0"
    if dt in _INT_RANGE:
        signed, bits = _INT_RANGE[dt]
        v = int(value) & ((1 << bits) - 1)
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        text = "(-0x7fffffffffffffffLL - 1)" if v == -(2**63) else f"{v}LL"
        return f"(({rt.CTYPE[dt]})({text}))"
    if dt not in _FLOAT:
        raise CUDAUnsupportedKernel(dt)
    with np.errstate(all="ignore"):
        if dt == "float16":
            f = float(np.float16(float(value)))
        elif dt == "bfloat16":
            bits = bf16_bits(float(value))
            f = float(np.array(bits << 16, np.uint32).view(np.float32))
        else:
            f = float(np.dtype(dt).type(float(value)))
    cast = "(double)" if dt == "float64" else "(float)"
    if math.isnan(f):
        return f"{cast}NAN"
    if math.isinf(f):
        return f"{cast}{'-' if f < 0 else ''}INFINITY"
    return f"{f.hex()}{'' if dt == 'float64' else 'f'}"


def _declare(name: str, src: str, cd: str, v: str) -> str:
    """Declare argument ``name`` of an expression: ``v`` converted to the compute dtype
    ``cd``, except ``where``'s condition ``c``, which keeps its own."""
    dt = src if name == "c" else cd
    return f"{REG[dt]} {name} = {_conv(src, dt, v)};"


def _rule(op: str, cd: str) -> tuple[str, str]:
    """(result dtype, expression) of ``op`` computed in dtype ``cd``."""
    entry: tuple[str, list[Any]] | None = _EXTRA.get(op) or UNARY.get(op) or BINARY.get(op)
    rule = _pick(entry[1], cd) if entry is not None else None
    if entry is None or rule is None:
        raise CUDAUnsupportedKernel(f"no CUDA expression for {op!r} in {cd}")
    return ("bool" if entry[0] == "bool" else cd), subst(rule[1], cd)


def _body(kernel: FusedKernel) -> tuple[list[str], list[str], set[str]]:
    """C statements of the SSA body, the dtype of every value, the compute dtypes used."""
    lines: list[str] = []
    vdt: list[str] = []
    used: set[str] = set()
    for i, ins in enumerate(kernel.body):
        if isinstance(ins, Load):
            dt = kernel.inputs[ins.input]
            val = rt.load(dt, f"p_a{ins.input}", f"i_a{ins.input}")
        elif isinstance(ins, Const):
            dt, val = ins.dtype, _literal(ins.value, ins.dtype)
        elif isinstance(ins, Cast):
            dt, val = ins.dtype, _conv(vdt[ins.arg], ins.dtype, f"v{ins.arg}")
        elif isinstance(ins, Apply):
            dt, cd = ins.dtype, ("float32" if ins.cdtype in _HALF else ins.cdtype)
            res, expr = _rule(ins.op, cd)
            used.add(cd)
            names = _ARGNAMES.get(ins.op, "xy")
            decl = " ".join(_declare(n, vdt[a], cd, f"v{a}") for n, a in zip(names, ins.args))
            val = _conv(res, dt, f"(({REG[res]})({expr}))")
            lines.append(f"{REG[dt]} v{i}; {{ {decl} v{i} = {val}; }}")
            vdt.append(dt)
            continue
        else:
            raise CUDAUnsupportedKernel(type(ins).__name__)
        lines.append(f"{REG[dt]} v{i} = {val};")
        vdt.append(dt)
    return lines, vdt, used


def _params(kernel: FusedKernel) -> str:
    outs = [f"{rt.CTYPE[d]}* p_o{k}, const i64 off_o{k}" for k, d in enumerate(kernel.out_dtypes)]
    ins = [f"const {rt.CTYPE[d]}* p_a{k}, const i64 off_a{k}" for k, d in enumerate(kernel.inputs)]
    return ", ".join(outs + ins)


def _elementwise_source(name: str, kernel: FusedKernel, lines: list[str], vdt: list[str]) -> str:
    names = [f"a{k}" for k in range(len(kernel.inputs))]
    stores = [
        rt.store(d, f"p_o{k}", f"off_o{k} + i", _conv(vdt[o], _STORED.get(d, d), f"v{o}"))
        for k, (o, d) in enumerate(zip(kernel.outputs, kernel.out_dtypes))
    ]
    body = "\n    ".join(lines + stores)
    return (
        f'extern "C" __global__ void {name}(const i64 n, const int nd, const i64* meta, '
        f"{_params(kernel)})\n{{\n    i64 i = EM_GID; if (i >= n) return;\n"
        f"    {_index_code(names)}\n    {body}\n}}\n"
    )


def _index_code(names: list[str]) -> str:
    return rt.index_code(names) if names else ""


def _reduce_source(
    name: str, kernel: FusedKernel, op: str, lines: list[str], vdt: list[str], fp64: bool
) -> str:
    if op not in _FOLDS:
        raise CUDAUnsupportedKernel(f"reduce {op!r} (known: {', '.join(_FOLDS)})")
    _, rule, init, comb, _, _ = REDUCE[op]
    nin = len(kernel.inputs)
    decl, fold, tree, final = [], [], [], []
    for k, (o, d) in enumerate(zip(kernel.outputs, kernel.out_dtypes)):
        if rule == "wide":
            acc = ("float64" if fp64 else "float32") if d in _FLOAT else "int64"
        else:
            acc = d
        lo, hi = _REDUCE_LIMITS[acc]
        ini = init.replace("LOWEST", lo).replace("HIGHEST", hi)
        decl.append(
            f"__shared__ {REG[acc]} lv{k}[{rt.BLOCK}]; {REG[acc]} acc{k} = ({REG[acc]})({ini});"
        )
        w = f"({_conv(vdt[o], acc, f'v{o}')})"
        fold.append(f"acc{k} = {comb.replace('(c)', f'(acc{k})').replace('(v)', w)};")
        merge = comb.replace("(c)", f"(lv{k}[lid])").replace("(v)", f"(lv{k}[lid + s])")
        tree.append((f"lv{k}[lid] = acc{k};", f"lv{k}[lid] = {merge};", f"acc{k} = lv{k}[lid];"))
        sd = _STORED.get(d, d)
        final.append(rt.store(d, f"p_o{k}", f"off_o{k} + o", _conv(acc, sd, f"acc{k}")))
    base = " ".join(f"i64 b_a{k} = off_a{k};" for k in range(nin))
    obase = " ".join(f"b_a{k} += c * meta[{k + 1} * ndo + d];" for k in range(nin))
    i1 = " ".join(f"i_a{k} = b_a{k} + r * rm[{k + 1}];" for k in range(nin))
    iset = " ".join(f"i_a{k} = b_a{k};" for k in range(nin))
    iupd = " ".join(f"i_a{k} += c * rm[{k + 1} * ndr + d];" for k in range(nin))
    idecl = f"i64 {', '.join(f'i_a{k}' for k in range(nin))};" if nin else ""
    nl = "\n        "
    return f"""extern "C" __global__ void {name}(const i64 O, const i64 R, const i64 P, const i64 Q,
    const int ndo, const int ndr, const i64* meta, {_params(kernel)})
{{
    {nl.join(decl)}
    const i64 lid = threadIdx.x, q = lid % Q, o = blockIdx.x * P + lid / Q;
    if (o < O) {{
        i64 rem = o; {base}
        for (int d = ndo - 1; d >= 0; --d) {{ i64 s = meta[d], c = rem % s; rem /= s; {obase} }}
        const i64* rm = meta + {nin + 1} * ndo;
        for (i64 r = q; r < R; r += Q) {{
            {idecl}
            if (ndr == 1) {{ {i1} }}
            else {{ {iset} i64 t = r;
                for (int d = ndr - 1; d >= 0; --d) {{ i64 s = rm[d], c = t % s; t /= s;
                    {iupd} }} }}
            {(nl + "    ").join(lines)}
            {(nl + "    ").join(fold)}
        }}
    }}
    if (Q > 1) {{
        {" ".join(t[0] for t in tree)}
        __syncthreads();
        for (i64 s = Q / 2; s > 0; s >>= 1) {{
            if (q < s) {{ {" ".join(t[1] for t in tree)} }}
            __syncthreads();
        }}
        {" ".join(t[2] for t in tree)}
    }}
    if (o < O && q == 0) {{ {" ".join(final)} }}
}}
"""


def generate(kernel: FusedKernel, name: str, fp64: bool = True) -> tuple[str, set[str]]:
    """CUDA C of ``kernel`` as ``extern "C" __global__ void <name>`` and the compute dtypes it needs.

    Raises ``CUDAUnsupportedKernel`` for an op, dtype or reduction it has no code for (float64 on
    float64 accumulation is always available on CUDA).

    Examples:
        >>> from ember.compiler.kernel import Apply, FusedKernel, Load
        >>> k = FusedKernel(("float32",), (Load(0), Apply("exp", (0,), "float32", "float32")),
        ...                 (1,), ("float32",))
        >>> src, used = generate(k, "fk", fp64=True)
        >>> "exp(x)" in src, sorted(used)
        (True, ['float32'])
    """
    dts = {*kernel.inputs, *kernel.out_dtypes}
    for ins in kernel.body:
        dts.update(getattr(ins, a) for a in ("dtype", "cdtype") if hasattr(ins, a))
    if not dts <= rt.CTYPE.keys():
        raise CUDAUnsupportedKernel(", ".join(sorted(dts - rt.CTYPE.keys())))
    if any(o >= len(kernel.body) for o in kernel.outputs) or not kernel.outputs:
        raise CUDAUnsupportedKernel("outputs")
    lines, vdt, used = _body(kernel)
    if kernel.reduce is None:
        return _elementwise_source(name, kernel, lines, vdt), used
    if not kernel.inputs:
        raise CUDAUnsupportedKernel("a reduction without inputs")
    return _reduce_source(name, kernel, kernel.reduce.op, lines, vdt, fp64), used


def program_source(parts: list[tuple[str, set[str]]]) -> str:
    used = sorted({dt for _, u in parts for dt in u})
    return "\n".join([_PRELUDE, *(helpers(dt) for dt in used), *(src for src, _ in parts)])


class CUDAFusedKernel:
    """One generated kernel, called as ``fn(inputs, outputs)`` (Note [Fused kernels])."""

    __slots__ = ("kernel", "name", "source", "_fns", "_ndim")

    def __init__(self, kernel: FusedKernel, name: str, source: str):
        self.kernel = kernel
        self.name = name
        self.source = source
        self._ndim = kernel.reduce.ndim if kernel.reduce is not None else -1
        self._fns: dict[int, Any] = {}

    def __repr__(self) -> str:
        return f"<CUDAFusedKernel {self.name}>"

    def _fn(self, dev: rt.CUDADevice) -> Any:
        src = self.source
        f = self._fns[dev.index] = dev.function(("fused", src), self.name, lambda: src)
        return f

    def __call__(self, inputs: list[Any], outputs: list[Any]) -> None:
        dev = rt.device_of(outputs[0])
        k = self._fns.get(dev.index) or self._fn(dev)
        ptrs: list[Any] = []
        for t in (*outputs, *inputs):
            ptrs += (rt.ptr(t), np.int64(0))
        if self._ndim >= 0:
            self._reduce(dev, k, inputs, ptrs)
            return
        shape = tuple(outputs[0]._shape)
        n = math.prod(shape)
        if n == 0:
            return
        cst, acc = [], 1
        for s in reversed(shape):
            cst.append(acc)
            acc *= s
        cst.reverse()
        strides = [tuple(t._stride) for t in inputs]
        nd, meta = 0, np.uint64(0)
        if any(st != tuple(cst) for st in strides):
            cshape, cstr = rt.coalesce(shape, strides)
            if len(cshape) != 1 or any(st != [1] for st in cstr):
                nd, meta = len(cshape), dev.meta(cshape + [s for st in cstr for s in st])
        dev.launch(k, n, np.int64(n), np.int32(nd), meta, *ptrs)

    def _reduce(self, dev: rt.CUDADevice, k: Any, inputs: list[Any], ptrs: list[Any]) -> None:
        shape = tuple(inputs[0]._shape)
        nk = len(shape) - self._ndim
        O, R = math.prod(shape[:nk]), math.prod(shape[nk:])
        if O == 0:
            return
        strides = [tuple(t._stride) for t in inputs]
        oshape, ostr = rt.coalesce(shape[:nk], [st[:nk] for st in strides])
        rshape, rstr = rt.coalesce(shape[nk:], [st[nk:] for st in strides])
        if not rshape:
            rshape, rstr = [1], [[0] for _ in strides]
        meta = oshape + [s for st in ostr for s in st] + rshape + [s for st in rstr for s in st]
        Q = 1 if R < 64 or O >= 2048 else (32 if R < 4096 else rt.BLOCK)
        P = max(1, 64 // Q) if Q < rt.BLOCK else 1
        head = (np.int64(O), np.int64(R), np.int64(P), np.int64(Q))
        head += (np.int32(len(oshape)), np.int32(len(rshape)), dev.meta(meta))
        dev.launch_nd(k, -(-O // P), P * Q, *head, *ptrs)


def compile_kernels(kernels: list[FusedKernel]) -> list[CUDAFusedKernel | None]:
    """One ``CUDAFusedKernel`` (or None where it cannot) per kernel, all in one module."""
    devs = rt.devices()
    if not devs:
        return [None] * len(kernels)
    names: list[str | None] = []
    parts: dict[str, tuple[str, set[str]]] = {}
    for k in kernels:
        name = f"fk_{k.source_key()}"
        try:
            if name not in parts:
                parts[name] = generate(k, name)
            names.append(name)
        except CUDAUnsupportedKernel:
            names.append(None)
    if not parts:
        return [None] * len(kernels)
    src = program_source(list(parts.values()))
    try:
        devs[0].module(("fused", src), lambda: src).get_function(next(iter(parts)))
    except Exception as e:  # NVRTC's CompileException with the log: run unfused instead
        warnings.warn(
            f"ember_cuda: compiling {len(parts)} fused kernel(s) failed; they run unfused: "
            f"{str(e)[-1500:]}",
            RuntimeWarning,
            stacklevel=3,
        )
        return [None] * len(kernels)
    return [CUDAFusedKernel(k, n, src) if n else None for k, n in zip(kernels, names)]
