"""numpy kernels for the template device, one small function per operator family.

Every kernel follows the out convention of ``ember/operators/drivers.py``: the core
has already computed the output's shape and dtype, allocated ``out``, broadcast
the inputs to ``out``'s shape (stride-0 views) and cast them to the computation
dtype. A kernel only does arithmetic, writing into ``out``.

Inputs and outputs may be arbitrary strided views (transposed, sliced,
broadcast, 0-dim, empty) and may alias each other (in-place ``add_`` calls
``k(self, self, other)``), so every kernel reads and writes through ``view``,
which rebuilds the exact numpy view a tensor describes from its storage block,
element offset and element strides. numpy ufuncs handle overlapping operands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = [
    "view",
    "unary",
    "binary",
    "add",
    "where",
    "reduce",
    "mean",
    "bmm",
    "copy",
    "fill",
    "uniform",
    "normal",
    "random",
    "sigmoid",
    "relu",
    "power",
]

Ufunc = Callable[..., Any]


def view(t: Any) -> np.ndarray:
    """The writable numpy view of tensor ``t``'s elements in its storage block.

    ``t.untyped_storage().data`` is the block ``TemplateBackend.allocate`` returned;
    ``storage_offset()`` and ``stride()`` count elements, numpy counts bytes.
    """
    dtype = t.dtype.numpy
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)  # nothing to read or write
    isz = dtype.itemsize
    start = t.storage_offset() * isz
    first = t.untyped_storage().data[start : start + isz].view(dtype)
    return as_strided(first, tuple(t.shape), tuple(s * isz for s in t.stride()))


# -- elementwise ----------------------------------------------------------------------------------
def unary(fn: Ufunc, out: Any, a: Any) -> None:
    with np.errstate(all="ignore"):  # log(0) = -inf, sqrt(-1) = nan: IEEE results, no warnings
        fn(view(a), out=view(out))


def binary(fn: Ufunc, out: Any, a: Any, b: Any) -> None:
    with np.errstate(all="ignore"):
        fn(view(a), view(b), out=view(out))


def add(sign: int, out: Any, a: Any, b: Any, alpha: Any) -> None:
    """``add``/``sub``: ``a + sign * alpha * b`` (bool ``a + b`` is logical or, as in PyTorch)."""
    y = view(b)
    if sign * alpha != 1:
        y = np.multiply(y, sign * alpha, dtype=y.dtype, casting="unsafe")
    with np.errstate(all="ignore"):
        np.add(view(a), y, out=view(out))


def sigmoid(x: np.ndarray, out: np.ndarray) -> None:
    """1 / (1 + exp(-x)) without overflow: exp is only taken of -|x|."""
    e = np.exp(-np.abs(x))
    np.copyto(out, np.where(x >= 0, 1 / (1 + e), e / (1 + e)))


def relu(x: np.ndarray, out: np.ndarray) -> None:
    np.maximum(x, 0, out=out)  # NaN propagates, as in PyTorch


def power(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``a ** b``; integer negative powers give 0 (or +-1 for a base of +-1) as in PyTorch,
    where numpy would raise."""
    if a.dtype.kind != "i":
        np.power(a, b, out=out)
        return
    neg = b < 0
    r = np.power(a, np.where(neg, 0, b))
    np.copyto(out, np.where(neg, np.where(np.abs(a) == 1, np.where(b % 2 == 0, 1, a), 0), r))


def where(out: Any, cond: Any, a: Any, b: Any) -> None:
    np.copyto(view(out), np.where(view(cond), view(a), view(b)))


# -- reductions -----------------------------------------------------------------------------------
def _acc(x: np.ndarray) -> np.dtype[Any]:
    """Accumulate floats in float64 so float32 sums keep their digits."""
    return np.dtype(np.float64) if x.dtype.kind == "f" else x.dtype


def reduce(fn: Ufunc, accumulate: bool, out: Any, a: Any, dims: tuple[int, ...]) -> None:
    """``out`` (keepdim shape) = ``fn`` of ``a`` over ``dims``."""
    x = view(a)
    kw = {"dtype": _acc(x)} if accumulate else {}
    with np.errstate(all="ignore"):
        r = fn(x, axis=dims, keepdims=True, **kw)
    np.copyto(view(out), r, casting="unsafe")


def mean(out: Any, a: Any, dims: tuple[int, ...]) -> None:
    x = view(a)
    count = 1
    for d in dims:
        count *= x.shape[d]
    with np.errstate(all="ignore"):  # an empty mean is 0 / 0 = nan, as in PyTorch
        r = np.sum(x, axis=dims, keepdims=True, dtype=np.float64) / count
    np.copyto(view(out), r, casting="unsafe")


# -- matmul ---------------------------------------------------------------------------------------
def bmm(out: Any, a: Any, b: Any) -> None:
    """(B,M,K) @ (B,K,N) -> (B,M,N); K = 0 gives zeros."""
    np.matmul(view(a), view(b), out=view(out))


# -- copy, fill -----------------------------------------------------------------------------------
def copy(out: Any, src: Any) -> None:
    """The cast primitive: any pair of the device's dtypes, strided to strided."""
    with np.errstate(all="ignore"):  # nan -> int64 is undefined in C too
        np.copyto(view(out), view(src), casting="unsafe")


def fill(out: Any, value: Any) -> None:
    with np.errstate(all="ignore"):
        np.copyto(view(out), np.asarray(value), casting="unsafe")


# -- random ---------------------------------------------------------------------------------------
def _store(out: Any, values: np.ndarray) -> None:
    np.copyto(view(out), values.reshape(tuple(out.shape)), casting="unsafe")


def uniform(out: Any, low: float, high: float, gen: Any) -> None:
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    _store(out, gen.rng.random(out.numel()) * (high - low) + low)


def normal(out: Any, mean: float, std: float, gen: Any) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _store(out, gen.rng.standard_normal(out.numel()) * std + mean)


#: random_'s default [from, to) per dtype when ``to`` is None: integers every dtype holds exactly.
_RANGE = {
    "bool": (0, 2),
    "int64": (-(2**63), 2**63 - 1),
    "float32": (-(2**24), 2**24 + 1),
    "float64": (-(2**53), 2**53 + 1),
}


def random(out: Any, low: int, high: int | None, gen: Any) -> None:
    lo, hi = _RANGE[out.dtype.name]
    if high is None:
        low, high = max(low, lo), hi
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    _store(out, gen.rng.integers(low, high, out.numel(), dtype=np.int64))
