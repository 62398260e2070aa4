"""``ember.fx``: PyTorch's ``torch.fx`` as far as symbolic tracing, editing and recompiling.

Owns ``symbolic_trace`` (``ember.fx.proxy``: run ``forward`` on Proxies and record what it
does), the editable ``Graph`` of ``Node`` objects (``ember.fx.graph``) and ``GraphModule``
(``ember.fx.graph_module``), which runs a graph as generated Python code: ``gm.code`` is its
source, ``gm.graph`` its graph; edit the graph, call ``gm.recompile()``, and the module runs
the edit.

Must always hold: a traced module computes what the original does on every input that takes
the same Python control flow (tracing records one path; a Proxy refuses to steer ``if`` and
``for``). Not supported: PyTorch's ``Interpreter``/``Transformer``, ``subgraph_rewriter``,
shape propagation, and tracing a forward that takes ``*args``/``**kwargs``.

Examples:
    >>> import ember
    >>> from ember import fx
    >>> class Block(ember.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.lin = ember.nn.Linear(4, 4)
    ...     def forward(self, x):
    ...         return self.lin(x).relu() * 2
    >>> gm = fx.symbolic_trace(Block())
    >>> [n.op for n in gm.graph.nodes]
    ['placeholder', 'call_module', 'call_method', 'call_function', 'output']
"""

from __future__ import annotations

from typing import Any

from ember.fx.graph import Graph, Node, map_arg
from ember.fx.graph_module import GraphModule
from ember.fx.proxy import Attribute, Proxy, TraceError, Tracer, wrap
from ember.nn.modules.module import Module

__all__ = [
    "symbolic_trace", "Graph", "Node", "GraphModule", "Proxy", "Attribute", "Tracer",
    "TraceError", "wrap", "map_arg",
]  # fmt: skip


def symbolic_trace(root: Any, concrete_args: dict[str, Any] | None = None) -> GraphModule:
    """Trace ``root`` (a Module or a function) into a ``GraphModule``.

    ember.nn's own layers become ``call_module`` nodes; other modules are traced through.
    ``concrete_args`` fixes some of ``forward``'s arguments to values (no placeholder).

    Examples:
        >>> import ember
        >>> from ember.fx import symbolic_trace
        >>> gm = symbolic_trace(lambda x, y: x @ y + 1)
        >>> gm(ember.ones(2, 2), ember.ones(2, 2)).tolist()
        [[3.0, 3.0], [3.0, 3.0]]
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else getattr(root, "__name__", "")
    return GraphModule(tracer.root, graph, name if name.isidentifier() else "GraphModule")
