"""Low-level tests of the ember_cpu C kernels, driven through tiny fake tensors
built from numpy arrays (no ember import).  References: numpy float64, and
torch where the semantics are torch-specific."""

from __future__ import annotations

import importlib
import math
import sys
import types

import numpy as np
import pytest


def _load_kernels():
    try:
        return importlib.import_module("ember_cpu.kernels")
    except ImportError:
        # ember_cpu/__init__ imports ember; load the kernel modules without it
        for name in [m for m in sys.modules if m == "ember_cpu" or m.startswith("ember_cpu.")]:
            del sys.modules[name]
        spec = importlib.util.find_spec("ember_cpu")
        if spec is None:
            raise
        pkg = types.ModuleType("ember_cpu")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["ember_cpu"] = pkg
        return importlib.import_module("ember_cpu.kernels")


K = _load_kernels()

# ---------------------------------------------------------------------------
# fake tensors
NP = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.uint16,
    "float32": np.float32,
    "float64": np.float64,
}
NAME_OF = {np.dtype(v): k for k, v in NP.items() if k != "bfloat16"}
FLOATS = ["float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
NUMERIC = INTS + FLOATS
ALL10 = ["bool"] + NUMERIC + ["float16", "bfloat16"]


class DType:
    __slots__ = ("name", "itemsize")

    def __init__(self, name):
        self.name = name
        self.itemsize = np.dtype(NP[name]).itemsize


class Storage:
    __slots__ = ("data", "handle")

    def __init__(self, data):
        self.data = data
        self.handle = None


class FT:
    __slots__ = ("_storage", "_shape", "_stride", "_offset", "_dtype")

    def __init__(self, storage, shape, stride, offset, dtype):
        self._storage = storage
        self._shape = tuple(int(s) for s in shape)
        self._stride = tuple(int(s) for s in stride)
        self._offset = int(offset)
        self._dtype = dtype


def from_view(base, view, name=None):
    """Fake tensor sharing the layout of numpy `view` (a view of contiguous `base`)."""
    assert base.flags.c_contiguous
    name = name or NAME_OF[base.dtype]
    dt = DType(name)
    isz = base.dtype.itemsize
    raw = np.zeros(base.nbytes + 64, np.uint8)  # 64-byte aligned copy of base
    raw[: base.nbytes] = base.reshape(-1).view(np.uint8)
    off = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert 0 <= off <= base.nbytes, "view is not a view of base"
    assert off % isz == 0 and all(s >= 0 and s % isz == 0 for s in view.strides)
    return FT(Storage(raw), view.shape, [s // isz for s in view.strides], off // isz, dt)


def tensor(x, name=None):
    x = np.ascontiguousarray(x)
    return from_view(x, x, name)


def empty(shape, name):
    return tensor(np.zeros(shape, NP[name]), name)


def to_np(t):
    dt = np.dtype(NP[t._dtype.name])
    flat = t._storage.data[: len(t._storage.data) // dt.itemsize * dt.itemsize].view(dt)
    v = np.lib.stride_tricks.as_strided(
        flat[t._offset :], t._shape, [s * dt.itemsize for s in t._stride]
    )
    return np.array(v)


def layouts(x, name=None, which=("contig", "transposed", "strided", "offset", "broadcast")):
    """Yield (label, fake tensor) holding the values of x in various layouts."""
    x = np.ascontiguousarray(x)
    for kind in which:
        if kind == "contig":
            yield kind, tensor(x, name)
        elif kind == "transposed" and x.ndim >= 2:
            base = np.ascontiguousarray(x.T)
            yield kind, from_view(base, base.T, name)
        elif kind == "strided" and x.ndim >= 1:
            big = np.zeros(x.shape[:-1] + (2 * x.shape[-1] + 1,), x.dtype)
            v = big[..., 1::2]
            v[...] = x
            yield kind, from_view(big, v, name)
        elif kind == "offset" and x.size > 0:
            big = np.zeros(x.size + 7, x.dtype)
            v = big[7:].reshape(x.shape)
            v[...] = x
            yield kind, from_view(big, v, name)
        elif kind == "broadcast" and x.ndim >= 2:
            # x built from a row broadcast along dim 0
            row = np.ascontiguousarray(x[:1])
            v = np.broadcast_to(row, x.shape)
            x[...] = v
            yield kind, from_view(row, v, name)


def out_layouts(shape, name):
    yield "contig", empty(shape, name)
    if len(shape) >= 2:
        base = np.zeros(shape[::-1], NP[name])
        yield "transposed-out", from_view(base, base.T, name)


RNG = np.random.default_rng(1234)


def rand(shape, name, lo=-3.0, hi=3.0):
    if name == "bool":
        return RNG.random(shape) < 0.5
    if name in INTS:
        info = np.iinfo(NP[name])
        lo_i, hi_i = max(info.min, int(lo * 10)), min(info.max, int(hi * 10))
        return RNG.integers(lo_i, hi_i + 1, size=shape).astype(NP[name])
    return RNG.uniform(lo, hi, size=shape).astype(NP[name])


def check_close(got, ref, name, rtol=None, atol=None):
    if name in ("bool",) + tuple(INTS) or got.dtype == np.bool_:
        np.testing.assert_array_equal(got, ref)
        return
    if rtol is None:
        rtol = {"float32": 2e-6, "float64": 1e-12}[name]
    if atol is None:
        atol = {"float32": 1e-6, "float64": 1e-12}[name]
    np.testing.assert_allclose(
        got.astype(np.float64), np.asarray(ref, np.float64), rtol=rtol, atol=atol, equal_nan=True
    )


# ---------------------------------------------------------------------------
# unary
def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _torch_ref(name):
    """A float64 reference from PyTorch (special functions numpy lacks)."""

    def ref(x):
        torch = pytest.importorskip("torch")
        return getattr(torch, name)(torch.from_numpy(np.asarray(x, np.float64))).numpy()

    return ref


def _sp(x):
    with np.errstate(over="ignore"):
        return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


UREF = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "sin": np.sin,
    "cos": np.cos,
    "reciprocal": lambda x: 1 / x,
    "square": np.square,
    "relu": lambda x: np.maximum(x, 0),
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.round,
    "sign": lambda x: x if x.dtype == np.bool_ else np.sign(x),
    "logical_not": np.logical_not,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "erf": _erf,
    "erfc": _erfc,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "silu": lambda x: x / (1 + np.exp(-x)),
    "gelu": lambda x: x * 0.5 * (1 + _erf(x / math.sqrt(2))),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "softplus": _sp,
    "mish": lambda x: x * np.tanh(_sp(x)),
    "frac": lambda x: x - np.trunc(x),
    "bitwise_not": np.invert,
    "erfinv": _torch_ref("erfinv"),
    "digamma": _torch_ref("digamma"),
    "lgamma": _torch_ref("lgamma"),
}
UDOMAIN = {
    "log": (0.01, 5),
    "sqrt": (0, 5),
    "log2": (0.01, 5),
    "log10": (0.01, 5),
    "log1p": (-0.9, 5),
    "rsqrt": (0.01, 5),
    "asin": (-1, 1),
    "acos": (-1, 1),
    "acosh": (1, 5),
    "atanh": (-0.99, 0.99),
    "reciprocal": (0.1, 3),
    "tan": (-1.4, 1.4),
    "exp": (-80, 80),
    "sinh": (-80, 80),
    "cosh": (-80, 80),
    "tanh": (-12, 12),
    "sigmoid": (-30, 30),
    "silu": (-30, 30),
    "softplus": (-30, 30),
    "mish": (-30, 30),
    "gelu_tanh": (-8, 8),
    "gelu": (-8, 8),
    "exp2": (-100, 100),
    "expm1": (-5, 5),
    "erfinv": (-0.999, 0.999),
    "digamma": (0.05, 20),
    "lgamma": (-4.5, 20),
}
UNARY_CASES = [(op, dt) for op, dts in sorted(K.UNARY_OPS.items()) for dt in dts]


def test_unary_table_covers_brief():
    wanted = (
        "neg abs exp log sqrt tanh sigmoid sin cos reciprocal square relu floor ceil "
        "trunc round sign logical_not isnan isinf isfinite exp2 expm1 log2 log10 log1p "
        "rsqrt erf erfc tan asin acos atan sinh cosh asinh acosh atanh silu gelu "
        "gelu_tanh softplus mish frac"
    ).split()
    for op in wanted:
        assert set(FLOATS) <= set(K.UNARY_OPS[op]), op
    for op in "neg abs square relu sign floor ceil trunc round".split():
        assert set(INTS) <= set(K.UNARY_OPS[op]), op


@pytest.mark.parametrize("op,dt", UNARY_CASES)
def test_unary(op, dt):
    lo, hi = UDOMAIN.get(op, (-3, 3))
    x = rand((4, 5, 6), dt, lo, hi)
    if op == "round" and dt in FLOATS:
        x.ravel()[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 4.5]
    bool_out = op in ("logical_not", "isnan", "isinf", "isfinite")
    with np.errstate(all="ignore"):
        ref = UREF[op](x.astype(np.float64) if dt in FLOATS else x)
    if not bool_out and dt not in FLOATS:
        ref = np.asarray(ref).astype(NP[dt])
    oname = "bool" if bool_out else dt
    rtol = {"float32": 4e-6, "float64": 1e-13}.get(dt)
    for _label, t in layouts(x.copy(), dt):
        xv = to_np(t)
        with np.errstate(all="ignore"):
            r = UREF[op](xv.astype(np.float64) if dt in FLOATS else xv)
        if not bool_out and dt not in FLOATS:
            r = np.asarray(r).astype(NP[dt])
        for _olabel, o in out_layouts(x.shape, oname):
            K.unary(op, o, t)
            check_close(to_np(o), r, oname if bool_out else dt, rtol=rtol)
    # 0-dim and empty
    t0 = tensor(x.reshape(-1)[:1].reshape(()), dt)
    o0 = empty((), oname)
    K.unary(op, o0, t0)
    check_close(
        to_np(o0), np.asarray(ref).reshape(-1)[:1].reshape(()), oname if bool_out else dt, rtol=rtol
    )
    K.unary(op, empty((0, 3), oname), tensor(np.zeros((0, 3), NP[dt]), dt))


@pytest.mark.parametrize(
    "op",
    [
        "exp",
        "tanh",
        "sigmoid",
        "silu",
        "gelu_tanh",
        "neg",
        "abs",
        "sqrt",
        "round",
        "isnan",
        "log",
        "erf",
    ],
)
@pytest.mark.parametrize("dt", FLOATS)
def test_unary_big_parallel(op, dt):
    lo, hi = UDOMAIN.get(op, (-3, 3))
    x = rand((300, 257), dt, lo, hi)  # 77100 elements: above both OpenMP grains
    for _label, t in layouts(x, dt, ("contig", "transposed", "strided")):
        o = empty(x.shape, "bool" if op == "isnan" else dt)
        K.unary(op, o, t)
        with np.errstate(all="ignore"):
            r = UREF[op](to_np(t).astype(np.float64))
        check_close(
            to_np(o),
            r,
            "bool" if op == "isnan" else dt,
            rtol={"float32": 4e-6, "float64": 1e-13}[dt],
        )


def test_expf_tanhf_sigmoid_ulp():
    """Vectorised float32 exp/tanh/sigmoid: <= 2 ulp (3 for sigmoid) on a dense sample,
    and exact special values."""
    x = np.concatenate([np.linspace(-104, 90, 400001), np.linspace(-1, 1, 200001)]).astype(
        np.float32
    )
    for op, ref, maxulp in [
        ("exp", np.exp, 1.0),
        ("tanh", np.tanh, 2.0),
        ("sigmoid", lambda v: 1 / (1 + np.exp(-v)), 3.0),
    ]:
        o = empty(x.shape, "float32")
        K.unary(op, o, tensor(x))
        got = to_np(o).astype(np.float64)
        with np.errstate(all="ignore"):
            r = ref(x.astype(np.float64))
            r32 = r.astype(np.float32)
        fin = np.isfinite(r32) & (np.abs(r32) >= np.finfo(np.float32).tiny)
        ulp = np.spacing(np.abs(r32[fin])).astype(np.float64)
        err = np.abs(got[fin] - r[fin]) / ulp
        assert err.max() <= maxulp, (op, err.max())
        # overflow / underflow boundaries agree with the correctly rounded result
        assert np.array_equal(np.isinf(got), np.isinf(r32)), op
    sp = np.array(
        [np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72283, 88.72284, -103.97, -87.33655, 1e-30, -1e-30],
        np.float32,
    )
    with np.errstate(over="ignore"):
        specials = [
            ("exp", np.exp(sp.astype(np.float64)).astype(np.float32)),
            ("tanh", np.tanh(sp.astype(np.float64)).astype(np.float32)),
        ]
    for op, exp_vals in specials:
        o = empty(sp.shape, "float32")
        K.unary(op, o, tensor(sp))
        got = to_np(o)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(exp_vals))
        np.testing.assert_allclose(
            got[~np.isnan(got)], exp_vals[~np.isnan(exp_vals)], rtol=2.4e-7, atol=1e-45
        )
        assert np.array_equal(np.signbit(got), np.signbit(exp_vals)) or op == "exp"


SPECIAL = np.array(
    [
        np.nan,
        -np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        20.0,
        20.5,
        -20.5,
        1e-40,
        -1e-40,
        1e30,
        -1e30,
        88.0,
        -100.0,
        2.0,
        3.7,
    ]
)
TORCH_UNARY = {
    "sign": "sign",
    "round": "round",
    "relu": "relu",
    "sigmoid": "sigmoid",
    "tanh": "tanh",
    "exp": "exp",
    "abs": "abs",
    "frac": "frac",
    "rsqrt": "rsqrt",
    "reciprocal": "reciprocal",
    "floor": "floor",
    "trunc": "trunc",
    "square": "square",
    "expm1": "expm1",
    "log1p": "log1p",
    "log": "log",
    "sqrt": "sqrt",
}


@pytest.mark.parametrize("dt", FLOATS)
def test_unary_special_values_vs_torch(dt):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    tfun = {k: getattr(torch, v) for k, v in TORCH_UNARY.items()}
    tfun.update(
        silu=F.silu,
        softplus=F.softplus,
        mish=F.mish,
        gelu_tanh=lambda v: F.gelu(v, approximate="tanh"),
        isnan=torch.isnan,
        isinf=torch.isinf,
        isfinite=torch.isfinite,
        logical_not=torch.logical_not,
    )
    x = SPECIAL.astype(NP[dt])
    for op, f in tfun.items():
        bool_out = op in ("isnan", "isinf", "isfinite", "logical_not")
        o = empty(x.shape, "bool" if bool_out else dt)
        K.unary(op, o, tensor(x))
        ref = f(torch.from_numpy(x.copy())).numpy()
        got = to_np(o)
        if bool_out:
            np.testing.assert_array_equal(got, ref, err_msg=op)
            continue
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=op)
        np.testing.assert_allclose(got, ref, rtol=4e-6, atol=1e-37, equal_nan=True, err_msg=op)
        if op in ("sign", "round", "relu", "floor", "trunc", "abs", "frac"):
            ok = ~np.isnan(ref)
            np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(ref[ok]), err_msg=op)


def test_unary_int_edge_cases():
    x = np.array([-128, -1, 0, 1, 127], np.int8)
    for op, ref in [
        ("neg", [-128, 1, 0, -1, -127]),
        ("abs", [-128, 1, 0, 1, 127]),
        ("sign", [-1, -1, 0, 1, 1]),
        ("relu", [0, 0, 0, 1, 127]),
        ("square", [0, 1, 0, 1, 1]),
        ("round", list(x)),
    ]:
        o = empty(x.shape, "int8")
        K.unary(op, o, tensor(x))
        np.testing.assert_array_equal(to_np(o), np.array(ref, np.int8), err_msg=op)
    u = np.array([0, 3, 250], np.uint8)
    for op, ref in [("neg", [0, 253, 6]), ("abs", [0, 3, 250]), ("sign", [0, 1, 1])]:
        o = empty(u.shape, "uint8")
        K.unary(op, o, tensor(u))
        np.testing.assert_array_equal(to_np(o), np.array(ref, np.uint8), err_msg=op)


def test_unary_unsupported_raises():
    with pytest.raises(TypeError, match="'sqrt' is not implemented for int64"):
        K.unary("sqrt", empty((3,), "int64"), tensor(np.arange(3)))
    with pytest.raises(TypeError):
        K.unary("no_such_op", empty((3,), "float32"), tensor(np.ones(3, np.float32)))


# ---------------------------------------------------------------------------
# binary
def _np_div_floor(a, b):
    return np.floor_divide(a, b)


BREF = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "pow": np.power,
    "atan2": np.arctan2,
    "hypot": np.hypot,
    "copysign": np.copysign,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "div_floor": _np_div_floor,
    "div_trunc": lambda a, b: np.trunc(a / b),
    "remainder": np.remainder,
    "fmod": np.fmod,
    "gcd": np.gcd,
}
TORCH_ONLY = {"bitwise_left_shift", "bitwise_right_shift", "nextafter"}
BOOL_OUT = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
BINARY_CASES = [(op, dt) for op, dts in sorted(K.BINARY_OPS.items()) for dt in dts]


def _binary_inputs(op, dt, shape):
    a = rand(shape, dt)
    b = rand(shape, dt)
    if op in ("div_floor", "div_trunc", "remainder", "fmod") and dt in INTS:
        b[b == 0] = 3
    if op == "pow":
        if dt in FLOATS:
            a = np.abs(a) + np.asarray(0.1, a.dtype)
        else:
            a = rand(shape, dt, -0.3, 0.3)
            b = RNG.integers(0, 5, size=shape).astype(NP[dt])
    if op in ("bitwise_left_shift", "bitwise_right_shift"):
        b = RNG.integers(0, 8 * np.dtype(NP[dt]).itemsize + 2, size=shape).astype(NP[dt])
    return a, b


def _bref(op, dt, a, b):
    if op in TORCH_ONLY or (
        op in ("div_floor", "div_trunc", "remainder", "fmod", "pow") and dt in INTS and False
    ):
        raise AssertionError
    with np.errstate(all="ignore"):
        if dt in FLOATS:
            r = BREF[op](a.astype(np.float64), b.astype(np.float64))
        else:
            if op == "div_trunc":
                q = np.floor_divide(a, b)
                r = np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q)
            elif op == "div" or op == "pow" and dt == "bool":
                raise AssertionError
            else:
                r = BREF[op](a, b)
    if op in BOOL_OUT:
        return np.asarray(r, np.bool_)
    if dt not in FLOATS:
        return np.asarray(r).astype(NP[dt])
    return r


@pytest.mark.parametrize("op,dt", BINARY_CASES)
def test_binary(op, dt):
    shape = (4, 5, 6)
    a, b = _binary_inputs(op, dt, shape)
    oname = "bool" if op in BOOL_OUT else dt
    torch = None
    if op in TORCH_ONLY:
        torch = pytest.importorskip("torch")
    rtol = {"float32": 4e-6, "float64": 1e-13}.get(dt)
    if op in ("div_floor", "remainder") and dt in FLOATS:
        rtol = 1e-5  # quotient near integers: float32 rounding of the inputs decides
    for _la, ta in layouts(a.copy(), dt):
        av = to_np(ta)
        for _lb, tb in layouts(b.copy(), dt, ("contig", "transposed", "broadcast")):
            bv = to_np(tb)
            if op in ("div_floor", "div_trunc", "remainder", "fmod") and dt in INTS:
                assert (bv != 0).all()
            if torch is not None:
                tf = getattr(torch, op)
                ref = tf(torch.from_numpy(av.copy()), torch.from_numpy(bv.copy())).numpy()
            else:
                ref = _bref(op, dt, av, bv)
            for _lo, o in out_layouts(shape, oname):
                K.binary(op, o, ta, tb)
                got = to_np(o)
                if op in ("div_floor",) and dt in FLOATS:
                    # torch's floor division may differ from floor(a/b) by one ulp of the quotient
                    np.testing.assert_allclose(got, ref, rtol=0, atol=1.0 + 1e-9)
                else:
                    check_close(got, ref, oname, rtol=rtol)
    # scalar (0-dim) and broadcast-scalar (all strides 0) operands
    a0 = tensor(a.reshape(-1)[:1].reshape(()), dt)
    b0 = tensor(b.reshape(-1)[:1].reshape(()), dt)
    o0 = empty((), oname)
    K.binary(op, o0, a0, b0)
    ref0 = (
        getattr(torch, op)(torch.from_numpy(to_np(a0)), torch.from_numpy(to_np(b0))).numpy()
        if torch is not None
        else _bref(op, dt, to_np(a0), to_np(b0))
    )
    check_close(to_np(o0), ref0, oname, rtol=rtol)
    b1 = b.reshape(-1)[:1].copy()
    scal = from_view(b1, np.broadcast_to(b1, shape), dt)
    o = empty(shape, oname)
    K.binary(op, o, tensor(a, dt), scal)
    bsv = np.broadcast_to(b.reshape(-1)[:1], shape)
    ref = (
        getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(bsv.copy())).numpy()
        if torch is not None
        else _bref(op, dt, a, bsv)
    )
    check_close(to_np(o), ref, oname, rtol=1e-5 if dt == "float32" else rtol)
    o = empty(shape, oname)
    a1 = a.reshape(-1)[:1].copy()
    scal_a = from_view(a1, np.broadcast_to(a1, shape), dt)
    if not (op in ("div_floor", "div_trunc", "remainder", "fmod") and dt in INTS):
        K.binary(op, o, scal_a, tensor(b, dt))
        asv = np.broadcast_to(a.reshape(-1)[:1], shape)
        ref = (
            getattr(torch, op)(torch.from_numpy(asv.copy()), torch.from_numpy(b)).numpy()
            if torch is not None
            else _bref(op, dt, asv, b)
        )
        check_close(to_np(o), ref, oname, rtol=1e-5 if dt == "float32" else rtol)
    # empty
    K.binary(
        op,
        empty((0, 4), oname),
        tensor(np.zeros((0, 4), NP[dt]), dt),
        tensor(np.zeros((0, 4), NP[dt]), dt),
    )


@pytest.mark.parametrize(
    "op,dt",
    [
        ("add", "float32"),
        ("mul", "float32"),
        ("add", "int64"),
        ("maximum", "float64"),
        ("lt", "float32"),
        ("add", "int8"),
        ("div_floor", "int32"),
        ("pow", "float32"),
        ("remainder", "float64"),
        ("sub", "float64"),
    ],
)
def test_binary_big_parallel(op, dt):
    shape = (260, 300)  # 78000 elements, above the OpenMP grain
    a, b = _binary_inputs(op, dt, shape)
    oname = "bool" if op in BOOL_OUT else dt
    for _la, ta in layouts(a.copy(), dt, ("contig", "transposed", "broadcast")):
        for _lb, tb in layouts(b.copy(), dt, ("contig", "strided")):
            o = empty(shape, oname)
            K.binary(op, o, ta, tb)
            check_close(
                to_np(o),
                _bref(op, dt, to_np(ta), to_np(tb)),
                oname,
                rtol=1e-5 if op in ("remainder", "pow") else None,
            )


def test_binary_alpha():
    a = rand((5, 7), "float32")
    b = rand((5, 7), "float32")
    for op, sign in [("add", 1), ("sub", -1)]:
        o = empty(a.shape, "float32")
        K.binary(op, o, tensor(a), tensor(b), alpha=2.5)
        np.testing.assert_allclose(to_np(o), a + sign * np.float32(2.5) * b, rtol=1e-6, atol=1e-6)
        ai = rand((5, 7), "int64")
        bi = rand((5, 7), "int64")
        o = empty(a.shape, "int64")
        K.binary(op, o, tensor(ai), tensor(bi), alpha=-3)
        np.testing.assert_array_equal(to_np(o), ai + sign * -3 * bi)
        a8 = rand((5, 7), "int8")
        b8 = rand((5, 7), "int8")
        o = empty(a.shape, "int8")
        K.binary(op, o, tensor(a8), tensor(b8), alpha=100)
        np.testing.assert_array_equal(
            to_np(o), (a8.astype(np.int64) + sign * 100 * b8).astype(np.int8)
        )
        # broadcast scalar b with alpha
        o = empty(a.shape, "float64")
        a64 = a.astype(np.float64)
        bs = np.array([1.5])
        K.binary(op, o, tensor(a64), from_view(bs, np.broadcast_to(bs, a.shape)), alpha=0.5)
        np.testing.assert_allclose(to_np(o), a64 + sign * 0.75)
    bb = np.array([True, False, False, True])
    cc = np.array([True, True, False, False])
    o = empty((4,), "bool")
    K.binary("add", o, tensor(bb), tensor(cc), alpha=True)
    np.testing.assert_array_equal(to_np(o), bb | cc)
    K.binary("add", o, tensor(bb), tensor(cc), alpha=False)
    np.testing.assert_array_equal(to_np(o), bb)
    with pytest.raises(RuntimeError, match="alpha"):
        K.binary("add", empty((3,), "int64"), tensor(np.arange(3)), tensor(np.arange(3)), alpha=1.5)


def test_binary_bool_semantics():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    for op, ref in [
        ("add", a | b),
        ("mul", a & b),
        ("maximum", a | b),
        ("minimum", a & b),
        ("bitwise_xor", a ^ b),
        ("eq", a == b),
        ("lt", a < b),
    ]:
        o = empty((4,), "bool")
        K.binary(op, o, tensor(a), tensor(b))
        np.testing.assert_array_equal(to_np(o), ref, err_msg=op)


@pytest.mark.parametrize("dt", FLOATS)
def test_binary_float_division_modes_vs_torch(dt):
    torch = pytest.importorskip("torch")
    with np.errstate(over="ignore", under="ignore"):
        vals = np.array(
            [
                7,
                -7,
                7,
                -7,
                0,
                1,
                -1,
                5,
                np.inf,
                1,
                -0.0,
                0.0,
                -1e-300,
                4,
                -4,
                np.nan,
                3,
                1e30,
                -1e-30,
                2.5,
            ],
            NP[dt],
        )
        divs = np.array(
            [
                2,
                2,
                -2,
                -2,
                0,
                0,
                0,
                np.inf,
                2,
                -np.inf,
                5,
                -5,
                1e300,
                2,
                -2,
                1,
                np.nan,
                3e-30,
                7,
                -0.5,
            ],
            NP[dt],
        )
    A, Bt = torch.from_numpy(vals.copy()), torch.from_numpy(divs.copy())
    refs = {
        "div_floor": torch.div(A, Bt, rounding_mode="floor"),
        "div_trunc": torch.div(A, Bt, rounding_mode="trunc"),
        "remainder": torch.remainder(A, Bt),
        "fmod": torch.fmod(A, Bt),
        "maximum": torch.maximum(A, Bt),
        "minimum": torch.minimum(A, Bt),
        "pow": torch.pow(A, Bt),
        "copysign": torch.copysign(A, Bt),
        "atan2": torch.atan2(A, Bt),
        "hypot": torch.hypot(A, Bt),
        "div": A / Bt,
    }
    for op, ref in refs.items():
        o = empty(vals.shape, dt)
        K.binary(op, o, tensor(vals), tensor(divs))
        got, ref = to_np(o), ref.numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=op)
        np.testing.assert_allclose(got, ref, rtol=4e-6, equal_nan=True, err_msg=op)
        ok = ~np.isnan(ref)
        np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(ref[ok]), err_msg=op)
    # min/max with signed zeros: torch returns the first argument on ties
    z = np.array([0.0, -0.0], NP[dt])
    nz = np.array([-0.0, 0.0], NP[dt])
    for op in ("maximum", "minimum"):
        o = empty((2,), dt)
        K.binary(op, o, tensor(z), tensor(nz))
        ref = getattr(torch, op)(torch.from_numpy(z.copy()), torch.from_numpy(nz.copy())).numpy()
        np.testing.assert_array_equal(np.signbit(to_np(o)), np.signbit(ref))


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8"])
def test_binary_int_division_modes_vs_torch(dt):
    torch = pytest.importorskip("torch")
    if dt == "uint8":
        a = np.array([7, 200, 0, 255, 9], np.uint8)
        b = np.array([2, 7, 3, 255, 10], np.uint8)
    else:
        info = np.iinfo(NP[dt])
        a = np.array([7, -7, 7, -7, 0, 5, -5, info.min + 1, info.max, info.min, 6], NP[dt])
        b = np.array([2, 2, -2, -2, 3, 7, 7, -1, -1, 3, -3], NP[dt])
    A, Bt = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    refs = {
        "div_floor": torch.div(A, Bt, rounding_mode="floor"),
        "div_trunc": torch.div(A, Bt, rounding_mode="trunc"),
        "remainder": torch.remainder(A, Bt),
        "fmod": torch.fmod(A, Bt),
    }
    for op, ref in refs.items():
        o = empty(a.shape, dt)
        K.binary(op, o, tensor(a), tensor(b))
        np.testing.assert_array_equal(to_np(o), ref.numpy(), err_msg=op)
    if dt != "uint8":
        # INT_MIN / -1 crashes torch (SIGFPE); here it wraps
        mn = np.array([np.iinfo(NP[dt]).min], NP[dt])
        m1 = np.array([-1], NP[dt])
        for op, ref in [("div_floor", mn), ("div_trunc", mn), ("remainder", [0]), ("fmod", [0])]:
            o = empty((1,), dt)
            K.binary(op, o, tensor(mn), tensor(m1))
            np.testing.assert_array_equal(to_np(o), np.array(ref, NP[dt]))
    # division by zero raises like torch
    for op in ("div_floor", "div_trunc", "remainder", "fmod"):
        z = np.zeros(a.shape, NP[dt])
        z[0] = 1
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            K.binary(op, empty(a.shape, dt), tensor(a), tensor(z))
        big = np.ones(100000, NP[dt])
        big[77777] = 0
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            K.binary(op, empty(big.shape, dt), tensor(np.ones(100000, NP[dt])), tensor(big))


@pytest.mark.parametrize("dt", INTS)
def test_int_pow_and_shifts_vs_torch(dt):
    torch = pytest.importorskip("torch")
    signed = dt != "uint8"
    a = np.array([2, 3, 0, 1, 5, 7, 2, 1, 0] + ([-1, -1, 2, -3, 1, 0] if signed else []), NP[dt])
    b = np.array(
        [62 if dt == "int64" else 7, 40, 0, 100 if dt in ("int8", "uint8") else 1000, 3, 2, 1, 0, 5]
        + ([-3, -4, -1, 3, -5, -1] if signed else []),
        NP[dt],
    )
    if dt in ("int8", "uint8"):
        b[0] = 7
        b[1] = 100
    ref = torch.pow(torch.from_numpy(a.copy()), torch.from_numpy(b.copy())).numpy()
    o = empty(a.shape, dt)
    K.binary("pow", o, tensor(a), tensor(b))
    np.testing.assert_array_equal(to_np(o), ref)
    bits = 8 * np.dtype(NP[dt]).itemsize
    x = np.array(
        [1, 1, 3, 100, 5, 1] + ([-8, -8, -1, -100] if signed else [200, 255, 128, 7]), NP[dt]
    )
    s = np.array(
        [bits - 1, bits, 2, bits + 5, 0, bits - 2]
        + ([1, bits, bits - 1, 3] if signed else [1, bits, 7, 2]),
        NP[dt],
    )
    for op in ("bitwise_left_shift", "bitwise_right_shift"):
        ref = getattr(torch, op)(torch.from_numpy(x.copy()), torch.from_numpy(s.copy())).numpy()
        o = empty(x.shape, dt)
        K.binary(op, o, tensor(x), tensor(s))
        np.testing.assert_array_equal(to_np(o), ref, err_msg=op)


def test_int_overflow_wraps():
    a = np.array([127, -128, 100], np.int8)
    b = np.array([1, 1, 100], np.int8)
    for op, ref in [("add", [-128, -127, -56]), ("sub", [126, 127, 0]), ("mul", [127, -128, 16])]:
        o = empty((3,), "int8")
        K.binary(op, o, tensor(a), tensor(b))
        np.testing.assert_array_equal(to_np(o), np.array(ref, np.int8), err_msg=op)
    big = np.array([2**62, -(2**63)], np.int64)
    o = empty((2,), "int64")
    K.binary("add", o, tensor(big), tensor(big))
    np.testing.assert_array_equal(to_np(o), np.array([-(2**63), 0], np.int64))


def test_inplace_aliasing():
    """out may be the same memory as an input (in-place ops)."""
    x = rand((1000,), "float32")
    t = tensor(x)
    K.binary("add", t, t, tensor(np.ones(1000, np.float32)))
    np.testing.assert_allclose(to_np(t), x + 1, rtol=1e-6)
    K.unary("neg", t, t)
    np.testing.assert_allclose(to_np(t), -(x + 1), rtol=1e-6)


def test_binary_unsupported_raises():
    with pytest.raises(TypeError, match="'div' is not implemented for int64"):
        K.binary("div", empty((3,), "int64"), tensor(np.arange(3)), tensor(np.arange(3)))
    with pytest.raises(TypeError, match="atan2"):
        K.binary(
            "atan2",
            empty((3,), "int32"),
            tensor(np.arange(3, dtype=np.int32)),
            tensor(np.arange(3, dtype=np.int32)),
        )


# ---------------------------------------------------------------------------
# where
def _rand_any(shape, dt):
    if dt == "bfloat16":
        return (RNG.integers(0, 2**16, size=shape)).astype(np.uint16)
    if dt == "float16":
        return RNG.uniform(-5, 5, size=shape).astype(np.float16)
    return rand(shape, dt)


@pytest.mark.parametrize("dt", ALL10)
def test_where(dt):
    shape = (6, 7)
    c = RNG.random(shape) < 0.5
    a = _rand_any(shape, dt)
    b = _rand_any(shape, dt)
    for _lc, tc in layouts(c.copy(), "bool", ("contig", "transposed", "broadcast")):
        for _la, ta in layouts(a.copy(), dt, ("contig", "strided")):
            for _lb, tb in layouts(b.copy(), dt, ("contig", "broadcast")):
                o = empty(shape, dt)
                K.where(o, tc, ta, tb)
                np.testing.assert_array_equal(to_np(o), np.where(to_np(tc), to_np(ta), to_np(tb)))
    big_c = RNG.random(100000) < 0.5
    o = empty((100000,), dt)
    ba, bb = _rand_any(100000, dt), _rand_any(100000, dt)
    K.where(o, tensor(big_c), tensor(ba, dt), tensor(bb, dt))
    np.testing.assert_array_equal(to_np(o), np.where(big_c, ba, bb))


# ---------------------------------------------------------------------------
# casts
def f32_to_bf16_ref(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, np.float32))
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)


def bf16_to_f32_ref(h):
    return (np.asarray(h, np.uint32) << 16).view(np.float32)


def _cast_ref_values():
    return np.array(
        [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -1.5,
            2.5,
            255.9,
            256.0,
            300.0,
            -129.0,
            127.5,
            65504.0,
            65519.0,
            65520.0,
            1e10,
            -1e10,
            3e9,
            -3e9,
            1e-8,
            6e-8,
            3e-5,
            1.0009765625,
            1 + 2**-11,
            1 + 2**-11 + 2**-20,
            3.3895e38,
            3.4e38,
            np.inf,
            -np.inf,
            np.nan,
            2**31,
            -(2**31),
            2**63,
            123456789.0,
        ]
    )


def _torch_dtype(torch, name):
    return getattr(torch, name)


@pytest.mark.parametrize("src", ALL10)
def test_cast_vs_torch(src):
    torch = pytest.importorskip("torch")
    v = _cast_ref_values()
    ts = torch.from_numpy(v).to(_torch_dtype(torch, src))
    ints = RNG.integers(-300, 300, size=64)
    ts = torch.cat(
        [
            ts,
            torch.from_numpy(ints).to(_torch_dtype(torch, src)),
            torch.from_numpy(RNG.uniform(-1000, 1000, 64)).to(_torch_dtype(torch, src)),
        ]
    )
    if src == "bfloat16":
        xs = ts.view(torch.int16).numpy().view(np.uint16)
    else:
        xs = ts.numpy()
    for dst in ALL10:
        ref = ts.to(_torch_dtype(torch, dst))
        ref = ref.view(torch.int16).numpy().view(np.uint16) if dst == "bfloat16" else ref.numpy()
        for _label, t in layouts(xs.copy(), src, ("contig", "strided")):
            o = empty(xs.shape, dst)
            K.copy(o, t)
            got = to_np(o)
            if dst in ("float16", "float32", "float64"):
                np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=dst)
                ok = ~np.isnan(ref)
                np.testing.assert_array_equal(got[ok], ref[ok], err_msg=f"{src}->{dst}")
                np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(ref[ok]))
            elif dst == "bfloat16":
                gf, rf = bf16_to_f32_ref(got), bf16_to_f32_ref(ref)
                np.testing.assert_array_equal(np.isnan(gf), np.isnan(rf), err_msg=dst)
                np.testing.assert_array_equal(
                    got[~np.isnan(rf)], ref[~np.isnan(rf)], err_msg=f"{src}->{dst}"
                )
            else:
                np.testing.assert_array_equal(got, ref, err_msg=f"{src}->{dst}")


def test_half_conversions_exhaustive():
    """All 65536 float16 / bfloat16 patterns -> float32 and back round-trip;
    float32 -> float16 agrees with numpy (RNE) on a dense sample."""
    bits = np.arange(65536, dtype=np.uint16)
    for name in ("float16", "bfloat16"):
        o = empty(bits.shape, "float32")
        K.copy(o, tensor(bits, name))
        f = to_np(o)
        ref = (
            bits.view(np.float16).astype(np.float32) if name == "float16" else bf16_to_f32_ref(bits)
        )
        np.testing.assert_array_equal(np.isnan(f), np.isnan(ref))
        ok = ~np.isnan(ref)
        np.testing.assert_array_equal(f[ok], ref[ok])
        back = empty(bits.shape, name)
        K.copy(back, o)
        b = to_np(back)
        np.testing.assert_array_equal(b.view(np.uint16)[ok], bits[ok])
        if name == "bfloat16":
            assert np.isnan(bf16_to_f32_ref(b[~ok])).all()
        else:
            assert np.isnan(b[~ok].view(np.float16)).all()
    u = RNG.integers(0, 2**32, size=2_000_000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate(
        [
            u.view(np.float32),
            np.linspace(-70000, 70000, 200001, dtype=np.float32),
            np.linspace(-1e-4, 1e-4, 200001, dtype=np.float32),
        ]
    )
    o = empty(x.shape, "float16")
    K.copy(o, tensor(x))
    got = to_np(o)
    with np.errstate(all="ignore"):
        ref = x.astype(np.float16)
    nan = np.isnan(x)
    np.testing.assert_array_equal(got[~nan].view(np.uint16), ref[~nan].view(np.uint16))
    assert np.isnan(got[nan]).all()
    ob = empty(x.shape, "bfloat16")
    K.copy(ob, tensor(x))
    np.testing.assert_array_equal(to_np(ob)[~nan], f32_to_bf16_ref(x)[~nan])
    assert np.isnan(bf16_to_f32_ref(to_np(ob)[nan])).all()


def test_cast_numpy_reference_and_layouts():
    x = rand((5, 6, 7), "float64", -200, 200)
    for label, t in layouts(x.copy(), "float64"):
        for dst in ("float32", "int32", "int64", "int16", "bool"):
            for _lo, o in out_layouts(x.shape, dst):
                K.copy(o, t)
                xv = to_np(t)
                ref = xv != 0 if dst == "bool" else xv.astype(NP[dst])
                np.testing.assert_array_equal(to_np(o), ref, err_msg=f"{label} {dst}")
    # same-dtype copies (memcpy and strided paths), incl. big parallel ones
    for name in ("int8", "int16", "float32", "float64"):
        y = rand((300, 301), name)
        for _label, t in layouts(y.copy(), name, ("contig", "transposed", "strided", "broadcast")):
            for _lo, o in out_layouts(y.shape, name):
                K.copy(o, t)
                np.testing.assert_array_equal(to_np(o), to_np(t))
    o0 = empty((), "int64")
    K.copy(o0, tensor(np.array(2.9)))
    assert to_np(o0) == 2
    K.copy(empty((0,), "int64"), tensor(np.zeros(0)))


# ---------------------------------------------------------------------------
# fill
@pytest.mark.parametrize("dt", ALL10)
def test_fill_vs_torch(dt):
    torch = pytest.importorskip("torch")
    values = [
        0,
        1,
        -1,
        2.5,
        -2.7,
        True,
        False,
        300,
        -255,
        -256,
        1e10,
        float("inf"),
        float("nan"),
        65504.0,
        65519.0,
        70000,
        2**40,
        -(2**63),
        2**63,
        3.5e38,
        1e300,
        127.9,
        127,
    ]
    for v in values:
        try:
            ref = torch.empty(3, dtype=_torch_dtype(torch, dt)).fill_(v)
        except (RuntimeError, OverflowError) as e:
            with pytest.raises(type(e)):
                K.fill(empty((3,), dt), v)
            continue
        ref = ref.view(torch.int16).numpy().view(np.uint16) if dt == "bfloat16" else ref.numpy()
        for _lo, o in out_layouts((3, 4), dt):
            K.fill(o, v)
            got = to_np(o).reshape(-1)
            exp = np.broadcast_to(ref[:1], got.shape)
            if dt in ("float16", "float32", "float64") and np.isnan(exp).any():
                assert np.isnan(got).all()
            elif dt == "bfloat16" and np.isnan(bf16_to_f32_ref(exp)).any():
                assert np.isnan(bf16_to_f32_ref(got)).all()
            else:
                np.testing.assert_array_equal(got, exp, err_msg=repr(v))


def test_fill_layouts_and_big():
    base = np.zeros((50, 40), np.float32)
    t = from_view(base, base[::2, 1::3])
    K.fill(t, 7.0)
    np.testing.assert_array_equal(to_np(t), np.full((25, 13), 7.0, np.float32))
    big = empty((1000, 100), "int16")
    K.fill(big, -5)
    assert (to_np(big) == -5).all()
    o0 = empty((), "float64")
    K.fill(o0, 3.25)
    assert to_np(o0) == 3.25
    K.fill(empty((0, 5), "float32"), 1.0)


# ---------------------------------------------------------------------------
# reductions
RED_CASES = [(op, dt) for op, dts in sorted(K.REDUCE_OPS.items()) for dt in dts]
DIMSETS = [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1), (0, 1, 2)]


def _red_ref(op, x, dims):
    xd = x.astype(np.float64) if x.dtype.kind == "f" else x
    with np.errstate(all="ignore"):
        if op == "sum":
            r = np.sum(
                xd, axis=dims, keepdims=True, dtype=np.float64 if x.dtype.kind == "f" else np.int64
            )
        elif op == "prod":
            r = np.prod(
                xd, axis=dims, keepdims=True, dtype=np.float64 if x.dtype.kind == "f" else np.int64
            )
        elif op == "mean":
            r = np.mean(xd, axis=dims, keepdims=True)
        elif op == "amax":
            r = np.max(x, axis=dims, keepdims=True)
        elif op == "amin":
            r = np.min(x, axis=dims, keepdims=True)
        elif op == "all":
            r = np.all(x != 0, axis=dims, keepdims=True)
        elif op == "any":
            r = np.any(x != 0, axis=dims, keepdims=True)
        elif op in ("argmax", "argmin"):
            # linear index over the reduced dims (C order), first occurrence, NaN wins
            kept = [d for d in range(x.ndim) if d not in dims]
            xt = np.transpose(x, kept + list(dims))
            flat = xt.reshape(xt.shape[: len(kept)] + (-1,))
            if x.dtype.kind == "f":
                f = np.where(np.isnan(flat), np.inf if op == "argmax" else -np.inf, flat)
                idx = np.argmax(f, -1) if op == "argmax" else np.argmin(f, -1)
                hasnan = np.isnan(flat).any(-1)
                idx = np.where(hasnan, np.argmax(np.isnan(flat), -1), idx)
            else:
                idx = np.argmax(flat, -1) if op == "argmax" else np.argmin(flat, -1)
            shape = [1 if d in dims else x.shape[d] for d in range(x.ndim)]
            r = np.asarray(idx, np.int64).reshape(shape)
    return r


@pytest.mark.parametrize("op,dt", RED_CASES)
def test_reduce(op, dt):
    shape = (5, 6, 7)
    x = rand(shape, dt, -2, 2) if op != "prod" else rand(shape, dt, -1.5, 1.5)
    if dt in INTS and op == "prod":
        x = rand(shape, dt, -0.2, 0.2)
    if dt in FLOATS and op in ("amax", "amin", "argmax", "argmin"):
        x.ravel()[[3, 50, 51]] = x.ravel()[7]  # ties
    oname = {"argmax": "int64", "argmin": "int64", "all": "bool", "any": "bool"}.get(op, dt)
    for label, t in layouts(x.copy(), dt):
        xv = to_np(t)
        for dims in DIMSETS:
            oshape = tuple(1 if d in dims else shape[d] for d in range(3))
            ref = _red_ref(op, xv, dims)
            o = empty(oshape, oname)
            K.reduce(op, o, t, dims)
            got = to_np(o)
            if oname in FLOATS:
                tol = 1e-5 if dt == "float32" else 1e-12
                np.testing.assert_allclose(
                    got, ref, rtol=tol, atol=tol, err_msg=f"{op} {label} {dims}"
                )
            else:
                np.testing.assert_array_equal(
                    got, np.asarray(ref).astype(NP[oname]), err_msg=f"{op} {label} {dims}"
                )
    # 0-dim input, full reduction
    t0 = tensor(x.reshape(-1)[:1].reshape(()), dt)
    o0 = empty((), oname)
    K.reduce(op, o0, t0, ())
    ref0 = _red_ref(op, x.reshape(-1)[:1], (0,)).reshape(())
    np.testing.assert_allclose(to_np(o0).astype(np.float64), np.asarray(ref0, np.float64))


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "all", "any"])
def test_reduce_empty(op):
    dt = {"all": "bool", "any": "bool"}.get(op, "float32")
    x = np.zeros((3, 0, 4), NP[dt])
    oname = "bool" if dt == "bool" else dt
    o = empty((3, 1, 4), oname)
    K.reduce(op, o, tensor(x, dt), (1,))
    exp = {"sum": 0.0, "prod": 1.0, "mean": np.nan, "all": True, "any": False}[op]
    np.testing.assert_array_equal(to_np(o), np.full((3, 1, 4), exp, NP[oname]))
    K.reduce(op, empty((0, 1), oname), tensor(np.zeros((0, 5), NP[dt]), dt), (1,))


def test_reduce_argmax_nan_and_ties():
    x = np.array([1.0, np.nan, 5.0, np.nan, 5.0], np.float32)
    for op, ref in [("argmax", 1), ("argmin", 1)]:
        o = empty((1,), "int64")
        K.reduce(op, o, tensor(x), (0,))
        assert to_np(o)[0] == ref
    y = np.array([3.0, 5.0, 5.0, -1.0, -1.0], np.float64)
    for op, ref in [("argmax", 1), ("argmin", 3)]:
        o = empty((1,), "int64")
        K.reduce(op, o, tensor(y), (0,))
        assert to_np(o)[0] == ref
    # long vector with ties spread over lanes and threads, NaN late
    z = np.zeros(200003, np.float32)
    z[[100, 17, 150000]] = 9.0
    o = empty((1,), "int64")
    K.reduce("argmax", o, tensor(z), (0,))
    assert to_np(o)[0] == 17
    z[180000] = np.nan
    z[190000] = np.nan
    K.reduce("argmax", o, tensor(z), (0,))
    assert to_np(o)[0] == 180000
    o = empty((1,), "float32")
    K.reduce("amax", o, tensor(z), (0,))
    assert np.isnan(to_np(o)[0])
    K.reduce("amin", o, tensor(z), (0,))
    assert np.isnan(to_np(o)[0])


def test_reduce_big_accuracy_and_modes():
    # 16M float32 sum matches float64 reference within 1e-6 relative
    x = RNG.random(1 << 24, dtype=np.float32)
    o = empty((1,), "float32")
    K.reduce("sum", o, tensor(x), (0,))
    ref = x.astype(np.float64).sum()
    assert abs(float(to_np(o)[0]) - ref) / ref < 1e-6
    K.reduce("mean", o, tensor(x), (0,))
    assert abs(float(to_np(o)[0]) - ref / x.size) / (ref / x.size) < 1e-6
    x64 = x[: 1 << 22].astype(np.float64)
    o = empty((1,), "float64")
    K.reduce("sum", o, tensor(x64), (0,))
    assert abs(float(to_np(o)[0]) - math.fsum(x64)) / math.fsum(x64) < 1e-13
    # outer (row-sweep) and inner reductions above the OpenMP grain, incl. split mode
    m = rand((4096, 33), "float32")
    for dims, oshape in [((0,), (1, 33)), ((1,), (4096, 1)), ((0, 1), (1, 1))]:
        for label, t in layouts(m.copy(), "float32", ("contig", "transposed", "strided")):
            for op in ("sum", "amax", "argmin", "mean"):
                oname = "int64" if op == "argmin" else "float32"
                o = empty(oshape, oname)
                K.reduce(op, o, t, dims)
                ref = _red_ref(op, to_np(t), dims)
                np.testing.assert_allclose(
                    to_np(o), ref, rtol=1e-5, atol=1e-4, err_msg=f"{op} {label} {dims}"
                )
    mi = rand((3, 70000), "int64")
    o = empty((3, 1), "int64")
    K.reduce("sum", o, tensor(mi), (1,))
    np.testing.assert_array_equal(to_np(o), mi.sum(1, keepdims=True))
    o = empty((1, 70000), "int64")
    K.reduce("sum", o, tensor(mi), (0,))
    np.testing.assert_array_equal(to_np(o), mi.sum(0, keepdims=True))
    b = RNG.random((2, 100000)) < 0.9999
    for op in ("all", "any"):
        o = empty((2, 1), "bool")
        K.reduce(op, o, tensor(b), (1,))
        np.testing.assert_array_equal(to_np(o), getattr(np, op)(b, 1, keepdims=True))


def test_reduce_broadcast_input():
    row = rand((1, 50), "float64")
    v = np.broadcast_to(row, (40, 50))
    t = from_view(row, v)
    o = empty((1, 50), "float64")
    K.reduce("sum", o, t, (0,))
    np.testing.assert_allclose(to_np(o), 40 * row, rtol=1e-13)
    o = empty((40, 1), "float64")
    K.reduce("argmax", empty((40, 1), "int64"), t, (1,))
    K.reduce("sum", o, t, (1,))
    np.testing.assert_allclose(to_np(o), np.full((40, 1), row.sum()), rtol=1e-13)


def test_reduce_unsupported():
    with pytest.raises(TypeError, match="'mean' is not implemented for int64"):
        K.reduce("mean", empty((1,), "int64"), tensor(np.arange(4)), (0,))


# ---------------------------------------------------------------------------
# bmm
def _mat(shape, dt, layout):
    x = rand(shape, dt, -2, 2) if dt in FLOATS else rand(shape, dt, -0.3, 0.3)
    if layout == "contig":
        return x, tensor(x, dt)
    if layout == "transposed":  # last two dims column-major
        base = np.ascontiguousarray(np.swapaxes(x, -1, -2))
        return x, from_view(base, np.swapaxes(base, -1, -2), dt)
    if layout == "strided":  # neither row- nor column-contiguous -> packed in C
        big = np.zeros(shape[:-2] + (shape[-2] * 2, shape[-1] * 3), x.dtype)
        v = big[..., ::2, ::3]
        v[...] = x
        return x, from_view(big, v, dt)
    if layout == "bcast":  # batch stride 0
        one = np.ascontiguousarray(x[:1])
        v = np.broadcast_to(one, shape)
        return np.array(v), from_view(one, v, dt)
    raise ValueError(layout)


@pytest.mark.parametrize("dt", K.BMM_DTYPES)
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (3, 40, 50, 60), (1, 1, 70, 1), (2, 65, 1, 70)])
def test_bmm(dt, size):
    B, M, K_, N = size
    for la in ("contig", "transposed", "strided", "bcast"):
        for lb in ("contig", "transposed", "strided", "bcast"):
            a, ta = _mat((B, M, K_), dt, la)
            b, tb = _mat((B, K_, N), dt, lb)
            if dt in FLOATS:
                ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
            else:
                ref = np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(NP[dt])
            for lo in ("contig", "transposed", "strided"):
                _, to = _mat((B, M, N), dt, lo)
                K.bmm(to, ta, tb)
                got = to_np(to)
                if dt in FLOATS:
                    tol = 1e-4 if dt == "float32" else 1e-12
                    np.testing.assert_allclose(
                        got, ref, rtol=tol, atol=tol * K_, err_msg=f"{la} {lb} {lo}"
                    )
                else:
                    np.testing.assert_array_equal(got, ref, err_msg=f"{la} {lb} {lo}")


@pytest.mark.parametrize("dt", ["float32", "float64", "int32"])
def test_bmm_k0_and_empty(dt):
    o = tensor(np.full((2, 3, 4), 7, NP[dt]), dt)
    K.bmm(o, tensor(np.zeros((2, 3, 0), NP[dt]), dt), tensor(np.zeros((2, 0, 4), NP[dt]), dt))
    np.testing.assert_array_equal(to_np(o), np.zeros((2, 3, 4), NP[dt]))
    K.bmm(
        empty((0, 3, 4), dt),
        tensor(np.zeros((0, 3, 2), NP[dt]), dt),
        tensor(np.zeros((0, 2, 4), NP[dt]), dt),
    )
    K.bmm(
        empty((2, 0, 4), dt),
        tensor(np.zeros((2, 0, 2), NP[dt]), dt),
        tensor(np.zeros((2, 2, 4), NP[dt]), dt),
    )


def test_bmm_int_wraps_and_big():
    a = np.full((1, 2, 300), 100, np.int8)
    b = np.full((1, 300, 2), 3, np.int8)
    o = empty((1, 2, 2), "int8")
    K.bmm(o, tensor(a), tensor(b))
    np.testing.assert_array_equal(
        to_np(o), np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.int8)
    )
    a = rand((3, 64, 70), "int64")
    b = rand((3, 70, 80), "int64")
    o = empty((3, 64, 80), "int64")
    K.bmm(o, tensor(a), tensor(b))
    np.testing.assert_array_equal(to_np(o), a @ b)
    with pytest.raises(TypeError):
        K.bmm(
            empty((1, 2, 2), "bool"),
            tensor(np.ones((1, 2, 2), bool)),
            tensor(np.ones((1, 2, 2), bool)),
        )


def test_bmm_large_blas():
    a = rand((2, 300, 200), "float32")
    b = rand((1, 200, 250), "float32")
    bv = np.broadcast_to(b, (2, 200, 250))
    o = empty((2, 300, 250), "float32")
    K.bmm(o, tensor(a), from_view(b, bv))
    np.testing.assert_allclose(
        to_np(o), np.matmul(a.astype(np.float64), bv.astype(np.float64)), rtol=1e-4, atol=1e-3
    )


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize(
    "size",
    [(1, 300, 200, 90), (1, 40, 300, 500), (3, 70, 80, 90), (4, 64, 100, 64), (1, 1, 600, 700)],
)
def test_bmm_threads_agree(dt, size):
    """bmm splits big GEMMs (batches, rows or columns) over the OpenMP threads."""
    B, M, K_, N = size
    n = K.num_threads()
    for la, lb in (("contig", "contig"), ("transposed", "bcast"), ("strided", "transposed")):
        a, ta = _mat((B, M, K_), dt, la)
        b, tb = _mat((B, K_, N), dt, lb)
        got = {}
        try:
            for t in (1, 2):
                K.set_num_threads(t)
                for lo in ("contig", "strided"):
                    _, to = _mat((B, M, N), dt, lo)
                    K.bmm(to, ta, tb)
                    got[t, lo] = to_np(to)
        finally:
            K.set_num_threads(n)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        tol = 1e-4 if dt == "float32" else 1e-12
        for key, v in got.items():
            np.testing.assert_allclose(v, ref, rtol=tol, atol=tol * K_, err_msg=f"{la} {lb} {key}")
            np.testing.assert_allclose(v, got[1, "contig"], rtol=tol, atol=tol * K_)


def test_threads_api():
    n = K.num_threads()
    assert n >= 1
    K.set_num_threads(1)
    try:
        x = rand((100000,), "float32")
        o = empty(x.shape, "float32")
        K.unary("exp", o, tensor(x))
        np.testing.assert_allclose(to_np(o), np.exp(x.astype(np.float64)), rtol=4e-6)
    finally:
        K.set_num_threads(n)


def test_kernels_work_in_forked_child():
    """libgomp's pool does not survive fork(): forked children run single-threaded."""
    import os
    import subprocess

    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    code = (
        "import os, numpy as np\n"
        "from ember_cpu import kernels as K\n"
        "from test_kernels_lowlevel import tensor, empty, to_np\n"
        "x = np.random.rand(1 << 20).astype(np.float32)\n"
        "o = empty(x.shape, 'float32')\n"
        "K.unary('exp', o, tensor(x))\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    K.unary('exp', o, tensor(x))\n"
        "    r = empty((1,), 'float32')\n"
        "    K.reduce('sum', r, tensor(x), (0,))\n"
        "    os._exit(0 if np.allclose(to_np(o), np.exp(x), rtol=1e-5) else 3)\n"
        "_, st = os.waitpid(pid, 0)\n"
        "raise SystemExit(os.waitstatus_to_exitcode(st))\n"
    )
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join([here] + sys.path)
    r = subprocess.run([sys.executable, "-c", code], env=env, timeout=120, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
