"""The template device's numpy kernels and ``KERNELS``, the table the plugin registers.

The core calls each kernel with the output already allocated (``out`` first) and the
inputs broadcast to its shape and cast to its dtype (docs/operators.md lists every call);
a kernel only computes, writing into ``out``. Any argument may be a strided view
(transposed, sliced, broadcast with stride 0, 0-dim, empty) or alias another, so every
kernel reads and writes through ``view``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided


def view(t: Any) -> np.ndarray:
    """The writable numpy view of tensor ``t`` in its block: ``untyped_storage().data`` is
    what ``TemplateBackend.allocate`` returned; offsets and strides count elements."""
    dtype = t.dtype.numpy
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)
    isz = dtype.itemsize
    start = t.storage_offset() * isz
    first = t.untyped_storage().data[start : start + isz].view(dtype)
    return as_strided(first, tuple(t.shape), tuple(s * isz for s in t.stride()))


def ufunc(fn: Any, out: Any, *args: Any) -> None:
    """Unary, binary and comparison operators: ``fn(a, [b,] out=...)``."""
    with np.errstate(all="ignore"):  # log(0) = -inf, 0 / 0 = nan: IEEE results, no warnings
        fn(*(view(a) for a in args), out=view(out))


def add(sign: int, out: Any, a: Any, b: Any, alpha: Any) -> None:
    """``add``/``sub``: ``a + sign * alpha * b`` (bool ``a + b`` is logical or)."""
    y = view(b)
    if sign * alpha != 1:
        y = np.multiply(y, sign * alpha, dtype=y.dtype, casting="unsafe")
    with np.errstate(all="ignore"):
        np.add(view(a), y, out=view(out))


def sigmoid(x: np.ndarray, out: np.ndarray) -> None:
    e = np.exp(-np.abs(x))  # exp of -|x| only: no overflow
    np.copyto(out, np.where(x >= 0, 1 / (1 + e), e / (1 + e)))


def power(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``a ** b``; a negative integer power is 0, or +-1 for a base of +-1 (numpy raises)."""
    if a.dtype.kind != "i":
        return np.power(a, b, out=out)
    neg = b < 0
    r = np.power(a, np.where(neg, 0, b))
    np.copyto(out, np.where(neg, np.where(np.abs(a) == 1, np.where(b % 2 == 0, 1, a), 0), r))


def where(out: Any, cond: Any, a: Any, b: Any) -> None:
    np.copyto(view(out), np.where(view(cond), view(a), view(b)))


def reduce(fn: Any, out: Any, a: Any, dims: tuple[int, ...]) -> None:
    """``out`` (keepdim shape) = ``fn`` over ``dims``; float sums accumulate in float64."""
    x = view(a)
    kw = {"dtype": np.float64} if fn in (np.sum, np.prod) and x.dtype.kind == "f" else {}
    with np.errstate(all="ignore"):
        np.copyto(view(out), fn(x, axis=dims, keepdims=True, **kw), casting="unsafe")


def mean(out: Any, a: Any, dims: tuple[int, ...]) -> None:
    x = view(a)
    count = int(np.prod([x.shape[d] for d in dims]))
    with np.errstate(all="ignore"):  # an empty mean is 0 / 0 = nan, as in PyTorch
        r = np.sum(x, axis=dims, keepdims=True, dtype=np.float64) / count
    np.copyto(view(out), r, casting="unsafe")


def bmm(out: Any, a: Any, b: Any) -> None:
    np.matmul(view(a), view(b), out=view(out))


def copy(out: Any, src: Any) -> None:
    """Mandatory: every cast and every move onto the device ends here."""
    with np.errstate(all="ignore"):
        np.copyto(view(out), view(src), casting="unsafe")


def fill(out: Any, value: Any) -> None:
    """Mandatory: ``zeros``, ``ones``, ``full`` and the other factories end here."""
    np.copyto(view(out), np.asarray(value), casting="unsafe")


def uniform(out: Any, low: float, high: float, gen: Any) -> None:
    """``gen`` is the object ``TemplateBackend.new_generator`` returned."""
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    _store(out, gen.rng.random(out.numel()) * (high - low) + low)


def normal(out: Any, mean: float, std: float, gen: Any) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _store(out, gen.rng.standard_normal(out.numel()) * std + mean)


#: random_'s range when ``to`` is None: every integer the dtype holds exactly
_RANGE = {"bool": (0, 2), "int64": (-(2**63), 2**63 - 1)}
_RANGE.update({"float32": (-(2**24), 2**24 + 1), "float64": (-(2**53), 2**53 + 1)})


def random(out: Any, low: int, high: int | None, gen: Any) -> None:
    if high is None:
        low, high = max(low, _RANGE[out.dtype.name][0]), _RANGE[out.dtype.name][1]
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    _store(out, gen.rng.integers(low, high, out.numel(), dtype=np.int64))


def _store(out: Any, values: np.ndarray) -> None:
    np.copyto(view(out), values.reshape(tuple(out.shape)), casting="unsafe")


#: operators whose numpy ufunc has the operator's name (``exp.default`` -> ``np.exp``)
_SAME_NAME = (
    "exp expm1 log log2 log10 log1p sqrt sin cos tan sinh cosh tanh reciprocal floor ceil "
    "trunc square isnan isinf isfinite logical_not logical_and logical_or logical_xor"
).split()
_UFUNCS = {  # "name.overload" -> numpy ufunc
    **{f"{n}.default": getattr(np, n) for n in _SAME_NAME},
    "neg.default": np.negative,
    "abs.default": np.abs,
    "round.default": np.round,  # half to even, as PyTorch
    "relu.default": lambda x, out: np.maximum(x, 0, out=out),  # NaN propagates
    "sigmoid.default": sigmoid,
    "mul.Tensor": np.multiply,  # bool * bool is logical and
    "div.Tensor": np.true_divide,
    "maximum.default": np.maximum,
    "minimum.default": np.minimum,
    "atan2.default": np.arctan2,
    "pow.Tensor_Tensor": power,
    "eq.Tensor": np.equal,
    "ne.Tensor": np.not_equal,
    "lt.Tensor": np.less,
    "le.Tensor": np.less_equal,
    "gt.Tensor": np.greater,
    "ge.Tensor": np.greater_equal,
}
_REDUCTIONS = {"sum.dim_IntList": np.sum, "prod.dim_IntList": np.prod, "amax.default": np.amax}
_REDUCTIONS.update({"amin.default": np.amin, "all.dims": np.all, "any.dims": np.any})

#: operator overload -> kernel: everything this device runs natively
KERNELS: dict[str, Any] = {n: partial(ufunc, f) for n, f in _UFUNCS.items()}
KERNELS.update({n: partial(reduce, f) for n, f in _REDUCTIONS.items()})
KERNELS.update(
    {
        "add.Tensor": partial(add, 1),
        "sub.Tensor": partial(add, -1),
        "where.self": where,
        "mean.dim": mean,
        "bmm.default": bmm,
        "copy_.default": copy,
        "fill_.Scalar": fill,
        "uniform_.default": uniform,
        "normal_.default": normal,
        "random_.from": random,
    }
)
