"""The graph of ``ember.fx``: ``Node`` and ``Graph``, with the Python code a graph becomes.

A ``Graph`` is an ordered list of ``Node`` objects, each one of PyTorch's six opcodes:
``placeholder`` (a forward argument), ``get_attr`` (a parameter, buffer or constant of the
module), ``call_module``, ``call_function``, ``call_method`` and ``output`` (the return).
A node's ``args``/``kwargs`` hold other nodes and constants; ``users`` is kept in step.

Must always hold: a node comes after every node it uses (``lint`` checks it); node names
are unique identifiers, so ``python_code`` is valid Python: ``def forward(self, ...)`` with
one assignment per node, calling functions through the names in its globals.
"""

from __future__ import annotations

import builtins
import contextlib
import keyword
import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Node", "Graph", "map_arg"]

#: a placeholder without a default value
NO_DEFAULT: Any = object()
OPCODES = ("placeholder", "get_attr", "call_function", "call_module", "call_method", "output")

#: operator functions written infix in generated code
_INFIX = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
    operator.rshift: ">>", operator.eq: "==", operator.ne: "!=", operator.lt: "<",
    operator.le: "<=", operator.gt: ">", operator.ge: ">=",
}  # fmt: skip
_PREFIX = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def map_arg(a: Any, fn: Callable[[Node], Any]) -> Any:
    """Apply ``fn`` to every Node inside ``a`` (nested tuples, lists, dicts, slices)."""
    if isinstance(a, Node):
        return fn(a)
    if isinstance(a, tuple):
        return tuple(map_arg(x, fn) for x in a)
    if isinstance(a, list):
        return [map_arg(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_arg(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_arg(a.start, fn), map_arg(a.stop, fn), map_arg(a.step, fn))
    return a


def _inputs(args: Any) -> list[Node]:
    found: dict[Node, None] = {}
    map_arg(args, lambda n: found.setdefault(n))
    return list(found)


class Node:
    """One operation of a Graph (see the module docstring for the opcodes)."""

    def __init__(self, graph: Graph, name: str, op: str, target: Any, args: tuple, kwargs: dict):  # type: ignore[type-arg]
        if op not in OPCODES:
            raise ValueError(f"unknown opcode {op!r}; expected one of {OPCODES}")
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self.users: dict[Node, None] = {}
        self._args: tuple[Any, ...] = ()
        self._kwargs: dict[str, Any] = {}
        self.meta: dict[str, Any] = {}
        self._set(tuple(args), dict(kwargs))

    def _set(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        for n in self.all_input_nodes:
            n.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        for n in self.all_input_nodes:
            n.users[self] = None

    @property
    def args(self) -> tuple[Any, ...]:
        return self._args

    @args.setter
    def args(self, value: tuple[Any, ...]) -> None:
        self._set(tuple(value), self._kwargs)

    @property
    def kwargs(self) -> dict[str, Any]:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value: dict[str, Any]) -> None:
        self._set(self._args, dict(value))

    @property
    def all_input_nodes(self) -> list[Node]:
        return _inputs((self._args, self._kwargs))

    def replace_all_uses_with(self, replace_with: Node) -> list[Node]:
        """Make every user of this node use ``replace_with`` instead; return those users."""
        users = list(self.users)
        for u in users:
            u._set(*map_arg((u._args, u._kwargs), lambda n: replace_with if n is self else n))
        return users

    def replace_input_with(self, old: Node, new: Node) -> None:
        self._set(*map_arg((self._args, self._kwargs), lambda n: new if n is old else n))

    def format_node(self) -> str:
        """The node in the graph's printout: ``%name : [num_users=N] = op[target=...](...)``."""
        if self.op == "output":
            return f"return {_show(self._args[0], lambda n: n.name)}"
        target = _target_name(self.target)
        head = f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target}]"
        if self.op == "placeholder":
            return head
        show = _show(self._args, lambda n: "%" + n.name)
        return f"{head}(args = {show}, kwargs = {_show(self._kwargs, lambda n: '%' + n.name)})"

    def __repr__(self) -> str:
        return self.name


def _show(a: Any, name: Callable[[Node], str]) -> str:
    """Arguments as source text: nodes by ``name``, constants by ``repr``."""
    if isinstance(a, Node):
        return name(a)
    if isinstance(a, tuple):
        inner = ", ".join(_show(x, name) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, list):
        return "[" + ", ".join(_show(x, name) for x in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_show(v, name)}" for k, v in a.items()) + "}"
    if isinstance(a, slice):
        return f"slice({_show(a.start, name)}, {_show(a.stop, name)}, {_show(a.step, name)})"
    return repr(a)


def _target_name(target: Any) -> str:
    if isinstance(target, str):
        return target
    mod = getattr(target, "__module__", None) or ""
    qual = getattr(target, "__qualname__", getattr(target, "__name__", repr(target)))
    if mod in ("_operator", "operator"):
        return f"operator.{qual}"
    return f"{mod}.{qual}" if mod and mod != "builtins" else qual


def _identifier(text: str) -> str:
    s = re.sub(r"\W", "_", text).strip("_") or "node"
    if s[0].isdigit():
        s = "_" + s
    return s + "_" if keyword.iskeyword(s) or hasattr(builtins, s) else s


class Graph:
    """An editable list of nodes; ``python_code()`` turns it into a ``forward``.

    Examples:
        >>> import operator
        >>> from ember.fx import Graph
        >>> g = Graph()
        >>> x = g.placeholder("x")
        >>> out = g.output(g.call_function(operator.mul, (x, 2)))
        >>> print(g.python_code().strip())
        def forward(self, x):
            mul = x * 2
            return mul
    """

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._used: set[str] = set()
        self._insert_at: Node | None = None  # insert before this node; None: at the end
        self._after = False

    @property
    def nodes(self) -> list[Node]:
        return list(self._nodes)

    def _unique(self, hint: str) -> str:
        base = name = _identifier(hint)
        k = 0
        while name in self._used:
            k += 1
            name = f"{base}_{k}"
        self._used.add(name)
        return name

    def create_node(
        self,
        op: str,
        target: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> Node:
        hint = name or (target if isinstance(target, str) else getattr(target, "__name__", op))
        node = Node(self, self._unique(str(hint)), op, target, args, kwargs or {})
        if self._insert_at is None:
            self._nodes.append(node)
        else:
            i = self._nodes.index(self._insert_at) + (1 if self._after else 0)
            self._nodes.insert(i, node)
            if self._after:
                self._insert_at = node
        return node

    def placeholder(self, name: str, default: Any = NO_DEFAULT) -> Node:
        args = () if default is NO_DEFAULT else (default,)
        return self.create_node("placeholder", name, args, name=name)

    def get_attr(self, qualified_name: str) -> Node:
        return self.create_node("get_attr", qualified_name)

    def call_module(
        self, module_name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Node:
        return self.create_node("call_module", module_name, args, kwargs)

    def call_function(
        self,
        the_function: Callable[..., Any],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Node:
        return self.create_node("call_function", the_function, args, kwargs)

    def call_method(
        self, method_name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Node:
        return self.create_node("call_method", method_name, args, kwargs)

    def output(self, result: Any) -> Node:
        return self.create_node("output", "output", (result,))

    @contextlib.contextmanager
    def inserting_before(self, node: Node) -> Iterator[None]:
        saved = self._insert_at, self._after
        self._insert_at, self._after = node, False
        try:
            yield
        finally:
            self._insert_at, self._after = saved

    @contextlib.contextmanager
    def inserting_after(self, node: Node) -> Iterator[None]:
        saved = self._insert_at, self._after
        self._insert_at, self._after = node, True
        try:
            yield
        finally:
            self._insert_at, self._after = saved

    def erase_node(self, to_erase: Node) -> None:
        if to_erase.users:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users "
                f"in the graph: {dict(to_erase.users)}!"
            )
        to_erase._set((), {})
        self._nodes.remove(to_erase)

    def eliminate_dead_code(self) -> bool:
        """Remove nodes nothing uses (not placeholders, outputs or modules); True if any."""
        changed = False
        for node in reversed(self._nodes):
            if node.op in ("call_function", "call_method", "get_attr") and not node.users:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        seen: set[Node] = set()
        for node in self._nodes:
            for inp in node.all_input_nodes:
                if inp not in seen:
                    raise RuntimeError(
                        f"Argument '{inp}' of Node '{node}' was used before it was defined"
                    )
            seen.add(node)

    def __str__(self) -> str:
        params = ", ".join(n.name for n in self._nodes if n.op == "placeholder")
        body = "\n".join("    " + n.format_node() for n in self._nodes)
        return f"graph({params}):\n{body}"

    def print_tabular(self) -> None:
        rows = [["opcode", "name", "target", "args", "kwargs"]] + [
            [n.op, n.name, _target_name(n.target), _show(n.args, str), _show(n.kwargs, str)]
            for n in self._nodes
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for j, r in enumerate(rows):
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            if j == 0:
                print("  ".join("-" * w for w in widths))

    # -- code generation ----------------------------------------------------------------------
    def python_code(self, globals_out: dict[str, Any] | None = None) -> str:
        """The source of ``forward``; the names it calls are added to ``globals_out``."""
        env = globals_out if globals_out is not None else {}
        params, body = ["self"], []
        for n in self._nodes:
            name = n.name
            if n.op == "placeholder":
                params.append(name if not n.args else f"{name}={_const(n.args[0], env)}")
                continue
            a = _args_src(n.args, env)
            kw = ", ".join(f"{k}={_src(v, env)}" for k, v in n.kwargs.items())
            call = ", ".join(x for x in (a, kw) if x)
            if n.op == "output":
                body.append(f"return {_src(n.args[0], env)}")
            elif n.op == "get_attr":
                body.append(f"{name} = {_attr_path('self', n.target)}")
            elif n.op == "call_module":
                body.append(f"{name} = {_attr_path('self', n.target)}({call})")
            elif n.op == "call_method":
                rest = ", ".join(x for x in (_args_src(n.args[1:], env), kw) if x)
                body.append(f"{name} = {_src(n.args[0], env)}.{n.target}({rest})")
            elif n.target in _INFIX and len(n.args) == 2 and not n.kwargs:
                body.append(
                    f"{name} = {_src(n.args[0], env)} {_INFIX[n.target]} {_src(n.args[1], env)}"
                )
            elif n.target in _PREFIX and len(n.args) == 1:
                body.append(f"{name} = {_PREFIX[n.target]}{_src(n.args[0], env)}")
            elif n.target is operator.getitem and len(n.args) == 2:
                body.append(f"{name} = {_src(n.args[0], env)}[{_src(n.args[1], env)}]")
            else:
                body.append(f"{name} = {_global(n.target, env)}({call})")
        lines = "\n".join("    " + b for b in body) or "    pass"
        return f"\n\ndef forward({', '.join(params)}):\n{lines}\n"


def _attr_path(base: str, target: str) -> str:
    for part in target.split("."):
        base = (
            f"{base}.{part}"
            if part.isidentifier() and not keyword.iskeyword(part)
            else f"getattr({base}, {part!r})"
        )
    return base


def _args_src(args: tuple[Any, ...], env: dict[str, Any]) -> str:
    return ", ".join(_src(a, env) for a in args)


def _src(a: Any, env: dict[str, Any]) -> str:
    if isinstance(a, Node):
        return a.name
    if isinstance(a, tuple):
        inner = ", ".join(_src(x, env) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, list):
        return "[" + ", ".join(_src(x, env) for x in a) + "]"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_src(v, env)}" for k, v in a.items()) + "}"
    if isinstance(a, slice):
        return f"slice({_src(a.start, env)}, {_src(a.stop, env)}, {_src(a.step, env)})"
    return _const(a, env)


def _const(a: Any, env: dict[str, Any]) -> str:
    """A constant as source: a literal when its repr is one, else a name in ``env``."""
    if a is None or isinstance(a, (bool, int, str, bytes)) or a is Ellipsis:
        return repr(a)
    if isinstance(a, float):
        return (
            repr(a) if a == a and a not in (float("inf"), float("-inf")) else f"float({str(a)!r})"
        )
    return _global(a, env)


#: the ember namespaces whose functions generated code calls by their public path
_NAMESPACES = ("ember", "ember.nn.functional", "ember.fft", "ember.linalg", "ember.special")


def _global(obj: Any, env: dict[str, Any]) -> str:
    """The name generated code uses for ``obj``: a builtin's, ``ember.<path>``, or a new one."""
    import sys

    short = getattr(obj, "__name__", None)
    if isinstance(short, str):
        if getattr(builtins, short, None) is obj:
            return short
        for ns in _NAMESPACES:
            mod = sys.modules.get(ns)
            if mod is not None and getattr(mod, short, None) is obj:
                env["ember"] = sys.modules["ember"]
                return f"{ns}.{short}"
    for name, value in env.items():
        if value is obj:
            return name
    hint = getattr(obj, "__name__", None) or type(obj).__name__
    name = _identifier(str(hint))
    k, base = 0, name
    while name in env:
        k += 1
        name = f"{base}_{k}"
    env[name] = obj
    return name
