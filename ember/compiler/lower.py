"""Lowering a ``Graph`` to a Python function: the wrapper code every backend runs.

``lower(graph)`` writes the graph as the source of one Python function, one statement per
node (``v3 = k3(v1, in0, 2)``), compiles it, and returns it. Each ``k`` is the kernel the
dispatcher would reach *below* autograd for the key set the node was recorded with
(resolved once, here), so a replay pays neither dispatch nor autograd recording; a fused
node's ``k`` calls the kernel its device generated. What must always hold:

- the nodes run in recorded order (mutation and aliasing are as captured: Note [Graph
  semantics] in ``graph.py``), then the side effects (``leaf.grad = v``);
- an intermediate value is dropped right after its last use (memory planning: a replay
  never holds more than the eager run did), inputs and outputs are never dropped;
- inputs are read as the graph says: ``A[i]`` (the flattened arguments), the object
  itself (by reference), or a fresh copy of a captured constant.

Examples:
    >>> import ember
    >>> from ember.compiler.capture import capture
    >>> from ember.compiler.lower import lower
    >>> _, cap = capture(lambda x: (x * 2).relu(), (ember.ones(2),), {})
    >>> fn = lower(cap.graph)
    >>> fn([ember.tensor([-1.0, 3.0])])
    tensor([0., 6.])
    >>> print(fn.source.strip().splitlines()[0])
    def compiled(A):
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from ember.core import dispatch_key as dk
from ember.core.tensor import Size, make_tensor

from .graph import Graph, Node, Value

__all__ = ["lower", "last_uses", "BELOW_AUTOGRAD"]

#: Keys a replay drops from each node's recorded key set: the graph *is* the program.
BELOW_AUTOGRAD = ~(dk.Autograd.mask | dk.Tracer.mask)

_INLINE = (int, bool, str, type(None))


def last_uses(graph: Graph) -> dict[int, list[Value]]:
    """node position -> the intermediate Values whose last use it is (memory planning)."""
    keep = {i.value.index for i in graph.inputs}
    keep |= {v.index for v in graph.output_values()}
    last: dict[int, tuple[int, Value]] = {}
    for pos, n in enumerate(graph.nodes):
        for v in n.inputs():
            last[v.index] = (pos, v)
        for o in n.outs:
            if o is not None and o.index not in last:
                last[o.index] = (pos, o)  # never read: dropped where it is made
    out: dict[int, list[Value]] = {}
    for idx, (pos, v) in last.items():
        if idx not in keep:
            out.setdefault(pos, []).append(v)
    return out


class _Source:
    """Builds the function's text and its globals (kernels and constants)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.globals: dict[str, Any] = {}

    def bind(self, prefix: str, obj: Any) -> str:
        name = f"{prefix}{len(self.globals)}"
        self.globals[name] = obj
        return name

    def expr(self, a: Any) -> str:
        if isinstance(a, Value):
            return a.name
        if isinstance(a, list):
            return "[" + ", ".join(self.expr(x) for x in a) + "]"
        if isinstance(a, tuple):
            return "(" + "".join(self.expr(x) + ", " for x in a) + ")"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{k!r}: {self.expr(v)}" for k, v in a.items()) + "}"
        if isinstance(a, _INLINE) and type(a) in (int, bool, str, type(None)):
            return repr(a)
        if isinstance(a, float) and a == a and abs(a) != float("inf"):
            return repr(float(a))  # numpy's float64 prints as np.float64(...)
        return self.bind("c", a)


def kernel_of(n: Node, autograd: bool = False) -> Callable[..., Any]:
    """The callable a node runs in a replay (with ``autograd``: the one that records the
    node's backward, as an eager call would)."""
    if n.fused is not None:
        return n.kernel  # type: ignore[no-any-return]
    if autograd:
        # a full dispatch: an op recorded below another op's autograd kernel (inside a
        # decomposition) must record its own backward now that it runs on its own
        return _dispatching(n.op)
    return n.op.kernel_for(n.ks & BELOW_AUTOGRAD)  # type: ignore[no-any-return]


def _dispatching(op: Any) -> Callable[..., Any]:
    """``op`` called through the dispatcher with the schema's arguments positionally."""
    args = op.schema.arguments
    n_pos = sum(1 for a in args if not a.kwarg_only)
    if n_pos == len(args):
        return op._fn  # type: ignore[no-any-return]
    kw = tuple(a.name + "_" if keyword.iskeyword(a.name) else a.name for a in args[n_pos:])
    fn = op._fn

    def call(*a: Any) -> Any:
        return fn(*a[:n_pos], **dict(zip(kw, a[n_pos:])))

    return call


def _empty_like(t: Any) -> Callable[[], Any]:
    """A function allocating an uninitialised tensor with ``t``'s layout and device."""
    from ember.operators.drivers import new_empty

    shape, stride, dtype, dev = Size(t._shape), tuple(t._stride), t._dtype, t._device
    if t.is_contiguous():
        return lambda: new_empty(shape, dtype, dev)

    def empty() -> Any:
        import ember

        return ember.empty_strided(shape, stride, dtype=dtype, device=dev)

    return empty


def _view_maker(n: Node) -> Callable[[Any], Any] | None:
    """For a view node (Note [Graph semantics]): a function making the view from its
    argument directly (shape and strides are as captured: guards fix them)."""
    if n.alias_offset is None or n.out_spec is not None or n.fused is not None:
        return None
    if not n.args or not isinstance(n.args[0], Value) or n.outs[0] is None:
        return None
    meta = n.outs[0].meta
    if meta is None:
        return None
    shape, stride, delta = Size(meta.shape), tuple(meta.stride), n.alias_offset
    dtype, dev = meta.dtype, meta.device

    def make(x: Any) -> Any:
        v = make_tensor(x._storage, shape, stride, x._offset + delta, dtype, dev, x._ks)
        v._base = x if x._base is None else x._base
        return v

    return make


def lower(
    graph: Graph, name: str = "compiled", autograd: bool = False
) -> Callable[[list[Any]], Any]:
    """The graph as a Python function of the flattened tensor arguments ``A`` (with
    ``autograd``, each node records its backward as in eager mode)."""
    src = _Source()
    body = src.lines
    for inp in graph.inputs:
        v = inp.value.name
        if inp.kind == "arg":
            body.append(f"{v} = A[{inp.index}]")
        elif inp.kind == "ref":
            body.append(f"{v} = {src.bind('r', inp.obj)}")
        elif inp.kind == "empty":
            body.append(f"{v} = {src.bind('e', _empty_like(inp.obj))}()")
        else:
            body.append(f"{v} = {src.bind('f', inp.obj.clone)}()")
    drops = last_uses(graph)
    for pos, n in enumerate(graph.nodes):
        view = None if autograd else _view_maker(n)
        if view is not None:  # a view: new metadata over the same memory, no dispatch
            call = f"{src.bind('view', view)}({n.args[0].name})"
        else:
            call = (
                f"{src.bind('k', kernel_of(n, autograd))}({', '.join(src.expr(a) for a in n.args)})"
            )
        if n.out_spec == "none" or not n.outs:
            body.append(call)
        elif n.out_spec is None:
            body.append(f"{n.outs[0].name} = {call}")  # type: ignore[union-attr]
        else:
            names = [v.name if v is not None else "_" for v in n.outs]
            body.append(f"{', '.join(names)}, = {call}")
        dead = drops.get(pos)
        if dead:
            body.append(f"del {', '.join(v.name for v in dead)}")
    for s in graph.side_effects:
        val = s.value.name if s.value is not None else "None"
        body.append(f"{src.bind('leaf', s.leaf)}._grad = {val}")
    body.append(f"return {src.expr(graph.output)}")
    text = f"def {name}(A):\n" + "".join(f"    {ln}\n" for ln in body)
    scope: dict[str, Any] = dict(src.globals)
    exec(compile(text, f"<ember.compile {name}>", "exec"), scope)  # noqa: S102 - our own text
    fn = scope[name]
    fn.source = text
    fn.constants = src.globals
    return fn  # type: ignore[no-any-return]
