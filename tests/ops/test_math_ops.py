"""Elementwise and reduction operators against PyTorch: every dtype, edge values (NaN, +-inf,
-0.0, huge and tiny, integer division by zero and overflow), 0-dim, empty, broadcast and
transposed inputs, every ``dim``/``keepdim`` form, the in-place variants, the error paths
and the gradients (float64, against torch's)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
# both libraries warn when a variance has no degree of freedom left (tested once, below)
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64"]  # fmt: skip
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
NAN, INF = math.nan, math.inf
EDGE = [NAN, INF, -INF, 0.0, -0.0, 1e-30, -1e-30, 1e30, -1e30, 0.5, -0.5, 1.5, 2.5, -2.5,
        0.999, -0.999, 1.0, -1.0, 3.7, -88.0, 100.0]  # fmt: skip
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 3e-6, "float64": 1e-12}


# -- conversion and comparison ---------------------------------------------------------------------
def to_ember(t: Any) -> Any:
    """An ember tensor with ``t``'s values, dtype and (2-D transposed) layout."""
    if not isinstance(t, torch.Tensor):
        return t
    if t.dim() == 2 and not t.is_contiguous() and t.t().is_contiguous():
        return to_ember(t.t().contiguous()).t()
    name = str(t.dtype)[6:]
    wide = t.to(torch.float64) if t.is_floating_point() else t
    e = ember.tensor(wide.contiguous().numpy()).reshape(tuple(t.shape))
    return e.to(getattr(ember, name))


def host(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach()
        return x.to(torch.float64).numpy() if x.is_floating_point() else x.numpy()
    x = x.detach()
    return np.asarray(x.double().numpy() if x.is_floating_point() else x.numpy())


def same(e: Any, t: Any, where: str = "", tol: float | None = None) -> None:
    if isinstance(t, tuple):  # named tuples too
        assert isinstance(e, tuple) and len(e) == len(t), f"{where}: {type(e)} vs {type(t)}"
        for k, (a, b) in enumerate(zip(e, t)):
            same(a, b, f"{where}[{k}]", tol)
        if hasattr(t, "_fields"):
            for f in t._fields:
                same(getattr(e, f), getattr(t, f), f"{where}.{f}", tol)
        return
    if not isinstance(t, torch.Tensor):
        assert e == t or (t != t and e != e), f"{where}: {e!r} vs {t!r}"
        return
    name = str(t.dtype)[6:]
    assert isinstance(e, ember.Tensor), f"{where}: got {type(e).__name__}"
    assert e.dtype.name == name, f"{where}: dtype {e.dtype.name} vs {name}"
    assert tuple(e.shape) == tuple(t.shape), f"{where}: shape {tuple(e.shape)} vs {tuple(t.shape)}"
    a, b = host(e), host(t)
    if t.is_floating_point():
        r = TOL[name] if tol is None else tol
        np.testing.assert_allclose(a, b, rtol=r, atol=r * 1e-2, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(a, b, err_msg=where)


def both(fn: Callable[..., Any], *args: Any, tol: float | None = None, **kw: Any) -> None:
    """``fn(lib, *args)`` on torch and ember: equal results, or the same exception type."""
    try:
        want = fn(torch, *args, **kw)
    except Exception as err:  # noqa: BLE001 - compare the error types
        with pytest.raises(type(err)):
            fn(ember, *[to_ember(a) for a in args], **kw)
        return
    got = fn(ember, *[to_ember(a) for a in args], **kw)
    same(got, want, getattr(fn, "__name__", ""), tol)


def values(dtype: str, kind: str = "random", low: float = -4.0, high: float = 4.0,
           shape: tuple[int, ...] = (4, 5), seed: int = 0) -> Any:  # fmt: skip
    """A torch tensor: random values, or the edge values of the dtype."""
    g = np.random.default_rng(seed)
    tdt = getattr(torch, dtype)
    if kind == "edge":
        if dtype == "bool":
            return torch.tensor([True, False, True])
        if dtype in FLOATS:
            return torch.tensor(EDGE, dtype=torch.float64).to(tdt)
        info = torch.iinfo(tdt)
        return torch.tensor(
            [0, 1, -1, 2, -2, 7, info.max, info.min, info.max - 1], dtype=torch.int64
        ).to(tdt)
    if dtype == "bool":
        return torch.from_numpy(g.random(shape) < 0.5)
    if dtype in FLOATS:
        return torch.from_numpy(g.uniform(low, high, shape)).to(tdt)
    lo = 0 if dtype == "uint8" else math.floor(low)
    return torch.from_numpy(g.integers(lo, math.ceil(high) + 1, shape)).to(tdt)


def layouts(dtype: str, **kw: Any) -> list[tuple[str, Any]]:
    t = values(dtype, **kw)
    return [("contiguous", t), ("transposed", values(dtype, shape=(5, 4), **kw).t()),
            ("0-dim", t[1, 2]), ("empty", t[:0]), ("edge", values(dtype, "edge"))]  # fmt: skip


# -- unary -----------------------------------------------------------------------------------------
def _fn(name: str) -> Callable[..., Any]:
    def call(lib: Any, x: Any, *a: Any, **kw: Any) -> Any:
        return getattr(lib, name)(x, *a, **kw)

    call.__name__ = name
    return call


def _method(name: str) -> Callable[..., Any]:
    def call(lib: Any, x: Any, *a: Any, **kw: Any) -> Any:
        return getattr(x, name)(*a, **kw)

    call.__name__ = "Tensor." + name
    return call


def _inplace(name: str) -> Callable[..., Any]:
    def call(lib: Any, x: Any, *a: Any, **kw: Any) -> Any:
        y = x.clone()
        r = getattr(y, name)(*a, **kw)
        assert r is y, f"{name} must return self"
        return y

    call.__name__ = "Tensor." + name
    return call


#: unary functions: name -> (low, high) of the random values
UNARY = {
    "abs": (-4, 4), "neg": (-4, 4), "sign": (-4, 4), "sgn": (-4, 4), "square": (-4, 4),
    "floor": (-4, 4), "ceil": (-4, 4), "trunc": (-4, 4), "round": (-4, 4), "frac": (-4, 4),
    "exp": (-4, 4), "exp2": (-4, 4), "expm1": (-4, 4), "log": (0.1, 8), "log2": (0.1, 8),
    "log10": (0.1, 8), "log1p": (-0.9, 8), "sqrt": (0, 8), "rsqrt": (0.1, 8), "sin": (-4, 4),
    "cos": (-4, 4), "tan": (-1.4, 1.4), "asin": (-1, 1), "acos": (-1, 1), "atan": (-4, 4),
    "sinh": (-4, 4), "cosh": (-4, 4), "tanh": (-4, 4), "asinh": (-4, 4), "acosh": (1, 8),
    "atanh": (-1, 1), "erf": (-3, 3), "erfc": (-3, 3), "erfinv": (-1, 1), "sigmoid": (-8, 8),
    "logit": (0, 1), "reciprocal": (0.1, 4), "lgamma": (-4.5, 8), "digamma": (-4.5, 8),
    "sinc": (-3, 3), "deg2rad": (-400, 400), "rad2deg": (-7, 7), "nan_to_num": (-4, 4),
    "isnan": (-4, 4), "isinf": (-4, 4), "isfinite": (-4, 4), "isposinf": (-4, 4),
    "isneginf": (-4, 4), "signbit": (-4, 4), "isreal": (-4, 4), "logical_not": (-4, 4),
    "bitwise_not": (-4, 4), "positive": (-4, 4), "relu": (-4, 4), "absolute": (-4, 4),
    "arccos": (-1, 1), "arcsin": (-1, 1), "arctan": (-4, 4), "arcsinh": (-4, 4),
    "arccosh": (1, 8), "arctanh": (-1, 1), "negative": (-4, 4), "fix": (-4, 4),
}  # fmt: skip


#: torch rounds some half-precision formulas at every step (logit: x / (1 - x), then log)
HALF_TOL = {"logit": 1e-2}


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name: str, dtype: str) -> None:
    low, high = UNARY[name]
    tol = HALF_TOL.get(name) if dtype in ("float16", "bfloat16") else None
    for _desc, t in layouts(dtype, low=low, high=high):
        for f in (_fn(name), _method(name)):
            both(f, t, tol=tol)


#: in-place methods: name -> (low, high); each must agree with torch and return self
INPLACE_UNARY = {
    "abs_": (-4, 4), "neg_": (-4, 4), "sign_": (-4, 4), "sgn_": (-4, 4), "square_": (-4, 4),
    "floor_": (-4, 4), "ceil_": (-4, 4), "trunc_": (-4, 4), "round_": (-4, 4),
    "frac_": (-4, 4), "exp_": (-4, 4), "exp2_": (-4, 4), "expm1_": (-4, 4), "log_": (0.1, 8),
    "log2_": (0.1, 8), "log10_": (0.1, 8), "log1p_": (-0.9, 8), "sqrt_": (0, 8),
    "rsqrt_": (0.1, 8), "sin_": (-4, 4), "cos_": (-4, 4), "tan_": (-1.4, 1.4),
    "asin_": (-1, 1), "acos_": (-1, 1), "atan_": (-4, 4), "sinh_": (-4, 4), "cosh_": (-4, 4),
    "tanh_": (-4, 4), "asinh_": (-4, 4), "acosh_": (1, 8), "atanh_": (-1, 1),
    "erf_": (-3, 3), "erfc_": (-3, 3), "erfinv_": (-1, 1), "sigmoid_": (-8, 8),
    "logit_": (0, 1), "reciprocal_": (0.1, 4), "lgamma_": (0.5, 8), "digamma_": (0.5, 8),
    "sinc_": (-3, 3), "deg2rad_": (-400, 400), "rad2deg_": (-7, 7), "nan_to_num_": (-4, 4),
    "logical_not_": (-4, 4), "bitwise_not_": (-4, 4), "relu_": (-4, 4),
    "absolute_": (-4, 4), "arccos_": (-1, 1), "arcsin_": (-1, 1), "arctan_": (-4, 4),
    "arcsinh_": (-4, 4), "arccosh_": (1, 8), "arctanh_": (-1, 1), "negative_": (-4, 4),
    "fix_": (-4, 4),
}  # fmt: skip


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "float64"])  # fmt: skip
@pytest.mark.parametrize("name", sorted(INPLACE_UNARY))
def test_unary_inplace(name: str, dtype: str) -> None:
    low, high = INPLACE_UNARY[name]
    tol = HALF_TOL.get(name[:-1]) if dtype in ("float16", "bfloat16") else None
    both(_inplace(name), values(dtype, low=low, high=high), tol=tol)
    both(_inplace(name), values(dtype, low=low, high=high, shape=(5, 4)).t(), tol=tol)


def test_unary_special_arguments() -> None:
    x = values("float32", low=-0.2, high=1.2)
    for eps in (None, 0.0, 0.1, 0.6):
        both(lambda lib, t: lib.logit(t, eps), x)
        both(lambda lib, t: t.logit(eps=eps), x)
    e = values("float64", "edge")
    for dt in FLOATS:
        both(lambda lib, t: lib.nan_to_num(t), e.to(getattr(torch, dt)))
    both(lambda lib, t: lib.nan_to_num(t, nan=1.5, posinf=2.0, neginf=-3.0), e)
    both(lambda lib, t: lib.nan_to_num(t, 7.0, neginf=0.0), e)
    both(lambda lib, t: t.nan_to_num_(posinf=9.0), e.clone())
    for d in (-2, -1, 0, 1, 2, 3):
        both(lambda lib, t: lib.round(t, decimals=d), values("float64", low=-2000, high=2000))
        both(lambda lib, t: t.round(decimals=d), values("float32", low=-50, high=50))
        both(lambda lib, t: t.clone().round_(decimals=d), values("float64"))
    both(lambda lib, t: lib.round(t, decimals=2), values("float16", low=-8, high=8))
    both(lambda lib, t: lib.round(t, decimals=1), values("int64"))  # NotImplementedError
    for approximate in ("none", "tanh"):
        for dt in FLOATS:
            # torch's float32 erf form cancels for x < 0 (ember uses erfc): absolute tolerance
            both(lambda lib, t: lib.nn.functional.gelu(t, approximate=approximate),
                 values(dt, low=-6, high=6), tol=max(TOL[dt], 3e-5))  # fmt: skip
    both(lambda lib, t: lib.nn.functional.gelu(t), values("int64"))  # ints are refused


def test_special_functions_in_float64_against_torch_over_a_wide_range() -> None:
    x = torch.linspace(-30, 60, 9001, dtype=torch.float64)
    both(_fn("lgamma"), x, tol=1e-12)
    both(_fn("digamma"), x + 1e-3, tol=1e-10)  # torch's own digamma is good to ~1e-13
    y = torch.linspace(-1, 1, 20001, dtype=torch.float64)[1:-1]
    both(_fn("erfinv"), y, tol=1e-13)
    tail = 1 - torch.logspace(-15, -1, 200, dtype=torch.float64)
    both(_fn("erfinv"), torch.cat([tail, -tail]), tol=1e-12)
    both(_fn("erfinv"), torch.tensor([1e-300, -1e-310, 5e-324], dtype=torch.float64))
    poles = torch.tensor(
        [0.0, -0.0, -1.0, -7.0, -INF, INF, NAN, 1e-300, 1e300], dtype=torch.float64
    )
    for name in ("lgamma", "digamma", "erfinv"):
        both(_fn(name), poles)


# -- binary ----------------------------------------------------------------------------------------
BINARY = {
    "add": (-4, 4), "sub": (-4, 4), "mul": (-4, 4), "div": (-4, 4), "remainder": (-6, 6),
    "fmod": (-6, 6), "pow": (0, 3), "atan2": (-4, 4), "hypot": (-4, 4), "copysign": (-4, 4),
    "maximum": (-4, 4), "minimum": (-4, 4), "fmax": (-4, 4), "fmin": (-4, 4),
    "eq": (-2, 2), "ne": (-2, 2), "lt": (-2, 2), "le": (-2, 2), "gt": (-2, 2), "ge": (-2, 2),
    "logical_and": (-1, 1), "logical_or": (-1, 1), "logical_xor": (-1, 1),
    "bitwise_and": (-9, 9), "bitwise_or": (-9, 9), "bitwise_xor": (-9, 9),
    "bitwise_left_shift": (0, 6), "bitwise_right_shift": (0, 6), "floor_divide": (-6, 6),
    "true_divide": (-4, 4), "float_power": (0.5, 3), "xlogy": (0, 4), "logaddexp": (-30, 30),
    "logaddexp2": (-30, 30), "heaviside": (-1, 1), "gcd": (-30, 30), "lcm": (-30, 30),
    "ldexp": (-4, 4), "nextafter": (-2, 2), "multiply": (-4, 4), "subtract": (-4, 4),
    "greater": (-2, 2), "greater_equal": (-2, 2), "less": (-2, 2), "less_equal": (-2, 2),
    "not_equal": (-2, 2), "arctan2": (-4, 4), "clamp_min": (-4, 4), "clamp_max": (-4, 4),
}  # fmt: skip


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name: str, dtype: str) -> None:
    low, high = BINARY[name]
    a = values(dtype, low=low, high=high, shape=(3, 4), seed=1)
    b = values(dtype, low=low, high=high, shape=(3, 4), seed=2)
    f, m = _fn(name), _method(name)
    both(f, a, b)
    both(m, a, b)
    both(f, a.t(), b.t().contiguous())  # transposed
    both(f, a, b[0])  # broadcast
    both(f, a[:, :1], b[:1, :])  # outer broadcast
    both(f, a, b[1, 1])  # 0-dim other
    both(f, a[:0], b[0])  # empty
    edge = values(dtype, "edge")
    if name in ("gcd", "lcm") and dtype in INTS:
        # torch.lcm traps (SIGFPE) on the minimum and torch.gcd can return it negated
        edge = edge[edge != torch.iinfo(edge.dtype).min]
    if name in ("fmod", "remainder") and dtype in ("float32", "bfloat16", "float16"):
        # torch's float32 kernel computes a - trunc(a / b) * b: NaN once a / b overflows
        edge = edge[edge.abs() < 1e20]
    n = edge.numel()
    both(f, edge.repeat_interleave(n), edge.repeat(n))  # every pair of edge values


PROMOTING = ["add", "mul", "div", "remainder", "pow", "maximum", "eq", "atan2", "xlogy",
             "logaddexp", "float_power", "fmax", "heaviside", "clamp_min", "isclose", "copysign",
             "ldexp"]  # fmt: skip


@pytest.mark.parametrize("other", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "float64"])  # fmt: skip
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "bfloat16", "float32"])
@pytest.mark.parametrize("name", PROMOTING)
def test_binary_type_promotion(name: str, dtype: str, other: str) -> None:
    a = values(dtype, low=0, high=3, shape=(2, 3), seed=3)
    b = values(other, low=0, high=3, shape=(2, 3), seed=4)
    both(_fn(name), a, b)
    both(_fn(name), a, b[0, 0])  # a 0-dim operand takes the lower promotion tier


@pytest.mark.parametrize("scalar", [2, -3, 2.5, True, 0])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "remainder", "fmod", "pow",
                                  "eq", "lt", "bitwise_and", "floor_divide", "clamp_min",
                                  "clamp_max", "float_power", "xlogy"])  # fmt: skip
def test_binary_with_python_scalar(name: str, dtype: str, scalar: Any) -> None:
    if name in ("bitwise_and",) and isinstance(scalar, float):
        return  # torch raises for float scalars; ember is lenient
    if (name == "sub" and (dtype == "bool" or isinstance(scalar, bool))) or (
        dtype == "bool" and scalar is True and name in ("pow", "clamp_min", "clamp_max")
    ):
        return  # torch refuses these bool mixes; ember computes them
    both(_fn(name), values(dtype, low=-3, high=3, shape=(2, 3)), scalar)


INPLACE_BINARY = [
    "add_", "sub_", "mul_", "div_", "remainder_", "fmod_", "pow_", "atan2_", "hypot_",
    "copysign_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
    "bitwise_right_shift_", "logical_and_", "logical_or_", "logical_xor_", "eq_", "ne_", "lt_",
    "le_", "gt_", "ge_", "float_power_", "xlogy_", "heaviside_", "gcd_", "lcm_", "ldexp_",
    "nextafter_", "clamp_min_", "clamp_max_", "floor_divide_", "true_divide_", "divide_",
    "multiply_", "subtract_", "greater_", "greater_equal_", "less_", "less_equal_",
    "not_equal_", "arctan2_",
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "float64"])  # fmt: skip
@pytest.mark.parametrize("name", INPLACE_BINARY)
def test_binary_inplace(name: str, dtype: str) -> None:
    a = values(dtype, low=1, high=4, shape=(3, 4), seed=5)
    b = values(dtype, low=1, high=4, shape=(3, 4), seed=6)
    both(_inplace(name), a, b)
    both(_inplace(name), a, b[0])  # broadcast other
    both(_inplace(name), a[:1], b)  # self would need to broadcast: an error
    if dtype != "float64":
        both(_inplace(name), a, b.double())  # result may not fit self's dtype


def test_inplace_dunders_write_into_self() -> None:
    for op in ("__imod__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
               "__ifloordiv__"):  # fmt: skip
        a, b = values("int64", low=1, high=6, seed=7), values("int64", low=1, high=3, seed=8)
        e = to_ember(a)
        view = e[0]
        r = getattr(e, op)(to_ember(b))
        want = getattr(a.clone(), op)(b)
        assert r is e
        same(e, want, op)
        same(view, want[0], op + " seen through a view")


def test_every_inplace_method_torch_has_for_an_elementwise_op_exists() -> None:
    missing = [
        n + "_"
        for n in dir(ember.Tensor)
        if not n.startswith("_")
        and not n.endswith("_")
        and hasattr(torch.Tensor, n + "_")
        and not hasattr(ember.Tensor, n + "_")
        and n in set(UNARY) | set(BINARY) | {"addcmul", "addcdiv", "lerp", "clamp", "clip"}
    ]
    assert missing == []


def test_ternary_and_their_inplace_forms() -> None:
    a, b, c = (values("float32", shape=(3, 4), seed=s) for s in (1, 2, 3))
    w = values("float32", low=0, high=1, shape=(3, 4), seed=4)
    for value in (1, 0.5, -2):
        both(lambda lib, x, y, z: lib.addcmul(x, y, z, value=value), a, b, c)
        both(lambda lib, x, y, z: x.clone().addcmul_(y, z, value=value), a, b, c)
        both(lambda lib, x, y, z: lib.addcdiv(x, y, z, value=value), a, b, c + 5)
        both(lambda lib, x, y, z: x.clone().addcdiv_(y, z, value=value), a, b, c + 5)
    for weight in (0.0, 0.3, 0.5, 1.0, 1.7):
        both(lambda lib, x, y: lib.lerp(x, y, weight), a, b)
        both(lambda lib, x, y: x.clone().lerp_(y, weight), a, b)
    both(lambda lib, x, y, z: lib.lerp(x, y, z), a, b, w)
    both(lambda lib, x, y, z: x.lerp(y, z), a, b, w[0])
    both(lambda lib, x, y, z: x.clone().lerp_(y, z), a, b, w)
    both(lambda lib, x, y, z: lib.where(x > 0, y, z), a, b, c)
    both(lambda lib, x, y, z: y.where(x > 0, z), a, b, c)
    i = values("int64", shape=(3, 4))
    both(lambda lib, x, y, z: lib.addcdiv(x, y, z), i, i, i)  # integer division refused


# -- clamp -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float16", "float32", "float64"])
def test_clamp_forms(dtype: str) -> None:
    x = values(dtype, low=-5, high=5, seed=9)
    lo, hi = values(dtype, low=-3, high=0, seed=10), values(dtype, low=0, high=3, seed=11)
    for f in (
        lambda lib, t: lib.clamp(t, -1, 2),
        lambda lib, t: lib.clamp(t, min=0.5),
        lambda lib, t: lib.clamp(t, max=-1),
        lambda lib, t: lib.clip(t, -2.5, 2.5),
        lambda lib, t: t.clamp(1, -1),  # min > max: every element becomes max
        lambda lib, t: t.clone().clamp_(-1, 1),
        lambda lib, t: t.clone().clip_(max=1),
        lambda lib, t: lib.clamp_min(t, 1),
        lambda lib, t: t.clamp_max(0.5),
        lambda lib, t: t.clone().clamp_min_(0),
        lambda lib, t: t.clone().clamp_max_(1),
        lambda lib, t: lib.clamp(t),  # neither bound: an error
    ):
        both(f, x)
    both(lambda lib, t, a, b: lib.clamp(t, a, b), x, lo, hi)
    both(lambda lib, t, a: lib.clamp(t, min=a), x, lo[0])
    both(lambda lib, t, a: t.clamp(max=a), x, hi[:, :1])
    both(lambda lib, t, a: lib.clamp_min(t, a), x, lo)
    both(lambda lib, t, a, b: t.clone().clamp_(a, b), x, lo, hi)
    if dtype in FLOATS:
        both(lambda lib, t: lib.clamp(t, NAN, 1.0), x)
        both(lambda lib, t: lib.clamp(t, -1, 1), values(dtype, "edge"))


# -- comparisons returning Python values -----------------------------------------------------------
def test_isclose_allclose_equal() -> None:
    a = values("float64", seed=12)
    b = a.clone()
    b[0] += 1e-9
    b[1] *= 1.0001
    b[2, 0] = NAN
    a2 = a.clone()
    a2[2, 0] = NAN
    for kw in ({}, {"rtol": 1e-3}, {"atol": 0.1, "rtol": 0}, {"rtol": 0, "atol": 0}):
        both(lambda lib, x, y: lib.isclose(x, y, **kw), a2, b)
        both(lambda lib, x, y: x.isclose(y, equal_nan=True, **kw), a2, b)
        both(lambda lib, x, y: lib.allclose(x, y, **kw), a, b)
        both(lambda lib, x, y: x.allclose(y, equal_nan=True, **kw), a2, b)
    both(lambda lib, x, y: lib.isclose(x, y), values("int64"), values("int64") + 1)
    both(lambda lib, x, y: lib.isclose(x, y, rtol=0.5), values("int64"), values("int64") + 1)
    both(lambda lib, x, y: lib.isclose(x, y), values("bool"), values("bool", seed=3))
    both(lambda lib, x, y: lib.isclose(x, y), values("float16"), values("float16"))
    both(lambda lib, x, y: lib.isclose(x, y), values("float32"), values("float64"))  # error
    both(lambda lib, x, y: lib.isclose(x, y, rtol=-1), a, b)  # error
    for x, y in ((a, a.clone()), (a, b), (a, a[:2]), (a2, a2), (a.float(), a),
                 (values("int64"), values("int64").double()), (a[:0], a[:0])):  # fmt: skip
        both(lambda lib, p, q: lib.equal(p, q), x, y)
        both(lambda lib, p, q: p.equal(q), x, y)


# -- reductions ------------------------------------------------------------------------------------
DIMS = [None, 0, 1, -1, (0, 2), (-1, 0), [1], ()]
REDUCE = ["sum", "mean", "prod", "amax", "amin", "all", "any", "nansum", "nanmean",
          "logsumexp", "var", "std", "count_nonzero", "norm"]  # fmt: skip


def _reduce_call(name: str, dim: Any, keepdim: bool, method: bool) -> Callable[..., Any]:
    def call(lib: Any, x: Any) -> Any:
        f = getattr(x, name) if method else (lambda *a, **k: getattr(lib, name)(x, *a, **k))
        if name == "count_nonzero":
            return f(dim=dim)
        if name == "norm":
            return f(dim=dim, keepdim=keepdim)
        if dim is None:
            return f() if name != "logsumexp" else f((0,), keepdim)
        if name == "prod" and not isinstance(dim, int):
            return f(0 if not dim else dim[0], keepdim=keepdim)  # torch's prod takes one dim
        return f(dim, keepdim=keepdim)

    call.__name__ = f"{name}(dim={dim}, keepdim={keepdim})"
    return call


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", REDUCE)
def test_reductions(name: str, dtype: str) -> None:
    x = values(dtype, low=-3, high=3, shape=(2, 3, 4), seed=13)
    if dtype in FLOATS and name.startswith("nan"):
        x[0, 1, ::2] = NAN
    cases = [x, x.permute(2, 0, 1), x[..., ::2]]
    if name != "logsumexp":  # torch's logsumexp of an empty tensor fails on a shape check
        cases.append(x[:0])
    for t in cases:
        for dim in DIMS:
            if name == "logsumexp" and dim == ():
                continue  # torch's logsumexp(x, ()) fails on a shape check
            for keepdim in (False, True):
                for method in (False, True):
                    both(_reduce_call(name, dim, keepdim, method), t, tol=_red_tol(name, dtype))
    zero_dim = x[0, 0, 0]
    for dim in (None, 0, -1, ()):
        both(_reduce_call(name, dim, False, False), zero_dim)


def _red_tol(name: str, dtype: str) -> float | None:
    # half-precision results are rounded once from a float32 accumulation, as torch does; a
    # few torch reductions (prod, nansum in bfloat16) round at every step instead
    if dtype in ("float16", "bfloat16") and name in ("prod", "nansum", "var", "std"):
        return 4e-2
    return None


def test_sum_mean_prod_dtype_and_accumulation() -> None:
    for dt in ALL:
        x = values(dt, low=0, high=3, shape=(4, 5))
        for out in ("int32", "int64", "float32", "float64"):
            both(lambda lib, t: t.sum(dtype=getattr(lib, out)), x)
            both(lambda lib, t: lib.sum(t, 1, dtype=getattr(lib, out)), x)
            both(lambda lib, t: lib.prod(t, 0, dtype=getattr(lib, out)), x)
        both(lambda lib, t: t.mean(dtype=lib.float64), x)
        both(lambda lib, t: t.mean(), x)  # integers: RuntimeError
        both(lambda lib, t: lib.mean(t, 1), x)
    big = torch.full((1 << 20,), 0.1, dtype=torch.float16)
    both(lambda lib, t: t.sum(), big, tol=1e-3)  # float accumulation: no drift at 2**20 terms
    both(lambda lib, t: t.mean(), big.bfloat16(), tol=1e-2)
    i = torch.tensor([2**62, 2**62, 2**62], dtype=torch.int64)
    both(lambda lib, t: t.sum(), i)  # wraps around like torch
    both(lambda lib, t: t.sum(), torch.tensor([100, 100, 100], dtype=torch.int8))  # int64 result


@pytest.mark.parametrize("dtype", ALL)
def test_max_min_argmax_forms(dtype: str) -> None:
    x = values(dtype, low=-3, high=3, shape=(3, 4), seed=14)
    for f in (
        lambda lib, t: lib.max(t),
        lambda lib, t: lib.min(t),
        lambda lib, t: lib.max(t, 1),
        lambda lib, t: lib.min(t, dim=0, keepdim=True),
        lambda lib, t: t.max(-1).values,
        lambda lib, t: t.min(-1).indices,
        lambda lib, t: lib.max(t, t.flip(0)),
        lambda lib, t: lib.argmax(t) if dtype != "bool" else lib.argmax(t.int()),
        lambda lib, t: lib.argmin(t, 1, keepdim=True) if dtype != "bool" else t.int().argmin(1),
        lambda lib, t: lib.aminmax(t),
        lambda lib, t: lib.aminmax(t, dim=1, keepdim=True),
        lambda lib, t: t.aminmax(dim=-1),
        lambda lib, t: lib.max(t[:0]),  # empty without dim: an error
        lambda lib, t: lib.amax(t[:0]),
        lambda lib, t: lib.amax(t[:0], 1),
        lambda lib, t: lib.amax(t[:0], 0),  # reducing an empty dim: an error
        lambda lib, t: lib.aminmax(t[:0]),
    ):
        both(f, x)
    if dtype in FLOATS:
        e = values(dtype, "edge")
        for f in (lambda lib, t: lib.max(t, 0), lambda lib, t: t.argmin(), lambda lib, t: t.amax()):
            both(f, e)


@pytest.mark.parametrize("correction", [None, 0, 1, 2, 5])
@pytest.mark.parametrize("dtype", FLOATS)
def test_var_std_forms(dtype: str, correction: Any) -> None:
    x = values(dtype, shape=(3, 5), seed=15)
    kw = {} if correction is None else {"correction": correction}
    for name in ("var", "std", "var_mean", "std_mean"):
        tol = 2e-2 if dtype in ("float16", "bfloat16") else None
        both(lambda lib, t: getattr(lib, name)(t, **kw), x, tol=tol)
        both(lambda lib, t: getattr(lib, name)(t, 1, keepdim=True, **kw), x, tol=tol)
        both(lambda lib, t: getattr(lib, name)(t, (0, 1), **kw), x, tol=tol)
        both(lambda lib, t: getattr(lib, name)(t[:1], 0, **kw), x, tol=tol)  # dof <= 0: nan/inf
        if correction is None:
            for unbiased in (True, False):
                both(lambda lib, t: getattr(lib, name)(t, unbiased), x, tol=tol)
                both(lambda lib, t: getattr(lib, name)(t, 0, unbiased), x, tol=tol)
                both(lambda lib, t: getattr(lib, name)(t, dim=1, unbiased=unbiased), x, tol=tol)
    both(lambda lib, t: t.var(0, False, True), x)
    both(lambda lib, t: t.std(unbiased=False), x)
    both(lambda lib, t: lib.var(t), values("int64"))  # integers: an error
    both(lambda lib, t: lib.var_mean(t), values("int64"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_norm_forms(dtype: str) -> None:
    x = values(dtype, shape=(3, 4), seed=16)
    x[0, 0] = 0
    tol = 2e-2 if dtype in ("float16", "bfloat16") else None
    for p in (None, "fro", 0, 1, 2, 3, 0.5, -1, INF, -INF):
        args = () if p is None else (p,)
        both(lambda lib, t: lib.norm(t, *args), x, tol=tol)
        both(lambda lib, t: t.norm(*args), x, tol=tol)
        both(lambda lib, t: lib.norm(t, *args, dim=1), x, tol=tol)
        both(lambda lib, t: t.norm(*args, dim=(0, 1), keepdim=True), x, tol=tol)
        both(lambda lib, t: t.norm(*args, dim=-1), x[:0], tol=tol)
    both(lambda lib, t: t.norm(), values("int64"))  # integers: an error


# -- scans -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_scans(dtype: str) -> None:
    x = values(dtype, low=-2, high=2, shape=(3, 13), seed=17)
    tol = 3e-2 if dtype in ("float16", "bfloat16") else None
    for t in (x, x.t(), x[:, ::2], x[:0], x[1, 2]):
        for dim in (0, -1) if t.dim() else (0,):
            both(lambda lib, a: lib.cumsum(a, dim), t, tol=tol)
            both(lambda lib, a: a.cumprod(dim), t, tol=tol)
            both(lambda lib, a: lib.cumsum(a, dim, dtype=lib.float64), t)
            both(lambda lib, a: a.cumsum(dim, dtype=lib.int32), t)
            both(lambda lib, a: lib.cummax(a, dim), t)
            both(lambda lib, a: a.cummin(dim), t)
            both(lambda lib, a: lib.logcumsumexp(a, dim), t, tol=tol)
            both(lambda lib, a: a.clone().cumsum_(dim), t, tol=tol)
            both(lambda lib, a: a.clone().cumprod_(dim), t, tol=tol)
    if dtype in FLOATS:
        e = values(dtype, "edge")
        for f in ("cummax", "cummin", "cumsum", "logcumsumexp"):
            both(lambda lib, a: getattr(lib, f)(a, 0), e)
    ties = torch.tensor([1, 3, 3, 2, 3, 0]).to(getattr(torch, dtype))
    both(lambda lib, a: lib.cummax(a, 0), ties)  # the latest index among equal values
    both(lambda lib, a: lib.cummin(a, 0), ties)


# -- order statistics ------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile(dtype: str, how: str) -> None:
    x = values(dtype, shape=(4, 7), seed=18)
    xn = x.clone()
    xn[1, ::2] = NAN
    xn[2] = NAN
    q = torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0], dtype=getattr(torch, dtype))
    for name in ("quantile", "nanquantile"):
        for t in (x, xn, x.t()):
            for qq in (q, 0.3, q[2], q[:1]):
                for dim in (None, 0, -1):
                    for keepdim in (False, True):
                        both(lambda lib, a, b: getattr(lib, name)(a, b, dim, keepdim,
                                                                  interpolation=how),
                             t, qq)  # fmt: skip
        both(lambda lib, a: getattr(a, name)(0.5, interpolation=how), x[0, 0])
    both(lambda lib, a: lib.quantile(a, 1.5), x)  # errors: q out of range,
    both(lambda lib, a: lib.quantile(a, 0.5, interpolation="cubic"), x)  # bad interpolation,
    both(lambda lib, a: lib.quantile(a.int(), 0.5), x)  # integer input,
    both(lambda lib, a, b: lib.quantile(a, b), x, q.double() if dtype == "float32" else q.float())
    both(lambda lib, a, b: lib.quantile(a, b), x, q.reshape(1, -1))  # 2-D q
    both(lambda lib, a: lib.quantile(a, 0.5), x[:0])  # empty input


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float16", "float32", "float64"])
def test_nanmedian_and_mode(dtype: str) -> None:
    x = values(dtype, low=-3, high=3, shape=(4, 7), seed=19)
    if dtype in FLOATS:
        x[1, ::2] = NAN
    for f in (
        lambda lib, t: lib.nanmedian(t),
        lambda lib, t: t.nanmedian(),
        lambda lib, t: lib.nanmedian(t[1]),
        lambda lib, t: lib.nanmedian(t, 1).values,
        lambda lib, t: t.nanmedian(0, keepdim=True).values,
        lambda lib, t: lib.nanmedian(t[0, 0], 0),
        lambda lib, t: lib.nanmedian(t[:0]),
        lambda lib, t: lib.nanmedian(t[:, :0], 1),  # an error
        lambda lib, t: lib.mode(t.nan_to_num()),
        lambda lib, t: t.nan_to_num().mode(0, keepdim=True),
        lambda lib, t: lib.mode(t[0, 0]),
        lambda lib, t: lib.mode(t[:, :0]),  # an error
    ):
        both(f, x)
    if dtype not in FLOATS:  # without NaN the index of the lower median is unique
        both(lambda lib, t: lib.nanmedian(t, 1), values(dtype, shape=(3, 5), low=-30, high=30))
    both(lambda lib, t: lib.nanmedian(t), values("bool"))  # an error


def test_mode_picks_the_smallest_of_the_most_frequent_and_its_last_index() -> None:
    both(lambda lib, t: lib.mode(t), torch.tensor([3, 1, 2, 1, 3, 5]))
    both(lambda lib, t: lib.mode(t, 1), torch.tensor([[1, 1, 2, 2], [4, 3, 3, 4]]))
    both(lambda lib, t: lib.mode(t, 0), torch.tensor([[1.0, 2.0], [1.0, 3.0], [2.0, 3.0]]))


# -- integer arithmetic edge cases -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero_overflow_and_shifts(dtype: str) -> None:
    a, z = values(dtype, "edge"), torch.zeros(9, dtype=getattr(torch, dtype))
    for f in (
        lambda lib, x, y: lib.div(x, y, rounding_mode="floor"),
        lambda lib, x, y: lib.div(x, y, rounding_mode="trunc"),
        lambda lib, x, y: x % y,
        lambda lib, x, y: lib.fmod(x, y),
        lambda lib, x, y: x // y,
        lambda lib, x, y: lib.div(x, y),  # true division: inf / nan
    ):
        both(f, a, z)
    both(lambda lib, x, y: x * y, a, a)  # wraps
    both(lambda lib, x, y: x + y, a, a.flip(0))
    both(lambda lib, x: -x, a)
    both(lambda lib, x: x.abs(), a)
    both(lambda lib, x, y: lib.gcd(x, y), a, a.flip(0))
    no_min = a[a != torch.iinfo(a.dtype).min]  # torch.lcm traps (SIGFPE) on the minimum
    both(lambda lib, x, y: lib.lcm(x, y), no_min, no_min.flip(0))
    both(lambda lib, x: x << 3, a)
    both(lambda lib, x: x >> 1, a)
    both(lambda lib, x: ~x, a)
    both(lambda lib, x: lib.div(x, 2, rounding_mode="floor"), a)


def test_pow_int_float_mixes_and_negative_exponents() -> None:
    i = torch.tensor([1, 2, 3, -2], dtype=torch.int64)
    f = torch.tensor([0.5, 2.0, -1.5, 3.0])
    for e in (2, 0, 3, 2.5, -1.0, True):
        both(lambda lib, x: lib.pow(x, e), i)
        both(lambda lib, x: x**e, f)
    for e in (-1, -2):
        both(lambda lib, x: lib.pow(x, e), i)  # RuntimeError
        both(lambda lib, x: x**e, i)
    both(lambda lib, x: lib.pow(x, torch.tensor(-1) if lib is torch else ember.tensor(-1)), i)
    both(lambda lib, x: 2**x, i)
    both(lambda lib, x: 2.5**x, i)
    both(lambda lib, x, y: lib.pow(x, y), i, f)
    both(lambda lib, x, y: lib.pow(x, y), f, i)
    both(lambda lib, x, y: lib.float_power(x, y), i, i)
    both(lambda lib, x: lib.float_power(x, -2), i)
    both(lambda lib, x: lib.float_power(2, x), i)  # a Python number first
    both(lambda lib, x: lib.xlogy(2.0, x), i)
    both(lambda lib, x: lib.xlogy(3, x), f)
    both(lambda lib, x: x.clone().float_power_(2), f)  # float32 self: an error
    both(lambda lib, x: x.double().float_power_(2), f)


def test_div_rounding_modes_on_floats() -> None:
    a, b = values("float64", "edge"), values("float64", "edge").flip(0)
    for mode in (None, "floor", "trunc"):
        both(lambda lib, x, y: lib.div(x, y, rounding_mode=mode), a, b)
        both(lambda lib, x, y: x.div(y, rounding_mode=mode), a.float(), b.float())
        both(lambda lib, x, y: x.clone().div_(y, rounding_mode=mode), a, b)
    both(lambda lib, x, y: lib.div(x, y, rounding_mode="floor"), values("bool"), values("bool"))
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        ember.div(ember.ones(2), 2, rounding_mode="round")


# -- error messages --------------------------------------------------------------------------------
def test_var_warns_when_no_degree_of_freedom_is_left() -> None:
    with pytest.warns(UserWarning, match="var\\(\\): degrees of freedom is <= 0"):
        assert math.isnan(ember.var(ember.tensor([1.0])).item())
    with pytest.warns(UserWarning, match="std_mean\\(\\): degrees of freedom is <= 0"):
        ember.std_mean(ember.tensor([1.0, 2.0]), correction=2)


def test_error_messages_name_the_operator_and_dtype() -> None:
    i, f = ember.tensor([1, 2]), ember.tensor([0.5, 1.0])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output"):
        i.clone().logit_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output"):
        i.clone().atan2_(f)
    with pytest.raises(RuntimeError, match="float_power_ has dtype Float but the operation's"):
        f.clone().float_power_(2)
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with"):
        ember.heaviside(f, i)
    with pytest.raises(RuntimeError, match="Long did not match Float"):
        ember.isclose(i, f)
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        ember.isclose(f, f, rtol=-1)
    with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        ember.logaddexp(i, i)
    with pytest.raises(NotImplementedError, match="gcd is not implemented for dtype float32"):
        ember.gcd(f, f)
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor"):
        ember.positive(ember.tensor([True]))
    with pytest.raises(RuntimeError, match="nanmean\\(\\): expected input to have floating point"):
        ember.nanmean(i)
    with pytest.raises(RuntimeError, match="var_mean only support floating point"):
        ember.var_mean(i)
    with pytest.raises(RuntimeError, match="quantile\\(\\) q must be in the range \\[0, 1\\]"):
        ember.quantile(f, 2.0)
    with pytest.raises(RuntimeError, match="quantile\\(\\) input tensor must be either float"):
        ember.quantile(i, 0.5)
    with pytest.raises(RuntimeError, match="interpolation must be one of linear, lower"):
        ember.quantile(f, 0.5, interpolation="cubic")
    with pytest.raises(IndexError, match="mode\\(\\): Expected reduction dim 1 to have non-zero"):
        ember.mode(ember.zeros(2, 0), 1)
    with pytest.raises(RuntimeError, match="aminmax\\(\\): cannot compute aminmax over an empty"):
        ember.aminmax(ember.zeros(0))
    with pytest.raises(RuntimeError, match="amax\\(\\): Expected reduction dim to be specified"):
        ember.zeros(0, 3).amax()
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        ember.pow(i, -1)
    with pytest.raises(RuntimeError, match="var: can't specify both unbiased and correction"):
        ember.var(f, unbiased=True, correction=0)
    with pytest.raises(NotImplementedError, match="round_cpu\" not implemented for 'Long'"):
        ember.round(i, decimals=1)
    with pytest.raises(RuntimeError, match="logcumsumexp_out_cpu\" not implemented for 'Long'"):
        ember.logcumsumexp(i, 0)
    with pytest.raises(RuntimeError, match="cannot compute the -1 norm on an empty tensor"):
        ember.zeros(0).norm(-1)


# -- gradients -------------------------------------------------------------------------------------
GRADS: dict[str, tuple[Callable[..., Any], int, float, float]] = {
    # name -> (fn(lib, *xs), number of inputs, low, high)
    "erfinv": (lambda lib, x: lib.erfinv(x), 1, -0.9, 0.9),
    "lgamma": (lambda lib, x: lib.lgamma(x), 1, -3.5, 6),
    "digamma": (lambda lib, x: lib.digamma(x), 1, 0.1, 6),
    "digamma<0": (lambda lib, x: lib.digamma(x), 1, -3.9, -3.1),
    "logit": (lambda lib, x: lib.logit(x), 1, 0.05, 0.95),
    "logit eps": (lambda lib, x: lib.logit(x, 0.2), 1, 0.05, 0.95),
    "sinc": (lambda lib, x: lib.sinc(x), 1, -2, 2),
    "nan_to_num": (lambda lib, x: lib.nan_to_num(x), 1, -2, 2),
    "deg2rad": (lambda lib, x: lib.deg2rad(x), 1, -2, 2),
    "xlogy": (lambda lib, x, y: lib.xlogy(x, y), 2, 0.1, 3),
    "logaddexp": (lambda lib, x, y: lib.logaddexp(x, y), 2, -5, 5),
    "logaddexp2": (lambda lib, x, y: lib.logaddexp2(x, y), 2, -5, 5),
    "float_power": (lambda lib, x, y: lib.float_power(x, y), 2, 0.5, 2),
    "fmax": (lambda lib, x, y: lib.fmax(x, y), 2, -2, 2),
    "ldexp": (lambda lib, x, y: lib.ldexp(x, y), 2, -2, 2),
    "clamp_min": (lambda lib, x, y: lib.clamp_min(x, y), 2, -2, 2),
    "lerp tensor": (lambda lib, x, y, w: lib.lerp(x, y, w), 3, 0, 1),
    "var_mean": (lambda lib, x: lib.var_mean(x, 1)[0] + lib.var_mean(x, 1)[1], 1, -2, 2),
    "std": (lambda lib, x: lib.std(x, 0, correction=0), 1, -2, 2),
    "norm 3": (lambda lib, x: lib.norm(x, 3, dim=1), 1, -2, 2),
    "nansum": (lambda lib, x: lib.nansum(x, 1), 1, -2, 2),
    "nanmean": (lambda lib, x: lib.nanmean(x, 0), 1, -2, 2),
    "cumsum": (lambda lib, x: lib.cumsum(x, 1), 1, -2, 2),
    "cumprod": (lambda lib, x: lib.cumprod(x, 1), 1, 0.5, 2),
    "cummax": (lambda lib, x: lib.cummax(x, 1).values, 1, -2, 2),
    "cummin": (lambda lib, x: lib.cummin(x, 0).values, 1, -2, 2),
    "logcumsumexp": (lambda lib, x: lib.logcumsumexp(x, 1), 1, -2, 2),
    "quantile": (lambda lib, x: lib.quantile(x, 0.3, dim=1), 1, -2, 2),
    "nanquantile": (lambda lib, x: lib.nanquantile(x, 0.7, dim=0), 1, -2, 2),
    "nanmedian": (lambda lib, x: lib.nanmedian(x, 1).values, 1, -2, 2),
    "aminmax": (lambda lib, x: lib.aminmax(x, dim=1).max, 1, -2, 2),
    "logit_ on a non-leaf": (lambda lib, x: (x * 1).logit_(), 1, 0.05, 0.95),
    "clamp_ on a non-leaf": (lambda lib, x: (x * 1).clamp_(-1, 1), 1, -2, 2),
    "addcmul_": (lambda lib, x, y: (x * 1).addcmul_(x, y, value=0.5), 2, -2, 2),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_match_torch(name: str) -> None:
    fn, n, low, high = GRADS[name]
    g = np.random.default_rng(20)
    xs = [g.uniform(low, high, (3, 5)) for _ in range(n)]
    ts = [torch.tensor(x, requires_grad=True) for x in xs]
    es = [ember.tensor(x, requires_grad=True) for x in xs]
    w = g.standard_normal((3, 5))
    out_t, out_e = fn(torch, *ts), fn(ember, *es)
    (
        out_t * torch.tensor(w).reshape(out_t.shape) if out_t.numel() == 15 else out_t
    ).sum().backward()
    (
        out_e * ember.tensor(w).reshape(tuple(out_e.shape)) if out_e.numel() == 15 else out_e
    ).sum().backward()
    for k, (a, b) in enumerate(zip(es, ts)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=f"{name}: input {k}")  # fmt: skip


@pytest.mark.parametrize("name", ["erfinv", "lgamma", "digamma", "logit", "xlogy", "logaddexp"])
def test_gradcheck_and_second_derivatives(name: str) -> None:
    fn, n, low, high = GRADS[name]
    g = np.random.default_rng(21)
    xs = [ember.tensor(g.uniform(low, high, (2, 3)), requires_grad=True) for _ in range(n)]
    assert ember.autograd.gradcheck(lambda *a: fn(ember, *a), tuple(xs))
    assert ember.autograd.gradgradcheck(lambda *a: fn(ember, *a), tuple(xs))


def test_safe_where_keeps_gradients_finite_at_the_special_points() -> None:
    x = ember.tensor([0.0, 1.0], dtype=ember.float64, requires_grad=True)
    ember.sinc(x).sum().backward()
    assert x.grad.tolist()[0] == 0.0 and math.isfinite(x.grad.tolist()[1])
    a = ember.tensor([0.0, 2.0], dtype=ember.float64, requires_grad=True)
    b = ember.tensor([1.0, 3.0], dtype=ember.float64, requires_grad=True)
    ember.xlogy(a, b).sum().backward()
    ta, tb = (
        torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in ([0.0, 2.0], [1.0, 3.0])
    )
    torch.xlogy(ta, tb).sum().backward()
    same(a.grad, ta.grad, "xlogy d/dx")
    same(b.grad, tb.grad, "xlogy d/dy")


def test_opencl_runs_the_new_primitives_when_available() -> None:
    from ember.library import capabilities

    try:
        capabilities("opencl")
    except Exception:  # noqa: BLE001 - the device is optional
        pytest.skip("no OpenCL device")
    x = np.random.default_rng(22).uniform(-0.9, 0.9, (3, 4))
    for name in ("erfinv", "lgamma", "digamma"):
        e = getattr(ember, name)(ember.tensor(x).to("opencl")).cpu()
        np.testing.assert_allclose(e.numpy(), getattr(torch, name)(torch.tensor(x)).numpy(),
                                   rtol=1e-12, atol=1e-12)  # fmt: skip
    i = ember.tensor([12, -18, 0, 7]).to("opencl")
    assert ember.gcd(i, i.flip(0)).cpu().tolist() == [1, 18, 18, 1]


def test_polygamma_mvlgamma_and_the_complex_helpers() -> None:
    x = values("float64", low=0.05, high=30, shape=(4, 6), seed=23)
    for n in range(6):
        both(lambda lib, t: lib.polygamma(n, t), x, tol=1e-9)
        both(lambda lib, t: t.polygamma(n), x.float())
        both(lambda lib, t: t.clone().polygamma_(n), x, tol=1e-9)
    both(lambda lib, t: lib.polygamma(1, t), -x[0] + 0.5, tol=1e-8)  # reflected
    both(lambda lib, t: lib.polygamma(2, t), values("int64", low=1, high=9))
    both(lambda lib, t: lib.polygamma(-1, t), x)  # an error
    for p in (1, 2, 4):
        both(lambda lib, t: lib.mvlgamma(t, p), x + 2)
        both(lambda lib, t: t.clone().mvlgamma_(p), x + 2)
    both(lambda lib, t: lib.mvlgamma(t, 3), x - 1)  # poles give inf/nan, as lgamma
    for p in (1, 2, 3, INF):
        both(lambda lib, a, b: lib.dist(a, b, p), x, x.flip(0))
        both(lambda lib, a, b: a.dist(b, p), x.float(), x[0].float())
    e = values("float64", "edge")
    for f in ("angle", "real", "conj", "resolve_conj", "resolve_neg", "conj_physical"):
        both(lambda lib, t: getattr(lib, f)(t), e)
        both(lambda lib, t: getattr(lib, f)(t), values("int64"))
    both(lambda lib, t: lib.imag(t), e)  # an error
    both(lambda lib, t: (t.is_conj(), t.is_neg()), e)
    for size in ((1, 6), (4, 1), (6,), (1, 1), (4, 6), (3, 6)):
        both(lambda lib, t: t.sum_to_size(size), x)
    both(lambda lib, t: t.sum_to_size(1, 6), x)


TOP_INPLACE = ["abs_", "exp_", "clamp_", "logit_", "nan_to_num_", "round_", "sigmoid_", "xlogy_",
               "gcd_", "square_", "fix_", "arccos_"]  # fmt: skip


@pytest.mark.parametrize("name", TOP_INPLACE)
def test_inplace_functions_at_the_top_level(name: str) -> None:
    args = {"clamp_": (0.1, 0.6), "xlogy_": (2.0,), "round_": ()}.get(name, ())
    dtype = "int64" if name == "gcd_" else "float64"
    x = values(dtype, low=0, high=1, seed=24)

    def call(lib: Any, t: Any) -> Any:
        t = t.clone()
        r = getattr(lib, name)(t, *((t.flip(0),) if name == "gcd_" else args))
        assert r is t
        return t

    both(call, x)


SPECIAL = ["digamma", "psi", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammaln", "log1p", "log_ndtr", "logit", "ndtr", "ndtri", "sinc", "round"]  # fmt: skip


SPECIAL_RANGE = {"erfinv": (-1, 1), "ndtri": (0, 1), "logit": (0, 1), "entr": (-1, 4)}


@pytest.mark.parametrize("name", SPECIAL)
def test_special_namespace(name: str) -> None:
    lo, hi = SPECIAL_RANGE.get(name, (-30, 30))
    for dtype, tol in (("float64", 1e-10), ("float32", 1e-5), ("int64", None)):
        x = values(dtype, low=lo, high=hi, shape=(5, 6), seed=25)
        both(lambda lib, t: getattr(lib.special, name)(t), x, tol=tol)
    both(lambda lib, t: getattr(lib.special, name)(t), values("float64", "edge"))
    if name == "ndtri":  # the far tail, where 2p - 1 rounds to -1
        tiny = torch.logspace(-300, -2, 60, dtype=torch.float64)
        both(lambda lib, t: lib.special.ndtri(t), tiny, tol=1e-10)


def test_special_functions_of_two_arguments() -> None:
    x, y = values("float64", low=-1, high=3, seed=26), values("float64", low=-0.5, high=3, seed=27)
    x[0] = 0
    y[0, 0] = NAN
    for name in ("xlogy", "xlog1py"):
        both(lambda lib, a, b: getattr(lib.special, name)(a, b), x, y)
        both(lambda lib, a: getattr(lib.special, name)(a, 2.5), x)
    both(lambda lib, a: lib.special.polygamma(2, a), y.abs() + 0.5, tol=1e-9)
    both(lambda lib, a: lib.special.multigammaln(a, 3), y.abs() + 1.5)
    both(lambda lib, a: lib.special.logsumexp(a, 1), x)
    both(lambda lib, a: lib.special.softmax(a, 0), x)
    both(lambda lib, a: lib.special.log_softmax(a, 1), x)
