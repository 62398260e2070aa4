"""Composite reductions, scans and order statistics: var/std (and their ``_mean`` forms),
norm, nansum/nanmean, aminmax, cumsum/cumprod/cummax/cummin/logcumsumexp, quantile,
nanquantile, nanmedian and mode.

Everything is built from primitives (sum, mean, amax/amin, where, maximum, sort, gather,
cat/narrow), so every device runs it and autograd differentiates it through its parts.
Must always hold:

* float16/bfloat16 statistics (var, std, norm, the scans) are computed in float32 and
  rounded once, as PyTorch accumulates them;
* scans are log-step (Hillis-Steele): ceil(log2 n) passes, each combining every element
  with the partial result ``2**k`` places before it; ``cummax``/``cummin`` keep the
  latest index among equal values and NaN wins (PyTorch's rule);
* order statistics sort once (NaN last, stable) and ``gather`` the answer, so the
  returned indices point into the input as PyTorch's do.
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.operators.drivers import _TORCH_NAMES, normalize_dims
from ember.operators.elementwise import inplace, logaddexp
from ember.operators.index_drivers import ValuesIndices, normalize_dim

__all__ = ["COMPOSITES", "MinMax"]


class MinMax(NamedTuple):
    """``(min, max)``, as ``torch.return_types.aminmax``."""

    min: Tensor
    max: Tensor


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _is_float(t: Tensor) -> bool:
    return t._dtype.category == dt.FLOAT


def _widen(t: Tensor) -> Tensor:
    return t.to(dt.float32) if t._dtype in (dt.float16, dt.bfloat16) else t


def _back(r: Tensor, d: dt.dtype) -> Tensor:
    return r if r._dtype is d else r.to(d)


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Wrapped, sorted reduction dims (``None``/``[]``: all), with PyTorch's errors."""
    return normalize_dims(None, dim, ndim)  # type: ignore[arg-type]


def _count(shape: tuple[int, ...], dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _arange(n: int, like: Tensor) -> Tensor:
    return _aten().arange.start_step(0, n, 1, dtype=dt.int64, device=like._device)  # type: ignore[no-any-return]


# -- variance and norms ----------------------------------------------------------------------------
def _var_parts(
    name: str, self: Tensor, dim: Any, correction: Any, keepdim: bool
) -> tuple[Tensor, Tensor]:
    """(variance, mean) in the input's dtype; two passes (mean, then squared deviations)."""
    if not _is_float(self):
        what = "std and var" if name in ("std", "var") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    x = _widen(self)
    dims = _dims(dim, len(x._shape))
    mean = x.mean(dims, keepdim=True)
    dev = x - mean
    s = (dev * dev).sum(dims, keepdim=keepdim)
    c = 1 if correction is None else correction
    dof = builtins.max(0.0, _count(x._shape, dims) - float(c))
    if dof == 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )
    var = s / dof
    if not keepdim:
        mean = mean.squeeze(dims) if dims else mean
    return _back(var, self._dtype), _back(mean, self._dtype)


def var(self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Tensor:
    return _var_parts("var", self, dim, correction, keepdim)[0]


def _std_of(v: Tensor) -> Tensor:
    """``sqrt(var)`` whose gradient is 0 where the variance is 0 (a constant input), as
    PyTorch's std backward masks it, not sqrt's inf times var's 0 = NaN."""
    if not v._requires_grad:
        return v.sqrt()
    zero = v == 0
    return v.masked_fill(zero, 1.0).sqrt().masked_fill(zero, 0.0)


def std(self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False) -> Tensor:
    v = _var_parts("std", _widen(self), dim, correction, keepdim)[0]
    return _back(_std_of(v), self._dtype)


def var_mean(
    self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False
) -> tuple[Tensor, Tensor]:
    return _var_parts("var_mean", self, dim, correction, keepdim)


def std_mean(
    self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False
) -> tuple[Tensor, Tensor]:
    v, m = _var_parts("std_mean", _widen(self), dim, correction, keepdim)
    return _back(_std_of(v), self._dtype), _back(m, self._dtype)


def norm(self: Tensor, p: Any = None, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The vector p-norm over ``dim`` (all dims if empty); ``p`` in (inf, -inf, 0, 'fro', real)."""
    if not _is_float(self):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES[self._dtype.name]}"
        )
    if isinstance(p, str):
        if p != "fro":
            raise RuntimeError(f"norm: p={p!r} is not supported; use 'fro' or a number")
        p = 2
    p = 2 if p is None else p
    x = _widen(self)
    dims = _dims(dim, len(x._shape))
    if (p < 0 or p == math.inf) and x.numel() == 0 and _count(x._shape, dims) == 0:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    from ember.operators.linalg_norms import vector_norm

    # one implementation of the p-norms (with PyTorch's zero subgradient at 0)
    r = vector_norm(x, p, dims or None, keepdim)
    return _back(r, self._dtype)


def norm_scalar(self: Tensor, p: Any = 2) -> Tensor:
    return norm(self, p, (), False)


# -- max/min: the all-elements and along-a-dim forms (PyTorch's own nodes and gradients) ----------
def _extreme_all(name: str) -> Callable[[Tensor], Tensor]:
    reduce = "amax" if name == "max" else "amin"

    def fn(self: Tensor) -> Tensor:
        if self.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return getattr(_aten(), reduce).default(self, (), False)  # type: ignore[no-any-return]

    fn.__name__ = fn.__qualname__ = f"{name}_all"
    return fn


def _extreme_dim(name: str) -> Callable[..., ValuesIndices]:
    reduce, arg = ("amax", "argmax") if name == "max" else ("amin", "argmin")

    def fn(self: Tensor, dim: int, keepdim: bool = False) -> ValuesIndices:
        d = normalize_dim(dim, len(self._shape))
        if self._shape and self._shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        aten = _aten()
        values = getattr(aten, reduce).default(self, (d,) if self._shape else (), keepdim)
        return ValuesIndices(values, getattr(aten, arg).default(self, d, keepdim))

    fn.__name__ = fn.__qualname__ = f"{name}_dim"
    return fn


# -- nan-aware reductions and aminmax --------------------------------------------------------------
def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """The sum treating NaN as zero."""
    x = _aten().where.self(self.isnan(), 0, self) if _is_float(self) else self
    return x.sum(dim, keepdim, dtype=dtype)  # type: ignore[no-any-return]


def nanmean(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """The mean of the non-NaN elements (NaN where there are none)."""
    if not _is_float(self):
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_TORCH_NAMES[self._dtype.name]}"
        )
    count = (~self.isnan()).sum(dim, keepdim)
    return nansum(self, dim, keepdim, dtype) / count  # type: ignore[no-any-return]


def aminmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> MinMax:
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity."
            )
        dims: tuple[int, ...] = ()
    else:
        d = normalize_dim(dim, len(self._shape))
        if self._shape and self._shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = (d,) if self._shape else ()
    return MinMax(self.amin(dims, keepdim), self.amax(dims, keepdim))


# -- scans -----------------------------------------------------------------------------------------
Step = Callable[[list[Tensor], list[Tensor]], list[Tensor]]


def _scan(xs: list[Tensor], d: int, step: Step) -> list[Tensor]:
    """Hillis-Steele scan of ``xs`` (tensors of one shape) along ``d`` with ``step(prev, cur)``."""
    n = xs[0]._shape[d]
    cat = _aten().cat.default
    shift = 1
    while shift < n:
        prev = [t.narrow(d, 0, n - shift) for t in xs]
        cur = [t.narrow(d, shift, n - shift) for t in xs]
        new = step(prev, cur)
        xs = [cat([t.narrow(d, 0, shift), m], d) for t, m in zip(xs, new)]
        shift *= 2
    return xs


def _scan_dtype(self: Tensor, dtype: Any) -> tuple[Tensor, dt.dtype]:
    if dtype is not None:
        return self.to(dtype), dtype
    if _is_float(self):
        return self, self._dtype
    return self.to(dt.int64), dt.int64


def _arith_scan(self: Tensor, dim: int, dtype: Any, mul: bool) -> Tensor:
    x, out = _scan_dtype(self, dtype)
    d = normalize_dim(dim, len(x._shape))
    if not x._shape:
        return x.clone() if x is self else x
    x = _widen(x)
    (r,) = _scan([x], d, (lambda p, c: [c[0] * p[0]]) if mul else (lambda p, c: [c[0] + p[0]]))
    r = _back(r, out)
    return r.clone() if r is self else r


def cumsum(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _arith_scan(self, dim, dtype, False)


def cumprod(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _arith_scan(self, dim, dtype, True)


def _cum_extreme(self: Tensor, dim: int, largest: bool) -> ValuesIndices:
    d = normalize_dim(dim, len(self._shape))
    if not self._shape:
        return ValuesIndices(self.clone(), _aten().zeros.default((), dtype=dt.int64,
                                                                device=self._device))  # fmt: skip
    n = self._shape[d]
    shape = [1] * len(self._shape)
    shape[d] = n
    idx = _arange(n, self).view(tuple(shape)).expand(self._shape)
    where = _aten().where.self
    floating = _is_float(self)

    def step(prev: list[Tensor], cur: list[Tensor]) -> list[Tensor]:
        pv, pi = prev
        cv, ci = cur
        better = pv > cv if largest else pv < cv
        if floating:  # NaN beats everything; among NaNs (and ties) the later one wins
            better = better | (pv.isnan() & ~cv.isnan())
        return [where(better, pv, cv), where(better, pi, ci)]

    v, i = _scan([self, idx], d, step)
    return ValuesIndices(v.clone() if v is self else v, i.contiguous())


def cummax(self: Tensor, dim: int) -> ValuesIndices:
    return _cum_extreme(self, dim, True)


def cummin(self: Tensor, dim: int) -> ValuesIndices:
    return _cum_extreme(self, dim, False)


def logcumsumexp(self: Tensor, dim: int) -> Tensor:
    if not _is_float(self):
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{_TORCH_NAMES[self._dtype.name]}'"
        )
    d = normalize_dim(dim, len(self._shape))
    if not self._shape:
        return self.clone()
    (r,) = _scan([_widen(self)], d, lambda p, c: [logaddexp(c[0], p[0])])
    return _back(r, self._dtype)


# -- order statistics ------------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(a: Tensor, b: Tensor, w: Any) -> Tensor:
    diff = b - a
    small = w.abs() < 0.5 if isinstance(w, Tensor) else abs(w) < 0.5
    if not isinstance(small, Tensor):
        return a + diff * w if small else b - diff * (1 - w)
    return _aten().where.self(small, a + w * diff, b - diff * (1 - w))  # type: ignore[no-any-return]


def _check_q(self: Tensor, q: Any) -> Tensor:
    if isinstance(q, Tensor):
        if len(q._shape) > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q._dtype is not self._dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        return q.reshape(-1)  # its values are checked after dim (_check_q_values)
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    return _aten().full.default((1,), float(q), dtype=self._dtype, device=self._device)  # type: ignore[no-any-return]


def _check_q_values(qs: Tensor) -> None:
    if qs.numel() and not bool(((qs >= 0) & (qs <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")


def _quantile(
    name: str, self: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, skip_nan: bool
) -> Tensor:
    if self._dtype not in (dt.float32, dt.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    qs = _check_q(self, q)
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    nd = len(self._shape)
    if dim is None:
        x, d = self.reshape(-1), 0
    else:
        d = normalize_dim(dim, nd)
        x = self if nd else self.reshape(1)
    _check_q_values(qs)  # after the dim, as PyTorch
    s = x.sort(dim=d, stable=True).values.movedim(d, -1)
    rows = tuple(s._shape[:-1])
    n = s._shape[-1]
    s2 = s.reshape(-1, n)
    where = _aten().where.self
    if skip_nan:
        last = (~s2.isnan()).sum(-1, keepdim=True).to(self._dtype) - 1
        ranks = qs.unsqueeze(0) * last
        ranks = where(ranks < 0, 0.0, ranks)
    else:
        ranks = (qs * float(n - 1)).unsqueeze(0).expand(s2._shape[0], qs._shape[0])
        ranks = where(s2.narrow(1, n - 1, 1).isnan(), float(n - 1), ranks)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(dt.int64)
    r = s2.gather(1, below)
    if interpolation in ("linear", "midpoint"):
        above = s2.gather(1, ranks.ceil().to(dt.int64))
        r = _lerp(r, above, 0.5 if interpolation == "midpoint" else ranks - below.to(self._dtype))
    r = r.reshape(rows + (qs._shape[0],)).movedim(-1, 0)
    if keepdim:
        r = r.reshape((qs._shape[0],) + (1,) * nd) if dim is None else r.unsqueeze(d + 1)
    return r.squeeze(0) if not isinstance(q, Tensor) or not q._shape else r


def quantile(self: Tensor, q: Any, dim: Any = None, keepdim: bool = False,
             interpolation: str = "linear") -> Tensor:  # fmt: skip
    """The ``q``-quantiles along ``dim`` (all elements if None); NaN rows give NaN."""
    return _quantile("quantile", self, q, dim, keepdim, interpolation, False)


def nanquantile(self: Tensor, q: Any, dim: Any = None, keepdim: bool = False,
                interpolation: str = "linear") -> Tensor:  # fmt: skip
    """``quantile`` ignoring NaN (NaN only where a row is all NaN)."""
    return _quantile("nanquantile", self, q, dim, keepdim, interpolation, True)


def _median_pos(s: Tensor, d: int, skip_nan: bool) -> Tensor:
    """Position along ``d`` of the lower median of ``s`` (sorted along ``d``, NaN last): of
    its non-NaN prefix (``skip_nan``), else the first NaN where there is one (PyTorch's
    ``median`` returns NaN and the index of the first NaN)."""
    n = s._shape[d]
    if not _is_float(s):
        return _aten().full.default((1,) * len(s._shape), (n - 1) // 2,  # type: ignore[no-any-return]
                                    dtype=dt.int64, device=s._device)  # fmt: skip
    nan = s.isnan().sum(d, keepdim=True)
    if skip_nan:
        return _aten().div.Tensor_mode((n - 1 - nan).clamp(0), 2, rounding_mode="floor")  # type: ignore[no-any-return]
    return _aten().where.self(nan > 0, n - nan, (n - 1) // 2)  # type: ignore[no-any-return]


#: what NaN becomes in these dtypes (the empty median), as PyTorch's conversion gives it
_INT_NAN = {"int32": -(2**31), "int64": -(2**63), "bool": True}


def _check_median(self: Tensor, kernel: str = "median_cpu") -> None:
    if self._dtype is dt.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def nanmedian(self: Tensor) -> Tensor:
    """The lower median of the non-NaN elements (NaN if there are none)."""
    return _median_all(self, True)


def median(self: Tensor) -> Tensor:
    """The lower median of all elements; NaN if there is one (then the gradient is shared by
    the NaNs; otherwise by every element equal to the median, as PyTorch's)."""
    return _median_all(self, False)


def _median_all(self: Tensor, skip_nan: bool) -> Tensor:
    flat = self.reshape(-1)
    if flat._shape[0] == 0:  # NaN, or what NaN converts to in an integer dtype (as PyTorch)
        if _is_float(self):
            return flat.sum() * math.nan  # still connected to the input, as PyTorch's
        fill = _INT_NAN.get(self._dtype.name, 0)
        return _aten().full.default((), fill, dtype=self._dtype, device=self._device)  # type: ignore[no-any-return]
    _check_median(self)
    s = flat.sort(dim=0, stable=True).values
    v = s.gather(0, _median_pos(s, 0, skip_nan)).reshape(())
    if not _is_float(self):
        return v  # type: ignore[no-any-return]
    # the value is the gathered element; the gradient is shared evenly by every element
    # equal to it (NaN: every NaN), as PyTorch's
    return _aten()._median_share.default(flat, v.detach())  # type: ignore[no-any-return]


def median_share(self: Tensor, value: Tensor) -> Tensor:
    """``_median_share``: ``value`` itself; its autograd formula (``aten::_median_share`` in
    ``ember/autograd/formulas/shape.py``) shares the gradient evenly among the elements of
    ``self`` equal to ``value`` (every NaN when it is NaN), as PyTorch's median does."""
    return value.clone()


def nanmedian_dim(self: Tensor, dim: int, keepdim: bool = False) -> ValuesIndices:
    return _median_dim(self, dim, keepdim, True)


def median_dim(self: Tensor, dim: int, keepdim: bool = False) -> ValuesIndices:
    """The lower median along ``dim`` and its index; NaN and the index of the first NaN in a
    row that has one (PyTorch's rule); the gradient goes to that index."""
    return _median_dim(self, dim, keepdim, False)


def _median_dim(self: Tensor, dim: int, keepdim: bool, skip_nan: bool) -> ValuesIndices:
    _check_median(self, "median_out")
    d = normalize_dim(dim, len(self._shape))
    if not self._shape:
        zero = _aten().zeros.default((), dtype=dt.int64, device=self._device)
        return ValuesIndices(self.clone(), zero)
    if self._shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    s, i = self.sort(dim=d, stable=True)
    pos = _median_pos(s, d, skip_nan)
    pos = pos.expand(tuple(1 if k == d else n for k, n in enumerate(s._shape)))
    v, idx = s.gather(d, pos), i.gather(d, pos)
    if not keepdim:
        v, idx = v.squeeze(d), idx.squeeze(d)
    return ValuesIndices(v, idx)


def mode(self: Tensor, dim: int = -1, keepdim: bool = False) -> ValuesIndices:
    """The most frequent value along ``dim`` (the smallest among ties) and the index of its
    last occurrence."""
    d = normalize_dim(dim, len(self._shape))
    if not self._shape:
        zero = _aten().zeros.default((), dtype=dt.int64, device=self._device)
        return ValuesIndices(self.clone(), zero)
    n = self._shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    sv, si = self.sort(dim=d, stable=True)
    sv, si = sv.movedim(d, -1), si.movedim(d, -1)
    # a run of equal values starts where the value changes (NaN != NaN: each its own run)
    first = _aten().ones.default(tuple(sv._shape[:-1]) + (1,), dtype=dt.bool_, device=sv._device)
    starts = _aten().cat.default([first, sv.narrow(-1, 1, n - 1) != sv.narrow(-1, 0, n - 1)], -1)
    pos = _arange(n, self)
    run_start = cummax(_aten().where.self(starts, pos, 0), -1).values
    best = (pos - run_start).argmax(-1, keepdim=True)  # first end of a longest run
    v, i = sv.gather(-1, best).movedim(-1, d), si.gather(-1, best).movedim(-1, d)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return ValuesIndices(v, i)


def _scan_(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    write = inplace(fn, name)

    def scan_(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
        if self._dtype is dt.bool_ and dtype is None:
            if self._shape and self.numel():
                raise NotImplementedError(f"\"{name[:-1]}_out_cpu\" not implemented for 'Bool'")
            return self  # PyTorch leaves a 0-dim or empty bool tensor as it is
        return write(self, dim, dtype)

    return scan_


#: ``composite:`` names in ops.yaml -> kernels (merged into ``ember.operators.registration``).
COMPOSITES: dict[str, Callable[..., Any]] = {
    "var": var,
    "std": std,
    "var_mean": var_mean,
    "std_mean": std_mean,
    "norm": norm,
    "norm_scalar": norm_scalar,
    "nansum": nansum,
    "nanmean": nanmean,
    "aminmax": aminmax,
    "cumsum": cumsum,
    "cumprod": cumprod,
    "cumsum_": _scan_(cumsum, "cumsum_"),
    "cumprod_": _scan_(cumprod, "cumprod_"),
    "cummax": cummax,
    "cummin": cummin,
    "logcumsumexp": logcumsumexp,
    "quantile": quantile,
    "nanquantile": nanquantile,
    "nanmedian": nanmedian,
    "median_share": median_share,
    "nanmedian_dim": nanmedian_dim,
    "median": median,
    "median_dim": median_dim,
    "mode": mode,
    "max_all": _extreme_all("max"),
    "min_all": _extreme_all("min"),
    "max_dim": _extreme_dim("max"),
    "min_dim": _extreme_dim("min"),
}
