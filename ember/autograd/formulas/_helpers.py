"""Small ember-op building blocks the formula tables share.

Everything here is written in ember operators (or as an ``ember.autograd.Function``
whose backward is), so formulas that use it differentiate again under
``create_graph``. Must always hold: helpers never modify their arguments.
"""

from __future__ import annotations

import math
from typing import Any

from ember.autograd.function import Function
from ember.core.tensor import Tensor

__all__ = [
    "aten",
    "zeros",
    "scale",
    "expand_back",
    "count",
    "restride",
    "read_region",
    "write_region",
    "log_of",
    "differentiable",
    "prod_backward",
]

Geometry = tuple[tuple[int, ...], tuple[int, ...], int]


def aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def zeros(g: Tensor) -> Tensor:
    """A zero gradient like ``g``."""
    return aten().zeros_like.default(g)  # type: ignore[no-any-return]


def scale(g: Tensor, alpha: Any) -> Tensor:
    return g if alpha == 1 else g * alpha


def differentiable(*names: str) -> Any:
    """Mark a joint rule with the arguments it returns gradients for (in schema order).

    The others get no edge, and requiring grad for one of them is PyTorch's error
    (Note [Node edges] in ``ember/autograd/kernel.py``).
    """

    def mark(fn: Any) -> Any:
        fn.inputs = names
        return fn

    return mark


def log_of(v: Any) -> Any:
    return v.log() if isinstance(v, Tensor) else math.log(v)


def _dims(dim: Any, ndim: int) -> list[int]:
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return list(range(ndim))
    ds = [dim] if isinstance(dim, int) else list(dim)
    return sorted(d + ndim if d < 0 else d for d in ds) if ndim else []


def expand_back(g: Tensor, shape: tuple[int, ...], dim: Any, keepdim: bool) -> Tensor:
    """Undo a reduction over ``dim``: put the reduced dims back and broadcast."""
    if not keepdim:
        for d in _dims(dim, len(shape)):
            g = g.unsqueeze(d)
    return g.expand(shape)


def count(shape: tuple[int, ...], dim: Any) -> int:
    """How many elements each output of a reduction over ``dim`` summed."""
    n = 1
    for d in _dims(dim, len(shape)):
        n *= shape[d]
    return n


def prod_backward(grad: Tensor, self: Tensor, result: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """The gradient of ``prod`` over ``dim``: the product of the *other* elements.

    Without zeros that is ``result / self``. With exact zeros (one data check, as in
    PyTorch) each group's product is split into ``p``, the product of its non-zero
    elements, and its zeros ``Z``: a non-zero element's gradient is ``p / x`` times the
    product of ``Z`` (1 if none; the sum of ``Z``, zero-valued but with gradient 1 for
    the zero, if one; 0 if more), a zero's is ``p`` times the product of the other zeros.
    Written so that second derivatives at zeros are right too.
    """
    g: Any = expand_back(grad, tuple(self.shape), dim, keepdim)
    if self.ndim == 0:
        return g
    zero: Any = self == 0
    if not bool(zero.any()):
        return g * expand_back(result, tuple(self.shape), dim, keepdim) / self
    where = aten().where.self
    dims = _dims(dim, self.ndim)
    nz = where(zero, 1.0, self)
    p = aten().prod.dim_IntList(nz, dims, True)
    n = aten().sum.dim_IntList(zero, dims, True)
    zsum = aten().sum.dim_IntList(where(zero, self, 0.0), dims, True)
    fac_nonzero = where(n == 0, 1.0, where(n == 1, zsum, 0.0))
    fac_zero = where(n == 1, 1.0, where(n == 2, zsum - self, 0.0))
    return g * where(zero, p * fac_zero, p / nz * fac_nonzero)


def _buffer(g: Tensor, geos: tuple[Geometry, ...]) -> tuple[Tensor, int]:
    """Zeros covering every geometry in ``geos`` (offsets relative to the lowest)."""
    base = min(off for _, _, off in geos)
    ends = [
        off - base + sum((n - 1) * s for n, s in zip(sh, sd)) + 1
        for sh, sd, off in geos
        if all(n > 0 for n in sh)
    ]
    buf = aten().zeros.default((max(ends + [1]),), dtype=g.dtype, device=g.device)
    return buf, base


def _write(buf: Tensor, base: int, geo: Geometry, g: Any, add: bool = True) -> None:
    """Add (or copy) ``g``, laid out as ``geo``, into ``buf``; overlapping elements add up."""
    shape, stride, off = geo
    size = list(shape)
    bcast = [i for i, (n, s) in enumerate(zip(shape, stride)) if s == 0 and n > 1]
    if bcast and isinstance(g, Tensor):  # several elements share one location: add them
        g = g.sum(bcast, keepdim=True)
        for i in bcast:
            size[i] = 1
    if not isinstance(g, Tensor):
        buf.as_strided(tuple(size), stride, off - base).fill_(g)
    elif _overlaps(tuple(size), stride):  # overlapping windows: one accumulating index_put_
        idx = _flat_index(tuple(size), stride, off - base, buf)
        aten().index_put_.default(buf, [idx], g.reshape(-1), add)
    elif add:
        buf.as_strided(tuple(size), stride, off - base).add_(g)
    else:
        buf.as_strided(tuple(size), stride, off - base).copy_(g)


def _flat_index(shape: tuple[int, ...], stride: tuple[int, ...], off: int, like: Tensor) -> Tensor:
    """The flat position of every element of a strided layout (row-major, int64): a broadcast
    sum of one ``arange(n) * stride`` per dim, so no loop over elements or windows."""
    from ember.core import dtype as dt

    a = aten()
    idx: Any = off
    for d, (n, s) in enumerate(zip(shape, stride)):
        if n > 1 and s:
            view = [1] * len(shape)
            view[d] = n
            step = a.arange.start_step(0, n * s, s, dtype=dt.int64, device=like.device)
            idx = step.reshape(view) + idx
    if not isinstance(idx, Tensor):  # every dim of size 1 or stride 0: one location
        idx = a.full.default((1,) * len(shape), off, dtype=dt.int64, device=like.device)
    return idx.expand(shape).reshape(-1)  # type: ignore[no-any-return]


def _overlaps(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """Whether two elements of a strided layout share a memory location."""
    extent = 1
    dims = sorted(((s, n) for n, s in zip(shape, stride) if n > 1))
    for s, n in dims:
        if s < extent:
            return True
        extent = s * (n - 1) + extent
    return False


def _read(buf: Tensor, base: int, geo: Geometry) -> Tensor:
    return buf.as_strided(geo[0], geo[1], geo[2] - base)  # type: ignore[no-any-return]


def _place(g: Tensor, src: Geometry, dst: Geometry) -> Tensor:
    """Write ``g`` (laid out as ``src``) into zeros and read it back as ``dst``."""
    buf, base = _buffer(g, (src, dst))
    _write(buf, base, src, g)
    return _read(buf, base, dst)


class Restride(Function):
    """The gradient of a strided view, taken back to its input's geometry."""

    @staticmethod
    def forward(ctx: Any, g: Tensor, src: Geometry, dst: Geometry) -> Tensor:
        ctx.geo = (src, dst)
        return _place(g, src, dst)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> Any:
        src, dst = ctx.geo
        return restride(gg, dst, src), None, None


def restride(g: Tensor, src: Geometry, dst: Geometry) -> Tensor:
    """Gradient ``g`` of a view with geometry ``src``, as a gradient of geometry ``dst``."""
    return Restride.apply(g, src, dst)  # type: ignore[no-any-return]


def read_region(gb: Tensor, base: Geometry, view: Geometry) -> Tensor:
    """The part of base gradient ``gb`` that a view covers (a fresh tensor)."""
    from ember.autograd.grad_mode import no_grad

    with no_grad():
        return _place(gb, base, view).clone()


def write_region(gb: Tensor, base: Geometry, view: Geometry, gv: Tensor | None) -> Tensor:
    """Base gradient ``gb`` with the view's part replaced by ``gv`` (zeros if None)."""
    from ember.autograd.grad_mode import no_grad

    with no_grad():
        buf, lo = _buffer(gb, (base, view))
        _write(buf, lo, base, gb)
        _write(buf, lo, view, 0 if gv is None else gv, add=False)
        return _read(buf, lo, base)
