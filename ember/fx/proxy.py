"""Symbolic tracing: run a module's ``forward`` on ``Proxy`` objects and record a Graph.

A ``Proxy`` stands for a value in the graph being built. Operators on it (``+``, ``@``,
``[...]``, comparisons), its methods (``x.view(...)``), its attributes (``x.shape``) and
ember functions called with it (``ember.relu(x)``, ``F.linear(x, w)``) add nodes instead of
computing. The ``Tracer`` makes that happen for the duration of one ``trace``: it replaces
the functions of ``ember``, ``ember.nn.functional`` (and ``ember.fft``/``linalg``/``special``
when loaded) and the names given to ``wrap`` with recording versions, routes
``Module.__call__`` through ``call_module`` (a leaf module becomes one ``call_module`` node;
another is traced through), and makes a module's parameters and buffers ``get_attr`` nodes.

Must always hold: everything patched is restored when ``trace`` returns or raises; values
that depend on a Proxy cannot steer Python control flow (``bool``, ``len``, iteration raise
``TraceError``). A function imported by name before tracing (``from ember import relu``)
is not replaced: call it as ``ember.relu`` or ``wrap`` it.
"""

from __future__ import annotations

import inspect
import operator
import sys
from collections.abc import Callable
from typing import Any

from ember.core.tensor import Tensor
from ember.fx.graph import Graph, Node
from ember.nn.modules.container import ModuleDict, ModuleList, Sequential
from ember.nn.modules.module import Module

__all__ = ["Proxy", "Attribute", "Tracer", "TraceError", "wrap"]

_NAMESPACES = ("ember", "ember.nn.functional", "ember.fft", "ember.linalg", "ember.special")
_wrapped: list[tuple[dict[str, Any], str]] = []  # (module globals, name) given to wrap()


class TraceError(ValueError):
    """A traced value was used where a concrete one is needed."""


class Proxy:
    """A value in the graph being traced (see the module docstring)."""

    __hash__ = object.__hash__

    def __init__(self, node: Node, tracer: Tracer):
        self.node, self.tracer = node, tracer

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, name: str) -> Attribute:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __getitem__(self, index: Any) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.getitem, (self, index), {})

    def __bool__(self) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def __iter__(self) -> Any:
        raise TraceError(
            "Proxy object cannot be iterated. Index it (x[0], x[1]) or use a method that "
            "returns a known number of values, or make it a concrete_args value"
        )

    def __len__(self) -> int:
        raise RuntimeError(
            "'len' is not supported in symbolic tracing by default. If you want this call to "
            "be recorded, please call ember.fx.wrap('len') at module scope"
        )

    def __index__(self) -> int:
        raise TraceError("a traced value cannot be used as a Python int")


def _binary(op: Callable[..., Any], reflected: bool) -> Callable[..., Any]:
    def method(self: Proxy, other: Any) -> Proxy:
        args = (other, self) if reflected else (self, other)
        return self.tracer.create_proxy("call_function", op, args, {})

    return method


def _unary(op: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Proxy) -> Proxy:
        return self.tracer.create_proxy("call_function", op, (self,), {})

    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lshift",
              "rshift", "and", "or", "xor"):  # fmt: skip
    _op = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(Proxy, f"__{_name}__", _binary(_op, False))
    setattr(Proxy, f"__r{_name}__", _binary(_op, True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Proxy, f"__{_name}__", _binary(getattr(operator, _name), False))
for _name in ("neg", "pos", "invert", "abs"):
    setattr(Proxy, f"__{_name}__", _unary(getattr(operator, _name)))


class Attribute(Proxy):
    """``proxy.name``: a ``call_method`` node when called, else a ``getattr`` node."""

    def __init__(self, root: Proxy, attr: str):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:  # type: ignore[override]
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args: Any, **kwargs: Any) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _has_proxy(a: Any) -> bool:
    if isinstance(a, Proxy):
        return True
    if isinstance(a, (tuple, list)):
        return any(_has_proxy(x) for x in a)
    if isinstance(a, dict):
        return any(_has_proxy(x) for x in a.values())
    return False


def wrap(fn_or_name: Any) -> Any:
    """Record calls of a module-level function as ``call_function`` nodes (not traced into).

    Call it at the top level of the module that calls the function, with the function or
    its name (``ember.fx.wrap("len")`` records ``len(x)`` of that module).
    """
    caller = inspect.stack()[1].frame.f_globals
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    _wrapped.append((caller, name))
    return fn_or_name


class Tracer:
    """Builds a ``Graph`` from a module's ``forward`` (or a function) by symbolic tracing."""

    def __init__(self) -> None:
        self.graph = Graph()
        self.root: Module = Module()
        self._paths: dict[int, str] = {}
        self._constants: dict[int, str] = {}
        self._attrs: dict[str, Node] = {}

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """ember.nn's own layers are leaves (not containers); user modules are traced."""
        return type(m).__module__.startswith("ember.nn") and not isinstance(
            m, (Sequential, ModuleList, ModuleDict)
        )

    def path_of_module(self, mod: Module) -> str:
        path = self._paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule of the traced module")
        return path

    def create_arg(self, a: Any) -> Any:
        """Proxies to their nodes; tensors to ``get_attr`` nodes (parameters by their name)."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Tensor):
            return self._tensor_node(a)
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(x) for x in a)
        if isinstance(a, dict):
            return {k: self.create_arg(v) for k, v in a.items()}
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        return a

    def _tensor_node(self, t: Tensor) -> Node:
        name = self._constants.get(id(t))
        if name is None:
            name = f"_tensor_constant{len(self._constants)}"
            self.root.__dict__[name] = t  # a plain attribute: not a parameter or buffer
            self._constants[id(t)] = name
        return self.get_attr_node(name)

    def get_attr_node(self, qualified_name: str) -> Node:
        """One ``get_attr`` node per attribute and trace."""
        node = self._attrs.get(qualified_name)
        if node is None:
            node = self._attrs[qualified_name] = self.graph.get_attr(qualified_name)
        return node

    def create_proxy(
        self, op: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Proxy:
        node = self.graph.create_node(op, target, self.create_arg(args), self.create_arg(kwargs))
        return Proxy(node, self)

    def call_module(
        self, m: Module, forward: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        path = self._paths.get(id(m))
        if path is not None and self.is_leaf_module(m, path):
            return self.create_proxy("call_module", path, args, kwargs)
        return forward(*args, **kwargs)

    # -- the trace ----------------------------------------------------------------------------
    def trace(self, root: Any, concrete_args: dict[str, Any] | None = None) -> Graph:
        self.graph = Graph()
        fn = root.forward if isinstance(root, Module) else root
        self.root = root if isinstance(root, Module) else Module()
        self._paths = {id(m): name for name, m in self.root.named_modules()}
        self._constants, self._attrs = {}, {}
        concrete = dict(concrete_args or {})
        args = []
        for p in inspect.signature(fn).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TraceError(f"cannot trace a forward with *{p.name}: name its arguments")
            if p.name in concrete:
                args.append(concrete[p.name])
                continue
            default = () if p.default is p.empty else (p.default,)
            args.append(Proxy(self.graph.placeholder(p.name, *default), self))
        with _Patches(self):
            result = fn(*args)
        self.graph.output(self.create_arg(result))
        return self.graph


class _Patches:
    """Install the recording versions of functions, ``Module.__call__`` and attributes."""

    def __init__(self, tracer: Tracer):
        self.tracer = tracer
        self.saved: list[tuple[Any, str, Any]] = []

    def _set(self, owner: Any, name: str, value: Any) -> None:
        if isinstance(owner, dict):
            self.saved.append((owner, name, owner[name]))
            owner[name] = value
        else:
            self.saved.append((owner, name, owner.__dict__[name]))
            setattr(owner, name, value)

    def __enter__(self) -> _Patches:
        tracer = self.tracer
        seen: dict[int, Any] = {}
        for ns in _NAMESPACES:
            mod = sys.modules.get(ns)
            for name, fn in list(vars(mod).items()) if mod is not None else ():
                if name.startswith("_") or isinstance(fn, type) or not callable(fn):
                    continue
                if inspect.ismodule(fn):
                    continue
                rec = seen.setdefault(id(fn), _recording(fn, tracer))
                self._set(vars(mod), name, rec)
        for owner, name in _wrapped:
            if name in owner:
                self._set(owner, name, _recording(owner[name], tracer))
            elif hasattr(sys.modules["builtins"], name):  # wrap("len"): a builtin
                owner[name] = _recording(getattr(sys.modules["builtins"], name), tracer)
                self.saved.append((owner, name, _ABSENT))
        original_call, original_getattr = Module.__call__, Module.__getattr__

        def call(m: Module, *args: Any, **kwargs: Any) -> Any:
            return tracer.call_module(m, lambda *a, **k: original_call(m, *a, **k), args, kwargs)

        def getattr_(m: Module, name: str) -> Any:
            value = original_getattr(m, name)
            path = tracer._paths.get(id(m))
            if path is not None and isinstance(value, Tensor):
                return Proxy(tracer.get_attr_node(f"{path}.{name}" if path else name), tracer)
            return value

        self._set(Module, "__call__", call)
        self._set(Module, "__getattr__", getattr_)
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, name, value in reversed(self.saved):
            if isinstance(owner, dict):
                if value is _ABSENT:
                    owner.pop(name, None)
                else:
                    owner[name] = value
            else:
                setattr(owner, name, value)
        self.saved.clear()


_ABSENT = object()


def _recording(fn: Callable[..., Any], tracer: Tracer) -> Callable[..., Any]:
    def recording(*args: Any, **kwargs: Any) -> Any:
        if _has_proxy(args) or _has_proxy(kwargs):
            return tracer.create_proxy("call_function", fn, args, kwargs)
        return fn(*args, **kwargs)

    recording.__name__ = getattr(fn, "__name__", "fn")
    recording.__wrapped__ = fn  # type: ignore[attr-defined]
    return recording
