"""OpInfos of the shape, linear-algebra and search composites (``ember/operators/shape.py``,
``linalg_products.py``, ``linalg_solve.py``, ``search.py``, ``inplace.py``): one row each,
with a numpy float64 reference.

Operators that return several tensors (``meshgrid``, ``unique_consecutive``) are checked
through a wrapper that stacks them (or picks the values); like integer-valued results
(``searchsorted``, ``bincount``), those rows are not offered to gradient checks. Must
always hold: samples cover contiguous and strided inputs (plus the operator's own edge
cases) and matrices handed to the solvers are well conditioned.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ember.testing._creation import make_tensor
from ember.testing._opinfo import ALL_DTYPES, OpInfo, SampleInput, category

__all__ = ["shape_infos"]

FLOATS = tuple(d for d in ALL_DTYPES if category(d) == "float")
F32_64 = ("float32", "float64")
NUMERIC = tuple(d for d in ALL_DTYPES if d != "bool")
#: integer and single/double precision: arithmetic composites that round at every step
WIDE = tuple(d for d in NUMERIC if d not in ("float16", "bfloat16"))
INTS = tuple(d for d in ALL_DTYPES if category(d) == "int")

Build = Callable[[str, str, Any], Iterable[SampleInput]]


def _on(*shapes: tuple[int, ...], args: tuple[Any, ...] = (), kw: dict[str, Any] | None = None,
        low: Any = None, high: Any = None, strided: bool = True) -> Build:  # fmt: skip
    """One tensor argument per shape (plus ``args``): contiguous, then strided."""

    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        def mk(s: tuple[int, ...], nc: bool = False) -> Any:
            return make_tensor(s, dtype, dev, low=low, high=high, generator=rng, noncontiguous=nc)

        yield SampleInput(tuple(mk(s) for s in shapes) + args, dict(kw or {}), "contiguous")
        if strided:
            yield SampleInput(tuple(mk(s, True) for s in shapes) + args, dict(kw or {}), "strided")

    return build


def _list(*shapes: tuple[int, ...]) -> Build:
    """A list of tensors (the first transposed) as the only argument."""

    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        ts = [make_tensor(s, dtype, dev, generator=rng) for s in shapes]
        if ts[0].ndim == 2:
            ts[0] = make_tensor(shapes[0][::-1], dtype, dev, generator=rng).t()
        yield SampleInput((ts,), {}, "list")

    return build


def _with_index(shape: tuple[int, ...], idx: list[int], *args: Any) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        import ember

        for nc in (False, True):
            x = make_tensor(shape, dtype, dev, generator=rng, noncontiguous=nc)
            i = ember.tensor(idx).to(dev)
            yield SampleInput((x, i, *args), {}, "strided" if nc else "contiguous")

    return build


def _solvable(*extra: tuple[int, ...]) -> Build:
    """A well-conditioned (diagonally dominant) batch of 3x3 matrices, plus ``extra``."""

    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        import ember

        a = make_tensor((2, 3, 3), dtype, dev, low=-1, high=1, generator=rng)
        a = a + ember.eye(3, dtype=a.dtype, device=dev).mul(4)
        more = tuple(make_tensor(s, dtype, dev, generator=rng) for s in extra)
        yield SampleInput((a, *more), {}, "batched")

    return build


def _sorted_rows(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    import ember

    bd = np.sort(rng.integers(0, 9, (8,)))
    vals = rng.integers(-1, 11, (3, 5))
    t = getattr(ember, dtype)
    yield SampleInput((ember.tensor(bd).to(t).to(dev), ember.tensor(vals).to(t).to(dev)), {},
                      "1-d boundaries")  # fmt: skip
    yield SampleInput(
        (ember.tensor(bd).to(t).to(dev), ember.tensor(vals).to(t).to(dev)), {"right": True},
        "right",
    )  # fmt: skip
    rows = np.sort(rng.integers(0, 9, (3, 6)), 1)
    yield SampleInput((ember.tensor(rows).to(t).to(dev), ember.tensor(vals).to(t).to(dev)), {},
                      "rows")  # fmt: skip


def _factory(*calls: tuple[tuple[Any, ...], dict[str, Any]]) -> Build:
    def build(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
        import ember

        for args, kw in calls:
            yield SampleInput(
                args, {**kw, "dtype": getattr(ember, dtype), "device": dev}, f"{args}"
            )

    return build


def _put_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    import ember

    for nc in (False, True):
        x = make_tensor((3, 4), dtype, dev, generator=rng, noncontiguous=nc)
        src = make_tensor((3,), dtype, dev, generator=rng)
        idx = ember.tensor([0, 5, -1]).to(dev)
        yield SampleInput((x, idx, src), {}, "strided" if nc else "contiguous")


def _masked_scatter_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    x = make_tensor((3, 4), dtype, dev, generator=rng)
    mask = make_tensor((3, 4), "bool", dev, generator=rng)
    yield SampleInput((x, mask, make_tensor((12,), dtype, dev, generator=rng)), {}, "mask")
    mask = make_tensor((4,), "bool", dev, generator=rng)
    yield SampleInput((x, mask, make_tensor((12,), dtype, dev, generator=rng)), {}, "broadcast")


def _index_reduce_samples(dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    import ember

    idx = ember.tensor([0, 2, 0, 2, 1]).to(dev)
    for red in ("prod", "mean", "amax", "amin"):
        lo = -2 if category(dtype) == "float" else 0  # small integers: no wraparound
        x = make_tensor((3, 4), dtype, dev, low=lo, high=2, generator=rng)
        src = make_tensor((5, 4), dtype, dev, low=lo, high=2, generator=rng)
        yield SampleInput((x, 0, idx, src, red), {}, red)


# -- numpy references ------------------------------------------------------------------------------
def _np_searchsorted(bd: np.ndarray, v: np.ndarray, right: bool = False) -> np.ndarray:
    side: Any = "right" if right else "left"
    if bd.ndim == 1:
        return np.searchsorted(bd, v, side=side)
    return np.stack([np.searchsorted(b, x, side=side) for b, x in zip(bd, v)])


def _np_diag_embed(a: np.ndarray, offset: int = 0, d1: int = -2, d2: int = -1) -> np.ndarray:
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n))
    i = np.arange(a.shape[-1])
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., r, c] = a
    return np.moveaxis(out, (-2, -1), (d1, d2))


def _np_block_diag(*ms: np.ndarray) -> np.ndarray:
    ms2 = [np.atleast_2d(m) for m in ms]
    out = np.zeros((sum(m.shape[0] for m in ms2), sum(m.shape[1] for m in ms2)))
    r = c = 0
    for m in ms2:
        out[r : r + m.shape[0], c : c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _np_diagonal_scatter(a: np.ndarray, s: np.ndarray, offset: int = 0) -> np.ndarray:
    out = a.copy()
    i = np.arange(s.shape[-1])
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[r, c] = s
    return out


def _np_slice_scatter(a: np.ndarray, s: np.ndarray, dim: int, start: Any, end: Any, step: int
                      ) -> np.ndarray:  # fmt: skip
    out = a.copy()
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(start, end, step)
    out[tuple(idx)] = s
    return out


def _np_select_scatter(a: np.ndarray, s: np.ndarray, dim: int, index: int) -> np.ndarray:
    out = a.copy()
    idx: list[Any] = [slice(None)] * a.ndim
    idx[dim] = index
    out[tuple(idx)] = s
    return out


def _np_put(a: np.ndarray, i: np.ndarray, s: np.ndarray, acc: bool = False) -> np.ndarray:
    out = a.copy().reshape(-1)
    if acc:
        np.add.at(out, i.reshape(-1), s.reshape(-1))
    else:
        out[i.reshape(-1)] = s.reshape(-1)
    return out.reshape(a.shape)


def _np_masked_scatter(a: np.ndarray, m: np.ndarray, s: np.ndarray) -> np.ndarray:
    m = np.broadcast_to(m, a.shape)
    out = a.copy()
    out[m] = s.reshape(-1)[: int(m.sum())]
    return out


def _np_index_reduce(a: np.ndarray, dim: int, idx: np.ndarray, src: np.ndarray, red: str
                     ) -> np.ndarray:  # fmt: skip
    out = a.astype(np.float64).copy()
    groups: dict[int, list[np.ndarray]] = {}
    for i, k in enumerate(idx):
        groups.setdefault(int(k), []).append(src[i])
    for k, rows in groups.items():
        vals = np.stack([out[k]] + rows)  # include_self
        if red == "prod":
            out[k] = vals.prod(0)
        elif red == "mean":
            m = vals.mean(0)
            out[k] = np.floor(m) if np.issubdtype(a.dtype, np.integer) else m
        else:
            out[k] = vals.max(0) if red == "amax" else vals.min(0)
    return out


def _np_nonzero_static(a: np.ndarray, size: int, fill_value: int = -1) -> np.ndarray:
    nz = np.argwhere(a)[:size]
    pad = np.full((size - len(nz), a.ndim), fill_value)
    return np.concatenate([nz, pad]).astype(np.int64)


def _np_cdist(a: np.ndarray, b: np.ndarray, p: float = 2.0) -> np.ndarray:
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    return (d**p).sum(-1) ** (1 / p)


def _np_unfold(a: np.ndarray, dim: int, size: int, step: int) -> np.ndarray:
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    idx = [slice(None)] * w.ndim
    idx[dim] = slice(None, None, step)
    return w[tuple(idx)]


def _np_trapz_dx(y: np.ndarray, dx: float = 1, dim: int = -1) -> np.ndarray:
    return np.trapezoid(y, dx=dx, axis=dim)


def _np_cumtrapz(y: np.ndarray, dx: float = 1, dim: int = -1) -> np.ndarray:
    n = y.shape[dim]
    a, b = np.take(y, range(1, n), dim), np.take(y, range(n - 1), dim)
    return np.cumsum((a + b) * dx / 2, axis=dim)


def _np_cov(a: np.ndarray, correction: int = 1) -> np.ndarray:
    return np.cov(a, ddof=correction)


def _stack(op: Any) -> Any:
    """``op``'s several outputs stacked into one tensor (for the comparison)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import ember

        return ember.stack(list(op(*args, **kwargs)))

    return call


def _first(op: Any) -> Any:
    return lambda *args, **kwargs: op(*args, **kwargs)[0]


def _np_unique_consecutive(a: np.ndarray, *_: Any) -> np.ndarray:
    flat = a.reshape(-1)
    keep = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else np.zeros(0, bool)
    return flat[keep]


def _np_vector_norm(a: np.ndarray, o: float, dim: Any = None, keepdim: bool = False) -> Any:
    ax = tuple(dim) if dim is not None else None
    return np.sum(np.abs(a) ** o, axis=ax, keepdims=keepdim) ** (1 / o)


_CH = np.random.default_rng(0)

#: (name, dtypes, sample builder, reference, wrapper or None, gradient rows? [None: auto])
Row = tuple[str, tuple[str, ...], Build, Any, Any, Any]
ROWS: list[Row] = [
    ("movedim.int", ALL_DTYPES, _on((2, 3, 4), args=(0, -1)), np.moveaxis, None, None),
    ("swapdims", ALL_DTYPES, _on((2, 3, 4), args=(0, 2)), np.swapaxes, None, None),
    ("rot90", ALL_DTYPES, _on((3, 4), args=(1, [0, 1])), lambda a, k, d: np.rot90(a, k, d), None,
     None),
    ("fliplr", ALL_DTYPES, _on((3, 4)), np.fliplr, None, None),
    ("flipud", ALL_DTYPES, _on((3, 4)), np.flipud, None, None),
    ("vstack", ALL_DTYPES, _list((3, 4), (2, 4)), lambda ts: np.vstack(ts), None, None),
    ("hstack", ALL_DTYPES, _list((3, 4), (3, 2)), lambda ts: np.hstack(ts), None, None),
    ("dstack", ALL_DTYPES, _list((3, 4), (3, 4)), lambda ts: np.dstack(ts), None, None),
    ("column_stack", ALL_DTYPES, _list((3, 4), (3,)), lambda ts: np.column_stack(ts), None, None),
    ("atleast_3d", ALL_DTYPES, _on((3, 4)), np.atleast_3d, None, None),
    ("broadcast_to", ALL_DTYPES, _on((3, 1), args=((2, 3, 4),)), np.broadcast_to, None, None),
    ("block_diag", NUMERIC, _list((2, 3), (1, 2)), lambda ts: _np_block_diag(*ts), None, None),
    ("diag", ALL_DTYPES, _on((4,), args=(1,)), np.diag, None, None),
    ("diag_embed", ALL_DTYPES, _on((3, 4), args=(-1, 0, 2)), _np_diag_embed, None, None),
    ("diagflat", ALL_DTYPES, _on((2, 2), args=(1,)), np.diagflat, None, None),
    ("diagonal_scatter", ALL_DTYPES, _on((3, 4), (3,), args=(1,)), _np_diagonal_scatter, None,
     None),
    ("select_scatter", ALL_DTYPES, _on((3, 4), (3,), args=(1, -1)), _np_select_scatter, None, None),
    ("slice_scatter", ALL_DTYPES, _on((3, 4), (3, 2), args=(1, 1, None, 2)), _np_slice_scatter,
     None, None),
    ("narrow_copy", ALL_DTYPES, _on((3, 4), args=(1, 1, 2)), lambda a, d, s, n: a[:, s : s + n],
     None, None),
    ("unfold", ALL_DTYPES, _on((3, 5), args=(1, 2, 2)), _np_unfold, None, None),
    ("repeat_interleave.self_int", ALL_DTYPES, _on((3, 4), args=(2, 1)),
     lambda a, r, d: np.repeat(a, r, d), None, None),
    ("repeat_interleave.self_Tensor", ALL_DTYPES, _with_index((3, 4), [0, 2, 1], 0),
     lambda a, r, d: np.repeat(a, r, d), None, None),
    ("diff", ALL_DTYPES, _on((3, 5), args=(2, 1)), lambda a, n, d: np.diff(a, n, d), None, None),
    ("combinations", ALL_DTYPES, _on((5,), args=(2,)),
     lambda a, r: np.array(list(itertools.combinations(a, r))), None, None),
    ("cartesian_prod", ALL_DTYPES, _list((3,), (2,)),
     lambda ts: np.array(list(itertools.product(*ts))), None, None),
    ("meshgrid.indexing", ALL_DTYPES, lambda dt, dev, rng: (
        SampleInput(((make_tensor((3,), dt, dev, generator=rng), make_tensor((2,), dt, dev,
                                                                             generator=rng)),),
                    {"indexing": ix}, ix) for ix in ("ij", "xy")),
     lambda ts, indexing: np.stack(np.meshgrid(*ts, indexing=indexing)),
     _stack, False),
    ("tril_indices", ("int32", "int64"), _factory(((4, 3, -1), {}), ((3, 5, 1), {})),
     lambda r, c, k, **_: np.stack(np.tril_indices(r, k, c)), None, False),
    ("triu_indices", ("int32", "int64"), _factory(((4, 3, 1), {}), ((0, 5, 0), {})),
     lambda r, c, k, **_: np.stack(np.triu_indices(r, k, c)), None, False),
    ("put", ALL_DTYPES, _put_samples, _np_put, None, None),
    ("masked_scatter", ALL_DTYPES, _masked_scatter_samples, _np_masked_scatter, None, None),
    ("index_reduce", WIDE, _index_reduce_samples, _np_index_reduce, None, None),
    ("isin.Tensor_Tensor", NUMERIC, _on((3, 4), (5,), low=0, high=6), np.isin, None, False),
    ("nonzero_static", ALL_DTYPES, _on((3, 4), kw={"size": 7}, low=-1, high=2),
     _np_nonzero_static, None, False),
    ("histogram.bin_ct", F32_64, _on((40,), args=(4,), kw={"range": [0.0, 1.0]}, low=0, high=1),
     lambda a, b, range: np.histogram(a, b, tuple(range))[0], _first, False),
    # -- linear algebra --
    ("cross", WIDE, _on((4, 3), (4, 3), args=(1,)), lambda a, b, d: np.cross(a, b, axis=d), None,
     None),
    ("linalg_cross", WIDE, _on((2, 3), (1, 3)), lambda a, b: np.cross(a, b), None, None),
    ("tensordot", WIDE, _on((2, 3, 4), (3, 4, 5), args=([1, 2], [0, 1])),
     lambda a, b, da, db: np.tensordot(a, b, (da, db)), None, None),
    ("kron", WIDE, _on((2, 3), (3, 2)), np.kron, None, None),
    ("trace", NUMERIC, _on((4, 4)), np.trace, None, None),
    ("addmv", WIDE, _on((3,), (3, 4), (4,)), lambda c, a, b: c + a @ b, None, None),
    ("addr", WIDE, _on((3, 4), (3,), (4,)), lambda c, a, b: c + np.outer(a, b), None, None),
    ("addbmm", WIDE, _on((3, 4), (2, 3, 5), (2, 5, 4), low=-2, high=2),
     lambda c, a, b: c + np.einsum("bij,bjk->ik", a, b), None, None),
    ("vdot", WIDE, _on((5,), (5,)), np.vdot, None, None),
    ("inner", WIDE, _on((3, 4), (2, 4)), np.inner, None, None),
    ("linalg_multi_dot", WIDE, _list((2, 3), (3, 4), (4, 2)),
     lambda ts: np.linalg.multi_dot(ts), None, None),
    ("linalg_vector_norm", F32_64, _on((3, 4), args=(3, [1], True)), _np_vector_norm, None, None),
    ("linalg_matrix_norm.str_ord", F32_64, _on((2, 3, 4)),
     lambda a: np.linalg.norm(a, "fro", axis=(-2, -1)), None, None),
    ("linalg_matrix_norm", F32_64, _on((2, 3, 4), args=(1,)),
     lambda a, o: np.linalg.norm(a, o, axis=(-2, -1)), None, None),
    ("linalg_vecdot", F32_64, _on((3, 4), (4,)), lambda x, y: (x * y).sum(-1), None, None),
    ("cdist", F32_64, _on((5, 3), (4, 3), args=(1.5,)), _np_cdist, None, None),
    ("cov", F32_64, _on((3, 6)), _np_cov, None, None),
    ("corrcoef", F32_64, _on((3, 6)), np.corrcoef, None, None),
    ("trapezoid.dx", F32_64, _on((3, 5), kw={"dx": 0.5, "dim": 1}), _np_trapz_dx, None, None),
    ("cumulative_trapezoid.dx", F32_64, _on((3, 5), kw={"dx": 2.0, "dim": 0}), _np_cumtrapz, None,
     None),
    ("linalg_solve", F32_64, _solvable((2, 3, 2)), np.linalg.solve, None, None),
    ("linalg_inv", F32_64, _solvable(), np.linalg.inv, None, None),
    ("linalg_det", F32_64, _solvable(), np.linalg.det, None, None),
    # -- search and count --
    ("searchsorted.Tensor", NUMERIC, _sorted_rows, _np_searchsorted, None, False),
    ("bincount", INTS, _on((20,), low=0, high=7, strided=False), np.bincount, None, False),
    ("histc", F32_64, _on((50,), args=(4, 0.0, 1.0), low=0, high=1),
     lambda a, b, lo, hi: np.histogram(a, b, (lo, hi))[0], None, False),
    ("unique_consecutive", NUMERIC, _on((12,), low=0, high=3), _np_unique_consecutive, _first,
     False),
    ("logspace", F32_64, _factory(((0, 2, 5), {}), ((-1, 1, 3), {"base": 2.0})),
     lambda a, b, n, base=10.0, **_: base ** np.linspace(a, b, n), None, False),
]  # fmt: skip


def _gen(build: Build) -> Callable[[OpInfo, str, str, Any], Iterable[SampleInput]]:
    return lambda info, dtype, dev, rng: build(dtype, dev, rng)


def shape_infos() -> list[OpInfo]:
    """The OpInfos of the table above (flags read from the operators' ops.yaml entries)."""
    from ember.library import lookup
    from ember.testing.opdb import _differentiable

    infos = []
    for name, dtypes, build, ref, wrapper, grad in ROWS:
        op = lookup(name)
        infos.append(
            OpInfo(
                name=name,
                op=wrapper(op) if wrapper else op,
                ref=ref,
                dtypes=dtypes,
                sample_inputs=_gen(build),
                differentiable=wrapper is None and grad is not False and _differentiable(op),
                primitive=False,
                kind="factory" if "indices" in name or name == "logspace" else "composite",
                tols={"float16": (1e-2, 1e-2), "bfloat16": (3e-2, 3e-2), "float32": (1e-4, 1e-5)},
            )
        )
    return infos
