"""numpy references for the structured operators, keyed by functional overload name.

Each reference takes the sample's arguments with tensors converted by ``to_numpy``
(float64, int64 or bool arrays) and returns the exact result in float64/int64/bool;
the suite casts it to the result dtype where that dtype is integral (wraparound).
``CONFIG`` holds the per-operator sample settings (value domains, dtype
exclusions, keyword arguments): data, not branches on names.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["REFS", "CONFIG"]

F = np.float64
_erf = np.vectorize(math.erf, otypes=[F])
_erfc = np.vectorize(math.erfc, otypes=[F])


def _f(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Compute ``fn`` on float64 copies of the tensor arguments."""

    def ref(*args: Any, **kw: Any) -> Any:
        return fn(*(np.asarray(a, F) if isinstance(a, np.ndarray) else a for a in args), **kw)

    return ref


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _erfinv(y: np.ndarray) -> np.ndarray:
    """Newton's iteration on ``erf(x) = y`` from ``x = 0`` (float64; |y| < 1 converges)."""
    y = np.asarray(y, F)
    x = np.zeros_like(y)
    inside = np.abs(y) < 1
    for _ in range(60):
        step = (_erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
        x = np.where(inside, x - np.clip(step, -1, 1), x)
    return np.where(inside, x, np.where(np.abs(y) == 1, np.copysign(np.inf, y), np.nan))


def _digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) for x > 0: 12 steps of psi(x) = psi(x + 1) - 1/x, then the asymptotic series."""
    x = np.asarray(x, F)
    acc = np.zeros_like(x)
    for _ in range(12):
        acc -= 1 / x
        x = x + 1
    xi = 1 / (x * x)
    tail = xi / 12 - xi**2 / 120 + xi**3 / 252 - xi**4 / 240 + xi**5 / 132
    return acc + np.log(x) - 0.5 / x - tail


def _lgamma1(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # the poles 0, -1, -2, ...
        return math.inf


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.trunc(np.asarray(a, F) / b)


_DIV_MODE: dict[str | None, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    None: lambda a, b: np.asarray(a, F) / b,
    "trunc": _trunc_div,
    "floor": lambda a, b: np.floor(np.asarray(a, F) / b),
}


def _axes(dim: Any, ndim: int) -> tuple[int, ...] | None:
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % max(ndim, 1) for d in dims) if ndim else None


def _reduce(fn: Callable[..., Any], to_float: bool = False) -> Callable[..., Any]:
    def ref(a: np.ndarray, dim: Any = None, keepdim: bool = False, **_: Any) -> Any:
        x = np.asarray(a, F) if to_float else a
        return fn(x, axis=_axes(dim, a.ndim), keepdims=keepdim)

    return ref


def _arg(fn: Callable[..., Any]) -> Callable[..., Any]:
    def ref(a: np.ndarray, dim: int | None = None, keepdim: bool = False) -> Any:
        if dim is None or a.ndim == 0:
            r = np.asarray(fn(a.reshape(-1)))
            return r.reshape((1,) * a.ndim) if keepdim else r
        return fn(a, axis=dim, keepdims=keepdim)

    return ref


REFS: dict[str, Callable[..., Any]] = {
    # unary, same dtype
    "neg": np.negative,
    "abs": np.abs,
    "relu": lambda a: np.maximum(a, 0),
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.round,
    "sign": lambda a: np.sign(np.asarray(a, F)),
    "square": lambda a: a * a,
    "frac": lambda a: a - np.trunc(a),
    # unary, float result
    "exp": _f(np.exp),
    "exp2": _f(np.exp2),
    "expm1": _f(np.expm1),
    "log": _f(np.log),
    "log2": _f(np.log2),
    "log10": _f(np.log10),
    "log1p": _f(np.log1p),
    "sqrt": _f(np.sqrt),
    "rsqrt": _f(lambda a: 1 / np.sqrt(a)),
    "sin": _f(np.sin),
    "cos": _f(np.cos),
    "tan": _f(np.tan),
    "asin": _f(np.arcsin),
    "acos": _f(np.arccos),
    "atan": _f(np.arctan),
    "sinh": _f(np.sinh),
    "cosh": _f(np.cosh),
    "tanh": _f(np.tanh),
    "asinh": _f(np.arcsinh),
    "acosh": _f(np.arccosh),
    "atanh": _f(np.arctanh),
    "erf": _f(_erf),
    "erfc": _f(_erfc),
    "erfinv": _f(_erfinv),
    "digamma": _f(_digamma),
    "lgamma": _f(np.vectorize(_lgamma1, otypes=[F])),
    "bitwise_not": np.invert,
    "sigmoid": _f(_sigmoid),
    "reciprocal": _f(lambda a: 1 / a),
    "silu": _f(lambda a: a * _sigmoid(a)),
    "mish": _f(lambda a: a * np.tanh(np.logaddexp(0, a))),
    "softplus": _f(lambda a: np.logaddexp(0, a)),
    "gelu": _f(_gelu),
    # unary, bool result
    "logical_not": np.logical_not,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    # binary
    "add.Tensor": lambda a, b, alpha=1: a + alpha * b if a.dtype != np.bool_ else a | b,
    "sub.Tensor": lambda a, b, alpha=1: a - alpha * b,
    "mul.Tensor": lambda a, b: a * b if a.dtype != np.bool_ else a & b,
    "div.Tensor": _f(np.true_divide),
    "div.Tensor_mode": lambda a, b, rounding_mode=None: _DIV_MODE[rounding_mode](a, b),
    "maximum": np.maximum,
    "minimum": np.minimum,
    "atan2": _f(np.arctan2),
    "hypot": _f(np.hypot),
    "copysign": _f(np.copysign),
    "nextafter": _f(np.nextafter),
    "gcd": np.gcd,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "remainder.Tensor": np.remainder,
    "fmod.Tensor": np.fmod,
    "pow.Tensor_Tensor": lambda a, b: np.power(np.asarray(a, F), b),
    "eq.Tensor": np.equal,
    "ne.Tensor": np.not_equal,
    "lt.Tensor": np.less,
    "le.Tensor": np.less_equal,
    "gt.Tensor": np.greater,
    "ge.Tensor": np.greater_equal,
    "bitwise_and.Tensor": np.bitwise_and,
    "bitwise_or.Tensor": np.bitwise_or,
    "bitwise_xor.Tensor": np.bitwise_xor,
    "bitwise_left_shift.Tensor": np.left_shift,
    "bitwise_right_shift.Tensor": np.right_shift,
    "where.self": np.where,
    # reductions
    "sum.dim_IntList": _reduce(np.sum),
    "prod.dim_IntList": _reduce(np.prod),
    "mean.dim": _reduce(np.mean, to_float=True),
    "amax": _reduce(np.amax),
    "amin": _reduce(np.amin),
    "argmax": _arg(np.argmax),
    "argmin": _arg(np.argmin),
    "all.dims": _reduce(np.all),
    "any.dims": _reduce(np.any),
    "bmm": np.matmul,
}

_UNIT = (-0.95, 0.95)
_POS = (0.1, 9.0)
_INT_ONLY_ARGS = {"int": {"alpha": 2}, "float": {"alpha": 0.5}}

#: per-operator sample settings; keys are OpInfo field names (``extra`` is free-form).
CONFIG: dict[str, dict[str, Any]] = {
    "log": {"domain": _POS},
    "log2": {"domain": _POS},
    "log10": {"domain": _POS},
    "log1p": {"domain": (-0.9, 9.0)},
    "sqrt": {"domain": _POS},
    "rsqrt": {"domain": _POS},
    "asin": {"domain": _UNIT},
    "acos": {"domain": _UNIT},
    "atanh": {"domain": _UNIT},
    "acosh": {"domain": (1.05, 9.0)},
    "reciprocal": {"domain": _POS},
    "tan": {"domain": (-1.4, 1.4)},
    "erfinv": {"domain": (-0.95, 0.95)},
    "digamma": {"domain": (0.5, 9.0)},
    "lgamma": {"domain": (0.5, 9.0)},
    "gelu": {"extra": {"kwargs": {"float": {"approximate": "tanh"}}}},
    "isnan": {"extra": {"special": True}},
    "isinf": {"extra": {"special": True}},
    "isfinite": {"extra": {"special": True}},
    "add.Tensor": {"extra": {"kwargs": _INT_ONLY_ARGS}},
    "sub.Tensor": {"extra": {"kwargs": _INT_ONLY_ARGS}},
    "div.Tensor": {"nonzero_other": True},
    "div.Tensor_mode": {
        "nonzero_other": True,
        "exclude": ("bool",),
        "extra": {
            "kwargs": {"int": {"rounding_mode": "floor"}, "float": {"rounding_mode": "trunc"}}
        },
    },
    "remainder.Tensor": {"nonzero_other": True},
    "fmod.Tensor": {"nonzero_other": True},
    "pow.Tensor_Tensor": {"domain": (0.5, 3.0), "domain_other": (0.0, 3.0)},
    "bitwise_left_shift.Tensor": {"domain_other": (0, 3)},
    "bitwise_right_shift.Tensor": {"domain_other": (0, 3)},
    "atan2": {"nonzero_other": True},
    "prod.dim_IntList": {"domain": (-1.5, 1.5), "extra": {"shape": (2, 3, 4)}},
    "mean.dim": {"exclude": ("bool", "uint8", "int8", "int16", "int32", "int64")},
    "amax": {"extra": {"all_dims": ()}},
    "amin": {"extra": {"all_dims": ()}},
    "argmax": {"exclude": ("bool",), "extra": {"single_dim": True}},
    "argmin": {"exclude": ("bool",), "extra": {"single_dim": True}},
    "bmm": {"domain": (-3.0, 3.0), "exclude": ("bool",)},
}
