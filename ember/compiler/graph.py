"""The compiler's graph IR: values, operator nodes, inputs, outputs, side effects.

A ``Graph`` is what capture is to record (issue 13; capture, the passes and lowering are
not written yet): a straight-line program whose nodes call ``OpOverload``s of ``ops.yaml``
(one vocabulary for every compiler and device) or a fused kernel, over ``Value``s.

Note [Graph semantics]
    Values are SSA: each is written once, by a graph input or by a node. A node's
    arguments are its schema's arguments, positionally, with ``Value``s where tensors
    were (also inside lists). Mutation is kept, not functionalised: an in-place or
    ``out=`` operator stays an in-place node whose result is the *same* value as the
    tensor it writes, and the nodes run in recorded order, so aliasing (views of a
    parameter, ``.grad`` written in place) behaves as it did when captured. What
    cannot be a node is a side effect: a leaf's ``.grad`` rebound by the autograd
    engine (``SetGrad``), applied after the nodes. Inputs are the function's tensor
    arguments (by position in the flattened arguments), tensors held by reference
    (parameters, buffers, optimizer state, closure tensors: the same objects every
    call, so in-place updates and ``load_state_dict`` are seen), and fresh constants
    (a tensor the function creates from Python data each call: a copy per call).

Examples:
    >>> import ember
    >>> from ember.compiler.graph import Graph, Input, Node, TensorMeta
    >>> g = Graph()
    >>> x = g.new_value(TensorMeta.of(ember.ones(3)), "in")
    >>> g.inputs.append(Input(x, "arg", 0))
    >>> y = g.new_value(x.meta)
    >>> g.nodes.append(Node(ember.ops.aten.relu.default, (x,), (y,)))
    >>> g.output = y
    >>> print(g.print_readable().strip())
    graph(in0: f32[3]):
        v1: f32[3] = aten::relu(in0)
        return v1
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Value", "Node", "Input", "SetGrad", "Graph", "TensorMeta", "map_values"]

_SHORT = {
    "float32": "f32",
    "float64": "f64",
    "float16": "f16",
    "bfloat16": "bf16",
    "int64": "i64",
    "int32": "i32",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "bool": "b8",
    "complex64": "c64",
    "complex128": "c128",
}


@dataclass(frozen=True)
class TensorMeta:
    """What capture saw of a tensor: the facts guards and passes rely on."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: Any
    device: Any
    requires_grad: bool

    @classmethod
    def of(cls, t: Any) -> TensorMeta:
        return cls(tuple(t._shape), tuple(t._stride), t._dtype, t._device, t._requires_grad)

    def __str__(self) -> str:
        dt = _SHORT.get(self.dtype.name, self.dtype.name)
        dev = "" if self.device.type == "cpu" else f"@{self.device}"
        return f"{dt}[{', '.join(map(str, self.shape))}]{dev}"

    @property
    def contiguous(self) -> bool:
        acc = 1
        for n, s in zip(reversed(self.shape), reversed(self.stride)):
            if n != 1 and s != acc:
                return False
            acc *= n
        return True


class Value:
    """One SSA value: a tensor (with its captured ``meta``) or another result."""

    __slots__ = ("index", "meta", "name")

    def __init__(self, index: int, meta: TensorMeta | None, name: str):
        self.index, self.meta, self.name = index, meta, name

    def __repr__(self) -> str:
        return self.name


def map_values(x: Any, fn: Callable[[Value], Any]) -> Any:
    """``x`` (an argument: a Value, a constant, or a list/tuple of those) with ``fn`` on Values."""
    if isinstance(x, Value):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(map_values(a, fn) for a in x)
    return x


def values_in(x: Any) -> Iterator[Value]:
    """The Values in ``x`` (a Value, a constant, or lists/tuples/dicts of those), in order."""
    if isinstance(x, Value):
        yield x
    elif isinstance(x, (list, tuple)):
        for a in x:
            yield from values_in(a)
    elif isinstance(x, dict):
        for a in x.values():
            yield from values_in(a)


@dataclass(eq=False)
class Node:
    """One call: ``op`` (an OpOverload, or a fused kernel) over ``args``, giving ``outs``.

    ``out_spec`` says how the call's result is built from ``outs``: ``None`` for one
    tensor, an int n for a tuple/list of n, ``"none"`` for a call returning None.
    ``ks`` is the dispatch key set the call had below the Tracer key; ``where`` is the
    user's source line that made it (for messages and ``explain``).
    """

    op: Any
    args: tuple[Any, ...]
    outs: tuple[Value | None, ...]
    out_spec: Any = None
    ks: int = 0
    where: str = ""
    #: a fused node: the nodes it replaced (for printing and as the fallback)
    fused: list[Node] | None = None
    kernel: Any = None
    #: for a node whose result viewed its first argument's memory when captured: the
    #: result's storage offset minus the argument's (a replay rebuilds the view directly)
    alias_offset: int | None = None

    @property
    def name(self) -> str:
        if self.fused is not None:
            return f"fused[{', '.join(n.name for n in self.fused)}]"
        return f"{self.op.namespace}::{self.op.schema.name.name}" + (
            f".{self.op.schema.name.overload}" if self.op.schema.name.overload else ""
        )

    def inputs(self) -> list[Value]:
        return [v for a in self.args for v in values_in(a)]

    @property
    def mutates(self) -> tuple[int, ...]:
        """Argument positions this node writes (the schema's ``Tensor(a!)`` arguments)."""
        if self.fused is not None:
            return ()
        return self.op.__dict__.get("_mutated_positions") or _mutated(self.op)


def _mutated(op: Any) -> tuple[int, ...]:
    pos = tuple(
        i
        for i, a in enumerate(op.schema.arguments)
        if a.type.alias is not None and a.type.alias.is_write
    )
    op.__dict__["_mutated_positions"] = pos
    return pos


@dataclass
class Input:
    """A graph input: ``kind`` is ``"arg"`` (flattened argument ``index``), ``"ref"`` (the
    object ``obj`` itself every call) or ``"fresh"`` (a copy of ``obj`` every call)."""

    value: Value
    kind: str
    index: int = -1
    obj: Any = None
    label: str = ""


@dataclass
class SetGrad:
    """After the nodes: ``leaf.grad = value`` (``None`` clears it)."""

    leaf: Any
    value: Value | None


@dataclass(eq=False)
class Graph:
    """A captured program (Note [Graph semantics])."""

    inputs: list[Input] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    #: the function's result with Values in place of tensors (a pytree of lists/tuples/dicts)
    output: Any = None
    side_effects: list[SetGrad] = field(default_factory=list)
    nvalues: int = 0
    #: True when the captured call ran backward itself (a whole training step): then the
    #: graph holds the gradient computation and runs without autograd.
    ran_backward: bool = False

    def new_value(self, meta: TensorMeta | None, prefix: str = "v") -> Value:
        v = Value(self.nvalues, meta, f"{prefix}{self.nvalues}")
        self.nvalues += 1
        return v

    def output_values(self) -> list[Value]:
        out = list(values_in(self.output))
        out += [s.value for s in self.side_effects if s.value is not None]
        return out

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for n in self.nodes:
            for m in n.fused or [n]:
                counts[m.name] = counts.get(m.name, 0) + 1
        return counts

    def print_readable(self) -> str:
        """The graph as text, one node per line (like FX's ``print_readable``)."""
        head = ", ".join(f"{i.value.name}: {_meta(i.value)}" for i in self.inputs)
        lines = [f"graph({head}):"]
        for n in self.nodes:
            outs = ", ".join(f"{v.name}: {_meta(v)}" if v is not None else "_" for v in n.outs)
            args = ", ".join(_arg(a) for a in n.args)
            lhs = f"{outs} = " if n.outs else ""
            lines.append(f"    {lhs}{n.name}({args})")
            if n.kernel is not None and hasattr(n.kernel, "describe"):
                lines += ["        # " + ln for ln in n.kernel.describe().splitlines()]
        for s in self.side_effects:
            lines.append(f"    {_leaf_label(self, s.leaf)}.grad = {s.value!r}")
        lines.append(f"    return {_arg(self.output)}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.print_readable()


def _leaf_label(g: Graph, leaf: Any) -> str:
    for i in g.inputs:
        if i.obj is leaf:
            return i.value.name
    return "<leaf>"


def _meta(v: Value) -> str:
    return str(v.meta) if v.meta is not None else "?"


def _arg(a: Any) -> str:
    if isinstance(a, Value):
        return a.name
    if isinstance(a, list):
        return "[" + ", ".join(_arg(x) for x in a) + "]"
    if isinstance(a, tuple):
        return "(" + ", ".join(_arg(x) for x in a) + ("," if len(a) == 1 else "") + ")"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_arg(v)}" for k, v in a.items()) + "}"
    return repr(a)
