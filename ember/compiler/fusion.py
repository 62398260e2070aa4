"""Elementwise fusion: runs of elementwise nodes become one ``FusedKernel`` per run.

``fuse(graph)`` walks the nodes in order and grows a group while the next node is an
elementwise operator the kernel language has (``TRANSLATE``: a table from operator to
instructions, never a branch per operator) over the same index space and device. Each
group of two or more nodes becomes one fused node whose kernel the device's code
generator builds (``DeviceBackend.compile_kernels``, once per graph); a device without
a generator (or a kernel it declines) keeps the group's nodes as they were.

What always holds (Note [Fusion safety]):

- a group is a run of *consecutive* nodes, so the fused node runs where they ran and
  every write keeps its place in the order;
- a value made inside a group is stored only if something after the group reads it (or
  the graph returns it); the others never reach memory;
- an in-place node writes its target at the end of the kernel, so a group that writes a
  memory root reads that root only through the very value it writes (same layout: each
  element is read before it is written, by the same work item); a view of it ends the
  group;
- every stored value was contiguous when captured (the kernel writes contiguous
  outputs), so strides are as eager's.

Note [Fused reductions]
    A group may end with ``sum``/``amax``/``amin`` of a value it makes when the group
    stores nothing else (no in-place write, no other value read later). The kernel's
    index space is the group's with the reduced dims moved last (the inputs' views are
    permuted the same way: any dims can be reduced, the batch dim of a bias gradient
    included), and it stores the reduction's result (contiguous; ``keepdim`` only adds
    size-1 dims, the same memory). A reduction that needs a full-size value stored too
    stays unfused.

Examples:
    >>> import ember
    >>> from ember.compiler.capture import capture
    >>> from ember.compiler.fusion import plan_groups
    >>> f = lambda a, b: ((a * b + 1).relu() * a).exp()
    >>> _, cap = capture(f, (ember.ones(4), ember.ones(4)), {})
    >>> [len(g.nodes) for g in plan_groups(cap.graph)]
    [5]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ember.core import providers
from ember.core.tensor import Size
from ember.operators.drivers import new_empty
from ember.operators.views import view_of

from .graph import Graph, Node, Value
from .kernel import Apply, Cast, Const, FusedKernel, Instr, Load, Reduce
from .passes import alias_roots, is_view

__all__ = ["fuse", "plan_groups", "TRANSLATE", "Group"]

_HALF = ("float16", "bfloat16")
_ORDER = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip


def _cdtype(dt: str) -> str:
    return "float32" if dt in _HALF else dt


class _Emit:
    """Appends instructions for one node; operands are instruction indices."""

    def __init__(self, body: list[Instr], dtype: str):
        self.body = body
        self.dtype = dtype  # the node's result dtype
        self.c = _cdtype(dtype)

    def push(self, ins: Instr) -> int:
        self.body.append(ins)
        return len(self.body) - 1

    def const(self, x: Any, dtype: str | None = None) -> int:
        return self.push(Const(x, dtype or self.c))

    def ap(self, op: str, *args: int, dtype: str | None = None, cdtype: str | None = None) -> int:
        return self.push(Apply(op, args, dtype or self.dtype, cdtype or self.c))


# Each translator gets (emit, operands) where an operand is an instruction index (a
# tensor) or a Python number, and returns the instruction of the node's result.
Translator = Callable[[_Emit, list[Any]], int]


class _R(int):
    """An operand that is an instruction (a tensor), not a Python number."""


def _opnd(e: _Emit, x: Any) -> int:
    return int(x) if isinstance(x, _R) else e.const(x)


def _unary(name: str) -> Translator:
    return lambda e, a: e.ap(name, _opnd(e, a[0]))


def _binary(name: str) -> Translator:
    return lambda e, a: e.ap(name, _opnd(e, a[0]), _opnd(e, a[1]))


def _alpha(name: str) -> Translator:
    def tr(e: _Emit, a: list[Any]) -> int:
        other = _opnd(e, a[1])
        if len(a) > 2 and a[2] != 1:
            other = e.ap("mul", other, e.const(a[2]))
        return e.ap(name, _opnd(e, a[0]), other)

    return tr


def _compare(name: str) -> Translator:
    def tr(e: _Emit, a: list[Any]) -> int:
        c = e.cmp_dtype  # type: ignore[attr-defined]
        x = int(a[0]) if isinstance(a[0], _R) else e.const(a[0], c)
        y = int(a[1]) if isinstance(a[1], _R) else e.const(a[1], c)
        return e.ap(name, x, y, dtype="bool", cdtype=c)

    return tr


def _addc(inner: str) -> Translator:
    def tr(e: _Emit, a: list[Any]) -> int:
        t = e.ap(inner, _opnd(e, a[1]), _opnd(e, a[2]))
        if len(a) > 3 and a[3] != 1:
            t = e.ap("mul", t, e.const(a[3]))
        return e.ap("add", _opnd(e, a[0]), t)

    return tr


def _where(e: _Emit, a: list[Any]) -> int:
    cond = int(a[0]) if isinstance(a[0], _R) else e.const(bool(a[0]), "bool")
    return e.ap("where", cond, _opnd(e, a[1]), _opnd(e, a[2]))


def _clamp(e: _Emit, a: list[Any]) -> int:
    x = _opnd(e, a[0])
    if len(a) > 1 and a[1] is not None:
        x = e.ap("maximum", x, _opnd(e, a[1]))
    if len(a) > 2 and a[2] is not None:
        x = e.ap("minimum", x, _opnd(e, a[2]))
    return x


_UNARY = ("neg abs relu sign floor ceil trunc round frac reciprocal sqrt rsqrt exp exp2 expm1 "
          "log log2 log10 log1p sin cos tan tanh sigmoid silu").split()  # fmt: skip
_BINARY = {"mul.Tensor": "mul", "mul.Scalar": "mul", "div.Tensor": "div", "div.Scalar": "div",
           "maximum": "maximum", "minimum": "minimum", "pow.Tensor_Tensor": "pow",
           "pow.Tensor_Scalar": "pow", "atan2": "atan2"}  # fmt: skip
_COMPARE = {
    f"{c}.{o}": c for c in ("eq", "ne", "lt", "le", "gt", "ge") for o in ("Tensor", "Scalar")
}

#: ``base.overload`` (in-place variants share their functional's entry) -> translator.
TRANSLATE: dict[str, Translator] = {
    **{u: _unary(u) for u in _UNARY},
    **{k: _binary(v) for k, v in _BINARY.items()},
    **{k: _compare(v) for k, v in _COMPARE.items()},
    "add.Tensor": _alpha("add"),
    "add.Scalar": _alpha("add"),
    "sub.Tensor": _alpha("sub"),
    "sub.Scalar": _alpha("sub"),
    "addcmul": _addc("mul"),
    "addcdiv": _addc("div"),
    "where.self": _where,
    "clamp": _clamp,
    "clamp_min": lambda e, a: e.ap("maximum", _opnd(e, a[0]), _opnd(e, a[1])),
    "clamp_max": lambda e, a: e.ap("minimum", _opnd(e, a[0]), _opnd(e, a[1])),
    "square": lambda e, a: e.ap("mul", _opnd(e, a[0]), _opnd(e, a[0])),
    "logical_not": lambda e, a: e.ap("logical_not", int(a[0]), dtype="bool", cdtype=e.in_dtypes[0]),  # type: ignore[attr-defined]
}


def _table_key(n: Node) -> str | None:
    if n.fused is not None or not hasattr(n.op, "schema"):
        return None
    name = n.op.schema.name
    if n.op.namespace != "aten":
        return None
    base = name.name[:-1] if name.is_inplace else name.name
    return f"{base}.{name.overload}" if name.overload else base


@dataclass
class Group:
    """One run of fusible nodes and what its kernel loads and stores."""

    shape: tuple[int, ...]
    device: Any
    nodes: list[Node] = field(default_factory=list)
    body: list[Instr] = field(default_factory=list)
    loads: list[Value] = field(default_factory=list)
    #: value index -> instruction holding its current value inside the group
    current: dict[int, int] = field(default_factory=dict)
    written: dict[int, Value] = field(default_factory=dict)  # in-place targets
    made: dict[int, Value] = field(default_factory=dict)  # values the group makes
    #: a reduction closing the group: (op, reduced dims, keepdim, its result)
    reduce: tuple[str, tuple[int, ...], bool, Value] | None = None


def _promote(dts: list[str]) -> str:
    return max(dts, key=_ORDER.index)


def _try_add(g: Group, n: Node, roots: dict[int, int]) -> bool:
    """Translate ``n`` into ``g`` (all or nothing)."""
    key = _table_key(n)
    tr = TRANSLATE.get(key) if key is not None else None
    if tr is None or n.out_spec is not None or len(n.outs) != 1 or n.outs[0] is None:
        return False
    out = n.outs[0]
    meta = out.meta
    if meta is None or meta.shape != g.shape or meta.device != g.device:
        return False
    if meta.dtype.name not in _ORDER:
        return False
    inplace = n.op.schema.name.is_inplace
    if inplace and (not isinstance(n.args[0], Value) or n.args[0].index != out.index):
        return False
    tensors = [a for a in n.args if isinstance(a, Value)]
    if any(isinstance(a, (list, tuple, dict)) for a in n.args):
        return False
    for v in tensors:
        m = v.meta
        if m is None or m.device != g.device or m.dtype.name not in _ORDER:
            return False
        if len(m.shape) > len(g.shape):
            return False
    # Note [Fusion safety]: reads and writes of one memory root go through one value
    written_roots = {roots.get(i, i): i for i in g.written}
    if inplace:
        r = roots.get(out.index, out.index)
        for v in g.loads + tensors:
            if roots.get(v.index, v.index) == r and v.index != out.index:
                return False
        written_roots[r] = out.index
    for v in tensors:
        r = roots.get(v.index, v.index)
        if r in written_roots and written_roots[r] != v.index:
            return False
    body = list(g.body)
    loads = list(g.loads)
    current = dict(g.current)

    def operand(a: Any) -> Any:
        if not isinstance(a, Value):
            return a
        i = current.get(a.index)
        if i is None:
            loads.append(a)
            body.append(Load(len(loads) - 1))
            i = len(body) - 1
            dt = a.meta.dtype.name  # type: ignore[union-attr]
            if dt in _HALF:
                body.append(Cast(i, "float32"))
                i = len(body) - 1
            current[a.index] = i
        return _R(i)

    ops = [operand(a) for a in n.args]
    if len(loads) > 64:
        return False  # what a device's generated code takes at most
    e = _Emit(body, meta.dtype.name)
    in_dts = [v.meta.dtype.name for v in tensors]  # type: ignore[union-attr]
    e.in_dtypes = [_cdtype(d) for d in in_dts]  # type: ignore[attr-defined]
    if key in _COMPARE:
        scalars = [a for a in n.args[:2] if not isinstance(a, Value)]
        cats = {"f" if d.startswith(("float", "bfloat")) else "i" for d in in_dts}
        if any(isinstance(s, float) for s in scalars):
            cats.add("f")
        if len(cats) > 1 or len(set(in_dts)) > 1:
            return False  # mixed categories: promotion is the dispatcher's business
        e.cmp_dtype = _cdtype(in_dts[0])  # type: ignore[attr-defined]
    res = tr(e, ops)
    ins = body[res]
    if not isinstance(ins, Apply) or ins.dtype != meta.dtype.name:
        return False  # e.g. clamp with no bounds: nothing to compute
    if meta.dtype.name in _HALF:
        body.append(Cast(res, "float32"))  # later ops read the rounded value widened
        res = len(body) - 1
    g.body, g.loads, g.current = body, loads, current
    current[out.index] = res
    if inplace and out.index not in g.made:
        g.written[out.index] = out
    elif not inplace:
        g.made[out.index] = out
    g.nodes.append(n)
    return True


_REDUCTIONS = {"sum.dim_IntList": "sum", "amax": "amax", "amin": "amin"}


def _try_reduce(g: Group, n: Node) -> bool:
    """Close ``g`` with reduction ``n`` of a value ``g`` makes (Note [Fused reductions])."""
    key = _table_key(n)
    op = _REDUCTIONS.get(key or "")
    if op is None or g.written or n.out_spec is not None or n.outs[0] is None:
        return False
    src = n.args[0]
    if not isinstance(src, Value) or src.index not in g.made:
        return False
    dims = n.args[1] if len(n.args) > 1 else None
    keepdim = bool(n.args[2]) if len(n.args) > 2 else False
    if op == "sum" and len(n.args) > 3 and n.args[3] is not None:
        return False  # an explicit dtype: the dispatcher's business
    nd = len(g.shape)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        red = tuple(range(nd))
    else:
        red = tuple(sorted({d % nd if nd else 0 for d in dims}))
    out = n.outs[0]
    if out.meta is None or not out.meta.contiguous or nd == 0:
        return False
    if op != "sum" and any(g.shape[d] == 0 for d in red):
        return False  # amax of nothing raises in eager
    g.reduce = (op, red, keepdim, out)
    g.nodes.append(n)
    return True


def plan_groups(graph: Graph) -> list[Group]:
    """The runs of consecutive fusible nodes (two or more nodes each)."""
    roots = alias_roots(graph)
    groups: list[Group] = []
    cur: Group | None = None
    for n in graph.nodes:
        meta = n.outs[0].meta if len(n.outs) == 1 and n.outs[0] is not None else None
        if cur is not None and meta is not None and _try_add(cur, n, roots):
            continue
        if cur is not None and _try_reduce(cur, n):
            groups.append(cur)
            cur = None
            continue
        if (
            cur is not None
            and is_view(n)
            and not any(v.index in cur.made or v.index in cur.written for v in n.inputs())
        ):
            continue  # a view reads no memory: it stays where it is, before the fused node
        if cur is not None and len(cur.nodes) > 1:
            groups.append(cur)
        cur = None
        if meta is not None and not is_view(n):
            g = Group(tuple(meta.shape), meta.device)
            if _try_add(g, n, roots):
                cur = g
    if cur is not None and len(cur.nodes) > 1:
        groups.append(cur)
    return groups


def _stored(graph: Graph, groups: list[Group]) -> list[list[Value]]:
    """For each group, the values it must store: in-place targets, and values it makes
    that a later node, the output or a side effect reads."""
    pos = {id(n): i for i, n in enumerate(graph.nodes)}
    final = {v.index for v in graph.output_values()}
    readers: dict[int, int] = {}  # value index -> last node position reading it
    for i, n in enumerate(graph.nodes):
        for v in n.inputs():
            readers[v.index] = i
    out: list[list[Value]] = []
    for g in groups:
        end = pos[id(g.nodes[-1])]
        keep = list(g.written.values())
        for idx, v in g.made.items():
            if idx in final or readers.get(idx, -1) > end:
                keep.append(v)
        if g.reduce is not None:
            if keep:  # a full-size value is needed too: the reduction stays unfused
                g.nodes.pop()
                g.reduce = None
                end = pos[id(g.nodes[-1])]
                keep = [
                    v for idx, v in g.made.items() if idx in final or readers.get(idx, -1) > end
                ]
            else:
                keep = [g.reduce[3]]
        out.append(keep)
    return out


class _FusedCall:
    """What a fused node runs: make the kernel's inputs (views of the index space) and
    outputs (new contiguous tensors, or the in-place targets), then run the kernel."""

    def __init__(self, fn: Any, group: Group, stored: list[Value]):
        self.fn = fn
        shape = group.shape
        perm = list(range(len(shape)))
        if group.reduce is not None:  # reduced dims last (Note [Fused reductions])
            red = group.reduce[1]
            perm = [d for d in perm if d not in red] + list(red)
        self.shape = tuple(shape[d] for d in perm)
        self.out_shape = Size(
            tuple(group.reduce[3].meta.shape) if group.reduce is not None else shape  # type: ignore[union-attr]
        )
        self.expand: list[tuple[int, ...] | None] = []  # an input's broadcast strides
        for v in group.loads:
            m = v.meta
            assert m is not None
            if m.shape == shape and perm == sorted(perm):
                self.expand.append(None)
            else:
                st = _expand_plan(m, shape)
                self.expand.append(tuple(st[d] for d in perm))
        n_in = len(group.loads)
        self.n_in = n_in
        # outputs: (argument index of an in-place target, or None, dtype, device)
        arg_of = {v.index: i for i, v in enumerate(group.loads)}
        self.outs = [
            (arg_of.get(v.index) if v.index in group.written else None, v.meta.dtype, v.meta.device)  # type: ignore[union-attr]
            for v in stored
        ]

    def __call__(self, *args: Any) -> Any:
        ins = list(args[: self.n_in])
        for i, plan in enumerate(self.expand):
            if plan is not None:
                t = ins[i]
                ins[i] = view_of(t, self.shape, plan, t._offset)
        outs = []
        for idx, dt, dev in self.outs:
            if idx is None:
                outs.append(_empty(self.out_shape, dt, dev))
            else:
                t = args[idx]
                t._storage.version += 1
                outs.append(t)
        self.fn(ins, outs)
        return outs


def _expand_plan(m: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Strides of a value broadcast to ``shape`` (0 on new and size-1 dims)."""
    lead = len(shape) - len(m.shape)
    tail = [0 if size == 1 else st for size, st in zip(m.shape, m.stride)]
    return tuple([0] * lead + tail)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _empty(shape: tuple[int, ...], dtype: Any, dev: Any) -> Any:
    return new_empty(shape, dtype, dev)


def fuse(graph: Graph) -> int:
    """Replace each group of fusible nodes by one fused node; returns how many were made."""
    groups = plan_groups(graph)
    if not groups:
        return 0
    stored = _stored(graph, groups)
    kernels = []
    for g, keep in zip(groups, stored):
        outputs: tuple[int, ...]
        if g.reduce is not None:  # the reduction's operand is what the kernel stores
            outputs = (g.current[g.nodes[-1].args[0].index],)  # type: ignore[union-attr]
        else:
            outputs = tuple(g.current[v.index] for v in keep)
        body = list(g.body)
        out_dtypes = []
        outs_ix = []
        for v, ix in zip(keep, outputs):
            dt = v.meta.dtype.name  # type: ignore[union-attr]
            ins = body[ix]
            if (
                dt in _HALF
                or (isinstance(ins, Load) and g.loads[ins.input].meta.dtype.name != dt)  # type: ignore[union-attr]
                or (isinstance(ins, (Apply, Cast)) and ins.dtype != dt)
            ):
                body.append(Cast(ix, dt))
                ix = len(body) - 1
            out_dtypes.append(dt)
            outs_ix.append(ix)
        kernels.append(
            FusedKernel(
                inputs=tuple(v.meta.dtype.name for v in g.loads),  # type: ignore[union-attr]
                body=tuple(body),
                outputs=tuple(outs_ix),
                out_dtypes=tuple(out_dtypes),
                reduce=Reduce(g.reduce[0], len(g.reduce[1])) if g.reduce is not None else None,
                scalars=tuple(
                    i
                    for i, v in enumerate(g.loads)
                    if v.meta is not None and _numel(v.meta.shape) == 1 and _numel(g.shape) > 1
                ),
            )
        )
    by_device: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        by_device.setdefault(g.device.type, []).append(i)
    fns: list[Any] = [None] * len(groups)
    for dev_type, idxs in by_device.items():
        built = providers.backend(dev_type).compile_kernels([kernels[i] for i in idxs])
        for i, fn in zip(idxs, built):
            fns[i] = fn
    made = 0
    replace: dict[int, Node] = {}
    drop: set[int] = set()
    for g, keep, k, fn in zip(groups, stored, kernels, fns):
        if fn is None or any(v.meta is None or not v.meta.contiguous for v in keep):
            continue
        node = Node(
            op=None,
            args=tuple(g.loads),
            outs=tuple(keep),
            out_spec=len(keep),
            where=g.nodes[-1].where,
            fused=list(g.nodes),
            kernel=_FusedCall(fn, g, keep),
        )
        node.kernel.describe = k.describe  # type: ignore[attr-defined]
        node.kernel.spec = k  # type: ignore[attr-defined]
        replace[id(g.nodes[-1])] = node
        drop.update(id(n) for n in g.nodes[:-1])
        made += 1
    graph.nodes = [replace.get(id(n), n) for n in graph.nodes if id(n) not in drop]
    return made
