"""The backward of a compiled forward, derived ahead of time (AOT autograd).

When a compiled function's outputs need gradients and the function does not run backward
itself (a compiled module's forward), capture also differentiates it (Note [Joint
graph]); ``compile_with_autograd`` splits that joint graph into a forward and a backward
graph, compiles both with the backend, and returns a function whose outputs carry *one*
autograd node: its backward runs the compiled backward graph. The formulas in that graph
are the active formula set's at capture time, so a researcher's swapped formula is what
gets compiled (the guards include the formula generation).

Note [Joint graph]
    After the function returns, capture makes one *tangent* input per output that
    requires grad and records ``autograd.grad(outputs, wrt, tangents)`` where ``wrt`` is
    every argument and by-reference tensor that requires grad. The nodes before
    ``graph.joint_split`` are the forward, the rest the backward. The partition:

    - forward graph: the original inputs, the forward nodes; it returns the function's
      output tensors followed by the *saved* values: those the backward nodes read that
      the forward made or read (inputs included);
    - backward graph: inputs are the saved values then the tangents; it returns one
      gradient per ``wrt`` tensor (None where unused).

    The saved-value choice is "save what the backward reads"; recomputation of cheap
    values (min-cut) is not done.

Examples:
    >>> import ember
    >>> lin = ember.nn.Linear(3, 2)
    >>> f = ember.compile(lambda x: (lin(x).tanh() * 2).sum(), backend="aot_eager")
    >>> x = ember.randn(4, 3, requires_grad=True)
    >>> for _ in range(3):
    ...     x.grad = None
    ...     f(x).backward()
    >>> type(f(x).grad_fn).__name__
    'CompiledFunctionBackward'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.autograd.function import Function
from ember.core.tensor import Tensor

from .graph import Graph, Input, Value, values_in
from .lower import lower

__all__ = ["compile_with_autograd", "partition", "forward_only"]


def partition(g: Graph) -> tuple[Graph, Graph, list[Value]]:
    """(forward graph, backward graph, saved values) of a joint graph (Note [Joint graph])."""
    split: int = g.joint_split  # type: ignore[attr-defined]
    fwd_nodes, bwd_nodes = g.nodes[:split], g.nodes[split:]
    tangents = {v.index for v in g.tangents}  # type: ignore[attr-defined]
    inputs = {i.value.index: i for i in g.inputs}
    used_fwd = {v.index for n in fwd_nodes for v in n.inputs()}
    used_fwd |= {v.index for v in values_in(g.output)}
    # a tensor the backward alone reads by reference, or makes from Python data (a zero
    # gradient's buffer), is an input of the backward graph itself
    own = [
        i for i in g.inputs if i.kind in ("ref", "fresh", "empty") and i.value.index not in used_fwd
    ]
    own_ix = {i.value.index for i in own}
    made_in_bwd = {
        v.index for n in bwd_nodes for v in n.outs if v is not None and v.index not in inputs
    }
    made_in_bwd |= own_ix
    saved: list[Value] = []
    seen: set[int] = set()
    for n in bwd_nodes:
        for v in n.inputs():
            if v.index in tangents or v.index in made_in_bwd or v.index in seen:
                continue
            seen.add(v.index)
            saved.append(v)
    for v in g.grads:  # type: ignore[attr-defined]
        if v is not None and v.index not in tangents and v.index not in made_in_bwd:
            if v.index not in seen:
                seen.add(v.index)
                saved.append(v)
    outs = list(values_in(g.output))
    fwd = Graph(
        inputs=[i for i in g.inputs if i.kind != "tangent" and i.value.index not in own_ix],
        nodes=fwd_nodes,
        output=(tuple(outs), tuple(saved)),
        nvalues=g.nvalues,
    )
    bwd = Graph(nodes=bwd_nodes, nvalues=g.nvalues)
    bwd.inputs.extend(own)
    for k, v in enumerate(saved):
        bwd.inputs.append(Input(v, "arg", index=k))
    for k, v in enumerate(g.tangents):  # type: ignore[attr-defined]
        bwd.inputs.append(Input(v, "arg", index=len(saved) + k))
    bwd.output = tuple(g.grads)  # type: ignore[attr-defined]
    return fwd, bwd, saved


def compile_with_autograd(
    graph: Graph, example_inputs: list[Any], backend: Callable[..., Any]
) -> Callable[[list[Any]], Any]:
    """A function running ``graph`` whose outputs carry one backward node.

    A backend without ``aot`` support (or a graph captured without its joint part)
    replays the operators with autograd recording instead, as eager would.
    """
    if not getattr(backend, "aot", False) or not hasattr(graph, "joint_split"):
        return lower(forward_only(graph), autograd=True)
    fwd_graph, bwd_graph, saved = partition(graph)
    fwd = backend(fwd_graph, example_inputs)
    bwd = backend(bwd_graph, [])
    out_values = list(values_in(graph.output))
    diff_out = {v.index for v in graph.forward_outputs}  # type: ignore[attr-defined]
    out_diff = [v.index in diff_out for v in out_values]
    wrt = graph.wrt  # type: ignore[attr-defined]
    arg_pos = {i.value.index: i.index for i in graph.inputs if i.kind == "arg"}
    # a wrt tensor is an argument (its position in A) or held by reference (the object)
    wrt_source = [(arg_pos.get(v.index), _ref_obj(graph, v)) for v in wrt]
    tangent_metas = [v.meta for v in graph.tangents]  # type: ignore[attr-defined]
    n_saved = len(saved)
    template = graph.output

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx: Any, A: list[Any], *wrt_tensors: Any) -> Any:
            outs, sv = fwd(A)
            ctx.sv = sv
            ctx.mark_non_differentiable(*[o for o, d in zip(outs, out_diff) if not d])
            return tuple(outs)

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            gs = [g for g, d in zip(grads, out_diff) if d]
            # the backward graph was captured with contiguous tangents (its views rebuild
            # from recorded strides): an expanded or strided gradient is made contiguous
            gs = [_tangent(g, m) for g, m in zip(gs, tangent_metas)]
            res = bwd([*ctx.sv, *gs])
            del ctx.sv
            return (None, *res)

    def run(A: list[Any]) -> Any:
        wrt_tensors = [A[p] if p is not None else obj for p, obj in wrt_source]
        outs = CompiledFunction.apply(A, *wrt_tensors)
        if not isinstance(outs, tuple):
            outs = (outs,)
        by_index = {v.index: t for v, t in zip(out_values, outs)}
        return _rebuild(template, by_index)

    run.forward = fwd  # type: ignore[attr-defined]
    run.backward = bwd  # type: ignore[attr-defined]
    run.saved = n_saved  # type: ignore[attr-defined]
    run.source = getattr(fwd, "source", "") + "\n" + getattr(bwd, "source", "")  # type: ignore[attr-defined]
    return run


def forward_only(g: Graph) -> Graph:
    """``g`` without the backward part a joint capture recorded (in place)."""
    split = getattr(g, "joint_split", None)
    if split is not None:
        g.nodes = g.nodes[:split]
        g.inputs = [i for i in g.inputs if i.kind != "tangent"]
        del g.joint_split  # type: ignore[attr-defined]
    return g


def _ref_obj(g: Graph, v: Value) -> Any:
    for i in g.inputs:
        if i.value is v and i.kind in ("ref", "fresh"):
            return i.obj
    return None


def _tangent(g: Any, meta: Any) -> Tensor:
    """An incoming gradient in the layout and dtype the backward graph was captured with."""
    if g is None:
        return _zeros(meta)
    if g._stride != meta.stride or g._dtype is not meta.dtype:
        g = g.to(meta.dtype).contiguous()
        if g._stride != meta.stride:  # a size-1 dim's stride: rebuild with the captured one
            g = g.as_strided(meta.shape, meta.stride)
    return g  # type: ignore[no-any-return]


def _zeros(meta: Any) -> Tensor:
    import ember

    return ember.zeros(meta.shape, dtype=meta.dtype, device=meta.device)


def _rebuild(x: Any, by_index: dict[int, Any]) -> Any:
    if isinstance(x, Value):
        return by_index[x.index]
    if isinstance(x, (list, tuple)):
        return type(x)(_rebuild(a, by_index) for a in x)
    if isinstance(x, dict):
        return {k: _rebuild(a, by_index) for k, a in x.items()}
    return x
