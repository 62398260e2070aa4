"""Capture at the dispatcher: record a function's operator calls into a ``Graph``.

``capture(fn, args, kwargs)`` runs ``fn`` once, eagerly, with the dispatcher's ``Tracer``
key in every key set of this thread and a ``Tracer`` fallback that records each call
made *by the function* (depth 0: the calls an operator's own kernel makes below it are
not recorded, and a call that runs its Composite decomposition is not recorded either,
so the primitives it decomposes into are). Calls the autograd engine makes while the
function runs ``backward`` are made at depth 0 too, so a training step's gradient
formulas are in the graph. The function's results are the eager ones.

What ends a graph (a *graph break*): reading a recorded tensor's values into Python
(``item()``, ``tolist()``, ``bool(t)``, ``numpy()``, printing) and operators whose output
shape depends on the data (``nonzero``, ``masked_select``, ``unique``, ...). Capture
then stops recording, lets the function finish eagerly and reports the reason with the
user's source line (the innermost frame outside ember).

Examples:
    >>> import ember
    >>> from ember.compiler import explain
    >>> def f(x):
    ...     return (x * 2).relu()
    >>> out = explain(f)(ember.ones(3))
    >>> print(out.graphs[0].print_readable().strip())
    graph(in0: f32[3]):
        v1: f32[3] = aten::mul.Tensor(in0, 2)
        v2: f32[3] = aten::relu(v1)
        return v2
    >>> out.graph_break_count, out.op_count
    (0, 2)
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ember import library
from ember.autograd import engine as _engine
from ember.core import dispatch_key as dk
from ember.core import storage as _storage
from ember.core import tensor as _tensor
from ember.core.tensor import Tensor
from ember.dispatcher import registry
from ember.dispatcher.compiling import state

from .graph import Graph, Input, Node, SetGrad, TensorMeta, Value

__all__ = ["capture", "explain", "Capture", "GraphBreak", "ExplainOutput"]

#: Operators whose result's shape depends on the values of their inputs.
DATA_DEPENDENT = frozenset(
    {
        "nonzero",
        "argwhere",
        "masked_select",
        "_unique",
        "_unique2",
        "unique_dim",
        "unique_consecutive",
        "repeat_interleave",
        "bincount",
    }
)

#: Overloads of those whose result's shape does not depend on values (an int count).
STATIC_OVERLOADS = frozenset({"self_int"})

_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_line() -> str:
    """``file:line in function`` of the innermost frame outside the ember package."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith("<ember") and not os.path.abspath(name).startswith(_EMBER_DIR):
            return f"{f.f_code.co_filename}:{f.f_lineno} in {f.f_code.co_name}"
        f = f.f_back  # type: ignore[assignment]
    return "<unknown>"


@dataclass
class GraphBreak:
    """Why capture stopped, and the user's line that made it stop."""

    reason: str
    where: str

    def __str__(self) -> str:
        return f"{self.reason} (at {self.where})"


@dataclass
class Capture:
    """One recording in progress (or finished): the graph and how it ended."""

    graph: Graph = field(default_factory=Graph)
    broken: GraphBreak | None = None
    #: id(tensor) -> its Value; ``_alive`` keeps the tensors so ids are not reused
    values: dict[int, Value] = field(default_factory=dict)
    _alive: list[Any] = field(default_factory=list)
    depth: int = 0
    #: ids of the storages made while capturing (kept alive in ``_alive``)
    born: set[int] = field(default_factory=set)
    #: id(storage) -> the first recorded tensor on it (a base for views made in Python)
    by_storage: dict[int, Any] = field(default_factory=dict)
    thread: int = field(default_factory=threading.get_ident)

    def value_of(self, t: Tensor) -> Value:
        """The Value of ``t``, adding it as an input if capture has not seen it: by reference
        if it existed before the call, else (made in Python during the call, as
        ``ember.tensor(data)`` or ``zeros``' buffer) a fresh copy of its value now, per call."""
        v = self.values.get(id(t))
        if v is None:
            # a view made outside the dispatcher (``x[:, 0] = v`` writes through one):
            # a view node of a tensor the graph knows that shares its memory
            base = self.by_storage.get(id(t._storage))
            if base is None and t._base is not None and id(t._storage) not in self.born:
                base = t._base  # a view of a tensor that existed before the call
            if base is not None and base is not t:
                return self._view_of(t, base)
            v = self.graph.new_value(TensorMeta.of(t), "in")
            if id(t._storage) in self.born:
                self.depth += 1
                try:
                    snap = t.detach().clone()
                finally:
                    self.depth -= 1
                self.graph.inputs.append(Input(v, "fresh", obj=snap))
            else:
                self.graph.inputs.append(Input(v, "ref", obj=t))
            self._bind(t, v)
        return v

    def _view_of(self, t: Tensor, base: Tensor) -> Value:
        """A view made outside the dispatcher (Python's ``view_of``) of an existing tensor:
        a view node of its base, so the graph holds the base (the same object every call),
        not a view object made anew each call."""
        from ember import ops

        bv = self.value_of(base)
        v = self.graph.new_value(TensorMeta.of(t))
        args = (bv, list(t._shape), list(t._stride), t._offset)
        node = Node(ops.aten.as_strided.default, args, (v,), None, t._ks, user_line())
        node.alias_offset = t._offset - base._offset
        self.graph.nodes.append(node)
        self._bind(t, v)
        return v

    @contextlib.contextmanager
    def outside(self) -> Iterator[None]:
        """Run code that neither records nor makes fresh inputs (``live_value``)."""
        self.depth += 1
        hook = _storage.created_hook[0]
        _storage.created_hook[0] = None
        try:
            yield
        finally:
            _storage.created_hook[0] = hook
            self.depth -= 1

    def storage_made(self, st: Any) -> None:
        self.born.add(id(st))
        self._alive.append(st)

    def _bind(self, t: Tensor, v: Value) -> None:
        self.values[id(t)] = v
        self._alive.append(t)
        self.by_storage.setdefault(id(t._storage), t)

    def add_arg(self, t: Tensor, index: int) -> None:
        if id(t) not in self.values:
            v = self.graph.new_value(TensorMeta.of(t), "in")
            self.graph.inputs.append(Input(v, "arg", index=index, obj=None))
            self._bind(t, v)

    def to_arg(self, a: Any) -> Any:
        if isinstance(a, Tensor):
            return self.value_of(a)
        if isinstance(a, (list, tuple)):
            return type(a)(self.to_arg(x) for x in a)
        return a

    def result(self, out: Any) -> tuple[tuple[Value | None, ...], Any]:
        """Values for a call's result (an in-place result keeps the Value it had)."""
        if out is None:
            return (), "none"
        if isinstance(out, Tensor):
            return (self._out_value(out),), None
        if isinstance(out, (list, tuple)):
            return tuple(self._out_value(t) if isinstance(t, Tensor) else None for t in out), len(
                out
            )
        return (), "none"

    def _out_value(self, t: Tensor) -> Value:
        v = self.values.get(id(t))
        if v is None:
            v = self.graph.new_value(TensorMeta.of(t))
            self._bind(t, v)
        return v

    def output(self, x: Any) -> Any:
        """The function's result with Values in place of the recorded tensors."""
        if isinstance(x, Tensor):
            return self.values.get(id(x), x)
        if isinstance(x, (list, tuple)):
            return type(x)(self.output(a) for a in x)
        if isinstance(x, dict):
            return {k: self.output(a) for k, a in x.items()}
        return x

    def stop(self, reason: str) -> None:
        if self.broken is None:
            self.broken = GraphBreak(reason, user_line())


class TracerBusy(RuntimeError):
    """Capture is impossible now: another tool (the profiler) holds the Tracer key."""


_active: list[Capture | None] = [None]
_AUTOGRAD = dk.Autograd.mask


def _record(op: Any, ks: int, *args: Any) -> Any:
    """The ``Tracer`` fallback while capturing (see the module docstring)."""
    cap = _active[0]
    if cap is None or cap.depth or cap.broken is not None:
        return op.redispatch(ks, *args)
    if op.schema.name.name in DATA_DEPENDENT and op.overload not in STATIC_OVERLOADS:
        cap.stop(f"{op.qualname} gives a result whose shape depends on its input's values")
        return op.redispatch(ks, *args)
    if op.schema.name.name == "index" and _bool_index(args):
        cap.stop(f"{op.qualname} with a boolean mask gives a shape that depends on the mask")
        return op.redispatch(ks, *args)
    node_args = tuple(cap.to_arg(a) for a in args)
    if registry.decomposes(op, ks & ~_AUTOGRAD):
        # the operators its decomposition calls are recorded; a result they did not make
        # (a view, an empty tensor: made in Python) makes this call a node of its own
        out = op.redispatch(ks, *args)
        if all(id(t) in cap.values for t in _tensors_of(out)):
            return out
    else:
        cap.depth += 1
        try:
            out = op.redispatch(ks, *args)
        finally:
            cap.depth -= 1
    outs, spec = cap.result(out)
    node = Node(op, node_args, outs, spec, ks, user_line())
    if isinstance(out, Tensor) and args and isinstance(args[0], Tensor):
        if out._storage is args[0]._storage and out is not args[0]:
            node.alias_offset = out._offset - args[0]._offset  # a view of its first argument
    cap.graph.nodes.append(node)
    return out


def _bool_index(args: tuple[Any, ...]) -> bool:
    idx = args[1] if len(args) > 1 and isinstance(args[1], (list, tuple)) else ()
    return any(isinstance(t, Tensor) and t._dtype.name in ("bool", "uint8") for t in idx)


def _tensors_of(out: Any) -> list[Tensor]:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for t in out if isinstance(t, Tensor)]
    return []


def _storage_made(st: Any) -> None:
    cap = _active[0]
    if cap is not None and cap.thread == threading.get_ident():  # not another thread's
        cap.storage_made(st)


def _host_read(t: Tensor, what: str) -> None:
    cap = _active[0]
    if cap is not None and cap.depth == 0 and cap.broken is None and id(t) in cap.values:
        cap.stop(f"a traced tensor's values were read into Python ({what})")


def flat_tensors(x: Any, out: list[Tensor]) -> None:
    """Append the tensors in ``x`` (lists, tuples and dicts walked) to ``out``, in order:
    the order of a compiled function's flattened arguments ``A``."""
    if isinstance(x, Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for a in x:
            flat_tensors(a, out)
    elif isinstance(x, dict):
        for a in x.values():
            flat_tensors(a, out)


def capture(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], joint: bool = False
) -> Any:
    """Run ``fn(*args, **kwargs)`` eagerly while recording it; returns (result, Capture).

    With ``joint``, a function whose outputs need gradients (and that did not run
    backward itself) is differentiated too, while recording: the backward nodes follow the
    forward ones (Note [Joint graph] in ``aot.py``). The outputs keep their eager history.
    """
    if _active[0] is not None:
        raise RuntimeError("ember.compile: capture is already running in this process")
    state.capturing = True  # before the fallback registers: compiled code ignores it
    try:
        handle = library.fallback(_record, "Tracer")
    except RuntimeError as e:
        state.capturing = False
        raise TracerBusy(
            f"ember.compile cannot capture while another tool holds the Tracer key "
            f"(the profiler does while it runs): {e}"
        ) from None
    cap = Capture()
    flat: list[Tensor] = []
    flat_tensors((args, kwargs), flat)
    for i, t in enumerate(flat):
        cap.add_arg(t, i)
    _active[0] = cap
    old_hook = _tensor.host_read_hook[0]
    _tensor.host_read_hook[0] = _host_read
    _storage.created_hook[0] = _storage_made
    runs = _engine.runs[0]
    joint_runs = runs
    state.prologue = []
    state.optimizers = []
    state.outside = cap.outside
    try:
        with registry.include_keys(dk.Tracer.mask):
            result = fn(*args, **kwargs)
            joint_runs = _engine.runs[0]
            if joint and joint_runs == runs and cap.broken is None:
                _differentiate(cap, result, flat)
    finally:
        _tensor.host_read_hook[0] = old_hook
        _storage.created_hook[0] = None
        _active[0] = None
        handle.remove()
        cap.graph.prologue = state.prologue  # type: ignore[attr-defined]
        cap.graph.optimizers = state.optimizers  # type: ignore[attr-defined]
        state.prologue = state.outside = state.optimizers = None
        state.capturing = False
    g = cap.graph
    g.ran_backward = joint_runs != runs
    g.output = cap.output(result)
    if g.ran_backward:
        _record_grads(cap)
    return result, cap


def _differentiate(cap: Capture, result: Any, args: list[Tensor]) -> None:
    """Record the backward of ``result`` w.r.t. every input that requires grad, seeded with
    one tangent input per output that requires grad (Note [Joint graph])."""
    from ember.autograd import grad_mode
    from ember.autograd.engine import grad

    if not grad_mode.is_grad_enabled():
        return
    outs: list[Tensor] = []
    flat_tensors(result, outs)
    outs = [t for t in outs if t._requires_grad and id(t) in cap.values]
    if not outs:
        return
    g = cap.graph
    wrt: list[Tensor] = []
    for t in args:
        if t._requires_grad and all(t is not w for w in wrt):
            wrt.append(t)
    for inp in g.inputs:
        if inp.kind == "ref" and inp.obj._requires_grad and all(inp.obj is not w for w in wrt):
            wrt.append(inp.obj)
    if not wrt:
        return
    cap.depth += 1
    try:
        seeds = [_ones_like(t) for t in outs]
    finally:
        cap.depth -= 1
    tangents = []
    for i, t in enumerate(seeds):
        v = g.new_value(TensorMeta.of(t), "tangent")
        g.inputs.append(Input(v, "tangent", index=i))
        cap._bind(t, v)
        tangents.append(v)
    g.joint_split = len(g.nodes)  # type: ignore[attr-defined]
    g.tangents = tangents  # type: ignore[attr-defined]
    g.forward_outputs = [cap.values[id(t)] for t in outs]  # type: ignore[attr-defined]
    g.wrt = [cap.value_of(t) for t in wrt]  # type: ignore[attr-defined]
    g.wrt_tensors = wrt  # type: ignore[attr-defined]
    grads = grad(outs, wrt, seeds, retain_graph=True, allow_unused=True)
    g.grads = [None if x is None else cap.value_of(x) for x in grads]  # type: ignore[attr-defined]


def _ones_like(t: Tensor) -> Tensor:
    import ember

    return ember.ones(t._shape, dtype=t._dtype, device=t._device)


def _record_grads(cap: Capture) -> None:
    """A leaf's ``.grad`` the engine rebound (not an operator) becomes a ``SetGrad``."""
    for inp in cap.graph.inputs:
        leaf = inp.obj
        if inp.kind != "ref" or not leaf._requires_grad or leaf.grad_fn is not None:
            continue
        g = leaf._grad
        if g is None:
            cap.graph.side_effects.append(SetGrad(leaf, None))
        elif id(g) in cap.values:
            cap.graph.side_effects.append(SetGrad(leaf, cap.values[id(g)]))


@dataclass
class ExplainOutput:
    """What ``explain`` saw: the graphs, their op counts, and the breaks with reasons."""

    graphs: list[Graph]
    breaks: list[GraphBreak]

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def graph_break_count(self) -> int:
        return len(self.breaks)

    @property
    def op_count(self) -> int:
        return sum(len(g.nodes) for g in self.graphs)

    @property
    def ops_per_graph(self) -> list[dict[str, int]]:
        return [g.op_counts() for g in self.graphs]

    def __str__(self) -> str:
        lines = [
            f"Graph count: {self.graph_count}",
            f"Graph break count: {self.graph_break_count}",
            f"Op count: {self.op_count}",
        ]
        for b in self.breaks:
            lines.append(f"Break reason: {b}")
        for i, g in enumerate(self.graphs):
            lines.append(f"Graph {i}:")
            lines.append(g.print_readable())
        return "\n".join(lines)


def explain(fn: Callable[..., Any]) -> Callable[..., ExplainOutput]:
    """``explain(fn)(*args, **kwargs)``: run ``fn`` once while capturing and report what was
    captured (like ``torch._dynamo.explain``): graphs, op counts, graph breaks with their
    reasons and source lines. The call runs eagerly; its result is not returned."""

    def run(*args: Any, **kwargs: Any) -> ExplainOutput:
        _, cap = capture(fn, args, kwargs)
        return ExplainOutput([cap.graph], [cap.broken] if cap.broken else [])

    return run
