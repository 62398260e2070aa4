"""Compiler backends: what turns a captured ``Graph`` into something that runs.

A backend is a callable ``backend(graph, example_inputs) -> fn`` where ``fn(A)`` runs the
graph on ``A``, the flattened tensor arguments of a later call (``graph`` is an
``ember.compiler.graph.Graph``; ``example_inputs`` the tensors of the call that was
captured). That is the whole contract (Note [Compiler backends]); the helpers a backend
uses are public: ``ember.compiler.lower`` (the graph as a Python function, kernels
resolved once), ``ember.compiler.passes`` and ``ember.compiler.fusion`` (graph passes).

Backends are plugins, found by name in the ``ember.compilers`` entry-point group (the
object an entry point names implements the ``ember_compiler_backend`` hook and returns
the callable). ember's own three are entry points of ember itself, so they are listed by
``python -m ember info`` beside any third-party one:

- ``eager``: replay the captured operators through their kernels (no passes);
- ``aot_eager``: the same, with the backward of a forward-only graph derived ahead of
  time from the active formula set (``ember.compiler.aot``);
- ``ember`` (alias ``inductor``): dead-code elimination, common-subexpression
  elimination, elementwise fusion with per-device code generation, AOT backward, memory
  planning. The default.

Examples:
    >>> from ember.compiler import backends
    >>> sorted(backends.list_backends())[:3]
    ['aot_eager', 'eager', 'ember']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.plugins import hookimpl, manager

from . import passes
from .graph import Graph
from .lower import lower

__all__ = ["lookup", "list_backends", "register_backend", "NAMESPACE", "ALIASES"]

NAMESPACE = "ember.compilers"
#: PyTorch's names for ember's backends, so scripts that name them run unchanged.
ALIASES = {"inductor": "ember"}

Backend = Callable[[Graph, list[Any]], Callable[[list[Any]], Any]]


def eager(graph: Graph, example_inputs: list[Any]) -> Callable[[list[Any]], Any]:
    """Replay the graph's operators (no passes): for debugging a capture."""
    return lower(graph)


def aot_eager(graph: Graph, example_inputs: list[Any]) -> Callable[[list[Any]], Any]:
    """Replay with the backward derived ahead of time (the frontend splits the joint graph
    and calls this once for the forward and once for the backward)."""
    return lower(graph)


def ember_backend(graph: Graph, example_inputs: list[Any]) -> Callable[[list[Any]], Any]:
    """The fusing backend: DCE, CSE, elementwise fusion with device code generation."""
    from . import fusion

    passes.eliminate_dead_code(graph)
    passes.eliminate_common_subexpressions(graph)
    passes.fold_constants(graph)
    passes.overwritten_inputs(graph)
    passes.elide_copies(graph)
    passes.hoist_scalars(graph)
    fusion.fuse(graph)
    return lower(graph)


ember_backend.aot = True  # type: ignore[attr-defined]
aot_eager.aot = True  # type: ignore[attr-defined]


class _Builtin:
    """The plugin object of one of ember's own backends (an ``ember.compilers`` entry)."""

    def __init__(self, fn: Backend):
        self.fn = fn

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return manager.PLUGIN_API_VERSION

    @hookimpl
    def ember_compiler_backend(self) -> Any:
        return self.fn


eager_plugin = _Builtin(eager)
aot_eager_plugin = _Builtin(aot_eager)
ember_plugin = _Builtin(ember_backend)

_BUILTIN: dict[str, Backend] = {"eager": eager, "aot_eager": aot_eager, "ember": ember_backend}
_registered: dict[str, Backend] = {}


def register_backend(name: str, fn: Backend) -> None:
    """Make ``fn`` usable as ``ember.compile(..., backend=name)`` in this process (like
    ``torch._dynamo.register_backend``; a package does it with an entry point instead)."""
    _registered[name] = fn


def list_backends() -> list[str]:
    """Names ``ember.compile(backend=...)`` accepts (loaded or not), aliases excluded."""
    names = set(_BUILTIN) | set(_registered)
    names |= {r.name for r in manager.discover(NAMESPACE)}
    return sorted(names)


def lookup(backend: Any) -> Backend:
    """The backend callable for a name or a callable (``ember.compile``'s ``backend=``)."""
    if callable(backend):
        return backend  # type: ignore[no-any-return]
    if not isinstance(backend, str):
        raise TypeError(
            f"ember.compile: backend must be a name or a callable, got {type(backend).__name__}"
        )
    name = ALIASES.get(backend, backend)
    if name in _registered:
        return _registered[name]
    rec = manager.load(NAMESPACE, name)
    if rec is not None and rec.provides is not None:
        return rec.provides  # type: ignore[no-any-return]
    if rec is None and name in _BUILTIN:  # a source tree without ember's entry points
        return _BUILTIN[name]
    why = (
        ""
        if rec is None
        else f" (plugin {rec.name} from {rec.package}: {rec.status}: {rec.reason})"
    )
    raise RuntimeError(
        f"ember.compile: unknown compiler backend '{backend}'{why}; known backends: "
        f"{', '.join(list_backends())} (and 'inductor', an alias of 'ember'), or pass a "
        "callable backend(graph, example_inputs)"
    )
