# ruff: noqa: E501  (embedded C templates keep their natural line length)
"""CFFI (API mode) builder for ``ember_cpu._C``.

All elementwise / cast / reduction kernels are generated here from a few
tables: one expression table per family (UNARY, BINARY, BINARY_ALPHA, REDUCE,
the cast rules in ``conv``) plus per-op dtype lists, expanded through string
templates into C translation units, one per kernel family, that include the
hand-written helpers in ``csrc/`` (Note [ember_cpu translation units]).
``cdef`` declarations are produced from the same tables, and ``SPECS`` (a
JSON-able summary of what exists) is embedded into the module as
``lib.em_specs()`` so the Python layer can build its dispatch dicts without
re-deriving the tables.

Used by setuptools through ``cffi_modules=["ember_cpu/_build.py:ffibuilder"]`` (setup.py
compiles the units in parallel); ``python ember_cpu/_build.py [--force]`` builds the module
in place (developer shortcut), ``--source`` prints all units joined into one C source.

Environment knobs:
    EMBER_CPU_ARCH     replaces ``-march=native`` (e.g. ``x86-64-v3``)
    EMBER_CPU_CFLAGS   extra compiler flags appended at the end
    EMBER_CPU_SANITIZE ``address``: an AddressSanitizer build (``SANITIZERS``; unset or empty:
                       the normal build). tools/build_asan.py builds one into a folder of its own.
"""

import json
import os
import shlex
import sys
import sysconfig
from string import Template

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join(HERE, "csrc")

# --------------------------------------------------------------------------
# dtypes: name -> (short, C type, kind)
DTYPES = {
    "bool": ("b", "uint8_t", "bool"),
    "uint8": ("u8", "uint8_t", "uint"),
    "int8": ("i8", "int8_t", "int"),
    "int16": ("i16", "int16_t", "int"),
    "int32": ("i32", "int32_t", "int"),
    "int64": ("i64", "int64_t", "int"),
    "float16": ("f16", "uint16_t", "half"),
    "bfloat16": ("bf16", "uint16_t", "half"),
    "float32": ("f32", "float", "float"),
    "float64": ("f64", "double", "float"),
}
ITEMSIZE = {
    "bool": 1,
    "uint8": 1,
    "int8": 1,
    "int16": 2,
    "int32": 4,
    "int64": 8,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
}
UNSIGNED = {
    "uint8": "uint8_t",
    "int8": "uint8_t",
    "int16": "uint16_t",
    "int32": "uint32_t",
    "int64": "uint64_t",
}
INT_MIN_MAX = {
    "bool": ("0", "1"),
    "uint8": ("0", "UINT8_MAX"),
    "int8": ("INT8_MIN", "INT8_MAX"),
    "int16": ("INT16_MIN", "INT16_MAX"),
    "int32": ("INT32_MIN", "INT32_MAX"),
    "int64": ("INT64_MIN", "INT64_MAX"),
}

F = ["float32", "float64"]
SI = ["int8", "int16", "int32", "int64"]
I = ["uint8"] + SI
B = ["bool"]
N = I + F
ALL = B + N  # arithmetic dtypes (half types never reach arithmetic kernels)
STORE = ALL + ["float16", "bfloat16"]

# grain: minimum element count before OpenMP threads are used
GRAIN_CHEAP = 32768
GRAIN_TRANSC = 4096


def subst(expr, dt):
    """Expand @-placeholders of an expression for dtype dt."""
    s, ct, kind = DTYPES[dt]
    rep = {
        "@T": ct,
        "@S": s,
        "@f": "f" if dt == "float32" else "",
        "@EXP": "em_expf" if dt == "float32" else "exp",
        "@TANH": "em_tanhf" if dt == "float32" else "tanh",
        "@BITS": str(8 * ITEMSIZE[dt]),
    }
    for k in sorted(rep, key=len, reverse=True):
        expr = expr.replace(k, rep[k])
    return expr


# --------------------------------------------------------------------------
# scalar helpers (templated over float / int types)
FLOAT_HELPERS = r"""
static inline @T em_divfloor_@S(@T a, @T b)
{
    if (b == 0) return a / b;
    @T m = fmod@f(a, b);
    @T d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
    if (d == 0) return copysign@f((@T)0, a / b);
    @T fl = floor@f(d);
    if (d - fl > (@T)0.5) fl += 1;
    return fl;
}
static inline @T em_remainder_@S(@T a, @T b)
{
    @T m = fmod@f(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}
static inline @T em_softplus_@S(@T x) { return x > (@T)20 ? x : log1p@f(@EXP(x)); }
static inline @T em_mish_@S(@T x) { return x * @TANH(em_softplus_@S(x)); }
/* 0.5 * (1 + erf(x / sqrt2)) == 0.5 * erfc(-x / sqrt2): no cancellation for x < 0 */
static inline @T em_gelu_@S(@T x) { return x * (@T)0.5 * erfc@f(-x * (@T)0.70710678118654752440); }
/* 0.5 * (1 + tanh(z)) == sigmoid(2 z): no cancellation for x < 0 */
static inline @T em_gelu_tanh_@S(@T x)
{
    @T inner = (@T)1.59576912160573071176 * (x + (@T)0.044715 * x * x * x);
    return x * em_sigmoid_@S(inner);
}
"""

# Special functions, written once in double precision (float32 kernels call them and
# round): erfinv by Halley's iteration on erf/erfc from a closed-form first guess,
# digamma by the recurrence up to x >= 10 and the asymptotic series, lgamma through the
# reentrant libm function (plain lgamma writes the global signgam).
SPECIAL_HELPERS = r"""
static double em_erfinv(double y)
{
    if (y != y) return y;
    double ay = fabs(y);
    if (ay >= 1.0) return ay == 1.0 ? copysign(INFINITY, y) : NAN;
    if (ay == 0.0) return y;
    double x;
    if (ay < 1e-3) {
        x = 0.88622692545275801365 * ay * (1.0 + 0.78539816339744830962 * ay * ay);
    } else {
        /* erfinv(y)^2 ~ sqrt(t^2 - l/a) - t, t = 2/(pi a) + l/2, l = log(1 - y^2), a = 0.147 */
        double l = log((1.0 - ay) * (1.0 + ay));
        double t = 4.3307467508209590 + 0.5 * l;
        x = sqrt(sqrt(t * t - l / 0.147) - t);
    }
    for (int k = 0; k < 3; k++) {
        /* f = erf(x) - ay, from erfc in the tail where erf(x) rounds to 1 */
        double f = ay <= 0.5 ? erf(x) - ay : (1.0 - ay) - erfc(x);
        double d = 1.12837916709551257390 * exp(-x * x);
        x -= f / (d + x * f); /* Halley: f'' = -2 x f' */
    }
    return copysign(x, y);
}
static double em_digamma(double x)
{
    if (x != x || x == INFINITY) return x;
    if (x == -INFINITY) return NAN;
    if (x == 0.0) return copysign(INFINITY, -x);
    double acc = 0.0;
    if (x < 0.0) {
        double fl = floor(x);
        if (x == fl) return NAN;
        /* reflection: psi(x) = psi(1 - x) - pi / tan(pi x); tan has period 1, and
         * x - nearbyint(x) keeps tiny negative x exact */
        acc = -3.14159265358979323846 / tan(3.14159265358979323846 * (x - nearbyint(x)));
        x = 1.0 - x;
    }
    while (x < 10.0) { acc -= 1.0 / x; x += 1.0; }
    double xi = 1.0 / (x * x);
    double s = xi * (1.0 / 12 - xi * (1.0 / 120 - xi * (1.0 / 252 - xi * (1.0 / 240
               - xi * (1.0 / 132 - xi * (691.0 / 32760 - xi / 12.0))))));
    return acc + log(x) - 0.5 / x - s;
}
static inline double em_lgamma(double x) { int sg; return lgamma_r(x, &sg); }
static inline float em_lgammaf(float x) { int sg; return lgammaf_r(x, &sg); }
"""

INT_HELPERS_SIGNED = r"""
static inline @T em_idivfloor_@S(@T a, @T b)
{
    if (b == 0) return 0;
    if (b == -1) return (@T)(0 - (@U)a);
    @T q = (@T)(a / b), r = (@T)(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? (@T)(q - 1) : q;
}
static inline @T em_idivtrunc_@S(@T a, @T b)
{
    if (b == 0) return 0;
    if (b == -1) return (@T)(0 - (@U)a);
    return (@T)(a / b);
}
static inline @T em_iremainder_@S(@T a, @T b)
{
    if (b == 0 || b == -1) return 0;
    @T r = (@T)(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? (@T)(r + b) : r;
}
static inline @T em_ifmod_@S(@T a, @T b)
{
    if (b == 0 || b == -1) return 0;
    return (@T)(a % b);
}
static inline @T em_ipow_@S(@T a, @T b)
{
    if (b < 0) return (a == 1) ? 1 : ((a == -1) ? ((b & 1) ? -1 : 1) : 0);
    uint64_t r = 1, base = (uint64_t)(int64_t)a, e = (uint64_t)b;
    while (e) { if (e & 1u) r *= base; base *= base; e >>= 1; }
    return (@T)r;
}
static inline @T em_ishl_@S(@T a, @T b)
{ return (b < 0 || b >= @BITS) ? 0 : (@T)((@U)a << b); }
static inline @T em_igcd_@S(@T a, @T b)
{
    @U x = a < 0 ? (@U)0 - (@U)a : (@U)a, y = b < 0 ? (@U)0 - (@U)b : (@U)b;
    while (y) { @U t = x % y; x = y; y = t; }
    return (@T)x;
}
static inline @T em_ishr_@S(@T a, @T b)
{ return (b < 0 || b >= @BITS) ? (@T)(a < 0 ? -1 : 0) : (@T)(a >> b); }
"""

INT_HELPERS_UNSIGNED = r"""
static inline @T em_idivfloor_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a / b); }
static inline @T em_idivtrunc_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a / b); }
static inline @T em_iremainder_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a % b); }
static inline @T em_ifmod_@S(@T a, @T b) { return b == 0 ? 0 : (@T)(a % b); }
static inline @T em_ipow_@S(@T a, @T b)
{
    uint64_t r = 1, base = (uint64_t)a, e = (uint64_t)b;
    while (e) { if (e & 1u) r *= base; base *= base; e >>= 1; }
    return (@T)r;
}
static inline @T em_ishl_@S(@T a, @T b) { return (b >= @BITS) ? 0 : (@T)((@U)a << b); }
static inline @T em_igcd_@S(@T a, @T b)
{
    while (b) { @T t = (@T)(a % b); a = b; b = t; }
    return a;
}
static inline @T em_ishr_@S(@T a, @T b) { return (b >= @BITS) ? 0 : (@T)(a >> b); }
"""

# --------------------------------------------------------------------------
# UNARY: op -> (out kind, cheap?, [(dtypes, expr in x)])
#   out kind "same" (out dtype == input dtype) or "bool"
UNARY = {
    "neg": ("same", True, [(N, "-x")]),
    "abs": ("same", True, [(SI, "x < 0 ? -x : x"), (["uint8"], "x"), (F, "fabs@f(x)")]),
    "square": ("same", True, [(N, "x * x")]),
    "relu": ("same", True, [(SI, "x < 0 ? 0 : x"), (["uint8"], "x"), (F, "x < 0 ? (@T)0 : x")]),
    "sign": ("same", True, [(B, "x"), (["uint8"], "x != 0"), (SI + F, "(x > 0) - (x < 0)")]),
    "floor": ("same", True, [(I, "x"), (F, "floor@f(x)")]),
    "ceil": ("same", True, [(I, "x"), (F, "ceil@f(x)")]),
    "trunc": ("same", True, [(I, "x"), (F, "trunc@f(x)")]),
    "round": ("same", True, [(I, "x"), (F, "nearbyint@f(x)")]),
    "frac": ("same", True, [(F, "x - trunc@f(x)")]),
    "reciprocal": ("same", True, [(F, "(@T)1 / x")]),
    "sqrt": ("same", True, [(F, "sqrt@f(x)")]),
    "rsqrt": ("same", True, [(F, "(@T)1 / sqrt@f(x)")]),
    "logical_not": ("bool", True, [(ALL, "!x")]),
    "bitwise_not": ("same", True, [(B, "!x"), (I, "~x")]),
    "isnan": ("bool", True, [(F, "x != x"), (B + I, "0")]),
    "isinf": ("bool", True, [(F, "fabs@f(x) == (@T)INFINITY"), (B + I, "0")]),
    "isfinite": ("bool", True, [(F, "fabs@f(x) < (@T)INFINITY"), (B + I, "1")]),
    "exp": ("same", False, [(F, "@EXP(x)")]),
    "tanh": ("same", False, [(F, "@TANH(x)")]),
    "sigmoid": ("same", False, [(F, "em_sigmoid_@S(x)")]),
    "silu": ("same", False, [(F, "x * em_sigmoid_@S(x)")]),
    "gelu": ("same", False, [(F, "em_gelu_@S(x)")]),
    "gelu_tanh": ("same", False, [(F, "em_gelu_tanh_@S(x)")]),
    "softplus": ("same", False, [(F, "em_softplus_@S(x)")]),
    "mish": ("same", False, [(F, "em_mish_@S(x)")]),
    "erfinv": ("same", False, [(F, "(@T)em_erfinv((double)x)")]),
    "digamma": ("same", False, [(F, "(@T)em_digamma((double)x)")]),
    "lgamma": ("same", False, [(["float32"], "em_lgammaf(x)"), (["float64"], "em_lgamma(x)")]),
}
for _name in [
    "log",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "exp2",
    "expm1",
    "log2",
    "log10",
    "log1p",
    "erf",
    "erfc",
]:
    UNARY[_name] = ("same", False, [(F, _name + "@f(x)")])

# BINARY: op -> (out kind, cheap?, [(dtypes, expr in x y[, error check])])
_NANQ = "(x != x) | (y != y)"
BINARY = {
    "add": ("same", True, [(B, "x | y"), (N, "x + y")]),
    "sub": ("same", True, [(N, "x - y")]),
    "mul": ("same", True, [(B, "x & y"), (N, "x * y")]),
    "div": ("same", True, [(F, "x / y")]),
    "div_floor": (
        "same",
        False,
        [(F, "em_divfloor_@S(x, y)"), (I, "em_idivfloor_@S(x, y)", "y == 0")],
    ),
    "div_trunc": ("same", False, [(F, "trunc@f(x / y)"), (I, "em_idivtrunc_@S(x, y)", "y == 0")]),
    "remainder": (
        "same",
        False,
        [(F, "em_remainder_@S(x, y)"), (I, "em_iremainder_@S(x, y)", "y == 0")],
    ),
    "fmod": ("same", False, [(F, "fmod@f(x, y)"), (I, "em_ifmod_@S(x, y)", "y == 0")]),
    "maximum": (
        "same",
        True,
        [(B, "x | y"), (I, "y > x ? y : x"), (F, "(" + _NANQ + ") ? x + y : (y > x ? y : x)")],
    ),
    "minimum": (
        "same",
        True,
        [(B, "x & y"), (I, "y < x ? y : x"), (F, "(" + _NANQ + ") ? x + y : (y < x ? y : x)")],
    ),
    "pow": ("same", False, [(F, "pow@f(x, y)"), (I, "em_ipow_@S(x, y)")]),
    "atan2": ("same", False, [(F, "atan2@f(x, y)")]),
    "hypot": ("same", False, [(F, "hypot@f(x, y)")]),
    "copysign": ("same", True, [(F, "copysign@f(x, y)")]),
    "nextafter": ("same", True, [(F, "nextafter@f(x, y)")]),
    "gcd": ("same", False, [(I, "em_igcd_@S(x, y)")]),
    "eq": ("bool", True, [(ALL, "x == y")]),
    "ne": ("bool", True, [(ALL, "x != y")]),
    "lt": ("bool", True, [(ALL, "x < y")]),
    "le": ("bool", True, [(ALL, "x <= y")]),
    "gt": ("bool", True, [(ALL, "x > y")]),
    "ge": ("bool", True, [(ALL, "x >= y")]),
    "logical_and": ("bool", True, [(ALL, "(x != 0) & (y != 0)")]),
    "logical_or": ("bool", True, [(ALL, "(x != 0) | (y != 0)")]),
    "logical_xor": ("bool", True, [(ALL, "(x != 0) ^ (y != 0)")]),
    "bitwise_and": ("same", True, [(B + I, "x & y")]),
    "bitwise_or": ("same", True, [(B + I, "x | y")]),
    "bitwise_xor": ("same", True, [(B + I, "x ^ y")]),
    "bitwise_left_shift": ("same", True, [(I, "em_ishl_@S(x, y)")]),
    "bitwise_right_shift": ("same", True, [(I, "em_ishr_@S(x, y)")]),
}
# add/sub with alpha != 1 (alpha: the float type for floats, int64 for ints, bool for bool)
BINARY_ALPHA = {
    "add": [(B, "x | (y & alpha)"), (N, "x + alpha * y")],
    "sub": [(N, "x - alpha * y")],
}

# REDUCE (folds): op -> (dtypes, acc type rule, init, load, update, merge, final, out kind)
#   in update/merge: c = current accumulator, v = incoming value
_AMAX_F = "((v > c) | (v != v)) ? v : c"
_AMIN_F = "((v < c) | (v != v)) ? v : c"


def _acc_sum(dt):
    return "double" if dt in F else "int64_t"


def _acc_same(dt):
    return DTYPES[dt][1]


REDUCE = {
    "sum": (N, _acc_sum, "0", "(@ACC)x", "c + v", "c + v", "c", "same"),
    "mean": (F, _acc_sum, "0", "(@ACC)x", "c + v", "c + v", "c / (@ACC)count", "same"),
    "prod": (N, _acc_sum, "1", "(@ACC)x", "c * v", "c * v", "c", "same"),
    "amax": (ALL, _acc_same, "@LOWEST", "x", "@AMAX", "@AMAX", "c", "same"),
    "amin": (ALL, _acc_same, "@HIGHEST", "x", "@AMIN", "@AMIN", "c", "same"),
    "all": (ALL, lambda dt: "uint8_t", "1", "(uint8_t)(x != 0)", "c & v", "c & v", "c", "bool"),
    "any": (ALL, lambda dt: "uint8_t", "0", "(uint8_t)(x != 0)", "c | v", "c | v", "c", "bool"),
}
ARGREDUCE = {
    # op -> better(v, c) for floats, for ints
    "argmax": ("(v > c) | ((v != v) & (c == c))", "v > c"),
    "argmin": ("(v < c) | ((v != v) & (c == c))", "v < c"),
}

BMM_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float32", "float64"]


# --------------------------------------------------------------------------
# casts
def conv(src, dst, x="x"):
    """C expression converting value x of dtype src to dtype dst (torch rules)."""
    sk, dk = DTYPES[src][2], DTYPES[dst][2]
    dct = DTYPES[dst][1]
    if src == dst:
        return x
    if src == "float16":
        x, src, sk = f"em_f16_to_f32({x})", "float32", "float"
    elif src == "bfloat16":
        x, src, sk = f"em_bf16_to_f32({x})", "float32", "float"
    if src == dst:
        return x
    if dst == "bool":
        return f"(uint8_t)({x} != 0)"
    if dst in ("float16", "bfloat16"):
        fn = "em_f32_to_f16" if dst == "float16" else "em_f32_to_bf16"
        return f"{fn}((float)({x}))"
    if dk == "float":
        return f"({dct})({x})"
    # integer destination
    if sk == "float":
        sfx = "f32" if src == "float32" else "f64"
        if dst == "int64":
            return f"em_{sfx}_to_i64({x})"
        return f"({dct})em_{sfx}_to_i32({x})"
    return f"({dct})({x})"


# --------------------------------------------------------------------------
# templates
EW_KERNEL = Template(r"""
static int k_${kind}_${name}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    int err = 0;
    ${decl}
    (void)ctx;
    if (${contig}) {
        ${ptrs}
${contig_loop}
    }${scalar_paths} else {
        ${sptrs}
        for (int64_t i = 0; i < n; i++) { ${loads_s} ${store_s} ${chk} }
    }
    return err;
}
int em_${kind}_${name}(int64_t n, int nd, const int64_t *meta, ${params})
{
    char *base[${nop}] = {${bases}};
    static const int64_t isz[${nop}] = {${iszs}};
    ${ctxdecl}
    return em_run(k_${kind}_${name}, ${nop}, n, nd, meta, base, isz, ${ctxarg}, ${grain});
}
""")


def ew_kernel(
    kind,
    name,
    types,
    expr,
    chk=None,
    grain=GRAIN_CHEAP,
    decl="",
    ctxdecl="",
    ctxarg="NULL",
    extra_params="",
    scalar_paths=True,
    var_names=None,
    contig_loop=None,
):
    """Generic elementwise kernel. types[0] is the output C type, types[1:]
    the input C types; expr uses the input variable names (x, y / c, x, y)."""
    nop = len(types)
    if var_names is None:
        var_names = ["x", "y", "z"][: nop - 1]
    ins = list(zip(var_names, types[1:]))
    ot = types[0]
    contig = " && ".join(f"s[{k}] == (int64_t)sizeof({t})" for k, t in enumerate(types))
    ptrs = f"{ot} *o = ({ot} *)p[0]; " + " ".join(
        f"const {t} *a{k + 1} = (const {t} *)p[{k + 1}];" for k, (v, t) in enumerate(ins)
    )
    loads_c = " ".join(f"const {t} {v} = a{k + 1}[i];" for k, (v, t) in enumerate(ins))
    store_c = f"o[i] = ({ot})({expr});"
    sptrs = (
        "char *po = p[0]; "
        + " ".join(
            f"const char *pa{k + 1} = p[{k + 1}]; const int64_t s{k + 1} = s[{k + 1}];"
            for k in range(len(ins))
        )
        + " const int64_t s0 = s[0];"
    )
    loads_s = " ".join(
        f"const {t} {v} = *(const {t} *)(pa{k + 1} + i * s{k + 1});" for k, (v, t) in enumerate(ins)
    )
    store_s = f"*({ot} *)(po + i * s0) = ({ot})({expr});"
    chk_s = f"err |= ({chk});" if chk else ""
    if contig_loop is None:
        contig_loop = (
            "#pragma GCC ivdep\n"
            f"        for (int64_t i = 0; i < n; i++) {{ {loads_c} {store_c} {chk_s} }}"
        )
    sp = ""
    if scalar_paths and nop == 3:
        # out & one input contiguous, the other a broadcast scalar
        for sc in (2, 1):
            other = 3 - sc
            cond = (
                f"s[0] == (int64_t)sizeof({ot}) && s[{other}] == (int64_t)sizeof({types[other]})"
                f" && s[{sc}] == 0"
            )
            v_sc, t_sc = ins[sc - 1]
            v_o, t_o = ins[other - 1]
            sp += (
                f" else if ({cond}) {{\n"
                f"        {ot} *o = ({ot} *)p[0];"
                f" const {t_o} *a{other} = (const {t_o} *)p[{other}];"
                f" const {t_sc} {v_sc} = *(const {t_sc} *)p[{sc}];\n"
                "#pragma GCC ivdep\n"
                f"        for (int64_t i = 0; i < n; i++) {{ const {t_o} {v_o} = a{other}[i];"
                f" {store_c} {chk_s} }}\n    }}"
            )
    params = ", ".join(
        ["char *o, int64_t oo"] + [f"char *a{k}, int64_t a{k}o" for k in range(1, nop)]
    )
    if extra_params:
        params += ", " + extra_params
    bases = ", ".join(
        [f"o + oo * (int64_t)sizeof({ot})"]
        + [f"a{k} + a{k}o * (int64_t)sizeof({types[k]})" for k in range(1, nop)]
    )
    iszs = ", ".join(f"sizeof({t})" for t in types)
    code = EW_KERNEL.substitute(
        name=name,
        kind=kind,
        decl=decl,
        contig=contig,
        ptrs=ptrs,
        contig_loop=contig_loop,
        chk=chk_s,
        scalar_paths=sp,
        sptrs=sptrs,
        loads_s=loads_s,
        store_s=store_s,
        params=params,
        nop=nop,
        bases=bases,
        iszs=iszs,
        ctxdecl=ctxdecl,
        ctxarg=ctxarg,
        grain=grain,
    )
    cdecl = f"int em_{kind}_{name}(int64_t n, int nd, const int64_t *meta, {params});"
    return code, cdecl


FOLD_TEMPLATE = Template(r"""
#define M_${name}(c, v) (${MERGE})
#pragma omp declare reduction(r_${name} : ${ACC} : omp_out = M_${name}(omp_out, omp_in)) initializer(omp_priv = ${INIT})
#pragma omp declare reduction(rb_${name} : ${BACC} : omp_out = M_${name}(omp_out, omp_in)) initializer(omp_priv = ${INIT})
static void ri_${name}(void *acc, int64_t n)
{ ${ACC} *A = (${ACC} *)acc; for (int64_t i = 0; i < n; i++) A[i] = ${INIT}; }
static void rs_${name}(void *accp, const char *p, int64_t n, int64_t s, int64_t idx0)
{
    ${ACC} acc = *(${ACC} *)accp;
    (void)idx0;
    if (s == (int64_t)sizeof(${T})) {
        /* blocks of ${BLK}: SIMD lanes of ${BACC} accumulate within a block, blocks are
         * combined sequentially in ${ACC} (keeps float sums accurate). float32 sums
         * use float lanes over blocks of 1024 (64 elements per lane), 1.4x the
         * throughput of converting every element to double. */
        const ${T} *a = (const ${T} *)p;
        for (int64_t i0 = 0; i0 < n; i0 += ${BLK}) {
            const int64_t i1 = n - i0 < ${BLK} ? n : i0 + ${BLK};
            ${BACC} bacc = ${INIT};
#pragma omp simd reduction(rb_${name} : bacc) simdlen(${L})
            for (int64_t i = i0; i < i1; i++) { const ${T} x = a[i]; const ${BACC} v = ${LOADB}; const ${BACC} c = bacc; bacc = ${UPD}; }
            acc = M_${name}(acc, (${ACC})bacc);
        }
    } else {
        for (int64_t i = 0; i < n; i++) { const ${T} x = *(const ${T} *)(p + i * s); const ${ACC} v = ${LOAD}; const ${ACC} c = acc; acc = ${UPD}; }
    }
    *(${ACC} *)accp = acc;
}
static void rc_${name}(void *accp, const char *p, int64_t nj, int64_t ja, int64_t idx)
{
    ${ACC} *A = (${ACC} *)accp;
    (void)idx;
    if (ja == (int64_t)sizeof(${T})) {
        const ${T} *a = (const ${T} *)p;
#pragma GCC ivdep
        for (int64_t j = 0; j < nj; j++) { const ${T} x = a[j]; const ${ACC} v = ${LOAD}; const ${ACC} c = A[j]; A[j] = ${UPD}; }
    } else {
        for (int64_t j = 0; j < nj; j++) { const ${T} x = *(const ${T} *)(p + j * ja); const ${ACC} v = ${LOAD}; const ${ACC} c = A[j]; A[j] = ${UPD}; }
    }
}
static void rm_${name}(void *accp, const void *otherp, int64_t n)
{
    ${ACC} *A = (${ACC} *)accp; const ${ACC} *Bq = (const ${ACC} *)otherp;
    for (int64_t i = 0; i < n; i++) { const ${ACC} c = A[i]; const ${ACC} v = Bq[i]; A[i] = ${MERGE}; }
}
static void rf_${name}(char *o, int64_t os, const void *accp, int64_t n, int64_t count)
{
    const ${ACC} *A = (const ${ACC} *)accp;
    (void)count;
    for (int64_t i = 0; i < n; i++) { const ${ACC} c = A[i]; *(${OT} *)(o + i * os) = (${OT})(${FIN}); }
}
/* rows of n contiguous elements, one output each: the fold and the finish inlined (no
 * callback per row; 4096 rows of 64 paid more for the calls than for the adds) */
static void rr_${name}(char *o, int64_t os, const char *a, int64_t as, int64_t rows, int64_t n, int64_t count)
{
    (void)count;
    for (int64_t r = 0; r < rows; r++) {
        ${ACC} acc = ${INIT};
        rs_${name}(&acc, a + r * as, n, (int64_t)sizeof(${T}), 0);
        const ${ACC} c = acc;
        *(${OT} *)(o + r * os) = (${OT})(${FIN});
    }
}
static const em_redops ro_${name} = {sizeof(${ACC}), ri_${name}, rs_${name}, rc_${name}, rm_${name}, rf_${name}, rr_${name}};
int em_r_${name}(int nd, const int64_t *meta, char *o, int64_t oo, char *a, int64_t ao)
{
    return em_reduce(&ro_${name}, nd, meta, o + oo * (int64_t)sizeof(${OT}), sizeof(${OT}),
                     a + ao * (int64_t)sizeof(${T}), sizeof(${T}), ${grain});
}
""")

ARG_TEMPLATE = Template(r"""
typedef struct { ${T} v; int64_t i; } racc_${name};
#define BETTER_${name}(v, c) (${BETTER})
static inline void am_${name}(racc_${name} *A, ${T} v, int64_t i)
{
    if (i < 0) return;
    if (A->i < 0 || BETTER_${name}(v, A->v) || (!BETTER_${name}(A->v, v) && i < A->i)) { A->v = v; A->i = i; }
}
static void ri_${name}(void *acc, int64_t n)
{ racc_${name} *A = (racc_${name} *)acc; for (int64_t i = 0; i < n; i++) { A[i].v = 0; A[i].i = -1; } }
static void rs_${name}(void *accp, const char *p, int64_t n, int64_t s, int64_t idx0)
{
    racc_${name} *A = (racc_${name} *)accp;
    int64_t i = 0;
    if (s == (int64_t)sizeof(${T}) && n >= 2 * ${L}) {
        const ${T} *a = (const ${T} *)p;
        ${T} lv[${L}];
        int64_t li[${L}];
        for (int k = 0; k < ${L}; k++) { lv[k] = a[k]; li[k] = k; }
        int64_t end = (n / ${L}) * ${L};
        for (i = ${L}; i < end; i += ${L}) {
            for (int k = 0; k < ${L}; k++) {
                const ${T} v = a[i + k]; const ${T} c = lv[k];
                const int b = BETTER_${name}(v, c);
                lv[k] = b ? v : c;
                li[k] = b ? i + k : li[k];
            }
        }
        racc_${name} L0; L0.v = 0; L0.i = -1;
        for (int k = 0; k < ${L}; k++) am_${name}(&L0, lv[k], li[k] + idx0);
        am_${name}(A, L0.v, L0.i);
    }
    for (; i < n; i++) {
        const ${T} v = *(const ${T} *)(p + i * s);
        if (A->i < 0 || BETTER_${name}(v, A->v)) { A->v = v; A->i = idx0 + i; }
    }
}
static void rc_${name}(void *accp, const char *p, int64_t nj, int64_t ja, int64_t idx)
{
    racc_${name} *A = (racc_${name} *)accp;
    for (int64_t j = 0; j < nj; j++) {
        const ${T} v = *(const ${T} *)(p + j * ja);
        if (A[j].i < 0 || BETTER_${name}(v, A[j].v)) { A[j].v = v; A[j].i = idx; }
    }
}
static void rm_${name}(void *accp, const void *otherp, int64_t n)
{
    racc_${name} *A = (racc_${name} *)accp; const racc_${name} *Bq = (const racc_${name} *)otherp;
    for (int64_t i = 0; i < n; i++) am_${name}(&A[i], Bq[i].v, Bq[i].i);
}
static void rf_${name}(char *o, int64_t os, const void *accp, int64_t n, int64_t count)
{
    const racc_${name} *A = (const racc_${name} *)accp;
    (void)count;
    for (int64_t i = 0; i < n; i++) *(int64_t *)(o + i * os) = A[i].i;
}
static const em_redops ro_${name} = {sizeof(racc_${name}), ri_${name}, rs_${name}, rc_${name}, rm_${name}, rf_${name}};
int em_r_${name}(int nd, const int64_t *meta, char *o, int64_t oo, char *a, int64_t ao)
{
    return em_reduce(&ro_${name}, nd, meta, o + oo * 8, 8, a + ao * (int64_t)sizeof(${T}), sizeof(${T}), ${grain});
}
""")

BMM_TEMPLATE = Template(r"""
/* generic blocked loop: o[i,j] = sum_k a[i,k] b[k,j]; byte strides */
static void mmloop_${s}(int64_t M, int64_t N, int64_t K, char *o, int64_t om, int64_t on,
                        const char *a, int64_t am, int64_t ak, const char *b, int64_t bk, int64_t bn,
                        int64_t i0, int64_t i1)
{
    ${T} acc[EM_MM_JB];
    for (int64_t j0 = 0; j0 < N; j0 += EM_MM_JB) {
        int64_t jn = N - j0 < EM_MM_JB ? N - j0 : EM_MM_JB;
        for (int64_t i = i0; i < i1; i++) {
            for (int64_t j = 0; j < jn; j++) acc[j] = 0;
            for (int64_t k = 0; k < K; k++) {
                const ${T} aik = *(const ${T} *)(a + i * am + k * ak);
                const char *br = b + k * bk + j0 * bn;
                if (bn == (int64_t)sizeof(${T})) {
                    const ${T} *bp = (const ${T} *)br;
                    for (int64_t j = 0; j < jn; j++) acc[j] += aik * bp[j];
                } else {
                    for (int64_t j = 0; j < jn; j++) acc[j] += aik * *(const ${T} *)(br + j * bn);
                }
            }
            char *orow = o + i * om + j0 * on;
            for (int64_t j = 0; j < jn; j++) *(${T} *)(orow + j * on) = acc[j];
        }
    }
}
static void bmm_loop_${s}(int64_t B, int64_t M, int64_t N, int64_t K, const int64_t *st,
                          char *o, char *a, char *b)
{
    const int64_t sz = sizeof(${T});
    int64_t nchunk = (M + 15) / 16;
    int64_t work = B * nchunk;
    int par = (B * M * N * K >= 65536) && work > 1 && em_max_threads() > 1;
    if (!par) {
        for (int64_t w = 0; w < work; w++) {
            int64_t bi = w / nchunk, c = w % nchunk;
            int64_t i0 = c * 16, i1 = i0 + 16 < M ? i0 + 16 : M;
            mmloop_${s}(M, N, K, o + bi * st[0] * sz, st[1] * sz, st[2] * sz,
                        a + bi * st[3] * sz, st[4] * sz, st[5] * sz,
                        b + bi * st[6] * sz, st[7] * sz, st[8] * sz, i0, i1);
        }
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < work; w++) {
        int64_t bi = w / nchunk, c = w % nchunk;
        int64_t i0 = c * 16, i1 = i0 + 16 < M ? i0 + 16 : M;
        mmloop_${s}(M, N, K, o + bi * st[0] * sz, st[1] * sz, st[2] * sz,
                    a + bi * st[3] * sz, st[4] * sz, st[5] * sz,
                    b + bi * st[6] * sz, st[7] * sz, st[8] * sz, i0, i1);
    }
}
""")

BMM_INT_ENTRY = Template(r"""
int em_bmm_${s}(int64_t B, int64_t M, int64_t N, int64_t K, const int64_t *st,
                char *o, int64_t oo, char *a, int64_t ao, char *b, int64_t bo)
{
    const int64_t sz = sizeof(${T});
    if (B <= 0 || M <= 0 || N <= 0) return 0;
    bmm_loop_${s}(B, M, N, K, st, o + oo * sz, a + ao * sz, b + bo * sz);
    return 0;
}
""")

BMM_BLAS_ENTRY = Template(r"""
/* One tile C[bi, i0:i1, j0:j1] = A[bi, i0:i1, :] @ B[bi, :, j0:j1] through
 * single-threaded OpenBLAS.  A sub-block keeps its matrix's layout and leading
 * dimension; operands with no BLAS layout are packed into the caller's
 * per-thread scratch (reused while the source block does not change, e.g. a
 * broadcast batch or the shared operand of a row/column split). */
typedef struct {
    ${T} *ta, *tb, *tc;
    const char *pa_prev, *pb_prev;
    int64_t ma_prev, nb_prev;
} em_mm_scratch_${s};

static void em_mm_tile_${s}(const int64_t *st, int64_t K, char *o, const char *a, const char *b,
                            int la, int lb, int lc, int64_t lda, int64_t ldb, int64_t ldc,
                            int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                            em_mm_scratch_${s} *sc)
{
    const int64_t sz = sizeof(${T});
    const int64_t m = i1 - i0, n = j1 - j0;
    const char *pa = a + (bi * st[3] + i0 * st[4]) * sz;
    const char *pb = b + (bi * st[6] + j0 * st[8]) * sz;
    char *pc = o + (bi * st[0] + i0 * st[1] + j0 * st[2]) * sz;
    const ${T} *A = (const ${T} *)pa, *Bm = (const ${T} *)pb;
    if (sc->ta) {
        if (pa != sc->pa_prev || m != sc->ma_prev) em_mm_pack_${s}(sc->ta, pa, m, K, st[4] * sz, st[5] * sz);
        sc->pa_prev = pa; sc->ma_prev = m;
        A = sc->ta; lda = K;
    }
    if (sc->tb) {
        if (pb != sc->pb_prev || n != sc->nb_prev) em_mm_pack_${s}(sc->tb, pb, K, n, st[7] * sz, st[8] * sz);
        sc->pb_prev = pb; sc->nb_prev = n;
        Bm = sc->tb; ldb = n;
    }
    ${T} *C = sc->tc ? sc->tc : (${T} *)pc;
    if (sc->tc) ldc = n;
    enum CBLAS_ORDER order = lc == 0 ? CblasRowMajor : CblasColMajor;
    enum CBLAS_TRANSPOSE tra = la == lc ? CblasNoTrans : CblasTrans;
    enum CBLAS_TRANSPOSE trb = lb == lc ? CblasNoTrans : CblasTrans;
    ${gemm}(order, tra, trb, (blasint)m, (blasint)n, (blasint)K, (${T})1, A, (blasint)lda,
            Bm, (blasint)ldb, (${T})0, C, (blasint)ldc);
    if (sc->tc) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                *(${T} *)(pc + (i * st[1] + j * st[2]) * sz) = sc->tc[i * n + j];
    }
}

/* Tiles [w0, w1) of the work list: tile w is batch w / p, part w % p of that
 * matrix, cut along rows (split_m) or columns in blocks of `blk`. */
static int em_mm_run_${s}(const int64_t *st, int64_t M, int64_t N, int64_t K, char *o,
                          const char *a, const char *b, int pack, int la, int lb, int lc, int64_t lda,
                          int64_t ldb, int64_t ldc, int64_t p, int split_m, int64_t blk,
                          int64_t w0, int64_t w1)
{
    const int64_t sz = sizeof(${T});
    const int64_t mt = split_m ? (blk < M ? blk : M) : M, nt = split_m ? N : (blk < N ? blk : N);
    em_mm_scratch_${s} sc = {NULL, NULL, NULL, NULL, NULL, -1, -1};
    int rc = 0;
    if ((pack & 1) && !(sc.ta = (${T} *)malloc((size_t)(mt * K) * sz))) rc = EM_ERR_ALLOC;
    if (!rc && (pack & 2) && !(sc.tb = (${T} *)malloc((size_t)(K * nt) * sz))) rc = EM_ERR_ALLOC;
    if (!rc && (pack & 4) && !(sc.tc = (${T} *)malloc((size_t)(mt * nt) * sz))) rc = EM_ERR_ALLOC;
    if (!rc) {
        for (int64_t w = w0; w < w1; w++) {
            int64_t bi = w / p, c = w % p;
            int64_t i0 = 0, i1 = M, j0 = 0, j1 = N;
            if (split_m) { i0 = c * blk; i1 = i0 + blk < M ? i0 + blk : M; }
            else { j0 = c * blk; j1 = j0 + blk < N ? j0 + blk : N; }
            if (i0 >= i1 || j0 >= j1) continue;
            em_mm_tile_${s}(st, K, o, a, b, la, lb, lc, lda, ldb, ldc, bi, i0, i1, j0, j1, &sc);
        }
    }
    free(sc.ta); free(sc.tb); free(sc.tc);
    return rc;
}

int em_bmm_${s}(int64_t B, int64_t M, int64_t N, int64_t K, const int64_t *st,
                char *o, int64_t oo, char *a, int64_t ao, char *b, int64_t bo)
{
    const int64_t sz = sizeof(${T});
    if (B <= 0 || M <= 0 || N <= 0) return 0;
    o += oo * sz; a += ao * sz; b += bo * sz;
    if (K == 0 || M * N * K <= EM_MM_SMALL || M >= INT32_MAX || N >= INT32_MAX || K >= INT32_MAX) {
        bmm_loop_${s}(B, M, N, K, st, o, a, b);
        return 0;
    }
    int64_t lda = 0, ldb = 0, ldc = 0;
    int la = em_mm_layout(M, K, st[4], st[5], &lda);
    int lb = em_mm_layout(K, N, st[7], st[8], &ldb);
    int lc = em_mm_layout(M, N, st[1], st[2], &ldc);
    /* an operand with no BLAS layout is packed (row-major) per tile */
    int pack = (la < 0) | (lb < 0) << 1 | (lc < 0) << 2;
    if (la < 0) la = 0;
    if (lb < 0) lb = 0;
    if (lc < 0) lc = 0;
    /* Work list: B matrices x p parts each.  OpenBLAS runs single-threaded
     * (em_blas_init); the parallelism is ours, on the OpenMP pool the other
     * kernels use, and only for products big enough to pay for a region. */
    int T = em_max_threads();
    int64_t flops = B * M * N * K;
    if (T > 1 && flops < EM_MM_PAR) T = 1;
    int64_t p = 1, blk = M;
    int split_m = 1;
    if (T > 1 && B % T != 0 && B < 4 * (int64_t)T) {
        /* too few matrices to balance: cut each one into T parts along the
         * longer of M and N, in multiples of 16 rows / columns */
        split_m = M >= N;
        int64_t d = split_m ? M : N;
        blk = ((d + T - 1) / T + 15) / 16 * 16;
        p = (d + blk - 1) / blk;
        if (p * B < 2) T = 1;
    }
    if (p == 1) { split_m = 1; blk = M; }
    int64_t work = B * p;
    if (T > work) T = (int)work;
    if (T <= 1)
        return em_mm_run_${s}(st, M, N, K, o, a, b, pack, la, lb, lc, lda, ldb, ldc, p, split_m, blk, 0, work);
    int rc = 0;
#pragma omp parallel num_threads(T)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), nth = omp_get_num_threads();
#else
        int t = 0, nth = 1;
#endif
        int64_t w0 = work * t / nth, w1 = work * (t + 1) / nth;
        int r = em_mm_run_${s}(st, M, N, K, o, a, b, pack, la, lb, lc, lda, ldb, ldc, p, split_m, blk, w0, w1);
        if (r) {
#pragma omp atomic write
            rc = r;
        }
    }
    return rc;
}
""")

BMM_PACK = Template(r"""
static void em_mm_pack_${s}(${T} *dst, const char *src, int64_t R, int64_t C, int64_t rs, int64_t cs)
{
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++) dst[i * C + j] = *(const ${T} *)(src + i * rs + j * cs);
}
""")

BMM_COMMON = r"""
#define EM_MM_JB 256
#define EM_MM_SMALL 4096
/* B*M*N*K from which bmm splits its GEMMs over the OpenMP threads */
#define EM_MM_PAR 262144
/* rows x cols matrix with element strides rs, cs: 0 = row-major (ld = row
 * stride), 1 = column-major (ld = column stride), -1 = neither (copy). */
static int em_mm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld)
{
    int64_t mc = cols > 1 ? cols : 1, mr = rows > 1 ? rows : 1;
    if (cs == 1 || cols == 1) {
        int64_t l = rows == 1 ? mc : rs;
        if (l >= mc && l < INT32_MAX) { *ld = l; return 0; }
    }
    if (rs == 1 || rows == 1) {
        int64_t l = cols == 1 ? mr : cs;
        if (l >= mr && l < INT32_MAX) { *ld = l; return 1; }
    }
    return -1;
}
"""

# --------------------------------------------------------------------------
# generation


# Note [ember_cpu translation units]
# The module is compiled as several C translation units, one per kernel family, in
# parallel (setup.py's build_ext), and linked into the one extension ``ember_cpu._C``.
# Each unit includes the helpers it uses (em_common.h and the scalar helpers are static /
# static inline), so every kernel still sees its helpers in its own unit and inlines them
# exactly as in one big unit; only the CFFI wrappers call the kernels' entry points across
# units (one plain call per kernel launch). The wrapper unit (CFFI's generated C file) holds
# the module-level functions below and the prototypes of every kernel (the cdef text).
#: unit name -> the unit's first lines (its includes); the extensions add their own units
UNIT_HEADS = {
    "unary": '#include "em_common.h"',
    "binary": '#include "em_common.h"',
    "copy": '#include "em_common.h"',
    "reduce": '#include "em_reduce.h"',
    "bmm": '#include "em_common.h"\n#include <cblas.h>',
}
MODULE_HEAD = '#include "em_common.h"\n#include <cblas.h>'


def _ew_table_entries(table):
    for op, (outk, cheap, rules) in table.items():
        for rule in rules:
            dts, expr = rule[0], rule[1]
            chk = rule[2] if len(rule) > 2 else None
            for dt in dts:
                yield op, outk, cheap, dt, expr, chk


def generate_units():
    """The module's C sources: ({unit name: C source}, the wrapper unit's own source,
    [cdef declaration, ...], specs). See Note [ember_cpu translation units]."""
    units = {name: [head] for name, head in UNIT_HEADS.items()}
    cdefs = []
    specs = {
        "unary": {},
        "binary": {},
        "binary_alpha": {},
        "reduce": {},
        "cast": [],
        "fill": [],
        "where": [],
        "copy": [],
        "bmm": [],
    }
    # scalar helpers of the elementwise units, once per unit (static inline: the kernels of
    # a unit inline them); the guard keeps the joined source of generate() one valid unit
    helpers = [SPECIAL_HELPERS] + [subst(FLOAT_HELPERS, dt) for dt in F]
    for dt in I:
        tpl = INT_HELPERS_UNSIGNED if dt == "uint8" else INT_HELPERS_SIGNED
        helpers.append(subst(tpl.replace("@U", UNSIGNED[dt]), dt))
    guard = "#ifndef EM_SCALAR_HELPERS\n#define EM_SCALAR_HELPERS\n"
    helpers = guard + "\n".join(helpers) + "\n#endif /* EM_SCALAR_HELPERS */\n"
    parts = units["unary"]
    parts.append(helpers)

    seen = set()
    for op, outk, cheap, dt, expr, _chk in _ew_table_entries(UNARY):
        assert (op, dt) not in seen, (op, dt)
        seen.add((op, dt))
        s, ct, _ = DTYPES[dt]
        ot = "uint8_t" if outk == "bool" else ct
        code, cd = ew_kernel(
            "u",
            f"{op}_{s}",
            [ot, ct],
            subst(expr, dt),
            grain=GRAIN_CHEAP if cheap else GRAIN_TRANSC,
        )
        parts.append(code)
        cdefs.append(cd)
        specs["unary"].setdefault(op, []).append(dt)
    parts = units["binary"]
    parts.append(helpers)
    for op, outk, cheap, dt, expr, chk in _ew_table_entries(BINARY):
        assert (op, dt) not in seen, (op, dt)
        seen.add((op, dt))
        s, ct, _ = DTYPES[dt]
        ot = "uint8_t" if outk == "bool" else ct
        code, cd = ew_kernel(
            "b",
            f"{op}_{s}",
            [ot, ct, ct],
            subst(expr, dt),
            chk=subst(chk, dt) if chk else None,
            grain=GRAIN_CHEAP if cheap else GRAIN_TRANSC,
        )
        parts.append(code)
        cdefs.append(cd)
        specs["binary"].setdefault(op, []).append(dt)
    for op, rules in BINARY_ALPHA.items():
        for dts, expr in rules:
            for dt in dts:
                s, ct, kind = DTYPES[dt]
                cty = "double" if kind == "float" else "int64_t"
                aty = ct if kind == "float" else ("uint8_t" if kind == "bool" else "int64_t")
                decl = f"const {aty} alpha = ({aty})(*(const {cty} *)ctx);"
                if kind == "bool":
                    decl = "const uint8_t alpha = (uint8_t)(*(const int64_t *)ctx != 0);"
                code, cd = ew_kernel(
                    "ba",
                    f"{op}_{s}",
                    [ct, ct, ct],
                    subst(expr, dt),
                    decl=decl,
                    ctxdecl="",
                    ctxarg="&alpha",
                    extra_params=f"{cty} alpha",
                )
                parts.append(code)
                cdefs.append(cd)
                specs["binary_alpha"].setdefault(op, []).append(dt)
    parts = units["copy"]
    # where (by itemsize)
    for isz, ct in [(1, "uint8_t"), (2, "uint16_t"), (4, "uint32_t"), (8, "uint64_t")]:
        code, cd = ew_kernel(
            "w",
            f"where_{isz}",
            [ct, "uint8_t", ct, ct],
            "c ? x : y",
            scalar_paths=False,
            var_names=["c", "x", "y"],
        )
        parts.append(code)
        cdefs.append(cd)
        specs["where"].append(isz)
    # same-dtype copies (by itemsize); contiguous case is a memcpy
    for isz, ct in [(1, "uint8_t"), (2, "uint16_t"), (4, "uint32_t"), (8, "uint64_t")]:
        code, cd = ew_kernel(
            "c",
            f"copy_{isz}",
            [ct, ct],
            "x",
            contig_loop=f"        memmove(o, a1, (size_t)n * sizeof({ct}));",
        )
        parts.append(code)
        cdefs.append(cd)
        specs["copy"].append(isz)
    # casts
    for src in STORE:
        for dst in STORE:
            if src == dst:
                continue
            code, cd = ew_kernel(
                "x",
                f"{DTYPES[src][0]}_{DTYPES[dst][0]}",
                [DTYPES[dst][1], DTYPES[src][1]],
                conv(src, dst, "x"),
            )
            parts.append(code)
            cdefs.append(cd)
            specs["cast"].append([src, dst])
    # fill
    for dt in STORE:
        s, ct, _ = DTYPES[dt]
        parts.append(
            Template(r"""
static int k_fill_${s}(int64_t n, char *const *p, const int64_t *s, const void *ctx)
{
    const ${T} v = *(const ${T} *)ctx;
    if (s[0] == (int64_t)sizeof(${T})) {
        ${T} *o = (${T} *)p[0];
        for (int64_t i = 0; i < n; i++) o[i] = v;
    } else {
        char *po = p[0]; const int64_t s0 = s[0];
        for (int64_t i = 0; i < n; i++) *(${T} *)(po + i * s0) = v;
    }
    return 0;
}
int em_fill_${s}(int64_t n, int nd, const int64_t *meta, char *o, int64_t oo, double fv, int64_t iv, int use_int)
{
    ${T} v = use_int ? ${from_int} : ${from_float};
    char *base[1] = {o + oo * (int64_t)sizeof(${T})};
    static const int64_t isz[1] = {sizeof(${T})};
    return em_run(k_fill_${s}, 1, n, nd, meta, base, isz, &v, ${grain});
}
""").substitute(
                s=s,
                T=ct,
                from_int=conv("int64", dt, "iv"),
                from_float=conv("float64", dt, "fv"),
                grain=GRAIN_CHEAP,
            )
        )
        cdefs.append(
            f"int em_fill_{s}(int64_t n, int nd, const int64_t *meta, char *o, int64_t oo, "
            "double fv, int64_t iv, int use_int);"
        )
        specs["fill"].append(dt)
    parts = units["reduce"]
    # reductions
    for op, (dts, accf, init, load, upd, merge, fin, outk) in REDUCE.items():
        for dt in dts:
            s, ct, kind = DTYPES[dt]
            acc = accf(dt)
            lo, hi = ("-INFINITY", "INFINITY") if kind == "float" else INT_MIN_MAX[dt]
            isz = ITEMSIZE[dt]
            rep = {
                "@ACC": acc,
                "@LOWEST": lo,
                "@HIGHEST": hi,
                "@AMAX": _AMAX_F if kind == "float" else "v > c ? v : c",
                "@AMIN": _AMIN_F if kind == "float" else "v < c ? v : c",
            }

            def r(e, rep=rep):
                for k in sorted(rep, key=len, reverse=True):
                    e = e.replace(k, rep[k])
                return e

            name = f"{op}_{s}"
            # float32 sums: float lanes inside a block, double across blocks
            bacc = ct if (op in ("sum", "mean") and dt == "float32") else acc
            parts.append(
                FOLD_TEMPLATE.substitute(
                    name=name,
                    T=ct,
                    ACC=acc,
                    BACC=bacc,
                    LOADB=r(load).replace(f"({acc})", f"({bacc})"),
                    OT="uint8_t" if outk == "bool" else ct,
                    INIT=r(init),
                    LOAD=r(load),
                    UPD=r(upd),
                    MERGE=r(merge),
                    FIN=r(fin),
                    L=32 if isz <= 2 else 16,
                    BLK=1024 if bacc != acc else 8192,
                    grain=GRAIN_CHEAP,
                )
            )
            cdefs.append(
                f"int em_r_{name}(int nd, const int64_t *meta, char *o, int64_t oo, char *a, int64_t ao);"
            )
            specs["reduce"].setdefault(op, []).append(dt)
    for op, (bf, bi) in ARGREDUCE.items():
        for dt in ALL:
            s, ct, kind = DTYPES[dt]
            name = f"{op}_{s}"
            parts.append(
                ARG_TEMPLATE.substitute(
                    name=name, T=ct, BETTER=bf if kind == "float" else bi, L=16, grain=GRAIN_CHEAP
                )
            )
            cdefs.append(
                f"int em_r_{name}(int nd, const int64_t *meta, char *o, int64_t oo, char *a, int64_t ao);"
            )
            specs["reduce"].setdefault(op, []).append(dt)
    parts = units["bmm"]
    parts.append(BMM_COMMON)
    for dt in BMM_DTYPES:
        s, ct, kind = DTYPES[dt]
        parts.append(BMM_TEMPLATE.substitute(s=s, T=ct))
        if kind == "float":
            parts.append(BMM_PACK.substitute(s=s, T=ct))
            parts.append(
                BMM_BLAS_ENTRY.substitute(
                    s=s, T=ct, gemm="scipy_cblas_sgemm" if dt == "float32" else "scipy_cblas_dgemm"
                )
            )
        else:
            parts.append(BMM_INT_ENTRY.substitute(s=s, T=ct))
        cdefs.append(
            f"int em_bmm_{s}(int64_t B, int64_t M, int64_t N, int64_t K, const int64_t *st, "
            "char *o, int64_t oo, char *a, int64_t ao, char *b, int64_t bo);"
        )
        specs["bmm"].append(dt)
    # module-level functions: they go into the CFFI wrapper unit
    specs_json = json.dumps(specs, sort_keys=True)
    module = [
        MODULE_HEAD,
        rf"""
const char *em_specs(void) {{ return {json.dumps(specs_json)}; }}
int em_num_threads(void) {{ return em_max_threads(); }}
/* OpenBLAS's own pthreads pool would compete with the OpenMP pool for the
 * cores (libgomp's workers spin after each region); bmm splits its GEMMs over
 * the OpenMP threads instead, so OpenBLAS runs single-threaded. */
void em_blas_init(void) {{ scipy_openblas_set_num_threads(1); }}
void em_set_num_threads(int n)
{{
#ifdef _OPENMP
    if (n > 0) omp_set_num_threads(n);
#else
    (void)n;
#endif
}}
""",
    ]
    cdefs += [
        "const char *em_specs(void);",
        "int em_num_threads(void);",
        "void em_blas_init(void);",
        "void em_set_num_threads(int n);",
    ]
    for name, (src, decls) in zip(EXTENSIONS, _extensions()):
        units[name.removeprefix("_build_")] = ['#include "em_common.h"', src]
        cdefs += decls
    return {n: "\n".join(p) for n, p in units.items()}, "\n".join(module), cdefs, specs


def generate():
    """(C source, cdef, specs): every unit joined into one C source (what the module
    holds; ``--source`` prints it, benchmarks/vectorisation.py compiles it)."""
    units, module, cdefs, specs = generate_units()
    return "\n".join([*units.values(), module]), "\n".join(cdefs), specs


#: hand-written kernel families, each a module next to this file whose
#: ``generate()`` returns (C source, [cdef declaration, ...]).
EXTENSIONS = ("_build_index", "_build_nn", "_build_lapack")


def _extensions():
    import importlib.util

    out = []
    for name in EXTENSIONS:
        path = os.path.join(HERE, name + ".py")
        spec = importlib.util.spec_from_file_location("ember_cpu_build_" + name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out.append(mod.generate())
    return out


# --------------------------------------------------------------------------
# build configuration


def _openblas():
    import scipy_openblas32 as ob

    return ob.get_include_dir(), ob.get_lib_dir(), ob.get_library()


def _rpaths(libdir):
    """Where libscipy_openblas may live at run time: next to the installed
    package ($ORIGIN/..), in the target interpreter's site-packages (pip's
    build isolation keeps sys.prefix pointing at it), and where it was found
    at build time."""
    paths = ["$ORIGIN/../scipy_openblas32/lib"]
    for key in ("purelib", "platlib"):
        try:
            p = os.path.join(sysconfig.get_path(key), "scipy_openblas32", "lib")
        except Exception:  # pragma: no cover
            continue
        if p not in paths:
            paths.append(p)
    try:
        import site

        p = os.path.join(site.getusersitepackages(), "scipy_openblas32", "lib")
        if p not in paths:
            paths.append(p)
    except Exception:  # pragma: no cover
        pass
    import tempfile

    tmp = os.path.realpath(tempfile.gettempdir())
    # skip the build-time location when it is pip's temporary build env
    if libdir not in paths and not os.path.realpath(libdir).startswith(tmp + os.sep):
        paths.append(libdir)
    return paths


def compile_args():
    arch = os.environ.get("EMBER_CPU_ARCH", "native")
    # -fno-math-errno / -fno-trapping-math let libm rounding functions and
    # selects vectorise; neither changes NaN/inf results (no -ffast-math).
    # -fwrapv: signed integer overflow wraps (torch semantics), no UB.
    # -g0: no debug information (Python's own CFLAGS ask for -g): it does not change the
    # code and cost a third of the compile time; EMBER_CPU_CFLAGS=-g brings it back.
    args = [
        "-O3",
        "-g0",
        "-march=" + arch,
        "-fopenmp",
        "-fno-math-errno",
        "-fno-trapping-math",
        "-fwrapv",
        "-mprefer-vector-width=512",
        "-std=gnu11",
        "-Wno-unused-variable",
        "-Wno-unused-function",
        "-Wno-unused-parameter",
    ]
    args += sanitize_args()
    args += shlex.split(os.environ.get("EMBER_CPU_CFLAGS", ""))
    return args


#: EMBER_CPU_SANITIZE value -> flags added to every unit's compile and to the link. -O1 keeps
#: the build quick and the reports' stacks readable; it comes after -O3 and replaces it (the
#: per-unit flags change too, see unit_flags()). Python is not built with the sanitizer: a
#: process loading such a module needs the runtime preloaded (tools/build_asan.py does that).
SANITIZERS = {"address": ["-fsanitize=address", "-fno-omit-frame-pointer", "-O1", "-g"]}


def sanitize_args(name=None):
    """The flags of sanitizer ``name`` (default: ``$EMBER_CPU_SANITIZE``); [] for none."""
    if name is None:
        name = os.environ.get("EMBER_CPU_SANITIZE", "")
    if not name:
        return []
    if name not in SANITIZERS:
        known = ", ".join(sorted(SANITIZERS))
        raise ValueError(f"EMBER_CPU_SANITIZE={name!r} is not a known sanitizer (known: {known})")
    return list(SANITIZERS[name])


#: extra compiler flags per unit (after compile_args(), so they win). CFFI's wrapper unit is
#: argument-conversion glue for 670 functions, the longest unit to compile: -O2 takes a
#: sixth less time than -O3 (17 s instead of 20 s of CPU) and the glue does not vectorise.
UNIT_FLAGS = {"ember_cpu._C": ["-O2"]}
#: ... and in a sanitizer build: the wrapper unit at -O0 takes half the time of -O1 (9 s instead
#: of 20 s of CPU) and is still checked; the kernels keep the sanitizer's -O1.
SANITIZE_UNIT_FLAGS = {"ember_cpu._C": ["-O0"]}


def unit_flags():
    """The per-unit flags of this build: UNIT_FLAGS, or SANITIZE_UNIT_FLAGS when sanitizing."""
    return SANITIZE_UNIT_FLAGS if sanitize_args() else UNIT_FLAGS


def make_ffibuilder():
    """The FFI object of ``ember_cpu._C``: its own source is the wrapper unit's (the
    module-level functions and every kernel's prototype); the kernel units ride along as
    ``ffi.ember_units`` ({name: C source}) for setup.py's build_ext to compile."""
    units, module, cdefs, _ = generate_units()
    inc, libdir, libname = _openblas()
    ffi = FFI()
    ffi.cdef("\n".join(cdefs))
    link = ["-fopenmp"] + sanitize_args() + ["-Wl,-rpath," + p for p in _rpaths(libdir)]
    ffi.set_source(
        "ember_cpu._C",
        module + "\n/* the kernels, defined in the other units */\n" + "\n".join(cdefs),
        include_dirs=[CSRC, inc],
        library_dirs=[libdir],
        libraries=[libname, "m"],
        extra_compile_args=compile_args(),
        extra_link_args=link,
        depends=[os.path.join(CSRC, f) for f in os.listdir(CSRC)]
        + [os.path.join(HERE, n + ".py") for n in ("_build",) + EXTENSIONS],
    )
    ffi.ember_units = units
    ffi.ember_unit_flags = unit_flags()
    return ffi


ffibuilder = make_ffibuilder()

if __name__ == "__main__":
    if "--source" in sys.argv:
        print(generate()[0])
    else:
        # developer shortcut: setup.py's build_ext in place (the .so lands next to this file)
        import subprocess

        root = os.path.dirname(HERE)
        cmd = [sys.executable, "setup.py", "-q", "build_ext", "--inplace"]
        sys.exit(subprocess.call(cmd + (["--force"] if "--force" in sys.argv else []), cwd=root))
