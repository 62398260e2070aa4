"""OpInfos written out by hand: copy_, fill_, random, the matmul family, factories, views.

These do not follow one structured family's calling convention, so each gets a
table row: (overload name, dtypes, sample builder, reference or validator).
Factories and views are Composite in the core; a device runs them once it has an
allocator, ``fill_``, ``copy_`` (and ``bmm`` for matmul, the random kernels for
rand/randn/randint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ember.testing._creation import make_tensor
from ember.testing._opinfo import ALL_DTYPES, OpInfo, SampleInput, category

__all__ = ["composite_infos"]

FLOATS = tuple(d for d in ALL_DTYPES if category(d) == "float")
NUMERIC = tuple(d for d in ALL_DTYPES if d != "bool")
_FILL = {"bool": True, "int": 3, "float": 2.5}

Build = Callable[[str, str, Any], Iterable[SampleInput]]


def _gen(build: Build) -> Callable[[OpInfo, str, str, Any], Iterable[SampleInput]]:
    return lambda info, dtype, dev, rng: build(dtype, dev, rng)


def _empty(shape: tuple[int, ...], dtype: str, dev: str) -> Any:
    import ember

    return ember.empty(shape, dtype=getattr(ember, dtype), device=dev)


def _layouts(dtype: str, dev: str, rng: Any, low: Any = None, high: Any = None) -> list[Any]:
    """Tensors in each layout: contiguous, transposed, strided, 0-dim, empty."""
    mk = lambda s, **k: make_tensor(s, dtype, dev, low=low, high=high, generator=rng, **k)  # noqa: E731
    return [mk((3, 4)), mk((4, 3)).t(), mk((3, 4), noncontiguous=True), mk(()), mk((0, 4))]


def _copy_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    for dst in sorted({dtype, "float32", "float64", "int64", "bool"}):
        yield SampleInput(
            (_empty((3, 4), dst, dev), make_tensor((3, 4), dtype, dev, generator=rng))
        )
        src = make_tensor((4,), dtype, dev, generator=rng)
        yield SampleInput((_empty((4, 3), dst, dev).t(), src), {}, f"to {dst}, broadcast")
    src = make_tensor((3, 4), dtype, dev, noncontiguous=True, generator=rng)
    yield SampleInput((_empty((3, 4), dtype, dev), src), {}, "strided src")
    yield SampleInput(
        (_empty((), dtype, dev), make_tensor((), dtype, dev, generator=rng)), {}, "0-dim"
    )
    yield SampleInput((_empty((0, 2), dtype, dev), make_tensor((0, 2), dtype, dev)), {}, "empty")


def _fill_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    for t in _layouts(dtype, dev, rng):
        yield SampleInput((t, _FILL[category(dtype)]), {}, f"shape {tuple(t.shape)}")


def _random_samples(*params: Any) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        yield SampleInput((_empty((40, 50), dtype, dev), *params), {}, "contiguous")
        yield SampleInput((_empty((50, 40), dtype, dev).t(), *params), {}, "transposed")
        yield SampleInput((_empty((0, 3), dtype, dev), *params), {}, "empty")

    return build


def _check_range(lo: float, hi: float, mean: float, spread: float) -> Any:
    def validate(got: np.ndarray, s: SampleInput) -> None:
        if got.size == 0:
            return
        assert got.min() >= lo and got.max() <= hi, f"values outside [{lo}, {hi}]"
        assert abs(got.mean() - mean) < spread, f"mean {got.mean()} is far from {mean}"

    return validate


def _check_normal(mean: float, std: float) -> Any:
    def validate(got: np.ndarray, s: SampleInput) -> None:
        if got.size:
            assert abs(got.mean() - mean) < 0.1 * std + 0.02, f"mean {got.mean()} != {mean}"
            assert abs(got.std() - std) < 0.1 * std + 0.02, f"std {got.std()} != {std}"

    return validate


def _pairs(*shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        for sa, sb in shapes:
            a = make_tensor(sa, dtype, dev, low=-3, high=4, generator=rng)
            b = make_tensor(sb, dtype, dev, low=-3, high=4, generator=rng)
            yield SampleInput((a, b), {}, f"{sa} @ {sb}")
        if len(shapes[0][0]) == 2:
            a = make_tensor(shapes[0][0][::-1], dtype, dev, low=-3, high=4, generator=rng).t()
            b = make_tensor(shapes[0][1], dtype, dev, low=-3, high=4, generator=rng)
            yield SampleInput((a, b), {}, "transposed")

    return build


def _factory(*calls: tuple[tuple[Any, ...], dict[str, Any]]) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        import ember

        for args, kw in calls:
            kwargs = {**kw, "dtype": getattr(ember, dtype), "device": dev}
            yield SampleInput(args, kwargs, f"{args}")

    return build


def _like(*extra: Any) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        for t in _layouts(dtype, dev, rng):
            yield SampleInput((t, *extra), {}, f"shape {tuple(t.shape)}")

    return build


def _view(shape: tuple[int, ...], *args: Any, strided: bool = True) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        yield SampleInput((make_tensor(shape, dtype, dev, generator=rng), *args), {}, "contiguous")
        if strided:
            t = make_tensor(shape, dtype, dev, noncontiguous=True, generator=rng)
            yield SampleInput((t, *args), {}, "strided")

    return build


def _as_strided(a: np.ndarray, size: Any, stride: Any, offset: int = 0) -> np.ndarray:
    idx = offset + sum(
        np.arange(n).reshape((-1,) + (1,) * (len(size) - i - 1)) * st
        for i, (n, st) in enumerate(zip(size, stride))
    )
    return a.reshape(-1)[idx]


_same = lambda a, *_, **__: a  # noqa: E731
_shape_only = lambda got, s: None  # noqa: E731

#: (name, dtypes, builder, reference, validator)
ROWS: list[tuple[str, tuple[str, ...], Build, Any, Any]] = [
    (
        "copy_",
        ALL_DTYPES,
        _copy_samples,
        lambda dst, src, *_: np.broadcast_to(src, dst.shape),
        None,
    ),
    ("fill_.Scalar", ALL_DTYPES, _fill_samples, lambda t, v: np.full(t.shape, v), None),
    ("zero_", ALL_DTYPES, _like(), lambda t: np.zeros(t.shape), None),
    ("uniform_", FLOATS, _random_samples(-1.0, 2.0), None, _check_range(-1, 2, 0.5, 0.15)),
    ("normal_", FLOATS, _random_samples(3.0, 0.5), None, _check_normal(3.0, 0.5)),
    ("random_.from", NUMERIC, _random_samples(1, 9), None, _check_range(1, 8, 4.5, 0.5)),
    (
        "matmul",
        NUMERIC,
        _pairs(
            ((3, 4), (4, 5)),
            ((4,), (4,)),
            ((2, 3, 4), (4, 2)),
            ((2, 1, 3, 4), (3, 4, 2)),
            ((0, 4), (4, 3)),
        ),
        np.matmul,
        None,
    ),
    ("mm", NUMERIC, _pairs(((3, 4), (4, 5)), ((3, 0), (0, 2))), np.matmul, None),
    ("mv", NUMERIC, _pairs(((3, 4), (4,)), ((0, 4), (4,))), np.matmul, None),
    ("dot", NUMERIC, _pairs(((4,), (4,)), ((0,), (0,))), np.dot, None),
    ("rsub.Scalar", NUMERIC, _like(2), lambda a, s: s - a, None),
    (
        "zeros",
        ALL_DTYPES,
        _factory((((2, 3),), {}), (((0,),), {})),
        lambda s, **_: np.zeros(s),
        None,
    ),
    ("ones", ALL_DTYPES, _factory((((2, 3),), {}), (((),), {})), lambda s, **_: np.ones(s), None),
    ("full", NUMERIC, _factory((((2, 3), 3), {})), lambda s, v, **_: np.full(s, v), None),
    ("empty.memory_format", ALL_DTYPES, _factory((((2, 3),), {})), None, _shape_only),
    ("empty_strided", ALL_DTYPES, _factory((((2, 3), (1, 2)), {})), None, _shape_only),
    ("zeros_like", ALL_DTYPES, _like(), lambda t, **_: np.zeros(t.shape), None),
    ("ones_like", ALL_DTYPES, _like(), lambda t, **_: np.ones(t.shape), None),
    ("full_like", NUMERIC, _like(3), lambda t, v, **_: np.full(t.shape, v), None),
    ("empty_like", ALL_DTYPES, _like(), None, _shape_only),
    ("rand_like", FLOATS, _like(), None, lambda g, s: _check_range(0, 1, 0.5, 0.5)(g, s)),
    ("randn_like", FLOATS, _like(), None, _shape_only),
    (
        "arange.start_step",
        NUMERIC,
        _factory(((1, 9, 2), {}), ((0, 0, 1), {})),
        lambda a, b, st, **_: np.arange(a, b, st),
        None,
    ),
    (
        "linspace",
        FLOATS,
        _factory(((-2, 3, 7), {}), ((0, 1, 1), {})),
        lambda a, b, n, **_: np.linspace(a, b, n),
        None,
    ),
    (
        "eye",
        ALL_DTYPES,
        _factory(((3,), {}), ((2, 4), {}), ((0,), {})),
        lambda n, m=None, **_: np.eye(n, m),
        None,
    ),
    ("rand", FLOATS, _factory((((40, 50),), {})), None, _check_range(0, 1, 0.5, 0.1)),
    ("randn", FLOATS, _factory((((40, 50),), {})), None, _check_normal(0.0, 1.0)),
    ("randint.low", NUMERIC, _factory(((1, 9, (40, 50)), {})), None, _check_range(1, 8, 4.5, 0.5)),
    ("clone", ALL_DTYPES, _like(), _same, None),
    ("contiguous", ALL_DTYPES, _like(), _same, None),
    ("_to_copy", ALL_DTYPES, _like(), _same, None),
    ("view", ALL_DTYPES, _view((3, 4), (2, 6), strided=False), lambda a, s: a.reshape(s), None),
    ("reshape", ALL_DTYPES, _view((3, 4), (2, 6)), lambda a, s: a.reshape(s), None),
    ("as_strided", ALL_DTYPES, _view((3, 4), (2, 2), (1, 4), 1, strided=False), _as_strided, None),
    ("expand", ALL_DTYPES, _view((3, 1), (2, 3, 4)), lambda a, s: np.broadcast_to(a, s), None),
    ("permute", ALL_DTYPES, _view((2, 3, 4), (2, 0, 1)), lambda a, p: a.transpose(p), None),
    ("transpose.int", ALL_DTYPES, _view((3, 4), 0, 1), np.swapaxes, None),
    ("t", ALL_DTYPES, _view((3, 4)), np.transpose, None),
    ("squeeze", ALL_DTYPES, _view((3, 1, 4)), np.squeeze, None),
    ("squeeze.dim", ALL_DTYPES, _view((3, 1, 4), 1), np.squeeze, None),
    (
        "squeeze.dims",
        ALL_DTYPES,
        _view((1, 3, 1), [0, 2]),
        lambda a, d: np.squeeze(a, tuple(d)),
        None,
    ),
    ("unsqueeze", ALL_DTYPES, _view((3, 4), 1), np.expand_dims, None),
    (
        "flatten.using_ints",
        ALL_DTYPES,
        _view((2, 3, 4), 1, 2),
        lambda a, s, e: a.reshape(2, 12),
        None,
    ),
    (
        "unflatten.int",
        ALL_DTYPES,
        _view((3, 4), 1, [2, 2]),
        lambda a, d, s: a.reshape(3, 2, 2),
        None,
    ),
    ("narrow", ALL_DTYPES, _view((3, 4), 1, 1, 2), lambda a, d, s, n: a[:, s : s + n], None),
    ("select.int", ALL_DTYPES, _view((3, 4), 1, 2), lambda a, d, i: np.take(a, i, axis=d), None),
    (
        "slice.Tensor",
        ALL_DTYPES,
        _view((3, 6), 1, 1, None, 2),
        lambda a, d, s, e, st: a[:, s:e:st],
        None,
    ),
    ("diagonal", ALL_DTYPES, _view((3, 4), 1, 0, 1), np.diagonal, None),
    ("alias", ALL_DTYPES, _view((3, 4)), _same, None),
    ("detach", ALL_DTYPES, _view((3, 4)), _same, None),
]


def _lists(*args: Any) -> Build:
    """A list of two tensors (plus ``args``): contiguous and transposed."""

    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        a = make_tensor((3, 4), dtype, dev, generator=rng)
        b = make_tensor((4, 3), dtype, dev, generator=rng).t()
        yield SampleInput(([a, b], *args), {}, "contiguous + transposed")

    return build


def _on(shape: tuple[int, ...], *args: Any, low: Any = None, high: Any = None) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        mk = lambda s, **k: make_tensor(s, dtype, dev, low=low, high=high, generator=rng, **k)  # noqa: E731
        yield SampleInput((mk(shape), *args), {}, "contiguous")
        yield SampleInput((mk(shape, noncontiguous=True), *args), {}, "strided")

    return build


def _np_norm(a: np.ndarray, p: Any, dim: Any, keepdim: bool = False) -> np.ndarray:
    return np.sum(np.abs(a) ** p, axis=tuple(dim), keepdims=keepdim) ** (1.0 / p)


def _np_softmax(a: np.ndarray, dim: int, dtype: Any = None) -> np.ndarray:
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


#: Composites that round after every step: half-precision results drift past the tolerance.
_F32_64 = ("float32", "float64")
_WIDE = tuple(d for d in NUMERIC if d not in ("float16", "bfloat16"))

ROWS += [
    ("cat", ALL_DTYPES, _lists(1), lambda ts, d: np.concatenate(ts, d), None),
    ("stack", ALL_DTYPES, _lists(1), lambda ts, d: np.stack(ts, d), None),
    ("flip", ALL_DTYPES, _on((3, 4), [0, 1]), lambda a, d: np.flip(a, tuple(d)), None),
    ("roll", ALL_DTYPES, _on((3, 4), [1, -1], [0, 1]), lambda a, s, d: np.roll(a, s, d), None),
    ("repeat", ALL_DTYPES, _on((3, 4), [2, 1, 2]), lambda a, r: np.tile(a, r), None),
    ("tile", ALL_DTYPES, _on((3, 4), [2]), lambda a, r: np.tile(a, r), None),
    ("tril", ALL_DTYPES, _on((3, 4), 1), lambda a, k: np.tril(a, k), None),
    ("triu", ALL_DTYPES, _on((3, 4), -1), lambda a, k: np.triu(a, k), None),
    ("clamp", NUMERIC, _on((3, 4), 1, 3), lambda a, lo, hi: np.clip(a, lo, hi), None),
    ("softmax.int", FLOATS, _on((3, 4), 1), _np_softmax, None),
    (
        "log_softmax.int",
        _F32_64,
        _on((3, 4), 0),
        lambda a, d, dtype=None: np.log(_np_softmax(a, d)),
        None,
    ),
    (
        "logsumexp",
        FLOATS,
        _on((3, 4), [1]),
        lambda a, d, k=False: np.log(np.exp(a).sum(axis=tuple(d))),
        None,
    ),
    ("var.correction", _F32_64, _on((3, 4), [1]), lambda a, d: np.var(a, tuple(d), ddof=1), None),
    ("std.correction", _F32_64, _on((3, 4), [0]), lambda a, d: np.std(a, tuple(d), ddof=1), None),
    ("norm.ScalarOpt_dim", FLOATS, _on((3, 4), 3, [1]), _np_norm, None),
    ("outer", NUMERIC, _pairs(((3,), (4,))), np.outer, None),
    ("cumsum", _WIDE, _on((3, 9), 1, low=-3, high=4), lambda a, d: np.cumsum(a, d), None),
    ("cumprod", _F32_64, _on((3, 5), 1, low=-2, high=2), lambda a, d: np.cumprod(a, d), None),
]

_KIND = {
    "copy_": "copy",
    "fill_.Scalar": "fill",
    "uniform_": "random",
    "normal_": "random",
    "random_.from": "random",
}
_VIEWS = {
    "view",
    "reshape",
    "as_strided",
    "expand",
    "permute",
    "transpose.int",
    "t",
    "squeeze",
    "squeeze.dim",
    "squeeze.dims",
    "unsqueeze",
    "flatten.using_ints",
    "unflatten.int",
    "narrow",
    "select.int",
    "slice.Tensor",
    "diagonal",
    "alias",
    "detach",
}


def composite_infos() -> list[OpInfo]:
    """The hand-written OpInfos, with flags read from the operators' ops.yaml entries."""
    from ember.library import lookup
    from ember.testing.opdb import _differentiable

    infos = []
    for name, dtypes, build, ref, validate in ROWS:
        op = lookup(name)
        kind = _KIND.get(name) or ("view" if name in _VIEWS else "composite")
        if kind == "composite" and "like" not in name and op.schema.arguments[0].name != "self":
            kind = "factory"
        infos.append(
            OpInfo(
                name=name,
                op=op,
                ref=ref,
                dtypes=dtypes,
                sample_inputs=_gen(build),
                differentiable=_differentiable(op),
                primitive=bool(op.entry is not None and op.entry.get("primitive")),
                kind=kind,
                validate=validate,
                inplace=False,
            )
        )
    return infos
