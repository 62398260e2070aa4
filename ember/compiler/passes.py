"""Graph passes: small functions that rewrite a ``Graph`` in place.

Each pass keeps Note [Graph semantics] (``graph.py``): nodes run in order, mutation is kept,
so a pass must know which values share memory and which nodes write. ``alias_roots``
gives, for every value, the value whose memory it views (a view op's schema says its
result aliases an argument); a node *writes* the roots of its ``Tensor(a!)`` arguments.

- ``eliminate_dead_code``: drop nodes whose results nobody reads, unless they write
  memory, draw random numbers (their generator's state is an effect) or return nothing.
- ``eliminate_common_subexpressions``: a pure node equal to an earlier one (same
  operator, same arguments, and no write to those arguments' memory in between) reuses
  the earlier result. Views, random operators and the graph's outputs are left alone.
- ``fold_constants``: a node that reads no graph value and draws no random numbers is
  computed once, at compile time, when nothing writes its result or returns it; and a
  fresh input (a tensor the function builds from Python data each call) that nothing
  writes or returns becomes one constant instead of a copy per call.

Decomposition needs no pass of its own: capture records the operators a Composite kernel
decomposes into (``capture.py``), so a graph already holds the primitives the device
runs.

Examples:
    >>> import ember
    >>> from ember.compiler.capture import capture
    >>> from ember.compiler import passes
    >>> def f(x):
    ...     unused = x.exp()
    ...     return x.sin() + x.sin()
    >>> _, cap = capture(f, (ember.ones(2),), {})
    >>> passes.eliminate_dead_code(cap.graph), passes.eliminate_common_subexpressions(cap.graph)
    (1, 1)
    >>> [n.name for n in cap.graph.nodes]
    ['aten::sin', 'aten::add.Tensor']
"""

from __future__ import annotations

from typing import Any

from .graph import Graph, Input, Node, Value, map_values

__all__ = [
    "elide_copies",
    "hoist_scalars",
    "overwritten_inputs",
    "alias_roots",
    "eliminate_dead_code",
    "eliminate_common_subexpressions",
    "fold_constants",
    "is_random",
    "is_view",
]


def is_random(n: Node) -> bool:
    """True if the node's operator draws random numbers (takes a Generator)."""
    if n.fused is not None:
        return False
    cached = n.op.__dict__.get("_is_random")
    if cached is None:
        cached = any(a.type.base == "Generator" for a in n.op.schema.arguments)
        n.op.__dict__["_is_random"] = cached
    return bool(cached)


def is_view(n: Node) -> bool:
    """True if the node's result aliases an argument (a view operator)."""
    if n.fused is not None:
        return False
    cached = n.op.__dict__.get("_is_view")
    if cached is None:
        cached = any(
            r.type.alias is not None and not r.type.alias.is_write for r in n.op.schema.returns
        )
        n.op.__dict__["_is_view"] = cached
    return bool(cached)


def _view_source(n: Node) -> Value | None:
    """The argument a view node's result aliases (its first tensor argument)."""
    for a in n.args:
        if isinstance(a, Value):
            return a
    return None


def alias_roots(graph: Graph) -> dict[int, int]:
    """value index -> index of the value whose memory it is (itself for non-views)."""
    root: dict[int, int] = {i.value.index: i.value.index for i in graph.inputs}
    for n in graph.nodes:
        src = _view_source(n) if is_view(n) else None
        for v in n.outs:
            if v is None:
                continue
            if src is not None:
                root[v.index] = root.get(src.index, src.index)
            else:
                root.setdefault(v.index, v.index)
    return root


def _written(n: Node) -> list[Value]:
    out: list[Value] = []
    for pos in n.mutates:
        if pos < len(n.args):
            a = n.args[pos]
            if isinstance(a, Value):
                out.append(a)
            elif isinstance(a, (list, tuple)):
                out += [x for x in a if isinstance(x, Value)]
    if n.fused is not None:
        out += [v for v in n.outs if v is not None and v in n.inputs()]
    return out


def eliminate_dead_code(graph: Graph) -> int:
    """Remove nodes whose results are never read; returns how many were removed."""
    live = {v.index for v in graph.output_values()}
    roots = alias_roots(graph)
    written_roots = {roots.get(v.index, v.index) for n in graph.nodes for v in _written(n)}
    kept: list[Node] = []
    for n in reversed(graph.nodes):
        outs = [v for v in n.outs if v is not None]
        needed = (
            not outs
            or n.out_spec == "none"
            or bool(_written(n))
            or is_random(n)
            or any(v.index in live for v in outs)
            # a view of memory something writes: keep (the write may be through it)
            or (is_view(n) and any(roots.get(v.index) in written_roots for v in outs))
        )
        if needed:
            kept.append(n)
            live.update(v.index for v in n.inputs())
    removed = len(graph.nodes) - len(kept)
    graph.nodes = kept[::-1]
    return removed


def _key(a: Any, versions: dict[int, int], roots: dict[int, int]) -> Any:
    if isinstance(a, Value):
        r = roots.get(a.index, a.index)
        return ("v", a.index, versions.get(r, 0))
    if isinstance(a, (list, tuple)):
        return (type(a).__name__, tuple(_key(x, versions, roots) for x in a))
    if isinstance(a, float) and a != a:
        return ("nan",)
    hash(a)  # unhashable constants make the node ineligible (TypeError)
    return (type(a).__name__, a)


def eliminate_common_subexpressions(graph: Graph) -> int:
    """Reuse the result of an earlier identical pure node; returns how many were merged."""
    roots = alias_roots(graph)
    versions: dict[int, int] = {}
    outputs = {v.index for v in graph.output_values()}
    # a result something writes later is a buffer, not a value: two are never one
    written_roots = {roots.get(v.index, v.index) for n in graph.nodes for v in _written(n)}
    seen: dict[Any, Node] = {}
    rename: dict[int, Value] = {}
    kept: list[Node] = []
    merged = 0
    for n in graph.nodes:
        if rename:
            n.args = tuple(map_values(a, lambda v: rename.get(v.index, v)) for a in n.args)
        written = _written(n)
        pure = (
            not written
            and n.fused is None
            and not is_random(n)
            and not is_view(n)
            and n.out_spec != "none"
            and not any(v is not None and v.index in outputs for v in n.outs)
            and not any(
                v is not None and roots.get(v.index, v.index) in written_roots for v in n.outs
            )
            and bool(n.inputs())  # a factory makes a new buffer each time
        )
        if pure:
            try:
                key = (n.op, n.ks, tuple(_key(a, versions, roots) for a in n.args))
            except TypeError:
                key = None
            if key is not None:
                first = seen.get(key)
                if first is not None and len(first.outs) == len(n.outs):
                    for mine, theirs in zip(n.outs, first.outs):
                        if mine is not None and theirs is not None:
                            rename[mine.index] = theirs
                    merged += 1
                    continue
                seen[key] = n
        for v in written:
            r = roots.get(v.index, v.index)
            versions[r] = versions.get(r, 0) + 1
        kept.append(n)
    graph.nodes = kept
    if rename:
        graph.output = map_values_deep(graph.output, rename)
        for s in graph.side_effects:
            if s.value is not None:
                s.value = rename.get(s.value.index, s.value)
    return merged


def map_values_deep(x: Any, rename: dict[int, Value]) -> Any:
    if isinstance(x, Value):
        return rename.get(x.index, x)
    if isinstance(x, (list, tuple)):
        return type(x)(map_values_deep(a, rename) for a in x)
    if isinstance(x, dict):
        return {k: map_values_deep(a, rename) for k, a in x.items()}
    return x


def fold_constants(graph: Graph) -> int:
    """Compute value-free nodes once and share untouched fresh inputs; returns the count."""
    from .lower import kernel_of

    roots = alias_roots(graph)
    written_roots = {roots.get(v.index, v.index) for n in graph.nodes for v in _written(n)}
    outputs = {roots.get(v.index, v.index) for v in graph.output_values()}
    # a view of a constant that is returned or written makes the constant unsafe to share
    for n in graph.nodes:
        if is_view(n):
            for v in n.outs:
                if v is not None and roots.get(v.index) is not None:
                    if v.index in {o.index for o in graph.output_values()}:
                        outputs.add(roots[v.index])

    def frozen(v: Value) -> bool:
        r = roots.get(v.index, v.index)
        return r not in written_roots and r not in outputs

    folded = 0
    for inp in graph.inputs:
        if inp.kind == "fresh" and frozen(inp.value):
            inp.kind = "ref"
            folded += 1
    kept: list[Node] = []
    for n in graph.nodes:
        outs = [v for v in n.outs if v is not None]
        if (
            n.fused is None
            and n.out_spec is None
            and len(outs) == 1
            and not n.inputs()
            and not is_random(n)
            and not _written(n)
            and frozen(outs[0])
        ):
            value = kernel_of(n)(*n.args)
            graph.inputs.append(Input(outs[0], "ref", obj=value, label="constant"))
            folded += 1
            continue
        kept.append(n)
    graph.nodes = kept
    return folded


#: Operators that overwrite every element of their first argument (a fresh input they
#: write first needs no copy of its captured value: ``overwritten_inputs``).
OVERWRITES = frozenset(
    {"copy_", "fill_", "zero_", "normal_", "uniform_", "random_", "exponential_",
     "bernoulli_", "geometric_", "log_normal_", "cauchy_"}
)  # fmt: skip


def overwritten_inputs(graph: Graph) -> int:
    """Fresh inputs whose first use overwrites them become ``empty`` inputs (allocated, not
    copied, each call); returns how many."""
    fresh = {i.value.index: i for i in graph.inputs if i.kind == "fresh"}
    done = 0
    seen: set[int] = set()
    for n in graph.nodes:
        first = n.args[0] if n.args else None
        if (
            n.fused is None
            and isinstance(first, Value)
            and first.index in fresh
            and first.index not in seen
            and n.op.schema.name.name in OVERWRITES
            and all(v is first for v in n.inputs()[:1])
            and first not in n.inputs()[1:]
        ):
            fresh[first.index].kind = "empty"
            done += 1
        seen.update(v.index for v in n.inputs())
    return done


def _small(n: Node) -> bool:
    return (
        n.fused is None
        and n.out_spec is None
        and len(n.outs) == 1
        and n.outs[0] is not None
        and n.outs[0].meta is not None
        and n.outs[0].meta.shape == ()
        and not is_random(n)
    )


def hoist_scalars(graph: Graph) -> int:
    """Move each 0-dim node as early as its dependencies allow (past larger nodes only), so
    the large elementwise nodes it interrupted become one run for fusion (an optimizer's
    bias corrections sit between the updates of one parameter). Returns how many moved."""
    roots = alias_roots(graph)

    def reads(n: Node) -> set[int]:
        return {roots.get(v.index, v.index) for v in n.inputs()}

    def writes(n: Node) -> set[int]:
        return {roots.get(v.index, v.index) for v in _written(n)}

    order: list[Node] = []
    moved = 0
    for n in graph.nodes:
        order.append(n)
        if not _small(n):
            continue
        ins = {v.index for v in n.inputs()}
        r, w = reads(n), writes(n)
        i = len(order) - 1
        while i > 0:
            prev = order[i - 1]
            if _small(prev) or is_random(prev) or prev.out_spec == "none" or prev.fused:
                break
            made = {v.index for v in prev.outs if v is not None}
            pw, pr = writes(prev), reads(prev)
            if made & ins or pw & (r | w) or pr & w:
                break
            order[i - 1], order[i] = order[i], order[i - 1]
            i -= 1
        if i != len(order) - 1:
            moved += 1
    graph.nodes = order
    return moved


def elide_copies(graph: Graph) -> int:
    """``copy_(buf, src)`` into a buffer allocated for it (an ``empty`` input) from a value
    nothing else reads afterwards, with the same layout: later nodes read ``src`` itself
    (autograd clones a gradient into ``.grad`` this way). Returns how many were elided."""
    empty = {i.value.index: i for i in graph.inputs if i.kind == "empty"}
    if not empty:
        return 0
    roots = alias_roots(graph)
    outputs = {v.index for v in graph.output_values()}
    last_read: dict[int, int] = {}  # by memory root: a view's reads are its root's
    for pos, n in enumerate(graph.nodes):
        for v in n.inputs():
            last_read[roots.get(v.index, v.index)] = pos
    written_later = {roots.get(v.index, v.index) for n in graph.nodes for v in _written(n)}
    made_by_node = {v.index for n in graph.nodes for v in n.outs if v is not None}
    rename: dict[int, Value] = {}
    kept: list[Node] = []
    elided = 0
    for pos, n in enumerate(graph.nodes):
        if rename:
            n.args = tuple(map_values(a, lambda v: rename.get(v.index, v)) for a in n.args)
        if (
            n.fused is None
            and n.op.schema.name.name == "copy_"
            and len(n.args) >= 2
            and isinstance(n.args[0], Value)
            and isinstance(n.args[1], Value)
        ):
            buf, src = n.args[0], n.args[1]
            if (
                buf.index in empty
                and src.index in made_by_node
                and src.index not in outputs
                and roots.get(src.index, src.index) in made_by_node
                and roots.get(src.index, src.index) not in written_later
                and last_read.get(roots.get(src.index, src.index)) == pos
                and src.meta is not None
                and buf.meta is not None
                and (src.meta.shape, src.meta.stride, src.meta.dtype, src.meta.device)
                == (buf.meta.shape, buf.meta.stride, buf.meta.dtype, buf.meta.device)
            ):
                rename[buf.index] = src
                elided += 1
                continue
        kept.append(n)
    if rename:
        graph.nodes = kept
        graph.inputs = [i for i in graph.inputs if i.value.index not in rename]
        graph.output = map_values_deep(graph.output, rename)
        for s in graph.side_effects:
            if s.value is not None:
                s.value = rename.get(s.value.index, s.value)
    return elided
