# ruff: noqa: E501  (embedded CUDA C keeps its natural line length)
"""Elementwise kernels (unary, binary, compare, logical, where) from one expression table.

``UNARY`` and ``BINARY`` map an operator to ``(result, [(dtypes, expression), ...])``:
the expression is CUDA C in ``x`` (and ``y``), with ``@T`` the compute type, ``@S`` the
compute dtype's helper suffix and ``@L`` its literal suffix. One module per (family,
dtype) holds the kernels of every operator of the family for that dtype, so each family
compiles once per dtype (and CuPy keeps the binary on disk). The core has already
broadcast the inputs to ``out``'s shape and cast them to the compute dtype.

float16 and bfloat16 are native (``Capabilities.native_half``): a kernel reads the
16-bit values, computes in float32 registers (PyTorch's "opmath") and rounds once
when it stores, so no float32 copy of a half tensor is ever made.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember_cuda._runtime import CTYPE, UTYPE, device_of, index_code, load, ptr, store

__all__ = ["UNARY", "BINARY", "BINARY_ALPHA", "unary", "binary", "where", "kernels", "plan"]
__all__ += ["source", "where_source", "FAMILY_DTYPES"]

B = ["bool"]
U = ["uint8"]
SI = ["int8", "int16", "int32", "int64"]
I = U + SI  # noqa: E741
H = ["float16", "bfloat16"]
F = ["float32", "float64"] + H
N = I + F
ALL = B + N
#: every dtype a family module is generated for
FAMILY_DTYPES = tuple(ALL)

_NAN2 = "((x != x) | (y != y))"

#: op -> (result kind, [(dtypes, expression in x)]); result "same" or "bool".
UNARY: dict[str, tuple[str, list[tuple[list[str], str]]]] = {
    "neg": ("same", [(N, "-x")]),
    "abs": ("same", [(SI, "x < 0 ? -x : x"), (U, "x"), (F, "fabs(x)")]),
    "square": ("same", [(N, "x * x")]),
    "relu": ("same", [(SI + F, "x < 0 ? (@T)0 : x"), (U, "x")]),
    "sign": ("same", [(B + U, "x != 0"), (SI + F, "(x > 0) - (x < 0)")]),
    "floor": ("same", [(I, "x"), (F, "floor(x)")]),
    "ceil": ("same", [(I, "x"), (F, "ceil(x)")]),
    "trunc": ("same", [(I, "x"), (F, "trunc(x)")]),
    "round": ("same", [(I, "x"), (F, "rint(x)")]),
    "frac": ("same", [(F, "x - trunc(x)")]),
    "reciprocal": ("same", [(F, "(@T)1 / x")]),
    "rsqrt": ("same", [(F, "(@T)1 / sqrt(x)")]),
    "sigmoid": ("same", [(F, "em_sigmoid_@S(x)")]),
    "silu": ("same", [(F, "x * em_sigmoid_@S(x)")]),
    "softplus": ("same", [(F, "em_softplus_@S(x)")]),
    "mish": ("same", [(F, "x * tanh(em_softplus_@S(x))")]),
    "gelu": ("same", [(F, "x * 0.5@L * erfc(-x * 0.70710678118654752440@L)")]),
    "gelu_tanh": (
        "same",
        [(F, "x * em_sigmoid_@S(1.59576912160573071176@L * (x + 0.044715@L * x * x * x))")],
    ),
    "logical_not": ("bool", [(ALL, "x == 0")]),
    "isnan": ("bool", [(F, "x != x"), (B + I, "0")]),
    "isinf": ("bool", [(F, "fabs(x) == (@T)INFINITY"), (B + I, "0")]),
    "isfinite": ("bool", [(F, "fabs(x) < (@T)INFINITY"), (B + I, "1")]),
    "bitwise_not": ("same", [(B, "!x"), (I, "~x")]),
    "erfinv": ("same", [(F, "em_erfinv_@S(x)")]),
    "digamma": ("same", [(F, "em_digamma_@S(x)")]),
    "lgamma": ("same", [(F, "lgamma(x)")]),
}
for _f in (
    "exp exp2 expm1 log log2 log10 log1p sqrt sin cos tan asin acos atan sinh cosh tanh "
    "asinh acosh atanh erf erfc"
).split():
    UNARY[_f] = ("same", [(F, f"{_f}(x)")])

_IMAX = "(x > y ? x : y)"
_IMIN = "(x < y ? x : y)"

#: op -> (result kind, [(dtypes, expression in x and y[, error condition])]).
BINARY: dict[str, tuple[str, list[tuple]]] = {
    "add": ("same", [(B, "x | y"), (N, "x + y")]),
    "sub": ("same", [(N, "x - y")]),
    "mul": ("same", [(B, "x & y"), (N, "x * y")]),
    "div": ("same", [(F, "x / y")]),
    "div_floor": ("same", [(F, "em_divfloor_@S(x, y)"), (I, "em_idivfloor_@S(x, y)", "y == 0")]),
    "div_trunc": ("same", [(F, "trunc(x / y)"), (I, "em_idivtrunc_@S(x, y)", "y == 0")]),
    "remainder": ("same", [(F, "em_remainder_@S(x, y)"), (I, "em_irem_@S(x, y)", "y == 0")]),
    "fmod": ("same", [(F, "fmod(x, y)"), (I, "em_ifmod_@S(x, y)", "y == 0")]),
    "maximum": ("same", [(B, "x | y"), (I, _IMAX), (F, f"{_NAN2} ? x + y : fmax(x, y)")]),
    "minimum": ("same", [(B, "x & y"), (I, _IMIN), (F, f"{_NAN2} ? x + y : fmin(x, y)")]),
    "pow": ("same", [(F, "pow(x, y)"), (I, "em_ipow_@S(x, y)")]),
    "atan2": ("same", [(F, "atan2(x, y)")]),
    "hypot": ("same", [(F, "hypot(x, y)")]),
    "copysign": ("same", [(F, "copysign(x, y)")]),
    "nextafter": ("same", [(F, "nextafter(x, y)")]),
    "gcd": ("same", [(I, "em_igcd_@S(x, y)")]),
    "eq": ("bool", [(ALL, "x == y")]),
    "ne": ("bool", [(ALL, "x != y")]),
    "lt": ("bool", [(ALL, "x < y")]),
    "le": ("bool", [(ALL, "x <= y")]),
    "gt": ("bool", [(ALL, "x > y")]),
    "ge": ("bool", [(ALL, "x >= y")]),
    "logical_and": ("bool", [(ALL, "(x != 0) & (y != 0)")]),
    "logical_or": ("bool", [(ALL, "(x != 0) | (y != 0)")]),
    "logical_xor": ("bool", [(ALL, "(x != 0) ^ (y != 0)")]),
    "bitwise_and": ("same", [(B + I, "x & y")]),
    "bitwise_or": ("same", [(B + I, "x | y")]),
    "bitwise_xor": ("same", [(B + I, "x ^ y")]),
    "bitwise_left_shift": ("same", [(I, "em_ishl_@S(x, y)")]),
    "bitwise_right_shift": ("same", [(I, "em_ishr_@S(x, y)")]),
}
#: add/sub with alpha != 1 (alpha is the compute type for floats, i64 for integers).
BINARY_ALPHA = {
    "add": [(B, "x | (y & alpha)"), (N, "x + alpha * y")],
    "sub": [(N, "x - alpha * y")],
}

_FLOAT_HELPERS = r"""
static __device__ __forceinline__ @T em_sigmoid_@S(@T x) { return (@T)1 / ((@T)1 + exp(-x)); }
static __device__ __forceinline__ @T em_softplus_@S(@T x) { return x > (@T)20 ? x : log1p(exp(x)); }
static __device__ __forceinline__ @T em_divfloor_@S(@T a, @T b)
{   /* floor(a / b) computed from fmod, exact where a / b would round up to an integer */
    if (b == 0) return a / b;
    @T m = fmod(a, b), d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
    if (d == 0) return copysign((@T)0, a / b);
    @T fl = floor(d);
    if (d - fl > 0.5@L) fl += 1;
    return fl;
}
static __device__ __forceinline__ @T em_remainder_@S(@T a, @T b)
{
    @T m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}
/* erfinv: Halley's iteration on erf (erfc in the tail) from a closed-form first guess */
static __device__ @T em_erfinv_@S(@T y)
{
    if (y != y) return y;
    @T ay = fabs(y);
    if (ay >= (@T)1) return ay == (@T)1 ? copysign((@T)INFINITY, y) : (@T)NAN;
    if (ay == (@T)0) return y;
    @T x;
    if (ay < 1e-3@L) {
        x = 0.88622692545275801365@L * ay * ((@T)1 + 0.78539816339744830962@L * ay * ay);
    } else {
        @T l = log(((@T)1 - ay) * ((@T)1 + ay));
        @T t = 4.3307467508209590@L + 0.5@L * l;
        x = sqrt(sqrt(t * t - l / 0.147@L) - t);
    }
    for (int k = 0; k < 3; k++) {
        @T f = ay <= 0.5@L ? erf(x) - ay : ((@T)1 - ay) - erfc(x);
        @T d = 1.12837916709551257390@L * exp(-x * x);
        x -= f / (d + x * f);
    }
    return copysign(x, y);
}
/* digamma: reflection for x < 0, recurrence up to x >= 10, asymptotic series */
static __device__ @T em_digamma_@S(@T x)
{
    if (x != x || x == (@T)INFINITY) return x;
    if (x == -(@T)INFINITY) return (@T)NAN;
    if (x == (@T)0) return copysign((@T)INFINITY, -x);
    @T acc = 0;
    if (x < (@T)0) {
        @T fl = floor(x);
        if (x == fl) return (@T)NAN;
        acc = -3.14159265358979323846@L / tan(3.14159265358979323846@L * (x - rint(x)));
        x = (@T)1 - x;
    }
    while (x < (@T)10) { acc -= (@T)1 / x; x += (@T)1; }
    @T xi = (@T)1 / (x * x);
    @T s = xi * ((@T)1 / 12 - xi * ((@T)1 / 120 - xi * ((@T)1 / 252 - xi * ((@T)1 / 240
           - xi * ((@T)1 / 132 - xi * ((@T)691 / 32760 - xi / (@T)12))))));
    return acc + log(x) - 0.5@L / x - s;
}
"""
_SIGNED_HELPERS = r"""
static __device__ __forceinline__ @T em_idivfloor_@S(@T a, @T b)
{
    if (b == 0) return 0;
    if (b == -1) return (@T)(0 - (@U)a);
    @T q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? (@T)(q - 1) : q;
}
static __device__ __forceinline__ @T em_idivtrunc_@S(@T a, @T b)
{ return b == 0 ? 0 : (b == -1 ? (@T)(0 - (@U)a) : (@T)(a / b)); }
static __device__ __forceinline__ @T em_irem_@S(@T a, @T b)
{
    if (b == 0 || b == -1) return 0;
    @T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? (@T)(r + b) : r;
}
static __device__ __forceinline__ @T em_ifmod_@S(@T a, @T b) { return (b == 0 || b == -1) ? 0 : (@T)(a % b); }
static __device__ __forceinline__ @T em_ipow_@S(@T a, @T b)
{
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    u64 r = 1, base = (u64)(i64)a, e = (u64)b;
    while (e) { if (e & 1) r *= base; base *= base; e >>= 1; }
    return (@T)r;
}
static __device__ __forceinline__ @T em_ishl_@S(@T a, @T b) { return (b < 0 || b >= @BITS) ? 0 : (@T)((@U)a << b); }
static __device__ __forceinline__ @T em_ishr_@S(@T a, @T b)
{ return (b < 0 || b >= @BITS) ? (@T)(a < 0 ? -1 : 0) : (@T)(a >> b); }
static __device__ __forceinline__ @T em_igcd_@S(@T a, @T b)
{
    @U x = a < 0 ? (@U)0 - (@U)a : (@U)a, y = b < 0 ? (@U)0 - (@U)b : (@U)b;
    while (y) { @U t = x % y; x = y; y = t; }
    return (@T)x;
}
"""
_UNSIGNED_HELPERS = r"""
static __device__ __forceinline__ @T em_idivfloor_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a / b); }
static __device__ __forceinline__ @T em_idivtrunc_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a / b); }
static __device__ __forceinline__ @T em_irem_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a % b); }
static __device__ __forceinline__ @T em_ifmod_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a % b); }
static __device__ __forceinline__ @T em_ipow_@S(@T a, @T b)
{
    u64 r = 1, base = a, e = b;
    while (e) { if (e & 1) r *= base; base *= base; e >>= 1; }
    return (@T)r;
}
static __device__ __forceinline__ @T em_ishl_@S(@T a, @T b) { return b >= @BITS ? 0 : (@T)(a << b); }
static __device__ __forceinline__ @T em_ishr_@S(@T a, @T b) { return b >= @BITS ? 0 : (@T)(a >> b); }
static __device__ __forceinline__ @T em_igcd_@S(@T a, @T b)
{
    while (b) { @T t = a % b; a = b; b = t; }
    return a;
}
"""
_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
_UNS = {"uint8": "uchar", "int8": "uchar", "int16": "ushort", "int32": "uint", "int64": "u64"}
#: dtype -> the C type values are computed in (half types compute in float).
REG = {**CTYPE, "float16": "float", "bfloat16": "float"}


def compute_dtype(dt: str) -> str:
    """The dtype whose helpers and literals an expression of ``dt`` uses."""
    return "float32" if dt in H else dt


def subst(text: str, dt: str) -> str:
    """Expand the ``@`` placeholders of ``text`` for dtype ``dt``.

    Examples:
        >>> subst("(@T)1 / x + 0.5@L", "bfloat16")
        '(float)1 / x + 0.5f'
    """
    cd = compute_dtype(dt)
    rep = {
        "@T": REG[cd],
        "@S": cd,
        "@L": "f" if cd == "float32" else "",
        "@U": _UNS.get(cd, ""),
        "@BITS": str(_BITS.get(cd, 0)),
    }
    for k in sorted(rep, key=len, reverse=True):
        text = text.replace(k, rep[k])
    return text


def helpers(dt: str) -> str:
    """The helper functions the expressions of ``dt`` may call."""
    cd = compute_dtype(dt)
    if cd in F:
        return subst(_FLOAT_HELPERS, cd)
    if cd in SI:
        return subst(_SIGNED_HELPERS, cd)
    if cd in U:
        return subst(_UNSIGNED_HELPERS, cd)
    return ""


def _pick(rules: list[tuple], dt: str) -> tuple | None:
    for rule in rules:
        if dt in rule[0]:
            return rule
    return None


def _ew_kernel(name: str, nin: int, dt: str, odt: str, expr: str, chk: str | None, extra: str):
    names = ["o", "a", "b"][: nin + 1]
    T, OT, R = CTYPE[dt], CTYPE[odt], REG[dt]
    params = [f"{OT}* __restrict__ p_o"]
    params += [f"const {T}* __restrict__ p_{n}" for n in names[1:]]
    loads = "".join(f" {R} {v} = {load(dt, f'p_{n}', f'i_{n}')};" for v, n in zip("xy", names[1:]))
    check = f" if ({chk}) err[0] = 1;" if chk else ""
    val = f"({REG[odt]})({subst(expr, dt)})"
    return (
        f'extern "C" __global__ void {name}(const i64 n, const int nd, const i64* __restrict__ meta, '
        f"{', '.join(params)}{extra}, i64* err)\n{{\n"
        f"    i64 i = EM_GID; if (i >= n) return;\n    {index_code(names)}\n"
        f"   {loads}\n    {store(odt, 'p_o', 'i_o', val)}{check}\n}}\n"
    )


def source(family: str, dt: str) -> str:
    """The CUDA C module of ``family`` ("unary" or "binary") for inputs of dtype ``dt``."""
    parts = [helpers(dt)]
    if family == "unary":
        for op, (res, rules) in UNARY.items():
            r = _pick(rules, dt)
            if r is not None:
                odt = "bool" if res == "bool" else dt
                parts.append(_ew_kernel(f"u_{op}", 1, dt, odt, r[1], None, ""))
    else:
        for op, (res, rules) in BINARY.items():
            r = _pick(rules, dt)
            if r is not None:
                odt = "bool" if res == "bool" else dt
                chk = r[2] if len(r) > 2 else None
                parts.append(_ew_kernel(f"b_{op}", 2, dt, odt, r[1], chk, ""))
        at = REG[dt] if dt in F else ("uchar" if dt == "bool" else "i64")
        for op, rules in BINARY_ALPHA.items():
            r = _pick(rules, dt)
            if r is not None:
                parts.append(_ew_kernel(f"ba_{op}", 2, dt, dt, r[1], None, f", const {at} alpha"))
    return "\n".join(parts)


def plan(out: Any, *ins: Any) -> tuple[int, int, list[int]]:
    """(numel, nd, meta) of an elementwise launch over ``out``'s shape; nd 0 = all contiguous.

    Strides are in elements; every pointer already points at its tensor's first element.
    """
    from ember_cuda._runtime import coalesce

    shape = out._shape
    n = 1
    for s in shape:
        n *= s
    cs = []
    acc = 1
    for s in reversed(shape):
        cs.append(acc)
        acc *= s
    cs.reverse()
    cst = tuple(cs)
    strides = [out._stride] + [t._stride for t in ins]
    if all(tuple(st) == cst for st in strides):
        return n, 0, []
    cshape, cstr = coalesce(shape, strides)
    if len(cshape) == 1 and all(st == [1] for st in cstr):
        return n, 0, []
    return n, len(cshape), cshape + [s for st in cstr for s in st]


def _unsupported(op: str, dt: str) -> TypeError:
    return TypeError(f"ember_cuda: {op!r} is not implemented for {dt}")


def _launch(kname: str, family: str, out: Any, ins: tuple, scalars: tuple) -> None:
    dev = device_of(out)
    dt = ins[0]._dtype.name
    n, nd, meta = plan(out, *ins)
    if n == 0:
        return
    k = dev.function((family, dt), kname, partial(source, family, dt))
    chk = family == "binary" and _CHECKED.get((kname, dt), False)
    err = dev.error_flag() if chk else np.uint64(dev._err.data.ptr)
    args: list[Any] = [np.int64(n), np.int32(nd), dev.meta(meta), ptr(out)]
    args += [ptr(t) for t in ins]
    dev.launch(k, n, *args, *scalars, err)
    if chk and dev.read_error():
        raise RuntimeError("ZeroDivisionError")


_CHECKED = {
    (f"b_{op}", dt): True
    for op, (_, rules) in BINARY.items()
    for r in rules
    if len(r) > 2
    for dt in r[0]
}


def unary(op: str, out: Any, a: Any) -> None:
    """out = op(a); out has a's shape and dtype (bool for predicates)."""
    if _pick(UNARY[op][1], a._dtype.name) is None:
        raise _unsupported(op, a._dtype.name)
    _launch(f"u_{op}", "unary", out, (a,), ())


_SCALAR = {"float32": np.float32, "float64": np.float64, "float16": np.float32}
_SCALAR["bfloat16"] = np.float32


def binary(op: str, out: Any, a: Any, b: Any, alpha: Any = 1) -> None:
    """out = op(a, b) (add/sub: a +/- alpha * b); a and b share the compute dtype."""
    dt = a._dtype.name
    if alpha == 1 or op not in BINARY_ALPHA:
        if _pick(BINARY[op][1], dt) is None:
            raise _unsupported(op, dt)
        _launch(f"b_{op}", "binary", out, (a, b), ())
        return
    if dt in F:
        sc: Any = _SCALAR[dt](alpha)
    elif isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    else:
        sc = np.uint8(int(bool(alpha))) if dt == "bool" else np.int64(int(alpha))
    _launch(f"ba_{op}", "binary", out, (a, b), (sc,))


def where_source(isz: int) -> str:
    """The module of ``where`` for elements of ``isz`` bytes (moved as bits)."""
    T = UTYPE[isz]
    return (
        'extern "C" __global__ void where_k(const i64 n, const int nd, const i64* __restrict__ meta, '
        f"{T}* p_o, const uchar* p_c, const {T}* p_a, const {T}* p_b)\n"
        "{\n    i64 i = EM_GID; if (i >= n) return;\n"
        f"    {index_code(['o', 'c', 'a', 'b'])}\n"
        "    p_o[i_o] = p_c[i_c] ? p_a[i_a] : p_b[i_b];\n}\n"
    )


def where(out: Any, cond: Any, a: Any, b: Any) -> None:
    """out = cond ? a : b, any dtype (moved as bits of its item size)."""
    dev = device_of(out)
    n, nd, meta = plan(out, cond, a, b)
    if n == 0:
        return
    isz = out._dtype.itemsize
    k = dev.function(("where", isz), "where_k", partial(where_source, isz))
    args = [np.int64(n), np.int32(nd), dev.meta(meta)] + [ptr(t) for t in (out, cond, a, b)]
    dev.launch(k, n, *args)


def _div_mode(out: Any, a: Any, b: Any, rounding_mode: str | None) -> None:
    op = {"floor": "div_floor", "trunc": "div_trunc", None: "div"}.get(rounding_mode)
    if op is None:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    binary(op, out, a, b)


def _gelu(out: Any, a: Any, approximate: str = "none") -> None:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")
    unary("gelu_tanh" if approximate == "tanh" else "gelu", out, a)


#: operator overload of each BINARY op whose overload name is not "Tensor".
_OVERLOAD = {
    op: "default"
    for op in "maximum minimum atan2 hypot copysign nextafter gcd logical_and logical_or "
    "logical_xor".split()
}


def kernels() -> dict[str, Any]:
    """Operator overload -> kernel for this family."""
    table: dict[str, Any] = {}
    for op in UNARY:
        if op != "gelu_tanh":
            table[f"{op}.default"] = partial(unary, op)
    table["gelu.default"] = _gelu
    for op in BINARY:
        if op not in ("div_floor", "div_trunc", "pow"):
            table[f"{op}.{_OVERLOAD.get(op, 'Tensor')}"] = partial(binary, op)
    table["div.Tensor_mode"] = _div_mode
    table["pow.Tensor_Tensor"] = partial(binary, "pow")
    table["where.self"] = where
    return table
