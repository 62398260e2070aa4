"""OpInfos for the indexing and nn primitives (gather ... native_batch_norm).

Each row: (overload, dtypes, sample builder, numpy reference, which output). For
operators with several outputs the row names the output compared (0: values;
the indices of sort/max_pool2d are compared by their own rows' references).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ember.testing._creation import make_tensor
from ember.testing._opinfo import ALL_DTYPES, OpInfo, SampleInput, category

__all__ = ["nn_infos"]

FLOATS = tuple(d for d in ALL_DTYPES if category(d) == "float")
NUMERIC = tuple(d for d in ALL_DTYPES if d != "bool")


def _idx(shape: tuple[int, ...], high: int, dev: str, rng: Any) -> Any:
    import ember

    return ember.tensor(rng.integers(0, high, size=shape), dtype=ember.int64).to(dev)


def _gather_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 5), dtype, dev, generator=rng)
    yield SampleInput((x, 1, _idx((4, 3), 5, dev, rng)), {}, "dim 1")
    yield SampleInput((x.t(), 0, _idx((2, 4), 5, dev, rng)), {}, "transposed")
    yield SampleInput((x, 0, _idx((0, 5), 4, dev, rng)), {}, "empty index")


def _gather_ref(a: np.ndarray, dim: int, idx: np.ndarray) -> np.ndarray:
    sl = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, dim)


def _scatter_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    base = make_tensor((5, 4), dtype, dev, generator=rng)
    src = make_tensor((6, 4), dtype, dev, generator=rng)
    for red in ("sum", "amax", "amin", "mean") if dtype != "bool" else ():
        yield SampleInput((base.clone(), 0, _idx((6, 4), 5, dev, rng), src, red), {}, red)


def _scatter_ref(a: np.ndarray, dim: int, idx: np.ndarray, src: np.ndarray, red: str) -> Any:
    out = a.astype(np.float64).copy()
    coords: list[Any] = list(np.indices(idx.shape))
    coords[dim] = idx
    tgt = tuple(coords)
    s = src[tuple(slice(0, n) for n in idx.shape)].astype(np.float64)
    if red in ("sum", "mean"):
        cnt = np.ones(out.shape)
        np.add.at(out, tgt, s)
        np.add.at(cnt, tgt, 1)
        if red == "mean":
            out = out / cnt
            if np.issubdtype(a.dtype, np.integer):
                out = np.floor(out)
    elif red == "amax":
        np.maximum.at(out, tgt, s)
    else:
        np.minimum.at(out, tgt, s)
    return out


def _index_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 5, 3), dtype, dev, generator=rng)
    yield SampleInput((x, [_idx((6,), 4, dev, rng)]), {}, "rows")
    yield SampleInput((x, [None, _idx((2, 2), 5, dev, rng)]), {}, "middle dim")
    yield SampleInput((x.transpose(0, 1), [_idx((3,), 5, dev, rng), _idx((3,), 4, dev, rng)]), {},
                      "two indices, strided")  # fmt: skip


def _index_ref(a: np.ndarray, idx: list[Any]) -> np.ndarray:
    return a[tuple(slice(None) if i is None else i for i in idx)]


def _index_put_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 3), dtype, dev, generator=rng)
    v = make_tensor((5, 3), dtype, dev, generator=rng)
    yield SampleInput((x.clone(), [_idx((5,), 4, dev, rng)], v, True), {}, "accumulate")
    u = make_tensor((2, 3), dtype, dev, generator=rng)
    import ember

    yield SampleInput((x.clone(), [ember.tensor([3, 0]).to(dev)], u, False), {}, "assign")


def _index_put_ref(a: np.ndarray, idx: list[Any], v: np.ndarray, acc: bool) -> np.ndarray:
    out = a.copy()
    if acc:
        if out.dtype == bool:
            np.logical_or.at(out, tuple(idx), v)
        else:
            np.add.at(out, tuple(idx), v)
    else:
        out[tuple(idx)] = v
    return out


def _nonzero_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    for shape in ((3, 4), (5,), (0, 3), ()):
        yield SampleInput((make_tensor(shape, dtype, dev, generator=rng, low=-1, high=2),), {},
                          f"shape {shape}")  # fmt: skip


def _sort_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 6), dtype, dev, generator=rng)
    yield SampleInput((x,), {"stable": True, "dim": 1}, "last dim")
    yield SampleInput((x.t(),), {"stable": True, "dim": 0, "descending": True}, "descending")


def _sort_ref(a: np.ndarray, stable: bool, dim: int, descending: bool = False) -> np.ndarray:
    s = np.sort(a, axis=dim, kind="stable")
    return np.flip(s, dim) if descending else s


def _nchw(dtype: str, dev: str, rng: Any) -> Any:
    return make_tensor((2, 3, 7, 6), dtype, dev, generator=rng)


def _im2col_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = _nchw(dtype, dev, rng)
    yield SampleInput((x, (3, 3), (1, 1), (1, 1), (1, 1)), {}, "3x3 pad 1")
    yield SampleInput((x, (2, 3), (2, 1), (0, 1), (2, 1)), {}, "dilated, strided")


def _windows(a: np.ndarray, k: Any, d: Any, p: Any, s: Any) -> np.ndarray:
    n, c, h, w = a.shape
    xp = np.pad(a, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.empty((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            ys = slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
            xs = slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
            cols[:, :, i, j] = xp[:, :, ys, xs]
    return cols


def _im2col_ref(a: np.ndarray, k: Any, d: Any, p: Any, s: Any) -> np.ndarray:
    cols = _windows(a, k, d, p, s)
    n, c = a.shape[:2]
    return cols.reshape(n, c * k[0] * k[1], -1)


def _col2im_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    cols = make_tensor((2, 3 * 4, 20), dtype, dev, generator=rng)
    yield SampleInput((cols, (5, 6), (2, 2), (1, 1), (0, 0), (1, 1)), {}, "2x2")


def _col2im_ref(cols: np.ndarray, osz: Any, k: Any, d: Any, p: Any, s: Any) -> np.ndarray:
    n = cols.shape[0]
    c = cols.shape[1] // (k[0] * k[1])
    h, w = osz
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cc = cols.reshape(n, c, k[0], k[1], oh, ow)
    xp = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]))
    for i in range(k[0]):
        for j in range(k[1]):
            ys = slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
            xs = slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
            xp[:, :, ys, xs] += cc[:, :, i, j]
    return xp[:, :, p[0] : p[0] + h, p[1] : p[1] + w]


def _pool_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = _nchw(dtype, dev, rng)
    yield SampleInput((x, (2, 2)), {}, "2x2")
    yield SampleInput((x, (3, 3), (2, 2), (1, 1)), {}, "3x3 stride 2 pad 1")


def _pool_ref(a: np.ndarray, k: Any, s: Any = (), p: Any = (0, 0), d: Any = (1, 1)) -> np.ndarray:
    s = s or k
    p = (p, p) if isinstance(p, int) else p
    xp = np.pad(a.astype(np.float64), ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])),
                constant_values=-np.inf)  # fmt: skip
    cols = _windows(xp, k, d, (0, 0), s)
    return cols.max(axis=(2, 3))


def _softmax_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 5), dtype, dev, generator=rng, low=-8, high=8)
    yield SampleInput((x, 1, False), {}, "last dim")
    yield SampleInput((x.t(), 0, False), {}, "transposed, dim 0")
    yield SampleInput((make_tensor((2, 3, 4), dtype, dev, generator=rng), 1, False), {}, "middle")


def _softmax_ref(a: np.ndarray, dim: int, _h: bool) -> np.ndarray:
    e = np.exp(a - a.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


def _log_softmax_ref(a: np.ndarray, dim: int, _h: bool) -> np.ndarray:
    z = a - a.max(dim, keepdims=True)
    return z - np.log(np.exp(z).sum(dim, keepdims=True))


def _ln_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((3, 4, 5), dtype, dev, generator=rng)
    w = make_tensor((5,), dtype, dev, generator=rng)
    b = make_tensor((5,), dtype, dev, generator=rng)
    yield SampleInput((x, [5], w, b, 1e-5), {}, "affine")
    yield SampleInput((x, [4, 5], None, None, 1e-5), {}, "two dims, no affine")


def _ln_ref(a: np.ndarray, ns: Any, w: Any, b: Any, eps: float) -> np.ndarray:
    dims = tuple(range(a.ndim - len(ns), a.ndim))
    out = (a - a.mean(dims, keepdims=True)) / np.sqrt(a.var(dims, keepdims=True) + eps)
    return out * (1 if w is None else w) + (0 if b is None else b)


def _bn_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 3, 5), dtype, dev, generator=rng)
    w = make_tensor((3,), dtype, dev, generator=rng)
    b = make_tensor((3,), dtype, dev, generator=rng)
    yield SampleInput((x, w, b, None, None, True, 0.1, 1e-5), {}, "training")
    rm = make_tensor((3,), dtype, dev, generator=rng)
    rv = make_tensor((3,), dtype, dev, generator=rng, low=0.5, high=2)
    yield SampleInput((x, w, b, rm, rv, False, 0.1, 1e-5), {}, "eval")


def _bn_ref(a: np.ndarray, w: Any, b: Any, rm: Any, rv: Any, training: bool, m: float,
            eps: float) -> np.ndarray:  # fmt: skip
    sh = (1, -1, 1)
    if training:
        mean, var = a.mean((0, 2)), a.var((0, 2))
    else:
        mean, var = rm, rv
    return (a - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) * w.reshape(sh) + b.reshape(sh)


def _bn_back_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((4, 3, 5), dtype, dev, generator=rng)
    g = make_tensor((4, 3, 5), dtype, dev, generator=rng)
    w = make_tensor((3,), dtype, dev, generator=rng)
    m = make_tensor((3,), dtype, dev, generator=rng)
    r = make_tensor((3,), dtype, dev, generator=rng, low=0.5, high=2)
    for train in (True, False):
        yield SampleInput((g, x, w, None, None, m, r, train, 1e-5, [True] * 3), {}, f"{train=}")
    yield SampleInput((g, x, None, None, None, m, r, True, 1e-5, [True] * 3), {}, "no weight")


def _bn_back_ref(g: np.ndarray, a: np.ndarray, w: Any, rm: Any, rv: Any, m: np.ndarray,
                 r: np.ndarray, train: bool, eps: float, mask: Any) -> np.ndarray:  # fmt: skip
    """grad_input, grad_weight and grad_bias, flattened and concatenated."""
    sh = (1, -1, 1)
    xhat = (a - m.reshape(sh)) * r.reshape(sh)
    gb, gw = g.sum((0, 2)), (g * xhat).sum((0, 2))
    k = r.reshape(sh) * (1 if w is None else w.reshape(sh))
    n = a.shape[0] * a.shape[2]
    gi = k * (g - gb.reshape(sh) / n - xhat * gw.reshape(sh) / n) if train else k * g
    return np.concatenate([gi.ravel(), gw, gb])


def _ln_back_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((3, 4, 5), dtype, dev, generator=rng)
    g = make_tensor((3, 4, 5), dtype, dev, generator=rng)
    w = make_tensor((5,), dtype, dev, generator=rng)
    m = make_tensor((3, 4, 1), dtype, dev, generator=rng)
    r = make_tensor((3, 4, 1), dtype, dev, generator=rng, low=0.5, high=2)
    yield SampleInput((g, x, [5], m, r, w, w, [True] * 3), {}, "affine")
    m2 = make_tensor((3, 1, 1), dtype, dev, generator=rng)
    r2 = make_tensor((3, 1, 1), dtype, dev, generator=rng, low=0.5, high=2)
    yield SampleInput((g, x, [4, 5], m2, r2, None, None, [True] * 3), {}, "two dims, no affine")


def _ln_back_ref(g: np.ndarray, a: np.ndarray, ns: Any, m: np.ndarray, r: np.ndarray, w: Any,
                 b: Any, mask: Any) -> np.ndarray:  # fmt: skip
    """grad_input, grad_weight and grad_bias, flattened and concatenated."""
    k = len(ns)
    dims = tuple(range(a.ndim - k, a.ndim))
    outer = tuple(range(a.ndim - k))
    xhat = (a - m) * r
    gx = g if w is None else g * w
    gi = r * (gx - gx.mean(dims, keepdims=True) - xhat * (gx * xhat).mean(dims, keepdims=True))
    gw, gb = (g * xhat).sum(outer), g.sum(outer)
    return np.concatenate([gi.ravel(), gw.ravel(), gb.ravel()])


def _flat3(op: Any) -> Any:
    """The three outputs of a backward primitive as one flat tensor, for one reference."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import ember

        return ember.cat([t.reshape(-1) for t in op(*args, **kwargs)])

    return call


Row = tuple[str, tuple[str, ...], Callable[..., Iterable[SampleInput]], Any, int | None]
ROWS: list[Row] = [
    ("gather", ALL_DTYPES, _gather_samples, _gather_ref, None),
    ("scatter_reduce_.two", NUMERIC, _scatter_samples, _scatter_ref, None),
    ("index.Tensor", ALL_DTYPES, _index_samples, _index_ref, None),
    ("index_put_", ALL_DTYPES, _index_put_samples, _index_put_ref, None),
    ("nonzero", ALL_DTYPES, _nonzero_samples, lambda a: np.argwhere(a), None),
    ("sort.stable", ALL_DTYPES, _sort_samples, _sort_ref, 0),
    ("im2col", FLOATS, _im2col_samples, _im2col_ref, None),
    ("col2im", FLOATS, _col2im_samples, _col2im_ref, None),
    ("max_pool2d_with_indices", FLOATS, _pool_samples, _pool_ref, 0),
    ("_softmax", FLOATS, _softmax_samples, _softmax_ref, None),
    ("_log_softmax", FLOATS, _softmax_samples, _log_softmax_ref, None),
    ("native_layer_norm", FLOATS, _ln_samples, _ln_ref, 0),
    ("native_batch_norm", FLOATS, _bn_samples, _bn_ref, 0),
    ("native_batch_norm_backward", FLOATS, _bn_back_samples, _bn_back_ref, -1),
    ("native_layer_norm_backward", FLOATS, _ln_back_samples, _ln_back_ref, -1),
]


def _pick(op: Any, k: int | None) -> Any:
    if k is None:
        return op
    if k == -1:
        return _flat3(op)

    def call(*args: Any, **kwargs: Any) -> Any:
        return op(*args, **kwargs)[k]

    return call


def _samples(build: Callable[..., Iterable[SampleInput]]) -> Any:
    return lambda info, dtype, dev, rng: build(dtype, dev, rng)


def nn_infos() -> list[OpInfo]:
    from ember.library import lookup
    from ember.testing.opdb import _differentiable

    infos = []
    for name, dtypes, build, ref, k in ROWS:
        op = lookup(name)
        infos.append(
            OpInfo(
                name=name,
                op=_pick(op, k),
                ref=ref,
                dtypes=dtypes,
                sample_inputs=_samples(build),
                # the backward natives have no formula of their own: the norms' formulas
                # calls it only when no graph is being recorded (no double backward)
                differentiable=_differentiable(op) and not name.endswith("_backward"),
                primitive=not name.endswith("_backward"),  # natives with a fallback
                kind=op.kind or "composite",
                inplace=False,
                tols={"float16": (1e-2, 1e-2), "bfloat16": (3e-2, 3e-2)},
            )
        )
    return infos
