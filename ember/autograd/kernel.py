"""The Autograd dispatch key's one generic kernel (a boxed fallback).

For every operator call on a tensor that carries the Autograd key this kernel
looks the operator up in the active formula table (``ember.autograd.formulas``):

* a formula: run the op below Autograd (with Autograd excluded, so a composite's
  inner calls record nothing), then, if an input requires grad, record a
  ``FormulaNode`` holding the formula and what it reads, and mark the outputs;
* ``None`` in the table (non-differentiable: comparisons, argmax, detach...): run
  below and the outputs do not require grad;
* no entry, and the op runs as a Composite: pass through, so the decomposition's
  own operators record history;
* no entry otherwise: run, and record a node that raises at backward naming the op.

Must always hold: edges are taken before the op runs (an in-place op rebases its
output onto the new node, Note [In-place on a view]); a saved tensor snapshots its
storage version; outputs that do not require grad lose the Autograd bit.

Note [Formula parameters]
    A formula's first parameter receives the output's gradient; the others are
    named after what they read: a schema argument (``self``, ``other``, ``dim``),
    ``result`` (the output; for an operator with several outputs, the first, and
    ``result1``, ``result2``, ... the others), ``<arg>_shape`` (an input's shape, nothing saved) or
    ``<arg>_geometry`` / ``result_geometry`` (shape, stride, storage offset). Only
    what the formulas for the inputs that need a gradient name is saved.

Note [In-place on a view]
    An in-place op on a view ``v`` of base ``b`` changes ``b`` too. The op's node
    is wrapped in a ``CopySlices`` node that becomes ``b.grad_fn`` (it routes the
    view's part of ``b``'s gradient through the op's formula), and ``v.grad_fn``
    becomes an ``AsStridedBackward0`` of ``b``'s new history.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ember.autograd import formulas
from ember.autograd.node import Node, SavedTensor, edge_of, meta_of
from ember.core.dispatch_key import COMPOSITE, Autograd
from ember.core.dtype import FLOAT
from ember.core.tensor import Tensor
from ember.dispatcher.registry import OpOverload, exclude_keys

__all__ = ["autograd_kernel", "FormulaNode", "MissingFormulaNode", "node_class", "clear"]

_MASK = Autograd.mask
_NOT = ~_MASK


@dataclass
class OpInfo:
    """What the kernel needs to know about one operator, computed once per formula table."""

    tensor_pos: list[int]
    names: list[str]
    rule: Any
    inplace: bool
    is_out: bool
    passthrough: bool
    node_cls: type[Node]
    per_input: list[tuple[Callable[..., Any], tuple[str, ...]] | None] = field(default_factory=list)
    joint: tuple[Callable[..., Any], tuple[str, ...]] | None = None


_infos: dict[OpOverload, OpInfo] = {}
_classes: dict[tuple[str, type[Node]], type[Node]] = {}


def clear() -> None:
    """Forget compiled formulas (the active formula table changed)."""
    _infos.clear()


def node_class(name: str, base: type[Node] | None = None) -> type[Node]:
    """The Node subclass named ``name`` (``MulBackward0``), created once."""
    b = base or FormulaNode
    cls = _classes.get((name, b))
    if cls is None:
        cls = _classes[name, b] = type(name, (b,), {})
    return cls


def _camel(op: OpOverload) -> str:
    return "".join(p[:1].upper() + p[1:] for p in op.schema.name.base.split("_") if p)


def _params(fn: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(inspect.signature(fn).parameters)[1:]


def _info(op: OpOverload) -> OpInfo:
    info = _infos.get(op)
    if info is not None:
        return info
    from ember.dispatcher.registry import _pyname

    args = op.schema.arguments
    pos = [i for i, a in enumerate(args) if a.type.base == "Tensor" and not a.type.is_list]
    found, rule = formulas.lookup(op)
    passthrough = not found and op.kernels.get(COMPOSITE) is not None
    base = MissingFormulaNode if not found else FormulaNode
    info = OpInfo(
        tensor_pos=pos,
        names=[_pyname(a.name) for a in args],
        rule=rule if found else formulas.MISSING,
        inplace=op.schema.name.is_inplace,
        is_out=op.schema.is_out,
        passthrough=passthrough,
        node_cls=node_class(f"{_camel(op)}Backward0", base),
    )
    if found and rule is not None:
        if isinstance(rule, tuple):
            info.per_input = [None if r is None else (r, _params(r)) for r in rule]
        else:
            info.joint = (rule, _params(rule))
    _infos[op] = info
    return info


def _strip(out: Any) -> Any:
    if type(out) is Tensor:
        if not out._requires_grad:
            out._ks &= _NOT
    elif isinstance(out, tuple):
        for o in out:
            _strip(o)
    return out


def autograd_kernel(op: OpOverload, ks: int, *args: Any) -> Any:
    """The boxed fallback registered for the Autograd key (see the module docstring)."""
    info = _infos.get(op) or _info(op)
    if info.passthrough and op.kernel_for(ks) is op.kernels.get(COMPOSITE):
        return op.redispatch(ks, *args)
    edges = []
    any_grad = False
    for i in info.tensor_pos:
        e = edge_of(args[i])
        edges.append(e)
        any_grad = any_grad or e is not None
    if not any_grad or info.rule is None:
        with exclude_keys(_MASK):
            return _strip(op.redispatch(ks, *args))
    return _record(op, info, ks, args, edges)


def _record(op: OpOverload, info: OpInfo, ks: int, args: tuple[Any, ...], edges: list[Any]) -> Any:
    if info.is_out:
        raise RuntimeError(
            f"{op.schema.name.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    node = info.node_cls()
    node.op = op  # type: ignore[attr-defined]
    node.next_edges = edges
    node.input_meta = [
        meta_of(args[i]) if isinstance(args[i], Tensor) else None for i in info.tensor_pos
    ]
    self = args[0] if info.inplace else None
    view_base = None
    if self is not None:
        _check_inplace(self)
        view_base = self._base
    needed = _needed_names(info, edges)
    saved: dict[str, Any] = {}
    values = dict(zip(info.names, args))
    for name in needed:
        if name.startswith("result"):
            continue
        if name in values:
            v = values[name]
            if isinstance(v, Tensor):
                if self is not None and v is self:
                    v = v.clone()  # the op overwrites it; keep the value the formula needs
                saved[name] = SavedTensor(v)
            else:
                saved[name] = tuple(v) if isinstance(v, list) else v
        else:
            saved[name] = _meta_value(name, values)
    base_edge = edge_of(view_base) if view_base is not None else None
    base_geo = _geometry(view_base) if view_base is not None else None
    with exclude_keys(_MASK):
        out = op.redispatch(ks, *args)
    node.saved = saved  # type: ignore[attr-defined]
    if isinstance(out, Tensor):
        if "result" in needed:
            saved["result"] = SavedTensor(out, is_output=True)
        if "result_geometry" in needed:
            saved["result_geometry"] = _geometry(out)
        if out._dtype.category == FLOAT:
            _mark(out, node, 0)
            if view_base is not None and base_geo is not None:
                _copy_slices(view_base, base_edge, base_geo, out, node)
    elif isinstance(out, tuple) and out and isinstance(out[0], Tensor):
        # Multi-output primitives (sort, max_pool2d_with_indices, native_*_norm): the first
        # output is differentiable; the others (indices, statistics) are what formulas read
        # as ``result1``, ``result2``, ...
        first = out[0]
        if "result" in needed:
            saved["result"] = SavedTensor(first, is_output=True)
        for j in range(1, len(out)):
            if f"result{j}" in needed:
                saved[f"result{j}"] = SavedTensor(out[j])
        if first._dtype.category == FLOAT:
            _mark(first, node, 0)
    return out


def _check_inplace(self: Tensor) -> None:
    if self.grad_fn is None and self._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    b = self._base
    if b is not None and b.grad_fn is None and b._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def _needed_names(info: OpInfo, edges: list[Any]) -> set[str]:
    if info.joint is not None:
        return set(info.joint[1])
    out: set[str] = set()
    for r, e in zip(info.per_input, edges):
        if r is not None and e is not None:
            out.update(r[1])
    return out


def _geometry(t: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    return (tuple(t._shape), tuple(t._stride), t._offset)


def _meta_value(name: str, values: dict[str, Any]) -> Any:
    arg, _, what = name.rpartition("_")
    t = values.get(arg)
    if isinstance(t, Tensor) and what == "shape":
        return tuple(t._shape)
    if isinstance(t, Tensor) and what == "geometry":
        return _geometry(t)
    if t is None and arg in values:
        return None
    raise TypeError(
        f"formula parameter '{name}' names no argument of the operator; use an argument name, "
        "'result', '<arg>_shape', '<arg>_geometry' or 'result_geometry'"
    )


def _mark(out: Tensor, node: Node, nr: int) -> None:
    out._requires_grad = True
    out.grad_fn = node
    out._ks |= _MASK
    if nr:
        out.__dict__["_output_nr"] = nr


class FormulaNode(Node):
    """A node whose backward is a formula from the active table (Note [Formula parameters])."""

    op: OpOverload
    saved: dict[str, Any]

    def _values(self, names: tuple[str, ...]) -> dict[str, Any]:
        if self._released:
            from ember.autograd.node import FREED

            raise RuntimeError(FREED)
        kw = {}
        for n in names:
            v = self.saved[n]
            kw[n] = v.unpack(self) if isinstance(v, SavedTensor) else v
        return kw

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        g = grads[0]
        info = _infos.get(self.op) or _info(self.op)
        if info.joint is not None:
            fn, names = info.joint
            res = fn(g, **self._values(names))
            return list(res) if isinstance(res, (tuple, list)) else [res]
        out: list[Tensor | None] = []
        for r, e in zip(info.per_input, self.next_edges):
            if r is None or e is None:
                out.append(None)
            else:
                out.append(r[0](g, **self._values(r[1])))
        return out

    def release(self) -> None:
        if getattr(self, "saved", None):
            self._released = True
            for v in self.saved.values():
                if isinstance(v, SavedTensor):
                    v.tensor = None


class MissingFormulaNode(FormulaNode):
    """Recorded for an operator without a formula: backward names it and fails."""

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        raise RuntimeError(
            f"the derivative for '{self.op.qualname}' is not implemented: no formula for it in "
            f"the active autograd formula sets ({', '.join(formulas.active())}). Register one "
            "with ember.library.register_formula or install a formula set "
            "(docs/autograd.md)."
        )


class _ViewOfBase(Node):
    """``v.grad_fn`` after an in-place op on view ``v``: reads v's part of b's gradient."""

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        from ember.autograd.formulas._helpers import restride

        g = grads[0]
        return [None if g is None else restride(g, self.metadata["view"], self.metadata["base"])]


class CopySlices(Node):
    """``b.grad_fn`` after an in-place op on a view of ``b`` (Note [In-place on a view])."""

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        from ember.autograd.engine import fix_layout
        from ember.autograd.formulas._helpers import read_region, write_region

        gb = grads[0]
        if gb is None:
            return [None] * len(self.next_edges)
        vgeo, bgeo = self.metadata["view"], self.metadata["base"]
        inner: Node = self.metadata["node"]
        res = inner.apply([read_region(gb, bgeo, vgeo)])
        g_view = res[0]
        if g_view is not None and inner.input_meta[0] is not None:
            g_view = fix_layout(g_view, inner.input_meta[0], inner)
        return [write_region(gb, bgeo, vgeo, g_view)] + list(res[1:])

    def release(self) -> None:
        self.metadata["node"].release()


_AsStrided = node_class("AsStridedBackward0", _ViewOfBase)


def _copy_slices(base: Tensor, base_edge: Any, base_geo: Any, view: Tensor, node: Node) -> None:
    cs = CopySlices()
    cs.next_edges = [base_edge] + node.next_edges[1:]
    cs.input_meta = [meta_of(base), *node.input_meta[1:]]
    vgeo = _geometry(view)
    cs.metadata.update(view=vgeo, base=base_geo, node=node)
    _mark(base, cs, 0)
    vn = _AsStrided()
    vn.next_edges = [(cs, 0)]
    vn.input_meta = [meta_of(base)]
    vn.metadata.update(view=vgeo, base=base_geo)
    view.grad_fn = vn
