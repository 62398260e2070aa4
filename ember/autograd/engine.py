"""The backward engine: dependency counting and a ready queue over the graph.

``run_backward`` discovers the nodes reachable from the roots (an explicit
stack, never recursion, so a 10,000-op chain works), counts for each node how
many reachable edges point at it, and runs a node once all its gradients have
arrived, summing gradients that meet at the same output. Leaves' gradients go
into ``.grad`` (``AccumulateGrad``) or, for ``grad()``, are captured and
returned. Must always hold: a node runs at most once per backward; formulas run
with grad mode equal to ``create_graph``; without ``retain_graph`` every node
that ran releases its saved values; gradients are reduced and cast to their
input's layout before they are summed (Note [Gradient layout] in ``node.py``).
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Sequence
from typing import Any

from ember.autograd.anomaly_mode import checked_apply
from ember.autograd.anomaly_mode import state as _anomaly
from ember.autograd.grad_mode import no_grad, set_grad_enabled
from ember.autograd.node import AccumulateGrad, Node, accumulator, edge_of
from ember.core.tensor import Tensor

__all__ = ["backward", "grad", "run_backward", "fix_layout", "sum_to"]


def _ops() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (leading dims and size-1 dims)."""
    lead = g.ndim - len(shape)
    dims = list(range(lead)) + [
        i + lead for i, s in enumerate(shape) if s == 1 and g._shape[i + lead] != 1
    ]
    if dims:
        g = _ops().sum.dim_IntList(g, dims, True)
    return g.reshape(shape) if lead or tuple(g._shape) != shape else g


def fix_layout(g: Any, meta: Any, node: Node, index: int = 0) -> Any:
    """Bring gradient ``g`` to its input's shape, dtype and device."""
    shape, dtype, dev = meta
    if not isinstance(g, Tensor):
        raise TypeError(
            f"Function {node.name()} returned a gradient of type {type(g).__name__} at index "
            f"{index}; expected a Tensor or None"
        )
    if tuple(g._shape) != shape:
        ok = g.ndim >= len(shape) and all(
            s == 1 or s == gs for s, gs in zip(shape, g._shape[g.ndim - len(shape) :])
        )
        if not ok:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(g._shape)} but expected shape compatible with {list(shape)}"
            )
        g = sum_to(g, shape)
    if g._dtype is not dtype or g._device != dev:
        g = g.to(dtype=dtype, device=dev)
    return g


def _add(a: Tensor | None, b: Tensor) -> Tensor:
    return b if a is None else a.add(b)  # type: ignore[no-any-return]


def _root_grads(tensors: Sequence[Tensor], grads: Sequence[Any]) -> list[Tensor]:
    out = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if t.grad_fn is None and not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            with no_grad():
                g = _ops().ones_like.default(t)
        elif not isinstance(g, Tensor):
            from ember.operators.factories import tensor as _tensor

            g = _tensor(g, dtype=t._dtype, device=t._device)
        elif tuple(g._shape) != tuple(t._shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g._shape} and output[{i}] "
                f"has a shape of {t._shape}."
            )
        out.append(g)
    return out


def _edge(t: Tensor) -> tuple[Node, int]:
    e = edge_of(t)
    return e if e is not None else (accumulator(t), 0)


#: How many times the engine has started (``ember.compile`` reads it: a captured function
#: that ran backward is a whole training step, Note [Graph semantics]).
runs = [0]


def run_backward(
    tensors: Sequence[Tensor],
    grad_tensors: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run the graph from ``tensors``; capture gradients of ``inputs`` when not accumulating."""
    runs[0] += 1
    # loose types: the loop drops its references by rebinding to None (Note [Stealing gradients])
    gs: Any
    g: Any
    g0: Any
    outs: Any
    buf: Any
    prev: Any
    grads = _root_grads(tensors, grad_tensors)
    roots = [_edge(t) for t in tensors]
    captures: dict[tuple[Node, int], list[int]] = {}
    for i, t in enumerate(inputs or ()):
        if t.grad_fn is None and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        captures.setdefault(_edge(t), []).append(i)
    capture_nodes = {n for n, _ in captures}
    if inputs is None:
        deps = _dependencies([n for n, _ in roots])
    else:
        needed = _reachable([n for n, _ in roots], capture_nodes)
        # in the order of a walk from the roots, not a set's (id-hash) order: the nodes
        # run in the same order every time (ember.compile compares two captures' graphs)
        deps = {n: 0 for n in _dependencies([n for n, _ in roots]) if n in needed}
        for n in needed:
            for e in n.next_edges:
                if e is not None and e[0] in deps:
                    deps[e[0]] += 1
    buffers: dict[Node, list[Any]] = {}
    for (n, nr), g in zip(roots, grads):
        if n in deps:
            buf = buffers.setdefault(n, [None] * n.n_outputs)
            buf[nr] = _add(buf[nr], g)
    results: list[Tensor | None] = [None] * len(inputs or ())
    ready = deque(n for n, d in deps.items() if d == 0)
    with set_grad_enabled(create_graph):
        while ready:
            node = ready.popleft()
            gs = buffers.pop(node, None) or [None] * node.n_outputs
            gs = _pre(node, gs)
            if captures:
                for nr, g in enumerate(gs):
                    for i in captures.get((node, nr), ()):
                        results[i] = g
            if type(node) is AccumulateGrad or isinstance(node, AccumulateGrad):
                if accumulate and gs[0] is not None and (inputs is None or node in capture_nodes):
                    g0 = gs[0]
                    gs = g = None  # Note [Stealing gradients]: only g0 refers to it now
                    _accumulate(node.variable, g0, create_graph, _ENGINE_REFS)
                    g0 = None
                continue
            if inputs is not None and node in capture_nodes and not _feeds(node, deps):
                continue  # the gradient stops here; the node did not run and keeps its values
            for g in gs:
                if g is not None:
                    break
            else:
                g = None
            if g is None:
                outs = [None] * len(node.next_edges)
            elif _anomaly.enabled:
                outs = checked_apply(node, gs)  # detect_anomaly: forward traceback, NaN check
            else:
                outs = node.apply(gs)
                if len(outs) != len(node.next_edges):
                    raise RuntimeError(
                        f"function {node.name()} returned an incorrect number of gradients "
                        f"(expected {len(node.next_edges)}, got {len(outs)})"
                    )
                for h in node._post_hooks:
                    r = h(tuple(outs), tuple(gs))
                    if r is not None:
                        outs = list(r)
            if not retain_graph:
                node.release()
            metas = node.input_meta
            nmeta = len(metas)
            for i, (e, g) in enumerate(zip(node.next_edges, outs)):
                if e is None:
                    continue
                child, nr = e
                if child not in deps:
                    continue
                if g is not None:
                    meta = metas[i] if i < nmeta else None
                    if meta is not None and (
                        g._shape != meta[0] or g._dtype is not meta[1] or g._device != meta[2]
                    ):
                        g = fix_layout(g, meta, node, i)
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child.n_outputs
                    prev = buf[nr]
                    buf[nr] = g if prev is None else prev.add(g)
                deps[child] -= 1
                if deps[child] == 0:
                    ready.append(child)
            gs = outs = g = prev = buf = None  # Note [Stealing gradients]
    return results


def _feeds(node: Node, deps: dict[Node, int]) -> bool:
    return any(e is not None and e[0] in deps for e in node.next_edges)


_EMPTY: dict[int, Any] = {}


def _pre(node: Node, gs: list[Any]) -> list[Any]:
    """Tensor hooks, retain_grad and the node's pre-hooks, in that order."""
    d = node.__dict__  # containers a node only has once something was registered on it
    hooks = d.get("_tensor_hooks_", _EMPTY)
    if isinstance(node, AccumulateGrad):
        hooks = {0: node.variable.__dict__.get("_hooks", [])}
    for nr, hs in hooks.items():
        for h in list(hs):
            if gs[nr] is not None:
                r = h(gs[nr])
                if r is not None:
                    gs[nr] = r
    for nr, ref in d.get("_retain_", _EMPTY).items():
        t = ref()
        if t is not None and gs[nr] is not None:
            with no_grad():
                t._grad = gs[nr].clone() if t._grad is None else t._grad + gs[nr]
    for h in node._pre_hooks:
        r = h(tuple(gs))
        if r is not None:
            gs = list(r)
    return gs


#: references to a gradient the engine holds when it calls ``_accumulate``: its local,
#: the parameter and ``sys.getrefcount``'s own argument (Note [Stealing gradients]).
_ENGINE_REFS = 3


def _stealable(g: Tensor, refs: int) -> bool:
    """Note [Stealing gradients]: a leaf's first gradient may *be* the incoming tensor,
    as PyTorch's AccumulateGrad does when nothing else holds it, instead of a copy.

    Safe only when no one else can see the tensor or its memory: no reference beyond the
    engine's own (``refs``: a formula that passed one gradient to two inputs, a hook or
    a capture that kept it, a user's ``gradient=`` argument all raise the count), not a
    view, contiguous and alone on its storage. Copying an (784, 256) float gradient cost
    ~80 us per parameter per step.
    """
    if sys.getrefcount(g) > refs or g._requires_grad or g._offset != 0:
        return False
    base = g._base
    if base is None:
        if sys.getrefcount(g._storage) > 2:
            return False
    elif sys.getrefcount(base) > 3 or sys.getrefcount(g._storage) > 3:  # 3: attr, local, arg
        return False  # a view (a reshaped sum, say) of a base nothing else holds is fine
    if not (g.is_contiguous() and g._storage.nbytes == g.numel() * g._dtype.itemsize):
        return False
    g._base = None  # the grad owns its memory alone; it is nobody's view
    return True


def _accumulate(t: Tensor, g: Tensor, create_graph: bool, refs: int = 0) -> None:
    if t._grad is None:
        if create_graph:
            t._grad = g
        elif refs and _stealable(g, refs + 1):  # +1: this frame's parameter is one more
            t._grad = g
        else:
            with no_grad():
                t._grad = g.clone()
    elif create_graph or t._grad.grad_fn is not None:
        t._grad = t._grad.add(g)
    else:
        with no_grad():
            t._grad.add_(g)
    for h in list(t.__dict__.get("_post_acc_hooks", ())):
        h(t)


def _dependencies(roots: list[Node]) -> dict[Node, int]:
    """Every node reachable from ``roots`` -> how many edges of reachable nodes point at it
    (one walk: the common case of ``backward()`` without ``inputs``)."""
    deps: dict[Node, int] = dict.fromkeys(roots, 0)
    stack = list(deps)
    while stack:
        for e in stack.pop().next_edges:
            if e is not None:
                c = e[0]
                n = deps.get(c)
                if n is None:
                    deps[c] = 1
                    stack.append(c)
                else:
                    deps[c] = n + 1
    return deps


def _reachable(roots: list[Node], targets: set[Node] | None) -> set[Node]:
    """Nodes reachable from ``roots``; with ``targets``, only those on a path to one."""
    seen: set[Node] = set()
    order: list[Node] = []
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        stack.extend(e[0] for e in n.next_edges if e is not None and e[0] not in seen)
    if targets is None:
        return seen
    # A node is needed if it is a target or has an edge to a needed node: iterate to a fixpoint
    # in reverse discovery order (children mostly come after their parents).
    needed = {n for n in seen if n in targets}
    changed = True
    while changed:
        changed = False
        for n in reversed(order):
            if n not in needed and any(e is not None and e[0] in needed for e in n.next_edges):
                needed.add(n)
                changed = True
    return needed


def _tensors(x: Any) -> list[Any]:
    if isinstance(x, Tensor) or x is None:
        return [x]
    return list(x)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([1., 2.], requires_grad=True)
        >>> ember.autograd.backward((x * x).sum())
        >>> x.grad
        tensor([2., 4.])
    """
    ts = _tensors(tensors)
    gs = _tensors(grad_tensors) if grad_tensors is not None else [None] * len(ts)
    if len(gs) != len(ts):
        raise RuntimeError(f"got {len(gs)} gradients for {len(ts)} tensors")
    keep = create_graph if retain_graph is None else retain_graph
    ins = None if inputs is None else _tensors(inputs)
    if ins is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    res = run_backward(ts, gs, keep, create_graph, ins, accumulate=True)
    for t, g in zip(ins or (), res):
        if g is not None and t.grad_fn is not None:  # a non-leaf in ``inputs``: into its .grad
            _accumulate(t, g, create_graph)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (nothing is accumulated).

    Examples:
        >>> import ember
        >>> x = ember.tensor(3., requires_grad=True)
        >>> (g,) = ember.autograd.grad(x ** 3, x, create_graph=True)
        >>> g, ember.autograd.grad(g, x)[0]
        (tensor(27., grad_fn=<MulBackward0>), tensor(18.))
    """
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported")
    outs = _tensors(outputs)
    ins = _tensors(inputs)
    gos = _tensors(grad_outputs) if grad_outputs is not None else [None] * len(outs)
    if len(gos) != len(outs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(gos)} for {len(outs)} outputs"
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    keep = create_graph if retain_graph is None else retain_graph
    res = run_backward(outs, gos, keep, create_graph, ins, accumulate=False)
    for i, r in enumerate(res):
        if r is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                with no_grad():
                    res[i] = _ops().zeros_like.default(ins[i])
    return tuple(res)
