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
output onto the new node, Note [In-place on a view] in ``copy_slices.py``); a saved
tensor snapshots its storage version; outputs that do not require grad lose the
Autograd bit; an output that *is* an input (``contiguous`` of a contiguous tensor)
keeps its own history; everything per operator (rules, names, positions) is compiled
once per formula table (``_info``), so a call does no string work.

Note [Formula parameters]
    A formula's first parameter receives the output's gradient (for an operator that
    returns a ``Tensor[]``, the list of its outputs' gradients, None where an output got
    none); the others are named after what they read: a schema argument (``self``,
    ``other``, ``dim``), ``result`` (the output; for an operator with several outputs,
    the first, and ``result1``, ``result2``, ... the others), ``<arg>_shape`` (an input's
    shape, or the tuple of shapes of a ``Tensor[]`` argument; nothing saved) or
    ``<arg>_geometry`` / ``result_geometry`` (shape, stride, storage offset). Only what
    the formulas for the inputs that need a gradient name is saved. A joint rule of an
    operator returning several tensors gets only the first output's gradient, unless it
    sets ``rule.outputs`` to "all" (eigh, svd, qr: every floating output is
    differentiable) or to a tuple of output indices (slogdet: ``(1,)``); then it gets the
    list of the outputs' gradients (None where an output got none).

Note [Node edges]
    As in PyTorch, a node has one edge per *differentiable* Tensor argument, in schema
    order, one per element for a ``Tensor[]`` argument (``cat``), and ``(None, 0)`` for
    one that does not require grad. An argument whose rule is ``None`` (``where``'s
    condition, ``gather``'s index) gets no edge; if it requires grad anyway the call
    raises PyTorch's "is not differentiable with respect to argument". A joint rule
    may list the arguments it differentiates in ``fn.inputs`` (``native_batch_norm``:
    not the running statistics) and returns one gradient per listed argument.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ember.autograd import _names, formulas
from ember.autograd.copy_slices import copy_slices, geometry
from ember.autograd.node import Node, SavedTensor, edge_of, mark, meta_of, short_name
from ember.core.dispatch_key import COMPOSITE, Autograd
from ember.core.dtype import FLOAT
from ember.core.tensor import Tensor
from ember.dispatcher import registry
from ember.dispatcher.registry import OpOverload, exclude_keys

__all__ = ["autograd_kernel", "FormulaNode", "MissingFormulaNode", "node_class", "clear"]

_MASK = Autograd.mask
_NOT = ~_MASK

Rule = tuple[Callable[..., Any], tuple[str, ...]]


@dataclass
class OpInfo:
    """What the kernel needs to know about one operator, computed once per formula table."""

    #: positions of the Tensor arguments (a ``Tensor[]`` one included) the rules align with
    tensor_pos: list[int]
    names: list[str]
    rule: Any
    inplace: bool
    is_out: bool
    passthrough: bool
    node_cls: type[Node]
    #: (node classes, chooser) when PyTorch's node name depends on the call
    variant: tuple[tuple[type[Node], ...], Callable[..., int]] | None = None
    #: the rules of the arguments that get an edge, in order (per-input rules only)
    rules: list[Rule] = field(default_factory=list)
    joint: Rule | None = None
    #: indices into ``tensor_pos`` of the arguments that get an edge (None: all of them)
    keep: list[int] | None = None
    #: whether ``tensor_pos[k]`` is a ``Tensor[]`` argument (None: no list argument)
    is_list: list[bool] | None = None
    #: the operator returns a ``Tensor[]`` whose elements are all differentiable outputs
    multi: bool = False
    #: a tuple-returning operator whose joint rule sets ``rule.outputs`` ("all" or output
    #: indices): those floating outputs are differentiable and the rule receives the list
    #: of every output's gradient
    all_outputs: bool = False
    diff_outputs: tuple[int, ...] | None = None
    #: schema argument name -> position
    index: dict[str, int] = field(default_factory=dict)
    #: what the rules read when every input needs a gradient
    needed: frozenset[str] = frozenset()


_infos: dict[OpOverload, OpInfo] = {}
_classes: dict[tuple[str, type[Node]], type[Node]] = {}


def clear() -> None:
    """Forget compiled formulas (the active formula table changed)."""
    _infos.clear()


def node_class(name: str, base: type[Node] | None = None, **attrs: Any) -> type[Node]:
    """The Node subclass named ``name`` (``MulBackward0``), created once."""
    b = base or FormulaNode
    cls = _classes.get((name, b))
    if cls is None:
        cls = _classes[name, b] = type(name, (b,), attrs)
    return cls


def _params(fn: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(inspect.signature(fn).parameters)[1:]


def _node_classes(op: OpOverload, base: type[Node], multi: bool) -> Any:
    key = (op.functional or op).qualname if op.schema.name.is_inplace else op.qualname
    attrs = {"multi_output_view": True} if multi else {}
    variant = _names.VARIANTS.get(key)
    name = _names.NAMES.get(key) or _names.default_name(op.schema.name.base)
    cls = node_class(name, base, **attrs)
    if variant is None:
        return cls, None
    return cls, (tuple(node_class(n, base, **attrs) for n in variant[0]), variant[1])


def _info(op: OpOverload) -> OpInfo:
    info = _infos.get(op)
    if info is not None:
        return info
    from ember.dispatcher.registry import _pyname

    args = op.schema.arguments
    pos = [
        i
        for i, a in enumerate(args)
        if a.type.base == "Tensor" and not (a.type.is_list and a.type.elem_optional)
    ]
    lists = [args[i].type.is_list for i in pos]
    rets = op.schema.returns
    multi = len(rets) == 1 and rets[0].type.is_list and rets[0].type.alias is not None
    found, rule = formulas.lookup(op)
    passthrough = not found and op.kernels.get(COMPOSITE) is not None
    cls, variant = _node_classes(op, MissingFormulaNode if not found else FormulaNode, multi)
    info = OpInfo(
        tensor_pos=pos,
        names=[_pyname(a.name) for a in args],
        rule=rule if found else formulas.MISSING,
        inplace=op.schema.name.is_inplace,
        is_out=op.schema.is_out,
        passthrough=passthrough,
        node_cls=cls,
        variant=variant,
        is_list=lists if any(lists) else None,
        multi=multi,
    )
    if found and rule is not None:
        if isinstance(rule, tuple):
            keep = [k for k, r in enumerate(rule) if r is not None or (k == 0 and info.inplace)]
            info.rules = [
                (r, _params(r)) if r is not None else (_zeros_rule, ())
                for r in map(rule.__getitem__, keep)
            ]
            info.keep = keep if len(keep) < len(pos) else None
        else:
            info.joint = (rule, _params(rule))
            outs = getattr(rule, "outputs", None)
            info.all_outputs = outs is not None
            info.diff_outputs = None if outs in (None, "all") else tuple(outs)
            diff = getattr(rule, "inputs", None)
            if diff is not None:
                info.keep = [k for k, i in enumerate(pos) if info.names[i] in diff]
    info.index = {n: i for i, n in enumerate(info.names)}
    if info.joint is not None:
        info.needed = frozenset(info.joint[1])
    else:
        info.needed = frozenset(n for r in info.rules for n in r[1])
    _infos[op] = info
    return info


def _zeros_rule(grad: Any) -> Any:
    from ember.autograd.formulas._helpers import zeros

    return zeros(grad)


def _strip(out: Any) -> Any:
    if type(out) is Tensor:
        if not out._requires_grad:
            out._ks &= _NOT
    elif isinstance(out, (tuple, list)):
        for o in out:
            _strip(o)
    return out


def autograd_kernel(op: OpOverload, ks: int, *args: Any) -> Any:
    """The boxed fallback registered for the Autograd key (see the module docstring)."""
    info = _infos.get(op) or _info(op)
    if info.passthrough and registry.decomposes(op, ks):
        return op.redispatch(ks, *args)
    if info.is_list is not None:
        return _list_call(op, info, ks, args)
    edges = []
    any_grad = False
    for i in info.tensor_pos:
        e = edge_of(args[i])
        edges.append(e)
        any_grad = any_grad or e is not None
    if not any_grad or info.rule is None:
        with exclude_keys(_MASK):
            return _strip(op.redispatch(ks, *args))
    if info.keep is not None:
        edges = _kept(op, info, edges)
    return _record(op, info, ks, args, edges, None)


def _list_call(op: OpOverload, info: OpInfo, ks: int, args: tuple[Any, ...]) -> Any:
    """``autograd_kernel`` for an operator with a ``Tensor[]`` argument (``cat``, ``stack``)."""
    assert info.is_list is not None
    per_arg: list[list[Any]] = []
    for i, is_list in zip(info.tensor_pos, info.is_list):
        per_arg.append([edge_of(t) for t in args[i]] if is_list else [edge_of(args[i])])
    if not any(e is not None for es in per_arg for e in es) or info.rule is None:
        with exclude_keys(_MASK):
            return _strip(op.redispatch(ks, *args))
    keep = range(len(per_arg)) if info.keep is None else info.keep
    flat = [e for k in keep for e in per_arg[k]]
    counts = [len(per_arg[k]) if info.is_list[k] else -1 for k in keep]
    if info.keep is not None:  # only checks that no other argument requires grad
        _kept(op, info, [next((e for e in es if e is not None), None) for es in per_arg])
    return _record(op, info, ks, args, flat, counts)


def _kept(op: OpOverload, info: OpInfo, edges: list[Any]) -> list[Any]:
    """The edges of the differentiable arguments; raise if another one requires grad."""
    assert info.keep is not None
    for k, e in enumerate(edges):
        if e is not None and k not in info.keep:
            name = op.schema.arguments[info.tensor_pos[k]].name
            raise RuntimeError(
                f"The function '{op.schema.name.base}' is not differentiable with respect to "
                f"argument '{name}'. This input cannot have requires_grad True."
            )
    return [edges[k] for k in info.keep]


def _inputs(info: OpInfo, args: tuple[Any, ...]) -> list[Any]:
    """The argument behind each edge (list elements flattened), in edge order."""
    keep = range(len(info.tensor_pos)) if info.keep is None else info.keep
    out: list[Any] = []
    for k in keep:
        a = args[info.tensor_pos[k]]
        if info.is_list is not None and info.is_list[k]:
            out.extend(a)
        else:
            out.append(a)
    return out


def _record(op: OpOverload, info: OpInfo, ks: int, args: tuple[Any, ...], edges: list[Any],
            counts: list[int] | None) -> Any:  # fmt: skip
    if info.is_out:
        raise RuntimeError(
            f"{op.schema.name.name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    ins = (
        map(args.__getitem__, info.tensor_pos)
        if counts is None and info.keep is None
        else _inputs(info, args)
    )
    metas = [meta_of(a) if isinstance(a, Tensor) else None for a in ins]
    self = args[0] if info.inplace else None
    view_base = None
    if self is not None:
        _check_inplace(self)
        view_base = self._base
    needed = info.needed if None not in edges else _needed_names(info, edges, counts)
    saved: dict[str, Any] = {}
    index = info.index
    for name in needed:
        if name.startswith("result"):
            continue
        i = index.get(name)
        if i is not None:
            v = args[i]
            if isinstance(v, Tensor):
                if self is not None and v is self:
                    v = v.clone()  # the op overwrites it; keep the value the formula needs
                saved[name] = SavedTensor(v)
            else:
                saved[name] = tuple(v) if isinstance(v, list) else v
        else:
            saved[name] = _meta_value(name, dict(zip(info.names, args)))
    base_edge = edge_of(view_base) if view_base is not None else None
    base_geo = geometry(view_base) if view_base is not None else None
    with exclude_keys(_MASK):
        out = op.redispatch(ks, *args)
    if out is args[0] and self is None:  # ``contiguous`` of a contiguous tensor returns its
        return out  # input, which keeps its own history
    cls = info.node_cls if info.variant is None else info.variant[0][info.variant[1](args, out)]
    node = cls()
    node.op = op  # type: ignore[attr-defined]
    node.next_edges = edges
    node.input_meta = metas
    node.saved = saved  # type: ignore[attr-defined]
    if counts is not None:
        node.counts = counts  # type: ignore[attr-defined]
    if isinstance(out, Tensor):
        if "result" in needed:
            saved["result"] = SavedTensor(out, is_output=True)
        if "result_geometry" in needed:
            saved["result_geometry"] = geometry(out)
        if out._dtype.category == FLOAT:
            mark(out, node, 0)
            if view_base is not None and base_geo is not None:
                copy_slices(view_base, base_edge, base_geo, out, node)
    elif info.multi:
        node.n_outputs = len(out)
        for k, o in enumerate(out):
            if o._dtype.category == FLOAT:
                mark(o, node, k)
    elif isinstance(out, tuple) and out and isinstance(out[0], Tensor):
        # Multi-output primitives (sort, max_pool2d_with_indices, native_*_norm): the first
        # output is differentiable; the others (indices, statistics) are what formulas read
        # as ``result1``, ``result2``, ...
        # (``rule.outputs = "all"``: linalg decompositions, every floating output is.)
        first = out[0]
        if "result" in needed:
            saved["result"] = SavedTensor(first, is_output=True)
        for j in range(1, len(out)):
            if f"result{j}" in needed:
                saved[f"result{j}"] = SavedTensor(out[j])
        if info.all_outputs:
            node.n_outputs = len(out)
            diff = info.diff_outputs
            for k, o in enumerate(out):
                if o._dtype.category == FLOAT and (diff is None or k in diff):
                    mark(o, node, k)
        elif first._dtype.category == FLOAT:
            mark(first, node, 0)
    return out


def _check_inplace(self: Tensor) -> None:
    fn = self.grad_fn
    if fn is None and self._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    if fn is not None and fn.multi_output_view:
        raise RuntimeError(
            f"Output {self.output_nr} of {short_name(fn)} is a view and is being modified inplace. "
            "This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one."
        )
    b = self._base
    if b is not None and b.grad_fn is None and b._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


def _needed_names(info: OpInfo, edges: list[Any], counts: list[int] | None) -> set[str]:
    if info.joint is not None:
        return set(info.joint[1])
    out: set[str] = set()
    if counts is not None:  # list arguments: every rule with an input that needs a gradient
        i = 0
        for r, n in zip(info.rules, counts):
            m = 1 if n < 0 else n
            if any(e is not None for e in edges[i : i + m]):
                out.update(r[1])
            i += m
        return out
    for r, e in zip(info.rules, edges):
        if e is not None:
            out.update(r[1])
    return out


def _meta_value(name: str, values: dict[str, Any]) -> Any:
    arg, _, what = name.rpartition("_")
    t = values.get(arg)
    if isinstance(t, Tensor) and what == "shape":
        return tuple(t._shape)
    if isinstance(t, Tensor) and what == "geometry":
        return geometry(t)
    if isinstance(t, (list, tuple)) and what == "shape":
        return tuple(tuple(x._shape) for x in t)
    if t is None and arg in values:
        return None
    raise TypeError(
        f"formula parameter '{name}' names no argument of the operator; use an argument name, "
        "'result', '<arg>_shape', '<arg>_geometry' or 'result_geometry'"
    )


class FormulaNode(Node):
    """A node whose backward is a formula from the active table (Note [Formula parameters])."""

    op: OpOverload
    saved: dict[str, Any]
    counts: list[int] | None = None

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
        info = _infos.get(self.op) or _info(self.op)
        g = grads if info.multi or info.all_outputs else grads[0]
        if info.joint is not None:
            fn, names = info.joint
            res = fn(g, **self._values(names))
            return list(res) if isinstance(res, (tuple, list)) else [res]
        out: list[Tensor | None] = []
        if self.counts is None:
            for (fn, names), e in zip(info.rules, self.next_edges):
                out.append(None if e is None else fn(g, **self._values(names)))
            return out
        i = 0
        for (fn, names), n in zip(info.rules, self.counts):
            m = 1 if n < 0 else n
            if all(e is None for e in self.next_edges[i : i + m]):
                out.extend([None] * m)
            elif n < 0:
                out.append(fn(g, **self._values(names)))
            else:
                out.extend(fn(g, **self._values(names)))
            i += m
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
