"""``GraphModule``: an ``nn.Module`` whose ``forward`` is generated from a ``Graph``.

Owns the step from graph to running code: the module copies from ``root`` the submodules,
parameters, buffers and constants the graph's ``call_module``/``get_attr`` nodes name (at the
same dotted paths), and ``recompile()`` turns ``graph.python_code()`` into its ``forward``.

Must always hold: ``code`` is the source ``forward`` runs; assigning ``graph`` or calling
``recompile()`` after editing the graph makes the module run the edited graph.
"""

from __future__ import annotations

import linecache
from typing import Any

from ember.core.tensor import Tensor
from ember.fx.graph import Graph
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["GraphModule"]

_count = [0]


def _fetch(root: Any, path: str) -> Any:
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


class GraphModule(Module):
    """A module running a Graph; made by ``ember.fx.symbolic_trace``.

    Examples:
        >>> import ember
        >>> from ember.fx import symbolic_trace
        >>> class Net(ember.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = ember.nn.Linear(2, 2)
        ...     def forward(self, x):
        ...         return ember.relu(self.fc(x)) + 1
        >>> gm = symbolic_trace(Net())
        >>> print(gm.code.strip())
        def forward(self, x):
            fc = self.fc(x)
            relu = ember.relu(fc)
            add = relu + 1
            return add
        >>> x = ember.randn(3, 2)
        >>> bool((gm(x) == gm.fc(x).relu() + 1).all())
        True
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> GraphModule:
        # each instance gets its own class, so class_name names it without renaming others
        if cls is GraphModule:
            cls = type("GraphModule", (GraphModule,), {"__module__": __name__})
        return super().__new__(cls)  # type: ignore[no-any-return]

    def __init__(self, root: Any, graph: Graph, class_name: str = "GraphModule"):
        super().__init__()
        type(self).__name__ = type(self).__qualname__ = class_name or "GraphModule"
        if isinstance(root, Module) and hasattr(root, "training"):
            self.training = root.training
        for node in graph.nodes:
            if node.op in ("call_module", "get_attr"):
                source = root[node.target] if isinstance(root, dict) else _fetch(root, node.target)
                self._install(node.target, source)
        self._graph = graph
        self.recompile()

    def _install(self, path: str, value: Any) -> None:
        *parents, last = path.split(".")
        owner: Module = self
        for part in parents:
            child = owner._modules.get(part)
            if child is None:
                child = Module()
                owner.add_module(part, child)
            owner = child
        if isinstance(value, Module):
            owner.add_module(last, value)
        elif isinstance(value, Parameter):
            owner.register_parameter(last, value)
        elif isinstance(value, Tensor) and not last.startswith("_tensor_constant"):
            owner.register_buffer(last, value)
        else:
            owner.__dict__[last] = value

    @property
    def graph(self) -> Graph:
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        self._graph = g
        self.recompile()

    @property
    def code(self) -> str:
        return self._code

    def recompile(self) -> str:
        """Generate ``forward`` from the graph again (after editing it); returns the source."""
        env: dict[str, Any] = {}
        src = self._graph.python_code(env)
        _count[0] += 1
        key = f"<eval_with_key>.{_count[0]}"
        linecache.cache[key] = (len(src), None, src.splitlines(True), key)  # for tracebacks
        exec(compile(src, key, "exec"), env)
        self._code = src
        self.__dict__["forward"] = env["forward"].__get__(self)
        return src

    def print_readable(self, print_output: bool = True) -> str:
        text = f"class {type(self).__name__}(ember.nn.Module):{self._code}".replace("\n", "\n    ")
        if print_output:
            print(text)
        return text

    def __reduce__(self) -> Any:
        raise TypeError("GraphModule objects cannot be pickled; save the root's state_dict")
