"""History for an in-place operation on a view: ``CopySlices`` and the view's new node.

Note [In-place on a view]
    An in-place op on a view ``v`` of base ``b`` changes ``b`` too. The op's node is
    wrapped in a ``CopySlices`` node that becomes ``b.grad_fn``: it hands the view's
    part of ``b``'s gradient to the op's formula and puts the result back in that part;
    ``v.grad_fn`` becomes an ``AsStridedBackward0`` reading ``v``'s part of ``b``'s
    gradient. Both are written with ``restride`` (an ember ``Function`` whose backward
    is again a ``restride``) and ``where``, so they differentiate again: double backward
    through an in-place op on a view works.

Must always hold: ``CopySlices.next_edges[0]`` is the base's previous history, the
others are the wrapped node's edges for its other inputs; the region of the base's
gradient that the view covers is replaced, never added to.
"""

from __future__ import annotations

from ember.autograd.node import Edge, Node, mark, meta_of
from ember.core.tensor import Tensor

__all__ = ["CopySlices", "copy_slices", "geometry"]

Geometry = tuple[tuple[int, ...], tuple[int, ...], int]


def geometry(t: Tensor) -> Geometry:
    """(shape, stride, storage offset) of ``t``."""
    return (tuple(t._shape), tuple(t._stride), t._offset)


def _overwrite(gb: Tensor, bgeo: Geometry, vgeo: Geometry, gv: Tensor | None) -> Tensor:
    """Base gradient ``gb`` with the view's region replaced by ``gv`` (zeros when None)."""
    from ember.autograd.formulas._helpers import aten, restride, write_region
    from ember.autograd.grad_mode import is_grad_enabled, no_grad

    if not is_grad_enabled():
        return write_region(gb, bgeo, vgeo, gv)
    with no_grad():  # where the view lies in the base: a constant mask
        ones = aten().ones.default(vgeo[0], dtype=gb.dtype, device=gb.device)
        outside = restride(ones, vgeo, bgeo) == 0
    kept = aten().where.self(outside, gb, 0.0)
    return kept if gv is None else kept + restride(gv, vgeo, bgeo)


class _ViewOfBase(Node):
    """``v.grad_fn`` after an in-place op on view ``v``: reads v's part of b's gradient."""

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        from ember.autograd.formulas._helpers import restride

        g = grads[0]
        return [None if g is None else restride(g, self.metadata["view"], self.metadata["base"])]


class AsStridedBackward0(_ViewOfBase):
    pass


class CopySlices(Node):
    """``b.grad_fn`` after an in-place op on a view of ``b`` (Note [In-place on a view])."""

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        from ember.autograd.engine import fix_layout
        from ember.autograd.formulas._helpers import restride

        gb = grads[0]
        if gb is None:
            return [None] * len(self.next_edges)
        vgeo, bgeo = self.metadata["view"], self.metadata["base"]
        inner: Node = self.metadata["node"]
        res = inner.apply([restride(gb, bgeo, vgeo)])
        g_view = res[0]
        if g_view is not None and inner.input_meta[0] is not None:
            g_view = fix_layout(g_view, inner.input_meta[0], inner)
        return [_overwrite(gb, bgeo, vgeo, g_view)] + list(res[1:])

    def release(self) -> None:
        self._released = True
        self.metadata["node"].release()


def copy_slices(
    base: Tensor, base_edge: Edge, base_geo: Geometry, view: Tensor, node: Node
) -> None:
    """Rebase ``base`` (and ``view``) onto in-place node ``node`` run on ``view``."""
    cs = CopySlices()
    cs.next_edges = [base_edge] + node.next_edges[1:]
    cs.input_meta = [meta_of(base), *node.input_meta[1:]]
    vgeo = geometry(view)
    cs.metadata.update(view=vgeo, base=base_geo, node=node)
    mark(base, cs, 0)
    vn = AsStridedBackward0()
    vn.next_edges = [(cs, 0)]
    vn.input_meta = [meta_of(base)]
    vn.metadata.update(view=vgeo, base=base_geo)
    view.grad_fn = vn
    view.__dict__.pop("_output_nr", None)
