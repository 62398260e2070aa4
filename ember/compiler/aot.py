"""Compiled graphs whose outputs need gradients (a forward compiled without its backward).

``compile_with_autograd(graph, example_inputs, backend)`` returns what runs such a graph.
Today it replays the graph's operators *with* autograd recording (each node records its
formula's backward as an eager call would), so gradients are exactly eager's; passes and
fusion are not applied to it. The ahead-of-time backward (joint graph, partition, saved
tensors) is the next step (docs/compiler.md, "What is not done yet").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .graph import Graph
from .lower import lower

__all__ = ["compile_with_autograd"]


def compile_with_autograd(
    graph: Graph, example_inputs: list[Any], backend: Callable[..., Any]
) -> Callable[[list[Any]], Any]:
    """A function running ``graph`` whose outputs carry autograd history."""
    return lower(graph, autograd=True)
