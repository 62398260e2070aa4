"""OpInfos of the elementwise and reduction composites (``ember/operators/elementwise.py``,
``ember/operators/reduction.py``): one table row each, with a numpy float64 reference.

Operators with several outputs (``cummax``, ``mode``, ``aminmax``, ``var_mean``...)
are checked through a wrapper that returns their values (or stacks them); those rows
are named ``"<overload> (values)"`` and are not offered to gradient checks, which call
the bare operator. Must always hold:
samples cover contiguous, transposed, strided, 0-dim and empty inputs where the
operator accepts them, and NaN/inf where the operator treats them specially.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ember.testing._creation import make_tensor
from ember.testing._opinfo import ALL_DTYPES, OpInfo, SampleInput, category

__all__ = ["math_infos"]

FLOATS = tuple(d for d in ALL_DTYPES if category(d) == "float")
F32_64 = ("float32", "float64")
NUMERIC = tuple(d for d in ALL_DTYPES if d != "bool")
INTS = tuple(d for d in ALL_DTYPES if category(d) == "int")
F = np.float64
_SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.5, -2.5, 0.25]

Build = Callable[[str, str, Any], Iterable[SampleInput]]


def _mk(dtype: str, dev: str, rng: Any, low: Any, high: Any) -> Callable[..., Any]:
    lo, hi = (low, high) if category(dtype) == "float" else (None, None)
    return lambda s, **k: make_tensor(s, dtype, dev, low=lo, high=hi, generator=rng, **k)


def _special(dtype: str, dev: str) -> Any:
    import ember

    return ember.tensor(_SPECIAL, dtype=getattr(ember, dtype)).to(dev)


def _unary(*args: Any, low: Any = None, high: Any = None, special: bool = False,
           kw: dict[str, Any] | None = None) -> Build:  # fmt: skip
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        mk = _mk(dtype, dev, rng, low, high)
        layouts = (
            ("contiguous", mk((3, 4))),
            ("transposed", mk((4, 3)).t()),
            ("strided", mk((3, 4), noncontiguous=True)),
            ("0-dim", mk(())),
            ("empty", mk((0, 4))),
        )
        for desc, t in layouts:
            yield SampleInput((t, *args), dict(kw or {}), desc)
        if special and category(dtype) == "float":
            yield SampleInput((_special(dtype, dev), *args), dict(kw or {}), "nan/inf")

    return build


def _binary(low: Any = None, high: Any = None, low2: Any = None, high2: Any = None,
            scalar: Any = None) -> Build:  # fmt: skip
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        mk = _mk(dtype, dev, rng, low, high)
        mk2 = _mk(dtype, dev, rng, low if low2 is None else low2, high if high2 is None else high2)
        for desc, sa, sb in (
            ("contiguous", (3, 4), (3, 4)),
            ("broadcast", (3, 4), (4,)),
            ("outer broadcast", (3, 1), (1, 4)),
            ("0-dim other", (3, 4), ()),
            ("empty", (0, 4), (4,)),
        ):
            yield SampleInput((mk(sa), mk2(sb)), {}, desc)
        yield SampleInput((mk((4, 3)).t(), mk2((3, 4), noncontiguous=True)), {}, "strided")
        if scalar is not None:
            yield SampleInput((mk((3, 4)), scalar), {}, "Python scalar")

    return build


def _reduce(*extra: Any, low: Any = None, high: Any = None, nan: bool = False,
            dims: tuple[Any, ...] = (None, 1, -1, (0, 2)), kw: dict[str, Any] | None = None,
            empty: bool = True) -> Build:  # fmt: skip
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        mk = _mk(dtype, dev, rng, low, high)

        def with_nan(t: Any) -> Any:
            if nan and category(dtype) == "float" and t.numel() > 3:
                t = t.clone()
                t.view(-1)[::3] = math.nan
            return t

        for d in dims:
            for keep in (False, True):
                yield SampleInput((with_nan(mk((2, 3, 4))), d, *extra, keep), dict(kw or {}))
        t = with_nan(mk((4, 3, 2))).permute(2, 1, 0)
        yield SampleInput((t, 1, *extra, False), dict(kw or {}), "transposed")
        yield SampleInput((mk((3, 4), noncontiguous=True), -1, *extra, False), dict(kw or {}))
        if empty:
            yield SampleInput((mk((0, 4)), 1, *extra, False), dict(kw or {}), "empty")

    return build


def _scan(low: Any = None, high: Any = None) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        mk = _mk(dtype, dev, rng, low, high)
        yield SampleInput((mk((3, 9)), 1), {}, "dim 1")
        yield SampleInput((mk((5, 3)), 0), {}, "dim 0")
        yield SampleInput((mk((4, 5)).t(), -1), {}, "transposed")
        yield SampleInput((mk((3, 8), noncontiguous=True), 1), {}, "strided")
        yield SampleInput((mk(()), 0), {}, "0-dim")
        yield SampleInput((mk((0, 3)), 0), {}, "empty")
        if category(dtype) == "float":
            yield SampleInput((_special(dtype, dev), 0), {}, "nan/inf")

    return build


def _repeats(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    """Few distinct values (ties), for ``mode``."""
    for shape, d, keep in (((3, 7), 1, False), ((5, 4), 0, True), ((2, 3, 6), -1, False)):
        t = make_tensor(shape, "int64", dev, low=-2, high=3, generator=rng).to(_dt(dtype))
        yield SampleInput((t, d, keep), {}, f"{shape} dim {d}")


def _skip_empty_ints(b: Build) -> Build:
    """Without the empty sample for small integer types (what NaN becomes there varies)."""

    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        for smp in b(dtype, dev, rng):
            if smp.desc != "empty" or dtype in ("float16", "bfloat16", "float32", "float64"):
                yield smp

    return build


def _chain(*builds: Build) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        for b in builds:
            yield from b(dtype, dev, rng)

    return build


def _dt(name: str) -> Any:
    import ember

    return getattr(ember, name)


def _quantile_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    import ember

    q = ember.tensor([0.0, 0.25, 0.5, 0.73, 1.0], dtype=_dt(dtype)).to(dev)
    for how in ("linear", "lower", "higher", "midpoint", "nearest"):
        t = make_tensor((3, 6), dtype, dev, generator=rng)
        yield SampleInput((t, q, 1, False), {"interpolation": how}, how)
    t = make_tensor((2, 5), dtype, dev, generator=rng)
    t.view(-1)[::4] = math.nan
    yield SampleInput((t, q, 1, True), {}, "nan rows, keepdim")
    yield SampleInput((make_tensor((4, 3), dtype, dev, generator=rng).t(), q, None, False), {})


def _isclose_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    a = make_tensor((4, 5), dtype, dev, generator=rng)
    b = a.clone()
    if category(dtype) == "float":
        b.view(-1)[::2] = b.view(-1)[::2] * 1.000001
        b.view(-1)[1::3] = b.view(-1)[1::3] + 0.5
    elif category(dtype) == "int":
        b.view(-1)[::3] = b.view(-1)[::3] + 1
    yield SampleInput((a, b), {}, "near and far")
    yield SampleInput((a, b), {"rtol": 0.1, "atol": 0.0}, "rtol 0.1")


# -- references ------------------------------------------------------------------------------------
def _f(fn: Callable[..., Any]) -> Callable[..., Any]:
    def ref(*args: Any, **kw: Any) -> Any:
        return fn(*(np.asarray(a, F) if isinstance(a, np.ndarray) else a for a in args), **kw)

    return ref


def _axis(dim: Any, nd: int) -> Any:
    if dim is None or (isinstance(dim, (tuple, list)) and not dim) or nd == 0:
        return None
    return tuple(d % nd for d in ((dim,) if isinstance(dim, int) else dim))


def _red(fn: Callable[..., Any], floats: bool = False) -> Callable[..., Any]:
    def ref(a: np.ndarray, dim: Any = None, keepdim: bool = False, **_: Any) -> Any:
        x = np.asarray(a, F) if floats else a
        return fn(x, axis=_axis(dim, a.ndim), keepdims=keepdim)

    return ref


def _logit(a: np.ndarray, eps: Any = None) -> np.ndarray:
    x = np.asarray(a, F)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _xlogy(a: np.ndarray, b: Any) -> np.ndarray:
    a, b = np.asarray(a, F), np.asarray(b, F)
    return np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log(np.where(a == 0, 1.0, b)))


def _lower_median(row: np.ndarray) -> Any:
    v = np.sort(row[~np.isnan(row)]) if row.dtype.kind == "f" else np.sort(row)
    return v[(len(v) - 1) // 2] if len(v) else np.nan


def _along(fn: Callable[[np.ndarray], Any]) -> Callable[..., Any]:
    """A reference applying ``fn`` to each 1-D slice along ``dim``."""

    def ref(a: np.ndarray, dim: int = -1, keepdim: bool = False) -> Any:
        if a.ndim == 0:
            return a
        r = np.apply_along_axis(fn, dim, a)
        return np.expand_dims(r, dim) if keepdim else r

    return ref


def _mode_row(row: np.ndarray) -> Any:
    u, c = np.unique(row, return_counts=True)
    return u[np.argmax(c)]


def _cum(pick: Callable[..., Any]) -> Callable[..., Any]:
    def ref(a: np.ndarray, dim: int) -> Any:
        if a.ndim == 0 or a.size == 0:
            return a
        x = np.moveaxis(np.asarray(a, F), dim, -1).copy()
        for i in range(1, x.shape[-1]):  # references may loop; NaN propagates, as in PyTorch
            prev, cur = x[..., i - 1], x[..., i]
            x[..., i] = np.where(np.isnan(prev) | np.isnan(cur), np.nan, pick(prev, cur))
        return np.moveaxis(x, -1, dim)

    return ref


def _logcumsumexp(a: np.ndarray, dim: int) -> Any:
    return a if a.ndim == 0 else np.logaddexp.accumulate(np.asarray(a, F), axis=dim)


def _quantile(nan_aware: bool) -> Callable[..., Any]:
    """PyTorch's rule in float64: rank ``q * (count - 1)`` into the sorted row (NaN last),
    then pick (lower/higher/nearest: half to even) or interpolate; NaN rows give NaN unless
    ``nan_aware``, where only all-NaN rows do."""

    def ref(a: np.ndarray, q: Any, dim: Any = None, keepdim: bool = False,
            interpolation: str = "linear") -> Any:  # fmt: skip
        x = np.asarray(a, F)
        x = x.reshape(-1) if dim is None else np.moveaxis(x, dim, -1)
        s = np.sort(x, axis=-1)
        n = s.shape[-1]
        qs = np.atleast_1d(np.asarray(q, F))
        full = np.full(s.shape[:-1] + (1,), n)
        count = (~np.isnan(s)).sum(-1, keepdims=True) if nan_aware else full
        ranks = np.maximum(qs * (count - 1), 0)
        if not nan_aware:
            ranks = np.where(np.isnan(s[..., -1:]), n - 1, ranks)
        pick: dict[str, Callable[[Any], Any]] = {
            "lower": np.floor, "higher": np.ceil, "nearest": np.round
        }  # fmt: skip
        if interpolation in pick:
            ranks = pick[interpolation](ranks)
        lo = np.take_along_axis(s, np.floor(ranks).astype(np.int64), -1)
        hi = np.take_along_axis(s, np.ceil(ranks).astype(np.int64), -1)
        w = 0.5 if interpolation == "midpoint" else ranks - np.floor(ranks)
        r = np.moveaxis(lo + (hi - lo) * w, -1, 0)
        if keepdim:
            r = r.reshape((len(qs),) + (1,) * a.ndim) if dim is None else np.expand_dims(r, dim + 1)
        return r if np.ndim(q) else r[0]

    return ref


def _var_mean(std: bool) -> Callable[..., Any]:
    def ref(a: np.ndarray, dim: Any = None, keepdim: bool = False) -> Any:
        ax = _axis(dim, a.ndim)
        v = np.var(np.asarray(a, F), axis=ax, ddof=1, keepdims=keepdim)
        return np.stack([np.sqrt(v) if std else v, np.mean(a, axis=ax, keepdims=keepdim)])

    return ref


def _aminmax(a: np.ndarray, dim: Any = None, keepdim: bool = False) -> Any:
    ax = None if dim is None or a.ndim == 0 else dim
    return np.stack([np.amin(a, axis=ax, keepdims=keepdim), np.amax(a, axis=ax, keepdims=keepdim)])


# -- wrappers for several outputs ------------------------------------------------------------------
def _first(name: str) -> Callable[..., Any]:
    def call(*args: Any, **kw: Any) -> Any:
        from ember.library import lookup

        return lookup(name)(*args, **kw)[0]

    return call


def _stacked(name: str, *fields: str) -> Callable[..., Any]:
    def call(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
        import ember

        if name == "aminmax":
            r = ember.aminmax(self, dim=dim, keepdim=keepdim)
        else:
            r = getattr(ember, name)(self, dim, keepdim=keepdim)
        return ember.stack([r[0], r[1]])

    return call


#: (overload, dtypes, samples, reference, wrapper or None)
ROWS: list[tuple[str, tuple[str, ...], Build, Any, Any]] = [
    (
        "logit",
        ALL_DTYPES,
        _chain(_unary(low=0.05, high=0.95), _unary(0.2, low=0.0, high=1.0)),
        _logit,
        None,
    ),  # fmt: skip
    (
        "nan_to_num",
        ALL_DTYPES,
        _unary(1.5, 100.0, -100.0, special=True),
        lambda a, n, p, m: np.nan_to_num(a, nan=n, posinf=p, neginf=m),
        None,
    ),  # fmt: skip
    ("sinc", ALL_DTYPES, _unary(low=-3, high=3, special=True), _f(np.sinc), None),
    ("sgn", ALL_DTYPES, _unary(), lambda a: np.sign(np.asarray(a, F)), None),
    ("positive", NUMERIC, _unary(), lambda a: a, None),
    ("deg2rad", ALL_DTYPES, _unary(), _f(np.deg2rad), None),
    ("rad2deg", ALL_DTYPES, _unary(), _f(np.rad2deg), None),
    ("signbit", ALL_DTYPES, _unary(special=True), np.signbit, None),
    ("isposinf", ALL_DTYPES, _unary(special=True), np.isposinf, None),
    ("isneginf", ALL_DTYPES, _unary(special=True), np.isneginf, None),
    ("isreal", ALL_DTYPES, _unary(), lambda a: np.ones(np.shape(a), bool), None),
    (
        "round.decimals",
        FLOATS,
        _unary(low=-50, high=50, kw={"decimals": 1}),
        lambda a, decimals: np.round(a, decimals),
        None,
    ),  # fmt: skip
    (
        "float_power.Tensor_Tensor",
        ALL_DTYPES,
        _binary(0.5, 3.0, -2.0, 2.0),
        lambda a, b: np.power(np.asarray(a, F), np.asarray(b, F)),
        None,
    ),  # fmt: skip
    ("xlogy.Tensor", ALL_DTYPES, _binary(0.0, 3.0, 0.1, 5.0, scalar=2.5), _xlogy, None),
    ("logaddexp", FLOATS, _binary(), _f(np.logaddexp), None),
    ("logaddexp2", FLOATS, _binary(), _f(np.logaddexp2), None),
    ("heaviside", ALL_DTYPES, _binary(), lambda a, b: np.where(a == 0, b, a > 0), None),
    ("lcm", INTS, _binary(), np.lcm, None),
    ("fmax", ALL_DTYPES, _binary(), np.fmax, None),
    ("fmin", ALL_DTYPES, _binary(), np.fmin, None),
    ("ldexp.Tensor", FLOATS, _binary(-3.0, 3.0, -4.0, 4.0), lambda a, b: a * 2.0**b, None),
    ("clamp_min", NUMERIC, _unary(0.5), lambda a, m: np.maximum(a, m), None),
    ("clamp_max", NUMERIC, _unary(2), lambda a, m: np.minimum(a, m), None),
    (
        "isclose",
        ALL_DTYPES,
        _isclose_samples,
        lambda a, b, rtol=1e-5, atol=1e-8: np.isclose(a, b, rtol, atol),
        None,
    ),  # fmt: skip
    ("nansum", ALL_DTYPES, _reduce(nan=True), _red(np.nansum), None),
    ("nanmean", FLOATS, _reduce(nan=True), _red(np.nanmean, True), None),
    ("logcumsumexp", FLOATS, _scan(), _logcumsumexp, None),
    ("cummax", ALL_DTYPES, _scan(), _cum(np.maximum), _first("cummax")),
    ("cummin", ALL_DTYPES, _scan(), _cum(np.minimum), _first("cummin")),
    ("quantile", F32_64, _quantile_samples, _quantile(False), None),
    ("nanquantile", F32_64, _quantile_samples, _quantile(True), None),
    (
        "nanmedian",
        NUMERIC,
        _skip_empty_ints(_unary(special=True)),
        lambda a: np.asarray(_lower_median(np.asarray(a).reshape(-1))),
        None,
    ),  # fmt: skip
    (
        "nanmedian.dim",
        NUMERIC,
        _reduce(nan=True, dims=(1, -1), empty=False),
        _along(_lower_median),
        _first("nanmedian.dim"),
    ),  # fmt: skip
    ("mode", ALL_DTYPES, _repeats, _along(_mode_row), _first("mode")),
    (
        "var_mean.correction",
        F32_64,
        _reduce(empty=False),
        _var_mean(False),
        _stacked("var_mean"),
    ),  # fmt: skip
    (
        "std_mean.correction",
        F32_64,
        _reduce(empty=False),
        _var_mean(True),
        _stacked("std_mean"),
    ),  # fmt: skip
    (
        "aminmax",
        ALL_DTYPES,
        _reduce(dims=(None, 1, -1), empty=False),
        _aminmax,
        _stacked("aminmax"),
    ),  # fmt: skip
]


def _gen(build: Build) -> Callable[[OpInfo, str, str, Any], Iterable[SampleInput]]:
    return lambda info, dtype, dev, rng: build(dtype, dev, rng)


def math_infos() -> list[OpInfo]:
    """The OpInfos of the table above (flags read from the operators' ops.yaml entries)."""
    from ember.library import lookup
    from ember.testing.opdb import _differentiable

    infos = []
    for name, dtypes, build, ref, wrapper in ROWS:
        op = lookup(name)
        infos.append(
            OpInfo(
                # a wrapped row is not the operator's own call: named apart, so suites that
                # map names to torch.ops.aten overloads leave it out
                name=name if wrapper is None else f"{name} (values)",
                op=wrapper or op,
                ref=ref,
                dtypes=dtypes,
                sample_inputs=_gen(build),
                differentiable=wrapper is None and _differentiable(op),
                primitive=False,
                kind="composite",
            )
        )
    return infos
