"""OpenCL C for the compiler's fused kernels (``ember.compiler.kernel.FusedKernel``).

Owns the translation of a ``FusedKernel`` into one ``__kernel``, the program that holds
every kernel of one ``compile_kernels`` call, and the callable ``OpenCLFusedKernel`` the
compiler runs (``fn(inputs, outputs)``, Note [Fused kernels]).

Must always hold: a fused kernel computes what eager ember's OpenCL kernels compute, op
by op: the expressions come from ``ops_elementwise.UNARY``/``BINARY`` (``_EXTRA`` adds
only what they lack), conversions from ``ops_copy.conv``, half-type loads and stores
from ``_runtime.load``/``store``, reduction rules from ``ops_reduce.REDUCE``. Sizes and
strides are arguments, never constants, so one build serves every shape. Nothing here
raises at compile time for a kernel it cannot handle: it gives None and the compiler
runs the operators one by one.

Note [OpenCL code generation]
    Every SSA value ``%i`` becomes a C variable ``v<i>`` of its *register type*: the
    storage type (``CTYPE``), except float16/bfloat16, kept as a float already rounded
    to its dtype (so a Cast to float16 and back rounds exactly once, as PyTorch). An
    ``Apply`` declares its arguments, converted to the compute dtype, as ``x``/``y`` (and
    the untouched condition ``c`` of ``where``) in a block of their own, so the table's
    expression is pasted verbatim; the result is cast to the compute type first (integer
    arithmetic wraps there, as in eager ember) and then converted to the stored dtype.

    Elementwise kernels take ``(n, nd, meta, outputs..., inputs...)``: outputs are
    contiguous (``off + i``), inputs are indexed by ``_runtime.index_code`` over the
    index space coalesced across the inputs; ``nd == 0`` is the all-contiguous path.

    Reduction kernels split the index space into O kept x R folded elements and run
    work-groups of P outputs x Q work-items (Q a power of two): each item folds every
    Q-th element of its output, then the Q partials meet in a local-memory tree. Q = 1
    (one item per output, no tree) serves many outputs or short rows. Sums accumulate in
    double where the device has float64 (integers in int64), as ``ops_reduce`` does.

    All kernels of a ``compile_kernels`` call share one program, built once per device
    and cached in-process by its source (``OpenCLDevice.program``); on disk PoCL keeps
    the binary in its own kernel cache (PyOpenCL defers to it). When the shared build
    fails, each kernel is built alone so only those that fail fall back, with one
    warning carrying the build log's tail.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ember.compiler.kernel import Apply, Cast, Const, FusedKernel, Load
from ember_opencl import _runtime as rt
from ember_opencl.ops_copy import _bf16_bits, conv
from ember_opencl.ops_elementwise import ALL, BINARY, UNARY, _pick, helpers, subst
from ember_opencl.ops_reduce import _LIMITS, REDUCE

__all__ = [
    "OpenCLFusedKernel",
    "OpenCLUnsupportedKernel",
    "generate",
    "compile_kernels",
    "compile_kernel",
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
static inline float em_rnd_f16(float v)
{ ushort h; vstore_half_rte(v, 0, (half*)&h); return vload_half(0, (const half*)&h); }
static inline float em_rnd_bf16(float v) { return em_bf16_to_f32(em_f32_to_bf16(v)); }
"""


class OpenCLUnsupportedKernel(Exception):
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
        text = "(-0x7fffffffffffffffL - 1)" if v == -(2**63) else f"{v}L"
        return f"(({rt.CTYPE[dt]})({text}))"
    if dt not in _FLOAT:
        raise OpenCLUnsupportedKernel(dt)
    with np.errstate(all="ignore"):
        if dt == "float16":
            f = float(np.float16(float(value)))
        elif dt == "bfloat16":
            bits = _bf16_bits(float(value))
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
        raise OpenCLUnsupportedKernel(f"no OpenCL expression for {op!r} in {cd}")
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
            raise OpenCLUnsupportedKernel(type(ins).__name__)
        lines.append(f"{REG[dt]} v{i} = {val};")
        vdt.append(dt)
    return lines, vdt, used


def _params(kernel: FusedKernel) -> str:
    outs = [
        f"__global {rt.CTYPE[d]}* p_o{k}, const long off_o{k}"
        for k, d in enumerate(kernel.out_dtypes)
    ]
    ins = [
        f"__global const {rt.CTYPE[d]}* p_a{k}, const long off_a{k}"
        for k, d in enumerate(kernel.inputs)
    ]
    return ", ".join(outs + ins)


def _elementwise_source(name: str, kernel: FusedKernel, lines: list[str], vdt: list[str]) -> str:
    names = [f"a{k}" for k in range(len(kernel.inputs))]
    stores = [
        rt.store(d, f"p_o{k}", f"off_o{k} + i", _conv(vdt[o], _STORED.get(d, d), f"v{o}"))
        for k, (o, d) in enumerate(zip(kernel.outputs, kernel.out_dtypes))
    ]
    body = "\n    ".join(lines + stores)
    return (
        f"__kernel void {name}(const long n, const int nd, __global const long* meta, "
        f"{_params(kernel)})\n{{\n    long i = get_global_id(0); if (i >= n) return;\n"
        f"    {_index_code(names)}\n    {body}\n}}\n"
    )


def _index_code(names: list[str]) -> str:
    return rt.index_code(names) if names else ""


def _reduce_source(
    name: str, kernel: FusedKernel, op: str, lines: list[str], vdt: list[str], fp64: bool
) -> str:
    if op not in _FOLDS:
        raise OpenCLUnsupportedKernel(f"reduce {op!r} (known: {', '.join(_FOLDS)})")
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
            f"__local {REG[acc]} lv{k}[{rt.LOCAL}]; {REG[acc]} acc{k} = ({REG[acc]})({ini});"
        )
        w = f"({_conv(vdt[o], acc, f'v{o}')})"
        fold.append(f"acc{k} = {comb.replace('(c)', f'(acc{k})').replace('(v)', w)};")
        merge = comb.replace("(c)", f"(lv{k}[lid])").replace("(v)", f"(lv{k}[lid + s])")
        tree.append((f"lv{k}[lid] = acc{k};", f"lv{k}[lid] = {merge};", f"acc{k} = lv{k}[lid];"))
        sd = _STORED.get(d, d)
        final.append(rt.store(d, f"p_o{k}", f"off_o{k} + o", _conv(acc, sd, f"acc{k}")))
    base = " ".join(f"long b_a{k} = off_a{k};" for k in range(nin))
    obase = " ".join(f"b_a{k} += c * meta[{k + 1} * ndo + d];" for k in range(nin))
    i1 = " ".join(f"i_a{k} = b_a{k} + r * rm[{k + 1}];" for k in range(nin))
    iset = " ".join(f"i_a{k} = b_a{k};" for k in range(nin))
    iupd = " ".join(f"i_a{k} += c * rm[{k + 1} * ndr + d];" for k in range(nin))
    idecl = f"long {', '.join(f'i_a{k}' for k in range(nin))};" if nin else ""
    nl = "\n        "
    return f"""__kernel void {name}(const long O, const long R, const long P, const long Q,
    const int ndo, const int ndr, __global const long* meta, {_params(kernel)})
{{
    {nl.join(decl)}
    const long lid = get_local_id(0), q = lid % Q, o = get_group_id(0) * P + lid / Q;
    if (o < O) {{
        long rem = o; {base}
        for (int d = ndo - 1; d >= 0; --d) {{ long s = meta[d], c = rem % s; rem /= s; {obase} }}
        __global const long* rm = meta + {nin + 1} * ndo;
        for (long r = q; r < R; r += Q) {{
            {idecl}
            if (ndr == 1) {{ {i1} }}
            else {{ {iset} long t = r;
                for (int d = ndr - 1; d >= 0; --d) {{ long s = rm[d], c = t % s; t /= s;
                    {iupd} }} }}
            {(nl + "    ").join(lines)}
            {(nl + "    ").join(fold)}
        }}
    }}
    if (Q > 1) {{
        {" ".join(t[0] for t in tree)}
        barrier(CLK_LOCAL_MEM_FENCE);
        for (long s = Q / 2; s > 0; s >>= 1) {{
            if (q < s) {{ {" ".join(t[1] for t in tree)} }}
            barrier(CLK_LOCAL_MEM_FENCE);
        }}
        {" ".join(t[2] for t in tree)}
    }}
    if (o < O && q == 0) {{ {" ".join(final)} }}
}}
"""


def generate(kernel: FusedKernel, name: str, fp64: bool) -> tuple[str, set[str]]:
    """OpenCL C of ``kernel`` as ``__kernel void <name>`` and the compute dtypes it needs.

    Raises ``OpenCLUnsupportedKernel`` for an op, dtype or reduction it has no code for (float64 on
    a device without ``cl_khr_fp64`` included).

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
        raise OpenCLUnsupportedKernel(", ".join(sorted(dts - rt.CTYPE.keys())))
    if not fp64 and "float64" in dts:
        raise OpenCLUnsupportedKernel("float64 (the device lacks cl_khr_fp64)")
    if any(o >= len(kernel.body) for o in kernel.outputs) or not kernel.outputs:
        raise OpenCLUnsupportedKernel("outputs")
    lines, vdt, used = _body(kernel)
    if kernel.reduce is None:
        return _elementwise_source(name, kernel, lines, vdt), used
    if not kernel.inputs:
        raise OpenCLUnsupportedKernel("a reduction without inputs")
    return _reduce_source(name, kernel, kernel.reduce.op, lines, vdt, fp64), used


def _program_source(parts: list[tuple[str, set[str]]]) -> str:
    used = sorted({dt for _, u in parts for dt in u})
    return "\n".join([_PRELUDE, *(helpers(dt) for dt in used), *(src for src, _ in parts)])


class OpenCLFusedKernel:
    """One generated kernel, called as ``fn(inputs, outputs)`` (Note [Fused kernels]).

    ``name`` is the ``__kernel``'s name and ``source`` the program holding it; the
    per-device kernel object and each shape's layout are looked up once.
    """

    __slots__ = ("kernel", "name", "source", "_argtypes", "_kernels", "_layouts", "_ndim")

    def __init__(self, kernel: FusedKernel, name: str, source: str):
        self.kernel = kernel
        self.name = name
        self.source = source
        nargs = len(kernel.inputs) + len(kernel.outputs)
        self._ndim = kernel.reduce.ndim if kernel.reduce is not None else -1
        head = [np.int64, np.int32, None] if self._ndim < 0 else [np.int64] * 4 + [np.int32] * 2
        self._argtypes: list[Any] = (
            head + ([None] if self._ndim >= 0 else []) + [None, np.int64] * nargs
        )
        self._kernels: dict[int, Any] = {}
        self._layouts: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}

    def __repr__(self) -> str:
        return f"<OpenCLFusedKernel {self.name}>"

    def _kernel(self, dev: rt.OpenCLDevice) -> Any:
        if not _build(dev, self.source):
            raise RuntimeError(
                f"ember_opencl: fused kernel {self.name} does not build on "
                f"{dev.name}:\n{_FAILED[self.source][-2000:]}"
            )
        src = self.source
        k = dev.kernel(("fused", src), self.name, lambda: src, self._argtypes)
        self._kernels[dev.index] = k
        return k

    def _layout(self, shape: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        n, acc, cs = 1, 1, []
        for s in reversed(shape):
            cs.append(acc)
            acc *= s
            n *= s
        lay = self._layouts[shape] = (n, tuple(reversed(cs)))
        return lay

    def __call__(self, inputs: list[Any], outputs: list[Any]) -> None:
        dev = rt.device_of(outputs[0])
        k = self._kernels.get(dev.index) or self._kernel(dev)
        if self._ndim >= 0:
            self._reduce(dev, k, inputs, outputs)
            return
        shape = tuple(outputs[0]._shape)
        n, cst = self._layouts.get(shape) or self._layout(shape)
        if n == 0:
            return
        strides = [tuple(t._stride) for t in inputs]
        nd, meta = 0, dev._dummy
        if any(st != cst for st in strides):
            cshape, cstr = rt.coalesce(shape, strides)
            if len(cshape) != 1 or any(st != [1] for st in cstr):
                nd, meta = len(cshape), dev.meta(cshape + [s for st in cstr for s in st])
        args: list[Any] = [n, nd, meta]
        for t in outputs:
            args += (t._storage.data.buf, t._offset)
        for t in inputs:
            args += (t._storage.data.buf, t._offset)
        dev.launch(k, n, *args)

    def _reduce(self, dev: rt.OpenCLDevice, k: Any, inputs: list[Any], outputs: list[Any]) -> None:
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
        Q = 1 if R < 64 or O >= 2048 else (16 if R < 4096 else rt.LOCAL)
        Q = min(Q, dev.local)
        P = max(1, 64 // Q)
        args: list[Any] = [O, R, P, Q, len(oshape), len(rshape), dev.meta(meta)]
        for t in outputs:
            args += (t._storage.data.buf, t._offset)
        for t in inputs:
            args += (t._storage.data.buf, t._offset)
        dev.launch_nd(k, (-(-O // P) * P * Q,), (P * Q,), *args)


def compile_kernels(kernels: list[FusedKernel]) -> list[OpenCLFusedKernel | None]:
    """One ``OpenCLFusedKernel`` (or None where it cannot) per kernel, all in one program.

    The program is built now on the first device (on others at their first call). When
    the build fails, each kernel is built alone: those that fail give None, and one
    warning shows the tail of a failing build's log.
    """
    devs = rt.devices()
    if not devs:
        return [None] * len(kernels)
    fp64 = all(d.fp64 for d in devs)
    names: list[str | None] = []
    parts: dict[str, tuple[str, set[str]]] = {}
    for k in kernels:
        name = f"fk_{k.source_key()}"
        try:
            if name not in parts:
                parts[name] = generate(k, name, fp64)
            names.append(name)
        except OpenCLUnsupportedKernel:
            names.append(None)
    if not parts:
        return [None] * len(kernels)
    src = _program_source(list(parts.values()))
    built = dict.fromkeys(parts, src)
    if not _build(devs[0], src):
        built = {}
        if len(parts) > 1:
            for n, part in parts.items():
                one = _program_source([part])
                if _build(devs[0], one):
                    built[n] = one
                else:
                    src = one
        _warn(len(parts) - len(built), src)
    return [
        OpenCLFusedKernel(k, n, built[n]) if n in built else None for k, n in zip(kernels, names)
    ]


def compile_kernel(kernel: FusedKernel) -> OpenCLFusedKernel | None:
    """``compile_kernels([kernel])[0]``."""
    return compile_kernels([kernel])[0]


_FAILED: dict[str, str] = {}  # program source -> build log, so a bad source builds once
_WARNED: set[str] = set()


def _build(dev: rt.OpenCLDevice, src: str) -> bool:
    """Build ``src`` on ``dev`` (cached by source); False where the build fails."""
    if src in _FAILED:
        return False
    try:
        dev.program(("fused", src), lambda: src)
    except Exception as e:  # pyopencl's RuntimeError(BUILD_PROGRAM_FAILURE) with the log
        _FAILED[src] = str(e)
        return False
    return True


def _warn(nfailed: int, src: str) -> None:
    if src in _WARNED:
        return
    _WARNED.add(src)
    tail = "\n".join(_FAILED.get(src, "").strip().splitlines()[-12:])
    warnings.warn(
        f"ember_opencl: building {nfailed} fused kernel(s) failed; they run unfused. "
        f"Build log (tail):\n{tail}",
        RuntimeWarning,
        stacklevel=3,
    )
